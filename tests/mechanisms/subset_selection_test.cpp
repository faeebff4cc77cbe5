// Unit tests of subset selection: validation messages, the paper's d, report
// shape, the exact eps-LDP ratio of its probabilities, the estimator's
// identities, and determinism; and the constant-time report (issue 36): the
// keep threshold against Boost's cpp_bin_float (a second computation), the
// exact law of every scripted draw for small s, the increasing order, and
// the words drawn per report.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/mechanisms/subset_selection.hpp>

#include <doctest/doctest.h>
#include <support/counting_generator.hpp>
#include <support/scripted_generator.hpp>
#include <support/threshold_value.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

using privet::test::real300;
using privet::test::threshold_value;

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

TEST_CASE("the keep coin is p rounded down to a multiple of 2^-128, and still eps-LDP") {
  // T = floor(p 2^128) for p = d e^eps / (d e^eps + s - d), at 300 digits;
  // and the sampled law's ratio p' (s - d) / ((1 - p') d) in [1, e^eps].
  const real300 unit = ldexp(real300(1), 128);
  for (auto [eps, s, d] : {std::tuple{10.0, std::uint64_t{980'101}, std::uint64_t{0}},
                           std::tuple{1.0, std::uint64_t{10}, std::uint64_t{3}},
                           std::tuple{0.5, std::uint64_t{100}, std::uint64_t{99}},
                           std::tuple{1e-3, std::uint64_t{1'000'000}, std::uint64_t{0}},
                           std::tuple{40.0, std::uint64_t{50}, std::uint64_t{1}},
                           std::tuple{800.0, std::uint64_t{1000}, std::uint64_t{0}}}) {
    const privet::subset_selection ss =
        d == 0 ? privet::subset_selection(eps, s) : privet::subset_selection(eps, s, d);
    // Copies: clang 14 refuses structured bindings in CAPTURE's lambda.
    const double eps_now = eps;
    const std::uint64_t s_now = s;
    CAPTURE(eps_now);
    CAPTURE(s_now);
    // On the complement 1 - p = (s - d) / (d e^eps + s - d), exact where p
    // rounds to 1: 2^128 - T - 1 < (1 - p) 2^128 <= 2^128 - T.
    const real300 e = exp(real300(eps)), dd = real300(ss.d());
    const real300 miss = real300(s - ss.d()) / (dd * e + real300(s - ss.d()));
    const real300 pk = threshold_value(ss.keep_threshold());
    const real300 c = unit - pk * unit;
    CHECK(c - 1 < miss * unit);
    CHECK(miss * unit <= c);
    CHECK((1 - miss) - pk < ldexp(real300(1), -127));
    const real300 ratio = pk * real300(s - ss.d()) / ((1 - pk) * dd);
    CHECK(ratio <= e);
    CHECK(ratio >= 1);
    CHECK(ss.guarantee() == privet::pure_dp(eps));
    CHECK(ss.p_true() == static_cast<double>(pk));
    const real300 q = (pk * (dd - 1) + (1 - pk) * dd) / real300(s - 1);
    CHECK(std::fabs(ss.p_other() - static_cast<double>(q)) <= 1e-15 * static_cast<double>(q));
  }
  // LDP TrieHH's setting: eps 10 over s = 980 101 candidates gives d = 45.
  CHECK(privet::subset_selection(10.0, 980'101).d() == 45);
  CHECK_THROWS_AS(privet::subset_selection(1e-45, 3, 1), privet::invalid_parameter);
  try {
    privet::subset_selection(1e-45, 3, 1);
  } catch (const privet::invalid_parameter& e) {
    CHECK(std::string(e.what()).find("epsilon = ") != std::string::npos);
  }
}

TEST_CASE("every scripted draw of s = 5, d = 2 gives the exact law, in increasing order") {
  // The draws of one report are t_0 in [0, 3), t_1 in [0, 4) (Floyd on
  // [0, 4)), the stand-in in [0, 5) and the slot in [0, 2): one word, whose
  // 120 values n = ((t_0 4 + t_1) 5 + x) 2 + r are equally likely. Not
  // kept, each 2-subset of the 4 others must come from 120 / C(4, 2) = 20
  // of them; kept, each {z, o} from 120 / C(4, 1) = 30.
  const std::uint64_t s = 5, d = 2, product = 3 * 4 * 5 * 2;
  const privet::subset_selection ss(1.0, s, d);
  for (std::uint64_t z = 0; z <= s; ++z) {  // z = s: outside the domain
    for (int keep = 0; keep < 2; ++keep) {
      CAPTURE(z);
      CAPTURE(keep);
      std::map<std::vector<std::uint64_t>, int> seen;
      for (std::uint64_t n = 0; n < product; ++n) {
        const std::uint64_t coin = keep == 1 ? 0 : ~std::uint64_t{0};
        privet::test::scripted_generator gen({coin, coin, privet::test::lemire_word(n, product)});
        const auto out = ss(z, gen);
        CHECK(gen.used() == 3);
        REQUIRE(out.size() == d);
        CHECK(out[0] < out[1]);
        CHECK(out[1] < s);
        const std::uint64_t x = (n / 2) % 5;  // the stand-in
        const std::uint64_t truth = z < s ? z : x;
        const bool holds = out[0] == truth || out[1] == truth;
        CHECK(holds == (keep == 1));
        if (z < s) ++seen[out];
      }
      if (z < s) {
        CHECK(seen.size() == (keep == 1 ? 4u : 6u));
        for (const auto& [set, count] : seen) CHECK(count == (keep == 1 ? 30 : 20));
      }
    }
  }
}

TEST_CASE("reports come in increasing order") {
  privet::testing::seeded_release_generator gen(5);
  const privet::subset_selection ss(10.0, 980'101);
  for (std::uint64_t item : {std::uint64_t{0}, std::uint64_t{490'000}, std::uint64_t{980'100}}) {
    for (int i = 0; i < 50; ++i) {
      const auto out = ss(item, gen);
      REQUIRE(out.size() == 45);
      for (std::size_t j = 1; j < out.size(); ++j) CHECK(out[j - 1] < out[j]);
    }
  }
}

TEST_CASE("every report draws the same words, whatever the item and the coin") {
  // s = 10, d = 3: one word for all the uniforms (product 7 8 9 10 3 <
  // 2^60), redrawn with probability 15120 / 2^64, so 3 words a report.
  const privet::subset_selection small(1.0, 10, 3);
  bool kept = false, dropped = false;
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    for (std::uint64_t item : {std::uint64_t{0}, std::uint64_t{5}, std::uint64_t{9},
                               std::uint64_t{10}, ~std::uint64_t{0}}) {
      privet::test::counting_release_generator gen(seed);
      const auto out = small(item, gen);
      CHECK(gen.calls() == 3);
      if (item < 10) {
        const bool holds = std::find(out.begin(), out.end(), item) != out.end();
        (holds ? kept : dropped) = true;
      }
    }
  }
  CHECK(kept);
  CHECK(dropped);
  // LDP TrieHH's size: batches whose products reach 2^60 are redrawn up to
  // 1/16 of the time, on their own words only: the same seed draws the same
  // words for every item and for a keep probability of 0.5 or near 1.
  const privet::subset_selection half(10.0, 980'101), sure(40.0, 980'101, 45);
  std::set<std::uint64_t> counts;
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    privet::test::counting_release_generator ref(seed);
    (void)half(0, ref);
    counts.insert(ref.calls());
    for (std::uint64_t item : {std::uint64_t{1}, std::uint64_t{980'100}, std::uint64_t{980'101}}) {
      privet::test::counting_release_generator a(seed), b(seed);
      (void)half(item, a);
      (void)sure(item, b);
      CHECK(a.calls() == ref.calls());
      CHECK(b.calls() == ref.calls());
    }
  }
  // Some reports did redraw (each of about 16 batches is redrawn with
  // probability up to 1/16), so the equalities above covered rejections.
  CHECK(counts.size() > 1);
}

TEST_CASE("the branch-free sort sorts every input") {
  // Batcher's network: every 0-1 input up to n = 16 (a comparator network
  // that sorts every 0-1 input sorts every input: Knuth, TAOCP vol. 3,
  // 5.3.4, Theorem Z); against std::sort, every permutation of 6 values
  // with a repeat and random arrays of every length to 70 and of lengths
  // around powers of two to 4097 (small ranges, so with many repeats).
  for (std::size_t n = 0; n <= 16; ++n) {
    for (std::uint64_t bits = 0; bits < (std::uint64_t{1} << n); ++bits) {
      std::vector<std::uint64_t> v(n);
      for (std::size_t i = 0; i < n; ++i) v[i] = (bits >> i) & 1;
      privet::detail::ct_sort(v.data(), v.size());
      CAPTURE(n);
      CAPTURE(bits);
      REQUIRE(std::is_sorted(v.begin(), v.end()));
    }
  }
  std::vector<std::uint64_t> base{0, 1, 1, 5, 9, ~std::uint64_t{0}};
  std::sort(base.begin(), base.end());
  const std::vector<std::uint64_t> sorted = base;
  do {
    std::vector<std::uint64_t> v = base;
    privet::detail::ct_sort(v.data(), v.size());
    CHECK(v == sorted);
  } while (std::next_permutation(base.begin(), base.end()));
  privet::seeded_generator gen(4);
  std::vector<std::size_t> lengths;
  for (std::size_t n = 0; n <= 70; ++n) lengths.push_back(n);
  for (std::size_t n : {127, 128, 129, 255, 256, 257, 1000, 1023, 1024, 1025, 4097})
    lengths.push_back(n);
  for (const std::size_t n : lengths) {
    for (int rep = 0; rep < 20; ++rep) {
      std::vector<std::uint64_t> v(n);
      for (auto& x : v) x = gen() % (rep % 2 == 0 ? 8 : 1'000'000);
      std::vector<std::uint64_t> want = v;
      std::sort(want.begin(), want.end());
      privet::detail::ct_sort(v.data(), v.size());
      CHECK(v == want);
    }
  }
}

TEST_CASE("the constant-time uniform subset takes every b-subset equally often") {
  // Every combination of the b draws (bounds n - b + 1, ..., n: one word,
  // the draws its mixed-radix digits, lemire_word) through Floyd's
  // algorithm and the sort: each b-subset of [0, n) must come out exactly
  // (n! / (n - b)!) / C(n, b) = b! times, increasing.
  for (const auto& nb : std::vector<std::pair<std::uint64_t, std::uint64_t>>{
           {5, 2}, {6, 3}, {7, 7}, {8, 1}, {9, 4}}) {
    const std::uint64_t n = nb.first, b = nb.second;
    const privet::detail::ct_uniform_subset draw(n, b);
    std::uint64_t product = 1;
    for (std::uint64_t i = 0; i < b; ++i) product *= n - b + i + 1;
    std::map<std::vector<std::uint64_t>, std::uint64_t> seen;
    for (std::uint64_t k = 0; k < product; ++k) {
      privet::test::scripted_generator gen({privet::test::lemire_word(k, product)});
      std::vector<std::uint64_t> out(b);
      draw(gen, out.data());
      REQUIRE(std::is_sorted(out.begin(), out.end()));
      REQUIRE(std::adjacent_find(out.begin(), out.end()) == out.end());
      REQUIRE(out.back() < n);
      ++seen[out];
    }
    std::uint64_t subsets = 1, factorial = 1;
    for (std::uint64_t i = 0; i < b; ++i) {
      subsets = subsets * (n - i) / (i + 1);
      factorial *= i + 1;
    }
    CAPTURE(n);
    CAPTURE(b);
    CHECK(seen.size() == subsets);
    for (const auto& [subset, count] : seen) CHECK(count == factorial);
  }
  CHECK_THROWS_WITH_AS(privet::detail::ct_uniform_subset(5, 6),
                       "privet: b = 6 is invalid; allowed: [1, n] with n = 5",
                       privet::invalid_parameter);
}
