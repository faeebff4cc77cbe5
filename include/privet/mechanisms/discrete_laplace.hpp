// privet/mechanisms/discrete_laplace.hpp — the discrete Laplace (two-sided
// geometric) distribution on the integers, P[x] proportional to
// exp(-|x| / t), sampled exactly with integer arithmetic and random bits
// (Canonne, Kamath & Steinke 2020, Algorithm 2). The scale t is a rational
// num / den of 64-bit integers; a double scale is taken at its exact binary
// value.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/int128.hpp>
#include <privet/core/error.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/bernoulli.hpp>
#include <privet/mechanisms/detail/dyadic.hpp>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <utility>

namespace privet {

class discrete_laplace_distribution {
 public:
  /// Scale t = scale_num / scale_den; both in [1, 2^62).
  discrete_laplace_distribution(std::uint64_t scale_num, std::uint64_t scale_den)
      : num_(check(scale_num, "scale_num")), den_(check(scale_den, "scale_den")) {
    const std::uint64_t g = std::gcd(num_, den_);
    num_ /= g;
    den_ /= g;
  }

  /// Scale given as a double, used at its exact binary value.
  explicit discrete_laplace_distribution(double scale)
      : discrete_laplace_distribution(detail::exact_dyadic(scale, "scale")) {}

  template <random_bit_source G>
  std::int64_t operator()(G& gen) const {
    // Algorithm 2 with t = num_, s = den_: X = U + t V is geometric with
    // parameter exp(-1/t) (U uniform in [0, t) accepted with probability
    // exp(-U/t), V geometric with parameter exp(-1)); Y = floor(X / s) is then
    // geometric with parameter exp(-s/t), and a random sign (rejecting -0)
    // makes it discrete Laplace with scale t / s.
    for (;;) {
      const std::uint64_t u = uniform_below(gen, num_);
      if (!bernoulli_exp(gen, u, num_)) continue;
      std::uint64_t v = 0;
      while (bernoulli_exp(gen, std::uint64_t{1}, std::uint64_t{1})) ++v;
      const detail::uint128 x =
          static_cast<detail::uint128>(u) + static_cast<detail::uint128>(num_) * v;
      const detail::uint128 y = x / den_;
      const bool negative = random_bit(gen);
      if (negative && y == 0) continue;
      if (y > static_cast<detail::uint128>(INT64_MAX)) {
        throw overflow_error(
            "privet: a discrete Laplace sample exceeds the int64 range; allowed: |x| < 2^63");
      }
      const auto magnitude = static_cast<std::int64_t>(y);
      return negative ? -magnitude : magnitude;
    }
  }

  [[nodiscard]] std::uint64_t scale_num() const noexcept { return num_; }
  [[nodiscard]] std::uint64_t scale_den() const noexcept { return den_; }
  [[nodiscard]] double scale() const noexcept {
    return static_cast<double>(num_) / static_cast<double>(den_);
  }

  /// P[x] = (1 - q) / (1 + q) q^|x| with q = exp(-1/t).
  [[nodiscard]] double pmf(std::int64_t x) const {
    const double q = std::exp(-1.0 / scale());
    return (1 - q) / (1 + q) * std::pow(q, static_cast<double>(x < 0 ? -x : x));
  }

  /// Var = 2 q / (1 - q)^2.
  [[nodiscard]] double variance() const {
    const double q = std::exp(-1.0 / scale());
    return 2 * q / ((1 - q) * (1 - q));
  }

 private:
  explicit discrete_laplace_distribution(std::pair<std::uint64_t, std::uint64_t> r)
      : discrete_laplace_distribution(r.first, r.second) {}

  static std::uint64_t check(std::uint64_t v, const char* name) {
    if (v == 0 || v >= (std::uint64_t{1} << 62)) throw_invalid(name, v, "[1, 2^62)");
    return v;
  }

  std::uint64_t num_;
  std::uint64_t den_;
};

}  // namespace privet
