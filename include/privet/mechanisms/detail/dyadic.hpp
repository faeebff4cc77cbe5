// privet/mechanisms/detail/dyadic.hpp — exact arithmetic on doubles. Every
// finite double is m * 2^e for integers m, e; sums, differences and products
// of such values stay exact in big integers, so a sampler can form an
// exponent such as eps * (q_max - q) / (2 D) without any rounding.
#pragma once

#include <privet/core/validate.hpp>

#include <boost/multiprecision/cpp_int.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <utility>

namespace privet::detail {

struct dyadic {
  boost::multiprecision::cpp_int mantissa;  // value = mantissa * 2^exponent
  int exponent = 0;

  /// The exact value of a finite double.
  static dyadic from_double(double x) {
    int e = 0;
    const double f = std::frexp(x, &e);
    const auto m = static_cast<std::int64_t>(std::ldexp(f, 53));
    return {boost::multiprecision::cpp_int(m), e - 53};
  }

  friend dyadic operator-(const dyadic& a, const dyadic& b) {
    const int e = a.exponent < b.exponent ? a.exponent : b.exponent;
    boost::multiprecision::cpp_int am = a.mantissa << (a.exponent - e);
    boost::multiprecision::cpp_int bm = b.mantissa << (b.exponent - e);
    return {boost::multiprecision::cpp_int(am - bm), e};
  }

  friend dyadic operator*(const dyadic& a, const dyadic& b) {
    return {boost::multiprecision::cpp_int(a.mantissa * b.mantissa), a.exponent + b.exponent};
  }
};

/// a / b as a fraction (num, den) of non-negative big integers; a >= 0, b > 0.
inline std::pair<boost::multiprecision::cpp_int, boost::multiprecision::cpp_int> ratio(
    const dyadic& a, const dyadic& b) {
  const int shift = a.exponent - b.exponent;
  boost::multiprecision::cpp_int num = a.mantissa;
  boost::multiprecision::cpp_int den = b.mantissa;
  if (shift >= 0) {
    num <<= shift;
  } else {
    den <<= -shift;
  }
  return {std::move(num), std::move(den)};
}

/// A finite double x > 0 as mantissa * 2^exponent with an odd mantissa < 2^53.
struct binary_value {
  std::uint64_t mantissa;
  int exponent;
};

inline binary_value exact_binary_value(double x) {
  int e = 0;
  const double f = std::frexp(x, &e);  // x = f 2^e, f in [1/2, 1), exact for subnormals too
  auto m = static_cast<std::uint64_t>(std::ldexp(f, 53));
  e -= 53;
  const int zeros = std::countr_zero(m);
  return {m >> zeros, e + zeros};
}

// The exact value of a positive double as num / den with den a power of two,
// both < 2^62; throws invalid_parameter naming `name` when it does not fit.
inline std::pair<std::uint64_t, std::uint64_t> exact_dyadic(double x, const char* name) {
  validate_positive(x, name);
  int e = 0;
  const double frac = std::frexp(x, &e);  // x = frac * 2^e, frac in [0.5, 1)
  auto m = static_cast<std::uint64_t>(std::ldexp(frac, 53));
  e -= 53;
  while (e < 0 && (m & 1u) == 0) {
    m >>= 1;
    ++e;
  }
  if (e >= 0) {
    if (e >= 62 || m >= (std::uint64_t{1} << (62 - e))) throw_invalid(name, x, "< 2^62");
    return {m << e, 1};
  }
  if (-e >= 62)
    throw_invalid(name, x, "a value whose binary fraction has < 62 bits (>= about 2^-9)");
  return {m, std::uint64_t{1} << -e};
}

}  // namespace privet::detail
