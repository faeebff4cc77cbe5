// tests/support/privacy_audit.hpp — an empirical privacy audit for any
// mechanism: a lower bound on epsilon, valid with a stated confidence, from
// many seeded runs on two neighbouring inputs.
//
// Method (the black-box audit of Jagielski, Ullman & Oprea 2020 and Nasr,
// Song, Thakurta, Papernot & Carlini 2021; Google's DP library ships a
// similar "stochastic tester"). If M is (eps, delta)-DP, then for the
// neighbours x, x' and every event S,
//   P[M(x) in S] <= e^eps P[M(x') in S] + delta,
// so eps >= ln((P[M(x) in S] - delta) / P[M(x') in S]), and the same with x
// and x' swapped. Run M N times on each input, count the hits of S, and
// replace the numerator's probability by a one-sided Clopper-Pearson lower
// bound and the denominator's by an upper bound (Clopper & Pearson 1934:
// exact binomial bounds, beta quantiles from Boost.Math's inverse incomplete
// beta). With m comparisons (event, direction) and every one-sided bound at
// level alpha / (2 m), a union bound (Bonferroni) makes all 2 m bounds hold
// at once with probability >= 1 - alpha, and then every ratio, hence their
// maximum eps_lb, is below the true epsilon. So "eps_lb > claimed epsilon"
// is a false alarm with probability at most alpha for a correct mechanism,
// and proof (at confidence 1 - alpha) of a violation otherwise.
//
// Events are either given (predicates on the output, for any output type) or
// built automatically for real, integer and bool outputs from a selection
// sample: thresholds {y >= t}, {y < t} and histogram bins at the sample's
// quantiles, with extra cut points deep in both tails where the privacy loss
// of additive noise is largest. Choosing events from the same draws that are
// counted would void the bound, so selection uses separate runs (independent
// generator streams): they fix the event set and keep only the `keep` most
// promising comparisons, which makes the Bonferroni correction small; the
// bound is then computed from fresh runs only (as in Jagielski et al., who
// pick their threshold on a separate set of runs).
#pragma once

#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>

#include <boost/math/special_functions/beta.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iomanip>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace privet::test {

/// One-sided Clopper-Pearson lower bound on a binomial proportion from
/// `hits` of `n`: below the true proportion except with probability `level`.
inline double clopper_pearson_lower(std::uint64_t hits, std::uint64_t n, double level) {
  if (hits == 0) return 0;
  return boost::math::ibeta_inv(static_cast<double>(hits), static_cast<double>(n - hits + 1),
                                level);
}

/// One-sided Clopper-Pearson upper bound, wrong with probability `level`.
inline double clopper_pearson_upper(std::uint64_t hits, std::uint64_t n, double level) {
  if (hits >= n) return 1;
  // The complement form keeps full precision for levels far below 1e-16.
  return boost::math::ibetac_inv(static_cast<double>(hits + 1), static_cast<double>(n - hits),
                                 level);
}

/// ln((lower(numerator) - delta) / upper(denominator)), each bound at
/// `level`; -inf when the numerator's lower bound does not exceed delta.
inline double epsilon_lower_bound(std::uint64_t numerator_hits, std::uint64_t denominator_hits,
                                  std::uint64_t n, double delta, double level) {
  const double num = clopper_pearson_lower(numerator_hits, n, level) - delta;
  if (!(num > 0)) return -std::numeric_limits<double>::infinity();
  return std::log(num / clopper_pearson_upper(denominator_hits, n, level));
}

/// An event S: a named predicate on the output.
template <class Output>
struct audit_event {
  std::string name;
  std::function<bool(const Output&)> contains;
};

struct audit_options {
  std::uint64_t runs = 100'000;      // per input, counted for the bound
  std::uint64_t selection_runs = 0;  // per input, to choose events (0: test all given events)
  std::size_t keep = 4;              // comparisons kept by selection (0: all)
  double delta = 0;                  // the delta of the claim being audited
  double alpha = 1e-6;               // the bound is wrong with probability <= alpha
  std::uint64_t seed = 1;
  std::size_t quantile_bins = 32;  // automatic events: cut points at i / bins quantiles
  std::uint64_t min_tail = 32;     // automatic events: deepest tail cut keeps this many draws
};

struct audit_counts {
  std::string event;
  std::uint64_t hits_x = 0;        // runs on x whose output is in the event
  std::uint64_t hits_x_prime = 0;  // runs on x'
};

struct audit_result {
  double epsilon_lower = 0;  // max(0, best bound): epsilon >= 0 always holds
  std::string witness;       // the comparison that gave it, e.g. "P[M(x) in S] / P[M(x') in S]"
  std::uint64_t numerator_hits = 0, denominator_hits = 0;
  double numerator_lower = 0, denominator_upper = 1;  // the Clopper-Pearson bounds used
  std::uint64_t runs = 0;                             // per input
  std::size_t comparisons = 0;                        // m in the Bonferroni correction
  double alpha = 0;
  std::vector<audit_counts> counts;  // final counts of every event compared
};

/// The options most audits vary: runs counted and runs to choose events,
/// at the given seed, claim delta and alpha (the bound's error probability).
inline audit_options make_audit_options(std::uint64_t runs, std::uint64_t selection_runs,
                                        std::uint64_t seed, double delta = 0, double alpha = 1e-6) {
  audit_options o;
  o.runs = runs;
  o.selection_runs = selection_runs;
  o.seed = seed;
  o.delta = delta;
  o.alpha = alpha;
  return o;
}

/// One line on an audit's outcome against the claim, for INFO / CHECK messages.
inline std::string audit_summary(const std::string& what, const audit_result& r, double claimed) {
  return what + ": eps_lb = " + std::to_string(r.epsilon_lower) + " (claimed " +
         std::to_string(claimed) + ") from " + r.witness + ", hits " +
         std::to_string(r.numerator_hits) + " / " + std::to_string(r.denominator_hits) + " of " +
         std::to_string(r.runs) + ", " + std::to_string(r.comparisons) + " comparisons";
}

namespace detail {

template <class Output>
std::string describe(const Output& v) {
  std::ostringstream out;
  out << std::boolalpha << std::setprecision(7) << v;
  return out.str();
}

template <class Mechanism, class Input>
using output_of = std::remove_cvref_t<
    std::invoke_result_t<Mechanism&, const Input&, privet::testing::seeded_release_generator&>>;

template <class Output, class Mechanism, class Input>
std::vector<Output> draw(Mechanism& mechanism, const Input& input, std::uint64_t n,
                         std::uint64_t seed, std::uint64_t stream) {
  privet::testing::seeded_release_generator gen(seed, stream);
  std::vector<Output> out;
  out.reserve(static_cast<std::size_t>(n));
  for (std::uint64_t r = 0; r < n; ++r) out.push_back(mechanism(input, gen));
  return out;
}

template <class Output>
std::uint64_t hits(const audit_event<Output>& e, const std::vector<Output>& ys) {
  std::uint64_t c = 0;
  for (const auto& y : ys) c += e.contains(y) ? 1 : 0;
  return c;
}

// A comparison: event index and whether x is the numerator.
struct comparison {
  std::size_t event;
  bool x_over_x_prime;
};

inline void check_options(const audit_options& o) {
  if (o.runs == 0) throw std::invalid_argument("privacy audit: runs must be >= 1");
  if (!(o.alpha > 0 && o.alpha < 1))
    throw std::invalid_argument("privacy audit: alpha must be in (0, 1)");
  if (!(o.delta >= 0 && o.delta < 1))
    throw std::invalid_argument("privacy audit: delta must be in [0, 1)");
}

// Streams: 0 and 1 for the counted runs on x and x', 2 and 3 for selection,
// so selection never sees a draw that is counted.
constexpr std::uint64_t stream_x = 0, stream_x_prime = 1, stream_select_x = 2,
                        stream_select_x_prime = 3;

template <class Output, class Mechanism, class Input>
audit_result run_audit(Mechanism& mechanism, const Input& x, const Input& x_prime,
                       const std::vector<audit_event<Output>>& events,
                       std::vector<comparison> chosen, const audit_options& o) {
  // Count only the events some comparison uses.
  std::vector<std::size_t> used;
  for (const auto& c : chosen) used.push_back(c.event);
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  std::vector<std::uint64_t> cx(events.size()), cxp(events.size());
  privet::testing::seeded_release_generator gx(o.seed, stream_x), gxp(o.seed, stream_x_prime);
  for (std::uint64_t r = 0; r < o.runs; ++r) {
    const Output y = mechanism(x, gx);
    const Output yp = mechanism(x_prime, gxp);
    for (std::size_t e : used) {
      cx[e] += events[e].contains(y) ? 1 : 0;
      cxp[e] += events[e].contains(yp) ? 1 : 0;
    }
  }
  audit_result result;
  result.runs = o.runs;
  result.alpha = o.alpha;
  result.comparisons = chosen.size();
  for (std::size_t e : used) result.counts.push_back({events[e].name, cx[e], cxp[e]});
  const double level = o.alpha / (2.0 * static_cast<double>(chosen.size()));
  double best = -std::numeric_limits<double>::infinity();
  for (const auto& c : chosen) {
    const std::uint64_t num = c.x_over_x_prime ? cx[c.event] : cxp[c.event];
    const std::uint64_t den = c.x_over_x_prime ? cxp[c.event] : cx[c.event];
    const double eps = epsilon_lower_bound(num, den, o.runs, o.delta, level);
    if (eps > best || result.witness.empty()) {
      best = std::max(best, eps);
      result.witness = (c.x_over_x_prime ? "P[M(x) in S] / P[M(x') in S], S = "
                                         : "P[M(x') in S] / P[M(x) in S], S = ") +
                       events[c.event].name;
      result.numerator_hits = num;
      result.denominator_hits = den;
      result.numerator_lower = clopper_pearson_lower(num, o.runs, level);
      result.denominator_upper = clopper_pearson_upper(den, o.runs, level);
    }
  }
  result.epsilon_lower = std::max(0.0, best);
  return result;
}

// The `keep` comparisons with the largest bound on the selection draws,
// each scored at the level the final bound will use.
template <class Output>
std::vector<comparison> choose_comparisons(const std::vector<audit_event<Output>>& events,
                                           const std::vector<Output>& sx,
                                           const std::vector<Output>& sxp, const audit_options& o) {
  std::vector<comparison> all;
  std::vector<double> score;
  const std::size_t kept = o.keep == 0 ? 2 * events.size() : std::min(o.keep, 2 * events.size());
  const double level = o.alpha / (2.0 * static_cast<double>(kept));
  const auto n = static_cast<std::uint64_t>(sx.size());
  for (std::size_t e = 0; e < events.size(); ++e) {
    const std::uint64_t a = hits(events[e], sx), b = hits(events[e], sxp);
    all.push_back({e, true});
    score.push_back(epsilon_lower_bound(a, b, n, o.delta, level));
    all.push_back({e, false});
    score.push_back(epsilon_lower_bound(b, a, n, o.delta, level));
  }
  std::vector<std::size_t> order(all.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t i, std::size_t j) { return score[i] > score[j]; });
  std::vector<comparison> chosen;
  for (std::size_t i = 0; i < kept; ++i) chosen.push_back(all[order[i]]);
  return chosen;
}

}  // namespace detail

/// {y >= t} and {y < t} for each threshold t.
template <class Output>
std::vector<audit_event<Output>> threshold_events(const std::vector<Output>& thresholds) {
  std::vector<audit_event<Output>> events;
  for (const Output& t : thresholds) {
    events.push_back({"y >= " + detail::describe(t), [t](const Output& y) { return y >= t; }});
    events.push_back({"y < " + detail::describe(t), [t](const Output& y) { return y < t; }});
  }
  return events;
}

/// {y == v} for each value v (discrete outputs).
template <class Output>
std::vector<audit_event<Output>> value_events(const std::vector<Output>& values) {
  std::vector<audit_event<Output>> events;
  for (const Output& v : values)
    events.push_back({"y == " + detail::describe(v), [v](const Output& y) { return y == v; }});
  return events;
}

/// Histogram bins {edges[i] <= y < edges[i + 1]}; `edges` ascending.
template <class Output>
std::vector<audit_event<Output>> bin_events(const std::vector<Output>& edges) {
  std::vector<audit_event<Output>> events;
  for (std::size_t i = 0; i + 1 < edges.size(); ++i) {
    const Output lo = edges[i], hi = edges[i + 1];
    events.push_back({detail::describe(lo) + " <= y < " + detail::describe(hi),
                      [lo, hi](const Output& y) { return lo <= y && y < hi; }});
  }
  return events;
}

/// Events for a real, integer or bool output, from a sample of outputs (the
/// selection draws of both inputs). Few distinct values (at most
/// 2 * quantile_bins): every value, and the thresholds between them.
/// Otherwise: cut points at the i / quantile_bins quantiles and at tail
/// probabilities 2^-k down to min_tail draws on each side; thresholds at
/// every cut and the bins between consecutive cuts.
template <class Output>
requires std::is_arithmetic_v<Output> std::vector<audit_event<Output>> automatic_events(
    std::vector<Output> sample, std::size_t quantile_bins = 32, std::uint64_t min_tail = 32) {
  if (sample.empty()) throw std::invalid_argument("automatic_events: empty sample");
  std::sort(sample.begin(), sample.end());
  std::vector<Output> distinct = sample;
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  if (distinct.size() <= 2 * quantile_bins) {
    auto events = value_events(distinct);
    // {y <= v} and {y >= v} for inner v: the extremes repeat the value events.
    std::vector<Output> inner;
    for (std::size_t i = 1; i + 1 < distinct.size(); ++i) inner.push_back(distinct[i]);
    for (const Output& v : inner) {
      events.push_back({"y >= " + detail::describe(v), [v](const Output& y) { return y >= v; }});
      events.push_back({"y <= " + detail::describe(v), [v](const Output& y) { return y <= v; }});
    }
    return events;
  }
  const std::size_t n = sample.size();
  std::vector<std::size_t> ranks;
  for (std::size_t i = 1; i < quantile_bins; ++i) ranks.push_back(i * n / quantile_bins);
  for (std::size_t r = n / (2 * quantile_bins); r >= min_tail && r > 0; r /= 2) {
    ranks.push_back(r);
    ranks.push_back(n - r);
  }
  std::vector<Output> cuts;
  for (std::size_t r : ranks) cuts.push_back(sample[std::min(r, n - 1)]);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  auto events = threshold_events(cuts);
  auto bins = bin_events(cuts);
  events.insert(events.end(), bins.begin(), bins.end());
  return events;
}

/// Audits `mechanism(input, gen)` (gen: privet::testing::seeded_release_generator&) on the
/// neighbours x and x' over the given events. With selection_runs = 0 every
/// event is compared in both directions; otherwise selection draws pick the
/// best `keep` comparisons first. eps_lb exceeds the true epsilon (at the
/// given delta) with probability at most alpha.
template <class Mechanism, class Input, class Output = detail::output_of<Mechanism, Input>>
audit_result audit(Mechanism&& mechanism, const Input& x, const Input& x_prime,
                   const std::vector<audit_event<Output>>& events, const audit_options& options) {
  detail::check_options(options);
  if (events.empty()) throw std::invalid_argument("privacy audit: no events");
  std::vector<detail::comparison> chosen;
  if (options.selection_runs == 0) {
    for (std::size_t e = 0; e < events.size(); ++e) {
      chosen.push_back({e, true});
      chosen.push_back({e, false});
    }
  } else {
    const auto sx = detail::draw<Output>(mechanism, x, options.selection_runs, options.seed,
                                         detail::stream_select_x);
    const auto sxp = detail::draw<Output>(mechanism, x_prime, options.selection_runs, options.seed,
                                          detail::stream_select_x_prime);
    chosen = detail::choose_comparisons(events, sx, sxp, options);
  }
  return detail::run_audit<Output>(mechanism, x, x_prime, events, std::move(chosen), options);
}

/// Audits a mechanism with a real, integer or bool output over automatic
/// events (automatic_events) built from selection draws; needs
/// options.selection_runs >= 1.
template <class Mechanism, class Input>
audit_result audit(Mechanism&& mechanism, const Input& x, const Input& x_prime,
                   const audit_options& options) {
  using Output = detail::output_of<Mechanism, Input>;
  static_assert(std::is_arithmetic_v<Output>,
                "automatic events need a real, integer or bool output; pass events for others");
  detail::check_options(options);
  if (options.selection_runs == 0)
    throw std::invalid_argument("privacy audit: automatic events need selection_runs >= 1");
  const auto sx = detail::draw<Output>(mechanism, x, options.selection_runs, options.seed,
                                       detail::stream_select_x);
  const auto sxp = detail::draw<Output>(mechanism, x_prime, options.selection_runs, options.seed,
                                        detail::stream_select_x_prime);
  std::vector<Output> pooled = sx;
  pooled.insert(pooled.end(), sxp.begin(), sxp.end());
  const auto events = automatic_events(std::move(pooled), options.quantile_bins, options.min_tail);
  auto chosen = detail::choose_comparisons(events, sx, sxp, options);
  return detail::run_audit<Output>(mechanism, x, x_prime, events, std::move(chosen), options);
}

}  // namespace privet::test
