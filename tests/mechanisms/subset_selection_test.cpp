// Unit tests of subset selection: validation messages, the paper's d, report
// shape, the exact eps-LDP ratio of its probabilities, the estimator's
// identities, and determinism.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/mechanisms/subset_selection.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <tuple>
#include <vector>

TEST_CASE("subset_selection rejects invalid parameters, naming them") {
  CHECK_THROWS_WITH_AS(privet::subset_selection(0.0, 10),
                       "privet: epsilon = 0 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  CHECK_THROWS_AS(privet::subset_selection(std::nan(""), 10), privet::invalid_parameter);
  CHECK_THROWS_AS(privet::subset_selection(-1.0, 10, 2), privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(
      privet::subset_selection(1.0, 1),
      "privet: s = 1 is invalid; allowed: [2, 2^64 - 2] (the number of candidates)",
      privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(
      privet::subset_selection(1.0, 0),
      "privet: s = 0 is invalid; allowed: [2, 2^64 - 2] (the number of candidates)",
      privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::subset_selection(1.0, 10, 0),
                       "privet: d = 0 is invalid; allowed: [1, s - 1] = [1, 9]",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::subset_selection(1.0, 10, 11),
                       "privet: d = 11 is invalid; allowed: [1, s - 1] = [1, 9]",
                       privet::invalid_parameter);
  const privet::subset_selection ss(1.0, 10);
  privet::testing::seeded_release_generator gen(1);
  CHECK_THROWS_WITH_AS((void)ss.estimate_counts({1, 2}, 5),
                       "privet: counts.size() = 2 is invalid; allowed: == s = 10",
                       privet::invalid_parameter);
  std::vector<std::uint64_t> one_bad(10, 1);
  one_bad[3] = 6;
  CHECK_THROWS_WITH_AS((void)ss.estimate_counts(one_bad, 5),
                       "privet: counts[3] = 6 is invalid; allowed: <= n = 5",
                       privet::invalid_parameter);
  CHECK_THROWS_AS((void)ss.estimate_variance(10, 11), privet::invalid_parameter);
}

TEST_CASE("d = ceil(s / (e^eps + 1)) as in the LDP TrieHH spec") {
  // 10^6 / (e^10 + 1) = 45.397..., 10 / (e + 1) = 2.689..., 2 / (e^0.1 + 1) = 0.95.
  CHECK(privet::subset_selection(10.0, 1'000'000).d() == 46);
  CHECK(privet::subset_selection(1.0, 10).d() == 3);
  CHECK(privet::subset_selection(0.1, 2).d() == 1);
  // e^800 overflows a double: the formula's limit d = 1.
  CHECK(privet::subset_selection(800.0, 1000).d() == 1);
  CHECK(privet::subset_selection(1.0, 10, 7).d() == 7);
}

TEST_CASE("a report is d distinct candidates, and the item is in it with probability p") {
  privet::testing::seeded_release_generator gen(2);
  for (auto [eps, s, d] : {std::tuple{10.0, std::uint64_t{1'000'000}, std::uint64_t{0}},
                           std::tuple{1.0, std::uint64_t{10}, std::uint64_t{0}},
                           std::tuple{0.5, std::uint64_t{100}, std::uint64_t{99}},
                           std::tuple{800.0, std::uint64_t{1000}, std::uint64_t{0}}}) {
    const privet::subset_selection ss =
        d == 0 ? privet::subset_selection(eps, s) : privet::subset_selection(eps, s, d);
    for (std::uint64_t item : {std::uint64_t{0}, s / 2, s - 1}) {
      const auto out = ss(item, gen);
      REQUIRE(out.size() == ss.d());
      const std::set<std::uint64_t> distinct(out.begin(), out.end());
      CHECK(distinct.size() == ss.d());
      CHECK(*distinct.rbegin() < s);
    }
  }
  // With d = s - 1 every report misses exactly one candidate.
  const privet::subset_selection all_but_one(0.5, 5, 4);
  for (int i = 0; i < 100; ++i) CHECK(all_but_one(2, gen).size() == 4);
}

TEST_CASE("the two branches' probabilities differ by exactly e^eps per output set") {
  // P[O | z] = p / C(s-1, d-1) for z in O and (1 - p) / C(s-1, d) otherwise;
  // C(s-1, d) / C(s-1, d-1) = (s - d) / d, so the ratio is p (s - d) / ((1 - p) d).
  for (auto [eps, s] :
       {std::pair{1.0, std::uint64_t{10}}, std::pair{10.0, std::uint64_t{1'000'000}},
        std::pair{0.01, std::uint64_t{3}}}) {
    const privet::subset_selection ss(eps, s);
    const double p = ss.p_true(), d = static_cast<double>(ss.d());
    const double ratio = p * (static_cast<double>(s) - d) / ((1 - p) * d);
    CHECK(std::log(ratio) == doctest::Approx(eps).epsilon(1e-12));
    CHECK(ss.guarantee() == privet::pure_dp(eps));
    // A report holds d items: p + (s - 1) q = d.
    CHECK(p + static_cast<double>(s - 1) * ss.p_other() == doctest::Approx(d).epsilon(1e-12));
  }
}

TEST_CASE("the estimator inverts the expected counts") {
  const privet::subset_selection ss(2.0, 5);
  // With holders f = (10, 0, 30, 60, 0) of n = 100, E[c_j] = f_j p + (n - f_j) q.
  const std::vector<double> f{10, 0, 30, 60, 0};
  const double p = ss.p_true(), q = ss.p_other();
  std::vector<std::uint64_t> counts;
  for (double fj : f)
    counts.push_back(static_cast<std::uint64_t>(std::lround((fj * p + (100 - fj) * q) * 1e6)));
  const auto est = ss.estimate_counts(counts, 100'000'000);
  // Rounding the counts to integers moves an estimate by at most 0.5 / (p - q) < 1.
  for (std::size_t j = 0; j < f.size(); ++j) CHECK(std::abs(est[j] - f[j] * 1e6) < 1);
  // Variance at f = 0 is n q (1 - q) / (p - q)^2.
  CHECK(ss.estimate_variance(100, 0) == doctest::Approx(100 * q * (1 - q) / ((p - q) * (p - q))));
}

TEST_CASE("reports are a deterministic function of the seed") {
  const privet::subset_selection ss(3.0, 1000);
  privet::testing::seeded_release_generator a(7), b(7), c(8);
  const auto x = ss(17, a);
  CHECK(x == ss(17, b));
  CHECK(x != ss(17, c));
  std::vector<std::uint64_t> out{99};
  ss(17, b, out);  // appends
  CHECK(out.size() == 1 + ss.d());
  CHECK(out[0] == 99);
}

TEST_CASE("estimate_variance names n and holders") {
  const privet::subset_selection ss(1.0, 10);
  CHECK_THROWS_WITH_AS((void)ss.estimate_variance(10, 11),
                       "privet: holders = 11 is invalid; allowed: [0, 10]",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)ss.estimate_variance(-1, 0),
                       "privet: n = -1 is invalid; allowed: finite and >= 0",
                       privet::invalid_parameter);
}

// Issue 22: a user's item is data, so an item outside [0, s) never throws;
// it is reported as a uniformly random item would be, a uniform d-subset.
TEST_CASE("an item outside the domain reports a uniform d-subset, never throws") {
  const std::uint64_t s = 10;
  const privet::subset_selection ss(1.0, s, 3);
  privet::testing::seeded_release_generator gen(9);
  std::vector<int> seen(s, 0);
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const std::uint64_t item = i % 2 == 0 ? s : ~std::uint64_t{0};  // both neighbours release
    const auto out = ss(item, gen);
    REQUIRE(out.size() == 3);
    const std::set<std::uint64_t> distinct(out.begin(), out.end());
    CHECK(distinct.size() == 3);
    for (auto c : out) {
      REQUIRE(c < s);
      ++seen[c];
    }
  }
  // Each candidate is in a uniform 3-subset of 10 with probability 0.3; 6
  // standard deviations per candidate (false alarm about 2e-8 over all 10).
  const double sd = std::sqrt(n * 0.3 * 0.7);
  for (std::uint64_t c = 0; c < s; ++c) CHECK(std::fabs(seen[c] - n * 0.3) < 6 * sd);
}
