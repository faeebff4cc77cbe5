// Count-min sketch, statistically (fixed seeds; each check states its
// false-alarm rate): the row hash is uniform and pairwise independent, the
// error guarantee of Cormode & Muthukrishnan holds with its mean excess of
// N / w per row, and noisy counters carry exactly the mechanism's noise,
// with the min estimator's known downward bias and the median's none.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform.hpp>
#include <privet/mechanisms/integer_noise.hpp>
#include <privet/sketches/count_min.hpp>

#include <support/statistics.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <vector>

using sketch = privet::count_min_sketch<std::uint64_t>;

TEST_CASE("the row hash is uniform over columns and two keys collide with probability 1/w") {
  // w = 7 (not a power of two), 8 independent rows per seed, 5000 seeds:
  // 40000 trials per statistic. Pairs: adjacent keys, keys differing only
  // in the top bit, and 0 against all-ones, the structured cases a weak
  // hash gets wrong. Each collision count is Binomial(40000, 1/7 + 2^-64)
  // (the 2^-64 from the range reduction is far below resolution); 5.5
  // standard deviations: false alarm 3.8e-8 each. The column of key 5 is
  // chi-square tested over the 7 columns at alpha = 1e-6. Overall < 1.2e-6.
  constexpr std::uint64_t w = 7;
  constexpr std::size_t d = 8;
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> pairs{
      {1000, 1001}, {5, 5 ^ (std::uint64_t{1} << 63)}, {0, ~std::uint64_t{0}}};
  std::vector<std::uint64_t> collisions(pairs.size());
  std::vector<std::uint64_t> columns(w);
  std::uint64_t trials = 0;
  for (std::uint64_t seed = 0; seed < 5000; ++seed) {
    const sketch s(w, d, seed);
    for (std::size_t r = 0; r < d; ++r) {
      for (std::size_t p = 0; p < pairs.size(); ++p) {
        collisions[p] += s.column(r, pairs[p].first) == s.column(r, pairs[p].second);
      }
      ++columns[s.column(r, 5)];
      ++trials;
    }
  }
  const double n = static_cast<double>(trials), p = 1.0 / w;
  for (auto c : collisions) {
    CHECK(privet::test::within_sd(static_cast<double>(c), n * p, std::sqrt(n * p * (1 - p))));
  }
  const auto chi = privet::test::chi_square_cells(columns, std::vector<double>(w, p), 1e-6);
  CHECK(chi.passes());
}

TEST_CASE("error: never below the truth, mean row excess (N - f) / w, above eps N rarely") {
  // A Zipf(1) stream of N = 20000 over 2000 keys, into from_error(0.01,
  // 0.05) = 272 x 3, under 3000 seeds (independent hash draws). For a fixed
  // key x the row-0 excess over the truth has mean sum_{y != x} f_y P[collide]
  // = (N - f_x)(1/w + O(2^-64)) exactly, by pairwise independence; the
  // sample mean over the seeds is checked within 5.5 of its standard errors
  // (false alarm about 4e-8 each, two keys). The guarantee "excess > eps N"
  // has probability <= delta = 0.05 per seed; its count over 3000 seeds is
  // then below 150 + 5.5 sqrt(3000 0.05 0.95) = 215 except with probability
  // below 1e-7 (normal approximation to the binomial).
  privet::testing::seeded_release_generator gen(21);
  std::vector<double> cdf;
  double total = 0;
  for (int r = 1; r <= 2000; ++r) cdf.push_back(total += 1.0 / r);
  std::vector<std::uint64_t> stream;
  std::vector<std::int64_t> truth(2000);
  for (int i = 0; i < 20'000; ++i) {
    const double u = privet::uniform_real(gen) * total;
    const auto k = std::min<std::size_t>(
        static_cast<std::size_t>(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin()), 1999);
    stream.push_back(k);
    ++truth[k];
  }
  const std::vector<std::uint64_t> queries{0, 1500};  // the heaviest key, a rare one
  std::vector<std::vector<std::int64_t>> excess(queries.size());
  std::vector<int> violations(queries.size());
  for (std::uint64_t seed = 0; seed < 3000; ++seed) {
    auto s = sketch::from_error(0.01, 0.05, 1000 + seed);
    for (auto k : stream) s.add(k);
    REQUIRE(s.total() == 20'000);
    for (std::size_t q = 0; q < queries.size(); ++q) {
      const auto x = queries[q];
      CHECK(s.estimate(x) >= truth[x]);
      excess[q].push_back(s.counter(0, s.column(0, x)) - truth[x]);
      violations[q] += static_cast<double>(s.estimate(x) - truth[x]) > 0.01 * 20'000;
    }
  }
  for (std::size_t q = 0; q < queries.size(); ++q) {
    const auto m = privet::test::sample_moments(excess[q]);
    const double expected = static_cast<double>(20'000 - truth[queries[q]]) / 272;
    CHECK(privet::test::within_sd(m.mean, expected, std::sqrt(m.variance / 3000)));
    CHECK(violations[q] <= 215);
  }
}

TEST_CASE("noisy counters differ from the clean ones by exact integer noise") {
  // 4000 x 5 = 20000 counters; the differences must follow the noise's pmf
  // (chi-square at alpha = 1e-6) and its variance (5.5 standard errors of
  // the sample variance, sqrt((mu4 - sigma^4) / n), false alarm about 4e-8).
  privet::testing::seeded_release_generator fill(22);
  sketch s(4000, 5, 8);
  for (int i = 0; i < 50'000; ++i) s.add(privet::uniform_below(fill, 30'000));

  auto check = [&](const auto& mechanism, const auto& dist, std::uint64_t seed) {
    privet::testing::seeded_release_generator gen(seed);
    const auto x = s.noisy(mechanism, gen);
    std::vector<std::int64_t> diff;
    for (std::size_t i = 0; i < s.counters().size(); ++i) {
      diff.push_back(x.counters()[i] - s.counters()[i]);
    }
    const auto chi = privet::test::chi_square_integer(
        diff, [&](std::int64_t v) { return dist.pmf(v); }, 1e-6);
    CHECK(chi.passes());
    double mu4 = 0;
    for (std::int64_t v = -2000; v <= 2000; ++v) {
      mu4 += std::pow(static_cast<double>(v), 4) * dist.pmf(v);
    }
    const double var = dist.variance();
    const auto m = privet::test::sample_moments(diff);
    CHECK(privet::test::within_sd(m.variance, var,
                                  std::sqrt((mu4 - var * var) / static_cast<double>(diff.size()))));
  };
  const auto gauss = privet::discrete_gaussian_mechanism<>::from_sigma2(9, 1);
  check(gauss, gauss.distribution(), 31);
  const auto lap = privet::discrete_laplace_mechanism<>::from_scale(4.0);
  check(lap, lap.distribution(), 32);
}

TEST_CASE("on a noisy sketch the minimum is biased down by E[min of d noises], the median not") {
  // An empty 2^14 x 5 sketch with discrete Gaussian noise, sigma^2 = 16.
  // Query keys are chosen so that no two share a counter in any row, so the
  // 1500 keys' errors are independent. The min's error has mean E[min of 5
  // iid noises], summed exactly from the pmf (about -1.16 sigma); the
  // median's has mean 0 by symmetry. Sample means within 5.5 standard
  // errors: false alarm about 8e-8 for the two checks.
  constexpr std::size_t d = 5;
  const sketch empty(std::uint64_t{1} << 14, d, 9);
  const auto mech = privet::discrete_gaussian_mechanism<>::from_sigma2(16, 1);
  privet::testing::seeded_release_generator gen(33);
  const auto x = empty.noisy(mech, gen);

  std::vector<std::set<std::uint64_t>> used(d);
  std::vector<std::int64_t> min_err, med_err2;  // the median error doubled: an integer
  for (std::uint64_t key = 0; min_err.size() < 1500; ++key) {
    bool free = true;
    for (std::size_t r = 0; r < d; ++r) free = free && !used[r].contains(x.column(r, key));
    if (!free) continue;
    for (std::size_t r = 0; r < d; ++r) used[r].insert(x.column(r, key));
    min_err.push_back(x.estimate(key));
    med_err2.push_back(static_cast<std::int64_t>(2 * x.estimate_median(key)));
  }
  const auto& dist = mech.distribution();
  double expected_min = 0;  // E[min] = sum_v v (S(v)^d - S(v + 1)^d), S(v) = P[noise >= v]
  for (std::int64_t v = -200; v <= 200; ++v) {
    double s_v = 0, s_next = 0;
    for (std::int64_t u = v; u <= 200; ++u) s_v += dist.pmf(u);
    s_next = s_v - dist.pmf(v);
    expected_min += static_cast<double>(v) * (std::pow(s_v, d) - std::pow(s_next, d));
  }
  CHECK(expected_min < -1.1 * 4);
  const auto mn = privet::test::sample_moments(min_err);
  CHECK(privet::test::within_sd(mn.mean, expected_min, std::sqrt(mn.variance / 1500)));
  const auto md = privet::test::sample_moments(med_err2);
  CHECK(privet::test::within_sd(md.mean / 2, 0.0, std::sqrt(md.variance / 1500) / 2));
}
