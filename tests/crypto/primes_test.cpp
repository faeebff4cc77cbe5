// Tests of prime generation: the Miller–Rabin round counts against the
// Handbook of Applied Cryptography's Table 4.4, the single-base strong test
// against published strong pseudoprimes, rejection of Carmichael numbers and
// strong pseudoprimes, exact agreement with a sieve on small numbers,
// agreement with Boost's miller_rabin_test on larger ones, and the shape of
// generated primes (exact length, top two bits, primality by Boost).
#include <privet/core/error.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/crypto/detail/primes.hpp>

#include <doctest/doctest.h>
#include <boost/multiprecision/cpp_int.hpp>
#include <boost/multiprecision/miller_rabin.hpp>
#include <support/errors.hpp>
#ifdef PRIVET_HAS_GMP
#include <boost/multiprecision/gmp.hpp>
#endif

#include <boost/random/mersenne_twister.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace mp = boost::multiprecision;
using mp::cpp_int;
using privet::detail::is_probable_prime;
using privet::detail::miller_rabin;
using privet::detail::miller_rabin_rounds;
using privet::detail::strong_probable_prime;

using fixed1024 =
    mp::number<mp::cpp_int_backend<1024, 1024, mp::signed_magnitude, mp::checked, void>>;

namespace {

using privet::test::rejected_parameter;

// Boost's own Miller–Rabin (independent code: its own bases from a Mersenne
// twister, its own powm), many rounds.
bool boost_says_prime(const cpp_int& n) {
  static boost::random::mt19937 mt(2024);
  return mp::miller_rabin_test(n, 64, mt);
}

}  // namespace

TEST_CASE("round counts reproduce HAC Table 4.4 for the 2^-80 target") {
  // Menezes, van Oorschot, Vanstone, Handbook of Applied Cryptography (1996),
  // Table 4.4: rounds t sufficient for error <= (1/2)^80 on random k-bit
  // candidates, from the Damgård–Landrock–Pomerance bounds (also OpenSSL's
  // BN_prime_checks macro, crypto/bn/bn.h before 1.1.0).
  const std::vector<std::pair<std::size_t, unsigned>> table = {
      {100, 27}, {150, 18}, {200, 15}, {250, 12}, {300, 9}, {350, 8},
      {400, 7},  {450, 6},  {550, 5},  {650, 4},  {850, 3}, {1300, 2}};
  for (const auto& row : table) {
    CAPTURE(row.first);
    CHECK(miller_rabin_rounds(row.first, 80) == row.second);
  }
  // Below each threshold the table's previous row is enough (the table is
  // stepwise; the bound in between is never looser).
  for (std::size_t i = 1; i < table.size(); ++i) {
    CAPTURE(table[i].first);
    CHECK(miller_rabin_rounds(table[i].first - 1, 80) <= table[i - 1].second);
  }
}

TEST_CASE("round counts for the 2^-128 target") {
  // Fewer rounds for longer candidates, never below what the bound allows.
  unsigned previous = 1000;
  for (std::size_t k = 64; k <= 4096; k += 64) {
    const unsigned t = miller_rabin_rounds(k, 128);
    CHECK(t <= previous);
    CHECK(privet::detail::miller_rabin_error_log2(k, t) <= -128.0);
    CHECK(privet::detail::miller_rabin_error_log2(k, t - 1) > -128.0);
    previous = t;
  }
  CHECK(miller_rabin_rounds(1024, 128) == 6);
  CHECK(miller_rabin_rounds(1536, 128) == 4);
  // Without the average-case bounds (k < 21) only 4^-t holds: 64 rounds.
  CHECK(miller_rabin_rounds(16, 128) == 64);
  CHECK(rejected_parameter([] { (void)miller_rabin_rounds(1); }) == "bits");
  CHECK(rejected_parameter([] { (void)miller_rabin_rounds(512, 0); }) == "security");
  CHECK_THROWS_WITH_AS((void)miller_rabin_rounds(1), "privet: bits = 1 is invalid; allowed: >= 2",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)miller_rabin_rounds(512, 0),
                       "privet: security = 0 is invalid; allowed: >= 1", privet::invalid_parameter);
}

TEST_CASE("strong pseudoprimes pass exactly the bases published for them") {
  // OEIS A014233: psi_n is the smallest odd composite that is a strong
  // pseudoprime to all of the first n prime bases. psi_1 = 2047 = 23 * 89,
  // psi_2 = 1373653, psi_4 = 3215031751 = 151 * 751 * 28351 (Pomerance,
  // Selfridge, Wagstaff 1980, "The pseudoprimes to 25 * 10^9"), psi_5 =
  // 2152302898747, psi_11 = 3825123056546413051, psi_12 =
  // 318665857834031151167461 and psi_13 = 3317044064679887385961981 (Jiang
  // and Deng 2014). As psi_{n+1} > psi_n for these n, psi_n fails base n + 1.
  const std::vector<unsigned> prime_bases = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41};
  const std::vector<std::pair<cpp_int, std::size_t>> psi = {
      {cpp_int(2047), 1},
      {cpp_int(3215031751ULL), 4},
      {cpp_int("3825123056546413051"), 11},
      {cpp_int("318665857834031151167461"), 12}};
  for (const auto& row : psi) {
    const cpp_int& n = row.first;
    const std::size_t passing = row.second;
    CAPTURE(n.str());
    // It passes the first `passing` prime bases and fails the next (else it
    // would also be psi_{passing + 1}, which the table shows is larger).
    for (std::size_t i = 0; i <= passing; ++i) {
      CAPTURE(prime_bases[i]);
      CHECK(strong_probable_prime(n, cpp_int(prime_bases[i])) == (i < passing));
    }
  }
  CHECK(cpp_int(151) * 751 * 28351 == 3215031751ULL);
  CHECK(cpp_int(149491) * 747451 * 34233211 == cpp_int("3825123056546413051"));
  CHECK(cpp_int(399165290221ULL) * 798330580441ULL == cpp_int("318665857834031151167461"));
}

TEST_CASE("composites are rejected: Carmichael numbers and strong pseudoprimes") {
  privet::testing::seeded_release_generator gen(21);
  // Carmichael numbers (OEIS A002997), Fermat liars to every coprime base.
  for (unsigned long n : {561UL, 1105UL, 1729UL, 2465UL, 2821UL, 6601UL, 8911UL, 41041UL}) {
    CAPTURE(n);
    CHECK_FALSE(is_probable_prime(cpp_int(n), gen));
    CHECK_FALSE(miller_rabin(cpp_int(n), 20, gen));  // without trial division
  }
  // A Carmichael number with no factor below 2^12, so that trial division
  // cannot catch it: Chernick's (6k+1)(12k+1)(18k+1) with k = 710, three
  // primes; it is a strong pseudoprime to bases 2 and 7 but not 3.
  const cpp_int chernick = cpp_int(4261) * 8521 * 12781;
  for (unsigned p : {4261u, 8521u, 12781u}) CHECK((chernick - 1) % (p - 1) == 0);  // Korselt
  CHECK(strong_probable_prime(chernick, cpp_int(2)));
  CHECK(strong_probable_prime(chernick, cpp_int(7)));
  CHECK_FALSE(strong_probable_prime(chernick, cpp_int(3)));
  CHECK_FALSE(privet::detail::has_small_factor(chernick));
  CHECK_FALSE(is_probable_prime(chernick, gen));
  // Strong pseudoprimes to many small bases, with large factors.
  CHECK_FALSE(is_probable_prime(cpp_int("3825123056546413051"), gen));
  CHECK_FALSE(is_probable_prime(cpp_int("318665857834031151167461"), gen));
  // 2^67 - 1 = 193707721 * 761838257287 (Cole 1903).
  CHECK_FALSE(is_probable_prime(cpp_int((cpp_int(1) << 67) - 1), gen));
}

TEST_CASE_TEMPLATE("known primes are accepted", Int, cpp_int, fixed1024) {
  privet::testing::seeded_release_generator gen(22);
  // Mersenne primes 2^61 - 1, 2^89 - 1, 2^127 - 1, 2^521 - 1 (OEIS A000043).
  for (unsigned e : {61u, 89u, 127u, 521u}) {
    CAPTURE(e);
    CHECK(is_probable_prime(Int((Int(1) << e) - 1), gen));
  }
  CHECK(is_probable_prime(Int(2), gen));
  CHECK(is_probable_prime(Int(4093), gen));   // the largest prime below 2^12
  CHECK(is_probable_prime(Int(65537), gen));  // F4
  CHECK_FALSE(is_probable_prime(Int(0), gen));
  CHECK_FALSE(is_probable_prime(Int(1), gen));
  CHECK_FALSE(is_probable_prime(Int(-7), gen));
  CHECK_FALSE(is_probable_prime(Int(4093 * 4091), gen));
}

TEST_CASE("is_probable_prime agrees with a sieve below 2^16 and with Boost above") {
  privet::testing::seeded_release_generator gen(23);
  constexpr std::uint32_t limit = 1 << 16;
  std::vector<bool> composite(limit, false);
  composite[0] = composite[1] = true;
  for (std::uint32_t i = 2; i * i < limit; ++i) {
    if (!composite[i]) {
      for (std::uint32_t j = i * i; j < limit; j += i) composite[j] = true;
    }
  }
  int mismatches = 0;
  for (std::uint32_t n = 0; n < limit; ++n) {
    if (is_probable_prime(cpp_int(n), gen) == composite[n]) ++mismatches;
  }
  CHECK(mismatches == 0);
  // Above 2^24 the Miller–Rabin path decides: compare with Boost on random
  // odd 40- and 80-bit numbers (about 1 in 14 and 1 in 28 of them prime).
  int primes = 0;
  for (std::size_t bits : {40u, 80u}) {
    for (int i = 0; i < 300; ++i) {
      cpp_int n = privet::random_bits<cpp_int>(gen, bits);
      mp::bit_set(n, static_cast<unsigned>(bits - 1));
      mp::bit_set(n, 0);
      const bool ours = is_probable_prime(n, gen);
      CHECK(ours == boost_says_prime(n));
      primes += ours ? 1 : 0;
    }
  }
  CHECK(primes > 10);  // the comparison covered primes, not only composites
}

TEST_CASE_TEMPLATE("random primes have the requested shape and are prime", Int, cpp_int,
                   fixed1024) {
  privet::testing::seeded_release_generator gen(24);
  for (std::size_t bits : {16u, 64u, 128u, 256u, 512u}) {
    for (int i = 0; i < 3; ++i) {
      const Int p = privet::detail::random_prime<Int>(bits, gen);
      CAPTURE(p.str());
      CHECK(privet::detail::bits_of(p) == bits);
      CHECK(mp::bit_test(p, static_cast<unsigned>(bits - 2)));
      CHECK(boost_says_prime(cpp_int(p)));
    }
  }
  // The same seed gives the same prime: generation depends on the generator only.
  privet::testing::seeded_release_generator a(25), b(25);
  CHECK(privet::detail::random_prime<Int>(128, a) == privet::detail::random_prime<Int>(128, b));
  CHECK(rejected_parameter([&] { (void)privet::detail::random_prime<Int>(15, gen); }) == "bits");
  CHECK_THROWS_WITH_AS((void)privet::detail::random_prime<Int>(15, gen),
                       "privet: bits = 15 is invalid; allowed: >= 16", privet::invalid_parameter);
}

TEST_CASE("bad inputs to the prime functions") {
  privet::testing::seeded_release_generator gen(26);
  CHECK(rejected_parameter([&] { (void)miller_rabin(cpp_int(4), 1, gen); }) == "n");
  CHECK(rejected_parameter([&] { (void)miller_rabin(cpp_int(3), 1, gen); }) == "n");
  CHECK(rejected_parameter([] { (void)strong_probable_prime(cpp_int(101), cpp_int(100)); }) == "a");
  CHECK(rejected_parameter([] { (void)strong_probable_prime(cpp_int(101), cpp_int(1)); }) == "a");
  CHECK(rejected_parameter([&] { (void)privet::detail::random_prime<fixed1024>(1025, gen); }) ==
        "bits");
  // The full messages (docs/error_audit.md).
  CHECK_THROWS_WITH_AS((void)miller_rabin(cpp_int(4), 1, gen),
                       "privet: n = 4 is invalid; allowed: odd, >= 5", privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)miller_rabin(cpp_int(3), 1, gen),
                       "privet: n = 3 is invalid; allowed: odd, >= 5", privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)miller_rabin(cpp_int(-5), 1, gen),
                       "privet: n = -5 is invalid; allowed: odd, >= 5", privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)miller_rabin(fixed1024(8), 1, gen),
                       "privet: n = 8 is invalid; allowed: odd, >= 5", privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)strong_probable_prime(cpp_int(101), cpp_int(100)),
                       "privet: a = 100 is invalid; allowed: [2, n - 2] = [2, 99]",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)strong_probable_prime(cpp_int(101), cpp_int(1)),
                       "privet: a = 1 is invalid; allowed: [2, n - 2] = [2, 99]",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)strong_probable_prime(cpp_int(100), cpp_int(3)),
                       "privet: n = 100 is invalid; allowed: odd, >= 5", privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)privet::detail::random_prime<fixed1024>(1025, gen),
                       "privet: bits = 1025 is invalid; allowed: <= 1024",
                       privet::invalid_parameter);
}

#ifdef PRIVET_HAS_GMP
TEST_CASE("prime generation on the GMP backend") {
  using mp::mpz_int;
  privet::testing::seeded_release_generator gen(27);
  const mpz_int p = privet::detail::random_prime<mpz_int>(256, gen);
  CHECK(privet::detail::bits_of(p) == 256);
  CHECK(boost_says_prime(cpp_int(p.str())));
  CHECK(strong_probable_prime(mpz_int(3215031751ULL), mpz_int(7)));
  CHECK_FALSE(strong_probable_prime(mpz_int(3215031751ULL), mpz_int(11)));
  // Same generator state, same prime, whichever backend holds it.
  privet::testing::seeded_release_generator a(28), b(28);
  CHECK(privet::detail::random_prime<mpz_int>(192, a).str() ==
        privet::detail::random_prime<cpp_int>(192, b).str());
}
#endif
