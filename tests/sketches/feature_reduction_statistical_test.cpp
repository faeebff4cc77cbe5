// Feature reduction, statistically (fixed seeds; each check states its
// false-alarm rate): the hyperplane coefficients are standard normal,
// SimHash bits differ with probability theta / pi, hash-space reduction is
// pairwise uniform, uniform feature sampling picks every subset equally
// often, and multinomial DF sampling follows successive sampling by DF.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/uniform_subset.hpp>
#include <privet/sketches/feature_reduction.hpp>

#include <support/statistics.hpp>

#include <boost/math/distributions/normal.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <numbers>
#include <vector>

using vec = std::vector<std::uint32_t>;
using privet::test::chi_square_cells;
using privet::test::within_sd;

TEST_CASE("the ziggurat gives standard normal samples, tails included") {
  // 10^6 samples from one counter stream, binned into 100 equiprobable
  // cells plus cells split at the ziggurat's tail edge r = 3.4426 and at 4
  // (the tail sampler's region). Chi-square at alpha = 1e-6.
  const boost::math::normal normal;
  std::vector<double> edges;
  for (int i = 1; i < 100; ++i) edges.push_back(boost::math::quantile(normal, i / 100.0));
  for (double t : {3.442619855899, 4.0}) {
    edges.push_back(t);
    edges.push_back(-t);
  }
  std::sort(edges.begin(), edges.end());
  std::vector<double> probs;
  double prev = 0;
  for (double e : edges) {
    const double c = boost::math::cdf(normal, e);
    probs.push_back(c - prev);
    prev = c;
  }
  probs.push_back(1 - prev);
  auto cell = [&](double z) {
    return static_cast<std::size_t>(std::upper_bound(edges.begin(), edges.end(), z) -
                                    edges.begin());
  };
  std::vector<std::uint64_t> counts(probs.size());
  privet::detail::counter_stream s(0x1234567);
  for (int i = 0; i < 1'000'000; ++i) ++counts[cell(privet::detail::standard_normal(s))];
  CHECK(chi_square_cells(counts, probs, 1e-6).passes());

  // The same law for SimHash's coefficients over a (feature, hyperplane)
  // grid of 4000 x 256, and no correlation between neighbours along either
  // axis: each sample correlation within 5.5 / sqrt(n) of 0 (its standard
  // deviation is 1 / sqrt(n) for independent normals; false alarm 3.8e-8
  // each). Overall false alarm below 2.1e-6.
  const privet::simhash h(256, std::uint64_t{1} << 32, 99);
  std::vector<std::uint64_t> grid(probs.size());
  double along_j = 0, along_f = 0;
  std::vector<double> prev_row(256);
  for (std::uint32_t f = 0; f < 4000; ++f) {
    double left = 0;
    for (std::uint32_t j = 0; j < 256; ++j) {
      const double g = h.coefficient(1'000'000 + f, j);
      ++grid[cell(g)];
      if (j > 0) along_j += g * left;
      if (f > 0) along_f += g * prev_row[j];
      left = g;
      prev_row[j] = g;
    }
  }
  CHECK(chi_square_cells(grid, probs, 1e-6).passes());
  CHECK(within_sd(along_j / (4000.0 * 255), 0.0, 1 / std::sqrt(4000.0 * 255)));
  CHECK(within_sd(along_f / (3999.0 * 256), 0.0, 1 / std::sqrt(3999.0 * 256)));
}

namespace {
// A pair of binary vectors with |x| = a, |y| = b and c shared features,
// drawn from the block [base, base + 4 (a + b)) so pairs never share one.
std::pair<vec, vec> pair_with_overlap(privet::testing::seeded_release_generator& gen,
                                      std::uint32_t base, std::uint32_t a, std::uint32_t b,
                                      std::uint32_t c) {
  const auto pool = privet::uniform_subset(gen, 4 * (a + b), a + b - c);
  vec x, y;
  for (std::uint32_t i = 0; i < a + b - c; ++i) {
    const auto f = base + static_cast<std::uint32_t>(pool[i]);
    if (i < a) x.push_back(f);
    if (i >= a - c) y.push_back(f);
  }
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  return {x, y};
}
}  // namespace

TEST_CASE("simhash: bits differ with probability theta / pi (Charikar 2002)") {
  // For binary vectors cos(theta) = c / sqrt(a b). Each configuration: 120
  // pairs on disjoint features (independent hyperplane coefficients), 256
  // bits each, so the total Hamming distance is Binomial(120 * 256,
  // theta / pi) exactly; checked within 5.5 standard deviations. Each pair's
  // own angle estimate is checked within 5.5 of its binomial standard
  // deviations too. 6 + 720 checks at 3.8e-8 each: false alarm below 3e-5.
  struct config {
    std::uint32_t a, b, c;
  };
  const std::vector<config> configs{{100, 100, 0},  {100, 100, 25}, {100, 100, 50},
                                    {100, 100, 90}, {50, 200, 40},  {1, 1, 1}};
  const privet::simhash h(256, std::uint64_t{1} << 32, 77);
  privet::testing::seeded_release_generator gen(41);
  std::uint32_t base = 0;
  for (const auto& [a, b, c] : configs) {
    const double theta = std::acos(c / std::sqrt(static_cast<double>(a) * b));
    const double p = theta / std::numbers::pi;
    std::uint64_t total = 0;
    for (int pair = 0; pair < 120; ++pair) {
      const auto [x, y] = pair_with_overlap(gen, base, a, b, c);
      base += 4 * (a + b);
      const auto sx = h(x), sy = h(y);
      const auto d = privet::hamming(sx, sy);
      total += d;
      const double sd_angle = std::numbers::pi * std::sqrt(p * (1 - p) / 256);
      CHECK(within_sd(privet::angle_estimate(sx, sy), theta, sd_angle));
      if (c == a && a == b) CHECK(d == 0);
    }
    const double n = 120 * 256;
    if (p > 0) {
      CHECK(within_sd(static_cast<double>(total), n * p, std::sqrt(n * p * (1 - p))));
    } else {
      CHECK(total == 0);
    }
  }
}

TEST_CASE("hash-space reduction: uniform over [0, d), two features merge with probability 1/d") {
  // d = 10, 40000 seeds. Feature pairs: adjacent indices and indices 2^31
  // apart; each collision count is Binomial(40000, 1/10 + O(2^-64)), checked
  // within 5.5 standard deviations (3.8e-8 each); the image of feature 12345
  // is chi-square tested over the 10 outputs at alpha = 1e-6.
  std::uint64_t adjacent = 0, far = 0;
  std::vector<std::uint64_t> cells(10);
  const double n = 40'000;
  for (std::uint64_t seed = 0; seed < 40'000; ++seed) {
    const privet::hash_space_reduction h(10, seed);
    adjacent += h.map(77) == h.map(78);
    far += h.map(5) == h.map(5u + (1u << 31));
    ++cells[h.map(12345)];
  }
  CHECK(within_sd(static_cast<double>(adjacent), n / 10, std::sqrt(n * 0.09)));
  CHECK(within_sd(static_cast<double>(far), n / 10, std::sqrt(n * 0.09)));
  CHECK(chi_square_cells(cells, std::vector<double>(10, 0.1), 1e-6).passes());
}

TEST_CASE("uniform feature sampling: every subset equally likely, every feature kept d / D") {
  // (a) D = 6, d = 3: the 20 subsets over 20000 seeds, chi-square against
  // 1/20 each at alpha = 1e-6.
  std::map<vec, std::uint64_t> subsets;
  for (std::uint64_t seed = 0; seed < 20'000; ++seed) {
    ++subsets[privet::uniform_feature_sampling(6, 3, seed).features()];
  }
  REQUIRE(subsets.size() == 20);
  std::vector<std::uint64_t> counts;
  for (const auto& [s, c] : subsets) counts.push_back(c);
  CHECK(chi_square_cells(counts, std::vector<double>(20, 1.0 / 20), 1e-6).passes());

  // (b) D = 40, d = 10, 5000 seeds: how often each feature survives. The
  // survivals of one seed are d of D without replacement, so the indicator
  // covariance is p(1 - p) D / (D - 1) times the centring projection
  // (p = d / D), and Pearson's statistic divided by (1 - p) D / (D - 1) is
  // chi-square with D - 1 degrees of freedom. alpha = 1e-6.
  constexpr int D = 40, d = 10, seeds = 5000;
  std::vector<double> kept(D);
  for (std::uint64_t seed = 0; seed < seeds; ++seed) {
    const privet::uniform_feature_sampling u(D, d, 100'000 + seed);
    for (auto f : u.features()) ++kept[f];
  }
  const double p = static_cast<double>(d) / D, e = seeds * p;
  double x2 = 0;
  for (double k : kept) x2 += (k - e) * (k - e) / e;
  x2 /= (1 - p) * D / (D - 1.0);
  CHECK(x2 < privet::test::chi_square_critical(D - 1, 1e-6));
}

TEST_CASE("multinomial DF sampling is successive sampling proportional to DF") {
  // Five features with document frequencies 1, 2, 3, 4, 10 (W = 20).
  std::vector<vec> training;
  const std::vector<std::uint64_t> df{1, 2, 3, 4, 10};
  const vec features{2, 5, 6, 11, 19};
  for (std::uint32_t doc = 0; doc < 10; ++doc) {
    vec v;
    for (std::size_t i = 0; i < df.size(); ++i) {
      if (doc < df[i]) v.push_back(features[i]);
    }
    training.push_back(v);
  }
  // (a) d = 1: P[f] = df_f / W. 20000 seeds, chi-square at alpha = 1e-6.
  std::vector<std::uint64_t> first(5);
  for (std::uint64_t seed = 0; seed < 20'000; ++seed) {
    const auto m = privet::multinomial_df_sampling::fit(20, 1, training, seed);
    ++first[static_cast<std::size_t>(std::find(features.begin(), features.end(), m.features()[0]) -
                                     features.begin())];
  }
  std::vector<double> probs;
  for (auto w : df) probs.push_back(static_cast<double>(w) / 20);
  CHECK(chi_square_cells(first, probs, 1e-6).passes());

  // (b) d = 2: P[{i, j}] = w_i / W * w_j / (W - w_i) + w_j / W * w_i / (W - w_j),
  // the law of drawing twice without replacement. 20000 seeds over the 10
  // pairs, chi-square at alpha = 1e-6.
  std::map<vec, std::uint64_t> pairs;
  for (std::uint64_t seed = 0; seed < 20'000; ++seed) {
    ++pairs[privet::multinomial_df_sampling::fit(20, 2, training, 50'000 + seed).features()];
  }
  std::vector<std::uint64_t> observed;
  std::vector<double> expected;
  for (std::size_t i = 0; i < 5; ++i) {
    for (std::size_t j = i + 1; j < 5; ++j) {
      const double wi = static_cast<double>(df[i]), wj = static_cast<double>(df[j]);
      expected.push_back(wi / 20 * wj / (20 - wi) + wj / 20 * wi / (20 - wj));
      observed.push_back(pairs[vec{features[i], features[j]}]);
    }
  }
  std::uint64_t seen = 0;
  for (auto o : observed) seen += o;
  REQUIRE(seen == 20'000);  // no other pair was ever drawn
  CHECK(chi_square_cells(observed, expected, 1e-6).passes());
}
