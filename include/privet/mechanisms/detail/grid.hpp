// privet/mechanisms/detail/grid.hpp — moving reals onto a power-of-two grid and
// back, with overflow checks instead of wrapping.
#pragma once

#include <privet/core/detail/format.hpp>
#include <privet/core/error.hpp>

#include <cmath>
#include <cstdint>
#include <string>

namespace privet::detail {

/// round(x / g) as an integer; throws overflow_error when |x / g| >= 2^62.
inline std::int64_t to_grid(double x, double g, const char* what) {
  const double units = std::nearbyint(x / g);
  if (!(std::fabs(units) < 0x1p62)) {
    throw overflow_error(std::string("privet: ") + what + " = " + format_value(x) +
                         " does not fit the noise grid (granularity " + format_value(g) +
                         "); allowed: |value| < 2^62 * granularity");
  }
  return static_cast<std::int64_t>(units);
}

/// k + noise in grid units; throws overflow_error instead of wrapping.
inline std::int64_t add_noise(std::int64_t k, std::int64_t noise) {
  std::int64_t sum = 0;
  if (__builtin_add_overflow(k, noise, &sum)) {
    throw overflow_error(
        "privet: value plus noise overflows 64-bit grid units; allowed: |sum| < 2^63");
  }
  return sum;
}

/// (k + noise) * g.
inline double from_grid(std::int64_t k, std::int64_t noise, double g) {
  return static_cast<double>(add_noise(k, noise)) * g;
}

}  // namespace privet::detail
