// The constant-time samplers against the exact laws they approximate (within
// total variation below 2^-100, far below what any sample here can see), and
// the fact the geometric rests on: a geometric variable's binary digits are
// independent coins. Each chi-square CHECK uses alpha = 1e-6 (the
// probability that a correct sampler fails it); each mean, variance or
// frequency CHECK uses a 5.5-standard-deviation band (false alarm about
// 3.8e-8). Seeds are fixed, so a given build either always passes or always
// fails; about 80 checks in all, so a correct build fails for an unlucky
// seed with probability below 1e-4.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/mechanisms/constant_time_noise.hpp>
#include <privet/mechanisms/detail/constant_time.hpp>

#include <doctest/doctest.h>
#include <support/statistics.hpp>

#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

using privet::constant_time_discrete_gaussian;
using privet::constant_time_discrete_laplace;
using privet::discrete_gaussian_distribution;

namespace {

constexpr double alpha = 1e-6;

template <class Sampler>
void check_pmf(const Sampler& d, const std::vector<std::int64_t>& xs) {
  const auto r = privet::test::chi_square_integer(
      xs, [&](std::int64_t x) { return d.pmf(x); }, alpha);
  CAPTURE(r.statistic);
  CAPTURE(r.cells);
  CHECK(r.passes());
}

// Mean 0 and the exact law's variance, within 5.5 standard deviations; the
// fourth moment by direct summation of the pmf.
template <class Sampler>
void check_moments(const Sampler& d, const std::vector<std::int64_t>& xs, double range) {
  long double m4 = 0;
  for (std::int64_t x = 1; static_cast<double>(x) <= range; ++x) {
    const long double x2 = static_cast<long double>(x) * static_cast<long double>(x);
    m4 += 2 * x2 * x2 * d.pmf(x);
  }
  const auto m = privet::test::sample_moments(xs);
  const double n = static_cast<double>(xs.size());
  const double var = d.variance();
  CHECK(privet::test::within_sd(m.mean, 0, std::sqrt(var / n)));
  CHECK(privet::test::within_sd(m.variance, var,
                                std::sqrt((static_cast<double>(m4) - var * var) / n)));
}

// P[X < e] for the discrete Gaussian at sigma >= 2^20 (see
// discrete_gaussian_statistical_test.cpp: the midpoint rule is exact to
// ~1e-13 there).
double gaussian_below(double sigma, std::int64_t e) {
  return 0.5 * std::erfc(-(static_cast<double>(e) - 0.5) / (sigma * std::sqrt(2.0)));
}

// P[X <= x] of the discrete Laplace with scale t.
double laplace_cdf(double t, std::int64_t x) {
  const double q = std::exp(-1 / t);
  if (x < 0) return std::exp(static_cast<double>(x) / t) / (1 + q);
  return 1 - std::exp(-static_cast<double>(x + 1) / t) / (1 + q);
}

// Chi-square on 48 cells of width w over [-24 w, 24 w] plus two tails.
template <class Cdf>
privet::test::chi_square_result binned(const std::vector<std::int64_t>& xs, double w, Cdf below) {
  std::vector<std::int64_t> edges;
  for (int i = -24; i <= 24; ++i) edges.push_back(std::llround(w * i));
  std::vector<double> probs;
  double previous = 0;
  for (auto e : edges) {
    const double c = below(e);
    probs.push_back(c - previous);
    previous = c;
  }
  probs.push_back(1 - previous);
  return privet::test::chi_square_cells(privet::test::histogram(xs, edges), probs, alpha);
}

}  // namespace

TEST_CASE("constant-time discrete Laplace matches the exact pmf, mean and variance") {
  const std::vector<constant_time_discrete_laplace> dists{
      constant_time_discrete_laplace(0.1),    constant_time_discrete_laplace(0.3),
      constant_time_discrete_laplace(1, 1),   constant_time_discrete_laplace(7, 3),
      constant_time_discrete_laplace(3.5),    constant_time_discrete_laplace(20.0),
      constant_time_discrete_laplace(1000, 1)};
  std::uint64_t seed = 600;
  for (const auto& d : dists) {
    const auto xs = privet::test::draw_samples(d, ++seed, 200'000);
    CAPTURE(d.scale());
    check_pmf(d, xs);
    check_moments(d, xs, 200 * d.scale() + 50);
  }
}

TEST_CASE("constant-time discrete Laplace at large scales matches in t/4-wide cells") {
  std::uint64_t seed = 620;
  for (double scale : {std::ldexp(1.0, 40), std::ldexp(1.0, 40) * 1.5, std::ldexp(1.3, 52)}) {
    const constant_time_discrete_laplace d(scale);
    const auto xs = privet::test::draw_samples(d, ++seed, 100'000);
    const auto r = binned(xs, scale / 4, [&](std::int64_t e) { return laplace_cdf(scale, e - 1); });
    CAPTURE(scale);
    CAPTURE(r.statistic);
    CHECK(r.passes());
    const auto m = privet::test::sample_moments(xs);
    // E[x^4] = 6 var^2 for the near-continuous Laplace.
    CHECK(privet::test::within_sd(m.mean / scale, 0, std::sqrt(d.variance() / 1e5) / scale));
    CHECK(privet::test::within_sd(m.variance / d.variance(), 1, std::sqrt(5 / 1e5)));
  }
}

TEST_CASE("a geometric's binary digits are independent, and the digit sampler is geometric") {
  // ct_geometric draws G < 2^B from B independent coins with P[digit i] =
  // q^(2^i) / (1 + q^(2^i)). Checked here without the identity: G's law
  // against (1 - q) q^g / (1 - q^(2^B)) (chi-square), and each pair among
  // the first four digits against the product of their exact marginals
  // (four-cell chi-square).
  std::uint64_t seed = 640;
  for (const auto& st :
       std::vector<std::pair<std::uint64_t, std::uint64_t>>{{1, 1}, {2, 7}, {1, 3}}) {
    const std::uint64_t s = st.first, t = st.second;  // named: for clang 14's CAPTURE
    const privet::detail::ct_geometric geo(s, t, 63);
    const double x = static_cast<double>(s) / static_cast<double>(t);
    const double cut = std::exp(-x * std::ldexp(1.0, geo.digits()));
    privet::testing::seeded_release_generator gen(++seed);
    std::vector<std::int64_t> gs(200'000);
    for (auto& g : gs) g = static_cast<std::int64_t>(geo(gen));
    CAPTURE(t);
    const auto r = privet::test::chi_square_integer(
        gs,
        [&](std::int64_t g) {
          if (g < 0 || g >= (std::int64_t{1} << geo.digits())) return 0.0;
          return -std::expm1(-x) * std::exp(-x * static_cast<double>(g)) / (1 - cut);
        },
        alpha);
    CAPTURE(r.statistic);
    CHECK(r.passes());
    for (int i = 0; i < 4; ++i) {
      for (int j = i + 1; j < 4; ++j) {
        const double qi = std::exp(-x * std::ldexp(1.0, i));
        const double qj = std::exp(-x * std::ldexp(1.0, j));
        const double pi = qi / (1 + qi), pj = qj / (1 + qj);
        std::vector<std::uint64_t> cells(4);
        for (auto g : gs) ++cells[static_cast<std::size_t>(((g >> i) & 1) * 2 + ((g >> j) & 1))];
        const auto c = privet::test::chi_square_cells(
            cells, {(1 - pi) * (1 - pj), (1 - pi) * pj, pi * (1 - pj), pi * pj}, alpha);
        CAPTURE(i);
        CAPTURE(j);
        CAPTURE(c.statistic);
        CHECK(c.passes());
      }
    }
  }
}

TEST_CASE("the exp coin is true with probability exp(-n / d)") {
  privet::testing::seeded_release_generator gen(660);
  const privet::detail::ct_exp_coin coin(7, 64);
  for (std::uint64_t n : {0, 3, 5, 7, 20, 1000}) {
    const privet::detail::ct_u256 secret{n, 0, 0, 0};
    const int trials = 200'000;
    int hits = 0;
    for (int i = 0; i < trials; ++i) hits += static_cast<int>(coin(gen, secret));
    const double p = std::exp(-static_cast<double>(n) / 7);
    CAPTURE(n);
    CHECK(privet::test::within_sd(hits / static_cast<double>(trials), p,
                                  std::sqrt(p * (1 - p) / trials) + 1e-12));
  }
}

TEST_CASE("constant-time discrete Gaussian (table) matches the exact pmf, mean and variance") {
  const std::vector<discrete_gaussian_distribution> exact{
      discrete_gaussian_distribution(0.3),
      discrete_gaussian_distribution(1, 4),
      discrete_gaussian_distribution(1, 1),
      discrete_gaussian_distribution((std::uint64_t{1} << 62) - 57, (std::uint64_t{1} << 61) + 1),
      discrete_gaussian_distribution(3.5),
      discrete_gaussian_distribution(1000, 7),
      discrete_gaussian_distribution(18.26),
      discrete_gaussian_distribution(250.0)};
  std::uint64_t seed = 700;
  for (const auto& e : exact) {
    const constant_time_discrete_gaussian d(e);
    REQUIRE(d.uses_table());
    const auto xs = privet::test::draw_samples(d, ++seed, 200'000);
    CAPTURE(e.sigma());
    check_pmf(d, xs);
    check_moments(d, xs, 40 * e.sigma() + 40);
  }
}

TEST_CASE("constant-time discrete Gaussian (rejection) matches the exact pmf") {
  // The rejection path forced (max_table = 0) at small sigma, where the -0
  // rejection and the acceptance coins matter most, and at sigma = 1000
  // (the default there is now a sum of tables, tested below). 50 000
  // samples each: R proposals per sample make this path about 100 times
  // slower than the table.
  const std::vector<discrete_gaussian_distribution> exact{
      discrete_gaussian_distribution(1, 4), discrete_gaussian_distribution(1, 1),
      discrete_gaussian_distribution(3.5), discrete_gaussian_distribution(18.26),
      discrete_gaussian_distribution(1000, 1)};
  std::uint64_t seed = 720;
  for (const auto& e : exact) {
    const constant_time_discrete_gaussian d(e, 0);
    REQUIRE_FALSE(d.uses_table());
    REQUIRE_FALSE(d.uses_convolution());
    const auto xs = privet::test::draw_samples(d, ++seed, 50'000);
    CAPTURE(e.sigma());
    check_pmf(d, xs);
    check_moments(d, xs, 40 * e.sigma() + 40);
  }
}

TEST_CASE("constant-time discrete Gaussian (sum of tables) matches the exact pmf") {
  // Just past the table (sigma 310: one or two levels, multipliers lowered
  // near the base), at sigma 1000 and at a sigma^2 with a denominator.
  const std::vector<discrete_gaussian_distribution> exact{
      discrete_gaussian_distribution(310.0), discrete_gaussian_distribution(1000000, 1),
      discrete_gaussian_distribution(4321.5)};
  std::uint64_t seed = 730;
  for (const auto& e : exact) {
    const constant_time_discrete_gaussian d(e);
    REQUIRE(d.uses_convolution());
    const auto xs = privet::test::draw_samples(d, ++seed, 200'000);
    CAPTURE(e.sigma());
    check_pmf(d, xs);
    check_moments(d, xs, 40 * e.sigma() + 40);
  }
}

TEST_CASE("constant-time discrete Gaussian at sigma 2^20 and 2^30 matches the normal") {
  std::uint64_t seed = 740;
  for (int log2_sigma : {20, 30}) {
    const std::uint64_t s = std::uint64_t{1} << log2_sigma;
    const constant_time_discrete_gaussian d(s * s, 1);
    REQUIRE(d.uses_convolution());  // 8 and 13 levels
    const double sigma = static_cast<double>(s);
    const auto xs = privet::test::draw_samples(d, ++seed, 20'000);
    const auto r = binned(xs, sigma / 8, [&](std::int64_t e) { return gaussian_below(sigma, e); });
    CAPTURE(log2_sigma);
    CAPTURE(r.statistic);
    CHECK(r.passes());
    const auto m = privet::test::sample_moments(xs);
    CHECK(privet::test::within_sd(m.mean / sigma, 0, std::sqrt(1 / 2e4)));
    CHECK(privet::test::within_sd(m.variance / d.variance(), 1, std::sqrt(2 / 2e4)));
  }
}

TEST_CASE("the chi-square checks reject a 5% error in the scale") {
  // Correct samplers judged against a 5% larger scale: far above the
  // critical values, so the checks above have power.
  const constant_time_discrete_laplace lap(3.5), lap_wrong(3.5 * 1.05);
  const auto xs = privet::test::draw_samples(lap, 760, 200'000);
  const auto r = privet::test::chi_square_integer(
      xs, [&](std::int64_t x) { return lap_wrong.pmf(x); }, alpha);
  CAPTURE(r.statistic);
  CHECK_FALSE(r.passes());
  const constant_time_discrete_gaussian g(3.5), g_wrong(3.5 * 1.05);
  const auto ys = privet::test::draw_samples(g, 761, 200'000);
  const auto s = privet::test::chi_square_integer(
      ys, [&](std::int64_t x) { return g_wrong.pmf(x); }, alpha);
  CAPTURE(s.statistic);
  CHECK_FALSE(s.passes());
}
