// privet/mechanisms/detail/binary_value.hpp — the exact binary value of a
// positive double in 64-bit integers: what the samplers that take a scale or
// a probability as a double need, without the big integers of dyadic.hpp.
#pragma once

#include <privet/core/validate.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <utility>

namespace privet::detail {

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
