// privet/ml/dpsgd.hpp — differentially private SGD (Abadi et al. 2016, "Deep
// Learning with Differential Privacy", Algorithm 1) over any
// `differentiable_model`, with its privacy accounted by the accounting layer.
//
// One step: sample a batch from the n examples; compute every example's
// gradient (one batched pass, `per_example_gradients`); scale each whole
// gradient to L2 norm <= C; sum (models with `clipped_gradient_sum` do these
// three at once from their gradients' factors, see ml/clipping.hpp); add
// Gaussian noise of standard deviation sigma = z C to every coordinate
// (`gaussian_mechanism`, constant-time `constant_time_noise` by default); divide by
// the batch size b; take an SGD step.
// An optional weight decay (lambda w) is data-independent and is applied
// outside the clipping.
//
// Sampling and accounting go together:
// - batch_sampling::poisson includes each example independently with
//   probability q = b / n (with secure_noise an exact coin on the double q:
//   the rate sampled is the rate accounted; with constant_time_noise a
//   constant-time coin, below); neighbours differ by adding or removing one example,
//   the sum's sensitivity is C (plus rounding, below), and each step is a
//   `subsampled_gaussian_event`
//   (Mironov, Talwar & Zhang 2019 by RDP; the PLD and PRV accountants too).
//   The noisy sum is divided by the expected size b, never by the sampled
//   size, which would depend on the data. (The population size N, and with
//   it q = b / N, is treated as public, as in Abadi et al. and every DP-SGD
//   accountant: pass the size you are willing to publish.)
// - batch_sampling::fixed_size draws b distinct examples uniformly (Floyd's
//   algorithm); neighbours replace one example, the sum's sensitivity is 2C,
//   and each step is a `fixed_size_subsampled_gaussian_event`
//   (accounting/events.hpp) with noise multiplier sigma / (2C), whose RDP
//   curve is Wang, Balle & Kasiviswanathan 2019, Theorem 9
//   (`rdp_subsampled_wor_gaussian`); only the RDP accountant covers it.
//
// The multiplier recorded is the mechanism's own: with secure_noise the sum
// is rounded to a grid g ~ sigma 2^-20 before the discrete Gaussian is added,
// which can move neighbours sqrt(P) g further apart; the multiplier accounted
// is 1 / sqrt(2 rho) for the zCDP rho the mechanism's privacy map reports at
// sensitivity C (or 2C), rounded down, so it covers the rounding. The
// Poisson-subsampled Gaussian's RDP, PLD and PRV are derived for continuous
// Gaussian noise: for secure_noise (a discrete Gaussian with sigma / g >=
// 2^20 per coordinate) they are used as the discrete noise's bounds, which
// is standard practice but not a theorem for mixtures; fixed-size batches
// rest on Theorem 9, which holds for any mechanism with the Gaussian's RDP
// curve, the discrete Gaussian included (Canonne, Kamath & Steinke 2020).
//
// Constant-time noise (`dpsgd<Model, constant_time_noise>`, issue 36). The
// clipped sum is noised by gaussian_mechanism<double, constant_time_noise>:
// the same grid, sigma and release function as secure_noise, drawn by a
// sampler whose work does not depend on the noise (mechanisms/
// constant_time_noise.hpp), whose law per coordinate is within total
// variation tau < 2^-100 of the exact discrete Gaussian's. The multiplier
// and the events are secure_noise's; what changes is that every step is
// within d tau (d = the parameter count, the mechanism's
// sampler_total_variation()) of the exact step, for every model and batch.
// The steps are adaptive (each step's input is the model the previous
// outputs made), but the bound holds for every input, so a hybrid argument
// (swap one step at a time for its exact counterpart) puts the T steps'
// transcript within T d tau of the exact run's. The odometer records that
// distance with each step (accounting/odometer.hpp) and its report applies
// add_total_variation (core/guarantee.hpp): (eps, delta')-DP of the exact
// run gives (eps, delta' + (1 + e^eps) T d tau) for the real one, so
// privacy_spent(delta) asks the accountants at delta' = delta minus a share
// of at least (1 + e^eps) T d tau. calibrated() aims its accountant at the
// target's delta minus room for that share and checks, by an odometer on
// the calibration's accountant and grid holding the calibrated steps and
// their total variation, that the target is met. The share grows as e^eps:
// (1 + e^eps) T d 2^-100 must stay below delta, so targets above eps of
// about ln(delta 2^100 / (T d)) (37 for delta = 1e-5 and T d = 10^9; per
// step, as calibrated_per_step's eps = 100, out of reach) are refused,
// naming target.delta.
//
// Poisson batches with constant_time_noise. The exact coin on q reads one
// word when q's leading zero bits already fail and two otherwise, so its
// time told which units were left out, and the batch was built by a branch
// on each coin. Here each unit's coin is two words compared with T =
// floor(q 2^128) by masks, and the unit's index is written at the running
// count whatever the coin: the same words, loop and branches for every
// batch. P[coin] = T / 2^128 is within 2^-128 below q, so the batch is
// within total variation N 2^-128 of the exact Poisson batch (couple each
// coin with its exact twin), which each step records with the noise's
// (step_total_variation()). Fixed-size batches are drawn by
// detail::ct_uniform_subset: b exact uniform draws, Floyd's algorithm with
// every membership test scanning all earlier slots by masks, and Batcher's
// sorting network; exactly uniform, O(b^2) comparisons a step whatever the
// batch (3.3 ms at b = 4096 in bench/README.md). Both apply to user-level units as to
// examples.
//
// Padded Poisson steps (constant_time_noise, example-level units, q < 1).
// A Poisson batch's size is part of the secret sampling, and a gradient
// pass over the members alone takes time in proportion to it. So every
// step runs the pass on batch_capacity() rows, the least number the
// Chernoff bound certifies a batch exceeds with probability at most 2^-100
// (detail::ct_poisson_capacity; about q N + sqrt(140 q N)): the members
// first, then uniformly random rows of the data as fillers
// (detail::ct_pad_batch), each counted 1 or 0 in a mask that the models'
// masked clipped_gradient_sum (or the per-example path's
// clip_and_sum_rows) applies by multiplication, so a filler does a
// member's work and adds exactly zero. A batch beyond the capacity keeps
// its first batch_capacity() members; that event's 2^-100 joins the step's
// total variation (sampling_total_variation()). The price is the padding:
// about 1 + sqrt(140 / (q N)) times the expected pass (463 rows, 1.8x, at
// q N = 256 of N = 8192; 17 rows at q N = 0.1).
// User-level units with a cap (`dpsgd_options::unit_examples` = m > 0):
// each unit's gradient is the mean over its first m examples, and under
// constant_time_noise every sampled unit's pass runs on exactly m rows (its
// examples, then its last one again masked to 0, chosen by a clamped index;
// the divisor min(c, m) without a branch on its count c), Poisson steps on
// batch_capacity() units as above (fillers masked to 0 in the clipped sum),
// fixed-size steps on their b units. Without a cap each unit's examples
// are read in full, so the pass's time follows the sampled users' sizes.
// Sequence models: the steps read the sampled records where they are
// (`sum_of_clipped_gradients` over the data and the rows, for a model with
// `per_example_gradients(batch, rows)`: no copy whose time follows the
// records' sizes), and an LSTM built with `gradient_frames` = T runs every
// sequence for exactly T steps, so with the padding above a step's work no
// longer follows the sequences' lengths. Clipping takes the same work for
// every example whether its gradient is within the clip norm, scaled down
// or left out (clip_factor and the row pass by masks, ml/clipping.hpp; the
// models' own clipped sums likewise), so the number of clipped examples
// does not show either.
// Not covered (docs/security_model.md): the records' own contents (a
// sparse model reads each record's features, so the pass's time follows
// which records were drawn, members or fillers alike, through the weights'
// cache footprint as much as the loop; an LSTM without
// gradient_frames runs each block to its longest sequence), user-level units
// without a cap, the floating-point operations' operand-dependent
// latencies, and the memory addresses of the rows (and of a unit's
// examples).
//
// Privacy units (`dpsgd_options::units`, ml/privacy_units.hpp). By default
// every example is its own unit. With a partition into U users, all of the
// above applies to users instead of examples (user-level DP-SGD, McMahan et
// al. 2018): batches are drawn over the U users (q = b / U), each sampled
// user's gradient is the mean of its examples' gradients, clipped to C as one
// record, and neighbours add, remove or replace one user with all of their
// examples. The events and accountants are the same; only what a record is
// changes, and the report says which.
//
// What is public with units: U (it sets q = b / U or the divisor q U, and
// the report, the noise scale on the mean and a federation's weight show
// it), as n is with examples; neither n nor any user's example count enters
// a release. A user with many examples weighs no more than one with few:
// each sampled user is one clipped record.
//
// Small populations. An organisation of a few users may want a rate q with
// q U < 1 (one speaker sampled in a tenth of the steps): `sampling_rate`
// gives q directly (Poisson only), and the noisy sum is divided by the
// expected batch q U. Poisson amplification does not depend on U. q must be
// a normal double (>= 2^-1022), so that q U and the update stay finite.
//
// Rounding. The clipped rows are summed exactly and rounded once
// (ml/clipping.hpp), so the order of the examples does not matter, and the
// sensitivity the noise is calibrated to and accounted with is not C (or 2C)
// alone but `clipped_gradient_sum_sensitivity`: C (2C) plus the grid's and
// the final rounding's margins, about (sqrt(P) 2^-49 + 2^-51 N) C, where N
// is the population (public, above). Abadi et al.'s multiplier
// (`noise_multiplier()`) stays sigma / C; `accounted_noise_multiplier()` is
// sigma over that sensitivity.
//
// Data never makes a step throw (docs/data_rule.md): a record whose gradient
// is not finite, or that a model cannot read (a label outside its classes,
// malformed sparse features), contributes the zero gradient, a record-wise
// rule that keeps the sensitivity (ml/clipping.hpp and each model's
// `clipped_gradient_sum` or `per_example_gradients`). What the optimiser
// refuses is public: the population size it was built for (data.size() must
// equal the dataset_size given, as the sampling rate q = b / N was accounted
// for that N, which is published with the report), the parameter count, and
// the budget.
//
// Calibration (`dpsgd::calibrated`) finds the smallest multiplier meeting a
// target (eps, delta) after a given number of steps by the chosen accountant
// (`dpsgd_noise_multiplier`, `smallest_noise_multiplier`), and the optimiser
// then refuses to run more steps than it was calibrated for. The running
// report (`privacy_spent`) gives the RDP, PLD and PRV accountants' (eps,
// delta) side by side, from a `privacy_odometer` that records every step.
#pragma once

#include <privet/accounting/calibration.hpp>
#include <privet/accounting/events.hpp>
#include <privet/accounting/odometer.hpp>
#include <privet/accounting/rdp.hpp>
#include <privet/accounting/rdp_wor.hpp>
#include <privet/core/csprng.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/detail/rounding.hpp>
#include <privet/core/error.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/parallel.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/uniform_subset.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/detail/ct_local.hpp>
#include <privet/mechanisms/gaussian.hpp>
#include <privet/mechanisms/noise.hpp>
#include <privet/ml/clipping.hpp>
#include <privet/ml/model.hpp>
#include <privet/ml/privacy_units.hpp>

#include <xtensor/xtensor.hpp>

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace privet::ml {

/// How each step's batch is drawn from the n examples.
enum class batch_sampling {
  poisson,     ///< each unit (example or user) independently with probability q
  fixed_size,  ///< b distinct units (examples or users), uniformly, without replacement
};

/// "Poisson" or "fixed-size", for messages and reports.
inline const char* to_string(batch_sampling s) noexcept {
  return s == batch_sampling::poisson ? "Poisson" : "fixed-size";
}

// The per-step event of fixed-size batches lives with the other events
// (accounting/events.hpp); its old name in this namespace still works.
using privet::fixed_size_subsampled_gaussian_event;

/// Parameters of a DP-SGD run. None has a default that could weaken privacy:
/// learning_rate, clip_norm and batch_size start invalid (NaN, NaN, 0), so
/// leaving one out throws.
struct dpsgd_options {
  double learning_rate = std::numeric_limits<double>::quiet_NaN();  ///< > 0
  /// C > 0: every record's whole gradient (an example's, or a user's mean
  /// gradient) is scaled to L2 norm <= C. +inf
  /// (no clipping) only for dpsgd::non_private.
  double clip_norm = std::numeric_limits<double>::quiet_NaN();
  /// b: the expected batch size (Poisson, q = b / N) or the exact one
  /// (fixed size); 1 <= b <= N for N units (the n examples, or the U users
  /// of `units`). The noisy sum is divided by b. 0 when sampling_rate is set.
  std::size_t batch_size = 0;
  /// How batches are drawn; it also fixes the neighbouring relation
  /// (add/remove for Poisson, replace-one for fixed size) and the accounting.
  batch_sampling sampling = batch_sampling::poisson;
  /// Poisson only, instead of batch_size: the rate q in (0, 1] itself, for
  /// populations with q N < 1. The noisy sum is divided by q N. NaN: unset.
  double sampling_rate = std::numeric_limits<double>::quiet_NaN();
  /// What one record is: each example (the default), or each unit (user)
  /// of a partition of the n examples (user-level DP-SGD).
  privacy_units units{};
  /// m, with user-level units: each unit's gradient is the mean over its
  /// first m examples (in the partition's order), a cap that, like any
  /// function of a unit's own data, leaves the guarantee unchanged. 0 (the
  /// default): all of them. With constant_time_noise and m > 0 every
  /// sampled unit's gradient pass runs on exactly m rows, and Poisson
  /// steps on batch_capacity() units (see the file comment). Must be 0 for
  /// example-level units.
  std::size_t unit_examples = 0;
  double weight_decay = 0;  ///< lambda >= 0: adds lambda w to every update
  /// Threads that draw the noise (0: every core TBB may use). The noise is
  /// drawn by blocks from keyed streams under a secret from the step's
  /// generator, so it depends on that generator alone, not on the count.
  parallel_options noise_threads{};
};

/// What one step did. Not a release: which units were sampled is part of
/// the mechanism's secret randomness and must stay with the data holder.
struct dpsgd_step_report {
  std::vector<std::size_t> batch;  ///< indices of the sampled units (examples by default)
  std::size_t clipped = 0;         ///< units' gradients whose norm exceeded C
};

/// The private half of a DP-SGD step (dpsgd::privatize): the noisy sum of
/// the clipped per-example gradients divided by the batch size b. Only
/// `gradient` may leave the data holder; `report` says which units were
/// sampled and must not.
struct privatized_gradient {
  std::vector<double> gradient;  ///< P entries: (sum_u clip(g_u) + noise) / b
  dpsgd_step_report report;      ///< Which units were sampled: stays with the data holder.
};

/// The privacy spent so far, by every accountant the odometer runs.
struct dpsgd_privacy_report {
  std::uint64_t steps;      ///< Steps recorded (each a noisy release).
  batch_sampling sampling;  ///< How batches were drawn.
  double sampling_rate;     ///< q (Poisson) or b / N (fixed size)
  double noise_multiplier;  ///< the multiplier accounted per step (see the header)
  /// Each accountant's (eps, delta) for the steps, and the tightest.
  odometer_report accountants;
  /// The privacy unit: 0 for one example, else the number of users U whose
  /// examples each form one record.
  std::size_t users = 0;
};

/// One line per accountant, e.g. for logs: steps, sampling, and each
/// accountant's epsilon at the report's delta ("n/a" where it has none).
inline std::string to_string(const dpsgd_privacy_report& r) {
  using privet::detail::format_value;
  auto eps = [](const std::optional<approx_dp>& a) {
    return a ? format_value(a->epsilon()) : std::string("n/a");
  };
  std::string s = "DP-SGD: " + std::to_string(r.steps) + " steps, " + to_string(r.sampling) +
                  " sampling (rate " + format_value(r.sampling_rate) + ", " +
                  (r.sampling == batch_sampling::poisson ? "add/remove" : "replace-one") +
                  " neighbours), noise multiplier " + format_value(r.noise_multiplier) + "\n";
  s += r.users == 0 ? std::string("  privacy unit: one example\n")
                    : "  privacy unit: one user, with all of their examples (" +
                          std::to_string(r.users) + " users)\n";
  const double delta = r.accountants.tightest.delta();
  s += "  RDP: eps = " + eps(r.accountants.rdp) + " at delta = " + format_value(delta) + "\n";
  s += "  PLD: eps = " + eps(r.accountants.pld) + " at delta = " + format_value(delta) + "\n";
  s += "  PRV: eps = " + eps(r.accountants.prv) + " at delta = " + format_value(delta) +
       " (upper bound)\n";
  s += "  tightest: eps = " + format_value(r.accountants.tightest.epsilon()) + " (" +
       privet::to_string(r.accountants.method) + ")\n";
  return s;
}

/// The odometer settings DP-SGD reports with by default: RDP, PLD and PRV.
inline odometer_options dpsgd_odometer_options() {
  odometer_options o;
  o.use_prv = true;
  return o;
}

namespace detail {

/// An exact Bernoulli(q) coin for a double q in [0, 1]: q = M 2^(e - 53) with
/// an integer M < 2^53, and U < q for a uniform U in [0, 1) iff the first -e
/// bits of U are 0 and the next 53 bits, read as an integer, are below M.
template <random_bit_source G>
bool bernoulli_exact(G& gen, double q) {
  if (q >= 1) return true;
  if (q <= 0) return false;
  int e = 0;
  const double m = std::frexp(q, &e);  // q = m 2^e, m in [1/2, 1), e <= 0
  const auto mantissa = static_cast<std::uint64_t>(std::ldexp(m, 53));
  for (int zeros = -e; zeros > 0; zeros -= 64) {
    const std::uint64_t bits = random_u64(gen);
    const std::uint64_t prefix = zeros >= 64 ? bits : bits >> (64 - zeros);
    if (prefix != 0) return false;
  }
  return (random_u64(gen) >> 11) < mantissa;
}

}  // namespace detail

/// What DP-SGD divides its noisy sum by for these options on n examples:
/// the batch size b, or q N for a sampling_rate q over N units. The weight
/// batch-weighted federated aggregation gives a worker.
inline double dpsgd_expected_batch_size(std::size_t batch_size, double sampling_rate,
                                        const privacy_units& units, std::size_t n) noexcept {
  if (std::isnan(sampling_rate)) return static_cast<double>(batch_size);
  const std::size_t population = units.example_level() ? n : units.unit_count();
  return sampling_rate * static_cast<double>(population);
}

/// The same for options `o` on n examples.
inline double dpsgd_expected_batch_size(const dpsgd_options& o, std::size_t n) noexcept {
  return dpsgd_expected_batch_size(o.batch_size, o.sampling_rate, o.units, n);
}

/// The DP-SGD optimiser (Abadi et al. 2016, "Deep Learning with
/// Differential Privacy", Algorithm 1) for models of type Model: each step
/// samples a batch (Poisson or fixed size) of examples or users, clips each
/// record's gradient to L2 norm C, sums exactly, adds Gaussian noise and
/// takes an SGD step, recording the step with a privacy_odometer (RDP, PLD
/// and PRV; Mironov, Talwar & Zhang 2019 for Poisson, Wang, Balle &
/// Kasiviswanathan 2019 for fixed size). User-level units follow McMahan et
/// al. 2018. A step costs the model's per-record gradients for the batch,
/// O(N) coins for Poisson sampling over N units and O(P) noise samples. Noise
/// is secure_noise (release grade) unless simulation_only_noise or
/// constant_time_noise (release grade, sampling time independent of the
/// noise; guarantees within the samplers' total variation) is named.
/// See the file comment for sampling, rounding and what is public.
///
/// @tparam Model a differentiable_model (its batch_type is the data).
/// @tparam Noise secure_noise, constant_time_noise or simulation_only_noise.
template <differentiable_model Model, mechanism_noise_policy Noise = constant_time_noise>
class dpsgd {
 public:
  /// Whether Poisson batches are drawn by constant-time coins (with
  /// constant_time_noise; see the file comment).
  static constexpr bool constant_time_sampling = std::same_as<Noise, constant_time_noise>;
  using model_type = Model;                                  ///< The model trained.
  using real_type = typename Model::real_type;               ///< The model's parameter type.
  using batch_type = typename Model::batch_type;             ///< The data's type.
  using mechanism_type = gaussian_mechanism<double, Noise>;  ///< The noise on the clipped sum.

  /// Private SGD on `dataset_size` examples and models of `parameter_count`
  /// parameters, with noise standard deviation noise_multiplier x C on the
  /// clipped sum (noise_multiplier > 0, C finite). Throws invalid_parameter
  /// naming the first bad parameter.
  dpsgd(std::size_t parameter_count, std::size_t dataset_size, const dpsgd_options& options,
        double noise_multiplier, odometer_options accounting = dpsgd_odometer_options())
      : dpsgd(parameter_count, dataset_size, options, std::move(accounting)) {
    validate_positive(noise_multiplier, "noise_multiplier");
    if (!std::isfinite(options_.clip_norm)) {
      throw_invalid("clip_norm", options_.clip_norm, "finite and > 0 when noise is added");
    }
    check_sensitivity();
    mechanism_ =
        mechanism_type::from_scale(noise_multiplier * options_.clip_norm, parameter_count_);
    event_multiplier_ = accounted_multiplier(*mechanism_);
  }

  /// Private SGD whose noise multiplier is the smallest for which `steps`
  /// steps meet `target` by calibration.accountant (fixed-size batches need
  /// the RDP accountant). step() then throws budget_exhausted after `steps`
  /// steps.
  [[nodiscard]] static dpsgd calibrated(std::size_t parameter_count, std::size_t dataset_size,
                                        const dpsgd_options& options, const approx_dp& target,
                                        std::uint64_t steps,
                                        const calibration_options& calibration = {},
                                        odometer_options accounting = dpsgd_odometer_options()) {
    dpsgd d(parameter_count, dataset_size, options, std::move(accounting));
    if (!std::isfinite(d.options_.clip_norm)) {
      throw_invalid("clip_norm", d.options_.clip_norm, "finite and > 0 when noise is added");
    }
    d.check_sensitivity();
    validate_at_least<std::uint64_t>(steps, 1, "steps");
    validate_epsilon(target.epsilon(), "target.epsilon");
    validate_delta_positive(target.delta(), "target.delta");
    if constexpr (!std::same_as<Noise, constant_time_noise>) {
      d.calibrate(steps, target, calibration);
    } else {
      // Room for the samplers' share (1 + e^eps) T d tau, tau <= 2^-100:
      // twice the most the odometer's report asks for at the target's eps,
      // quadrupled should the check below fail (it is not expected to).
      const double tv = privet::detail::mul_up(
          static_cast<double>(steps),
          privet::detail::mul_up(static_cast<double>(d.parameter_count_), 0x1p-100));
      const double factor =
          privet::detail::next_up(privet::detail::next_up(1 + std::exp(target.epsilon())));
      double room = 4 * std::max({4 * tv, std::ldexp(target.delta(), -48),
                                  privet::detail::mul_up(factor, tv)});
      for (int attempt = 0;; ++attempt) {
        if (!(room < target.delta()) || attempt == 4) {
          throw_invalid("target.delta", target.delta(),
                        "large enough to hold the constant-time samplers' share (1 + e^eps) T d "
                        "tau, here " +
                            privet::detail::format_value(room));
        }
        d.calibrate(steps, approx_dp(target.epsilon(), target.delta() - room), calibration);
        if (d.meets(steps, target, calibration)) break;
        room *= 4;
      }
    }
    d.budget_steps_ = steps;
    d.target_ = target;
    return d;
  }

  /// Private SGD whose noise is calibrated so that each step on its own
  /// meets `per_step` (the whole run of one step, as calibrated(..., 1)
  /// finds it), with no limit on the number of steps: the privacy of a run
  /// is what privacy_spent() reports for the steps taken. For budgets set
  /// per step, as Sotto Voce's (eps = 100, delta = 1e-6 per step).
  [[nodiscard]] static dpsgd calibrated_per_step(
      std::size_t parameter_count, std::size_t dataset_size, const dpsgd_options& options,
      const approx_dp& per_step, const calibration_options& calibration = {},
      odometer_options accounting = dpsgd_odometer_options()) {
    dpsgd d = calibrated(parameter_count, dataset_size, options, per_step, 1, calibration,
                         std::move(accounting));
    d.budget_steps_.reset();
    d.target_.reset();
    return d;
  }

  /// Plain SGD with the same sampling and clipping (clip_norm may be +inf):
  /// no noise and no privacy; privacy_spent() throws.
  [[nodiscard]] static dpsgd non_private(std::size_t parameter_count, std::size_t dataset_size,
                                         const dpsgd_options& options) {
    return dpsgd(parameter_count, dataset_size, options, dpsgd_odometer_options());
  }

  /// One step on `model` with a batch sampled from `data` (all n examples):
  /// privatize() then apply_update(). Throws invalid_parameter if data or
  /// model have another size than constructed with, budget_exhausted after
  /// the calibrated number of steps.
  template <random_bit_source G>
  dpsgd_step_report step(Model& model, const batch_type& data, G& gen) {
    auto g = privatize(model, data, gen);
    apply_update(model, g.gradient);
    return std::move(g.report);
  }

  /// The private half of a step, without touching the model: samples a
  /// batch, clips, sums, adds the noise, records the step with the
  /// odometer and returns (sum + noise) / b. What a federated worker sends
  /// (algorithms/federated_dpsgd.hpp); everything done with it afterwards is
  /// post-processing. Same errors as step().
  template <random_bit_source G>
  privatized_gradient privatize(const Model& model, const batch_type& data, G& gen) {
    if (model.parameter_count() != parameter_count_) {
      throw_invalid("model.parameter_count()", model.parameter_count(),
                    "the optimiser's " + privet::detail::format_value(parameter_count_));
    }
    if (data.size() != dataset_size_) {
      throw_invalid("data.size()", data.size(),
                    "the dataset size " + privet::detail::format_value(dataset_size_) +
                        " the sampling rate was accounted for");
    }
    if (budget_steps_ && steps_ >= *budget_steps_) {
      throw budget_exhausted(
          "privet: DP-SGD was calibrated for " + std::to_string(*budget_steps_) +
          " steps to meet (eps = " + privet::detail::format_value(target_->epsilon()) +
          ", delta = " + privet::detail::format_value(target_->delta()) + "); step " +
          std::to_string(steps_ + 1) + " would exceed it");
    }
    privatized_gradient out;
    std::vector<double> sum(parameter_count_, 0.0);
    std::optional<clipped_sum> clipped;
    if (padded()) {
      clipped = padded_clipped_sum(model, data, gen, out.report.batch);
    } else if (out.report.batch = sample(gen); !out.report.batch.empty()) {
      if (options_.units.example_level()) {
        clipped = sum_of_clipped_gradients(
            model, data, std::span<const std::size_t>(out.report.batch), options_.clip_norm);
      } else if (unit_padded()) {
        clipped = padded_unit_sum(model, data, out.report.batch, {});
      } else {
        clipped = sum_of_clipped_unit_gradients(model, data, out.report.batch);
      }
    }
    if (clipped) {
      if (clipped->sum.size() != parameter_count_) {
        throw_invalid("clipped gradient sum size", clipped->sum.size(),
                      "the parameter count " + privet::detail::format_value(parameter_count_));
      }
      sum = std::move(clipped->sum);
      out.report.clipped = clipped->clipped;
    }
    if (mechanism_) sum = (*mechanism_)(std::span<const double>(sum), gen, options_.noise_threads);
    // Record as soon as the noise is drawn: the step has spent its budget
    // whatever happens to the result.
    // With constant_time_noise the step is within the mechanism's total
    // variation of the exact one (see the file comment).
    if (mechanism_) {
      const double tv = step_total_variation();
      std::visit([this, tv](const auto& e) { odometer_.record(e, 1, tv); }, step_event());
    }
    ++steps_;
    for (auto& v : sum) v /= expected_batch_;
    out.gradient = std::move(sum);
    return out;
  }

  /// The public half of a step: w <- w - lr (gradient + lambda w), with the
  /// optimiser's learning rate and weight decay. Deterministic, so replicas
  /// that apply the same gradient to the same parameters stay bitwise equal.
  /// Throws invalid_parameter for a model or gradient of another size.
  void apply_update(Model& model, std::span<const double> gradient) const {
    if (model.parameter_count() != parameter_count_) {
      throw_invalid("model.parameter_count()", model.parameter_count(),
                    "the optimiser's " + privet::detail::format_value(parameter_count_));
    }
    if (gradient.size() != parameter_count_) {
      throw_invalid("gradient.size()", gradient.size(),
                    "the parameter count " + privet::detail::format_value(parameter_count_));
    }
    const auto lr = options_.learning_rate;
    auto w = model.parameters();
    for (std::size_t j = 0; j < parameter_count_; ++j) {
      const double update = gradient[j] + options_.weight_decay * static_cast<double>(w[j]);
      w[j] = static_cast<real_type>(static_cast<double>(w[j]) - lr * update);
    }
  }

  /// A step drawing its batch and noise from the thread's CSPRNG.
  dpsgd_step_report step(Model& model, const batch_type& data) {
    return step(model, data, secure_generator());
  }

  /// (eps, delta) spent by the steps so far, by each accountant (with
  /// constant_time_noise, including the samplers' total variation: see the
  /// file comment). Throws invalid_parameter for a non-private optimiser (no
  /// finite guarantee).
  [[nodiscard]] dpsgd_privacy_report privacy_spent(double delta) const {
    if (!mechanism_) {
      throw_invalid("noise_multiplier", 0.0,
                    "> 0 for a privacy report (this optimiser adds no noise: its steps have no "
                    "finite guarantee)");
    }
    return {steps_,
            options_.sampling,
            rate_,
            event_multiplier_,
            odometer_.report(delta),
            options_.units.unit_count()};
  }

  /// The per-step accounting event (what the odometer records each step).
  [[nodiscard]] std::variant<subsampled_gaussian_event, fixed_size_subsampled_gaussian_event>
  step_event() const {
    if (!mechanism_) {
      throw_invalid("noise_multiplier", 0.0, "> 0 for an accounting event");
    }
    if (options_.sampling == batch_sampling::poisson) {
      return subsampled_gaussian_event{rate_, event_multiplier_};
    }
    return fixed_size_subsampled_gaussian_event{rate_, event_multiplier_};
  }

  /// The odometer every noisy step is recorded with.
  [[nodiscard]] const privacy_odometer& odometer() const noexcept { return odometer_; }
  /// The steps taken so far (completed privatize() calls, with or without noise).
  [[nodiscard]] std::uint64_t steps() const noexcept { return steps_; }
  /// The steps calibrated() allows, or nothing when there is no limit.
  [[nodiscard]] std::optional<std::uint64_t> budget_steps() const noexcept { return budget_steps_; }
  /// The options it was built with.
  [[nodiscard]] const dpsgd_options& options() const noexcept { return options_; }
  /// q: b / N, or the sampling_rate given.
  [[nodiscard]] double sampling_rate() const noexcept { return rate_; }
  /// The total variation between one step's batch and the exact Poisson
  /// batch: N 2^-128 with constant_time_noise below q = 1 (each coin's
  /// probability T / 2^128 is within 2^-128 below q), plus 2^-100 when the
  /// steps are padded to fewer than N rows (the chance of a batch beyond
  /// batch_capacity(), whose excess members are left out), rounded up; 0
  /// otherwise (exact coins, q = 1 or fixed-size batches).
  [[nodiscard]] double sampling_total_variation() const noexcept {
    if (!constant_time_sampling || options_.sampling != batch_sampling::poisson || rate_ >= 1)
      return 0;
    return privet::detail::add_up(
        privet::detail::mul_up(static_cast<double>(population_), 0x1p-128), capacity_.tail);
  }
  /// The rows (units of unit_examples rows each, for capped user-level
  /// units) every constant-time Poisson step runs the gradient pass on (q <
  /// 1; see the file comment), or 0 when steps are not padded (another
  /// policy, fixed-size batches, user-level units without a cap, q = 1).
  [[nodiscard]] std::size_t batch_capacity() const noexcept {
    return padded() ? capacity_.rows : 0;
  }
  /// What each noisy step records with the odometer: the noise sampler's
  /// total variation plus the batch's (each rounded up, then their sum).
  [[nodiscard]] double step_total_variation() const noexcept {
    if (!mechanism_) return 0;
    return privet::detail::add_up(mechanism_->sampler_total_variation(),
                                  sampling_total_variation());
  }
  /// What the noisy sum is divided by: b, or q N.
  [[nodiscard]] double expected_batch_size() const noexcept { return expected_batch_; }
  /// N: the units batches are drawn from (the examples, or the users).
  [[nodiscard]] std::size_t population() const noexcept { return population_; }
  /// Standard deviation of the noise on each coordinate of the clipped sum
  /// (0 without noise); divide by expected_batch_size() for the noise on
  /// the update's mean.
  [[nodiscard]] double noise_stddev() const noexcept {
    return mechanism_ ? mechanism_->sigma() : 0.0;
  }
  /// noise_stddev() / C: the multiplier as Abadi et al. define it.
  [[nodiscard]] double noise_multiplier() const noexcept {
    return mechanism_ ? mechanism_->sigma() / options_.clip_norm : 0.0;
  }
  /// The multiplier each step is accounted with: noise std over the
  /// sensitivity (C for Poisson, 2C for fixed size), covering secure noise's
  /// grid.
  [[nodiscard]] double accounted_noise_multiplier() const noexcept { return event_multiplier_; }

 private:
  dpsgd(std::size_t parameter_count, std::size_t dataset_size, const dpsgd_options& options,
        odometer_options accounting)
      : options_(checked(options, dataset_size)),
        parameter_count_(validate_at_least<std::size_t>(parameter_count, 1, "parameter_count")),
        dataset_size_(dataset_size),
        population_(population_of(options_, dataset_size)),
        rate_(sampling_rate_of(options_, dataset_size)),
        expected_batch_(dpsgd_expected_batch_size(options_, dataset_size)),
        poisson_threshold_(privet::detail::ct_threshold_below(rate_ < 1 ? rate_ : 0.0)),
        fixed_subset_(constant_time_sampling && options_.sampling == batch_sampling::fixed_size
                          ? privet::detail::ct_uniform_subset(population_, options_.batch_size)
                          : privet::detail::ct_uniform_subset()),
        capacity_(constant_time_sampling && options_.sampling == batch_sampling::poisson &&
                          (options_.units.example_level() || options_.unit_examples > 0) &&
                          rate_ < 1
                      ? privet::detail::ct_poisson_capacity(population_, rate_)
                      : privet::detail::poisson_capacity{}),
        odometer_(std::move(accounting)) {}

  static const dpsgd_options& checked(const dpsgd_options& o, std::size_t n) {
    validate_at_least<std::size_t>(n, 1, "dataset_size");
    validate_positive(o.learning_rate, "learning_rate");
    if (!(o.clip_norm > 0)) throw_invalid("clip_norm", o.clip_norm, "> 0 (or +inf without noise)");
    if (o.sampling != batch_sampling::poisson && o.sampling != batch_sampling::fixed_size) {
      throw_invalid("sampling", static_cast<int>(o.sampling), "poisson or fixed_size");
    }
    if (!o.units.example_level() && o.units.example_count() != n) {
      throw_invalid("units.example_count()", o.units.example_count(),
                    "the dataset size " + privet::detail::format_value(n) +
                        " (the partition must cover every example once)");
    }
    const std::size_t population = population_of(o, n);
    const std::string unit_name = o.units.example_level() ? "dataset_size" : "units.unit_count()";
    if (std::isnan(o.sampling_rate)) {
      if (o.batch_size < 1 || o.batch_size > population) {
        throw_invalid("batch_size", o.batch_size,
                      "[1, " + unit_name + " = " + privet::detail::format_value(population) +
                          "] (or 0 with a sampling_rate)");
      }
    } else {
      if (o.sampling != batch_sampling::poisson) {
        throw_invalid("sampling_rate", o.sampling_rate,
                      "NaN (unset) for fixed-size batches, which take a batch_size");
      }
      if (!(o.sampling_rate >= std::numeric_limits<double>::min() && o.sampling_rate <= 1)) {
        throw_invalid("sampling_rate", o.sampling_rate,
                      "[2^-1022, 1] (a normal double), or NaN to use batch_size");
      }
      if (o.batch_size != 0) {
        throw_invalid("batch_size", o.batch_size,
                      "0 when sampling_rate is given (give one of the two)");
      }
    }
    if (o.unit_examples != 0 && o.units.example_level()) {
      throw_invalid("unit_examples", o.unit_examples,
                    "0 with example-level units (a cap on each user's examples needs "
                    "user-level units)");
    }
    validate_non_negative(o.weight_decay, "weight_decay");
    validate_parallel_options(o.noise_threads);
    return o;
  }

  // The L2 distance between neighbouring clipped sums: C (add or remove
  // one unit) or 2C (replace one), plus the rounding of the exact sum's
  // grid and of its one final rounding to double (ml/clipping.hpp), for at
  // most N rows (a batch never holds more than the population).
  [[nodiscard]] double sensitivity() const noexcept {
    return clipped_gradient_sum_sensitivity(options_.clip_norm, parameter_count_, population_,
                                            options_.sampling == batch_sampling::poisson ? 1U : 2U);
  }

  // The rounding margin grows with N C: refuse a clip norm for which the
  // sensitivity is not a finite double.
  void check_sensitivity() const {
    if (!std::isfinite(sensitivity())) {
      throw_invalid("clip_norm", options_.clip_norm,
                    "small enough that the population (" +
                        privet::detail::format_value(population_) +
                        ") times clip_norm is a finite double");
    }
  }

  [[nodiscard]] double accounted_multiplier(const mechanism_type& m) const {
    return accounted_multiplier(m, sensitivity());
  }

  // 1 / sqrt(2 rho), rounded down, for the rho the mechanism's privacy map
  // gives at this sensitivity: the Gaussian multiplier with the same zCDP
  // (for constant_time_noise, the exact sampler's rho; its total variation
  // is recorded apart).
  static double accounted_multiplier(const mechanism_type& m, double sensitivity) {
    double rho = 0;
    if constexpr (std::same_as<Noise, constant_time_noise>) {
      rho = m.guarantee(sensitivity).base().rho();
    } else {
      rho = m.guarantee(sensitivity).rho();
    }
    const double z = 1 / privet::detail::sqrt_up(privet::detail::mul_up(2, rho));
    return std::nextafter(z, 0.0);
  }

  // Sets the mechanism whose accounted multiplier is the least the
  // calibration's accountant needs for `steps` steps to meet `target`.
  void calibrate(std::uint64_t steps, const approx_dp& target,
                 const calibration_options& calibration) {
    double needed = 0;  // the event's multiplier the accountant asks for
    if (options_.sampling == batch_sampling::poisson) {
      needed = dpsgd_noise_multiplier(rate_, steps, target, calibration);
    } else {
      if (calibration.accountant != accountant_kind::rdp) {
        throw_invalid("calibration.accountant", privet::to_string(calibration.accountant),
                      "RDP for fixed-size batches (sampling without replacement has only an RDP "
                      "bound)");
      }
      const double gamma = rate_;
      needed = smallest_noise_multiplier(
          [gamma](double s) {
            return fixed_size_subsampled_gaussian_event{gamma, s};
          },
          steps, target, calibration);
    }
    // Raise sigma until the mechanism's own accounted multiplier reaches the
    // calibrated one (secure noise's grid costs a relative 2^-20 or so).
    double sigma = needed * sensitivity();
    for (int round = 0;; ++round) {
      auto m = mechanism_type::from_scale(sigma, parameter_count_);
      const double got = accounted_multiplier(m, sensitivity());
      if (got >= needed) {
        mechanism_ = std::move(m);
        event_multiplier_ = got;
        return;
      }
      if (round == 64) throw overflow_error("privet: DP-SGD calibration did not converge");
      sigma *= (needed / got) * (1 + 1e-9);
    }
  }

  // Whether `steps` steps, recorded with their total variation as
  // privatize() records them, meet `target` at target.delta by the
  // calibration's accountant on the calibration's grid (accountant_epsilon's
  // odometer, with the samplers' share).
  [[nodiscard]] bool meets(std::uint64_t steps, const approx_dp& target,
                           const calibration_options& c) const {
    const std::pair<pld_options, prv_options> grid = calibration_grid(target, c);
    odometer_options o;
    o.orders = c.orders;
    o.pld = grid.first;
    o.prv = grid.second;
    o.use_pld = c.accountant == accountant_kind::pld;
    o.use_prv = c.accountant == accountant_kind::prv;
    privacy_odometer check(std::move(o));
    const double tv = step_total_variation();
    std::visit([&check, steps, tv](const auto& e) { check.record(e, steps, tv); }, step_event());
    const auto r = check.report(target.delta());
    const auto& answer = c.accountant == accountant_kind::pld   ? r.pld
                         : c.accountant == accountant_kind::prv ? r.prv
                                                                : r.rdp;
    return answer && answer->epsilon() <= target.epsilon();
  }

  static std::size_t population_of(const dpsgd_options& o, std::size_t n) noexcept {
    return o.units.example_level() ? n : o.units.unit_count();
  }

  static double sampling_rate_of(const dpsgd_options& o, std::size_t n) noexcept {
    if (!std::isnan(o.sampling_rate)) return o.sampling_rate;
    return static_cast<double>(o.batch_size) / static_cast<double>(population_of(o, n));
  }

  // Row k of a user-level step: a unit's summed gradient g over its count
  // of examples. A g of another size than the parameters is the model
  // breaking its own contract (not data), refused by name.
  void set_mean_row(xt::xtensor<real_type, 2>& rows, std::size_t k, const std::vector<double>& g,
                    double count) const {
    if (g.size() != parameter_count_) {
      throw_invalid("mean gradient size", g.size(),
                    "the parameter count " + privet::detail::format_value(parameter_count_));
    }
    for (std::size_t j = 0; j < parameter_count_; ++j) {
      rows(k, j) = static_cast<real_type>(g[j] / count);
    }
  }

  // sum_u clip(mean_{i in u} g_i) over the sampled units: each unit's mean
  // gradient is one row, clipped like an example's. The mean is the
  // unclipped per-example sum (sum_of_clipped_gradients at C = +inf, which
  // applies the model's record-wise rules instead of throwing on data) over
  // the unit's example count: a function of the unit's own data only.
  clipped_sum sum_of_clipped_unit_gradients(const Model& model, const batch_type& data,
                                            std::span<const std::size_t> sampled) const {
    xt::xtensor<real_type, 2> rows({sampled.size(), parameter_count_});
    for (std::size_t k = 0; k < sampled.size(); ++k) {
      auto examples = options_.units.examples_of(sampled[k]);
      if (options_.unit_examples > 0 && examples.size() > options_.unit_examples) {
        examples = examples.first(options_.unit_examples);
      }
      const auto g =
          sum_of_clipped_gradients(model, data, examples, std::numeric_limits<double>::infinity())
              .sum;
      set_mean_row(rows, k, g, static_cast<double>(examples.size()));
    }
    return clip_and_sum_rows(rows, options_.clip_norm);
  }

  // A constant-time Poisson step's clipped sum: capacity_.rows rows whatever
  // the batch's size, the members counted and the fillers times 0 (file
  // comment); `batch` gets the members kept.
  template <class G>
  clipped_sum padded_clipped_sum(const Model& model, const batch_type& data, G& gen,
                                 std::vector<std::size_t>& batch) const {
    std::vector<std::size_t> members(population_ + 1, 0), rows(capacity_.rows);
    std::vector<std::uint8_t> counted(capacity_.rows);
    const std::size_t count =
        privet::detail::ct_poisson_subset(gen, poisson_threshold_, population_, members.data());
    const std::size_t kept = privet::detail::ct_pad_batch(
        gen, members.data(), count, capacity_.rows, population_, rows.data(), counted.data());
    // The same copy whatever the count; shrinking a vector of integers
    // frees nothing and touches nothing.
    batch = rows;
    batch.resize(kept);
    if (!options_.units.example_level()) {
      return padded_unit_sum(model, data, rows, std::span<const std::uint8_t>(counted));
    }
    return sum_of_clipped_gradients(model, data, std::span<const std::size_t>(rows),
                                    options_.clip_norm, std::span<const std::uint8_t>(counted));
  }

  // sum_u clip(mean of u's first m examples) over `units` (counted[k] = 0:
  // unit k is a filler and adds exactly 0; empty: every unit counts), each
  // unit's pass on exactly m rows: its examples, then its last example
  // again, masked to 0. A unit's example count c >= 1 is its own data, so
  // the rows are chosen by a clamped index and the divisor min(c, m)
  // without a branch on c.
  clipped_sum padded_unit_sum(const Model& model, const batch_type& data,
                              std::span<const std::size_t> units,
                              std::span<const std::uint8_t> counted) const {
    namespace ct = privet::detail;
    const std::size_t m = options_.unit_examples;
    xt::xtensor<real_type, 2> rows({units.size(), parameter_count_});
    std::vector<std::size_t> picked(m);
    std::vector<std::uint8_t> present(m);
    for (std::size_t k = 0; k < units.size(); ++k) {
      const auto examples = options_.units.examples_of(units[k]);
      const std::uint64_t c = examples.size();  // >= 1: every unit has an example
      for (std::size_t j = 0; j < m; ++j) {
        const std::uint64_t inside = ct::ct_lt(j, c);
        picked[j] = examples[ct::ct_select(ct::ct_mask(inside), j, c - 1)];
        present[j] = static_cast<std::uint8_t>(inside);
      }
      const auto g = sum_of_clipped_gradients(model, data, std::span<const std::size_t>(picked),
                                              std::numeric_limits<double>::infinity(),
                                              std::span<const std::uint8_t>(present))
                         .sum;
      set_mean_row(rows, k, g,
                   static_cast<double>(ct::ct_select(ct::ct_mask(ct::ct_lt(c, m)), c, m)));
    }
    return clip_and_sum_rows(rows, options_.clip_norm, counted);
  }

  // Whether each sampled unit's pass runs on exactly unit_examples rows
  // (constant_time_noise, user-level units, a cap m > 0).
  [[nodiscard]] bool unit_padded() const noexcept {
    return constant_time_sampling && !options_.units.example_level() && options_.unit_examples > 0;
  }

  // Whether each step runs the gradient pass on capacity_.rows rows (or
  // units).
  [[nodiscard]] bool padded() const noexcept { return capacity_.rows > 0; }

  template <class G>
  std::vector<std::size_t> sample(G& gen) const {
    std::vector<std::size_t> out;
    if (options_.sampling == batch_sampling::poisson && constant_time_sampling) {
      // Two words per unit against floor(q 2^128), no branch on a coin.
      if (rate_ >= 1) {
        out.resize(population_);
        for (std::size_t i = 0; i < population_; ++i) out[i] = i;
        return out;
      }
      out.assign(population_ + 1, 0);
      out.resize(
          privet::detail::ct_poisson_subset(gen, poisson_threshold_, population_, out.data()));
    } else if (options_.sampling == batch_sampling::poisson) {
      for (std::size_t i = 0; i < population_; ++i) {
        if (detail::bernoulli_exact(gen, rate_)) out.push_back(i);
      }
    } else if (constant_time_sampling) {
      // Floyd's draws checked by masks and Batcher's sort: exactly uniform,
      // O(b^2) comparisons whatever the batch.
      std::vector<std::uint64_t> members(options_.batch_size);
      fixed_subset_(gen, members.data());
      out.assign(members.begin(), members.end());
    } else {
      const auto chosen = uniform_subset(gen, population_, options_.batch_size);
      out.assign(chosen.begin(), chosen.end());
      std::sort(out.begin(), out.end());
    }
    return out;
  }

  dpsgd_options options_;
  std::size_t parameter_count_;
  std::size_t dataset_size_;
  std::size_t population_;
  double rate_;
  double expected_batch_;
  // floor(q 2^128): the constant-time Poisson coin (constant_time_noise).
  privet::detail::ct_threshold poisson_threshold_;
  // The constant-time fixed-size draw (constant_time_noise, fixed_size).
  privet::detail::ct_uniform_subset fixed_subset_;
  // The padded steps' rows and tail (constant_time_noise, Poisson, examples).
  privet::detail::poisson_capacity capacity_;
  std::optional<mechanism_type> mechanism_;
  double event_multiplier_ = 0;
  privacy_odometer odometer_;
  std::uint64_t steps_ = 0;
  std::optional<std::uint64_t> budget_steps_;
  std::optional<approx_dp> target_;
};

}  // namespace privet::ml
