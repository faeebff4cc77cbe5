// privet/mechanisms/discrete_gaussian.hpp — the discrete Gaussian on the
// integers, P[x] proportional to exp(-x^2 / (2 sigma^2)), sampled exactly
// (Canonne, Kamath & Steinke 2020, Algorithm 3): discrete Laplace proposals
// with scale t = floor(sigma) + 1, accepted with probability
// exp(-(|y| - sigma^2 / t)^2 / (2 sigma^2)). sigma^2 = num / den is a
// rational of 64-bit integers; the acceptance exponent is formed exactly in
// 256-bit integers.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/bernoulli.hpp>
#include <privet/mechanisms/discrete_laplace.hpp>

#include <boost/multiprecision/cpp_int.hpp>

#include <cmath>
#include <cstdint>
#include <numeric>

namespace privet {

class discrete_gaussian_distribution {
 public:
  /// sigma^2 = sigma2_num / sigma2_den, both in [1, 2^62).
  discrete_gaussian_distribution(std::uint64_t sigma2_num, std::uint64_t sigma2_den)
      : num_(check(sigma2_num, "sigma2_num")),
        den_(check(sigma2_den, "sigma2_den")),
        t_(isqrt(num_ / den_) + 1),
        proposal_(t_, 1) {
    const std::uint64_t g = std::gcd(num_, den_);
    num_ /= g;
    den_ /= g;
  }

  template <random_bit_source G>
  std::int64_t operator()(G& gen) const {
    using boost::multiprecision::int256_t;
    using boost::multiprecision::uint256_t;
    // exponent = (|y| - sigma^2/t)^2 / (2 sigma^2) = (|y| t den - num)^2 / (2 num den t^2)
    const uint256_t denominator = uint256_t(2) * num_ * den_ * t_ * t_;
    for (;;) {
      const std::int64_t y = proposal_(gen);
      const int256_t diff = int256_t(y < 0 ? -y : y) * t_ * den_ - int256_t(num_);
      const uint256_t numerator = uint256_t(diff * diff);
      if (bernoulli_exp(gen, numerator, denominator)) return y;
    }
  }

  [[nodiscard]] double sigma2() const noexcept {
    return static_cast<double>(num_) / static_cast<double>(den_);
  }
  [[nodiscard]] std::uint64_t sigma2_num() const noexcept { return num_; }
  [[nodiscard]] std::uint64_t sigma2_den() const noexcept { return den_; }

  /// exp(-x^2 / (2 sigma^2)) / Z, with Z summed numerically (for tests).
  [[nodiscard]] double pmf(std::int64_t x) const {
    return std::exp(-static_cast<double>(x) * static_cast<double>(x) / (2 * sigma2())) /
           normaliser();
  }

  /// Sum of x^2 pmf(x), numerically (at most sigma^2, Canonne et al. Prop. 19).
  [[nodiscard]] double variance() const {
    double v = 0;
    const auto r = range();
    for (std::int64_t x = 1; x <= r; ++x)
      v += 2 * static_cast<double>(x) * static_cast<double>(x) * pmf(x);
    return v;
  }

 private:
  static std::uint64_t check(std::uint64_t v, const char* name) {
    if (v == 0 || v >= (std::uint64_t{1} << 62)) throw_invalid(name, v, "[1, 2^62)");
    return v;
  }
  static std::uint64_t isqrt(std::uint64_t n) {
    auto r = static_cast<std::uint64_t>(std::sqrt(static_cast<double>(n)));
    while (r * r > n) --r;
    while ((r + 1) * (r + 1) <= n) ++r;
    return r;
  }
  [[nodiscard]] std::int64_t range() const {
    return static_cast<std::int64_t>(40 * std::sqrt(sigma2())) + 40;
  }
  [[nodiscard]] double normaliser() const {
    double z = 1;
    const auto r = range();
    for (std::int64_t x = 1; x <= r; ++x)
      z += 2 * std::exp(-static_cast<double>(x) * static_cast<double>(x) / (2 * sigma2()));
    return z;
  }

  std::uint64_t num_;
  std::uint64_t den_;
  std::uint64_t t_;
  discrete_laplace_distribution proposal_;
};

}  // namespace privet
