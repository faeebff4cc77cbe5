// The constant-time selectors' parts (mechanisms/detail/ct_select.hpp):
// the grid scores against plain rounding, the denominator and the weights
// against 300-bit reals (Boost's cpp_bin_float, a second computation),
// the exponential mechanism's interval draw against cpp_int arithmetic,
// permute-and-flip's choice under scripted coins, and the word counts.
#include "../support/counting_generator.hpp"
#include "../support/scripted_generator.hpp"

#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/mechanisms/exponential.hpp>

#include <doctest/doctest.h>

#include <boost/multiprecision/cpp_bin_float.hpp>
#include <boost/multiprecision/cpp_int.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace {

namespace mp = boost::multiprecision;
using privet::detail::ct_selector;
using privet::detail::ct_u256;
using privet::detail::int128;
using privet::detail::uint128;
using real300 = mp::number<mp::cpp_bin_float<300>>;

real300 real(uint128 v) {
  return ldexp(real300(static_cast<std::uint64_t>(v >> 64)), 64) +
         real300(static_cast<std::uint64_t>(v));
}

real300 value(const privet::detail::ct_threshold& t) {
  return ldexp(real300(t.hi), -64) + ldexp(real300(t.lo), -128);
}

mp::cpp_int big(uint128 v) {
  return (mp::cpp_int(static_cast<std::uint64_t>(v >> 64)) << 64) |
         mp::cpp_int(static_cast<std::uint64_t>(v));
}

// round(q / g), ties to even, clamped to +-2^116, by the library's rounding.
mp::cpp_int plain_grid_score(double q, double g) {
  const double limit = std::min(std::ldexp(g, 116), std::numeric_limits<double>::max());
  if (std::isnan(q)) q = -limit;
  q = std::clamp(q, -limit, limit);
  const double y = std::nearbyint(q / g);
  int e = 0;
  const double f = std::frexp(y, &e);
  mp::cpp_int m(static_cast<std::int64_t>(std::ldexp(f, 53)));
  return e >= 53 ? mp::cpp_int(m << (e - 53)) : mp::cpp_int(m >> (53 - e));
}

// The scores 0, 1, ..., n - 1 as a sized range that stores none of them.
struct many_scores {
  struct iterator {
    using value_type = double;
    using difference_type = std::ptrdiff_t;
    std::uint64_t i = 0;
    double operator*() const { return static_cast<double>(i); }
    iterator& operator++() {
      ++i;
      return *this;
    }
    iterator operator++(int) {
      const iterator old = *this;
      ++i;
      return old;
    }
    bool operator==(const iterator&) const = default;
  };
  std::uint64_t n = 0;
  [[nodiscard]] iterator begin() const { return {0}; }
  [[nodiscard]] iterator end() const { return {n}; }
  [[nodiscard]] std::size_t size() const { return n; }
};

mp::cpp_int to_big(int128 v) {
  return v < 0 ? mp::cpp_int(-big(static_cast<uint128>(-v))) : big(static_cast<uint128>(v));
}

}  // namespace

TEST_CASE("grid scores are round(q / g) clamped to 2^116 steps, without a branch") {
  for (const bool monotonic : {false, true}) {
    for (const auto& params : std::vector<std::pair<double, double>>{
             {1.0, 1.0}, {0.01, 3.0}, {50.0, 1e-9}, {1.0, std::ldexp(1.0, 971)}}) {
      const double eps = params.first, sens = params.second;
      const ct_selector s(eps, sens, monotonic);
      const double g = s.step();
      CAPTURE(eps);
      CAPTURE(sens);
      std::mt19937_64 rng(7);
      std::vector<double> qs{0.0,
                             -0.0,
                             g / 2,
                             3 * g / 2,
                             -g / 2,
                             -5 * g / 2,
                             std::numeric_limits<double>::max(),
                             std::numeric_limits<double>::lowest(),
                             std::ldexp(g, 116),
                             std::nextafter(std::ldexp(g, 116), 0.0),
                             std::ldexp(g, 117),
                             std::ldexp(g, 60) + g / 2};
      for (int i = 0; i < 2000; ++i) {
        std::uniform_int_distribution<int> ex(-40, 140);
        std::uniform_real_distribution<double> u(-1, 1);
        qs.push_back(std::ldexp(u(rng), ex(rng)) * g);
      }
      for (const double q : qs) {
        CAPTURE(q);
        CHECK(to_big(s.grid_score(q)) == plain_grid_score(q, g));
      }
      // +inf is the top (2^116, or the largest double's grid score when
      // 2^116 g is beyond the doubles); -inf and NaN the bottom.
      const mp::cpp_int top = plain_grid_score(std::numeric_limits<double>::max(), g);
      CHECK(top <= mp::cpp_int(1) << 116);
      CHECK(to_big(s.grid_score(std::numeric_limits<double>::infinity())) == top);
      CHECK(to_big(s.grid_score(-std::numeric_limits<double>::infinity())) == -top);
      CHECK(to_big(s.grid_score(std::numeric_limits<double>::quiet_NaN())) == -top);
      // Non-decreasing: sorted scores give sorted grid scores.
      std::sort(qs.begin(), qs.end());
      for (std::size_t i = 1; i < qs.size(); ++i)
        CHECK(s.grid_score(qs[i - 1]) <= s.grid_score(qs[i]));
    }
  }
}

TEST_CASE("the denominator rounds the coefficient down, within 2^-30 of eps") {
  // eps' = c (D + g) / (d g) must satisfy eps (1 - 2^-29) < eps' <= eps.
  for (const bool monotonic : {false, true}) {
    for (const auto& params : std::vector<std::pair<double, double>>{
             {1.0, 1.0}, {1.3, 0.5}, {0.01, 3.0}, {50.0, 1e-9}, {1e-6, 1e6}}) {
      const double eps = params.first, sens = params.second;
      const ct_selector s(eps, sens, monotonic);
      CAPTURE(eps);
      CAPTURE(sens);
      const real300 c = monotonic ? 1 : 2;
      const real300 g = s.step();
      const real300 exact = c * (real300(sens) + g) / (real300(eps) * g);
      const real300 d = real(s.denominator());
      CHECK(d >= exact);
      CHECK(d < exact + 1);
      CHECK(d >= ldexp(real300(1), 30));
      const real300 eps_grid = c * (real300(sens) + g) / (d * g);
      CHECK(eps_grid <= real300(eps));
      CHECK(eps_grid > real300(eps) * (1 - ldexp(real300(1), -29)));
    }
  }
}

TEST_CASE("weights are exp(-k / d) within weight_error, for any k") {
  for (const double eps : {1.0, 0.01, 7.5}) {
    const ct_selector s(eps, 1.0, false);
    const auto& coin = s.coin();
    const real300 d = real(s.denominator());
    CAPTURE(eps);
    CHECK(coin.weight_error() < std::ldexp(1.0, -118));
    std::mt19937_64 rng(11);
    std::vector<uint128> ks{0,
                            1,
                            2,
                            1000,
                            static_cast<uint128>(s.denominator()),
                            static_cast<uint128>(s.denominator()) * 88,
                            static_cast<uint128>(s.denominator()) * 90,
                            uint128{1} << 117};
    for (int i = 0; i < 200; ++i) ks.push_back(rng() % (static_cast<std::uint64_t>(90 * d)));
    for (const uint128 k : ks) {
      const ct_u256 n{static_cast<std::uint64_t>(k), static_cast<std::uint64_t>(k >> 64), 0, 0};
      const real300 want = exp(-real(k) / d);
      const real300 got = value(coin.weight(n));
      CAPTURE(static_cast<double>(k));
      CHECK(static_cast<double>(abs(got - want)) <= coin.weight_error());
    }
  }
}

TEST_CASE("the exponential mechanism's law is within its stated distance of the exact one") {
  // W_r / S against the exact softmax of -k_r / d (the grid mechanism),
  // in 300-bit reals: half the L1 distance must be within the bound.
  const privet::exponential_mechanism em(1.3, 0.5);
  const ct_selector& s = em.constant_time_selector();
  const std::vector<double> q{1.0, 2.5, 0.0, 2.0, -40.0, 2.5 - 1e-9};
  const auto k = s.gaps(q);
  const real300 d = real(s.denominator());
  real300 w_sum = 0, big_sum = 0;
  std::vector<real300> w, big_w;
  for (const auto& kr : k) {
    w.push_back(exp(-(ldexp(real300(kr[1]), 64) + real300(kr[0])) / d));
    w_sum += w.back();
    big_w.push_back(value(s.coin().weight(kr)));
    big_sum += big_w.back();
  }
  real300 l1 = 0;
  for (std::size_t r = 0; r < k.size(); ++r) l1 += abs(big_w[r] / big_sum - w[r] / w_sum);
  CHECK(static_cast<double>(l1 / 2) <= s.exponential_total_variation(k.size()));
  CHECK(em.guarantee(k.size()).total_variation() == s.exponential_total_variation(k.size()));
}

TEST_CASE("the exponential mechanism returns the interval of floor(V S / 2^320)") {
  // Second computation in cpp_int: S = sum of the weights, U = V S >> 320,
  // and the first r whose running sum exceeds U.
  const privet::exponential_mechanism em(0.7, 1.0);
  const ct_selector& s = em.constant_time_selector();
  const std::vector<double> q{3.0, -1.0, 2.0, 3.0, 0.5, -1e300};
  const auto k = s.gaps(q);
  std::vector<mp::cpp_int> running;
  mp::cpp_int total = 0;
  for (const auto& kr : k) {
    const auto w = s.coin().weight(kr);
    total += (mp::cpp_int(w.hi) << 64) | w.lo;
    running.push_back(total);
  }
  std::mt19937_64 rng(5);
  std::vector<std::vector<std::uint64_t>> scripts{
      {0, 0, 0, 0, 0}, {~0ULL, ~0ULL, ~0ULL, ~0ULL, ~0ULL}, {0, 0, 0, 0, 1ULL << 63}};
  for (int i = 0; i < 500; ++i) scripts.push_back({rng(), rng(), rng(), rng(), rng()});
  for (const auto& words : scripts) {
    mp::cpp_int v = 0;
    for (std::size_t i = 5; i-- > 0;) v = (v << 64) | words[i];
    const mp::cpp_int u = (v * total) >> 320;
    std::size_t want = 0;
    while (!(u < running[want])) ++want;
    privet::test::scripted_generator gen(words);
    CHECK(em(q, gen) == want);
    CHECK(gen.used() == ct_selector::exponential_words);
  }
}

TEST_CASE("permute-and-flip picks the least priority among the successful coins") {
  // Scripted words: a candidate's coins all 0 (every coin succeeds) or all
  // ones (every coin whose bit is set fails), then its three priority
  // words. The best candidate (k = 0) succeeds whatever its coins draw.
  const privet::permute_and_flip pf(1.0, 1.0);
  const ct_selector& s = pf.constant_time_selector();
  const std::size_t coin_words = static_cast<std::size_t>(s.coin().words());
  const std::vector<double> q{1.0, 3.0, 2.0};  // candidate 1 is the best
  for (unsigned pattern = 0; pattern < 8; ++pattern) {
    for (const auto& prio :
         std::vector<std::vector<std::uint64_t>>{{5, 7, 6}, {9, 1, 3}, {2, 2, 1}, {0, ~0ULL, 4}}) {
      std::vector<std::uint64_t> words;
      for (std::size_t r = 0; r < 3; ++r) {
        const bool succeed = ((pattern >> r) & 1) != 0;
        words.insert(words.end(), coin_words, succeed ? 0 : ~0ULL);
        // priority as three words, the given value in the top word
        words.push_back(r);  // low word: breaks nothing, distinct per r
        words.push_back(0);
        words.push_back(prio[r]);
      }
      std::size_t want = 3;
      for (std::size_t r = 0; r < 3; ++r) {
        const bool success = r == 1 || ((pattern >> r) & 1) != 0;
        if (success && (want == 3 || prio[r] < prio[want] || (prio[r] == prio[want] && r < want)))
          want = r;
      }
      privet::test::scripted_generator gen(words);
      CAPTURE(pattern);
      CHECK(pf(q, gen) == want);
      CHECK(gen.used() == words.size());
    }
  }
}

TEST_CASE("every release draws the same number of words, whatever the scores") {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<std::vector<double>> cases{
      {0, 0, 0, 0}, {1e300, -1e300, 0, 5}, {NAN, inf, -inf, 1}, {3, 2, 1, 0}, {0, 0, 0, 1e-300}};
  const privet::exponential_mechanism em(1.0, 1.0);
  const privet::permute_and_flip pf(1.0, 1.0);
  privet::test::counting_release_generator gen(3);
  for (const auto& q : cases) {
    for (int i = 0; i < 20; ++i) {
      std::uint64_t before = gen.calls();
      (void)em(q, gen);
      CHECK(gen.calls() - before == ct_selector::exponential_words);
      before = gen.calls();
      (void)pf(q, gen);
      CHECK(gen.calls() - before == pf.constant_time_selector().permute_and_flip_words(4));
    }
  }
  CHECK(pf.constant_time_selector().permute_and_flip_words(4) ==
        4 * (2 * static_cast<std::size_t>(pf.constant_time_selector().coin().coins()) + 3));
}

TEST_CASE("the guarantees: eps with a total variation, or exact with secure_noise") {
  const privet::exponential_mechanism em(1.0, 1.0);
  const privet::permute_and_flip pf(1.0, 1.0, true);
  static_assert(std::is_same_v<decltype(em.guarantee()), privet::within_tv<privet::pure_dp>>);
  CHECK(em.guarantee().epsilon() == 1.0);
  CHECK(pf.guarantee(10).epsilon() == 1.0);
  // n (e_w + 2^-320) and n t_coin + n^2 2^-193, far below 2^-80 at 2^32.
  CHECK(em.guarantee().total_variation() < std::ldexp(1.0, -80));
  CHECK(pf.guarantee().total_variation() < std::ldexp(1.0, -80));
  CHECK(em.guarantee(1000).total_variation() < em.guarantee().total_variation());
  CHECK(pf.guarantee(1000).total_variation() >=
        1000 * pf.constant_time_selector().coin().total_variation());
  CHECK_THROWS_WITH_AS((void)em.guarantee(privet::detail::ct_max_candidates + 1),
                       "privet: candidates = 4294967297 is invalid; allowed: at most 2^32",
                       privet::invalid_parameter);
  // A list longer than 2^32 is refused before anything is drawn (a sized
  // range, so nothing is allocated either).
  privet::test::counting_release_generator gen(1);
  const many_scores many{(std::uint64_t{1} << 32) + 1};
  CHECK_THROWS_WITH_AS((void)em(many, gen),
                       "privet: scores.size() = 4294967297 is invalid; allowed: at most 2^32 "
                       "candidates",
                       privet::invalid_parameter);
  CHECK(gen.calls() == 0);
  const privet::permute_and_flip<privet::secure_noise> exact(1.0, 1.0);
  static_assert(std::is_same_v<decltype(exact.guarantee()), privet::pure_dp>);
  CHECK(exact.guarantee() == privet::pure_dp(1.0));
}

TEST_CASE("the stated bound n 2^-120 holds at every ratio, the coins capped at 118") {
  // The docs state both distances below n 2^-120: the gaps have 118 bits,
  // so at most 118 coins a candidate, a weight within (2 * 118 + 2.5)
  // 2^-128 < 2^-120 and a coin within 119.5 2^-128. Checked where d is
  // largest (capped at 2^128 - 1: c D / eps beyond 2^1151), where it is
  // smallest (a grid at the least double) and at ordinary ratios.
  for (const auto& params : std::vector<std::pair<double, double>>{
           {1e-300, 1e300}, {1e300, 1e-300}, {1.0, 1.0}, {0.01, 3.0}, {50.0, 1e-9}}) {
    const double eps = params.first, sens = params.second;
    CAPTURE(eps);
    CAPTURE(sens);
    const privet::exponential_mechanism em(eps, sens);
    const privet::permute_and_flip pf(eps, sens);
    CHECK(em.constant_time_selector().coin().coins() <= 118);
    CHECK(em.constant_time_selector().coin().weight_error() < std::ldexp(1.0, -120));
    for (const std::size_t n :
         {std::size_t{1}, std::size_t{1000}, privet::detail::ct_max_candidates}) {
      const double bound = static_cast<double>(n) * std::ldexp(1.0, -120);
      CHECK(em.guarantee(n).total_variation() < bound);
      CHECK(pf.guarantee(n).total_variation() < bound);
    }
  }
  // The extreme ratio: d capped, every one of the 118 bits a coin.
  const ct_selector wide(1e-300, 1e300, false);
  CHECK(wide.denominator() == ~uint128{0});
  CHECK(wide.coin().coins() == 118);
}
