// Mironov's (2012) attack on textbook floating-point Laplace noise: the
// doubles x + noise(u) reachable from input x and from a neighbour x' are
// different sets, so many outputs reveal the input with certainty. The
// attack here decides exactly whether an output y is reachable from x'
// (binary search over the sampler's 2^53 uniform values, then exact
// comparison), and succeeds against textbook sampling. Against privet's
// secure_noise every output is a multiple of the mechanism's power-of-two
// grid g and so is every neighbour input, and the discrete Laplace or
// Gaussian noise reaches every grid point: the supports are identical and
// the attack has nothing to find. The same grid check rejects the
// simulation_only_noise policy, which is why its name says it is not for
// release.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/uniform.hpp>
#include <privet/mechanisms/gaussian.hpp>
#include <privet/mechanisms/laplace.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>

namespace {

// Textbook inverse-CDF Laplace: u uniform on the 2^53-point grid of
// [-1/2, 1/2) (index i in [1, 2^53), i = 0 would give log 0), noise =
// -b sgn(u) ln(1 - 2|u|).
double textbook_noise(std::uint64_t i, double b) {
  const double u = std::ldexp(static_cast<double>(i), -53) - 0.5;
  return u < 0 ? b * std::log1p(2 * u) : -b * std::log1p(-2 * u);
}

double textbook_mechanism(double x, double b, privet::seeded_generator& gen) {
  std::uint64_t i = 0;
  while (i == 0) i = privet::random_u64(gen) >> 11;
  return x + textbook_noise(i, b);
}

// Whether x + textbook_noise(i, b) == y for some i: the map is
// non-decreasing in i, so find the first i reaching y and test around it.
bool reachable(double y, double x, double b) {
  std::uint64_t lo = 1, hi = (std::uint64_t{1} << 53) - 1;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (x + textbook_noise(mid, b) < y) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  for (std::uint64_t i = lo > 3 ? lo - 3 : 1; i <= lo + 3 && i < (std::uint64_t{1} << 53); ++i) {
    if (x + textbook_noise(i, b) == y) return true;
  }
  return false;
}

bool on_grid(double y, double g) {
  const double k = y / g;  // exact: g is a power of two
  return k == std::nearbyint(k) && std::fabs(k) < 0x1p62;
}

}  // namespace

TEST_CASE("the attack separates neighbours under textbook floating-point Laplace") {
  privet::seeded_generator gen(41);
  constexpr int n = 4000;
  int distinguishing = 0, self_reachable = 0;
  for (int t = 0; t < n; ++t) {
    const double y = textbook_mechanism(0.0, 1.0, gen);
    self_reachable += reachable(y, 0.0, 1.0);  // sanity: the attack sees M(0)'s own outputs
    distinguishing += !reachable(y, 1.0, 1.0);
  }
  CHECK(self_reachable == n);
  // Measured: 3162 of 4000 (79 %) of M(0)'s outputs are impossible under
  // M(1) (the doubles near 0 are far denser than those near 1); each one
  // identifies the input with certainty.
  MESSAGE("textbook Laplace: " << distinguishing << " of " << n << " outputs distinguishing");
  CHECK(distinguishing > n / 2);
}

TEST_CASE("secure Laplace and Gaussian outputs lie on one grid for both neighbours") {
  privet::seeded_generator gen(42);
  const auto lap = privet::laplace_mechanism<double>::from_scale(1.0);
  const auto gau = privet::gaussian_mechanism<double>::from_scale(1.0);
  for (double g : {lap.granularity(), gau.granularity()}) {
    CHECK(on_grid(0.0, g));
    CHECK(on_grid(1.0, g));  // both neighbours are grid points
  }
  int off = 0;
  for (int t = 0; t < 20'000; ++t) {
    off += !on_grid(lap(0.0, gen), lap.granularity()) + !on_grid(lap(1.0, gen), lap.granularity());
    off += !on_grid(gau(0.0, gen), gau.granularity()) + !on_grid(gau(1.0, gen), gau.granularity());
  }
  // Every output is k g with k an integer the exact sampler reaches from
  // either input (discrete Laplace and Gaussian have full support on Z), so
  // no output is impossible under the other input.
  CHECK(off == 0);
}

TEST_CASE("the grid check rejects the simulation_only policy") {
  privet::seeded_generator gen(43);
  const auto secure = privet::laplace_mechanism<double>::from_scale(1.0);
  const auto sim =
      privet::laplace_mechanism<double, privet::simulation_only_noise>::from_scale(1.0);
  int off = 0;
  for (int t = 0; t < 1000; ++t) off += !on_grid(sim(0.0, gen), secure.granularity());
  CHECK(off > 900);
}
