// The constant-time binomial count and Poisson sample against their laws
// (Boost.Math's binomial pmf). Each chi-square CHECK uses alpha = 1e-6, the
// probability that a correct sampler fails it; 7 checks, so a correct build
// fails for an unlucky seed with probability below 7e-6. Seeds are fixed: a
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
  // Floyd's draws (n = 300: too small for sorted draws) and sorted draws
  // (n = 5000).
  struct job {
    std::uint64_t n;
    double rate;
    bool sorted;
    std::int64_t mode;
  };
  for (const job& j : {job{300, 0.05, false, 15}, job{5000, 0.01, true, 50}}) {
    const privet::constant_time_poisson_sample s(j.n, j.rate);
    REQUIRE(s.sorted_draws() == j.sorted);
    privet::testing::seeded_release_generator gen(4);
    std::vector<std::uint64_t> out(s.capacity());
    std::vector<std::int64_t> counts;
    std::vector<std::uint64_t> hits(j.n);
    constexpr int runs = 20000;
    for (int i = 0; i < runs; ++i) {
      const std::size_t c = s(gen, out.data());
      counts.push_back(static_cast<std::int64_t>(c));
      for (std::size_t k = 0; k < c; ++k) ++hits[out[k]];
    }
    CAPTURE(j.n);
    const auto count_law = privet::test::chi_square_integer(
        counts, [&](std::int64_t k) { return pmf(j.n, j.rate, k); }, alpha, j.mode);
    CAPTURE(count_law.statistic);
    CHECK(count_law.passes());
    // Each element is a member with probability 1 - e^-rate, all alike: the
    // members' positions are uniform over [0, n).
    const std::vector<double> uniform(j.n, 1.0 / static_cast<double>(j.n));
    const auto where = privet::test::chi_square_cells(hits, uniform, alpha);
    CAPTURE(where.statistic);
    CHECK(where.passes());
  }
}
