// Exact samplers against their exact pmfs. Each CHECK of `passes()` uses
// alpha = 1e-6 (the chance that a correct sampler fails it); seeds are fixed,
// so a given build either always passes or always fails.
#include <privet/core/seeded_generator.hpp>
#include <privet/mechanisms/bernoulli.hpp>
#include <privet/mechanisms/discrete_gaussian.hpp>
#include <privet/mechanisms/discrete_laplace.hpp>

#include <doctest/doctest.h>
#include <support/statistics.hpp>

#include <cmath>
#include <vector>

namespace {
template <class D>
std::vector<std::int64_t> draw(const D& dist, std::uint64_t seed, int n) {
  privet::seeded_generator gen(seed);
  std::vector<std::int64_t> xs(static_cast<std::size_t>(n));
  for (auto& x : xs) x = dist(gen);
  return xs;
}
double sample_variance(const std::vector<std::int64_t>& xs) {
  double s = 0, s2 = 0;
  for (auto x : xs) {
    s += static_cast<double>(x);
    s2 += static_cast<double>(x) * static_cast<double>(x);
  }
  const double n = static_cast<double>(xs.size());
  return s2 / n - (s / n) * (s / n);
}
}  // namespace

TEST_CASE("discrete Laplace matches its pmf for small, medium and fractional scales") {
  for (double scale : {0.3, 1.0, 3.5, 20.0}) {
    const privet::discrete_laplace_distribution dist(scale);
    const auto xs = draw(dist, 11, 200'000);
    const auto r = privet::test::chi_square_integer(
        xs, [&](std::int64_t x) { return dist.pmf(x); }, 1e-6);
    CAPTURE(scale);
    CAPTURE(r.statistic);
    CHECK(r.passes());
    // Sample variance: relative sd about sqrt(5/n) = 0.5%; 4% band.
    CHECK(sample_variance(xs) == doctest::Approx(dist.variance()).epsilon(0.04));
  }
}

TEST_CASE("discrete Laplace at a grid-sized scale has the right spread") {
  const privet::discrete_laplace_distribution dist(std::ldexp(1.0, 40) * 1.5);
  const auto xs = draw(dist, 12, 50'000);
  double mad = 0;
  for (auto x : xs) mad += std::fabs(static_cast<double>(x));
  CHECK(mad / 50'000 == doctest::Approx(std::ldexp(1.0, 40) * 1.5).epsilon(0.03));  // sd ~0.45%
}

TEST_CASE("discrete Gaussian matches its pmf") {
  for (auto [num, den] :
       {std::pair<std::uint64_t, std::uint64_t>{1, 4}, {1, 1}, {49, 4}, {400, 1}}) {
    const privet::discrete_gaussian_distribution dist(num, den);
    const auto xs = draw(dist, 13, 100'000);
    const auto r = privet::test::chi_square_integer(
        xs, [&](std::int64_t x) { return dist.pmf(x); }, 1e-6);
    CAPTURE(num);
    CAPTURE(r.statistic);
    CHECK(r.passes());
    CHECK(sample_variance(xs) == doctest::Approx(dist.variance()).epsilon(0.05));
  }
}

TEST_CASE("Bernoulli(exp(-gamma)) hits exp(-gamma)") {
  privet::seeded_generator gen(14);
  for (auto [num, den] : {std::pair<std::uint64_t, std::uint64_t>{1, 3}, {5, 2}, {0, 1}, {7, 7}}) {
    int hits = 0;
    const int n = 200'000;
    for (int i = 0; i < n; ++i) hits += privet::bernoulli_exp(gen, num, den);
    const double p = std::exp(-static_cast<double>(num) / static_cast<double>(den));
    // 5.5 standard deviations: false alarm < 1e-7.
    CHECK(std::fabs(hits / double(n) - p) <= 5.5 * std::sqrt(p * (1 - p) / n) + 1e-12);
  }
}

TEST_CASE("the chi-square helper rejects a wrong scale") {
  const privet::discrete_laplace_distribution truth(3.5);
  const privet::discrete_laplace_distribution wrong(3.5 * 1.05);
  const auto xs = draw(truth, 15, 200'000);
  CHECK_FALSE(privet::test::chi_square_integer(
                  xs, [&](std::int64_t x) { return wrong.pmf(x); }, 1e-6)
                  .passes());
}
