// Tests of the constant-time Montgomery arithmetic behind Paillier: the
// exponentiation against Boost's generic powm on random inputs of many
// sizes and every window width, the edge cases (exponent 0 and 1, base 0,
// base >= modulus, one-limb moduli down to 1), a textbook known answer,
// products and reductions, the GMP backend's constant-time path (OpenSSL's
// BN_mod_exp_mont_consttime under PRIVET_HAS_OPENSSL, else mpz_powm_sec), and the
// rejection of even moduli and of exponents longer than their public bound.
#include <privet/core/error.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform.hpp>
#include <privet/crypto/detail/montgomery.hpp>

#include <doctest/doctest.h>
#include <boost/multiprecision/cpp_int.hpp>
#include <support/errors.hpp>
#ifdef PRIVET_HAS_GMP
#include <boost/multiprecision/gmp.hpp>
#endif

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace mp = boost::multiprecision;
using mp::cpp_int;
using privet::detail::modular;
using privet::detail::montgomery;

using fixed4096 =
    mp::number<mp::cpp_int_backend<4096, 4096, mp::signed_magnitude, mp::checked, void>>;

namespace {

using privet::test::rejected_parameter;

// Boost's powm computed on unbounded cpp_int, whatever Int is (Boost 1.74's
// powm on a checked 4096-bit type fails an assertion in its division for
// 2048-bit moduli, so it cannot serve as the reference there).
template <class Int>
Int reference_powm(const Int& base, const Int& exp, const Int& m) {
  return Int(mp::powm(cpp_int(base), cpp_int(exp), cpp_int(m)));
}

// An odd modulus of exactly `bits` bits.
template <class Int>
Int random_odd_modulus(privet::testing::seeded_release_generator& gen, std::size_t bits) {
  Int m = privet::random_bits<Int>(gen, bits);
  mp::bit_set(m, static_cast<unsigned>(bits - 1));
  mp::bit_set(m, 0);
  return m;
}

}  // namespace

TEST_CASE_TEMPLATE("Montgomery powm equals Boost's powm on random inputs", Int, cpp_int,
                   fixed4096) {
  privet::testing::seeded_release_generator gen(11);
  for (std::size_t bits : {2u, 17u, 63u, 64u, 65u, 127u, 128u, 200u, 512u, 1031u, 2048u}) {
    const Int m = random_odd_modulus<Int>(gen, bits);
    const modular<Int> mod(m);
    const int trials = bits >= 1024 ? 3 : 12;
    for (int i = 0; i < trials; ++i) {
      // Bases up to one and a half times the modulus' length exercise the
      // reduction of long bases; exponents of the full length exercise every
      // window.
      const Int base = privet::random_bits<Int>(gen, bits + bits / 2 + 1);
      const Int exp = privet::random_bits<Int>(gen, bits);
      CHECK(mod.pow_secret(base, exp, bits) == reference_powm(base, exp, m));
      CHECK(mod.pow_public(base, exp) == reference_powm(base, exp, m));
    }
  }
}

TEST_CASE("every window width and exponent length gives the same power") {
  privet::testing::seeded_release_generator gen(12);
  const cpp_int m = random_odd_modulus<cpp_int>(gen, 130);
  const modular<cpp_int> mod(m);
  for (std::size_t exp_bits = 0; exp_bits <= 600; exp_bits += 7) {
    const cpp_int base = privet::random_bits<cpp_int>(gen, 130) % m;
    const cpp_int exp = privet::random_bits<cpp_int>(gen, exp_bits);
    // The same exponent scanned over its own length and over a longer bound.
    CHECK(mod.pow_secret(base, exp, exp_bits) == mp::powm(base, exp, m));
    CHECK(mod.pow_secret(base, exp, exp_bits + 64) == mp::powm(base, exp, m));
  }
  // The window widths chosen span 1 to 5 over these lengths.
  CHECK(montgomery::window_bits(0) == 1);
  CHECK(montgomery::window_bits(8) == 2);
  CHECK(montgomery::window_bits(2048) == 5);
}

TEST_CASE_TEMPLATE("Montgomery powm edge cases", Int, cpp_int, fixed4096) {
  privet::testing::seeded_release_generator gen(13);
  const std::vector<Int> moduli = {Int(1),
                                   Int(3),
                                   Int(497),
                                   Int(std::uint64_t{0xffffffffffffffffULL}),  // 2^64 - 1, one limb
                                   (Int(1) << 64) + 1,                         // two limbs
                                   random_odd_modulus<Int>(gen, 300)};
  for (const Int& m : moduli) {
    CAPTURE(m.str());
    const modular<Int> mod(m);
    const Int b = privet::random_bits<Int>(gen, 310);
    CHECK(mod.pow_secret(b, Int(0), 0) == Int(1) % m);       // x^0 = 1 (0 mod 1)
    CHECK(mod.pow_secret(b, Int(0), 256) == Int(1) % m);     // zero padded to 256 bits
    CHECK(mod.pow_secret(b, Int(1), 1) == b % m);            // x^1 = x mod m
    CHECK(mod.pow_secret(Int(0), Int(5), 3) == Int(0));      // 0^e = 0 for e > 0
    CHECK(mod.pow_secret(Int(0), Int(0), 3) == Int(1) % m);  // 0^0 = 1, as Boost's powm
    CHECK(mod.pow_secret(m, Int(7), 3) == Int(0));           // base = modulus
    CHECK(mod.pow_secret(Int(m + 2), Int(3), 2) == reference_powm(Int(m + 2), Int(3), m));
    CHECK(mod.pow_secret(Int(m - 1), Int(2), 2) == Int(1) % m);  // (-1)^2 = 1
    CHECK(mod.reduce(b) == b % m);
    const Int x = b % m;
    const Int y = privet::random_bits<Int>(gen, 200) % m;
    CHECK(mod.mul(x, y) == Int(cpp_int(cpp_int(x) * cpp_int(y) % cpp_int(m))));
  }
}

TEST_CASE("a textbook known answer: 4^13 mod 497 = 445") {
  // The worked example of right-to-left binary exponentiation in Schneier,
  // "Applied Cryptography" (2nd ed., 1996, section 11.3), also Wikipedia's
  // "Modular exponentiation" article.
  const modular<cpp_int> mod(cpp_int(497));
  CHECK(mod.pow_secret(cpp_int(4), cpp_int(13), 4) == 445);
  CHECK(mod.pow_public(cpp_int(4), cpp_int(13)) == 445);
}

TEST_CASE("limb-level Montgomery product and conversions") {
  privet::testing::seeded_release_generator gen(14);
  const cpp_int m = random_odd_modulus<cpp_int>(gen, 256);
  const montgomery mont(m);
  REQUIRE(mont.size() == 4);
  const cpp_int r = cpp_int(1) << 256;
  const cpp_int a = privet::random_bits<cpp_int>(gen, 256) % m;
  const cpp_int b = privet::random_bits<cpp_int>(gen, 256) % m;
  std::vector<privet::detail::limb> la(4), lb(4), out(4);
  const auto a_limbs = montgomery::limbs_of(a);
  const auto b_limbs = montgomery::limbs_of(b);
  std::copy(a_limbs.begin(), a_limbs.end(), la.begin());
  std::copy(b_limbs.begin(), b_limbs.end(), lb.begin());
  // mul gives a b R^-1 mod m: multiplying back by R recovers a b mod m.
  mont.mul(la.data(), lb.data(), out.data(),
           std::vector<privet::detail::limb>(mont.scratch_size()).data());
  CHECK(montgomery::from_limbs<cpp_int>(out.data(), 4) * r % m == a * b % m);
  // to_montgomery gives x R mod m, from_montgomery undoes it.
  mont.to_montgomery(a_limbs, out.data());
  CHECK(montgomery::from_limbs<cpp_int>(out.data(), 4) == a * r % m);
  std::vector<privet::detail::limb> back(4);
  mont.from_montgomery(out.data(), back.data());
  CHECK(montgomery::from_limbs<cpp_int>(back.data(), 4) == a);
  // A value of three moduli' length (Horner over several chunks).
  const cpp_int big = privet::random_bits<cpp_int>(gen, 700);
  mont.to_montgomery(montgomery::limbs_of(big), out.data());
  CHECK(montgomery::from_limbs<cpp_int>(out.data(), 4) == big * r % m);
}

TEST_CASE("constant-time equality mask") {
  using privet::detail::ct_eq_mask;
  using privet::detail::limb;
  CHECK(ct_eq_mask(0, 0) == ~limb{0});
  CHECK(ct_eq_mask(5, 5) == ~limb{0});
  CHECK(ct_eq_mask(5, 4) == 0);
  CHECK(ct_eq_mask(0, ~limb{0}) == 0);
  CHECK(ct_eq_mask(limb{1} << 63, 0) == 0);
}

TEST_CASE("bad moduli and exponents are rejected") {
  CHECK(rejected_parameter([] { modular<cpp_int> m(cpp_int(10)); }) == "modulus");
  CHECK(rejected_parameter([] { modular<cpp_int> m(cpp_int(0)); }) == "modulus");
  CHECK(rejected_parameter([] { montgomery m(std::vector<privet::detail::limb>{}); }) == "modulus");
  const modular<cpp_int> mod(cpp_int(1000003));
  // 2^20 needs 21 bits: a 20-bit public bound cannot hold it.
  CHECK_THROWS_WITH_AS(
      (void)mod.pow_secret(cpp_int(3), cpp_int(1) << 20, 20),
      "privet: exponent is negative or longer than its 20-bit public bound; allowed: [0, 2^20)",
      privet::invalid_parameter);
  CHECK(rejected_parameter([&] { (void)mod.pow_secret(cpp_int(3), cpp_int(-1), 8); }) ==
        "exponent");
  CHECK(rejected_parameter([&] { (void)mod.pow_secret(cpp_int(-3), cpp_int(1), 8); }) == "value");
  // A factor longer than the modulus breaks mul's contract: it throws.
  CHECK(rejected_parameter([&] { (void)mod.mul(cpp_int(1) << 200, cpp_int(2)); }) == "value");
  // The full messages (docs/error_audit.md).
  CHECK_THROWS_WITH_AS(modular<cpp_int>(cpp_int(10)),
                       "privet: modulus is even or zero; allowed: an odd modulus (Montgomery "
                       "reduction needs gcd(m, 2) = 1)",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(modular<cpp_int>(cpp_int(0)),
                       "privet: modulus is even or zero; allowed: an odd modulus (Montgomery "
                       "reduction needs gcd(m, 2) = 1)",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(montgomery(std::vector<privet::detail::limb>{}),
                       "privet: modulus is even or zero; allowed: an odd modulus (Montgomery "
                       "reduction needs gcd(m, 2) = 1)",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(montgomery(std::vector<privet::detail::limb>{4, 0, 0}),
                       "privet: modulus is even or zero; allowed: an odd modulus (Montgomery "
                       "reduction needs gcd(m, 2) = 1)",
                       privet::invalid_parameter);
  // A negative modulus is refused as the modulus, before the limb conversion
  // (which would name it "value").
  CHECK(rejected_parameter([] { modular<cpp_int> m(cpp_int(-7)); }) == "modulus");
  CHECK_THROWS_WITH_AS(modular<cpp_int>(cpp_int(-7)),
                       "privet: modulus = -7 is invalid; allowed: an odd modulus > 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(montgomery(cpp_int(-8)),
                       "privet: modulus = -8 is invalid; allowed: an odd modulus > 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(
      (void)mod.pow_secret(cpp_int(3), cpp_int(-1), 8),
      "privet: exponent is negative or longer than its 8-bit public bound; allowed: [0, 2^8)",
      privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)mod.pow_secret(cpp_int(-3), cpp_int(1), 8),
                       "privet: a negative integer was passed to modular arithmetic; allowed: >= 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)mod.reduce(cpp_int(-3)),
                       "privet: a negative integer was passed to modular arithmetic; allowed: >= 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)mod.mul(cpp_int(1) << 200, cpp_int(2)),
                       "privet: a factor of a modular product is longer than the modulus; "
                       "allowed: [0, m)",
                       privet::invalid_parameter);
}

#ifdef PRIVET_HAS_GMP
TEST_CASE("the GMP backend's constant-time power agrees with the cpp_int Montgomery code") {
  using mp::mpz_int;
  privet::testing::seeded_release_generator gen(15);
  for (std::size_t bits : {64u, 521u, 2048u}) {
    const cpp_int m = random_odd_modulus<cpp_int>(gen, bits);
    const modular<cpp_int> ours(m);
    const modular<mpz_int> gmp{mpz_int(m.str())};
    for (int i = 0; i < 3; ++i) {
      const cpp_int base = privet::random_bits<cpp_int>(gen, bits + 40);
      const cpp_int exp = privet::random_bits<cpp_int>(gen, bits);
      CHECK(gmp.pow_secret(mpz_int(base.str()), mpz_int(exp.str()), bits).str() ==
            ours.pow_secret(base, exp, bits).str());
      CHECK(gmp.pow_public(mpz_int(base.str()), mpz_int(exp.str())).str() ==
            ours.pow_public(base, exp).str());
    }
    CHECK(gmp.pow_secret(mpz_int(5), mpz_int(0), 8) == 1);  // GMP refuses exp = 0 itself
    // Bases at and beyond the edges of [0, m), exponent 1 and a short
    // exponent scanned over a longer bound: the same answers as GMP's
    // variable-time mpz_powm.
    const mpz_int gm(m.str());
    const std::vector<mpz_int> edge_bases{mpz_int(0), mpz_int(1),          mpz_int(gm - 1),
                                          gm,         mpz_int(gm * 3 + 2), mpz_int(-gm - 5)};
    for (const mpz_int& base : edge_bases) {
      for (const long e : {1L, 2L, 65537L}) {
        const mpz_int exp(e);
        mpz_int want;
        mpz_powm(want.backend().data(), base.backend().data(), exp.backend().data(),
                 gm.backend().data());
        CHECK(gmp.pow_secret(base, exp, bits) == want);
      }
    }
  }
  // One modulus object used from several threads at once (each thread has
  // its own scratch): every result equals the serial one.
  {
    const cpp_int m = random_odd_modulus<cpp_int>(gen, 1024);
    const modular<mpz_int> shared{mpz_int(m.str())};
    std::vector<mpz_int> bases, exps, want;
    for (int i = 0; i < 8; ++i) {
      bases.emplace_back(privet::random_bits<cpp_int>(gen, 1024).str());
      exps.emplace_back(privet::random_bits<cpp_int>(gen, 512).str());
      want.push_back(shared.pow_secret(bases.back(), exps.back(), 512));
    }
    std::vector<mpz_int> got(bases.size());
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < 2; ++t) {
      threads.emplace_back([&, t] {
        for (std::size_t i = t; i < bases.size(); i += 2) {
          got[i] = shared.pow_secret(bases[i], exps[i], 512);
        }
      });
    }
    for (auto& th : threads) th.join();
    for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == want[i]);
  }
  CHECK(rejected_parameter([] { modular<mpz_int> m(mpz_int(10)); }) == "modulus");
  const modular<mpz_int> mod(mpz_int(1000003));
  CHECK(rejected_parameter([&] { (void)mod.pow_secret(mpz_int(3), mpz_int(1) << 20, 20); }) ==
        "exponent");
  CHECK_THROWS_WITH_AS(modular<mpz_int>(mpz_int(10)),
                       "privet: modulus is even or not positive; allowed: an odd modulus",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(modular<mpz_int>(mpz_int(-7)),
                       "privet: modulus is even or not positive; allowed: an odd modulus",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(
      (void)mod.pow_secret(mpz_int(3), mpz_int(1) << 20, 20),
      "privet: exponent is negative or longer than its 20-bit public bound; allowed: [0, 2^20)",
      privet::invalid_parameter);
}
#endif
