#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/mechanisms/sparse_vector.hpp>

#include <doctest/doctest.h>
#include <support/counting_generator.hpp>

#include <cmath>
#include <limits>
#include <set>
#include <type_traits>

TEST_CASE_TEMPLATE("AboveThreshold halts on a clearly high query and then refuses", Noise,
                   privet::secure_noise, privet::constant_time_noise) {
  privet::testing::seeded_release_generator gen(41);
  privet::above_threshold<Noise> svt(1.0, 1.0, 100.0, gen);
  // Noise scales 2 and 4: answers 60 below the threshold stay below with
  // overwhelming probability (exp(-60/4) ~ 3e-7 per query side).
  for (int i = 0; i < 10; ++i) CHECK_FALSE(svt(40.0, gen));
  CHECK(svt(200.0, gen));
  CHECK(svt.halted());
  CHECK(svt.queries() == 11);
  CHECK_THROWS_WITH_AS(
      svt(0.0, gen),
      "privet: above_threshold has already reported a query above the threshold; its "
      "budget is spent (start a new instance with fresh budget)",
      privet::budget_exhausted);
}

TEST_CASE("AboveThreshold's guarantee is at most its epsilon and within a grid step of it") {
  privet::testing::seeded_release_generator gen(42);
  for (double eps : {0.1, 1.0, 4.0})
    for (double sens : {1.0, 0.37, 250.0}) {
      privet::above_threshold svt(eps, sens, 0.0, gen);
      CHECK(svt.guarantee().epsilon() <= eps);
      CHECK(svt.guarantee().epsilon() >= eps * (1 - 1e-9));
    }
}

TEST_CASE("AboveThreshold validates its parameters") {
  privet::testing::seeded_release_generator gen(43);
  CHECK_THROWS_WITH_AS(privet::above_threshold(-1, 1, 0, gen),
                       "privet: epsilon = -1 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::above_threshold(1, 0, 0, gen),
                       "privet: sensitivity = 0 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  privet::above_threshold svt(1, 1, 0, gen);
  CHECK(svt(INFINITY, gen));  // data: read as DBL_MAX (it used to throw)
}

TEST_CASE_TEMPLATE("AboveThreshold compares every finite answer and threshold exactly", Noise,
                   privet::secure_noise, privet::constant_time_noise) {
  // Issue 22, findings 1 and 2: answers of 5e6 used to throw (the grid ended
  // at 2^62 steps), so neighbouring answers were told apart by an exception.
  privet::testing::seeded_release_generator gen(43);
  CHECK_THROWS_WITH_AS(privet::above_threshold<Noise>(1, 1, std::nan(""), gen),
                       "privet: threshold = nan is invalid; allowed: a finite number",
                       privet::invalid_parameter);
  const double max = std::numeric_limits<double>::max();
  for (double answer : {4194303.0, 4194304.0, 5e6, 0x1p53, 0x1p53 + 2, max}) {
    INFO("answer = " << answer);
    privet::above_threshold<Noise> svt(1, 1, 100, gen);
    bool up = false;
    CHECK_NOTHROW(up = svt(answer, gen));
    CHECK(up);  // far above 100: noise scales 2 and 4
  }
  for (double answer : {-5e6, -0x1p53, -max, -std::numeric_limits<double>::infinity()}) {
    privet::above_threshold<Noise> svt(1, 1, 100, gen);
    CHECK_FALSE(svt(answer, gen));
  }
  {
    privet::above_threshold<Noise> svt(1, 1, 100, gen);
    CHECK_FALSE(svt(std::nan(""), gen));  // NaN reads as 0, far below 100
    CHECK(svt(max, gen));
  }
  // Huge thresholds are parameters that used to throw; now exact too.
  privet::above_threshold<Noise> high(1, 1, 1e300, gen);
  CHECK_FALSE(high(1e299, gen));
  CHECK_FALSE(high(-max, gen));
  CHECK(high(max, gen));
  privet::above_threshold<Noise> low(1, 1, -1e300, gen);
  CHECK(low(-1e299, gen));
  // answer == threshold beyond 2^117 g: the noise decides, both ways. Each
  // run is P ~ 1/2 either way (symmetric noise up to ties); all 64 the same
  // has probability about 2^-63.
  int ups = 0;
  for (int i = 0; i < 64; ++i) {
    privet::above_threshold<Noise> svt(1, 1, 1e300, gen);
    ups += svt(1e300, gen) ? 1 : 0;
  }
  CHECK(ups > 0);
  CHECK(ups < 64);
  // The same at an ordinary value, on the int128 path, as a cross-check.
  ups = 0;
  for (int i = 0; i < 64; ++i) {
    privet::above_threshold<Noise> svt(1, 1, 3, gen);
    ups += svt(3, gen) ? 1 : 0;
  }
  CHECK(ups > 0);
  CHECK(ups < 64);
}

TEST_CASE("AboveThreshold at extreme parameters: works, or names epsilon") {
  privet::testing::seeded_release_generator gen(44);
  const double tiny = std::numeric_limits<double>::denorm_min();
  privet::above_threshold t(1, tiny, 0, gen);
  CHECK(t.granularity() == tiny);
  CHECK(t.guarantee().epsilon() <= 1);
  CHECK(t(1.0, gen));
  privet::above_threshold h(1, 1e300, 0, gen);
  CHECK(h.guarantee().epsilon() <= 1);
  CHECK_FALSE(h(-std::numeric_limits<double>::max(), gen));
  privet::above_threshold small_eps(1e-9, 1, 0, gen);
  CHECK(small_eps.guarantee().epsilon() <= 1e-9);
  CHECK(small_eps.guarantee().epsilon() >= 1e-9 * (1 - 1e-9));
  // Used to fail inside the sampler with "scale = inf".
  CHECK_THROWS_WITH_AS(privet::above_threshold(1e-300, 1, 0, gen),
                       "privet: epsilon = 1e-300 is invalid; allowed: >= about 2^-50 for "
                       "sensitivity = 1 (the query noise 4 (floor(sensitivity / g) + 1) / "
                       "epsilon must stay within 2^52 grid steps)",
                       privet::invalid_parameter);
}

TEST_CASE("constant-time AboveThreshold: the secure epsilon within (2^64 + 1) tau") {
  privet::testing::seeded_release_generator gen(45);
  for (double eps : {0.1, 1.0, 4.0}) {
    for (double sens : {1.0, 0.37, 250.0}) {
      const privet::above_threshold<privet::constant_time_noise> ct(eps, sens, 0.0, gen);
      const privet::above_threshold<privet::secure_noise> exact(eps, sens, 0.0, gen);
      static_assert(std::is_same_v<decltype(ct.guarantee()), privet::within_tv<privet::pure_dp>>);
      CHECK(ct.guarantee().base() == exact.guarantee());
      CHECK(ct.guarantee().total_variation() > 0);
      CHECK(ct.guarantee().total_variation() < 0x1p-50);
      CHECK(exact.total_variation() == 0);
    }
  }
}

TEST_CASE("constant-time AboveThreshold draws the same words for every answer") {
  // 2 geometrics of B digits per draw: the same count for a query at the
  // threshold, far above or below it, NaN, infinities and answers past
  // 2^117 grid steps (the other decision rule).
  privet::test::counting_release_generator gen(46);
  const double max = std::numeric_limits<double>::max();
  std::set<std::uint64_t> words;
  for (double answer :
       {0.0, 3.0, -1e6, 1e6, 1e300, -max, std::nan(""), std::numeric_limits<double>::infinity()}) {
    for (int i = 0; i < 20; ++i) {
      privet::above_threshold<privet::constant_time_noise> svt(1, 1, 3, gen);
      const std::uint64_t before = gen.calls();
      (void)svt(answer, gen);
      words.insert(gen.calls() - before);
    }
  }
  CHECK(words.size() == 1);
  CHECK(*words.begin() > 0);
  // The exact sampler's word count varies (the control).
  std::set<std::uint64_t> exact_words;
  for (int i = 0; i < 200; ++i) {
    privet::above_threshold<privet::secure_noise> svt(1, 1, 3, gen);
    const std::uint64_t before = gen.calls();
    (void)svt(0.0, gen);
    exact_words.insert(gen.calls() - before);
  }
  CHECK(exact_words.size() > 1);
}
