// privet/core/guarantee.hpp — privacy guarantees as values with units.
//
//   pure_dp{eps}          eps-DP (Dwork, McSherry, Nissim, Smith 2006)
//   approx_dp{eps, delta} (eps, delta)-DP
//   zcdp{rho}             rho-zCDP (Bun & Steinke 2016)
//   gdp{mu}               mu-GDP (Dong, Roth & Su 2022)
//   within_tv<G>{g, tau}  G up to a sampler's total variation tau
//
// Conversions are named functions, never implicit. This header holds only
// those that are exact or a single published bound; composition, tighter
// conversions and accountants live in privet/accounting.
#pragma once

#include <privet/core/detail/format.hpp>
#include <privet/core/validate.hpp>

#include <cmath>
#include <concepts>
#include <iosfwd>
#include <string>

namespace privet {

/// Pure differential privacy: for all neighbours and events,
/// P[M(x) in S] <= e^epsilon P[M(x') in S].
class pure_dp {
 public:
  /// Throws invalid_parameter unless epsilon is finite and >= 0.
  explicit pure_dp(double epsilon) : epsilon_(validate_non_negative(epsilon, "epsilon")) {}
  /// The privacy loss bound epsilon (>= 0; 0 means no loss).
  [[nodiscard]] double epsilon() const noexcept { return epsilon_; }
  /// Exact comparison of the parameters.
  friend bool operator==(const pure_dp&, const pure_dp&) = default;

 private:
  double epsilon_;
};

/// Approximate differential privacy: P[M(x) in S] <= e^epsilon P[M(x') in S] + delta.
class approx_dp {
 public:
  /// Throws unless epsilon is finite and >= 0 and delta is in [0, 1].
  approx_dp(double epsilon, double delta)
      : epsilon_(validate_non_negative(epsilon, "epsilon")),
        delta_(validate_probability(delta, "delta")) {}
  /// The multiplicative bound epsilon (>= 0).
  [[nodiscard]] double epsilon() const noexcept { return epsilon_; }
  /// The additive slack delta, a probability in [0, 1].
  [[nodiscard]] double delta() const noexcept { return delta_; }
  /// Exact comparison of the parameters.
  friend bool operator==(const approx_dp&, const approx_dp&) = default;

 private:
  double epsilon_;
  double delta_;
};

/// Zero-concentrated differential privacy: D_alpha(M(x) || M(x')) <= rho * alpha
/// for every Renyi order alpha > 1.
class zcdp {
 public:
  /// Throws unless rho is finite and >= 0.
  explicit zcdp(double rho) : rho_(validate_non_negative(rho, "rho")) {}
  /// The zCDP parameter rho (>= 0).
  [[nodiscard]] double rho() const noexcept { return rho_; }
  /// Exact comparison of the parameters.
  friend bool operator==(const zcdp&, const zcdp&) = default;

 private:
  double rho_;
};

/// Gaussian differential privacy: distinguishing neighbours is at least as
/// hard as distinguishing N(0, 1) from N(mu, 1).
class gdp {
 public:
  /// Throws unless mu is finite and >= 0.
  explicit gdp(double mu) : mu_(validate_non_negative(mu, "mu")) {}
  /// The GDP parameter mu (>= 0): the mean shift of the equivalent Gaussian test.
  [[nodiscard]] double mu() const noexcept { return mu_; }
  /// Exact comparison of the parameters.
  friend bool operator==(const gdp&, const gdp&) = default;

 private:
  double mu_;
};

/// A type is a privacy guarantee if it is one of the value types above (or a
/// type that specialises this trait; the accounting layer adds RDP curves).
template <class G>
inline constexpr bool is_guarantee_v = false;
/// True: pure_dp, approx_dp, zcdp and gdp are the core guarantees.
///@{
template <>
inline constexpr bool is_guarantee_v<pure_dp> = true;
template <>
inline constexpr bool is_guarantee_v<approx_dp> = true;
template <>
inline constexpr bool is_guarantee_v<zcdp> = true;
template <>
inline constexpr bool is_guarantee_v<gdp> = true;
///@}

/// The guarantees a within_tv can qualify: pure DP and zCDP, the ones
/// the exact additive-noise mechanisms report.
template <class G>
concept tv_qualifiable = std::same_as<G, pure_dp> || std::same_as<G, zcdp>;

/// A guarantee that holds up to a sampler's approximation: for every input,
/// the mechanism's output law is within total variation distance
/// total_variation() of the output law of a mechanism that satisfies
/// base(). This is what a mechanism with constant-time noise reports
/// (mechanisms/constant_time_noise.hpp): its sampler is the exact one up to
/// a cut tail and 128-bit coins, a distance below 2^-100 per coordinate.
///
/// It composes: k such mechanisms run in sequence (adaptively) are within
/// the sum of their distances of the exact mechanisms' composition (a hybrid
/// argument, one mechanism at a time), so bases compose by their own rule
/// and distances add (accounting/zcdp.hpp, accounting/composition.hpp). It
/// converts to (eps, delta)-DP by add_total_variation.
template <tv_qualifiable Base>
class within_tv {
 public:
  /// Throws unless total_variation is in [0, 1].
  within_tv(Base base, double total_variation)
      : base_(base), tv_(validate_probability(total_variation, "total_variation")) {}
  /// The guarantee of the exact mechanism this one approximates.
  [[nodiscard]] const Base& base() const noexcept { return base_; }
  /// The distance tau to that mechanism's output law, for every input.
  [[nodiscard]] double total_variation() const noexcept { return tv_; }
  /// The base's epsilon (within_tv<pure_dp>): the guarantee is this
  /// epsilon and total_variation() together, as approx_dp's is its epsilon
  /// and delta; to_approx_dp joins them.
  [[nodiscard]] double epsilon() const noexcept requires std::same_as<Base, pure_dp> {
    return base_.epsilon();
  }
  /// The base's rho (within_tv<zcdp>), with total_variation() beside it.
  [[nodiscard]] double rho() const noexcept requires std::same_as<Base, zcdp> {
    return base_.rho();
  }
  /// Exact comparison of the parameters.
  friend bool operator==(const within_tv&, const within_tv&) = default;

 private:
  Base base_;
  double tv_;
};

/// The guarantee of the exact mechanism behind G: Base for within_tv<Base>,
/// G itself otherwise. What a caller asks a mechanism for (its budget) when
/// the mechanism reports within_tv (constant-time noise).
template <class G>
struct exact_guarantee {
  using type = G;  ///< G itself.
};
/// within_tv<Base>'s exact guarantee: Base.
template <tv_qualifiable Base>
struct exact_guarantee<within_tv<Base>> {
  using type = Base;  ///< The base guarantee.
};
/// exact_guarantee<G>::type.
template <class G>
using exact_guarantee_t = typename exact_guarantee<G>::type;

/// True: within_tv of a core guarantee is a guarantee.
template <tv_qualifiable Base>
inline constexpr bool is_guarantee_v<within_tv<Base>> = true;

/// A privacy guarantee type: one for which is_guarantee_v is true.
template <class G>
concept guarantee = is_guarantee_v<G>;

/// The (eps, delta) of a mechanism whose output law is within total
/// variation tau of an (eps, delta)-DP mechanism's, for every input:
/// (eps, delta + (1 + e^eps) tau), rounded up and capped at 1. For every
/// event S, P[M'(x) in S] <= P[M(x) in S] + tau <= e^eps P[M(x') in S] +
/// delta + tau <= e^eps (P[M'(x') in S] + tau) + delta + tau.
inline approx_dp add_total_variation(const approx_dp& g, double tau) {
  validate_probability(tau, "tau");
  if (tau == 0) return g;
  // std::exp is within an ulp or two; two steps up cover it.
  const double e = std::nextafter(std::nextafter(std::exp(g.epsilon()), HUGE_VAL), HUGE_VAL);
  const double factor = 1 + e;  // exact or rounded: raised below
  const double extra = std::nextafter(std::nextafter(factor, HUGE_VAL) * tau, HUGE_VAL);
  const double delta = std::nextafter(g.delta() + extra, HUGE_VAL);
  return approx_dp(g.epsilon(), std::isfinite(delta) && delta < 1 ? delta : 1.0);
}

// ---- named conversions -------------------------------------------------------

/// eps-DP is (eps, 0)-DP.
inline approx_dp to_approx_dp(const pure_dp& g) {
  return approx_dp(g.epsilon(), 0.0);
}

/// eps-DP up to total variation tau is (eps, (1 + e^eps) tau)-DP
/// (add_total_variation).
inline approx_dp to_approx_dp(const within_tv<pure_dp>& g) {
  return add_total_variation(to_approx_dp(g.base()), g.total_variation());
}

/// eps-DP implies (eps^2 / 2)-zCDP (Bun & Steinke 2016, Proposition 1.4).
inline zcdp to_zcdp(const pure_dp& g) {
  return zcdp(g.epsilon() * g.epsilon() / 2);
}

/// mu-GDP implies (mu^2 / 2)-zCDP: the Renyi divergences of N(0,1) and
/// N(mu,1) are alpha mu^2 / 2, and every mu-GDP pair is a post-processing of
/// that pair (Dong, Roth & Su 2022, Proposition 2.10 and Blackwell's theorem).
inline zcdp to_zcdp(const gdp& g) {
  return zcdp(g.mu() * g.mu() / 2);
}

/// rho-zCDP implies (rho + 2 sqrt(rho ln(1/delta)), delta)-DP for delta in
/// (0, 1) (Bun & Steinke 2016, Proposition 1.3). The accounting layer has the
/// tighter conversion of Canonne, Kamath & Steinke (2020).
inline approx_dp to_approx_dp_bun_steinke(const zcdp& g, double delta) {
  validate_delta_positive(delta);
  const double rho = g.rho();
  return approx_dp(rho + 2 * std::sqrt(rho * std::log(1 / delta)), delta);
}

// ---- printing ----------------------------------------------------------------

/// One-line description of a guarantee with its parameters, for logs and
/// reports: "epsilon = 1 (pure DP)".
inline std::string to_string(const pure_dp& g) {
  return "epsilon = " + detail::format_value(g.epsilon()) + " (pure DP)";
}
/// "epsilon = ..., delta = ... (approximate DP)".
inline std::string to_string(const approx_dp& g) {
  return "epsilon = " + detail::format_value(g.epsilon()) +
         ", delta = " + detail::format_value(g.delta()) + " (approximate DP)";
}
/// "rho = ... (zCDP)".
inline std::string to_string(const zcdp& g) {
  return "rho = " + detail::format_value(g.rho()) + " (zCDP)";
}
/// "mu = ... (Gaussian DP)".
inline std::string to_string(const gdp& g) {
  return "mu = " + detail::format_value(g.mu()) + " (Gaussian DP)";
}
/// The base's description, then "within total variation ...".
template <tv_qualifiable Base>
std::string to_string(const within_tv<Base>& g) {
  return to_string(g.base()) + " within total variation " +
         detail::format_value(g.total_variation());
}

// On any basic_ostream, so that <iosfwd> suffices here: <ostream> costs about
// 37 k preprocessed lines, and whoever prints has included it.
/// Writes to_string(g).
template <class Char, class Traits, guarantee G>
std::basic_ostream<Char, Traits>& operator<<(std::basic_ostream<Char, Traits>& os, const G& g) {
  return os << to_string(g);
}

}  // namespace privet
