// privet/mechanisms/detail/dyadic.hpp — exact arithmetic on doubles. Every
// finite double is m * 2^e for integers m, e; sums, differences and products
// of such values stay exact in big integers, so a sampler can form an
// exponent such as eps * (q_max - q) / (2 D) without any rounding.
//
// On Boost's signed cpp_int (differences can be negative): only the
// exponential mechanism, partition selection and the binomial sampler use
// it. The coins of every mechanism (bernoulli.hpp) need only the exact
// binary value of a double (binary_value.hpp) and unsigned big integers
// (big_uint.hpp), which keep Boost.Multiprecision out of the Laplace and
// Gaussian mechanisms' headers.
#pragma once

#include <privet/mechanisms/detail/big_uint.hpp>
#include <privet/mechanisms/detail/binary_value.hpp>

#include <boost/multiprecision/cpp_int.hpp>

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace privet::detail {

struct dyadic {
  boost::multiprecision::cpp_int mantissa;  // value = mantissa * 2^exponent
  int exponent = 0;

  dyadic() = default;
  dyadic(boost::multiprecision::cpp_int m, int e) : mantissa(std::move(m)), exponent(e) {}
  /// m 2^e for an unsigned big integer m, such as a bound of exp_neg_bounds.
  dyadic(const big_uint& m, int e) : exponent(e) {
    for (std::size_t i = m.limbs().size(); i-- > 0;) {
      mantissa <<= 64;
      mantissa |= boost::multiprecision::cpp_int(m.limbs()[i]);
    }
  }

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

  friend dyadic operator+(const dyadic& a, const dyadic& b) {
    const int e = a.exponent < b.exponent ? a.exponent : b.exponent;
    return {boost::multiprecision::cpp_int((a.mantissa << (a.exponent - e)) +
                                           (b.mantissa << (b.exponent - e))),
            e};
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

}  // namespace privet::detail
