// Statistical checks of the Gaussian mechanism's parallel vector noise
// (keyed streams by blocks of noise_block coordinates): the noise has the
// mechanism's mean and variance over many blocks, and neighbouring blocks
// are uncorrelated (a repeated or shifted stream would correlate them).
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/mechanisms/gaussian.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

using privet::gaussian_mechanism;

TEST_CASE("parallel Gaussian noise: mean, variance and independence of blocks") {
  constexpr std::size_t block = gaussian_mechanism<>::noise_block;
  constexpr std::size_t blocks = 32;
  const std::size_t dim = blocks * block;  // 131072 coordinates
  const double sigma = 2.0;
  const auto m = gaussian_mechanism<>::from_scale(sigma, dim);
  const std::vector<double> zero(dim, 0.0);
  privet::testing::seeded_release_generator gen(2026);
  const auto z = m(std::span<const double>(zero), gen, privet::parallel_options{2});
  double sum = 0, sum2 = 0;
  for (const double v : z) {
    sum += v;
    sum2 += v * v;
  }
  const double n = static_cast<double>(dim);
  const double mean = sum / n, var = sum2 / n - mean * mean;
  // Bands of 5 standard errors (two-sided false-alarm rate 5.7e-7 each):
  // the mean's se is sigma / sqrt(n) = 0.0055, the variance's
  // sigma^2 sqrt(2 / n) = 0.0156 (m.sigma() is within 1e-9 of sigma).
  CHECK(std::abs(mean) < 5 * m.sigma() / std::sqrt(n));
  CHECK(std::abs(var - m.sigma() * m.sigma()) < 5 * m.sigma() * m.sigma() * std::sqrt(2 / n));
  // Adjacent blocks, coordinate by coordinate: the mean product over the
  // 31 x 4096 pairs has se sigma^2 / sqrt(126976) = 0.0112 under
  // independence; 5 se (false alarm 5.7e-7). Identical or shifted-by-one
  // streams would give sigma^2 = 4 or a large lag correlation.
  double cross = 0, lag = 0;
  for (std::size_t k = 0; k + 1 < blocks; ++k)
    for (std::size_t i = 0; i < block; ++i) {
      cross += z[k * block + i] * z[(k + 1) * block + i];
      if (i + 1 < block) lag += z[k * block + i + 1] * z[(k + 1) * block + i];
    }
  const double pairs = static_cast<double>((blocks - 1) * block);
  const double pairs_lag = static_cast<double>((blocks - 1) * (block - 1));
  CHECK(std::abs(cross / pairs) < 5 * m.sigma() * m.sigma() / std::sqrt(pairs));
  CHECK(std::abs(lag / pairs_lag) < 5 * m.sigma() * m.sigma() / std::sqrt(pairs_lag));
}
