// Unit tests of the exact coins: parameter validation with its messages,
// certain outcomes, determinism, and the 128-bit uniform draw they rely on.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/mechanisms/bernoulli.hpp>

#include <doctest/doctest.h>

#include <boost/multiprecision/cpp_int.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace {
constexpr std::uint64_t max64 = UINT64_MAX;
}  // namespace

TEST_CASE("bernoulli_rational rejects den = 0 and num > den, naming the parameter") {
  privet::testing::seeded_release_generator gen(1);
  CHECK_THROWS_WITH_AS(privet::bernoulli_rational(gen, 0, 0),
                       "privet: den = 0 is invalid; allowed: >= 1", privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::bernoulli_rational(gen, 4, 3),
                       "privet: num = 4 is invalid; allowed: [0, den] = [0, 3]",
                       privet::invalid_parameter);
  try {
    (void)privet::bernoulli_rational(gen, max64, 1);
    FAIL("no exception");
  } catch (const privet::invalid_parameter& e) {
    CHECK(e.parameter() == "num");
  }
}

TEST_CASE("bernoulli_exp rejects den = 0 and accepts every 64-bit numerator") {
  privet::testing::seeded_release_generator gen(2);
  CHECK_THROWS_WITH_AS(privet::bernoulli_exp(gen, 1, 0),
                       "privet: den = 0 is invalid; allowed: >= 1", privet::invalid_parameter);
  CHECK_NOTHROW((void)privet::bernoulli_exp(gen, max64, 1));
  CHECK_NOTHROW((void)privet::bernoulli_exp(gen, max64, max64));
  CHECK_NOTHROW((void)privet::bernoulli_exp(gen, 0, max64));
}

TEST_CASE("big-integer coins validate sign and denominator") {
  using boost::multiprecision::cpp_int;
  privet::testing::seeded_release_generator gen(3);
  CHECK_THROWS_WITH_AS(privet::bernoulli_exp(gen, cpp_int(-1), cpp_int(2)),
                       "privet: num = -1 is invalid; allowed: >= 0", privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::bernoulli_exp(gen, cpp_int(1), cpp_int(0)),
                       "privet: den = 0 is invalid; allowed: >= 1", privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::bernoulli_rational(gen, cpp_int(3), cpp_int(2)),
                       "privet: num = 3 is invalid; allowed: [0, den]", privet::invalid_parameter);
}

TEST_CASE("certain outcomes are certain and draw no randomness") {
  privet::testing::seeded_release_generator gen(4);
  const privet::testing::seeded_release_generator before = gen;
  for (std::uint64_t den : {std::uint64_t{1}, std::uint64_t{7}, max64}) {
    CHECK_FALSE(privet::bernoulli_rational(gen, 0, den));
    CHECK(privet::bernoulli_rational(gen, den, den));
    CHECK(privet::bernoulli_exp(gen, 0, den));  // exp(0) = 1
  }
  CHECK(gen == before);
}

TEST_CASE("a huge exponent gives false at once, not after floor(gamma) coins") {
  // exp(-(2^64 - 1)) is zero to any precision; each call ends at the first
  // failing exp(-1) coin, so 1000 calls finish instantly.
  privet::testing::seeded_release_generator gen(5);
  int hits = 0;
  for (int i = 0; i < 1000; ++i) hits += privet::bernoulli_exp(gen, max64, 1);
  CHECK(hits == 0);
  using boost::multiprecision::cpp_int;
  const cpp_int huge = cpp_int(1) << 200;
  for (int i = 0; i < 100; ++i) CHECK_FALSE(privet::bernoulli_exp(gen, huge, cpp_int(3)));
}

TEST_CASE("coins are a deterministic function of the seed and stream") {
  auto run = [](std::uint64_t seed, std::uint64_t stream) {
    privet::testing::seeded_release_generator gen(seed, stream);
    std::vector<bool> out;
    for (int i = 0; i < 200; ++i) {
      out.push_back(privet::bernoulli_rational(gen, 2, 7));
      out.push_back(privet::bernoulli_exp(gen, 5, 3));
      out.push_back(privet::bernoulli_exp(gen, max64 / 3, max64));
    }
    return out;
  };
  CHECK(run(9, 0) == run(9, 0));
  CHECK(run(9, 0) != run(9, 1));
  CHECK(run(9, 0) != run(10, 0));
}

TEST_CASE("coins accept any random bit source, including 32-bit generators") {
  std::mt19937 narrow(6);
  std::mt19937_64 wide(6);
  int a = 0, b = 0;
  for (int i = 0; i < 1000; ++i) {
    a += privet::bernoulli_exp(narrow, 1, 2);
    b += privet::bernoulli_rational(wide, 1, 2);
  }
  CHECK(a > 0);
  CHECK(a < 1000);
  CHECK(b > 0);
  CHECK(b < 1000);
}

TEST_CASE("the 128-bit uniform draw stays below its bound and reaches the top bits") {
  using privet::detail::uint128;
  privet::testing::seeded_release_generator gen(7);
  const uint128 one = 1;
  for (uint128 n : {one, uint128{max64}, (one << 64) + 1, (one << 100) + 12345, ~uint128{0}}) {
    bool high_half = false;
    for (int i = 0; i < 200; ++i) {
      const uint128 r = privet::detail::uniform_below_u128(gen, n);
      CHECK(r < n);
      high_half = high_half || r >= n / 2;
    }
    if (n > 1) CHECK(high_half);  // misses with probability 2^-200
  }
}

// ---- logistic_bernoulli ------------------------------------------------------

namespace {

// A random bit source that replays given words, then repeats `fill`: it
// steers the coin's uniform into the narrow band where the first word does
// not decide, to exercise the refinement that real generators reach with
// probability about 2^-62.
struct scripted_words {
  using result_type = std::uint64_t;
  std::vector<std::uint64_t> words;
  std::uint64_t fill = 0;
  std::size_t next = 0;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return UINT64_MAX; }
  result_type operator()() { return next < words.size() ? words[next++] : fill; }
};

// The first `count` 64-bit words of the binary expansion of p, from bounds
// at 64 (count + 2) bits (a second, independent computation at a higher
// precision than the coin's first one).
std::vector<std::uint64_t> leading_words(const privet::logistic_bernoulli& coin, int count) {
  const int bits = 64 * (count + 2);
  const auto p = coin.bounds(bits);
  REQUIRE(p.hi - p.lo <= 4);  // tight, so the words are p's own
  std::vector<std::uint64_t> out;
  for (int i = 1; i <= count; ++i) {
    out.push_back(((p.lo >> (bits - 64 * i)) & max64).convert_to<std::uint64_t>());
  }
  return out;
}

}  // namespace

TEST_CASE("logistic_bernoulli validates a, b and x") {
  CHECK_THROWS_WITH_AS(
      privet::logistic_bernoulli(0, 0, 1.0),
      "privet: b = 0 is invalid; allowed: >= 1 when a = 0 (a + b must be positive)",
      privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::logistic_bernoulli(1, 1, -0.5),
                       "privet: x = -0.5 is invalid; allowed: finite and >= 0",
                       privet::invalid_parameter);
  CHECK_THROWS_AS(privet::logistic_bernoulli(1, 1, std::nan("")), privet::invalid_parameter);
  CHECK_THROWS_AS(privet::logistic_bernoulli(1, 1, HUGE_VAL), privet::invalid_parameter);
}

TEST_CASE(
    "logistic_bernoulli: certain coins are certain, and the probability is a / (a + b e^-x)") {
  privet::testing::seeded_release_generator gen(11);
  const privet::logistic_bernoulli never(0, 5, 1.0), always(5, 0, 1.0);
  for (int i = 0; i < 1000; ++i) {
    CHECK_FALSE(never(gen));
    CHECK(always(gen));
  }
  CHECK(never.probability() == 0);
  CHECK(always.probability() == 1);
  // x = 0 gives the rational a / (a + b), whose bounds are exact when dyadic.
  const auto half = privet::logistic_bernoulli(3, 3, 0.0).bounds(128);
  CHECK(half.lo == half.hi);
  CHECK(half.lo == privet::detail::big_uint(1) << 127);
  for (double x : {1e-9, 0.1, 1.0, 10.0, 40.0}) {
    for (const auto& ab :
         {std::pair<std::uint64_t, std::uint64_t>{1, 1}, {46, 999'954}, {1, max64}}) {
      const std::uint64_t a = ab.first, b = ab.second;
      const double a_d = static_cast<double>(a), b_d = static_cast<double>(b);
      const double expected = a_d / (a_d + b_d * std::exp(-x));
      CAPTURE(x);
      CAPTURE(a);
      CHECK(privet::logistic_bernoulli(a, b, x).probability() ==
            doctest::Approx(expected).epsilon(1e-14));
    }
  }
}

TEST_CASE("logistic_bernoulli's bounds bracket p and shrink with precision") {
  const privet::logistic_bernoulli coin(46, 999'954, 10.0);
  auto previous = coin.bounds(64);
  for (int bits : {128, 256, 1024}) {
    const auto p = coin.bounds(bits);
    const int gain = bits - previous.bits;
    // Nested: the finer interval lies within the coarser one.
    CHECK(p.lo >= previous.lo << gain);
    CHECK(p.hi <= previous.hi << gain);
    CHECK(p.hi - p.lo <= 4);
    previous = p;
  }
}

TEST_CASE("logistic_bernoulli refines its bounds when the uniform lands next to p") {
  const privet::logistic_bernoulli coin(46, 999'954, 10.0);
  // U agrees with p on its first 5 words (320 bits, past the coin's 192-bit
  // and its first refined 384-bit bounds), then is all zeros (U < p: true)
  // or all ones (U > p: false).
  const auto words = leading_words(coin, 5);
  scripted_words below{words, 0};
  CHECK(coin(below));
  CHECK(below.next == words.size());  // it really looked that deep
  scripted_words above{words, max64};
  CHECK_FALSE(coin(above));
  // A first word just under p decides at once.
  scripted_words early{{words[0] - 1}, 0};
  CHECK(coin(early));
  CHECK(early.next == 1);
}

TEST_CASE("bernoulli_double is exact at the double's binary value, down to 2^-1000") {
  // U = 0 is below every p > 0 and U = 1 - 2^-64 - ... is above every p < 1;
  // p = 2^-1000 needs 1000 - 63 leading zero bits before its last coin.
  scripted_words zeros{{}, 0}, ones{{}, max64};
  CHECK(privet::bernoulli_double(zeros, 0x1p-1000));
  CHECK_FALSE(privet::bernoulli_double(ones, 0x1p-1000));
  CHECK(privet::bernoulli_double(ones, 1.0));
  CHECK_FALSE(privet::bernoulli_double(zeros, 0.0));
  // 0.75 = 3 / 4: U in [0.5, 0.75) is true, U >= 0.75 false.
  scripted_words just_below{{0xBFFFFFFFFFFFFFFFull}, 0}, at{{0xC000000000000000ull}, 0};
  CHECK(privet::bernoulli_double(just_below, 0.75));
  CHECK_FALSE(privet::bernoulli_double(at, 0.75));
}

TEST_CASE("bernoulli_double refuses a p outside [0, 1], NaN included, instead of clamping it") {
  privet::testing::seeded_release_generator gen(31);
  CHECK_THROWS_WITH_AS((void)privet::bernoulli_double(gen, -1.0),
                       "privet: p = -1 is invalid; allowed: [0, 1]", privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)privet::bernoulli_double(gen, -0x1p-1074),
                       "privet: p = -5e-324 is invalid; allowed: [0, 1]",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)privet::bernoulli_double(gen, 1 + 0x1p-52),
                       "privet: p = 1.0000000000000002 is invalid; allowed: [0, 1]",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)privet::bernoulli_double(gen, std::nan("")),
                       "privet: p = nan is invalid; allowed: [0, 1]", privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)privet::bernoulli_double(gen, HUGE_VAL),
                       "privet: p = inf is invalid; allowed: [0, 1]", privet::invalid_parameter);
}
