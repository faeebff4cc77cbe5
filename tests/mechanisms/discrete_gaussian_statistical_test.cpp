// The discrete Gaussian sampler against its exact distribution. Each
// chi-square CHECK uses alpha = 1e-6 (the probability that a correct sampler
// fails it); each mean or variance CHECK uses a 5.5-standard-deviation band
// (false alarm about 3.8e-8 under the normal approximation, which 200 000
// samples make accurate). Seeds are fixed, so a given build either always
// passes or always fails; about 30 checks in all, so a correct build fails
// for an unlucky seed with probability below 1e-5.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/mechanisms/discrete_gaussian.hpp>

#include <doctest/doctest.h>
#include <support/statistics.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

using privet::discrete_gaussian_distribution;

namespace {

constexpr double alpha = 1e-6;

// E[x^4] by direct summation of the pmf.
double fourth_moment(const discrete_gaussian_distribution& d) {
  const auto range = static_cast<std::int64_t>(40 * d.sigma()) + 40;
  double m4 = 0;
  for (std::int64_t x = 1; x <= range; ++x) {
    const double x2 = static_cast<double>(x) * static_cast<double>(x);
    m4 += 2 * x2 * x2 * d.pmf(x);
  }
  return m4;
}

void check_moments(const discrete_gaussian_distribution& d, const std::vector<std::int64_t>& xs) {
  const auto m = privet::test::sample_moments(xs);
  const double n = static_cast<double>(xs.size());
  const double var = d.variance();
  CHECK(privet::test::within_sd(m.mean, 0, std::sqrt(var / n)));
  CHECK(privet::test::within_sd(m.variance, var, std::sqrt((fourth_moment(d) - var * var) / n)));
}

// P[X < e] for sigma >= 2^20: the midpoint rule sum_{x < e} pmf(x) =
// Phi((e - 1/2) / sigma) is exact to ~1e-13 there (Euler-Maclaurin, plus
// Poisson terms exp(-2 pi^2 sigma^2)), far below what 100 000 samples see.
double below(double sigma, std::int64_t e) {
  return 0.5 * std::erfc(-(static_cast<double>(e) - 0.5) / (sigma * std::sqrt(2.0)));
}

// Chi-square on 48 cells of width sigma / 8 over [-3 sigma, 3 sigma] plus two tails.
privet::test::chi_square_result binned_fit(const std::vector<std::int64_t>& xs, double sigma) {
  std::vector<std::int64_t> edges;
  for (int i = -24; i <= 24; ++i) edges.push_back(std::llround(sigma / 8 * i));
  std::vector<double> probs;
  double previous = 0;
  for (auto e : edges) {
    const double c = below(sigma, e);
    probs.push_back(c - previous);
    previous = c;
  }
  probs.push_back(1 - previous);
  return privet::test::chi_square_cells(privet::test::histogram(xs, edges), probs, alpha);
}

}  // namespace

TEST_CASE("discrete Gaussian matches its pmf, mean and variance from sigma 0.3 to 1000") {
  // sigma = 0.3 and 3.5 from doubles (0.3's square rounded up as documented,
  // and pmf() uses the stored value), the others as exact rationals;
  // (2^62 - 57) / (2^61 + 1) has b t ~ 2^62, so most proposals need the
  // 256-bit square in the acceptance test.
  const std::vector<discrete_gaussian_distribution> dists{
      discrete_gaussian_distribution(0.3),
      discrete_gaussian_distribution(1, 4),
      discrete_gaussian_distribution(1, 1),
      discrete_gaussian_distribution((std::uint64_t{1} << 62) - 57, (std::uint64_t{1} << 61) + 1),
      discrete_gaussian_distribution(3.5),
      discrete_gaussian_distribution(1000, 7),
      discrete_gaussian_distribution(1'000'000, 1)};
  std::uint64_t seed = 300;
  for (const auto& d : dists) {
    const auto xs = privet::test::draw_samples(d, ++seed, 200'000);
    const auto r = privet::test::chi_square_integer(
        xs, [&](std::int64_t x) { return d.pmf(x); }, alpha);
    CAPTURE(d.sigma());
    CAPTURE(r.statistic);
    CAPTURE(r.cells);
    CHECK(r.passes());
    check_moments(d, xs);
  }
}

TEST_CASE("discrete Gaussian at sigma 2^20 and 2^24 matches the normal in sigma/8 cells") {
  std::uint64_t seed = 320;
  for (int log2_sigma : {20, 24}) {
    const std::uint64_t s = std::uint64_t{1} << log2_sigma;
    const discrete_gaussian_distribution d(s * s, 1);
    const double sigma = static_cast<double>(s);
    const auto xs = privet::test::draw_samples(d, ++seed, 100'000);
    const auto r = binned_fit(xs, sigma);
    CAPTURE(log2_sigma);
    CAPTURE(r.statistic);
    CHECK(r.passes());
    // Normal moments: Var(sample variance) = 2 sigma^4 / n.
    const auto m = privet::test::sample_moments(xs);
    const double n = 1e5;
    CHECK(privet::test::within_sd(m.mean / sigma, 0, std::sqrt(1 / n)));
    CHECK(privet::test::within_sd(m.variance / d.variance(), 1, std::sqrt(2 / n)));
  }
}

TEST_CASE("the chi-square checks reject a 5% error in sigma") {
  // A correct sampler judged against sigma * 1.05: the statistics land far
  // above the critical values (~900 per-integer, ~250 binned).
  const discrete_gaussian_distribution truth(3.5), wrong(3.5 * 1.05);
  const auto xs = privet::test::draw_samples(truth, 340, 200'000);
  const auto r = privet::test::chi_square_integer(
      xs, [&](std::int64_t x) { return wrong.pmf(x); }, alpha);
  CAPTURE(r.statistic);
  CHECK_FALSE(r.passes());
  const std::uint64_t s = std::uint64_t{1} << 20;
  const auto ys =
      privet::test::draw_samples(discrete_gaussian_distribution(s * s, 1), 341, 100'000);
  const auto b = binned_fit(ys, static_cast<double>(s) * 1.05);
  CAPTURE(b.statistic);
  CHECK_FALSE(b.passes());
}
