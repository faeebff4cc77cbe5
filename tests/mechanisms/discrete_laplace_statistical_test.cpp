// The discrete Laplace sampler against its exact distribution. Each
// chi-square CHECK uses alpha = 1e-6 (the probability that a correct sampler
// fails it); each mean or variance CHECK uses a 5.5-standard-deviation band
// (false alarm about 3.8e-8 under the normal approximation, which 200 000
// samples make accurate). Seeds are fixed, so a given build either always
// passes or always fails; about 20 checks in all, so a correct build fails
// for an unlucky seed with probability below 1e-5.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/mechanisms/discrete_laplace.hpp>

#include <doctest/doctest.h>
#include <support/statistics.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

using privet::discrete_laplace_distribution;

namespace {

constexpr double alpha = 1e-6;

// E[x^4] = 2 q (1 + 11 q + 11 q^2 + q^3) / ((1 + q) (1 - q)^4), from
// sum_{x >= 1} x^4 q^x = q (1 + 11 q + 11 q^2 + q^3) / (1 - q)^5.
double fourth_moment(const discrete_laplace_distribution& d) {
  const double q = std::exp(-1 / d.scale());
  const double one_minus_q = -std::expm1(-1 / d.scale());
  return 2 * q * (1 + 11 * q + 11 * q * q + q * q * q) / ((1 + q) * std::pow(one_minus_q, 4));
}

// Mean 0 and variance() within 5.5 standard deviations of the sample's.
void check_moments(const discrete_laplace_distribution& d, const std::vector<std::int64_t>& xs) {
  const auto m = privet::test::sample_moments(xs);
  const double n = static_cast<double>(xs.size());
  const double var = d.variance();
  CHECK(privet::test::within_sd(m.mean, 0, std::sqrt(var / n)));
  CHECK(privet::test::within_sd(m.variance, var, std::sqrt((fourth_moment(d) - var * var) / n)));
}

// P[X <= x] = q^-x / (1 + q) for x < 0 and 1 - q^(x+1) / (1 + q) for x >= 0.
double cdf(const discrete_laplace_distribution& d, std::int64_t x) {
  const double q = std::exp(-1 / d.scale());
  const double inv = 1 / d.scale();
  if (x < 0) return std::exp(inv * static_cast<double>(x)) / (1 + q);
  return 1 - std::exp(-inv * static_cast<double>(x + 1)) / (1 + q);
}

// Chi-square on 48 cells of width t / 4 over [-6t, 6t] plus two tails, for
// scales too large for one cell per integer; `model` gives the probabilities.
privet::test::chi_square_result binned_fit(const std::vector<std::int64_t>& xs,
                                           const discrete_laplace_distribution& model) {
  const double t = model.scale();
  std::vector<std::int64_t> edges;
  for (int i = -24; i <= 24; ++i) edges.push_back(std::llround(t / 4 * i));
  std::vector<double> probs;
  double previous = 0;
  for (auto e : edges) {
    const double c = cdf(model, e - 1);  // cell [e_i, e_i+1) = P[X <= e_i+1 - 1] - P[X <= e_i - 1]
    probs.push_back(c - previous);
    previous = c;
  }
  probs.push_back(1 - previous);
  return privet::test::chi_square_cells(privet::test::histogram(xs, edges), probs, alpha);
}

}  // namespace

TEST_CASE("discrete Laplace matches its pmf, mean and variance from scale 0.1 to 1000") {
  // Doubles (0.1 and 0.3 at their binary values) and exact rationals.
  const std::vector<discrete_laplace_distribution> dists{
      discrete_laplace_distribution(0.1),    discrete_laplace_distribution(0.3),
      discrete_laplace_distribution(1, 1),   discrete_laplace_distribution(7, 3),
      discrete_laplace_distribution(3.5),    discrete_laplace_distribution(20.0),
      discrete_laplace_distribution(1000, 1)};
  std::uint64_t seed = 200;
  for (const auto& d : dists) {
    const auto xs = privet::test::draw_samples(d, ++seed, 200'000);
    const auto r = privet::test::chi_square_integer(
        xs, [&](std::int64_t x) { return d.pmf(x); }, alpha);
    CAPTURE(d.scale());
    CAPTURE(r.statistic);
    CAPTURE(r.cells);
    CHECK(r.passes());
    check_moments(d, xs);
  }
}

TEST_CASE("discrete Laplace at large scales matches its distribution in t/4-wide cells") {
  // 2^40 is the scale the Laplace mechanism's grid produces; 2^56 * 1.3
  // exercises 128-bit intermediate values (overflow needs |x| >= 2^63:
  // probability exp(-2^63 / t) < 1e-40 here).
  std::uint64_t seed = 220;
  for (double scale : {std::ldexp(1.0, 40), std::ldexp(1.0, 40) * 1.5, std::ldexp(1.3, 56)}) {
    const discrete_laplace_distribution d(scale);
    const auto xs = privet::test::draw_samples(d, ++seed, 100'000);
    const auto r = binned_fit(xs, d);
    CAPTURE(scale);
    CAPTURE(r.statistic);
    CHECK(r.passes());
    const auto m = privet::test::sample_moments(xs);
    const double n = 1e5, var = d.variance();
    // Relative moments of the near-continuous Laplace: E[x^4] = 24 t^4 = 6 var^2.
    CHECK(privet::test::within_sd(m.mean / scale, 0, std::sqrt(var / n) / scale));
    CHECK(privet::test::within_sd(m.variance / var, 1, std::sqrt(5 / n)));
  }
}

TEST_CASE("discrete Laplace signs are balanced") {
  // Positive vs negative among nonzero samples: a fair two-cell test.
  const discrete_laplace_distribution d(0.7);
  const auto xs = privet::test::draw_samples(d, 230, 200'000);
  std::vector<std::uint64_t> counts(2);
  for (auto x : xs)
    if (x != 0) ++counts[x > 0 ? 1 : 0];
  CHECK(privet::test::chi_square_cells(counts, {0.5, 0.5}, alpha).passes());
}

TEST_CASE("the chi-square checks reject a 5% error in the scale") {
  // A correct sampler judged against scale * 1.05: the statistics land far
  // above the critical values (~1000 per-integer and ~300 binned), so these
  // CHECK_FALSEs show the tests above have power.
  const discrete_laplace_distribution truth(3.5), wrong(3.5 * 1.05);
  const auto xs = privet::test::draw_samples(truth, 240, 200'000);
  const auto r = privet::test::chi_square_integer(
      xs, [&](std::int64_t x) { return wrong.pmf(x); }, alpha);
  CAPTURE(r.statistic);
  CHECK_FALSE(r.passes());
  const discrete_laplace_distribution big(std::ldexp(1.0, 40)), big_wrong(std::ldexp(1.05, 40));
  const auto ys = privet::test::draw_samples(big, 241, 100'000);
  const auto b = binned_fit(ys, big_wrong);
  CAPTURE(b.statistic);
  CHECK_FALSE(b.passes());
}
