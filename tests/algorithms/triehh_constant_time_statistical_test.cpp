// The constant-time TrieHH client's laws: random_sampling keeps a uniform
// B-subset of the valid prefixes, and with noise its votes have the
// ordinary client's law. Fixed seeds; each check fails a correct client
// with probability alpha = 1e-6.
#include <privet/algorithms/triehh_constant_time.hpp>
#include <privet/core/testing.hpp>

#include <doctest/doctest.h>
#include <support/statistics.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <unordered_set>
#include <utility>
#include <vector>

namespace th = privet::triehh;

namespace {

constexpr double alpha = 1e-6;

th::layer_broadcast broadcast() {
  return {2, {U"aa", U"ab", U"ba", U"bb", U"ca"}, U"abc$"};
}

// Five distinct valid prefixes (one typed twice, under two words), a
// vocabulary word and a word without a candidate.
const th::user_data user{{U"aab", 3},  {U"ab", 1}, {U"abc", 2}, {U"bab", 1},
                         {U"bbbb", 7}, {U"cc", 4}, {U"caa", 1}, {U"abcd", 1}};
const std::unordered_set<th::word> known{U"caa"};

// Pearson's homogeneity test of two samples of equal size over categories,
// those with fewer than 10 observations in both pooled.
privet::test::chi_square_result homogeneity(const std::map<std::uint64_t, std::uint64_t>& a,
                                            const std::map<std::uint64_t, std::uint64_t>& b) {
  std::set<std::uint64_t> keys;
  for (const auto& [k, n] : a) keys.insert(k);
  for (const auto& [k, n] : b) keys.insert(k);
  std::vector<std::pair<double, double>> cells;
  double pa = 0, pb = 0;
  for (const std::uint64_t k : keys) {
    const double x = a.count(k) ? static_cast<double>(a.at(k)) : 0.0;
    const double y = b.count(k) ? static_cast<double>(b.at(k)) : 0.0;
    if (x + y < 10) {
      pa += x;
      pb += y;
    } else {
      cells.emplace_back(x, y);
    }
  }
  if (pa + pb > 0) cells.emplace_back(pa, pb);
  privet::test::chi_square_result r;
  r.cells = static_cast<int>(cells.size());
  for (const auto& [x, y] : cells) r.statistic += (x - y) * (x - y) / (x + y);
  r.critical = privet::test::chi_square_critical(r.cells - 1, alpha);
  return r;
}

}  // namespace

TEST_CASE("the constant-time random sampling keeps a uniform B-subset") {
  th::parameters p;
  p.epsilon = std::numeric_limits<double>::infinity();
  p.contributions = 2;
  const th::prepared_layer prepared(broadcast(), p);
  const th::constant_time_layer ct(prepared, &known, {16, 0});
  privet::testing::seeded_release_generator gen(21);
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t> seen;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const th::vote v = th::respond_constant_time(user, ct, gen, th::random_sampling{});
    REQUIRE(v.indices.size() == 2);
    ++seen[std::minmax(v.indices[0], v.indices[1])];
  }
  REQUIRE(seen.size() == 10);  // the C(5, 2) pairs of the valid prefixes
  std::vector<std::uint64_t> observed;
  for (const auto& [pair, count] : seen) observed.push_back(count);
  const auto r = privet::test::chi_square_cells(observed, std::vector<double>(10, 0.1), alpha);
  CAPTURE(r.statistic);
  CHECK(r.passes());
}

TEST_CASE("with noise the constant-time client's votes have the ordinary client's law") {
  th::parameters p;
  p.epsilon = 1;
  p.contributions = 3;
  const th::prepared_layer prepared(broadcast(), p);
  const th::constant_time_layer ct(prepared, &known, {16, 0});
  const th::client<th::random_sampling> ordinary(
      user, std::make_shared<const std::unordered_set<th::word>>(known));
  std::set<std::uint64_t> valid;
  for (const auto& [c, count] : ordinary.valid_prefixes(prepared.broadcast())) valid.insert(c);
  REQUIRE(valid.size() == 5);
  // A vote's category: how many of its indices are the user's valid
  // prefixes, and how many indices it has (gamma's slots dropped).
  auto category = [&](const th::vote& v) {
    std::uint64_t hits = 0;
    for (const std::uint64_t c : v.indices) hits += valid.count(c);
    return hits * 64 + v.indices.size();
  };
  std::map<std::uint64_t, std::uint64_t> a, b;
  privet::testing::seeded_release_generator g1(31), g2(32);
  for (int i = 0; i < 20000; ++i) {
    ++a[category(th::respond_constant_time(user, ct, g1, th::random_sampling{}))];
    ++b[category(ordinary.respond(prepared, g2))];
  }
  const auto r = homogeneity(a, b);
  CAPTURE(r.statistic);
  CAPTURE(r.cells);
  CHECK(r.cells >= 8);
  CHECK(r.passes());
}
