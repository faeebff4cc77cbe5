// privet/mechanisms/detail/big_uint.hpp — an unsigned integer of any size,
// with just what the exact coins need: shifts, +, -, *, floor division,
// bitwise and/or, comparison and a correctly rounded conversion to double.
//
// Why not Boost.Multiprecision's cpp_int: it made every translation unit
// that includes a Laplace or Gaussian mechanism preprocess about 90 k more
// lines (a third of the quick start's compile time), for a few hundred
// operations on numbers of a few thousand bits. The arithmetic here is the
// schoolbook kind: products by the O(n m) limb loop, division by Knuth's
// Algorithm D (Knuth, "The Art of Computer Programming", vol. 2, 3rd ed.,
// 1997, section 4.3.1), each result exact. tests/mechanisms/big_uint_test.cpp
// checks every operation against cpp_int on random operands and the
// boundary cases of Algorithm D (the q-hat correction and the add-back step).
#pragma once

#include <privet/core/detail/int128.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace privet::detail {

class big_uint {
 public:
  big_uint() = default;
  /// Implicit from a 64-bit word, so that big_uint u = word and u + 1 read
  /// as with a built-in integer (a negative int converts modulo 2^64: pass
  /// only non-negative values).
  big_uint(std::uint64_t v) {  // NOLINT(google-explicit-constructor)
    if (v != 0) limbs_.push_back(v);
  }

  /// Number of significant bits (0 for zero).
  [[nodiscard]] int bit_width() const {
    if (limbs_.empty()) return 0;
    return static_cast<int>(64 * (limbs_.size() - 1) + std::bit_width(limbs_.back()));
  }
  [[nodiscard]] bool is_zero() const { return limbs_.empty(); }
  /// Little-endian 64-bit limbs, without leading zero limbs.
  [[nodiscard]] const std::vector<std::uint64_t>& limbs() const { return limbs_; }

  /// The low bits of the value (all of it when it fits T), as Boost's
  /// convert_to does for values that fit.
  template <std::unsigned_integral T>
  [[nodiscard]] T convert_to() const {
    return limbs_.empty() ? T(0) : static_cast<T>(limbs_[0]);
  }

  /// The nearest double (ties to even), infinity beyond the double range.
  explicit operator double() const {
    const int width = bit_width();
    if (width <= 64) return static_cast<double>(convert_to<std::uint64_t>());
    // The top 64 bits, with every lower bit folded into the last one (a
    // sticky bit): 64 >= 53 + 2 bits keep the round-to-nearest-even decision
    // of the conversion the same as for the full value.
    const int shift = width - 64;
    const big_uint top = *this >> shift;
    std::uint64_t t = top.convert_to<std::uint64_t>();
    if (!((top << shift) == *this)) t |= 1;
    return std::ldexp(static_cast<double>(t), shift);
  }

  friend bool operator==(const big_uint& a, const big_uint& b) = default;
  friend std::strong_ordering operator<=>(const big_uint& a, const big_uint& b) {
    if (a.limbs_.size() != b.limbs_.size()) return a.limbs_.size() <=> b.limbs_.size();
    for (std::size_t i = a.limbs_.size(); i-- > 0;) {
      if (a.limbs_[i] != b.limbs_[i]) return a.limbs_[i] <=> b.limbs_[i];
    }
    return std::strong_ordering::equal;
  }

  big_uint& operator<<=(int bits) {
    if (limbs_.empty() || bits <= 0) return *this;
    const auto words = static_cast<std::size_t>(bits / 64);
    const int rest = bits % 64;
    if (rest != 0) {
      std::uint64_t carry = 0;
      for (auto& limb : limbs_) {
        const std::uint64_t next = limb >> (64 - rest);
        limb = (limb << rest) | carry;
        carry = next;
      }
      if (carry != 0) limbs_.push_back(carry);
    }
    limbs_.insert(limbs_.begin(), words, 0);
    return *this;
  }

  big_uint& operator>>=(int bits) {
    if (bits <= 0) return *this;
    const auto words = static_cast<std::size_t>(bits / 64);
    if (words >= limbs_.size()) {
      limbs_.clear();
      return *this;
    }
    limbs_.erase(limbs_.begin(), limbs_.begin() + static_cast<std::ptrdiff_t>(words));
    const int rest = bits % 64;
    if (rest != 0) {
      for (std::size_t i = 0; i < limbs_.size(); ++i) {
        const std::uint64_t high = i + 1 < limbs_.size() ? limbs_[i + 1] << (64 - rest) : 0;
        limbs_[i] = (limbs_[i] >> rest) | high;
      }
    }
    trim();
    return *this;
  }

  friend big_uint operator<<(big_uint a, int bits) { return a <<= bits; }
  friend big_uint operator>>(big_uint a, int bits) { return a >>= bits; }

  big_uint& operator+=(const big_uint& b) {
    if (limbs_.size() < b.limbs_.size()) limbs_.resize(b.limbs_.size(), 0);
    std::uint64_t carry = 0;
    for (std::size_t i = 0; i < limbs_.size(); ++i) {
      if (i >= b.limbs_.size() && carry == 0) break;
      const uint128 s =
          static_cast<uint128>(limbs_[i]) + (i < b.limbs_.size() ? b.limbs_[i] : 0) + carry;
      limbs_[i] = static_cast<std::uint64_t>(s);
      carry = static_cast<std::uint64_t>(s >> 64);
    }
    if (carry != 0) limbs_.push_back(carry);
    return *this;
  }

  /// *this - b for b <= *this (the callers only subtract a smaller value).
  big_uint& operator-=(const big_uint& b) {
    std::uint64_t borrow = 0;
    for (std::size_t i = 0; i < limbs_.size(); ++i) {
      if (i >= b.limbs_.size() && borrow == 0) break;
      const std::uint64_t bi = i < b.limbs_.size() ? b.limbs_[i] : 0;
      const std::uint64_t d = limbs_[i] - bi - borrow;
      borrow = (limbs_[i] < bi || (limbs_[i] == bi && borrow != 0)) ? 1 : 0;
      limbs_[i] = d;
    }
    trim();
    return *this;
  }

  big_uint& operator++() { return *this += big_uint(1); }

  friend big_uint operator+(big_uint a, const big_uint& b) { return a += b; }
  friend big_uint operator-(big_uint a, const big_uint& b) { return a -= b; }

  friend big_uint operator*(const big_uint& a, const big_uint& b) {
    big_uint out;
    if (a.limbs_.empty() || b.limbs_.empty()) return out;
    out.limbs_.assign(a.limbs_.size() + b.limbs_.size(), 0);
    for (std::size_t i = 0; i < a.limbs_.size(); ++i) {
      std::uint64_t carry = 0;
      for (std::size_t j = 0; j < b.limbs_.size(); ++j) {
        const uint128 t =
            static_cast<uint128>(a.limbs_[i]) * b.limbs_[j] + out.limbs_[i + j] + carry;
        out.limbs_[i + j] = static_cast<std::uint64_t>(t);
        carry = static_cast<std::uint64_t>(t >> 64);
      }
      out.limbs_[i + b.limbs_.size()] = carry;
    }
    out.trim();
    return out;
  }

  friend big_uint operator&(const big_uint& a, const big_uint& b) {
    big_uint out;
    out.limbs_.resize(std::min(a.limbs_.size(), b.limbs_.size()));
    for (std::size_t i = 0; i < out.limbs_.size(); ++i) out.limbs_[i] = a.limbs_[i] & b.limbs_[i];
    out.trim();
    return out;
  }

  friend big_uint operator|(const big_uint& a, const big_uint& b) {
    big_uint out = a.limbs_.size() >= b.limbs_.size() ? a : b;
    const big_uint& other = a.limbs_.size() >= b.limbs_.size() ? b : a;
    for (std::size_t i = 0; i < other.limbs_.size(); ++i) out.limbs_[i] |= other.limbs_[i];
    return out;
  }

  /// (floor(a / b), a mod b) for b != 0 (b == 0 is a caller's bug: the
  /// quotient is then 0 and the remainder a).
  static std::pair<big_uint, big_uint> divide(const big_uint& a, const big_uint& b) {
    if (b.limbs_.empty() || a < b) return {big_uint(), a};
    if (b.limbs_.size() == 1) return divide_by_word(a, b.limbs_[0]);
    return knuth_divide(a, b);
  }

  friend big_uint operator/(const big_uint& a, const big_uint& b) { return divide(a, b).first; }
  friend big_uint operator%(const big_uint& a, const big_uint& b) { return divide(a, b).second; }

 private:
  void trim() {
    while (!limbs_.empty() && limbs_.back() == 0) limbs_.pop_back();
  }

  static std::pair<big_uint, big_uint> divide_by_word(const big_uint& a, std::uint64_t d) {
    big_uint q;
    q.limbs_.resize(a.limbs_.size());
    uint128 r = 0;
    for (std::size_t i = a.limbs_.size(); i-- > 0;) {
      const uint128 cur = (r << 64) | a.limbs_[i];
      q.limbs_[i] = static_cast<std::uint64_t>(cur / d);
      r = cur % d;
    }
    q.trim();
    return {std::move(q), big_uint(static_cast<std::uint64_t>(r))};
  }

  // Algorithm D for a divisor of n >= 2 limbs and a >= b: normalise so that
  // the divisor's top limb has its high bit set, then find each quotient
  // limb from an estimate q-hat off by at most 2 (fixed by the two-limb test
  // below, which leaves it off by at most 1) and one add-back when the
  // subtraction goes negative.
  static std::pair<big_uint, big_uint> knuth_divide(const big_uint& a, const big_uint& b) {
    const std::size_t n = b.limbs_.size();
    const std::size_t m = a.limbs_.size() - n;
    const int s = std::countl_zero(b.limbs_.back());
    const std::vector<std::uint64_t> v = (b << s).limbs_;
    std::vector<std::uint64_t> u = (a << s).limbs_;
    u.resize(a.limbs_.size() + 1, 0);
    big_uint q;
    q.limbs_.assign(m + 1, 0);
    constexpr uint128 base = static_cast<uint128>(1) << 64;
    for (std::size_t j = m + 1; j-- > 0;) {
      const uint128 num = (static_cast<uint128>(u[j + n]) << 64) | u[j + n - 1];
      uint128 qhat = num / v[n - 1];
      uint128 rhat = num % v[n - 1];
      while (qhat >= base || qhat * v[n - 2] > ((rhat << 64) | u[j + n - 2])) {
        --qhat;
        rhat += v[n - 1];
        if (rhat >= base) break;
      }
      // u[j .. j + n] -= qhat * v, with a signed running borrow.
      int128 borrow = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const uint128 p = qhat * v[i];
        const int128 t = static_cast<int128>(u[i + j]) - borrow -
                         static_cast<int128>(static_cast<std::uint64_t>(p));
        u[i + j] = static_cast<std::uint64_t>(t);
        borrow = static_cast<int128>(p >> 64) - (t >> 64);
      }
      const int128 t = static_cast<int128>(u[j + n]) - borrow;
      u[j + n] = static_cast<std::uint64_t>(t);
      if (t < 0) {  // qhat was one too large: add v back
        --qhat;
        std::uint64_t carry = 0;
        for (std::size_t i = 0; i < n; ++i) {
          const uint128 sum = static_cast<uint128>(u[i + j]) + v[i] + carry;
          u[i + j] = static_cast<std::uint64_t>(sum);
          carry = static_cast<std::uint64_t>(sum >> 64);
        }
        u[j + n] += carry;
      }
      q.limbs_[j] = static_cast<std::uint64_t>(qhat);
    }
    q.trim();
    big_uint r;
    r.limbs_.assign(u.begin(), u.begin() + static_cast<std::ptrdiff_t>(n));
    r.trim();
    r >>= s;
    return {std::move(q), std::move(r)};
  }

  std::vector<std::uint64_t> limbs_;  // little-endian, no leading zero limb
};

}  // namespace privet::detail
