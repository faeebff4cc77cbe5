// privet/accounting/detail/survival.hpp — a certified lower bound on a
// product of probabilities 1 - delta_i, kept in double-double.
//
// Basic composition gives an (eps, delta) pair its mass at +infinity
// 1 - prod (1 - delta_i) (the probability that some step reveals its input).
// In plain double arithmetic the product loses the last bits the answer
// needs: 1 - (1 - 0.1)(1 - 0.2) evaluates to 0.2799999999999999, below the
// true value, and a pessimistic rounding of the steps lands one ulp above it.
// Kept as an unevaluated sum hi + lo (relative error about 2^-104 per
// product) and lowered by 2^-100 of itself after every product, the bound
// stays below the exact product, and 1 - it rounds up to the double nearest
// above the exact mass: 0.28 for that example (the exact value is 0.44 ulp
// below the double 0.28).
#pragma once

#include <privet/core/detail/rounding.hpp>

#include <cmath>
#include <cstdint>

namespace privet::detail {

/// A lower bound hi + lo on a product of numbers in [0, 1]; 1 is the empty
/// product.
class survival {
 public:
  /// The empty product, 1.
  survival() = default;

  /// 1 - delta exactly, for delta in [0, 1].
  static survival complement_of(double delta) noexcept {
    survival s;
    // Knuth's two-sum: hi + lo = 1 - delta exactly.
    s.hi_ = 1 - delta;
    const double bb = s.hi_ - 1;
    s.lo_ = (1 - (s.hi_ - bb)) + (-delta - bb);
    return s;
  }

  /// No information: the product's lower bound 0.
  static survival zero() noexcept {
    survival s;
    s.hi_ = 0;
    return s;
  }

  /// A lower bound on the product of the two exact products bounded.
  [[nodiscard]] survival times(const survival& o) const noexcept {
    survival s;
    const double p = hi_ * o.hi_;
    if (!(p > 0x1p-900)) return zero();          // relative bounds below assume no underflow
    const double e0 = std::fma(hi_, o.hi_, -p);  // exact
    if (lo_ == 0 && o.lo_ == 0) {
      // hi hi' = p + e0 exactly: pure DP steps (1 x 1) stay exactly 1.
      s.hi_ = p + e0;
      s.lo_ = e0 - (s.hi_ - p);
      return s;
    }
    // The cross terms rounded, the lo lo' term (at most 2^-106 p) dropped.
    const double e = e0 + (hi_ * o.lo_ + lo_ * o.hi_);
    s.hi_ = p + e;
    s.lo_ = e - (s.hi_ - p);
    // The dropped and rounded terms are below 2^-102 p: 2^-100 p covers them.
    s.lo_ -= 0x1p-100 * p;
    return s;
  }

  /// A lower bound on the k-th power, by squaring.
  [[nodiscard]] survival power(std::uint64_t k) const noexcept {
    survival result, base = *this;
    while (k != 0) {
      if (k & 1) result = result.times(base);
      k >>= 1;
      if (k != 0) base = base.times(base);
    }
    return result;
  }

  /// The smallest double at or above 1 - (the bound), so at or above 1 -
  /// (the exact product).
  [[nodiscard]] double complement_up() const noexcept {
    // 1 - hi exactly as rh + rl; then rh + (rl - lo), each rounding
    // recovered, and the result raised one ulp unless the errors it left
    // out sum to at most 0.
    const double rh = 1 - hi_;
    const double b1 = rh - 1;
    const double rl = (1 - (rh - b1)) + (-hi_ - b1);
    const double t = rl - lo_;
    const double b2 = t - rl;
    const double et = (rl - (t - b2)) + (-lo_ - b2);
    const double x = rh + t;
    const double b3 = x - rh;
    const double ex = (rh - (x - b3)) + (t - b3);
    const double r = (ex > -et) ? next_up(x) : x;
    return r > 1 ? 1.0 : (r < 0 ? 0.0 : r);
  }

  /// The bound's leading part.
  [[nodiscard]] double value() const noexcept { return hi_ + lo_; }

 private:
  double hi_ = 1, lo_ = 0;
};

}  // namespace privet::detail
