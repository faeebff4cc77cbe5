// The constant-time binomial count and Poisson sample against their laws
// (Boost.Math's binomial pmf). Each chi-square CHECK uses alpha = 1e-6, the
// probability that a correct sampler fails it; 5 checks, so a correct build
// fails for an unlucky seed with probability below 5e-6. Seeds are fixed: a
// build always passes or always fails.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/mechanisms/constant_time_binomial.hpp>

#include <doctest/doctest.h>
#include <support/statistics.hpp>

#include <boost/math/distributions/binomial.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

namespace {

constexpr double alpha = 1e-6;

double pmf(std::uint64_t n, double rate, std::int64_t k) {
  if (k < 0 || static_cast<std::uint64_t>(k) > n) return 0;
  const boost::math::binomial d(static_cast<double>(n), -std::expm1(-rate));
  return boost::math::pdf(d, static_cast<double>(k));
}

}  // namespace

TEST_CASE("constant-time binomial samples follow Bin(n, 1 - e^-rate)") {
  struct job {
    std::uint64_t n;
    double rate;
    std::uint64_t seed;
  };
  for (const job& j : {job{1000000, 1e-3, 1}, job{40, 0.7, 2}, job{200, 16.0 / 200, 3}}) {
    const privet::constant_time_binomial b(j.n, j.rate);
    privet::testing::seeded_release_generator gen(j.seed);
    std::vector<std::int64_t> xs(100000);
    for (auto& x : xs) x = static_cast<std::int64_t>(b(gen));
    const double mode = std::floor(static_cast<double>(j.n + 1) * -std::expm1(-j.rate));
    const auto r = privet::test::chi_square_integer(
        xs, [&](std::int64_t k) { return pmf(j.n, j.rate, k); }, alpha,
        static_cast<std::int64_t>(mode));
    CAPTURE(j.n);
    CAPTURE(r.statistic);
    CHECK(r.passes());
  }
}

TEST_CASE("constant-time Poisson sample: a binomial count, every element equally likely") {
  constexpr std::uint64_t n = 300;
  constexpr double rate = 0.05;  // mean 14.6
  const privet::constant_time_poisson_sample s(n, rate);
  privet::testing::seeded_release_generator gen(4);
  std::vector<std::uint64_t> out(s.capacity());
  std::vector<std::int64_t> counts;
  std::vector<std::uint64_t> hits(n);
  constexpr int runs = 20000;
  for (int i = 0; i < runs; ++i) {
    const std::size_t c = s(gen, out.data());
    counts.push_back(static_cast<std::int64_t>(c));
    for (std::size_t k = 0; k < c; ++k) ++hits[out[k]];
  }
  const auto count_law = privet::test::chi_square_integer(
      counts, [&](std::int64_t k) { return pmf(n, rate, k); }, alpha, 15);
  CAPTURE(count_law.statistic);
  CHECK(count_law.passes());
  // Each element is a member with probability 1 - e^-rate, all alike: the
  // members' positions are uniform over [0, n).
  const std::vector<double> uniform(n, 1.0 / static_cast<double>(n));
  const auto where = privet::test::chi_square_cells(hits, uniform, alpha);
  CAPTURE(where.statistic);
  CHECK(where.passes());
}
