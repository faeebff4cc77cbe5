// Subset selection's distribution, exactly: the true item's inclusion rate
// is p (a known bug of a public implementation, which lets the "others"
// branch re-draw the true item, is shown to fail the same test), the whole
// distribution over the C(10, 3) = 120 output sets matches the formula, and
// the frequency estimator is unbiased with the stated variance.
// Chi-square checks at alpha = 1e-6 each and 5.5-sigma z-checks (two-sided
// false alarm about 4e-8); seeds are fixed, so a build passes or fails
// deterministically.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform_subset.hpp>
#include <privet/mechanisms/subset_selection.hpp>

#include <doctest/doctest.h>
#include <support/statistics.hpp>

#include <boost/math/distributions/chi_squared.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <vector>

namespace {

constexpr double alpha = 1e-6;

template <class Report>
privet::test::chi_square_result inclusion_fit(Report report, std::uint64_t item, double p,
                                              int reps) {
  std::vector<std::uint64_t> cells(2);
  for (int i = 0; i < reps; ++i) {
    const auto out = report();
    ++cells[std::find(out.begin(), out.end(), item) != out.end() ? 1 : 0];
  }
  return privet::test::chi_square_cells(cells, {1 - p, p}, alpha);
}

}  // namespace

TEST_CASE("the true item is reported with probability p exactly") {
  privet::testing::seeded_release_generator gen(31);
  for (const auto& job : {std::pair{10.0, std::uint64_t{1'000'000}},
                          std::pair{1.0, std::uint64_t{10}}, std::pair{0.25, std::uint64_t{7}}}) {
    const double eps = job.first;  // named copies: clang 14 cannot capture a binding
    const std::uint64_t s = job.second;
    const privet::subset_selection ss(eps, s);
    const std::uint64_t item = s / 3;
    const auto r = inclusion_fit([&] { return ss(item, gen); }, item, ss.p_true(), 100'000);
    CAPTURE(eps);
    CAPTURE(r.statistic);
    CHECK(r.passes());
  }
}

TEST_CASE("the same test rejects the re-drawing bug") {
  // The bug: the "otherwise" branch draws d of all s candidates, so the true
  // item comes back with probability d / s there too.
  privet::testing::seeded_release_generator gen(32);
  const privet::subset_selection ss(1.0, 10);
  const privet::logistic_bernoulli coin(ss.d(), ss.s() - ss.d(), ss.epsilon());
  const std::uint64_t item = 4;
  auto buggy = [&] {
    if (coin(gen)) return ss(item, gen);  // stand-in for the correct branch
    return privet::uniform_subset(gen, ss.s(), ss.d());
  };
  CHECK_FALSE(inclusion_fit(buggy, item, ss.p_true(), 100'000).passes());
}

TEST_CASE("all 120 output sets of s = 10, d = 3 have their exact probabilities") {
  privet::testing::seeded_release_generator gen(33);
  const privet::subset_selection ss(1.0, 10);
  REQUIRE(ss.d() == 3);
  const std::uint64_t item = 6;
  const double p = ss.p_true();
  // C(9, 2) = 36 sets contain the item, C(9, 3) = 84 do not.
  std::map<std::vector<std::uint64_t>, std::uint64_t> seen;
  constexpr int reps = 240'000;
  for (int i = 0; i < reps; ++i) {
    auto out = ss(item, gen);
    std::sort(out.begin(), out.end());
    ++seen[out];
  }
  REQUIRE(seen.size() == 120);
  std::vector<std::uint64_t> counts;
  std::vector<double> probs;
  for (const auto& [set, c] : seen) {
    counts.push_back(c);
    const bool has = std::find(set.begin(), set.end(), item) != set.end();
    probs.push_back(has ? p / 36 : (1 - p) / 84);
  }
  const auto r = privet::test::chi_square_cells(counts, probs, alpha);
  CAPTURE(r.statistic);
  CHECK(r.passes());
}

TEST_CASE("the frequency estimator is unbiased, with the stated variance") {
  // s = 50 candidates at eps = 2 (d = 6); n = 2000 users of whom 300 hold
  // item 0, 100 hold item 1 and the rest are spread over 2..49. R = 300
  // independent rounds give the estimates' mean (z-test against the truth)
  // and variance (chi-square test of (R - 1) S^2 / sigma^2 with R - 1 df).
  privet::testing::seeded_release_generator gen(34);
  const privet::subset_selection ss(2.0, 50);
  constexpr std::uint64_t n = 2000;
  std::vector<std::uint64_t> holds(n);
  for (std::uint64_t u = 0; u < n; ++u) holds[u] = u < 300 ? 0 : u < 400 ? 1 : 2 + u % 48;
  constexpr int rounds = 300;
  std::vector<double> est0, est1;
  std::vector<std::uint64_t> out;
  for (int r = 0; r < rounds; ++r) {
    std::vector<std::uint64_t> counts(50);
    for (auto item : holds) {
      out.clear();
      ss(item, gen, out);
      for (auto j : out) ++counts[j];
    }
    const auto est = ss.estimate_counts(counts, n);
    est0.push_back(est[0]);
    est1.push_back(est[1]);
  }
  const boost::math::chi_squared chi(rounds - 1);
  const double lo = boost::math::quantile(chi, alpha / 2);
  const double hi = boost::math::quantile(boost::math::complement(chi, alpha / 2));
  for (const auto& job : {std::pair{&est0, 300.0}, std::pair{&est1, 100.0}}) {
    const auto* ests = job.first;  // named copies: clang 14 cannot capture a binding
    const double truth = job.second;
    double mean = 0;
    for (double e : *ests) mean += e;
    mean /= rounds;
    double ss2 = 0;
    for (double e : *ests) ss2 += (e - mean) * (e - mean);
    const double var = ss.estimate_variance(static_cast<double>(n), truth);
    CAPTURE(truth);
    CAPTURE(mean);
    CHECK(privet::test::within_sd(mean, truth, std::sqrt(var / rounds)));
    const double stat = ss2 / var;  // ~ chi-square(R - 1) when var is right
    CAPTURE(stat);
    CHECK(stat > lo);
    CHECK(stat < hi);
  }
}
