// privet/accounting/events.hpp — privacy events: what a release was, in the
// terms each accountant needs.
//
// An accountant is only as tight as what it is told. A Gaussian release
// recorded as "(1.2, 1e-5)-DP" composes by the (eps, delta) rules; recorded
// as "Gaussian noise with noise multiplier 1.1" it composes by its exact
// RDP curve or privacy loss distribution. An event describes the release
// (the noise and how it was applied) and maps to:
//
//   rdp_of(e, orders)  its RDP curve on `orders`, or nothing if it has none
//                      (an (eps, delta) guarantee with delta > 0);
//   pld_of(e, opts)    its privacy loss distribution, or nothing (zCDP,
//                      which fixes the Renyi divergences but not the PLD);
//   describe(e)        a human-readable, exact description, also the key by
//                      which an odometer merges repeated identical events.
//
// A user's own event type joins by providing the three functions where
// argument-dependent lookup finds them (the `privacy_event` concept).
//
// For guarantees, each map uses the worst mechanism the guarantee allows:
// eps-DP is dominated by binary randomised response with the same eps and
// (eps, delta)-DP by randomised response that first reveals the input with
// probability delta (Kairouz, Oh & Viswanath 2015, Theorem 2.1); mu-GDP is
// the Gaussian with noise multiplier 1 / mu (Dong, Roth & Su 2022). Every
// mechanism satisfying the guarantee is a post-processing of that pair, so
// its composition is bounded by the pair's.
#pragma once

#include <privet/accounting/pld.hpp>
#include <privet/accounting/prv.hpp>
#include <privet/accounting/rdp.hpp>
#include <privet/accounting/rdp_wor.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/validate.hpp>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace privet {

/// Gaussian noise of standard deviation noise_multiplier times the query's
/// L2 sensitivity.
struct gaussian_event {
  double noise_multiplier;  ///< Noise standard deviation / L2 sensitivity; > 0.
};

/// Laplace noise of scale `scale` times the query's L1 sensitivity.
struct laplace_event {
  double scale;  ///< Noise scale / L1 sensitivity (the event is (1 / scale)-DP); > 0.
};

/// Discrete Gaussian noise (parameter sigma) on an integer query of L2
/// sensitivity `sensitivity`.
struct discrete_gaussian_event {
  double sigma;                  ///< The discrete Gaussian's parameter, in the query's units; > 0.
  std::int64_t sensitivity = 1;  ///< The query's integer L2 sensitivity; >= 1.
};

/// Discrete Laplace noise, P[x] proportional to e^{-|x| / scale}, on an
/// integer query of L1 sensitivity `sensitivity`.
struct discrete_laplace_event {
  double scale;                  ///< The noise scale, in the query's units; > 0.
  std::int64_t sensitivity = 1;  ///< The query's integer L1 sensitivity; >= 1.
};

/// k-ary randomised response (the true value kept with probability
/// e^eps / (e^eps + k - 1)).
struct randomized_response_event {
  double epsilon;       ///< The mechanism's pure-DP epsilon; > 0.
  std::uint64_t k = 2;  ///< Number of categories; >= 2.
};

/// One DP-SGD step: Gaussian noise with this noise multiplier on a Poisson
/// sample with rate q, add/remove neighbours.
struct subsampled_gaussian_event {
  double q;                 ///< Poisson sampling rate, in (0, 1].
  double noise_multiplier;  ///< Noise standard deviation / L2 sensitivity (clipping norm); > 0.
};

/// One DP-SGD step on a fixed-size batch drawn without replacement: Gaussian
/// noise of standard deviation noise_multiplier times the replace-one
/// sensitivity (2C for clipping norm C) on a uniform fraction
/// `sampling_fraction` of the records, replace-one neighbours. Its RDP curve
/// is Wang, Balle & Kasiviswanathan 2019, Theorem 9 (accounting/rdp_wor.hpp);
/// it has no PLD or PRV here, so only the RDP accountant covers it.
struct fixed_size_subsampled_gaussian_event {
  double sampling_fraction;  ///< Batch size / dataset size, in (0, 1].
  double noise_multiplier;   ///< Noise standard deviation / replace-one sensitivity; > 0.
};

/// k-ary randomised response under replace-special neighbours: the special
/// record's report is uniform over the k values (dp_accounting's
/// RandomizedResponseDpEvent under REPLACE_SPECIAL). Its PLD is
/// privacy_loss_distribution::randomized_response_replace_special; its RDP
/// curve rdp_randomized_response_special.
struct randomized_response_special_event {
  double epsilon;       ///< The mechanism's pure-DP epsilon; > 0.
  std::uint64_t k = 2;  ///< Number of categories; >= 2.
};

/// An eps-bounded-range mechanism (privacy loss within an interval of width
/// eps), such as the exponential mechanism run as an eps-DP one.
struct bounded_range_event {
  double epsilon;  ///< The width of the privacy loss's range (and the pure-DP epsilon); >= 0.
};

/// One epoch of tree aggregation (DP-FTRL) over trees of these step counts,
/// each record in at most one leaf of all of them, replace-special
/// neighbours (rdp_tree_aggregation). RDP accountant only.
struct tree_aggregation_event {
  double noise_multiplier;                 ///< Noise std per node / L2 sensitivity; > 0.
  std::vector<std::uint64_t> step_counts;  ///< Steps (leaves) of each tree; not empty.
};

/// Laplace noise of scale `scale` times the L1 sensitivity on a Poisson
/// sample with rate q, add/remove neighbours. Its PLD is exact
/// (privacy_loss_distribution::subsampled_laplace); its RDP curve is that of
/// the pure DP it satisfies, log(1 + q (e^{1/scale} - 1)) (Balle, Barthe &
/// Gaboardi 2018, Poisson subsampling), which is looser.
struct subsampled_laplace_event {
  double q;      ///< Poisson sampling rate, in (0, 1].
  double scale;  ///< Noise scale / L1 sensitivity; > 0.
};

/// Gaussian noise (this noise multiplier) on a Poisson sample with rate q
/// under replace-one neighbours (privacy_loss_distribution::
/// subsampled_gaussian_replace_one). Its RDP curve is the Gaussian's at
/// sensitivity 2 (the pair's components coupled, by the joint
/// quasi-convexity of Renyi divergence, van Erven & Harremoes 2014,
/// Theorem 13), which is looser.
struct subsampled_gaussian_replace_one_event {
  double q;                 ///< Poisson sampling rate, in (0, 1].
  double noise_multiplier;  ///< Noise standard deviation / L2 norm bound; > 0.
};

/// The mixture of Gaussians (MMCC; privacy_loss_distribution::
/// mixture_of_gaussians): Gaussian noise of standard deviation sigma on a
/// query whose sensitivity is sensitivities[i] with probability probs[i],
/// add/remove neighbours. Its RDP curve is the Gaussian's at the largest
/// sensitivity (joint quasi-convexity of Renyi divergence, van Erven &
/// Harremoes 2014, Theorem 13), which is looser.
struct mixture_of_gaussians_event {
  double sigma;                       ///< Noise standard deviation; > 0.
  std::vector<double> sensitivities;  ///< Each >= 0.
  std::vector<double> probs;          ///< Their probabilities, summing to 1.
};

/// dp_accounting's truncated Poisson-subsampled Gaussian
/// (privacy_loss_distribution::truncated_subsampled_gaussian). Its RDP curve
/// is the Gaussian's at sensitivity 2 (no amplification), which is looser.
struct truncated_subsampled_gaussian_event {
  std::uint64_t n;           ///< Dataset size; >= 1.
  double q;                  ///< Poisson sampling rate, in (0, 1].
  std::uint64_t batch;       ///< Largest batch kept; >= 1.
  double noise_multiplier;   ///< Noise standard deviation / L2 norm bound; > 0.
  bool replace_one = false;  ///< Replace-one neighbours (else add/remove).
};

// ---- RDP curves ------------------------------------------------------------------

/// The Gaussian's curve alpha / (2 sigma^2) on `orders` (rdp_gaussian).
inline std::optional<rdp> rdp_of(const gaussian_event& e, const std::vector<double>& orders) {
  return rdp_gaussian(e.noise_multiplier, orders);
}
/// The Laplace mechanism's exact curve on `orders` (rdp_laplace).
inline std::optional<rdp> rdp_of(const laplace_event& e, const std::vector<double>& orders) {
  return rdp_laplace(e.scale, orders);
}
/// The discrete Gaussian is (d^2 / (2 sigma^2))-zCDP (Canonne, Kamath &
/// Steinke 2020, Theorem 14): eps(alpha) = alpha d^2 / (2 sigma^2).
inline std::optional<rdp> rdp_of(const discrete_gaussian_event& e,
                                 const std::vector<double>& orders) {
  validate_positive(e.sigma, "sigma");
  validate_at_least<std::int64_t>(e.sensitivity, 1, "sensitivity");
  const double mu = static_cast<double>(e.sensitivity) / e.sigma;
  return detail::rdp_curve(orders, [&](double a) { return a * mu * mu / 2; });
}
/// The discrete Laplace is (d / scale)-DP, through binary randomised
/// response's curve.
inline std::optional<rdp> rdp_of(const discrete_laplace_event& e,
                                 const std::vector<double>& orders) {
  validate_positive(e.scale, "scale");
  validate_at_least<std::int64_t>(e.sensitivity, 1, "sensitivity");
  return rdp_pure_dp(pure_dp(static_cast<double>(e.sensitivity) / e.scale), orders);
}
/// k-ary randomised response's curve on `orders` (rdp_randomized_response).
inline std::optional<rdp> rdp_of(const randomized_response_event& e,
                                 const std::vector<double>& orders) {
  return rdp_randomized_response(e.epsilon, e.k, orders);
}
/// The replace-special curve (rdp_randomized_response_special).
inline std::optional<rdp> rdp_of(const randomized_response_special_event& e,
                                 const std::vector<double>& orders) {
  return rdp_randomized_response_special(e.epsilon, e.k, orders);
}
/// The bounded-range curve (rdp_bounded_range).
inline std::optional<rdp> rdp_of(const bounded_range_event& e, const std::vector<double>& orders) {
  return rdp_bounded_range(e.epsilon, orders);
}
/// The tree-aggregation curve (rdp_tree_aggregation).
inline std::optional<rdp> rdp_of(const tree_aggregation_event& e,
                                 const std::vector<double>& orders) {
  return rdp_tree_aggregation(e.noise_multiplier, e.step_counts, orders);
}
/// The Poisson-subsampled Gaussian's curve (rdp_subsampled_gaussian).
/// Throws invalid_parameter naming `q` unless q is in (0, 1].
inline std::optional<rdp> rdp_of(const subsampled_gaussian_event& e,
                                 const std::vector<double>& orders) {
  if (!(e.q > 0 && e.q <= 1)) throw_invalid("q", e.q, "(0, 1]");
  return rdp_subsampled_gaussian(e.q, e.noise_multiplier, orders);
}
/// The without-replacement bound (rdp_subsampled_wor_gaussian). Throws
/// invalid_parameter naming `sampling_fraction` unless it is in (0, 1].
inline std::optional<rdp> rdp_of(const fixed_size_subsampled_gaussian_event& e,
                                 const std::vector<double>& orders) {
  if (!(e.sampling_fraction > 0 && e.sampling_fraction <= 1)) {
    throw_invalid("sampling_fraction", e.sampling_fraction, "(0, 1]");
  }
  return rdp_subsampled_wor_gaussian(e.sampling_fraction, e.noise_multiplier, orders);
}
/// The curve of the pure DP it satisfies, log(1 + q (e^{1/scale} - 1)),
/// rounded up. Throws invalid_parameter naming `q` unless q is in (0, 1].
inline std::optional<rdp> rdp_of(const subsampled_laplace_event& e,
                                 const std::vector<double>& orders) {
  if (!(e.q > 0 && e.q <= 1)) throw_invalid("q", e.q, "(0, 1]");
  validate_positive(e.scale, "scale");
  const double eps = detail::log1p_q_expm1(e.q, 1 / e.scale) * (1 + 1e-15) + 1e-300;
  return rdp_pure_dp(pure_dp(eps), orders);
}
/// The Gaussian's curve at sensitivity 2: 2 alpha / sigma^2.
inline std::optional<rdp> rdp_of(const subsampled_gaussian_replace_one_event& e,
                                 const std::vector<double>& orders) {
  if (!(e.q > 0 && e.q <= 1)) throw_invalid("q", e.q, "(0, 1]");
  return rdp_gaussian(e.noise_multiplier / 2, orders);
}
/// The Gaussian's curve at the largest sensitivity.
inline std::optional<rdp> rdp_of(const mixture_of_gaussians_event& e,
                                 const std::vector<double>& orders) {
  validate_positive(e.sigma, "sigma");
  double top = 0;
  for (double c : e.sensitivities) top = std::max(top, c);
  validate_positive(top, "max(sensitivities)");
  return rdp_gaussian(e.sigma / top, orders);
}
/// The Gaussian's curve at sensitivity 2.
inline std::optional<rdp> rdp_of(const truncated_subsampled_gaussian_event& e,
                                 const std::vector<double>& orders) {
  return rdp_gaussian(e.noise_multiplier / 2, orders);
}
/// eps-DP through binary randomised response's curve (rdp_pure_dp).
inline std::optional<rdp> rdp_of(const pure_dp& g, const std::vector<double>& orders) {
  return rdp_pure_dp(g, orders);
}
/// The RDP curve of (eps, delta)'s eps part, binary randomised response's:
/// (eps, delta)-DP is a post-processing of the pair that reveals the input
/// with probability delta and otherwise runs eps-randomised response
/// (Kairouz, Oh & Viswanath 2015, Theorem 2.1); the curve holds on the
/// event of no reveal, and the odometer accounts for the reveals separately.
inline std::optional<rdp> rdp_of(const approx_dp& g, const std::vector<double>& orders) {
  return rdp_pure_dp(pure_dp(g.epsilon()), orders);
}
/// rho-zCDP is the curve alpha rho.
inline std::optional<rdp> rdp_of(const zcdp& g, const std::vector<double>& orders) {
  return detail::rdp_curve(orders, [&](double a) { return a * g.rho(); });
}
/// mu-GDP is the Gaussian's curve alpha mu^2 / 2.
inline std::optional<rdp> rdp_of(const gdp& g, const std::vector<double>& orders) {
  return detail::rdp_curve(orders, [&](double a) { return a * g.mu() * g.mu() / 2; });
}
/// A curve as it is. Throws invalid_parameter naming `curve.orders()`
/// unless it is on exactly `orders`.
inline std::optional<rdp> rdp_of(const rdp& curve, const std::vector<double>& orders) {
  if (curve.orders() != orders) {
    throw_invalid("curve.orders()", "a different set", "the accountant's orders");
  }
  return curve;
}

// ---- privacy loss distributions ----------------------------------------------------

/// What pld_of returns: a PLD, or nothing for an event without one.
using optional_pld = std::optional<privacy_loss_distribution>;

/// The Gaussian's PLD at sensitivity 1 (privacy_loss_distribution::gaussian).
inline optional_pld pld_of(const gaussian_event& e, const pld_options& o) {
  return privacy_loss_distribution::gaussian(e.noise_multiplier, 1, o);
}
/// The Laplace mechanism's PLD at sensitivity 1.
inline optional_pld pld_of(const laplace_event& e, const pld_options& o) {
  return privacy_loss_distribution::laplace(e.scale, 1, o);
}
/// The discrete Gaussian's PLD at the event's sensitivity.
inline optional_pld pld_of(const discrete_gaussian_event& e, const pld_options& o) {
  return privacy_loss_distribution::discrete_gaussian(e.sigma, e.sensitivity, o);
}
/// The discrete Laplace's PLD at the event's sensitivity.
inline optional_pld pld_of(const discrete_laplace_event& e, const pld_options& o) {
  return privacy_loss_distribution::discrete_laplace(e.scale, e.sensitivity, o);
}
/// k-ary randomised response's PLD.
inline optional_pld pld_of(const randomized_response_event& e, const pld_options& o) {
  return privacy_loss_distribution::randomized_response(e.epsilon, e.k, o);
}
/// The Poisson-subsampled Gaussian's PLD, both orders kept.
inline optional_pld pld_of(const subsampled_gaussian_event& e, const pld_options& o) {
  return privacy_loss_distribution::subsampled_gaussian(e.q, e.noise_multiplier, o);
}
/// An eps-bounded-range mechanism is eps-DP (its loss range contains 0):
/// binary randomised response's PLD.
inline optional_pld pld_of(const bounded_range_event& e, const pld_options& o) {
  return privacy_loss_distribution::from_guarantee(approx_dp(e.epsilon, 0), o);
}
/// Tree aggregation has its RDP curve only here.
inline optional_pld pld_of(const tree_aggregation_event&, const pld_options&) {
  return std::nullopt;
}
/// The Poisson-subsampled Laplace's PLD, both orders kept.
inline optional_pld pld_of(const subsampled_laplace_event& e, const pld_options& o) {
  return privacy_loss_distribution::subsampled_laplace(e.q, e.scale, o);
}
/// The replace-one Poisson-subsampled Gaussian's PLD.
inline optional_pld pld_of(const subsampled_gaussian_replace_one_event& e, const pld_options& o) {
  return privacy_loss_distribution::subsampled_gaussian_replace_one(e.q, e.noise_multiplier, o);
}
/// Randomised response's replace-special PLD, both orders kept.
inline optional_pld pld_of(const randomized_response_special_event& e, const pld_options& o) {
  return privacy_loss_distribution::randomized_response_replace_special(e.epsilon, e.k, o);
}
/// The mixture of Gaussians' PLD, both orders kept.
inline optional_pld pld_of(const mixture_of_gaussians_event& e, const pld_options& o) {
  return privacy_loss_distribution::mixture_of_gaussians(e.sigma, e.sensitivities, e.probs, o);
}
/// The truncated subsampled Gaussian's PLD.
inline optional_pld pld_of(const truncated_subsampled_gaussian_event& e, const pld_options& o) {
  return privacy_loss_distribution::truncated_subsampled_gaussian(
      e.n, e.q, e.batch, e.noise_multiplier, e.replace_one, o);
}
/// No PLD is known here for sampling without replacement: the RDP bound only.
inline optional_pld pld_of(const fixed_size_subsampled_gaussian_event&, const pld_options&) {
  return std::nullopt;
}
/// eps-DP as binary randomised response's PLD.
inline optional_pld pld_of(const pure_dp& g, const pld_options& o) {
  return privacy_loss_distribution::from_guarantee(approx_dp(g.epsilon(), 0), o);
}
/// (eps, delta)-DP as the worst pair it allows
/// (privacy_loss_distribution::from_guarantee).
inline optional_pld pld_of(const approx_dp& g, const pld_options& o) {
  return privacy_loss_distribution::from_guarantee(g, o);
}
/// zCDP bounds the Renyi divergences, which do not determine a PLD.
inline optional_pld pld_of(const zcdp&, const pld_options&) {
  return std::nullopt;
}
/// mu-GDP as the Gaussian with noise multiplier 1 / mu. Throws
/// invalid_parameter naming `mu` unless mu is finite and > 0.
inline optional_pld pld_of(const gdp& g, const pld_options& o) {
  validate_positive(g.mu(), "mu");
  return privacy_loss_distribution::gaussian(1 / g.mu(), 1, o);
}
/// An RDP curve does not determine a PLD.
inline optional_pld pld_of(const rdp&, const pld_options&) {
  return std::nullopt;
}

// ---- privacy random variables (PRV accountant) -------------------------------------------
//
// Optional for an event type: an odometer or calibration asked for the PRV
// accountant finds prv_of by argument-dependent lookup and reports the
// accountant unavailable when an event has none.

/// What prv_of returns: a PRV, or nothing for an event without one.
using optional_prv = std::optional<prv>;

/// The Gaussian's PRV at sensitivity 1 (prv::gaussian).
inline optional_prv prv_of(const gaussian_event& e) {
  return prv::gaussian(e.noise_multiplier);
}
/// The Laplace mechanism's PRV at sensitivity 1.
inline optional_prv prv_of(const laplace_event& e) {
  return prv::laplace(e.scale);
}
/// k-ary randomised response's PRV.
inline optional_prv prv_of(const randomized_response_event& e) {
  return prv::randomized_response(e.epsilon, e.k);
}
/// The Poisson-subsampled Gaussian's PRV (prv::subsampled_gaussian).
inline optional_prv prv_of(const subsampled_gaussian_event& e) {
  return prv::subsampled_gaussian(e.q, e.noise_multiplier);
}
/// eps-DP as binary randomised response's PRV (prv::pure_dp).
inline optional_prv prv_of(const pure_dp& g) {
  return prv::pure_dp(g.epsilon());
}
/// (eps, delta) with delta > 0 would need mass at +infinity, which the PRV
/// accountant does not model.
inline optional_prv prv_of(const approx_dp& g) {
  if (g.delta() > 0) return std::nullopt;
  return prv::pure_dp(g.epsilon());
}
/// mu-GDP as the Gaussian with noise multiplier 1 / mu. Throws
/// invalid_parameter naming `mu` unless mu is finite and > 0.
inline optional_prv prv_of(const gdp& g) {
  validate_positive(g.mu(), "mu");
  return prv::gaussian(1 / g.mu());
}

/// Whether the PRV accountant knows the event type.
template <class E>
concept prv_event = requires(const E& e) {
  { prv_of(e) } -> std::same_as<optional_prv>;
};

// ---- descriptions ------------------------------------------------------------------

/// The event's kind and parameters, e.g. "gaussian(...)".
inline std::string describe(const gaussian_event& e) {
  return "gaussian(noise_multiplier = " + detail::format_value(e.noise_multiplier) + ")";
}
/// The event's kind and parameters, e.g. "laplace(...)".
inline std::string describe(const laplace_event& e) {
  return "laplace(scale = " + detail::format_value(e.scale) + ")";
}
/// The event's kind and parameters, e.g. "discrete_gaussian(...)".
inline std::string describe(const discrete_gaussian_event& e) {
  return "discrete_gaussian(sigma = " + detail::format_value(e.sigma) +
         ", sensitivity = " + std::to_string(e.sensitivity) + ")";
}
/// The event's kind and parameters, e.g. "discrete_laplace(...)".
inline std::string describe(const discrete_laplace_event& e) {
  return "discrete_laplace(scale = " + detail::format_value(e.scale) +
         ", sensitivity = " + std::to_string(e.sensitivity) + ")";
}
/// The event's kind and parameters, e.g. "randomized_response(...)".
inline std::string describe(const randomized_response_event& e) {
  return "randomized_response(epsilon = " + detail::format_value(e.epsilon) +
         ", k = " + std::to_string(e.k) + ")";
}
/// The event's kind and parameters, e.g. "randomized_response_special(...)".
inline std::string describe(const randomized_response_special_event& e) {
  return "randomized_response_special(epsilon = " + detail::format_value(e.epsilon) +
         ", k = " + std::to_string(e.k) + ")";
}
/// The event's kind and parameters, e.g. "bounded_range(...)".
inline std::string describe(const bounded_range_event& e) {
  return "bounded_range(epsilon = " + detail::format_value(e.epsilon) + ")";
}
/// The event's kind and parameters, e.g. "tree_aggregation(...)".
inline std::string describe(const tree_aggregation_event& e) {
  std::string s =
      "tree_aggregation(noise_multiplier = " + detail::format_value(e.noise_multiplier) +
      ", step_counts = [";
  for (std::size_t i = 0; i < e.step_counts.size(); ++i) {
    s += (i ? ", " : "") + std::to_string(e.step_counts[i]);
  }
  return s + "])";
}
/// The event's kind and parameters, e.g. "subsampled_gaussian(...)".
inline std::string describe(const subsampled_gaussian_event& e) {
  return "subsampled_gaussian(q = " + detail::format_value(e.q) +
         ", noise_multiplier = " + detail::format_value(e.noise_multiplier) + ")";
}
/// The event's kind and parameters, e.g. "fixed_size_subsampled_gaussian(...)".
inline std::string describe(const fixed_size_subsampled_gaussian_event& e) {
  return "fixed_size_subsampled_gaussian(fraction = " + detail::format_value(e.sampling_fraction) +
         ", noise_multiplier = " + detail::format_value(e.noise_multiplier) + ")";
}
/// The event's kind and parameters, e.g. "subsampled_laplace(...)".
inline std::string describe(const subsampled_laplace_event& e) {
  return "subsampled_laplace(q = " + detail::format_value(e.q) +
         ", scale = " + detail::format_value(e.scale) + ")";
}
/// The event's kind and parameters, e.g. "subsampled_gaussian_replace_one(...)".
inline std::string describe(const subsampled_gaussian_replace_one_event& e) {
  return "subsampled_gaussian_replace_one(q = " + detail::format_value(e.q) +
         ", noise_multiplier = " + detail::format_value(e.noise_multiplier) + ")";
}
/// The event's kind and parameters, e.g. "mixture_of_gaussians(...)".
inline std::string describe(const mixture_of_gaussians_event& e) {
  std::string out = "mixture_of_gaussians(sigma = " + detail::format_value(e.sigma) + ", [";
  for (std::size_t i = 0; i < e.sensitivities.size(); ++i) {
    if (i > 0) out += ", ";
    out += detail::format_value(e.sensitivities[i]) + ": " +
           (i < e.probs.size() ? detail::format_value(e.probs[i]) : std::string("?"));
  }
  return out + "])";
}
/// The event's kind and parameters, e.g. "truncated_subsampled_gaussian(...)".
inline std::string describe(const truncated_subsampled_gaussian_event& e) {
  return "truncated_subsampled_gaussian(n = " + std::to_string(e.n) +
         ", q = " + detail::format_value(e.q) + ", batch = " + std::to_string(e.batch) +
         ", noise_multiplier = " + detail::format_value(e.noise_multiplier) +
         (e.replace_one ? ", replace_one)" : ")");
}
/// The event's kind and parameters, e.g. "pure_dp(...)".
inline std::string describe(const pure_dp& g) {
  return "pure_dp(epsilon = " + detail::format_value(g.epsilon()) + ")";
}
/// The event's kind and parameters, e.g. "approx_dp(...)".
inline std::string describe(const approx_dp& g) {
  return "approx_dp(epsilon = " + detail::format_value(g.epsilon()) +
         ", delta = " + detail::format_value(g.delta()) + ")";
}
/// The event's kind and parameters, e.g. "zcdp(...)".
inline std::string describe(const zcdp& g) {
  return "zcdp(rho = " + detail::format_value(g.rho()) + ")";
}
/// The event's kind and parameters, e.g. "gdp(...)".
inline std::string describe(const gdp& g) {
  return "gdp(mu = " + detail::format_value(g.mu()) + ")";
}
/// Curves are not compared: each recorded curve is its own entry.
inline std::string describe(const rdp& g) {
  return "rdp curve on " + std::to_string(g.orders().size()) + " orders";
}

/// A release an accountant can record: its RDP curve, PLD and description
/// are found by argument-dependent lookup.
template <class E>
concept privacy_event = requires(const E& e, const std::vector<double>& orders,
                                 const pld_options& o) {
  { rdp_of(e, orders) } -> std::same_as<std::optional<rdp>>;
  { pld_of(e, o) } -> std::same_as<optional_pld>;
  { describe(e) } -> std::convertible_to<std::string>;
};

}  // namespace privet
