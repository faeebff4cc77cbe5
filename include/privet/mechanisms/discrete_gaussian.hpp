// privet/mechanisms/discrete_gaussian.hpp — the discrete Gaussian on the
// integers, P[x] proportional to exp(-x^2 / (2 sigma^2)), sampled exactly
// from random bits with integer arithmetic (Canonne, Kamath & Steinke 2020,
// "The Discrete Gaussian for Differential Privacy", Algorithm 3): a discrete
// Laplace proposal Y with scale t = floor(sigma) + 1 is accepted with
// probability exp(-(|Y| - sigma^2 / t)^2 / (2 sigma^2)).
//
// sigma^2 = a / b is a rational of 64-bit integers. The acceptance exponent is
// k^2 / D with k = | |Y| b t - a | < 2^128 and D = 2 a b t^2; the range of
// (a, b) is limited to D < 2^128, and k^2 (up to 256 bits) is never divided:
// one exp(-1) coin is tossed per unit of k^2 / D while D is subtracted, and
// the first failure ends it. Everything fits unsigned __int128.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/detail/int128.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/bernoulli.hpp>
#include <privet/mechanisms/discrete_laplace.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <numeric>
#include <optional>
#include <string>

namespace privet {

namespace detail {

/// hi 2^128 + lo: just the arithmetic that k^2 - m D needs.
struct u256 {
  uint128 hi;
  uint128 lo;
};

inline u256 square_u256(uint128 k) {
  const uint128 kh = k >> 64;
  const uint128 kl = static_cast<std::uint64_t>(k);
  const uint128 mid = kh * kl;  // contributes 2 mid 2^64
  u256 r{kh * kh, kl * kl};
  const uint128 add_lo = mid << 65;
  const uint128 add_hi = mid >> 63;  // the bits of 2 mid 2^64 above 2^128
  r.lo += add_lo;
  r.hi += add_hi + (r.lo < add_lo ? 1 : 0);
  return r;
}

/// Bernoulli(exp(-k^2 / d)) exactly, for k < 2^128 and 1 <= d < 2^128.
template <random_bit_source G>
bool bernoulli_exp_square(G& gen, uint128 k, uint128 d) {
  u256 r = square_u256(k);
  // exp(-1) per whole unit of k^2 / d; floor(k^2 / d) itself, up to 2^255,
  // is never needed because the first failing coin ends the loop (fewer than
  // 1.6 rounds on average).
  while (r.hi != 0 || r.lo >= d) {
    if (!bernoulli_exp_minus_one(gen)) return false;
    if (r.lo < d) --r.hi;
    r.lo -= d;
  }
  return bernoulli_exp_unit(gen, r.lo, d);
}

inline int bit_width_u128(uint128 x) {
  const auto high = static_cast<std::uint64_t>(x >> 64);
  return high != 0 ? 64 + std::bit_width(high) : std::bit_width(static_cast<std::uint64_t>(x));
}

inline std::uint64_t isqrt_u64(std::uint64_t n) {
  auto r = static_cast<std::uint64_t>(std::sqrt(static_cast<double>(n)));
  while (static_cast<uint128>(r) * r > n) --r;
  while (static_cast<uint128>(r + 1) * (r + 1) <= n) ++r;
  return r;
}

}  // namespace detail

/// The discrete Gaussian with variance parameter sigma^2 > 0 (its variance
/// is slightly below sigma^2, see variance()). Sampling is exact; each sample
/// takes a few discrete Laplace proposals on average.
class discrete_gaussian_distribution {
 public:
  using result_type = std::int64_t;  ///< The sample type.

  /// sigma^2 = sigma2_num / sigma2_den, stored in lowest terms a / b.
  /// Supported: both >= 1 and 2 a b t^2 < 2^128 with t = floor(sigma) + 1;
  /// this holds whenever a and b are both below 2^62, and for b = 1 up to
  /// sigma^2 = 13043817824165068815 (sigma about 3.6e9). Throws
  /// invalid_parameter (`sigma2_num`, `sigma2_den` or `sigma2`) otherwise.
  discrete_gaussian_distribution(std::uint64_t sigma2_num, std::uint64_t sigma2_den)
      : discrete_gaussian_distribution(from_fraction(sigma2_num, sigma2_den)) {}

  /// From sigma (not sigma^2) as a double. sigma^2 is the exact square of the
  /// double when that is m / 2^k with m < 2^64, k <= 63 and in range (for
  /// example every sigma with at most 32 significant bits: integers below
  /// 2^32, 0.75, 2.5). Otherwise, as for 0.1, sigma^2 is rounded *up*, never
  /// down, to a multiple of 2^-k with the largest k <= 63 in range: relative
  /// error below 2^-60 for sigma >= 1 and below 2^-53 for sigma >= 2^-5
  /// (below 2^-31, sigma^2 becomes at least 2^-63, where every sample is 0
  /// but with probability exp(-2^61)). Throws invalid_parameter unless sigma
  /// is finite, > 0 and sigma^2 fits the range above (sigma up to about 3.6e9).
  explicit discrete_gaussian_distribution(double sigma)
      : discrete_gaussian_distribution(from_sigma(sigma)) {}

  /// One sample. Throws overflow_error only if a proposal's magnitude reaches
  /// 2^63, which for the supported t <= 2^32 + 1 has probability below
  /// exp(-2^30).
  template <random_bit_source G>
  std::int64_t operator()(G& gen) const {
    for (;;) {
      const std::int64_t y = proposal_(gen);
      const std::uint64_t m =
          y < 0 ? 0 - static_cast<std::uint64_t>(y) : static_cast<std::uint64_t>(y);
      // |y| - sigma^2 / t = (|y| b t - a) / (b t), so the exponent
      // (|y| - sigma^2 / t)^2 / (2 sigma^2) is k^2 / (2 a b t^2). |y| < 2^63
      // and b t < 2^65 keep the product below 2^128.
      const detail::uint128 ybt = static_cast<detail::uint128>(m) * bt_;
      const detail::uint128 k = ybt >= a_ ? ybt - a_ : a_ - ybt;
      if (detail::bernoulli_exp_square(gen, k, d_)) return y;
    }
  }

  /// The numerator a of sigma^2 = a / b exactly, in lowest terms.
  [[nodiscard]] std::uint64_t sigma2_num() const noexcept { return a_; }
  /// The denominator b of sigma^2 = a / b.
  [[nodiscard]] std::uint64_t sigma2_den() const noexcept { return b_; }
  /// sigma^2, rounded to the nearest double.
  [[nodiscard]] double sigma2() const noexcept {
    return static_cast<double>(a_) / static_cast<double>(b_);
  }
  /// sqrt(sigma2()), rounded.
  [[nodiscard]] double sigma() const noexcept { return std::sqrt(sigma2()); }
  /// The proposal's scale t = floor(sigma) + 1.
  [[nodiscard]] std::uint64_t proposal_scale() const noexcept { return proposal_.scale_num(); }

  /// exp(-x^2 / (2 sigma^2)) / Z, with the normaliser Z summed numerically.
  [[nodiscard]] double pmf(std::int64_t x) const {
    const double xd = static_cast<double>(x);
    return std::exp(-xd * xd / (2 * sigma2())) / sums().z;
  }

  /// E[x^2] (the mean is 0), summed numerically; below sigma^2 (Canonne et
  /// al., Proposition 19) and equal to it up to about 2e-8 relative for sigma >= 1.
  [[nodiscard]] double variance() const {
    const auto s = sums();
    return s.x2 / s.z;
  }

 private:
  struct parameters {
    std::uint64_t a, b, t;
    detail::uint128 bt, d;
  };

  explicit discrete_gaussian_distribution(const parameters& p)
      : a_(p.a), b_(p.b), bt_(p.bt), d_(p.d), proposal_(p.t, 1) {}

  // The reduced parameters, or nothing when 2 a b t^2 does not fit 128 bits.
  static std::optional<parameters> fit(std::uint64_t a, std::uint64_t b) {
    const std::uint64_t g = std::gcd(a, b);
    a /= g;
    b /= g;
    // floor(sqrt(floor(a / b))) = floor(sqrt(a / b)).
    const std::uint64_t t = detail::isqrt_u64(a / b) + 1;
    detail::uint128 d = static_cast<detail::uint128>(a) * b;
    if (__builtin_mul_overflow(d, detail::uint128{2} * t, &d)) return std::nullopt;
    if (__builtin_mul_overflow(d, detail::uint128{t}, &d)) return std::nullopt;
    // D < 2^128 already implies b t < 2^65 (for t >= 2 it needs a >= b, so
    // D >= 2 (b t)^2); the check keeps |y| b t below 2^128 explicit.
    const detail::uint128 bt = static_cast<detail::uint128>(b) * t;
    if ((bt >> 65) != 0) return std::nullopt;
    return parameters{a, b, t, bt, d};
  }

  static parameters from_fraction(std::uint64_t num, std::uint64_t den) {
    if (num == 0) throw_invalid("sigma2_num", num, ">= 1");
    if (den == 0) throw_invalid("sigma2_den", den, ">= 1");
    if (auto p = fit(num, den)) return *p;
    throw_invalid("sigma2", detail::format_value(num) + "/" + detail::format_value(den),
                  "2 num den (floor(sigma) + 1)^2 < 2^128 in lowest terms (true when num and den "
                  "are < 2^62; for den = 1, sigma^2 up to 13043817824165068815, sigma about "
                  "3.6e9)");
  }

  static parameters from_sigma(double sigma) {
    validate_positive(sigma, "sigma");
    const auto [m, e] = detail::exact_binary_value(sigma);
    if (m < (std::uint64_t{1} << 32)) {
      const std::uint64_t m2 = m * m;
      std::optional<parameters> p;
      if (e >= 0 && std::bit_width(m2) + 2 * e <= 64) {
        p = fit(m2 << (2 * e), 1);
      } else if (e < 0 && -2 * e <= 63) {
        p = fit(m2, std::uint64_t{1} << (-2 * e));
      }
      if (p) return *p;
    }
    // Round sigma^2 = m^2 2^(2e) up to ceil(m^2 2^(2e + k)) / 2^k, trying the
    // finest grid first. Rounding up only adds noise, so privacy is kept.
    const detail::uint128 m2 = static_cast<detail::uint128>(m) * m;  // < 2^106
    for (int k = 63; k >= 0; --k) {
      const int shift = 2 * e + k;
      detail::uint128 a = 0;
      if (shift >= 0) {
        if (detail::bit_width_u128(m2) + shift > 64) continue;
        a = m2 << shift;
      } else if (-shift >= 128) {
        a = 1;
      } else {
        const int s = -shift;
        const detail::uint128 low = m2 & ((detail::uint128{1} << s) - 1);
        a = (m2 >> s) + (low != 0 ? 1 : 0);
      }
      if ((a >> 64) != 0) continue;
      if (auto p = fit(static_cast<std::uint64_t>(a), std::uint64_t{1} << k)) return *p;
    }
    throw_invalid("sigma", sigma,
                  "finite, > 0 and with sigma^2 in the (sigma2_num, sigma2_den) range (sigma up "
                  "to about 3.6e9)");
  }

  struct moment_sums {
    double z;   // sum_x exp(-x^2 / (2 sigma^2))
    double x2;  // sum_x x^2 exp(-x^2 / (2 sigma^2))
  };

  // Whichever series converges faster: the direct sum for sigma < 1, and for
  // sigma >= 1 its Poisson-summation dual sqrt(2 pi) sigma sum_k
  // exp(-2 pi^2 sigma^2 k^2) (times sigma^2 (1 - 4 pi^2 sigma^2 k^2) for the
  // second moment), which needs two or three terms where the direct sum
  // would need about 80 sigma.
  [[nodiscard]] moment_sums sums() const {
    const double s2 = sigma2();
    moment_sums r{1, 0};
    if (s2 < 1) {
      for (double x = 1;; ++x) {
        const double w = std::exp(-x * x / (2 * s2));
        if (w < 1e-30) break;
        r.z += 2 * w;
        r.x2 += 2 * x * x * w;
      }
      return r;
    }
    const double c = 2 * std::numbers::pi * std::numbers::pi * s2;
    double z = 1, x2 = 1;
    for (double k = 1;; ++k) {
      const double w = std::exp(-c * k * k);
      if (w < 1e-30) break;
      z += 2 * w;
      x2 += 2 * (1 - 2 * c * k * k) * w;
    }
    const double root = std::sqrt(2 * std::numbers::pi * s2);
    return {root * z, root * s2 * x2};
  }

  std::uint64_t a_;
  std::uint64_t b_;
  detail::uint128 bt_;  // b t
  detail::uint128 d_;   // 2 a b t^2
  discrete_laplace_distribution proposal_;
};

}  // namespace privet
