// privet/accounting/odometer.hpp — a privacy odometer over events of mixed
// kinds that reports the tightest (eps, delta) any of its accountants can
// justify.
//
// Each recorded event (accounting/events.hpp) is kept with its count;
// repeats of an identical event merge into one entry, so 10^4 DP-SGD steps
// are one entry composed by one FFT power. At query time the odometer
// composes every entry two ways:
//
// - RDP: the sum of the entries' curves, converted by the improved
//   conversion (Balle et al. 2020). An (eps, delta) event with delta > 0 is
//   a post-processing of eps-randomised response preceded by a reveal of
//   the input with probability delta (Kairouz, Oh & Viswanath 2015, Theorem
//   2.1): its curve is randomised response's, and the reveals, independent
//   of the data, compose multiplicatively. On the event of no reveal (total
//   probability keep = prod (1 - delta_i)^count_i) the curve gives (eps,
//   delta'), so P[S] <= (1 - keep) + keep (e^eps Q[S | no reveal] + delta')
//   <= e^eps Q[S] + 1 - keep (1 - delta'): delta = 1 - keep (1 - delta'),
//   and a query for delta converts the curve at delta' = 1 - (1 - delta) /
//   keep (as dp_accounting does; basic composition, deltas added, is looser).
// - PLD: the composition of the entries' privacy loss distributions, each
//   pessimistic (accounting/pld.hpp), all in one frequency domain
//   (privacy_loss_distribution::compose_all: one transform per entry at the
//   final size, so the cost is linear in the number of kinds); available
//   when no entry lacks a PLD (zCDP, raw RDP curves).
//
// Both are valid upper bounds on the same composition, so the smaller is
// too; the report says which one it came from. Each entry's own PLD (and
// PRV, when that accountant is on) is built when the event is first
// recorded, so an event the accountants cannot take throws from record(),
// not from every later query; an entry keeps it (at the default grid 2,000
// to 16,000 doubles per order: 44 KiB for a DP-SGD step, 128 KiB for a
// Gaussian with sigma = 1), which also spares each query rebuilding it. The
// composition is not cached: a query costs one PLD composition (about 50 ms
// for 10^4 DP-SGD steps at the default grid h = 1e-4, 5 ms at 1e-3; about
// 5 ms more for each further kind of step), which keeps const queries safe
// to run from several threads.
//
// Samplers within a total variation (constant-time noise). record() takes,
// besides the event, the total variation tau between one run's output law
// and the exact event's, for every input (a mechanism's
// sampler_total_variation(); 0 for exact noise), and the odometer keeps
// their sum TV (rounded up). The accountants compose the exact events; the
// runs actually made are within TV of that composition for every input (a
// hybrid argument: replace one run at a time by its exact counterpart, each
// swap moving the law of the whole transcript by at most that run's tau,
// whatever the earlier outputs were, as each run's bound holds for every
// input), so (eps, delta')-DP of the exact composition gives (eps, delta' +
// (1 + e^eps) TV)-DP of the real one (add_total_variation,
// core/guarantee.hpp). A report for delta therefore asks the accountants at
// delta' = delta - share, with share at least (1 + e^eps) TV for the epsilon
// they answer (raised until add_total_variation fits within delta): it keeps
// the delta asked and pays in epsilon, for a share of max(4 TV, 2^-48
// delta), or about twice (1 + e^eps) TV when that is larger (two
// compositions then), which for constant-time samplers (tau < 2^-100 a
// coordinate) no accountant's grid resolves. delta(epsilon) adds (1 + e^eps) TV.
//
// No silent fall-back: when an accountant that is on gives no answer (an
// entry without a PLD or PRV, a delta at or below the composed PLD's mass at
// +infinity, a loss grid too fine for the composition; with a recorded TV,
// an epsilon whose (1 + e^eps) TV no share of delta covers), the report
// says so and why (odometer_report::pld_unavailable, prv_unavailable,
// rdp_unavailable) and keeps the other accountants' answers, and an
// odometer with no answer at all names that cause in its exception.
#pragma once

#include <privet/accounting/events.hpp>
#include <privet/accounting/pld.hpp>
#include <privet/accounting/prv.hpp>
#include <privet/accounting/rdp.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/detail/rounding.hpp>
#include <privet/core/error.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/validate.hpp>

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <typeindex>
#include <typeinfo>
#include <utility>
#include <vector>

namespace privet {

/// Which accountants a privacy_odometer runs and with what parameters.
/// Checked by the odometer's constructor.
struct odometer_options {
  /// Renyi orders of the RDP accountant.
  std::vector<double> orders = default_rdp_orders();
  /// Grid and truncation of the PLD accountant: pld_options' defaults (see
  /// there), the same as calibration's, so that calibrating a sigma and then
  /// recording its runs give the same epsilon.
  pld_options pld = {};
  /// Whether to run the PLD accountant at all.
  bool use_pld = true;
  /// Whether to run the PRV accountant too (off by default: it answers with
  /// a bracket whose upper end is close to the PLD's, at a higher cost).
  bool use_prv = false;
  /// The PRV accountant's errors (used only when use_prv is set).
  prv_options prv = {};
};

/// An accountant: what an odometer_report's answer came from, or which one
/// calibration certifies with.
enum class accountant_kind {
  rdp,  ///< Renyi DP curves, converted to (eps, delta) (accounting/rdp.hpp).
  pld,  ///< Privacy loss distributions composed by FFT (accounting/pld.hpp).
  prv   ///< Privacy random variables (accounting/prv.hpp).
};

/// "RDP", "PLD" or "PRV".
inline const char* to_string(accountant_kind k) noexcept {
  switch (k) {
    case accountant_kind::rdp:
      return "RDP";
    case accountant_kind::pld:
      return "PLD";
    case accountant_kind::prv:
      return "PRV";
  }
  return "?";
}

/// What the odometer can justify for one delta: each accountant's answer
/// (empty where it has none) and the tightest of them.
struct odometer_report {
  /// The RDP accountant's answer, (eps, delta) events' deltas composed multiplicatively.
  std::optional<approx_dp> rdp;
  std::optional<approx_dp> pld;  ///< The PLD accountant's answer.
  std::optional<approx_dp> prv;  ///< the PRV accountant's upper bound
  approx_dp tightest;            ///< The answer with the smallest epsilon.
  accountant_kind method;        ///< The accountant `tightest` came from.
  /// Why the PLD accountant, when on, has no answer (empty when it has one):
  /// an entry without a PLD, delta not above the composed PLD's mass at
  /// +infinity, or a composition the loss grid cannot hold.
  std::string pld_unavailable;
  /// Likewise for the PRV accountant.
  std::string prv_unavailable;
  /// Why the RDP accountant has no answer (empty when it has one): delta
  /// not above the recorded (eps, delta) events' total delta, or, with
  /// samplers' total variation recorded, an epsilon so large that (1 +
  /// e^eps) TV does not fit below delta.
  std::string rdp_unavailable;
};

/// A privacy odometer: records privacy events (accounting/events.hpp) as
/// they happen and answers, at any time, the tightest (eps, delta) that its
/// RDP, PLD and (optionally) PRV accountants justify for everything recorded.
class privacy_odometer {
 public:
  /// One recorded kind of event and how often it happened.
  struct entry {
    std::string description;  ///< describe() of the event.
    std::uint64_t count;      ///< How many runs of it were recorded.
  };

  /// An empty odometer. Throws invalid_parameter for invalid orders
  /// (rdp::validate_orders) and, when the PLD accountant is on, naming
  /// pld.value_discretization_interval (not > 0) or
  /// pld.tail_mass_truncation (not in (0, 1)).
  explicit privacy_odometer(odometer_options o = {}) : o_(std::move(o)), total_rdp_(zero_curve()) {
    rdp::validate_orders(o_.orders);
    if (o_.use_pld) {
      validate_positive(o_.pld.value_discretization_interval, "pld.value_discretization_interval");
      if (!(o_.pld.tail_mass_truncation > 0 && o_.pld.tail_mass_truncation < 1)) {
        throw_invalid("pld.tail_mass_truncation", o_.pld.tail_mass_truncation, "(0, 1)");
      }
    }
  }

  /// Records `count` runs of the event (count >= 1), each of whose output
  /// law is within `total_variation` (in [0, 1]; 0 for exact noise) of the
  /// event's exact mechanism's, for every input (see the file comment). The
  /// event's curve, PLD (when the PLD accountant is on) and PRV (when that
  /// one is on) are built at once, so an event a query could not use throws
  /// here, from rdp_of, pld_of or prv_of, and leaves the odometer unchanged.
  template <privacy_event E>
  void record(const E& event, std::uint64_t count = 1, double total_variation = 0) {
    validate_at_least<std::uint64_t>(count, 1, "count");
    validate_probability(total_variation, "total_variation");
    if (releases_ > std::numeric_limits<std::uint64_t>::max() - count) {
      throw_invalid(
          "count", count,
          "<= " + detail::format_value(std::numeric_limits<std::uint64_t>::max() - releases_) +
              " (the odometer's release counter would overflow)");
    }
    // A repeat of the last event reuses its curve (computing a subsampled
    // Gaussian's curve costs milliseconds; DP-SGD records one per step).
    std::string key = describe(event);
    const bool mergeable = !std::same_as<E, rdp>;
    if (mergeable && !entries_.empty() && entries_.back().mergeable &&
        entries_.back().type == std::type_index(typeid(E)) && entries_.back().description == key) {
      add_runs(entries_.back(), count, total_variation);
      return;
    }
    std::optional<rdp> curve = rdp_of(event, o_.orders);
    std::optional<approx_dp> basic;
    if constexpr (std::same_as<E, approx_dp>) {
      if (event.delta() > 0) basic = event;
    }
    if (!curve && !basic) {
      throw_invalid("event", key, "an event with an RDP curve or an (eps, delta)");
    }
    item it;
    it.description = std::move(key);
    it.mergeable = mergeable;
    it.type = std::type_index(typeid(E));
    it.curve = std::move(curve);
    it.basic = basic;
    // Built now, before anything changes: a PLD or PRV that cannot be built
    // (gdp(0) has no Gaussian PLD) throws here rather than from every query.
    if (o_.use_pld) it.pld = pld_of(event, o_.pld);
    if constexpr (prv_event<E>) {
      if (o_.use_prv) it.prv = prv_of(event);
    }
    add_runs(it, count, total_variation);
    entries_.push_back(std::move(it));
  }

  /// Every accountant's answer for `delta` in (0, 1) and the tightest one.
  /// With a recorded total variation TV > 0, each answer is the accountant's
  /// epsilon at delta - share, share >= (1 + e^eps) TV (file comment), so
  /// every answer holds at delta for the runs made. Throws invalid_parameter
  /// if no accountant reaches delta (the recorded (eps, delta) events
  /// already spend it and there is no PLD), or, with TV > 0, if no share
  /// below delta covers (1 + e^eps) TV for any accountant's epsilon; an
  /// accountant whose epsilon no share covers while another's is covered
  /// has no answer, and its *_unavailable field says why.
  [[nodiscard]] odometer_report report(double delta) const {
    validate_delta_positive(delta);
    if (tv_ == 0) return exact_report(delta);
    // Start with a share no accountant notices; if (1 + e^eps) TV exceeds
    // it, retry with twice what the answers need. Each retry at least
    // doubles the share, so the loop ends (at share >= delta at the latest).
    double share = std::max(4 * tv_, std::ldexp(delta, -48));
    // Each accountant keeps the first answer that fits; one whose epsilon is
    // too large for any share (RDP's looser bound, say, at a large TV) is
    // reported unavailable rather than failing the others.
    std::optional<odometer_report> first;
    std::optional<approx_dp> fitted[3];
    bool pending[3] = {true, true, true};
    while (share < delta && (pending[0] || pending[1] || pending[2])) {
      std::optional<odometer_report> r;
      if (!first) {
        r = exact_report(delta - share);  // throws when no accountant answers at all
        first = r;
      } else {
        try {
          r = exact_report(delta - share);
        } catch (const invalid_parameter&) {
          break;  // none answers at this smaller delta; keep what fitted
        }
      }
      // The next share: twice the least need still pending (a larger share
      // only raises each epsilon, so a need of delta or more never fits).
      double need = delta;
      std::optional<approx_dp>* answers[3] = {&r->rdp, &r->pld, &r->prv};
      for (int i = 0; i < 3; ++i) {
        if (!pending[i]) continue;
        if (!*answers[i]) {
          pending[i] = false;  // a smaller delta never brings it back
          continue;
        }
        const approx_dp raised = add_total_variation(**answers[i], tv_);
        const double own = raised.delta() - (*answers[i])->delta();
        if (raised.delta() <= delta) {
          fitted[i] = approx_dp((*answers[i])->epsilon(), delta);
          pending[i] = false;
        } else if (own >= delta) {
          pending[i] = false;
        } else {
          need = std::min(need, own);
        }
      }
      share = std::max(2 * share, 2 * need);
    }
    if (!fitted[0] && !fitted[1] && !fitted[2]) {
      throw_invalid("delta", delta,
                    "above (1 + e^eps) times the samplers' recorded total variation " +
                        detail::format_value(tv_));
    }
    odometer_report r = *first;
    const std::string no_fit =
        "no answer within delta = " + detail::format_value(delta) +
        " once a share covering (1 + e^eps) times the samplers' total variation " +
        detail::format_value(tv_) +
        " is set aside (its epsilon's share did not fit, or at the smaller delta it had none)";
    if (r.rdp && !fitted[0]) r.rdp_unavailable = no_fit;
    if (r.pld && !fitted[1]) r.pld_unavailable = no_fit;
    if (r.prv && !fitted[2]) r.prv_unavailable = no_fit;
    r.rdp = fitted[0];
    r.pld = fitted[1];
    r.prv = fitted[2];
    bool any = false;
    for (auto [kind, answer] :
         {std::pair{accountant_kind::rdp, &r.rdp}, std::pair{accountant_kind::pld, &r.pld},
          std::pair{accountant_kind::prv, &r.prv}}) {
      if (!*answer) continue;
      if (!any || (*answer)->epsilon() < r.tightest.epsilon()) {
        r.tightest = **answer;
        r.method = kind;
        any = true;
      }
    }
    return r;
  }

  /// The sum of the recorded runs' total variations (rounded up, at most
  /// 1): the distance between the runs made and the exact events' runs.
  [[nodiscard]] double total_variation() const noexcept { return tv_; }

 private:
  // The accountants' answers for the exact events at `delta`.
  [[nodiscard]] odometer_report exact_report(double delta) const {
    std::optional<approx_dp> by_rdp, by_pld;
    const double rest = rdp_share(delta);
    if (rest > 0) {
      // With no curve recorded the RDP part is exactly 0 (converting the
      // zero curve would add the conversion's slack).
      const double eps = has_curve_ ? to_approx_dp(total_rdp_, rest).epsilon() : 0.0;
      by_rdp = approx_dp(eps, delta);
    }
    std::string pld_why, prv_why;
    if (o_.use_pld && entries_.empty()) {
      by_pld = approx_dp(0, delta);
    } else if (o_.use_pld) {
      try {
        if (auto p = composed_pld()) {
          const double top = std::max(p->remove().infinity_mass(), p->add().infinity_mass());
          if (p->has_epsilon(delta)) {
            by_pld = p->epsilon(delta);
          } else {
            pld_why = "delta = " + detail::format_value(delta) +
                      " is not above the composed PLD's mass at +infinity, " +
                      detail::format_value(top) +
                      " (the tails truncated at pld.tail_mass_truncation and the round-off "
                      "allowances of every step)";
          }
        } else {
          pld_why = "no PLD for " + first_without(&item::pld);
        }
      } catch (const invalid_parameter& e) {
        // A grid too fine for the composed loss range (more than 2^27 points).
        pld_why = std::string("the composition cannot be held on its grid: ") + e.what();
      }
    }
    std::optional<approx_dp> by_prv;
    if (o_.use_prv && !entries_.empty()) {
      if (auto acc = prv_accounting()) {
        const auto c = acc->compose(delta);  // delta_error relative to this delta
        if (delta > c.smallest_delta()) {
          by_prv = to_approx_dp(c, delta);
        } else {
          prv_why = "delta = " + detail::format_value(delta) +
                    " is not above the PRV's smallest delta, " +
                    detail::format_value(c.smallest_delta());
        }
      } else {
        prv_why = "no PRV for " + first_without(&item::prv);
      }
    }
    if (!by_rdp && !by_pld && !by_prv) {
      std::string why = "> " + detail::format_value(revealed()) +
                        ", the recorded (eps, delta) events' total delta";
      if (!pld_why.empty()) why += "; PLD: " + pld_why;
      if (!prv_why.empty()) why += "; PRV: " + prv_why;
      throw_invalid("delta", delta, why);
    }
    const std::string rdp_why =
        rest > 0 ? std::string()
                 : "delta = " + detail::format_value(delta) +
                       " is not above the recorded (eps, delta) events' total delta";
    odometer_report r{by_rdp,  by_pld,  by_prv, approx_dp(0, delta), accountant_kind::rdp,
                      pld_why, prv_why, rdp_why};
    bool first = true;
    for (auto [kind, answer] :
         {std::pair{accountant_kind::rdp, &by_rdp}, std::pair{accountant_kind::pld, &by_pld},
          std::pair{accountant_kind::prv, &by_prv}}) {
      if (!*answer) continue;
      if (first || (*answer)->epsilon() < r.tightest.epsilon()) {
        r.tightest = **answer;
        r.method = kind;
        first = false;
      }
    }
    return r;
  }

 public:
  /// A PRV accountant holding everything recorded, or nothing if some entry
  /// has no PRV, the PRV accountant is off, or nothing was recorded.
  [[nodiscard]] std::optional<prv_accountant> prv_accounting() const {
    if (!o_.use_prv || entries_.empty()) return std::nullopt;
    prv_accountant acc(o_.prv);
    for (const auto& e : entries_) {
      if (!e.prv) return std::nullopt;
      acc.add(*e.prv, e.count);
    }
    return acc;
  }

  /// The tightest (eps, delta) for `delta` in (0, 1).
  [[nodiscard]] approx_dp epsilon(double delta) const { return report(delta).tightest; }

  /// The smallest delta any accountant gives for `epsilon` >= 0.
  [[nodiscard]] double delta(double epsilon) const {
    validate_non_negative(epsilon, "epsilon");
    double best = 1;
    {
      // 1 - keep (1 - part), rounded up.
      constexpr double u = std::numeric_limits<double>::epsilon();
      const double part = has_curve_ ? rdp_delta(total_rdp_, epsilon) : 0.0;
      const double log_keep = std::log1p(-part) + log_keep_;
      best = std::min(best, -std::expm1(log_keep * (1 + 8 * u)) * (1 + 8 * u));
    }
    if (auto p = composed_pld()) best = std::min(best, p->delta(epsilon));
    if (o_.use_pld && entries_.empty()) best = 0;
    best = std::min(1.0, best);
    return tv_ == 0 ? best : add_total_variation(approx_dp(epsilon, best), tv_).delta();
  }

  /// The composed PLD of everything recorded, or nothing if some entry has
  /// no PLD, the PLD accountant is off, or nothing was recorded.
  [[nodiscard]] std::optional<privacy_loss_distribution> composed_pld() const {
    if (!o_.use_pld || entries_.empty()) return std::nullopt;
    std::vector<pld_runs> kinds;
    kinds.reserve(entries_.size());
    for (const auto& e : entries_) {
      if (!e.pld) return std::nullopt;
      kinds.push_back({std::cref(*e.pld), e.count});
    }
    return privacy_loss_distribution::compose_all(kinds);
  }

  /// The composed RDP curve of the entries that have one.
  [[nodiscard]] const rdp& composed_rdp() const noexcept { return total_rdp_; }

  /// The recorded entries in order of recording; consecutive identical
  /// events (same type and description, except raw RDP curves) share one.
  [[nodiscard]] std::vector<entry> entries() const {
    std::vector<entry> out;
    out.reserve(entries_.size());
    for (const auto& e : entries_) out.push_back({e.description, e.count});
    return out;
  }
  /// The total number of runs recorded (the sum of the entries' counts).
  [[nodiscard]] std::uint64_t releases() const noexcept { return releases_; }
  /// The options the odometer was built with.
  [[nodiscard]] const odometer_options& options() const noexcept { return o_; }

 private:
  struct item {
    std::string description;
    bool mergeable = true;
    std::type_index type = std::type_index(typeid(void));
    std::uint64_t count = 0;
    std::optional<rdp> curve;
    std::optional<approx_dp> basic;
    optional_pld pld;  // built by record() when the PLD accountant is on
    optional_prv prv;  // likewise for the PRV accountant
  };

  /// The description of the first entry whose `member` (PLD or PRV) is
  /// missing.
  template <class Member>
  [[nodiscard]] std::string first_without(Member item::*member) const {
    for (const auto& e : entries_) {
      if (!(e.*member)) return e.description;
    }
    return "an entry";
  }

  // The probability that some (eps, delta) event revealed its input, 1 -
  // keep, rounded up (log_keep_ is rounded down).
  [[nodiscard]] double revealed() const {
    return std::min(1.0, -std::expm1(log_keep_) * (1 + 8 * std::numeric_limits<double>::epsilon()));
  }

  // The delta' at which the curve must be converted for a total of delta:
  // 1 - (1 - delta) / keep, rounded down (<= 0: none).
  [[nodiscard]] double rdp_share(double delta) const {
    if (log_keep_ == 0) return delta;  // no reveals: the curve gets all of delta
    constexpr double u = std::numeric_limits<double>::epsilon();
    const double a = std::log1p(-delta);
    // x = a - log_keep_, moved up by its rounding bound.
    const double x = a - log_keep_ + 4 * u * (std::fabs(a) + std::fabs(log_keep_));
    if (!(x < 0)) return 0;
    return -std::expm1(x) * (1 - 8 * u);
  }

  rdp zero_curve() const {
    return detail::rdp_curve(o_.orders, [](double) { return 0.0; });
  }

  void add_runs(item& it, std::uint64_t count, double total_variation) {
    // Everything that can throw happens before the odometer changes.
    rdp next_rdp = it.curve ? total_rdp_ + it.curve->composed(count) : total_rdp_;
    double next_log_keep = log_keep_;
    if (it.basic) {
      // count log(1 - delta), rounded down (more negative) by 8 ulps.
      constexpr double u = std::numeric_limits<double>::epsilon();
      const double step = static_cast<double>(count) * std::log1p(-it.basic->delta());
      next_log_keep = (next_log_keep + step) * (1 + 8 * u);
    }
    // count tau added to the total, rounded up, capped at 1.
    const double next_tv =
        total_variation == 0
            ? tv_
            : std::min(1.0, detail::add_up(
                                tv_, detail::mul_up(static_cast<double>(count), total_variation)));
    total_rdp_ = std::move(next_rdp);
    tv_ = next_tv;
    has_curve_ = has_curve_ || it.curve.has_value();
    log_keep_ = next_log_keep;
    it.count += count;
    releases_ += count;
  }

  odometer_options o_;
  std::vector<item> entries_;
  rdp total_rdp_;
  bool has_curve_ = false;
  // log of the probability that no (eps, delta) event revealed its input.
  double log_keep_ = 0;
  std::uint64_t releases_ = 0;
  // The runs' total variation from the exact events (rounded up).
  double tv_ = 0;
};

}  // namespace privet
