#include <privet/core/seeded_generator.hpp>
#include <privet/core/uniform.hpp>

#include <doctest/doctest.h>
#include <boost/multiprecision/cpp_int.hpp>
#ifdef PRIVET_HAS_GMP
#include <boost/multiprecision/gmp.hpp>
#endif

#include <cstdint>
#include <random>
#include <vector>

using boost::multiprecision::cpp_int;

TEST_CASE("uniform_below stays in range, including for narrow generators") {
  privet::seeded_generator gen(1);
  std::mt19937 narrow(1);
  for (std::uint64_t n : {1ULL, 2ULL, 3ULL, 1000ULL, (1ULL << 63) + 1, ~0ULL}) {
    for (int i = 0; i < 200; ++i) {
      CHECK(privet::uniform_below(gen, n) < n);
      CHECK(privet::uniform_below(narrow, n) < n);
    }
  }
  CHECK_THROWS_WITH_AS(
      privet::uniform_below(gen, std::uint64_t{0}),
      "privet: n = 0 is invalid; allowed: >= 1 (the range [0, n) must not be empty)",
      privet::invalid_parameter);
}

TEST_CASE("uniform_int covers a closed range, including the full int64 range") {
  privet::seeded_generator gen(2);
  bool lo = false, hi = false;
  for (int i = 0; i < 1000; ++i) {
    const int x = privet::uniform_int(gen, -3, 3);
    CHECK(x >= -3);
    CHECK(x <= 3);
    lo |= x == -3;
    hi |= x == 3;
  }
  CHECK((lo && hi));
  (void)privet::uniform_int(gen, INT64_MIN, INT64_MAX);
  CHECK_THROWS_WITH_AS(privet::uniform_int(gen, 5, 4),
                       "privet: lo = 5 is invalid; allowed: <= hi = 4", privet::invalid_parameter);
}

TEST_CASE("uniform_real is in [0, 1) on the 2^-53 grid") {
  privet::seeded_generator gen(3);
  for (int i = 0; i < 1000; ++i) {
    const double u = privet::uniform_real(gen);
    CHECK(u >= 0.0);
    CHECK(u < 1.0);
    CHECK(std::ldexp(u, 53) == std::floor(std::ldexp(u, 53)));
  }
}

TEST_CASE("random big integers below a bound") {
  privet::seeded_generator gen(4);
  const cpp_int bound = (cpp_int(1) << 300) + 12345;
  bool high = false;
  for (int i = 0; i < 200; ++i) {
    const cpp_int r = privet::uniform_below(gen, bound);
    CHECK(r >= 0);
    CHECK(r < bound);
    high |= r > (cpp_int(1) << 299);
  }
  CHECK(high);  // all 200 draws below half the bound: probability 2^-200
  CHECK(privet::uniform_below(gen, cpp_int(1)) == 0);
  CHECK_THROWS_WITH_AS(privet::uniform_below(gen, cpp_int(0)),
                       "privet: bound = 0 is invalid; allowed: > 0", privet::invalid_parameter);
  CHECK(privet::random_bits<cpp_int>(gen, 70) < (cpp_int(1) << 70));
}

#ifdef PRIVET_HAS_GMP
TEST_CASE("random big integers with the GMP backend") {
  using boost::multiprecision::mpz_int;
  privet::seeded_generator gen(5);
  const mpz_int bound = (mpz_int(1) << 2048) - 159;
  for (int i = 0; i < 50; ++i) CHECK(privet::uniform_below(gen, bound) < bound);
  // Same generator state, same draw, whichever backend holds the number.
  privet::seeded_generator a(6), b(6);
  CHECK(privet::uniform_below(a, mpz_int(1000003)).str() ==
        privet::uniform_below(b, cpp_int(1000003)).str());
}
#endif

namespace {
// Hands out the given 64-bit words in order, counting them.
struct scripted_words {
  using result_type = std::uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~std::uint64_t{0}; }
  std::vector<std::uint64_t> words;
  std::size_t used = 0;
  result_type operator()() { return words.at(used++); }
};
}  // namespace

TEST_CASE("uniform_below_batch: the mixed-radix digits of Lemire's draw below the product") {
  // Expected values computed directly: v = floor(r * P / 2^64) split into
  // digits of radices 1000, 999, 7 (most significant first); r is rejected
  // when r * P mod 2^64 < 2^64 mod P, which r = 0 always is.
  const std::vector<std::uint64_t> bounds{1000, 999, 7};
  const std::uint64_t product = 1000 * 999 * 7;
  const std::uint64_t r = 0x9E3779B97F4A7C15ull;
  using u128 = privet::detail::uint128;
  const auto v = static_cast<std::uint64_t>((static_cast<u128>(r) * product) >> 64);
  REQUIRE(static_cast<std::uint64_t>(static_cast<u128>(r) * product) >= (0 - product) % product);
  scripted_words gen{{0, r}};
  std::vector<std::uint64_t> out(3);
  privet::uniform_below_batch(gen, bounds, out);
  CHECK(gen.used == 2);  // the first word was rejected
  CHECK(out == std::vector<std::uint64_t>{v / (999 * 7), v / 7 % 999, v % 7});

  // One bound is exactly uniform_below, word for word.
  privet::seeded_generator a(7), b(7);
  std::vector<std::uint64_t> one(1);
  for (std::uint64_t n : {std::uint64_t{3}, (std::uint64_t{1} << 40) + 3, ~std::uint64_t{0}}) {
    const std::vector<std::uint64_t> bound{n};
    privet::uniform_below_batch(a, bound, one);
    CHECK(one[0] == privet::uniform_below(b, n));
  }
  CHECK(a == b);

  // Three ranges of 2^20 share a word (their product 2^60 never rejects);
  // two of 2^31 do not.
  scripted_words three{{1, 2, 3}};
  std::vector<std::uint64_t> out3(3);
  privet::uniform_below_batch(three, std::vector<std::uint64_t>(3, std::uint64_t{1} << 20), out3);
  CHECK(three.used == 1);
  scripted_words two{{~std::uint64_t{0}, ~std::uint64_t{0}}};
  std::vector<std::uint64_t> out2(2);
  privet::uniform_below_batch(two, std::vector<std::uint64_t>(2, std::uint64_t{1} << 31), out2);
  CHECK(two.used == 2);
  CHECK(out2 == std::vector<std::uint64_t>(2, (std::uint64_t{1} << 31) - 1));
}

TEST_CASE("uniform_below_batch validates its ranges") {
  privet::seeded_generator gen(8);
  std::vector<std::uint64_t> out(2);
  CHECK_THROWS_WITH_AS(privet::uniform_below_batch(gen, std::vector<std::uint64_t>{4, 0}, out),
                       "privet: bounds[i] = 0 is invalid; allowed: >= 1 (the range [0, n) must "
                       "not be empty)",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::uniform_below_batch(gen, std::vector<std::uint64_t>{4, 5, 6}, out),
                       "privet: out.size() = 2 is invalid; allowed: == bounds.size() = 3",
                       privet::invalid_parameter);
  std::vector<std::uint64_t> none;
  privet::uniform_below_batch(gen, none, none);  // nothing to draw
}
