// uniform_subset's distribution: every one of the C(6, 3) = 20 subsets of
// {0..5} equally likely, and each element of [0, 1000) included with
// probability m / n. Chi-square at alpha = 1e-6 per check (a correct sampler
// fails a check with that probability; seeds are fixed, so a build always
// passes or always fails). A sampler that favours small values is rejected.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/uniform_subset.hpp>

#include <doctest/doctest.h>
#include <support/statistics.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

namespace {
constexpr double alpha = 1e-6;
}

TEST_CASE("every 3-subset of 6 is equally likely") {
  privet::seeded_generator gen(21);
  std::map<std::vector<std::uint64_t>, std::uint64_t> seen;
  for (int i = 0; i < 200'000; ++i) {
    auto s = privet::uniform_subset(gen, 6, 3);
    std::sort(s.begin(), s.end());
    ++seen[s];
  }
  REQUIRE(seen.size() == 20);
  std::vector<std::uint64_t> counts;
  for (const auto& [subset, c] : seen) counts.push_back(c);
  const auto r = privet::test::chi_square_cells(counts, std::vector<double>(20, 1.0 / 20), alpha);
  CAPTURE(r.statistic);
  CHECK(r.passes());
}

TEST_CASE("each of n = 1000 elements appears with probability m / n") {
  privet::seeded_generator gen(22);
  constexpr std::uint64_t n = 1000, m = 46;
  constexpr int reps = 20'000;
  std::vector<std::uint64_t> hits(n);
  std::vector<std::uint64_t> out;
  for (int i = 0; i < reps; ++i) {
    out.clear();
    privet::uniform_subset(gen, n, m, out);
    for (auto v : out) ++hits[v];
  }
  // Each draw puts m distinct items in n cells; drawing without replacement
  // makes the counts a little less variable than multinomial ones, so the
  // Pearson test is conservative here (false alarms below alpha).
  const auto r = privet::test::chi_square_cells(hits, std::vector<double>(n, 1.0 / n), alpha);
  CAPTURE(r.statistic);
  CHECK(r.passes());
  // The same check rejects a sampler that picks the lower half 10 % more
  // often than the upper half.
  auto biased = hits;
  for (std::uint64_t v = 0; v < n; ++v)
    biased[v] = v < n / 2 ? hits[v] * 11 / 10 : hits[v] * 9 / 10;
  CHECK_FALSE(
      privet::test::chi_square_cells(biased, std::vector<double>(n, 1.0 / n), alpha).passes());
}

TEST_CASE("each of n = 1 050 304 elements is as likely, three draws to a word") {
  // Subset selection's sizes (m = 45 of about 10^6): 64 bins of 16 411
  // elements; same conservative Pearson test as above.
  privet::seeded_generator gen(23);
  constexpr std::uint64_t n = 64 * 16'411, m = 45;
  std::vector<std::uint64_t> bins(64), out;
  for (int i = 0; i < 20'000; ++i) {
    out.clear();
    privet::uniform_subset(gen, n, m, out);
    for (auto v : out) ++bins[v / 16'411];
  }
  const auto r = privet::test::chi_square_cells(bins, std::vector<double>(64, 1.0 / 64), alpha);
  CAPTURE(r.statistic);
  CHECK(r.passes());
}
