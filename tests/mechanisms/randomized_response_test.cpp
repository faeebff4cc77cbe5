// Unit tests of randomised response: validation, its probabilities, the
// constant-time report (issue 36): the keep threshold against a second
// computation (Boost's cpp_bin_float at 300 digits, a different algorithm
// from the certified big_uint bounds), the mapping past the true value for
// every coin, draw and value of small k, the words drawn per report, and the
// eps-LDP ratio of the law actually sampled.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/mechanisms/randomized_response.hpp>

#include <doctest/doctest.h>
#include <support/counting_generator.hpp>
#include <support/scripted_generator.hpp>
#include <support/threshold_value.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

using privet::test::real300;
using privet::test::threshold_value;

TEST_CASE("randomised response validates its inputs") {
  CHECK_THROWS_WITH_AS(privet::randomized_response(1.0, 1),
                       "privet: k = 1 is invalid; allowed: >= 2", privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::randomized_response(0.0, 4),
                       "privet: epsilon = 0 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  privet::testing::seeded_release_generator gen(1);
  const privet::randomized_response rr(1.0, 4);
  CHECK_THROWS_WITH_AS(static_cast<void>(rr.estimate_counts({1, 2})),
                       "privet: counts.size() = 2 is invalid; allowed: == k = 4",
                       privet::invalid_parameter);
  CHECK(rr.guarantee().epsilon() == 1.0);
}

TEST_CASE("report probabilities follow e^eps / (e^eps + k - 1)") {
  const privet::randomized_response rr(std::log(3.0), 5);
  CHECK(rr.p_true() == doctest::Approx(3.0 / 7.0));
  CHECK(rr.p_other() == doctest::Approx(1.0 / 7.0));
  CHECK(rr.p_true() / rr.p_other() == doctest::Approx(3.0));  // the eps-LDP ratio, exactly e^eps
}

TEST_CASE("randomised response takes any finite eps > 0 and a million values") {
  // The coin is certified bounds on e^eps / (e^eps + k - 1), so an eps such
  // as 1e-3 (whose binary fraction needs 62+ bits) and eps = 700 both work.
  privet::testing::seeded_release_generator gen(3);
  for (double eps : {1e-3, 700.0}) {
    const privet::randomized_response rr(eps, 1'000'000);
    for (int i = 0; i < 100; ++i) CHECK(rr(999'999, gen) < 1'000'000);
  }
  const privet::randomized_response sure(700.0, 1'000'000);
  CHECK(sure(123, gen) == 123);  // keeps with probability 1 - 1e-298
}

TEST_CASE("binary randomised response validates epsilon and its estimate's counts") {
  CHECK_THROWS_WITH_AS(privet::binary_randomized_response(-1.0),
                       "privet: epsilon = -1 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  const privet::binary_randomized_response rr(1.0);
  CHECK_THROWS_WITH_AS((void)rr.estimate_count(5, 4),
                       "privet: true_reports = 5 is invalid; allowed: <= n = 4",
                       privet::invalid_parameter);
}

// Issue 22: a user's value is data, so a value outside [0, k) never throws;
// it is reported as a uniformly random value would be (the mixture of the
// in-domain reports, uniform on [0, k)).
TEST_CASE("a value outside the domain reports uniformly, never throws") {
  privet::testing::seeded_release_generator gen(12);
  const privet::randomized_response rr(2.0, 4);
  int counts[4] = {0, 0, 0, 0};
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const std::uint64_t v = i % 2 == 0 ? 4 : ~std::uint64_t{0};
    const std::uint64_t r = rr(v, gen);
    REQUIRE(r < 4);
    ++counts[r];
  }
  // Uniform: 1/4 each; 6 standard deviations (false alarm about 1e-8 over all 4).
  const double sd = std::sqrt(n * 0.25 * 0.75);
  for (int c : counts) CHECK(std::fabs(c - n * 0.25) < 6 * sd);
}

TEST_CASE("the keep coin is p rounded down to a multiple of 2^-128") {
  // T = floor(p 2^128) exactly: T <= p 2^128 < T + 1, so p' <= p and
  // p - p' < 2^-128 (the brief's bound is 2^-127), checked at 300 digits
  // on the complement 1 - p = (k - 1) / (e^eps + k - 1), which stays exact
  // where p itself rounds to 1 (eps = 700: 1 - p is about 2^-1010):
  // 2^128 - T - 1 < (1 - p) 2^128 <= 2^128 - T.
  const real300 unit = ldexp(real300(1), 128);
  for (double eps : {1e-3, 0.1, std::log(3.0), 1.0, 2.0, 10.0, 40.0, 88.0, 700.0}) {
    for (std::uint64_t k :
         {std::uint64_t{2}, std::uint64_t{5}, std::uint64_t{1'000'000}, ~std::uint64_t{0}}) {
      CAPTURE(eps);
      CAPTURE(k);
      const privet::randomized_response rr(eps, k);
      const real300 miss = real300(k - 1) / (exp(real300(eps)) + real300(k - 1));  // 1 - p
      const real300 pk = threshold_value(rr.keep_threshold());
      const real300 c = unit - pk * unit;  // 2^128 - T, an integer
      CHECK(c - 1 < miss * unit);
      CHECK(miss * unit <= c);
      CHECK((1 - miss) - pk < ldexp(real300(1), -127));
      // p_true() is p' as a double; p_other() is (1 - p') / (k - 1).
      CHECK(rr.p_true() == static_cast<double>(pk));
      const real300 other = (1 - pk) / real300(k - 1);
      CHECK(std::fabs(rr.p_other() - static_cast<double>(other)) <=
            1e-15 * static_cast<double>(other));
    }
  }
  // p within 2^-128 of 1: p' = 1 - 2^-128, and the other values keep their
  // 2^-128 / (k - 1), which the estimator uses.
  const privet::randomized_response sure(700.0, 2);
  CHECK(sure.keep_threshold().hi == ~std::uint64_t{0});
  CHECK(sure.keep_threshold().lo == ~std::uint64_t{0});
  CHECK(sure.p_other() == std::ldexp(1.0, -128));
}

TEST_CASE("the report's law is still exactly eps-LDP, and the guarantee pure eps") {
  // P[z | z] / P[z | z'] = p' (k - 1) / (1 - p') must lie in [1, e^eps]
  // (the other outputs have ratio 1), computed at 300 digits from T.
  for (double eps : {1e-3, 0.5, 1.0, 5.0, 30.0}) {
    for (std::uint64_t k :
         {std::uint64_t{2}, std::uint64_t{3}, std::uint64_t{100}, std::uint64_t{1} << 40}) {
      CAPTURE(eps);
      CAPTURE(k);
      const privet::randomized_response rr(eps, k);
      const real300 p = threshold_value(rr.keep_threshold());
      const real300 ratio = p * real300(k - 1) / (1 - p);
      CHECK(ratio <= exp(real300(eps)));
      CHECK(ratio >= 1);
      CHECK(rr.guarantee() == privet::pure_dp(eps));
    }
  }
  CHECK(privet::binary_randomized_response(0.7).guarantee() == privet::pure_dp(0.7));
}

TEST_CASE("an eps too small for a 2^-128 coin is refused, naming epsilon") {
  // p - 1/k is about eps (k - 1) / k^2: at eps = 1e-45 it is below 2^-128
  // (2.9e-39), and p rounded down falls below 1/k (1/3 is no multiple of
  // 2^-128), which would break the eps-LDP ratio's other side.
  CHECK_THROWS_AS(privet::randomized_response(1e-45, 3), privet::invalid_parameter);
  try {
    privet::randomized_response(1e-45, 3);
  } catch (const privet::invalid_parameter& e) {
    CHECK(std::string(e.what()).find("epsilon = ") != std::string::npos);
  }
  // Every eps >= 2^-62 works, even at k = 2^64 - 1.
  CHECK(privet::randomized_response(std::ldexp(1.0, -62), ~std::uint64_t{0}).p_true() > 0);
  CHECK(privet::randomized_response(std::ldexp(1.0, -62), 3).p_true() > 0);
}

TEST_CASE("a report maps the other value past the true one, for every draw of small k") {
  // Script the words: the coin's two words (U = 0 keeps whenever T >= 1,
  // U = 2^128 - 1 never keeps), then the word whose batched draw is the
  // stand-in x in [0, k) and the other o in [0, k - 1).
  for (std::uint64_t k = 2; k <= 6; ++k) {
    const privet::randomized_response rr(1.0, k);
    for (std::uint64_t z = 0; z <= k; ++z) {  // z = k: outside the domain
      for (std::uint64_t x = 0; x < k; ++x) {
        for (std::uint64_t o = 0; o + 1 < k; ++o) {
          const std::uint64_t w = privet::test::lemire_word(x * (k - 1) + o, k * (k - 1));
          const std::uint64_t truth = z < k ? z : x;
          // The o-th value of [0, k) without truth.
          const std::uint64_t expected = o < truth ? o : o + 1;
          CAPTURE(k);
          CAPTURE(z);
          CAPTURE(x);
          CAPTURE(o);
          privet::test::scripted_generator drop({~std::uint64_t{0}, ~std::uint64_t{0}, w});
          CHECK(rr(z, drop) == expected);
          CHECK(drop.used() == 3);
          privet::test::scripted_generator keep({0, 0, w});
          CHECK(rr(z, keep) == truth);
        }
      }
    }
  }
}

TEST_CASE("every report draws the same words, whatever the value and the coin") {
  // The coin's two words, then one word for the stand-in and the other
  // value (k (k - 1) <= 2^60), redrawn with probability k (k - 1) / 2^64:
  // 3 words for every seed, value (in the domain or not) and outcome.
  for (std::uint64_t k : {std::uint64_t{2}, std::uint64_t{6}, std::uint64_t{1000}}) {
    const privet::randomized_response rr(1.0, k);
    bool kept = false, dropped = false;
    for (std::uint64_t seed = 0; seed < 300; ++seed) {
      for (std::uint64_t v : {std::uint64_t{0}, k / 2, k - 1, k, ~std::uint64_t{0}}) {
        privet::test::counting_release_generator gen(seed);
        const std::uint64_t r = rr(v, gen);
        CHECK(gen.calls() == 3);
        if (v < k) (r == v ? kept : dropped) = true;
      }
    }
    CHECK(kept);
    CHECK(dropped);
  }
  // k (k - 1) > 2^60: a word each, so 4 words unless one is rejected
  // (k = 3 2^61: 2^64 mod k = 2^62, so a quarter of the words are), which
  // depends on those words alone: the same seed draws the same number of
  // words for every value, and for a keep probability near 1 or near 1/k.
  const std::uint64_t big = std::uint64_t{3} << 61;
  const privet::randomized_response often(40.0, big), rarely(1e-3, big);
  int redrawn = 0;
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    privet::test::counting_release_generator ref(seed);
    (void)often(0, ref);
    CHECK(ref.calls() >= 4);
    redrawn += ref.calls() > 4 ? 1 : 0;
    for (std::uint64_t v : {std::uint64_t{1}, big - 1, big}) {
      privet::test::counting_release_generator a(seed), b(seed);
      (void)often(v, a);
      (void)rarely(v, b);
      CHECK(a.calls() == ref.calls());
      CHECK(b.calls() == ref.calls());
    }
  }
  // About 0.44 of 300 reports redraw a word; none would be a broken test
  // (probability below 1e-70).
  CHECK(redrawn > 0);
}
