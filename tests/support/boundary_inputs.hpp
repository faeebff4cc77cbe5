// tests/support/boundary_inputs.hpp — neighbouring inputs at the edges of the
// secure grid (issue 22, findings 1 and 2), shared by the Laplace and
// Gaussian tests: both neighbours of each pair must release, finitely, within
// `noise_bound` (or one double's rounding) of the input.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace privet::test {

/// Runs m(x, gen) on each of 2^22 - 1 / 2^22, 2^53 - 1 / 2^53, 2^53 / 2^53 + 2,
/// the two largest and the two lowest doubles, and `high` / 2 `high`.
template <class Mechanism, class G>
void check_boundary_neighbours(const Mechanism& m, G& gen, double noise_bound, double high) {
  const double two53 = 0x1p53;
  const double max = std::numeric_limits<double>::max();
  const double pairs[][2] = {{4194303, 4194304},
                             {two53 - 1, two53},
                             {two53, two53 + 2},
                             {std::nextafter(max, 0.0), max},
                             {-max, std::nextafter(-max, 0.0)},
                             {high, 2 * high}};
  for (const auto& pair : pairs)
    for (double x : pair) {
      INFO("x = " << x);
      double y = 0;
      CHECK_NOTHROW(y = m(x, gen));
      CHECK(std::isfinite(y));
      // Past 2^53 the output is rounded to a double: one unit in 2^52 of x.
      CHECK(std::fabs(y - x) <= std::max(noise_bound, std::fabs(x) * 0x1p-52));
    }
}

}  // namespace privet::test
