// Unit tests of the exact coins: parameter validation with its messages,
// certain outcomes, determinism, and the 128-bit uniform draw they rely on.
#include <privet/core/seeded_generator.hpp>
#include <privet/mechanisms/bernoulli.hpp>

#include <doctest/doctest.h>

#include <boost/multiprecision/cpp_int.hpp>

#include <cstdint>
#include <random>
#include <vector>

namespace {
constexpr std::uint64_t max64 = UINT64_MAX;
}  // namespace

TEST_CASE("bernoulli_rational rejects den = 0 and num > den, naming the parameter") {
  privet::seeded_generator gen(1);
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
  privet::seeded_generator gen(2);
  CHECK_THROWS_WITH_AS(privet::bernoulli_exp(gen, 1, 0),
                       "privet: den = 0 is invalid; allowed: >= 1", privet::invalid_parameter);
  CHECK_NOTHROW((void)privet::bernoulli_exp(gen, max64, 1));
  CHECK_NOTHROW((void)privet::bernoulli_exp(gen, max64, max64));
  CHECK_NOTHROW((void)privet::bernoulli_exp(gen, 0, max64));
}

TEST_CASE("big-integer coins validate sign and denominator") {
  using boost::multiprecision::cpp_int;
  privet::seeded_generator gen(3);
  CHECK_THROWS_WITH_AS(privet::bernoulli_exp(gen, cpp_int(-1), cpp_int(2)),
                       "privet: num = -1 is invalid; allowed: >= 0", privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::bernoulli_exp(gen, cpp_int(1), cpp_int(0)),
                       "privet: den = 0 is invalid; allowed: >= 1", privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::bernoulli_rational(gen, cpp_int(3), cpp_int(2)),
                       "privet: num = 3 is invalid; allowed: [0, den]", privet::invalid_parameter);
}

TEST_CASE("certain outcomes are certain and draw no randomness") {
  privet::seeded_generator gen(4);
  const privet::seeded_generator before = gen;
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
  privet::seeded_generator gen(5);
  int hits = 0;
  for (int i = 0; i < 1000; ++i) hits += privet::bernoulli_exp(gen, max64, 1);
  CHECK(hits == 0);
  using boost::multiprecision::cpp_int;
  const cpp_int huge = cpp_int(1) << 200;
  for (int i = 0; i < 100; ++i) CHECK_FALSE(privet::bernoulli_exp(gen, huge, cpp_int(3)));
}

TEST_CASE("coins are a deterministic function of the seed and stream") {
  auto run = [](std::uint64_t seed, std::uint64_t stream) {
    privet::seeded_generator gen(seed, stream);
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
  privet::seeded_generator gen(7);
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
