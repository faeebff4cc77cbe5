// privet/accounting/gdp.hpp — Gaussian differential privacy (Dong, Roth &
// Su 2022): the Gaussian mechanism with noise sigma on inputs D apart is
// exactly (D / sigma)-GDP, and mu_i-GDP mechanisms compose to
// sqrt(sum mu_i^2)-GDP (their Corollary 3.3), with no loss. For Gaussian
// mechanisms of L2 sensitivity 1 this is DPNE's rule (Kim, Gopi, Kulkarni &
// Yekhanin 2021, "Differentially Private n-gram Extraction", NeurIPS,
// Theorem 2.1): noises sigma_1..sigma_T act as one Gaussian with
// 1 / sigma*^2 = sum 1 / sigma_k^2, and spread_sigma goes the other way,
// splitting a calibrated sigma* over T steps without exceeding it. The
// exact conversion of mu-GDP to (eps, delta) and its inverse (the analytic
// Gaussian) are in core/analytic_gaussian.hpp, included here.
#pragma once

#include <privet/core/analytic_gaussian.hpp>
#include <privet/core/detail/rounding.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/validate.hpp>

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace privet {

/// The Gaussian mechanism with standard deviation sigma on inputs
/// `l2_sensitivity` apart is exactly mu-GDP with mu = D / sigma.
inline gdp gdp_gaussian(double sigma, double l2_sensitivity = 1) {
  validate_positive(sigma, "sigma");
  validate_non_negative(l2_sensitivity, "l2_sensitivity");
  return gdp(detail::div_up(l2_sensitivity, sigma));
}

/// Composition: sqrt(sum mu_i^2)-GDP (rounded up).
inline gdp compose(const std::vector<gdp>& parts) {
  if (parts.empty()) throw_empty("parts");
  double sum = 0;
  for (const auto& p : parts) sum = detail::add_up(sum, detail::mul_up(p.mu(), p.mu()));
  return gdp(detail::sqrt_up(sum));
}

/// The single noise equivalent to Gaussian noises sigma_k on one unit of L2
/// sensitivity each: (sum sigma_k^-2)^(-1/2), rounded down, so a guarantee
/// computed from it is never stronger than the composition's.
inline double combined_sigma(const std::vector<double>& sigmas) {
  if (sigmas.empty()) throw_empty("sigmas");
  double inv = 0;
  for (std::size_t i = 0; i < sigmas.size(); ++i) {
    validate_positive(sigmas[i], "sigmas[" + std::to_string(i) + "]");
    inv = detail::add_up(inv, detail::div_up(1.0, detail::mul_up(sigmas[i], sigmas[i])));
  }
  // 1 / sqrt(inv) with inv rounded up is not above the true value.
  return 1 / detail::sqrt_up(inv) * (1 - 1e-15);
}

/// sigma_1..sigma_T with sigma_k = sigma_1 c^(k-1) (c = 1: all equal; c < 1:
/// later steps get less noise) whose combination is at least sigma_total, so
/// spending them never exceeds the guarantee calibrated for sigma_total.
inline std::vector<double> spread_sigma(double sigma_total, std::size_t steps, double c = 1) {
  validate_positive(sigma_total, "sigma_total");
  validate_at_least<std::size_t>(steps, 1, "steps");
  if (!(c > 0 && c <= 1)) throw_invalid("c", c, "(0, 1]");
  // 1 / sigma*^2 = sum_k c^(-2(k-1)) / sigma_1^2.
  double weight = 0;
  for (std::size_t k = 0; k < steps; ++k) weight += std::pow(c, -2.0 * static_cast<double>(k));
  std::vector<double> out(steps);
  double first = sigma_total * std::sqrt(weight);
  for (;;) {
    for (std::size_t k = 0; k < steps; ++k) out[k] = first * std::pow(c, static_cast<double>(k));
    if (combined_sigma(out) >= sigma_total) return out;
    first = detail::next_up(first * (1 + 1e-15));  // absorb the rounding above
  }
}

}  // namespace privet
