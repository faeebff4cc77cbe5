// The exact geometric and binomial samplers against their distributions.
// Each chi-square CHECK uses alpha = 1e-6 (the probability that a correct
// sampler fails it) and each mean CHECK a 5.5-standard-deviation band
// (about 3.8e-8); 12 checks, so a correct build fails for an unlucky seed
// with probability below 2e-5. Seeds are fixed: a build always passes or
// always fails.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/mechanisms/binomial.hpp>

#include <doctest/doctest.h>
#include <support/statistics.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

namespace {

constexpr double alpha = 1e-6;

template <class D>
std::vector<std::int64_t> draw(const D& d, std::uint64_t seed, int n) {
  privet::testing::seeded_release_generator gen(seed);
  std::vector<std::int64_t> xs(static_cast<std::size_t>(n));
  for (auto& x : xs) x = static_cast<std::int64_t>(d(gen));
  return xs;
}

}  // namespace

TEST_CASE("geometric matches its pmf for rates from 2^-10 to 3 (128-bit path)") {
  std::uint64_t seed = 10;
  for (double rate : {std::ldexp(1.0, -10), 0.1, 0.7, 3.0}) {
    const privet::geometric_distribution g(rate);
    const auto xs = draw(g, ++seed, 200'000);
    const auto r = privet::test::chi_square_integer(
        xs, [&](std::int64_t x) { return x < 0 ? 0.0 : g.pmf(static_cast<std::uint64_t>(x)); },
        alpha, 0);
    INFO("rate = " << rate << ", chi2 = " << r.statistic << " / " << r.critical);
    CHECK(r.passes());
    const auto m = privet::test::sample_moments(xs);
    const double var = std::exp(-rate) / std::pow(-std::expm1(-rate), 2);
    CHECK(privet::test::within_sd(m.mean, g.mean(), std::sqrt(var / 200'000.0)));
  }
}

TEST_CASE("binomial matches its pmf for small and large means") {
  struct setting {
    std::uint64_t n;
    double p;
  };
  std::uint64_t seed = 40;
  for (const setting s : {setting{20, 0.3}, setting{1000, 0.01}, setting{100'000, 0.002},
                          setting{10'000'000, 1e-5}}) {
    const auto d = privet::binomial_distribution::from_probability(s.n, s.p);
    const auto xs = draw(d, ++seed, 100'000);
    const auto mode = static_cast<std::int64_t>(std::floor(d.mean()));
    const auto r = privet::test::chi_square_integer(
        xs, [&](std::int64_t x) { return x < 0 ? 0.0 : d.pmf(static_cast<std::uint64_t>(x)); },
        alpha, mode);
    INFO("n = " << s.n << ", p = " << s.p << ", chi2 = " << r.statistic << " / " << r.critical);
    CHECK(r.passes());
  }
}
