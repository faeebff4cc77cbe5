// privet/mechanisms/discrete_laplace.hpp — the discrete Laplace (two-sided
// geometric) distribution on the integers, P[x] proportional to exp(-|x| / t),
// sampled exactly from random bits with integer arithmetic (Canonne, Kamath &
// Steinke 2020, "The Discrete Gaussian for Differential Privacy",
// Algorithm 2). The scale t is a rational of two 64-bit integers; a double
// scale is taken at its exact binary value, so no rounding of the scale can
// weaken a privacy guarantee computed from it.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/detail/int128.hpp>
#include <privet/core/error.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/bernoulli.hpp>
#include <privet/mechanisms/detail/binary_value.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <utility>

namespace privet {

/// The discrete Laplace distribution with scale t > 0: P[x] = tanh(1 / (2t))
/// exp(-|x| / t) for every integer x. Sampling is exact and takes O(1)
/// expected 64-bit draws (about ten) for every scale, from 2^-63 to 2^64.
class discrete_laplace_distribution {
 public:
  using result_type = std::int64_t;  ///< The sample type.

  /// Scale t = scale_num / scale_den, each in [1, 2^64 - 1]; stored in lowest
  /// terms. Throws invalid_parameter naming the zero argument.
  discrete_laplace_distribution(std::uint64_t scale_num, std::uint64_t scale_den)
      : num_(check_positive(scale_num, "scale_num")), den_(check_positive(scale_den, "scale_den")) {
    const std::uint64_t g = std::gcd(num_, den_);
    num_ /= g;
    den_ /= g;
    overflow_at_ = static_cast<detail::uint128>(den_) << 63;
  }

  /// Scale given as a double, used at its exact binary value num / 2^k.
  /// Throws invalid_parameter unless it is finite, > 0, below 2^64 and has
  /// k <= 63; every double in [2^-11, 2^64) qualifies (and smaller ones with
  /// few significant bits, such as powers of two down to 2^-63).
  explicit discrete_laplace_distribution(double scale)
      : discrete_laplace_distribution(exact_scale(scale)) {}

  /// One sample. Throws overflow_error if the sample's magnitude is 2^63 or
  /// more (probability about exp(-2^63 / t): only scales near 2^60 and
  /// above ever see it).
  template <random_bit_source G>
  std::int64_t operator()(G& gen) const {
    // With t = num_ and s = den_ (Algorithm 2): U uniform in [0, t) kept with
    // probability exp(-U / t), plus t times V ~ Geometric(exp(-1)), is
    // X ~ Geometric(exp(-1 / t)) in O(1) coins, where tossing exp(-1 / t)
    // coins directly would take about t of them. floor(X / s) is then
    // Geometric(exp(-s / t)), and a random sign gives the two-sided law.
    for (;;) {
      const std::uint64_t u = num_ == 1 ? 0 : uniform_below(gen, num_);
      if (!detail::bernoulli_exp_unit(gen, u, num_)) continue;
      detail::uint128 x = u;
      // Checked as X grows: X < 2^63 s + 2^64 < 2^128 can never wrap, and
      // once X >= 2^63 s the magnitude cannot fit, whatever follows.
      while (detail::bernoulli_exp_minus_one(gen)) {
        x += num_;
        if (x >= overflow_at_) throw_overflow();
      }
      if (x >= overflow_at_) throw_overflow();
      const std::uint64_t y = magnitude(x);
      const bool negative = random_bit(gen);
      // Both signs map to 0; rejecting "-0" gives 0 its single share.
      if (negative && y == 0) continue;
      const auto m = static_cast<std::int64_t>(y);
      return negative ? -m : m;
    }
  }

  /// The numerator of the scale t = scale_num() / scale_den() exactly, in
  /// lowest terms.
  [[nodiscard]] std::uint64_t scale_num() const noexcept { return num_; }
  /// The denominator of the scale t.
  [[nodiscard]] std::uint64_t scale_den() const noexcept { return den_; }
  /// t, rounded to the nearest double.
  [[nodiscard]] double scale() const noexcept {
    return static_cast<double>(num_) / static_cast<double>(den_);
  }

  /// P[x] = (1 - q) / (1 + q) q^|x| with q = exp(-1 / t), written as
  /// tanh(1 / (2t)) exp(-|x| / t), which stays accurate when q is near 1.
  [[nodiscard]] double pmf(std::int64_t x) const {
    const double inv = inverse_scale();
    return std::tanh(inv / 2) * std::exp(-inv * std::fabs(static_cast<double>(x)));
  }

  /// Var = 2q / (1 - q)^2 = 1 / (2 sinh^2(1 / (2t))); the mean is 0.
  [[nodiscard]] double variance() const {
    const double s = std::sinh(inverse_scale() / 2);
    return 1 / (2 * s * s);
  }

 private:
  explicit discrete_laplace_distribution(std::pair<std::uint64_t, std::uint64_t> r)
      : discrete_laplace_distribution(r.first, r.second) {}

  static std::uint64_t check_positive(std::uint64_t v, const char* name) {
    if (v == 0) throw_invalid(name, v, "[1, 2^64 - 1]");
    return v;
  }

  static std::pair<std::uint64_t, std::uint64_t> exact_scale(double scale) {
    validate_positive(scale, "scale");
    const auto [m, e] = detail::exact_binary_value(scale);
    if (e >= 0 && std::bit_width(m) + e <= 64) return {m << e, 1};
    if (e < 0 && e >= -63) return {m, std::uint64_t{1} << -e};
    throw_invalid("scale", scale,
                  "finite, > 0 and exactly num / 2^k with num < 2^64 and k <= 63 (every double "
                  "in [2^-11, 2^64) is)");
  }

  [[noreturn]] void throw_overflow() const {
    throw overflow_error("privet: a discrete Laplace sample with scale " +
                         detail::format_value(num_) + "/" + detail::format_value(den_) +
                         " does not fit in int64; allowed: |x| <= 2^63 - 1");
  }

  [[nodiscard]] std::uint64_t magnitude(detail::uint128 x) const {
    if (den_ == 1) return static_cast<std::uint64_t>(x);
    if ((x >> 64) == 0) return static_cast<std::uint64_t>(x) / den_;  // the cheap division
    return static_cast<std::uint64_t>(x / den_);
  }

  [[nodiscard]] double inverse_scale() const noexcept {
    return static_cast<double>(den_) / static_cast<double>(num_);
  }

  std::uint64_t num_;
  std::uint64_t den_;
  detail::uint128 overflow_at_ = 0;  // 2^63 den_: the least X whose floor(X / den_) overflows
};

}  // namespace privet
