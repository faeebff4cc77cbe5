// privet/crypto/fixed_point.hpp — fixed-point encoding of reals for Paillier:
// `scale<Base, Digits>` (the scale C = Base^Digits, a compile-time part of the
// type), `fixed_point<Int, S>` (a real x held as the integer mantissa
// round(C x)), and the map of a signed mantissa to a Paillier plaintext
// (negatives as n - |x|).
//
// Fixed point as in Pathak, Sharifi & Raj, "Privacy-preserving spam
// filtering" (encoding x as round(C x), negatives as N - x); the product of two
// encoded values has scale C^2, and here that is a different type
// (`product_scale_t<S, S>`), so adding a product to a value of scale C does
// not compile: `upscale` first. `hex_scale<D>` = 16^D is python-paillier's
// convention (EncodedNumber: value = mantissa * BASE^exponent with BASE = 16,
// exponent = -D), so `fixed_point<Int, hex_scale<D>>::encode(x)` gives the
// mantissa python-paillier's `EncodedNumber.encode(pk, x, max_exponent = -D)`
// gives whenever x's own precision is finer than 16^-D.
//
// Rounding: `encode` computes C x exactly (a double is an integer times a
// power of two) and rounds it to the nearest integer, ties to even (Python's
// round on a Fraction, as python-paillier does); `rounding::up` and
// `rounding::down` give the ceiling and the floor (for bounds). `decode`
// returns the double nearest to mantissa / C (ties to even), computed
// exactly. Round trip: |decode(encode(x)) - x| <= 1 / (2C) + ulp(x') / 2 with
// x' the decoded value (the first term from rounding C x, the second from
// rounding the quotient to a double); with C >= 2^53 / |x| the round trip is
// exact.
#pragma once

#include <privet/core/error.hpp>
#include <privet/core/validate.hpp>
#include <privet/crypto/paillier.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

namespace privet::paillier {

/// Largest log2 of a scale: keeps every decoded non-zero value a normal
/// double (|x| >= 1/C > 2^-1022), and bounds the width a product needs.
inline constexpr std::uint32_t max_scale_bits = 1000;

/// The scale C = Base^Digits of a fixed-point value.
template <std::uint32_t Base, std::uint32_t Digits>
struct scale {
  static_assert(Base >= 2, "privet: a fixed-point scale's base must be at least 2.");
  // bit_width(Base) >= log2(Base): a conservative bound on log2(C).
  static_assert(static_cast<std::uint64_t>(Digits) * std::bit_width(Base) <= max_scale_bits,
                "privet: a fixed-point scale Base^Digits must stay below 2^1000 (so that "
                "decoded values are normal doubles); use fewer digits.");
  /// The base, >= 2.
  static constexpr std::uint32_t base = Base;
  /// The exponent: C = base^digits.
  static constexpr std::uint32_t digits = Digits;
  /// Bits an integer needs to hold C (an upper bound).
  static constexpr std::uint32_t bits = Digits * std::bit_width(Base);
};

/// 16^D: python-paillier's BASE = 16 with exponent -D.
template <std::uint32_t Digits>
using hex_scale = scale<16, Digits>;
/// 10^D.
template <std::uint32_t Digits>
using decimal_scale = scale<10, Digits>;
/// 2^D.
template <std::uint32_t Digits>
using binary_scale = scale<2, Digits>;

namespace detail {
template <class S>
struct is_scale : std::false_type {};
template <std::uint32_t B, std::uint32_t D>
struct is_scale<scale<B, D>> : std::true_type {};
}  // namespace detail

/// A `scale<Base, Digits>`.
template <class S>
concept fixed_point_scale = detail::is_scale<S>::value;

namespace detail {
template <fixed_point_scale A, fixed_point_scale B>
struct product_scale {
  static_assert(A::base == B::base,
                "privet: fixed-point values of scales with different bases cannot be "
                "multiplied; encode both with the same base.");
  using type = scale<A::base, A::digits + B::digits>;
};
}  // namespace detail

/// The scale of a product: Base^(Da + Db) (C^2 for two values of scale C).
template <fixed_point_scale A, fixed_point_scale B>
using product_scale_t = typename detail::product_scale<A, B>::type;

/// How `fixed_point::encode` rounds C x to an integer.
enum class rounding {
  nearest_even,  ///< nearest integer, ties to even (python-paillier's round)
  up,            ///< ceiling (use for upper bounds)
  down,          ///< floor (the spam-filter paper's floor(C x))
};

namespace detail {

// C = Base^Digits as an Int, computed once per (Int, scale).
template <class Int, fixed_point_scale S>
const Int& scale_value() {
  static const Int c = [] {
    Int v = 1;
    for (std::uint32_t i = 0; i < S::digits; ++i) v *= S::base;
    return v;
  }();
  return c;
}

template <fixed_point_scale S>
std::string scale_text() {
  return std::to_string(S::base) + "^" + std::to_string(S::digits);
}

// Whether Int holds integers of `bits` bits (always, when unbounded).
template <class Int>
constexpr bool holds_bits(std::size_t bits) {
  if constexpr (std::numeric_limits<Int>::is_bounded) {
    return bits <= static_cast<std::size_t>(std::numeric_limits<Int>::digits);
  } else {
    return true;
  }
}

template <class Int>
Int abs_int(const Int& x) {
  return x < 0 ? Int(-x) : x;
}

// The double nearest to num / den (den > 0), ties to even, or overflow_error
// when it exceeds the double range. |num / den| >= 2^-1000 whenever num != 0
// (den is a scale), so the result is never subnormal.
template <class Int>
double ratio_to_double(const Int& num, const Int& den) {
  if (num == 0) return 0.0;
  const Int a = abs_int(num);
  const auto ea = static_cast<long>(bits_of(a));
  const auto eb = static_cast<long>(bits_of(den));
  // q = floor(a 2^s / den) lies in [2^54, 2^56): 55 or 56 bits, of which a
  // double keeps 53; a non-zero remainder is ORed into bit 0 (a sticky bit
  // below the rounding position) so that the one rounding of the uint64 to
  // double is the correct rounding of the exact quotient.
  const long s = 55 - (ea - eb);
  Int q;
  Int r;
  if (s >= 0) {
    const Int shifted = a << static_cast<unsigned>(s);
    q = shifted / den;
    r = shifted - q * den;
  } else {
    const Int d = den << static_cast<unsigned>(-s);
    q = a / d;
    r = a - q * d;
  }
  auto q64 = q.template convert_to<std::uint64_t>();
  if (r != 0) q64 |= 1u;
  const double m = static_cast<double>(q64);
  // a / den < 2^(ea - eb + 1): beyond 2^1024 nothing is representable.
  const double v = (ea - eb > 1025) ? HUGE_VAL : std::ldexp(m, static_cast<int>(-s));
  if (std::isinf(v)) {
    throw overflow_error("privet: a decoded fixed-point value (about 2^" + std::to_string(ea - eb) +
                         ") exceeds the range of double; allowed: |value| < 2^1024");
  }
  return num < 0 ? -v : v;
}

}  // namespace detail

/// A real number x in fixed point: the integer mantissa round(C x) at the
/// scale C of S, with the scale in the type. Values of different scales do
/// not mix (adding them does not compile); products have the product scale.
/// Key-independent: `to_plaintext` maps it into a key's plaintext space.
template <integer Int, fixed_point_scale S>
class fixed_point {
  static_assert(detail::holds_bits<Int>(S::bits + 64),
                "privet: this fixed-width integer type is too narrow for the fixed-point "
                "scale; use a wider integer type or a smaller scale.");

 public:
  using int_type = Int;  ///< The mantissa's integer type.
  using scale_type = S;  ///< The scale C as a type.

  /// Zero.
  fixed_point() = default;

  /// The value mantissa / C, exactly.
  [[nodiscard]] static fixed_point from_mantissa(Int mantissa) {
    fixed_point f;
    f.m_ = std::move(mantissa);
    return f;
  }
  /// The integer k exactly (mantissa k C); overflow_error if a fixed-width
  /// Int cannot hold k C.
  template <scalar<Int> K>
  [[nodiscard]] static fixed_point from_integer(const K& k) {
    const Int kk(k);
    const std::size_t need = detail::bits_of(detail::abs_int(kk)) + S::bits;
    if (!detail::holds_bits<Int>(need + 1)) throw_too_wide("from_integer(k)", need);
    return from_mantissa(Int(kk * detail::scale_value<Int, S>()));
  }
  /// x rounded to the grid of 1/C (see the file comment for the rounding
  /// and the round-trip error). Throws invalid_parameter for NaN or
  /// infinities, overflow_error when a fixed-width Int cannot hold C x.
  [[nodiscard]] static fixed_point encode(double x, rounding mode = rounding::nearest_even) {
    validate_finite(x, "x");
    if (x == 0) return fixed_point();
    int exp = 0;
    const double frac = std::frexp(x, &exp);  // x = frac 2^exp, 0.5 <= |frac| < 1
    // x = m53 2^e exactly, m53 an integer of at most 53 bits.
    const auto m53 = static_cast<std::int64_t>(std::ldexp(frac, 53));
    const int e = exp - 53;
    const bool negative = m53 < 0;
    const Int num = Int(static_cast<std::uint64_t>(negative ? -m53 : m53)) *
                    detail::scale_value<Int, S>();  // |x| C 2^-e
    Int mag;
    if (e >= 0) {
      const std::size_t need = detail::bits_of(num) + static_cast<std::size_t>(e);
      if (!detail::holds_bits<Int>(need + 1)) throw_too_wide("encode(x)", need);
      mag = num << static_cast<unsigned>(e);
    } else {
      const auto t = static_cast<std::size_t>(-e);
      const std::size_t nb = detail::bits_of(num);
      if (t > nb) {
        // |x| C < 1/2: the floor is 0, the ceiling 1, the nearest 0.
        mag = 0;
        const bool away = negative ? mode == rounding::down : mode == rounding::up;
        if (away) mag = 1;
      } else {
        mag = num >> static_cast<unsigned>(t);
        const Int rem = num - (mag << static_cast<unsigned>(t));
        if (rem != 0) {
          bool up = false;
          switch (mode) {
            case rounding::nearest_even: {
              const Int half = Int(1) << static_cast<unsigned>(t - 1);
              up = rem > half || (rem == half && boost::multiprecision::bit_test(mag, 0));
              break;
            }
            case rounding::up:
              up = !negative;
              break;
            case rounding::down:
              up = negative;
              break;
          }
          if (up) ++mag;
        }
      }
    }
    return from_mantissa(negative ? Int(-mag) : mag);
  }

  /// round(C x).
  [[nodiscard]] const Int& mantissa() const noexcept { return m_; }
  /// The double nearest to mantissa / C (overflow_error beyond 2^1024).
  [[nodiscard]] double decode() const { return detail::ratio_to_double(m_, scale()); }
  /// C as an Int.
  [[nodiscard]] static const Int& scale() { return detail::scale_value<Int, S>(); }
  /// |x|.
  [[nodiscard]] fixed_point abs() const { return from_mantissa(detail::abs_int(m_)); }

  /// -x, exact.
  friend fixed_point operator-(const fixed_point& a) { return from_mantissa(Int(-a.m_)); }
  /// The exact sum; overflow_error if a fixed-width Int might not hold it
  /// (an unchecked one would wrap). Scales must match (a different S2 does
  /// not compile: upscale first).
  template <fixed_point_scale S2>
  friend fixed_point operator+(const fixed_point& a, const fixed_point<Int, S2>& b) {
    static_assert(std::same_as<S, S2>,
                  "privet: fixed-point values of different scales cannot be added; "
                  "upscale one to the other's scale first.");
    check_sum(a.m_, b.mantissa(), "a + b");
    return from_mantissa(Int(a.m_ + b.mantissa()));
  }
  /// The exact difference; overflow_error as for +. Scales must match (a
  /// different S2 does not compile).
  template <fixed_point_scale S2>
  friend fixed_point operator-(const fixed_point& a, const fixed_point<Int, S2>& b) {
    static_assert(std::same_as<S, S2>,
                  "privet: fixed-point values of different scales cannot be added; "
                  "upscale one to the other's scale first.");
    check_sum(a.m_, b.mantissa(), "a - b");
    return from_mantissa(Int(a.m_ - b.mantissa()));
  }
  /// The exact product, of scale product_scale_t<S, S2>; overflow_error if a
  /// fixed-width Int cannot hold it.
  template <fixed_point_scale S2>
  friend fixed_point<Int, product_scale_t<S, S2>> operator*(const fixed_point& a,
                                                            const fixed_point<Int, S2>& b) {
    const std::size_t need =
        detail::bits_of(detail::abs_int(a.m_)) + detail::bits_of(detail::abs_int(b.mantissa()));
    if (!detail::holds_bits<Int>(need + 1)) throw_too_wide("a * b", need);
    return fixed_point<Int, product_scale_t<S, S2>>::from_mantissa(Int(a.m_ * b.mantissa()));
  }
  /// Equal mantissas (the scale is the same by type).
  friend bool operator==(const fixed_point& a, const fixed_point& b) { return a.m_ == b.m_; }
  /// The order of the values (that of the mantissas).
  friend std::strong_ordering operator<=>(const fixed_point& a, const fixed_point& b) {
    return a.m_ < b.m_
               ? std::strong_ordering::less
               : (a.m_ == b.m_ ? std::strong_ordering::equal : std::strong_ordering::greater);
  }

 private:
  // |a +- b| < 2^(max(bits a, bits b) + 1): checked like the other results.
  static void check_sum(const Int& a, const Int& b, const char* what) {
    if constexpr (std::numeric_limits<Int>::is_bounded) {
      const std::size_t need =
          std::max(detail::bits_of(detail::abs_int(a)), detail::bits_of(detail::abs_int(b))) + 1;
      if (!detail::holds_bits<Int>(need + 1)) throw_too_wide(what, need);
    }
  }

  [[noreturn]] static void throw_too_wide(const char* what, std::size_t bits) {
    throw overflow_error(std::string("privet: fixed-point ") + what + " needs about " +
                         std::to_string(bits) + " bits, more than the integer type holds; " +
                         "allowed: results of at most " +
                         std::to_string(std::numeric_limits<Int>::digits - 1) + " bits");
  }

  Int m_ = 0;
};

/// The same value at the finer scale To = Base^(D + k): the mantissa times
/// Base^k, exact; overflow_error if a fixed-width Int might not hold it (an
/// unchecked one would wrap). Going to a coarser scale would round, which a
/// ciphertext cannot do, so it does not compile.
template <fixed_point_scale To, integer Int, fixed_point_scale From>
fixed_point<Int, To> upscale(const fixed_point<Int, From>& x) {
  static_assert(To::base == From::base && To::digits >= From::digits,
                "privet: upscale goes to a scale of the same base with at least as many "
                "digits; a coarser scale would need rounding.");
  using step = scale<From::base, To::digits - From::digits>;
  if constexpr (std::numeric_limits<Int>::is_bounded) {
    const std::size_t need = detail::bits_of(detail::abs_int(x.mantissa())) +
                             detail::bits_of(detail::scale_value<Int, step>());
    if (!detail::holds_bits<Int>(need + 1)) {
      throw overflow_error("privet: fixed-point upscale(x) needs about " + std::to_string(need) +
                           " bits, more than the integer type holds; allowed: results of at "
                           "most " +
                           std::to_string(std::numeric_limits<Int>::digits - 1) + " bits");
    }
  }
  return fixed_point<Int, To>::from_mantissa(Int(x.mantissa() * detail::scale_value<Int, step>()));
}

/// The plaintext in [0, n) of x under `key`: the mantissa, or n - |mantissa|
/// for negatives. overflow_error unless |mantissa| <= (n - 1) / 2.
template <integer Int, key_tag Tag, fixed_point_scale S>
Int to_plaintext(const public_key<Int, Tag>& key, const fixed_point<Int, S>& x) {
  const Int& m = x.mantissa();
  if (m > key.max_signed() || m < -key.max_signed()) {
    throw overflow_error(
        "privet: fixed-point mantissa is outside the signed plaintext range; allowed: "
        "[-(n-1)/2, (n-1)/2] with n the " +
        std::to_string(key.bits()) + "-bit modulus (the value times its scale " +
        detail::scale_text<S>() + ")");
  }
  return m < 0 ? Int(key.n() + m) : m;
}

/// As above in `band`: for plaintext_band::python_paillier, overflow_error
/// unless |mantissa| <= floor(n/3) - 1 (python-paillier's max_int, what its
/// EncodedNumber.decode accepts).
template <integer Int, key_tag Tag, fixed_point_scale S>
Int to_plaintext(const public_key<Int, Tag>& key, const fixed_point<Int, S>& x,
                 plaintext_band band) {
  if (band == plaintext_band::privet) return to_plaintext(key, x);
  const Int& top = key.max_signed(band);  // refuses a bad band
  const Int& m = x.mantissa();
  if (m > top || m < -top) {
    throw overflow_error(
        "privet: fixed-point mantissa is outside python-paillier's plaintext range; allowed: "
        "[-max_int, max_int] with max_int = floor(n/3) - 1 and n the " +
        std::to_string(key.bits()) + "-bit modulus (the value times its scale " +
        detail::scale_text<S>() + "; plaintext_band::python_paillier)");
  }
  return m < 0 ? Int(key.n() + m) : m;
}

/// The fixed-point value of scale S of a plaintext m in [0, n): m, or m - n
/// above (n - 1) / 2. invalid_parameter for m outside [0, n).
template <fixed_point_scale S, integer Int, key_tag Tag>
fixed_point<Int, S> from_plaintext(const public_key<Int, Tag>& key, const Int& m) {
  if (m < 0 || m >= key.n()) {
    throw invalid_parameter("m",
                            "privet: plaintext m is outside [0, n); allowed: [0, n) with n the " +
                                std::to_string(key.bits()) + "-bit modulus");
  }
  return fixed_point<Int, S>::from_mantissa(m > key.max_signed() ? Int(m - key.n()) : m);
}

/// As above in `band`: for plaintext_band::python_paillier, m in [0,
/// max_int] or [n - max_int, n), overflow_error in the band between
/// (python-paillier's overflow detection).
template <fixed_point_scale S, integer Int, key_tag Tag>
fixed_point<Int, S> from_plaintext(const public_key<Int, Tag>& key, const Int& m,
                                   plaintext_band band) {
  if (band == plaintext_band::privet) return from_plaintext<S>(key, m);
  (void)key.max_signed(band);  // refuses a bad band
  if (m < 0 || m >= key.n()) {
    throw invalid_parameter("m",
                            "privet: plaintext m is outside [0, n); allowed: [0, n) with n the " +
                                std::to_string(key.bits()) + "-bit modulus");
  }
  return fixed_point<Int, S>::from_mantissa(
      detail::decode_signed(*detail::access::context(key), m, band));
}

}  // namespace privet::paillier
