// Tests of the DGK cryptosystem over every supported backend (cpp_int, a
// checked fixed-width 1024-bit cpp_int, and mpz_int under PRIVET_HAS_GMP):
// decryption and the zero test on every plaintext of Z_u; encryption against
// its definition g^m h^r mod n computed with Boost's generic powm; the key's
// structure checked independently (exact lengths, Boost's Miller-Rabin on
// p, q, v_p, v_q, the divisibility rules and the orders of g and h);
// homomorphic identities; key parts rebuilt and cross-checked across
// backends; and every rejection: sizes below the secure bounds without the
// opt-in, plaintexts, exponents, foreign and malformed ciphertexts, public
// key parts and malformed encodings.
#include <privet/core/error.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform.hpp>
#include <privet/crypto/dgk.hpp>

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
#include <string>
#include <vector>

namespace mp = boost::multiprecision;
namespace dgk = privet::dgk;
using mp::cpp_int;

using fixed1024 =
    mp::number<mp::cpp_int_backend<1024, 1024, mp::signed_magnitude, mp::checked, void>>;

#ifdef PRIVET_HAS_GMP
#define PRIVET_DGK_TYPES cpp_int, fixed1024, mp::mpz_int
#else
#define PRIVET_DGK_TYPES cpp_int, fixed1024
#endif

namespace {

using privet::test::rejected_parameter;

template <class Int>
cpp_int to_cpp(const Int& x) {
  return cpp_int(x.str());
}

// A 256-bit test key with 40-bit subgroup primes and u = 67 (l = 64).
template <class Int>
dgk::keypair<Int> small_keys(std::uint64_t seed, std::size_t bits = 256, std::size_t t = 40,
                             std::uint32_t u = 67) {
  privet::testing::seeded_release_generator gen(seed);
  return dgk::generate_keypair<Int>(dgk::key_parameters{bits, t, u}, dgk::allow_insecure, gen);
}

bool is_prime(const cpp_int& x) {
  boost::random::mt19937 rng(5);
  return mp::miller_rabin_test(x, 40, rng);
}

}  // namespace

TEST_CASE_TEMPLATE("Dec(Enc(m)) = m and the zero test, for every m in Z_u", Int, PRIVET_DGK_TYPES) {
  privet::testing::seeded_release_generator gen(1);
  for (std::uint32_t u : {3u, 67u, 257u}) {
    CAPTURE(u);
    const auto keys = small_keys<Int>(10 + u, 256, 40, u);
    const auto& pk = keys.public_key;
    const auto& sk = keys.private_key;
    REQUIRE(pk.plaintext_modulus() == u);
    for (std::uint32_t m = 0; m < u; ++m) {
      CAPTURE(m);
      const auto c = pk.encrypt(m, gen);
      CHECK(c.value() >= 1);
      CHECK(c.value() < pk.n());
      CHECK(sk.decrypt(c) == m);
      CHECK(sk.is_zero(c) == (m == 0));
    }
  }
}

TEST_CASE_TEMPLATE("encryption is g^m h^r mod n, computed independently", Int, PRIVET_DGK_TYPES) {
  privet::testing::seeded_release_generator gen(2);
  const auto keys = small_keys<Int>(2);
  const auto& pk = keys.public_key;
  CHECK(pk.randomizer_bits() == 100);  // ceil(2.5 * 40)
  const cpp_int n = to_cpp(pk.n()), g = to_cpp(pk.g()), h = to_cpp(pk.h());
  for (int i = 0; i < 10; ++i) {
    const std::uint64_t m = privet::uniform_below(gen, std::uint64_t{67});
    const Int r = privet::random_bits<Int>(gen, pk.randomizer_bits());
    const cpp_int expected =
        cpp_int(mp::powm(g, cpp_int(m), n)) * cpp_int(mp::powm(h, to_cpp(r), n)) % n;
    CHECK(to_cpp(pk.encrypt_with(m, r).value()) == expected);
  }
  // The largest exponent and plaintext.
  const Int r_max = (Int(1) << 100) - 1;
  const cpp_int expected =
      cpp_int(mp::powm(g, cpp_int(66), n)) * cpp_int(mp::powm(h, to_cpp(r_max), n)) % n;
  CHECK(to_cpp(pk.encrypt_with(66, r_max).value()) == expected);
}

TEST_CASE_TEMPLATE("keys have the structure of the paper, checked independently", Int,
                   PRIVET_DGK_TYPES) {
  for (std::uint64_t seed : {3u, 4u}) {
    const auto keys = small_keys<Int>(seed, 320, 48, 37);
    const auto& pk = keys.public_key;
    const auto& sk = keys.private_key;
    const cpp_int n = to_cpp(pk.n()), g = to_cpp(pk.g()), h = to_cpp(pk.h());
    const cpp_int p = to_cpp(sk.p()), q = to_cpp(sk.q());
    const cpp_int vp = to_cpp(sk.v_p()), vq = to_cpp(sk.v_q());
    const cpp_int u = 37;
    CHECK(mp::msb(n) + 1 == 320);
    CHECK(mp::msb(p) + 1 == 160);
    CHECK(mp::msb(q) + 1 == 160);
    CHECK(mp::bit_test(p, 158));  // top two bits set
    CHECK(mp::bit_test(q, 158));
    CHECK(mp::msb(vp) + 1 == 48);
    CHECK(mp::msb(vq) + 1 == 48);
    CHECK(p * q == n);
    CHECK(p != q);
    CHECK(vp != vq);
    CHECK(is_prime(p));
    CHECK(is_prime(q));
    CHECK(is_prime(vp));
    CHECK(is_prime(vq));
    CHECK((p - 1) % (2 * u * vp) == 0);
    CHECK((q - 1) % (2 * u * vq) == 0);
    CHECK((p - 1) % vq != 0);
    CHECK((q - 1) % vp != 0);
    // g of order u v_p v_q, h of order v_p v_q, in Z*_n.
    CHECK(mp::powm(g, u * vp * vq, n) == 1);
    CHECK(mp::powm(g, vp * vq, n) != 1);
    CHECK(mp::powm(g, u * vq, n) != 1);
    CHECK(mp::powm(g, u * vp, n) != 1);
    CHECK(mp::powm(h, vp * vq, n) == 1);
    CHECK(mp::powm(h, vp, n) != 1);
    CHECK(mp::powm(h, vq, n) != 1);
    CHECK(pk.subgroup_bits() == 48);
    CHECK(pk.insecure());
  }
}

TEST_CASE_TEMPLATE("homomorphic operations act in Z_u", Int, PRIVET_DGK_TYPES) {
  privet::testing::seeded_release_generator gen(5);
  const auto keys = small_keys<Int>(5);
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;
  const std::int64_t u = 67;
  const auto mod = [&](std::int64_t x) { return static_cast<std::uint32_t>(((x % u) + u) % u); };
  for (int i = 0; i < 8; ++i) {
    const auto a = static_cast<std::int64_t>(privet::uniform_below(gen, std::uint64_t{67}));
    const auto b = static_cast<std::int64_t>(privet::uniform_below(gen, std::uint64_t{67}));
    const auto ca = pk.encrypt(static_cast<std::uint64_t>(a), gen);
    const auto cb = pk.encrypt(static_cast<std::uint64_t>(b), gen);
    CHECK(sk.decrypt(ca + cb) == mod(a + b));
    CHECK(sk.decrypt(ca - cb) == mod(a - b));
    CHECK(sk.decrypt(-ca) == mod(-a));
    CHECK(sk.decrypt(ca.plus(static_cast<std::uint64_t>(b))) == mod(a + b));
    for (std::int64_t k : {0LL, 1LL, 2LL, 66LL, 67LL, 1000LL, -1LL, -68LL}) {
      CAPTURE(k);
      CHECK(sk.decrypt(ca * k) == mod(a * k));
      CHECK(sk.decrypt(k * ca) == mod(a * k));
    }
    CHECK(sk.decrypt(ca * Int(-5)) == mod(-5 * a));
    CHECK(sk.decrypt(ca * std::uint64_t{134}) == 0);  // 134 = 2 u
    auto acc = ca;
    acc += cb;
    acc -= ca;
    CHECK(sk.decrypt(acc) == mod(b));
    const auto fresh = pk.rerandomize(ca, gen);
    CHECK(fresh.value() != ca.value());
    CHECK(sk.decrypt(fresh) == mod(a));
  }
  // 0 times anything is 1, the deterministic encryption of 0.
  const auto c = pk.encrypt(5, gen);
  CHECK((c * 0).value() == 1);
  CHECK(sk.is_zero(c * 0));
}

TEST_CASE_TEMPLATE("plaintexts, exponents and received values are checked", Int, PRIVET_DGK_TYPES) {
  privet::testing::seeded_release_generator gen(6);
  const auto keys = small_keys<Int>(6);
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;
  CHECK_THROWS_WITH_AS((void)pk.encrypt(67, gen),
                       "privet: DGK plaintext m is outside the plaintext space; allowed: [0, u) "
                       "with u = 67",
                       privet::overflow_error);
  CHECK_THROWS_AS((void)pk.encrypt_with(1000, Int(1)), privet::overflow_error);
  CHECK_THROWS_AS((void)pk.encrypt(5, gen).plus(67), privet::overflow_error);
  CHECK_THROWS_WITH_AS((void)pk.encrypt_with(1, Int(1) << 100),
                       "privet: DGK encryption exponent r is invalid; allowed: [0, 2^100) for "
                       "40-bit subgroup primes",
                       privet::invalid_parameter);
  CHECK(rejected_parameter([&] { (void)pk.encrypt_with(1, Int(-1)); }) == "r");
  CHECK(rejected_parameter([&] { (void)dgk::ciphertext<Int>(pk, Int(0)); }) == "value");
  CHECK(rejected_parameter([&] { (void)dgk::ciphertext<Int>(pk, pk.n()); }) == "value");
  CHECK(rejected_parameter([&] { (void)dgk::ciphertext<Int>(pk, sk.p()); }) == "value");
  CHECK(rejected_parameter([&] { (void)dgk::ciphertext<Int>(pk, Int(pk.n() + 1)); }) == "value");
  // A unit of Z*_n that is no DGK ciphertext: 2^(v_p) mod p lies outside the
  // order-u subgroup for this key (checked independently first).
  const cpp_int p = to_cpp(sk.p());
  REQUIRE(mp::powm(cpp_int(2), to_cpp(sk.v_p()) * 67, p) != 1);
  const dgk::ciphertext<Int> stray(pk, Int(2));
  CHECK_THROWS_WITH_AS((void)sk.decrypt(stray),
                       doctest::Contains("is not a DGK encryption under this key"),
                       privet::invalid_parameter);
  CHECK(rejected_parameter([&] { (void)sk.is_zero(stray); }) == "ciphertext");
}

TEST_CASE_TEMPLATE("ciphertexts of two keys do not mix", Int, PRIVET_DGK_TYPES) {
  privet::testing::seeded_release_generator gen(7);
  const auto a = small_keys<Int>(7);
  const auto b = small_keys<Int>(8);
  const auto ca = a.public_key.encrypt(3, gen);
  const auto cb = b.public_key.encrypt(4, gen);
  CHECK(!ca.same_key(cb));
  CHECK(!(a.public_key == b.public_key));
  CHECK(ca.key() == a.public_key);
  CHECK(rejected_parameter([&] { (void)(ca + cb); }) == "rhs");
  CHECK(rejected_parameter([&] { (void)(ca - cb); }) == "rhs");
  CHECK(rejected_parameter([&] { (void)b.private_key.decrypt(ca); }) == "ciphertext");
  CHECK(rejected_parameter([&] { (void)b.private_key.is_zero(ca); }) == "ciphertext");
  CHECK(rejected_parameter([&] { (void)b.public_key.rerandomize(ca, gen); }) == "ciphertext");
  // The same key rebuilt from its values is the same key.
  const dgk::public_key<Int> again(a.public_key.n(), a.public_key.g(), a.public_key.h(), 67, 40,
                                   dgk::allow_insecure);
  CHECK(again == a.public_key);
  const dgk::ciphertext<Int> wrapped(again, ca.value());
  CHECK(a.private_key.decrypt(wrapped) == 3);
  CHECK(wrapped == ca);
}

TEST_CASE("plaintext primes for comparisons and the parameter helper") {
  CHECK(dgk::plaintext_prime_for(1) == 5);
  CHECK(dgk::plaintext_prime_for(4) == 7);
  CHECK(dgk::plaintext_prime_for(32) == 37);
  CHECK(dgk::plaintext_prime_for(64) == 67);
  CHECK(dgk::plaintext_prime_for(65518) == 65521);
  CHECK_THROWS_WITH_AS((void)dgk::plaintext_prime_for(0),
                       "privet: comparison_bits = 0 is invalid; allowed: [1, 65518]",
                       privet::invalid_parameter);
  CHECK(rejected_parameter([] { (void)dgk::plaintext_prime_for(65519); }) == "comparison_bits");
  const auto p = dgk::key_parameters::for_comparison(64, 2048);
  CHECK(p.modulus_bits == 2048);
  CHECK(p.subgroup_bits == 224);
  CHECK(p.plaintext_prime == 67);
  const auto q = dgk::key_parameters::for_comparison(32);
  CHECK(q.modulus_bits == 3072);
  CHECK(q.subgroup_bits == 256);
  CHECK(q.plaintext_prime == 37);
  CHECK(dgk::randomizer_bits(224) == 560);
  CHECK(dgk::randomizer_bits(41) == 103);
  CHECK(dgk::min_subgroup_bits(2048) == 224);
  CHECK(dgk::min_subgroup_bits(1024) == 160);
}

TEST_CASE_TEMPLATE("key sizes below the secure bounds need allow_insecure", Int, PRIVET_DGK_TYPES) {
  privet::testing::seeded_release_generator gen(9);
  const auto gen_keys = [&](std::size_t k, std::size_t t, std::uint32_t u) {
    (void)dgk::generate_keypair<Int>(dgk::key_parameters{k, t, u}, gen);
  };
  const auto gen_insecure = [&](std::size_t k, std::size_t t, std::uint32_t u) {
    (void)dgk::generate_keypair<Int>(dgk::key_parameters{k, t, u}, dgk::allow_insecure, gen);
  };
  if constexpr (std::is_same_v<Int, fixed1024>) {
    CHECK_THROWS_WITH_AS(gen_keys(2048, 224, 67),
                         "privet: modulus_bits = 2048 is invalid; allowed: an even number in "
                         "[2048, 1022] (this integer type must hold n); smaller keys (>= 128 "
                         "bits) only through dgk::allow_insecure",
                         privet::invalid_parameter);
  } else {
    CHECK_THROWS_WITH_AS(gen_keys(1024, 160, 67),
                         "privet: modulus_bits = 1024 is invalid; allowed: an even number in "
                         "[2048, 16384]; smaller keys (>= 128 bits) only through "
                         "dgk::allow_insecure",
                         privet::invalid_parameter);
    CHECK_THROWS_WITH_AS(gen_keys(2048, 160, 67),
                         "privet: subgroup_bits = 160 is invalid; allowed: [224, 1000] for a "
                         "2048-bit modulus and u = 67 (twice the modulus' security level; "
                         "smaller only through dgk::allow_insecure)",
                         privet::invalid_parameter);
    CHECK(rejected_parameter([&] { gen_keys(16386, 224, 67); }) == "modulus_bits");
    CHECK(rejected_parameter([&] { gen_keys(2049, 224, 67); }) == "modulus_bits");
  }
  CHECK(rejected_parameter([&] { gen_insecure(126, 16, 5); }) == "modulus_bits");
  CHECK(rejected_parameter([&] { gen_insecure(255, 40, 67); }) == "modulus_bits");
  CHECK(rejected_parameter([&] { gen_insecure(256, 15, 67); }) == "subgroup_bits");
  CHECK_THROWS_WITH_AS(gen_insecure(256, 105, 67),
                       "privet: subgroup_bits = 105 is invalid; allowed: [16, 104] for a 256-bit "
                       "modulus and u = 67",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(gen_insecure(256, 40, 0),
                       "privet: plaintext_prime = 0 is invalid; allowed: a prime in [3, 65521] "
                       "(dgk::plaintext_prime_for(l) for l-bit comparisons)",
                       privet::invalid_parameter);
  CHECK(rejected_parameter([&] { gen_insecure(256, 40, 2); }) == "plaintext_prime");
  CHECK(rejected_parameter([&] { gen_insecure(256, 40, 65); }) == "plaintext_prime");
  CHECK(rejected_parameter([&] { gen_insecure(256, 40, 65537); }) == "plaintext_prime");
  // The smallest key the opt-in allows works.
  privet::testing::seeded_release_generator g2(10);
  const auto tiny =
      dgk::generate_keypair<Int>(dgk::key_parameters{128, 16, 5}, dgk::allow_insecure, g2);
  CHECK(tiny.private_key.decrypt(tiny.public_key.encrypt(4, g2)) == 4);
}

TEST_CASE_TEMPLATE("public keys from values are checked", Int, PRIVET_DGK_TYPES) {
  const auto keys = small_keys<Int>(11);
  const auto& pk = keys.public_key;
  const Int n = pk.n(), g = pk.g(), h = pk.h();
  const auto make = [&](const Int& nn, const Int& gg, const Int& hh, std::uint32_t u,
                        std::size_t t) {
    (void)dgk::public_key<Int>(nn, gg, hh, u, t, dgk::allow_insecure);
  };
  CHECK_NOTHROW(make(n, g, h, 67, 40));
  CHECK(rejected_parameter([&] { make(Int(n + 1), g, h, 67, 40); }) == "n");
  CHECK(rejected_parameter([&] { make(Int(-n), g, h, 67, 40); }) == "n");
  CHECK(rejected_parameter([&] { make(n, Int(1), h, 67, 40); }) == "g");
  CHECK(rejected_parameter([&] { make(n, n, h, 67, 40); }) == "g");
  CHECK(rejected_parameter([&] { make(n, keys.private_key.q(), h, 67, 40); }) == "g");
  CHECK(rejected_parameter([&] { make(n, g, Int(0), 67, 40); }) == "h");
  CHECK_THROWS_WITH_AS(make(n, g, g, 67, 40),
                       "privet: h equals g; allowed: h of order v_p v_q, g of order u v_p v_q",
                       privet::invalid_parameter);
  CHECK(rejected_parameter([&] { make(n, g, h, 66, 40); }) == "plaintext_prime");
  CHECK(rejected_parameter([&] { make(n, g, h, 67, 8); }) == "subgroup_bits");
  CHECK(rejected_parameter([&] { (void)dgk::public_key<Int>(n, g, h, 67, 40); }) == "modulus_bits");
}

TEST_CASE_TEMPLATE("private keys from parts: rebuilt, checked, the same on every backend", Int,
                   PRIVET_DGK_TYPES) {
  privet::testing::seeded_release_generator gen(12);
  const auto keys = small_keys<cpp_int>(12);
  const auto& sk0 = keys.private_key;
  const auto& pk0 = keys.public_key;
  const Int p(sk0.p().str()), q(sk0.q().str()), vp(sk0.v_p().str()), vq(sk0.v_q().str());
  const Int g(pk0.g().str()), h(pk0.h().str());
  const auto rebuild = [&](const Int& pp, const Int& qq, const Int& a, const Int& b,
                           std::uint32_t u, const Int& gg, const Int& hh) {
    return dgk::private_key<Int>::from_parts(pp, qq, a, b, u, gg, hh, gen, dgk::allow_insecure);
  };
  const auto sk = rebuild(p, q, vp, vq, 67, g, h);
  const auto& pk = sk.public_key();
  // The same encryption on every backend for the same (m, r).
  for (int i = 0; i < 5; ++i) {
    const std::uint64_t m = privet::uniform_below(gen, std::uint64_t{67});
    const cpp_int r = privet::random_bits<cpp_int>(gen, 100);
    const auto c = pk.encrypt_with(m, Int(r.str()));
    CHECK(to_cpp(c.value()) == pk0.encrypt_with(m, r).value());
    CHECK(sk.decrypt(c) == m);
  }
  CHECK(rejected_parameter([&] { (void)rebuild(Int(p * 3), q, vp, vq, 67, g, h); }) == "p");
  CHECK(rejected_parameter([&] { (void)rebuild(p, p, vp, vq, 67, g, h); }) == "q");
  CHECK(rejected_parameter([&] { (void)rebuild(p, q, vq, vp, 67, g, h); }) == "p");
  CHECK(rejected_parameter([&] { (void)rebuild(p, q, vp, vp, 67, g, h); }) == "v_q");
  CHECK(rejected_parameter([&] { (void)rebuild(p, q, Int(vp * 3), vq, 67, g, h); }) == "v_p");
  CHECK(rejected_parameter([&] { (void)rebuild(p, q, vp, vq, 71, g, h); }) == "p");
  CHECK_THROWS_WITH_AS((void)rebuild(p, q, vp, vq, 67, h, g),
                       "privet: g does not have order u v_p v_q; allowed: g of order u v_p mod p "
                       "and u v_q mod q",
                       privet::invalid_parameter);
  // g^u has order v_p v_q: a valid h but not a valid g.
  const Int gu = dgk::detail::modular<Int>(pk.n()).pow_public(g, Int(67));
  CHECK(rejected_parameter([&] { (void)rebuild(p, q, vp, vq, 67, gu, h); }) == "g");
  CHECK_NOTHROW((void)rebuild(p, q, vp, vq, 67, g, gu));
  CHECK(rejected_parameter([&] { (void)rebuild(p, q, vp, vq, 67, g, Int(pk.n() - 1)); }) == "h");
  CHECK(rejected_parameter([&] {
          (void)dgk::private_key<Int>::from_parts(p, q, vp, vq, 67, g, h, gen);
        }) == "modulus_bits");
}

TEST_CASE_TEMPLATE("public keys round-trip through the binary encoding", Int, PRIVET_DGK_TYPES) {
  const auto keys = small_keys<Int>(13);
  const auto& pk = keys.public_key;
  const auto bytes = dgk::serialize(pk);
  CHECK(bytes.size() == 14 + 3 * 32);
  const auto back = dgk::deserialize_public_key<Int>(bytes, dgk::allow_insecure);
  CHECK(back == pk);
  CHECK(back.subgroup_bits() == 40);
  CHECK(back.plaintext_modulus() == 67);
  // Ciphertexts of the decoded key decrypt under the original private key.
  privet::testing::seeded_release_generator gen(13);
  CHECK(keys.private_key.decrypt(dgk::ciphertext<Int>(pk, back.encrypt(9, gen).value())) == 9);

  using bytes_t = std::vector<std::uint8_t>;
  const auto parse = [](const bytes_t& b) {
    (void)dgk::deserialize_public_key<Int>(b, dgk::allow_insecure);
  };
  CHECK_THROWS_WITH_AS((void)dgk::deserialize_public_key<Int>(bytes),
                       doctest::Contains("privet: malformed DGK public key: modulus_bits = 256 is "
                                         "invalid; allowed:"),
                       privet::serialization_error);
  bytes_t truncated(bytes.begin(), bytes.end() - 1);
  CHECK_THROWS_WITH_AS(parse(truncated),
                       "privet: malformed DGK public key: 95 bytes for n, g and h where 3 x 32 "
                       "are needed",
                       privet::serialization_error);
  bytes_t trailing = bytes;
  trailing.push_back(0);
  CHECK_THROWS_AS(parse(trailing), privet::serialization_error);
  bytes_t version = bytes;
  version[0] = 2;
  CHECK_THROWS_WITH_AS(parse(version),
                       "privet: malformed DGK public key: format version 2 (this build reads "
                       "version 1)",
                       privet::serialization_error);
  bytes_t kind = bytes;
  kind[1] = 7;
  CHECK_THROWS_AS(parse(kind), privet::serialization_error);
  bytes_t short_n = bytes;
  short_n[14] = 0;  // the top byte of n: n no longer has 256 bits
  CHECK_THROWS_WITH_AS(parse(short_n), doctest::Contains("bits, not the 256 announced"),
                       privet::serialization_error);
  bytes_t even = bytes;
  even[14 + 31] &= 0xfe;
  CHECK_THROWS_WITH_AS(parse(even), doctest::Contains("n is not a positive odd integer"),
                       privet::serialization_error);
  bytes_t bad_u = bytes;
  bad_u[10] = 68;
  CHECK_THROWS_WITH_AS(parse(bad_u), doctest::Contains("plaintext_prime = 68 is invalid"),
                       privet::serialization_error);
  bytes_t huge = bytes;
  huge[2] = 0xff;
  huge[3] = 0xff;
  CHECK_THROWS_AS(parse(huge), privet::serialization_error);
  CHECK_THROWS_AS(parse(bytes_t{}), privet::serialization_error);
  CHECK_THROWS_AS(parse(bytes_t{1, 1, 0, 1, 0, 0}), privet::serialization_error);
}

TEST_CASE_TEMPLATE("a key of recommended size: 2048 bits, t = 224", Int, PRIVET_DGK_TYPES) {
  if constexpr (std::is_same_v<Int, fixed1024>) return;  // holds 1022-bit moduli at most
  privet::testing::seeded_release_generator gen(14);
  const auto keys = dgk::generate_keypair<Int>(dgk::key_parameters::for_comparison(64, 2048), gen);
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;
  CHECK(pk.bits() == 2048);
  CHECK(pk.subgroup_bits() == 224);
  CHECK(pk.randomizer_bits() == 560);
  CHECK(!pk.insecure());
  CHECK(sk.v_p() != sk.v_q());
  for (std::uint64_t m : {0u, 1u, 33u, 66u}) {
    const auto c = pk.encrypt(m, gen);
    CHECK(sk.decrypt(c) == m);
    CHECK(sk.is_zero(c) == (m == 0));
  }
  const auto round = dgk::deserialize_public_key<Int>(dgk::serialize(pk));
  CHECK(round == pk);
}

// The error-path audit's rows for this header (docs/error_audit.md, crypto
// (protocols)): every refusal the tests above check by type or name only,
// checked by its full text here.
TEST_CASE_TEMPLATE("every refused value, key part and encoding is named by its full message", Int,
                   PRIVET_DGK_TYPES) {
  using privet::invalid_parameter;
  privet::testing::seeded_release_generator gen(30);
  const auto keys = small_keys<Int>(6);
  const auto other = small_keys<Int>(8);
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;
  const std::string outside =
      "privet: DGK plaintext m is outside the plaintext space; allowed: [0, u) with u = 67";
  CHECK_THROWS_WITH_AS((void)pk.encrypt_with(1000, Int(1)), outside.c_str(),
                       privet::overflow_error);
  CHECK_THROWS_WITH_AS((void)pk.encrypt(5, gen).plus(67), outside.c_str(), privet::overflow_error);
  CHECK_THROWS_WITH_AS((void)pk.encrypt_with(1, Int(-1)),
                       "privet: DGK encryption exponent r is invalid; allowed: [0, 2^100) for "
                       "40-bit subgroup primes",
                       invalid_parameter);
  for (const Int& v : {Int(0), pk.n(), sk.p(), Int(pk.n() + 1)}) {
    CHECK_THROWS_WITH_AS((void)dgk::ciphertext<Int>(pk, v),
                         "privet: DGK ciphertext value is invalid; allowed: an integer in [1, n) "
                         "coprime to n",
                         invalid_parameter);
  }
  const dgk::ciphertext<Int> stray(pk, Int(2));  // a unit, no DGK ciphertext (see above)
  const std::string not_dgk =
      "privet: ciphertext is not a DGK encryption under this key (c^(v_p) mod p lies outside the "
      "order-u subgroup); allowed: g^m h^r mod n";
  CHECK_THROWS_WITH_AS((void)sk.is_zero(stray), not_dgk.c_str(), invalid_parameter);
  CHECK_THROWS_WITH_AS((void)sk.decrypt(stray), not_dgk.c_str(), invalid_parameter);
  const auto ca = pk.encrypt(3, gen);
  const auto cb = other.public_key.encrypt(4, gen);
  const std::string mixed =
      "privet: rhs is a DGK ciphertext under a different public key; allowed: ciphertexts under "
      "the same key (same n, g, h, u)";
  CHECK_THROWS_WITH_AS((void)(ca + cb), mixed.c_str(), invalid_parameter);
  CHECK_THROWS_WITH_AS((void)(ca - cb), mixed.c_str(), invalid_parameter);
  const std::string foreign =
      "privet: ciphertext is under a different DGK public key; allowed: a ciphertext under this "
      "key (same n, g, h, u)";
  CHECK_THROWS_WITH_AS((void)other.private_key.decrypt(ca), foreign.c_str(), invalid_parameter);
  CHECK_THROWS_WITH_AS((void)other.private_key.is_zero(ca), foreign.c_str(), invalid_parameter);
  CHECK_THROWS_WITH_AS((void)other.public_key.rerandomize(ca, gen), foreign.c_str(),
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((void)dgk::plaintext_prime_for(65519),
                       "privet: comparison_bits = 65519 is invalid; allowed: [1, 65518]",
                       invalid_parameter);

  // Public keys from values.
  const Int n = pk.n(), g = pk.g(), h = pk.h();
  const auto make = [&](const Int& nn, const Int& gg, const Int& hh, std::uint32_t u,
                        std::size_t t) {
    (void)dgk::public_key<Int>(nn, gg, hh, u, t, dgk::allow_insecure);
  };
  for (const Int& bad_n : {Int(n + 1), Int(-n)}) {
    CHECK_THROWS_WITH_AS(make(bad_n, g, h, 67, 40),
                         "privet: n is not a positive odd integer; allowed: an odd modulus n = p q",
                         invalid_parameter);
  }
  for (const Int& bad_g : {Int(1), n, sk.q()}) {
    CHECK_THROWS_WITH_AS(make(n, bad_g, h, 67, 40),
                         "privet: g is not an element of Z*_n other than 1; allowed: an integer "
                         "in [2, n) coprime to n",
                         invalid_parameter);
  }
  CHECK_THROWS_WITH_AS(make(n, g, Int(0), 67, 40),
                       "privet: h is not an element of Z*_n other than 1; allowed: an integer in "
                       "[2, n) coprime to n",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(make(n, g, h, 66, 40),
                       "privet: plaintext_prime = 66 is invalid; allowed: a prime in [3, 65521] "
                       "(dgk::plaintext_prime_for(l) for l-bit comparisons)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(make(n, g, h, 67, 8),
                       "privet: subgroup_bits = 8 is invalid; allowed: [16, 104] for a 256-bit "
                       "modulus and u = 67",
                       invalid_parameter);

  // Private keys from parts (a cpp_int key rebuilt on each backend).
  const auto base = small_keys<cpp_int>(12);
  const Int p(base.private_key.p().str()), q(base.private_key.q().str());
  const Int vp(base.private_key.v_p().str()), vq(base.private_key.v_q().str());
  const Int bg(base.public_key.g().str()), bh(base.public_key.h().str());
  const auto rebuild = [&](const Int& pp, const Int& qq, const Int& a, const Int& b,
                           std::uint32_t u, const Int& gg, const Int& hh) {
    (void)dgk::private_key<Int>::from_parts(pp, qq, a, b, u, gg, hh, gen, dgk::allow_insecure);
  };
  CHECK_THROWS_WITH_AS(rebuild(Int(p * 3), q, vp, vq, 67, bg, bh),
                       "privet: p is not prime; allowed: a prime", invalid_parameter);
  CHECK_THROWS_WITH_AS(rebuild(p, Int(q * 3), vp, vq, 67, bg, bh),
                       "privet: q is not prime; allowed: a prime", invalid_parameter);
  CHECK_THROWS_WITH_AS(rebuild(p, p, vp, vq, 67, bg, bh),
                       "privet: q equals p; allowed: a prime other than p", invalid_parameter);
  CHECK_THROWS_WITH_AS(rebuild(p, Int(65537), vp, vq, 67, bg, bh),
                       "privet: q = a prime of 17 bits is invalid; allowed: a prime of the same "
                       "length as p (128 bits)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(rebuild(p, q, Int(vp * 3), vq, 67, bg, bh),
                       "privet: v_p is not prime; allowed: a prime", invalid_parameter);
  CHECK_THROWS_WITH_AS(rebuild(p, q, vp, Int(vq * 3), 67, bg, bh),
                       "privet: v_q is not prime; allowed: a prime", invalid_parameter);
  CHECK_THROWS_WITH_AS(rebuild(p, q, vp, vp, 67, bg, bh),
                       "privet: v_q equals v_p or differs in length; allowed: a prime other than "
                       "v_p of the same length (40 bits)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(rebuild(p, q, vq, vp, 67, bg, bh),
                       "privet: p - 1 is not a multiple of u v_p or is one of v_q; allowed: p = 1 "
                       "mod u v_p with v_q not dividing p - 1",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(rebuild(p, q, vp, vq, 67, bg, Int(Int(base.public_key.n().str()) - 1)),
                       "privet: h does not have order v_p v_q; allowed: h of order v_p mod p and "
                       "v_q mod q",
                       invalid_parameter);

  // Encodings.
  using bytes_t = std::vector<std::uint8_t>;
  const auto encoded = dgk::serialize(pk);
  const auto parse = [](const bytes_t& b) {
    (void)dgk::deserialize_public_key<Int>(b, dgk::allow_insecure);
  };
  bytes_t kind = encoded;
  kind[1] = 7;
  CHECK_THROWS_WITH_AS(parse(kind),
                       "privet: malformed DGK public key: kind 7 is not a public key (1)",
                       privet::serialization_error);
  bytes_t trailing = encoded;
  trailing.push_back(0);
  CHECK_THROWS_WITH_AS(parse(trailing),
                       "privet: malformed DGK public key: 97 bytes for n, g and h where 3 x 32 "
                       "are needed",
                       privet::serialization_error);
  bytes_t huge = encoded;
  huge[2] = 0xff;
  huge[3] = 0xff;
  CHECK_THROWS_WITH_AS(parse(huge),
                       "privet: malformed DGK public key: modulus length 65535 bits outside [2, "
                       "16384]",
                       privet::serialization_error);
  CHECK_THROWS_WITH_AS(parse(bytes_t{}),
                       "privet: malformed DGK public key: truncated at byte 0 (1 more needed, 0 "
                       "left)",
                       privet::serialization_error);
}
