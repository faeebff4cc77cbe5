#include <privet/core/seeded_generator.hpp>
#include <privet/core/uniform.hpp>

#include <doctest/doctest.h>
#include <boost/multiprecision/cpp_int.hpp>
#ifdef PRIVET_HAS_GMP
#include <boost/multiprecision/gmp.hpp>
#endif

#include <random>

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
