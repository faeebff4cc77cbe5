#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/mechanisms/sparse_vector.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>

TEST_CASE_TEMPLATE("AboveThreshold: a query equal to the threshold clears it half the time", Noise,
                   privet::secure_noise, privet::constant_time_noise) {
  // Both noises are symmetric and continuous at this grid (ties have
  // probability ~2^-40), so P[halt] = 1/2; over 20000 fresh instances a
  // 5.5-sigma band fails a correct implementation with probability < 4e-8
  // (for each of the two noise policies).
  privet::testing::seeded_release_generator gen(44);
  int halts = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    privet::above_threshold<Noise> svt(1.0, 1.0, 10.0, gen);
    halts += svt(10.0, gen);
  }
  CHECK(std::abs(halts - n / 2) <= 5.5 * std::sqrt(n * 0.25));
}
