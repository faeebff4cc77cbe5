// Tests of Paillier encryption over every supported backend (cpp_int, a
// checked fixed-width 4096-bit cpp_int, and mpz_int under PRIVET_HAS_GMP):
// round trips on edge and random plaintexts (unsigned and signed), agreement
// with the definition g^m r^n mod n^2 computed independently with Boost's
// powm, CRT decryption against textbook decryption, owner-side CRT encryption
// against public encryption with the same r, homomorphic identities (sums,
// differences, negation, scalar products including negative scalars, dense
// and sparse dot products, serial and parallel) against plaintext arithmetic,
// ciphertexts that agree across backends, key generation (exact length,
// equal-length primes confirmed prime by Boost's Miller–Rabin) and every
// rejection: key sizes, plaintexts, scalars, r, ciphertext values and mixed
// keys. Then the Damgård–Jurik–Nielsen mode (its base derived from n alone,
// encryption against (1 + m n) h_N^a computed with Boost's powm, round trips,
// validity, distinct ciphertexts), the randomiser pool (each randomiser used
// once, also from two threads at once; fill independent of the thread
// count; fallback when empty) and key types (run-time and compile-time
// separation; the compile-time failure itself is
// tests/compile_fail/paillier_mixed_key_types.cpp).
#include <privet/core/error.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform.hpp>
#include <privet/crypto/detail/primes.hpp>
#include <privet/crypto/paillier.hpp>

#include <doctest/doctest.h>
#include <boost/multiprecision/cpp_int.hpp>
#include <boost/multiprecision/miller_rabin.hpp>
#include <support/errors.hpp>
#ifdef PRIVET_HAS_GMP
#include <boost/multiprecision/gmp.hpp>
#endif

#include <boost/random/mersenne_twister.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace mp = boost::multiprecision;
namespace paillier = privet::paillier;
using mp::cpp_int;

using fixed4096 =
    mp::number<mp::cpp_int_backend<4096, 4096, mp::signed_magnitude, mp::checked, void>>;

#ifdef PRIVET_HAS_GMP
#define PRIVET_PAILLIER_TYPES cpp_int, fixed4096, mp::mpz_int
#else
#define PRIVET_PAILLIER_TYPES cpp_int, fixed4096
#endif

namespace {

using privet::test::rejected_parameter;

template <class Int>
using ciphertexts = std::vector<paillier::ciphertext<Int>>;

template <class Int>
cpp_int to_cpp(const Int& x) {
  return cpp_int(x.str());
}

// x mod n in [0, n) for any sign of x.
template <class Int>
Int mod_n(const Int& x, const Int& n) {
  Int r = x % n;
  if (r < 0) r += n;
  return r;
}

// A uniform signed plaintext in [-(n-1)/2, (n-1)/2].
template <class Int>
Int random_signed(privet::testing::seeded_release_generator& gen,
                  const paillier::public_key<Int>& pk) {
  const Int half = pk.max_signed();
  return Int(privet::uniform_below(gen, Int(2 * half + 1)) - half);
}

template <class Int>
paillier::keypair<Int> small_keys(std::size_t bits, std::uint64_t seed) {
  privet::testing::seeded_release_generator gen(seed);
  return paillier::generate_keypair<Int>(paillier::insecure_key_size{bits}, gen);
}

// The definition, (n + 1)^m r^n mod n^2, with Boost's generic powm on
// unbounded cpp_int: code independent of privet's Montgomery arithmetic.
cpp_int reference_encrypt(const cpp_int& n, const cpp_int& m, const cpp_int& r) {
  const cpp_int n2 = n * n;
  return cpp_int(mp::powm(cpp_int(n + 1), m, n2)) * cpp_int(mp::powm(r, n, n2)) % n2;
}

}  // namespace

TEST_CASE_TEMPLATE("Dec(Enc(m)) = m on edge and random plaintexts", Int, PRIVET_PAILLIER_TYPES) {
  privet::testing::seeded_release_generator gen(31);
  const auto keys = small_keys<Int>(512, 1);
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;
  const Int n = pk.n();
  std::vector<Int> plaintexts = {
      Int(0), Int(1), Int(2), Int(n - 1), Int(n - 2), pk.max_signed(), Int(pk.max_signed() + 1)};
  for (int i = 0; i < 12; ++i) plaintexts.push_back(privet::uniform_below(gen, n));
  for (const Int& m : plaintexts) {
    CAPTURE(m.str());
    const auto c = pk.encrypt(m, gen);
    CHECK(c.value() > 0);
    CHECK(c.value() < pk.n_squared());
    CHECK(sk.decrypt(c) == m);
    CHECK(sk.decrypt_textbook(c) == m);
    CHECK(sk.decrypt(sk.encrypt(m, gen)) == m);  // the owner's CRT encryption
  }
  std::vector<Int> signed_values = {
      Int(0), Int(1), Int(-1), pk.max_signed(), Int(-pk.max_signed()), Int(-12345)};
  for (int i = 0; i < 12; ++i) signed_values.push_back(random_signed(gen, pk));
  for (const Int& x : signed_values) {
    CAPTURE(x.str());
    const auto c = pk.encrypt_signed(x, gen);
    CHECK(sk.decrypt_signed(c) == x);
    CHECK(sk.decrypt(c) == mod_n(x, n));  // negatives are encoded as n - |x|
    CHECK(sk.decrypt_signed(sk.encrypt_signed(x, gen)) == x);
  }
}

TEST_CASE_TEMPLATE("encryption is (n + 1)^m r^n mod n^2, computed independently", Int,
                   PRIVET_PAILLIER_TYPES) {
  privet::testing::seeded_release_generator gen(32);
  const auto keys = small_keys<Int>(384, 2);
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;
  for (int i = 0; i < 8; ++i) {
    const Int m = privet::uniform_below(gen, pk.n());
    const Int r = pk.random_r(gen);
    const cpp_int expected = reference_encrypt(to_cpp(pk.n()), to_cpp(m), to_cpp(r));
    CHECK(to_cpp(pk.encrypt_with(m, r).value()) == expected);
    CHECK(to_cpp(sk.encrypt_with(m, r).value()) == expected);
  }
}

TEST_CASE_TEMPLATE("CRT decryption equals textbook decryption", Int, PRIVET_PAILLIER_TYPES) {
  privet::testing::seeded_release_generator gen(33);
  for (std::size_t bits : {256u, 512u}) {
    const auto keys = small_keys<Int>(bits, 3 + bits);
    const auto& pk = keys.public_key;
    const auto& sk = keys.private_key;
    // Arbitrary elements of Z*_{n^2}, not only encryptions we made.
    int tried = 0;
    while (tried < 10) {
      const Int v = privet::uniform_below(gen, pk.n_squared());
      if (v == 0 || mp::gcd(v, pk.n()) != 1) continue;
      const paillier::ciphertext<Int> c(pk, v);
      CHECK(sk.decrypt(c) == sk.decrypt_textbook(c));
      ++tried;
    }
    CHECK(sk.decrypt(paillier::ciphertext<Int>(pk, Int(1))) == 0);  // 1 = Enc(0) with r = 1
  }
}

TEST_CASE_TEMPLATE("the owner's CRT encryption equals public encryption with the same r", Int,
                   PRIVET_PAILLIER_TYPES) {
  privet::testing::seeded_release_generator gen(34);
  const auto keys = small_keys<Int>(512, 4);
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;
  for (int i = 0; i < 10; ++i) {
    const Int m = privet::uniform_below(gen, pk.n());
    const Int r = pk.random_r(gen);
    CHECK(sk.encrypt_with(m, r) == pk.encrypt_with(m, r));
  }
  // The ends of the range of r: 1 (where r^n = 1) and n - 1.
  CHECK(sk.encrypt_with(Int(7), Int(1)) == pk.encrypt_with(Int(7), Int(1)));
  CHECK(sk.encrypt_with(Int(7), Int(pk.n() - 1)) == pk.encrypt_with(Int(7), Int(pk.n() - 1)));
  CHECK(pk.encrypt_with(Int(7), Int(1)).value() == Int(1 + 7 * pk.n()));  // r^n = 1
}

TEST_CASE_TEMPLATE("addition, subtraction and negation of ciphertexts", Int,
                   PRIVET_PAILLIER_TYPES) {
  privet::testing::seeded_release_generator gen(35);
  const auto keys = small_keys<Int>(256, 5);
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;
  const Int n = pk.n();
  for (int i = 0; i < 8; ++i) {
    const Int a = privet::uniform_below(gen, n);
    const Int b = privet::uniform_below(gen, n);
    const auto ca = pk.encrypt(a, gen);
    const auto cb = pk.encrypt(b, gen);
    CHECK(sk.decrypt(ca + cb) == mod_n(Int(a + b), n));
    CHECK(sk.decrypt(ca - cb) == mod_n(Int(a - b), n));
    CHECK(sk.decrypt(-ca) == mod_n(Int(-a), n));
    auto acc = ca;
    acc += cb;
    acc -= ca;
    CHECK(sk.decrypt(acc) == b);
    const Int x = random_signed(gen, pk) / 2;  // halves: the sum stays in range
    const Int y = random_signed(gen, pk) / 2;
    CHECK(sk.decrypt_signed(pk.encrypt_signed(x, gen) + pk.encrypt_signed(y, gen)) == x + y);
    CHECK(sk.decrypt_signed(pk.encrypt_signed(x, gen) - pk.encrypt_signed(y, gen)) == x - y);
  }
  // The sum wraps modulo n, as the plaintext group does.
  CHECK(sk.decrypt(pk.encrypt(Int(n - 1), gen) + pk.encrypt(Int(2), gen)) == 1);
  CHECK(sk.decrypt(-pk.encrypt(Int(0), gen)) == 0);
}

TEST_CASE_TEMPLATE("multiplication by plaintext scalars, negative and zero included", Int,
                   PRIVET_PAILLIER_TYPES) {
  privet::testing::seeded_release_generator gen(36);
  const auto keys = small_keys<Int>(256, 6);
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;
  const Int n = pk.n();
  const Int a = privet::uniform_below(gen, n);
  const auto ca = pk.encrypt(a, gen);
  std::vector<Int> scalars = {Int(0), Int(1), Int(-1), Int(7), Int(-7), Int(n - 1), Int(1 - n)};
  for (int i = 0; i < 6; ++i) scalars.push_back(random_signed(gen, pk));
  for (const Int& k : scalars) {
    CAPTURE(k.str());
    const Int expected = mod_n(Int(a * k), n);
    CHECK(sk.decrypt(ca * k) == expected);
    CHECK(sk.decrypt(k * ca) == expected);
  }
  CHECK((ca * Int(0)).value() == 1);  // Enc(0) with r = 1: the documented deterministic result
  // Built-in integer scalars, the extremes of their types included.
  CHECK(sk.decrypt(ca * 3) == mod_n(Int(a * 3), n));
  CHECK(sk.decrypt(ca * -3L) == mod_n(Int(a * -3), n));
  CHECK(sk.decrypt(ca * 5U) == mod_n(Int(a * 5), n));
  const auto lowest = std::numeric_limits<std::int64_t>::lowest();
  CHECK(sk.decrypt(ca * lowest) == mod_n(Int(a * Int(lowest)), n));
  const auto highest = std::numeric_limits<std::uint64_t>::max();
  CHECK(sk.decrypt(highest * ca) == mod_n(Int(a * Int(highest)), n));
  auto acc = ca;
  acc *= -2;
  CHECK(sk.decrypt(acc) == mod_n(Int(-2 * a), n));
  // Signed plaintexts scale as integers while the product stays in range.
  const auto c5 = pk.encrypt_signed(Int(-5), gen);
  CHECK(sk.decrypt_signed(c5 * -9) == 45);
  CHECK(sk.decrypt_signed(c5 * 9) == -45);
}

TEST_CASE_TEMPLATE("dense and sparse dot products equal plaintext arithmetic", Int,
                   PRIVET_PAILLIER_TYPES) {
  privet::testing::seeded_release_generator gen(37);
  const auto keys = small_keys<Int>(256, 7);
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;
  const std::size_t size = 12;
  std::vector<Int> values;
  ciphertexts<Int> cs;
  for (std::size_t i = 0; i < size; ++i) {
    values.push_back(Int(privet::uniform_int<std::int64_t>(gen, -1000000, 1000000)));
    cs.push_back(pk.encrypt_signed(values.back(), gen));
  }
  const std::span<const paillier::ciphertext<Int>> view(cs);
  std::vector<long long> weights;
  std::vector<Int> big_weights;
  Int expected = 0;
  for (std::size_t i = 0; i < size; ++i) {
    // Zeros, negatives and positives.
    weights.push_back(i % 4 == 0 ? 0 : privet::uniform_int<long long>(gen, -1000, 1000));
    big_weights.push_back(Int(weights.back()));
    expected += values[i] * Int(weights.back());
  }
  CHECK(sk.decrypt_signed(paillier::dot(view, std::span<const long long>(weights))) == expected);
  CHECK(sk.decrypt_signed(paillier::dot(view, std::span<const Int>(big_weights))) == expected);
  // Only positive or only negative weights (one of the two products is 1).
  std::vector<int> ones(size, 1);
  std::vector<int> minus_twos(size, -2);
  Int total = 0;
  for (const Int& v : values) total += v;
  CHECK(sk.decrypt_signed(paillier::dot(view, std::span<const int>(ones))) == total);
  CHECK(sk.decrypt_signed(paillier::dot(view, std::span<const int>(minus_twos))) == -2 * total);
  CHECK(sk.decrypt_signed(paillier::sum(view)) == total);

  // Sparse: (index, value) entries, a repeated index adding up.
  const std::vector<paillier::sparse_entry<long long>> entries = {
      {3, 10}, {0, -4}, {11, 7}, {3, 5}, {6, 0}};
  const Int sparse_expected = values[3] * 15 - values[0] * 4 + values[11] * 7;
  CHECK(sk.decrypt_signed(paillier::dot(
            view, std::span<const paillier::sparse_entry<long long>>(entries))) == sparse_expected);
  const std::vector<paillier::sparse_entry<Int>> big_entries = {{2, Int(-3)}, {9, Int(8)}};
  CHECK(sk.decrypt_signed(paillier::dot(view, std::span<const paillier::sparse_entry<Int>>(
                                                  big_entries))) == values[2] * -3 + values[9] * 8);
  const auto empty = paillier::dot(view, std::span<const paillier::sparse_entry<int>>());
  CHECK(empty.value() == 1);
  CHECK(sk.decrypt(empty) == 0);
}

TEST_CASE_TEMPLATE("dot products reject bad shapes and scalars", Int, PRIVET_PAILLIER_TYPES) {
  privet::testing::seeded_release_generator gen(38);
  const auto keys = small_keys<Int>(256, 8);
  const auto& pk = keys.public_key;
  const ciphertexts<Int> cs = {pk.encrypt(Int(1), gen), pk.encrypt(Int(2), gen)};
  const std::span<const paillier::ciphertext<Int>> view(cs);
  const std::vector<int> three = {1, 2, 3};
  CHECK_THROWS_WITH_AS((void)paillier::dot(view, std::span<const int>(three)),
                       "privet: scalars.size() = 3 is invalid; allowed: ciphertexts.size() = 2",
                       privet::invalid_parameter);
  const std::vector<paillier::sparse_entry<int>> out_of_range = {{0, 1}, {2, 1}};
  CHECK_THROWS_WITH_AS(
      (void)paillier::dot(view, std::span<const paillier::sparse_entry<int>>(out_of_range)),
      "privet: index = 2 is invalid; allowed: < ciphertexts.size() = 2", privet::invalid_parameter);
  CHECK(rejected_parameter([] {
          (void)paillier::sum(std::span<const paillier::ciphertext<Int>>());
        }) == "ciphertexts");
  CHECK(rejected_parameter([] {
          (void)paillier::dot(std::span<const paillier::ciphertext<Int>>(), std::span<const int>());
        }) == "ciphertexts");
  const std::vector<Int> too_big = {pk.n(), Int(1)};
  CHECK_THROWS_AS((void)paillier::dot(view, std::span<const Int>(too_big)), privet::overflow_error);
}

TEST_CASE_TEMPLATE("re-randomisation keeps the plaintext and changes the ciphertext", Int,
                   PRIVET_PAILLIER_TYPES) {
  privet::testing::seeded_release_generator gen(39);
  const auto keys = small_keys<Int>(256, 9);
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;
  const auto c = pk.encrypt(Int(4242), gen);
  const auto d = pk.rerandomize(c, gen);
  CHECK(d.value() != c.value());  // equal only if r^n = 1, i.e. r = 1: probability ~2^-255
  CHECK(sk.decrypt(d) == 4242);
  CHECK(sk.decrypt(pk.rerandomize(c * 0, gen)) == 0);
  CHECK(pk.rerandomize(c * 0, gen).value() != 1);
  // Two encryptions of one plaintext differ (fresh r each time).
  CHECK(pk.encrypt(Int(5), gen).value() != pk.encrypt(Int(5), gen).value());
}

TEST_CASE_TEMPLATE("ciphertexts under different keys cannot be mixed", Int, PRIVET_PAILLIER_TYPES) {
  privet::testing::seeded_release_generator gen(40);
  const auto keys1 = small_keys<Int>(256, 10);
  const auto& pk1 = keys1.public_key;
  const auto& sk1 = keys1.private_key;
  const auto keys2 = small_keys<Int>(256, 11);
  const auto& pk2 = keys2.public_key;
  REQUIRE(pk1.n() != pk2.n());
  const auto c1 = pk1.encrypt(Int(1), gen);
  const auto c2 = pk2.encrypt(Int(2), gen);
  CHECK_FALSE(c1.same_key(c2));
  CHECK_THROWS_WITH_AS((void)(c1 + c2),
                       "privet: rhs is a ciphertext under a different public key; allowed: "
                       "ciphertexts under the same key (the same n)",
                       privet::invalid_parameter);
  CHECK(rejected_parameter([&] { (void)(c1 + c2); }) == "rhs");
  CHECK(rejected_parameter([&] { (void)(c1 - c2); }) == "rhs");
  CHECK(rejected_parameter([&] {
          auto c = c1;
          c += c2;
        }) == "rhs");
  CHECK(rejected_parameter([&] { (void)sk1.decrypt(c2); }) == "ciphertext");
  CHECK(rejected_parameter([&] { (void)sk1.decrypt_textbook(c2); }) == "ciphertext");
  CHECK(rejected_parameter([&] { (void)pk1.rerandomize(c2, gen); }) == "ciphertext");
  const ciphertexts<Int> mixed = {c1, c1, c2};
  const std::vector<int> ks = {1, 1, 1};
  CHECK_THROWS_WITH_AS((void)paillier::sum(std::span<const paillier::ciphertext<Int>>(mixed)),
                       "privet: ciphertexts[2] is under a different public key than "
                       "ciphertexts[0]; allowed: ciphertexts under the same key (the same n)",
                       privet::invalid_parameter);
  CHECK(rejected_parameter([&] {
          (void)paillier::dot(std::span<const paillier::ciphertext<Int>>(mixed),
                              std::span<const int>(ks));
        }) == "ciphertexts");
  // The same n loaded twice is the same key: its ciphertexts combine.
  const paillier::public_key<Int> again(pk1.n(), paillier::allow_insecure);
  CHECK(again == pk1);
  CHECK_FALSE(pk1 == pk2);
  const auto c3 = again.encrypt(Int(40), gen);
  CHECK(sk1.decrypt(c1 + c3) == 41);
  CHECK(c3.key() == pk1);
}

TEST_CASE_TEMPLATE("plaintexts and scalars out of range throw overflow_error", Int,
                   PRIVET_PAILLIER_TYPES) {
  privet::testing::seeded_release_generator gen(41);
  const auto keys = small_keys<Int>(256, 12);
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;
  const Int n = pk.n();
  const std::string unsigned_message =
      "privet: plaintext m is outside the plaintext range; allowed: [0, n) with n the 256-bit "
      "modulus (use the signed functions for negatives)";
  CHECK_THROWS_WITH_AS((void)pk.encrypt(n, gen), unsigned_message.c_str(), privet::overflow_error);
  CHECK_THROWS_WITH_AS((void)pk.encrypt(Int(-1), gen), unsigned_message.c_str(),
                       privet::overflow_error);
  CHECK_THROWS_AS((void)sk.encrypt(n, gen), privet::overflow_error);
  CHECK_THROWS_AS((void)pk.encrypt_with(Int(n + 5), Int(1)), privet::overflow_error);
  CHECK_THROWS_AS((void)sk.encrypt_with(Int(-1), Int(1)), privet::overflow_error);
  const std::string signed_message =
      "privet: signed plaintext x is outside the plaintext range; allowed: [-(n-1)/2, (n-1)/2] "
      "with n the 256-bit modulus";
  CHECK_THROWS_WITH_AS((void)pk.encrypt_signed(Int(pk.max_signed() + 1), gen),
                       signed_message.c_str(), privet::overflow_error);
  CHECK_THROWS_WITH_AS((void)pk.encrypt_signed(Int(-pk.max_signed() - 1), gen),
                       signed_message.c_str(), privet::overflow_error);
  CHECK_THROWS_AS((void)sk.encrypt_signed(Int(n), gen), privet::overflow_error);
  const auto c = pk.encrypt(Int(3), gen);
  CHECK_THROWS_WITH_AS((void)(c * n),
                       "privet: scalar k is outside (-n, n) for the 256-bit modulus n; allowed: "
                       "|k| < n",
                       privet::overflow_error);
  CHECK_THROWS_AS((void)(c * Int(-n)), privet::overflow_error);
}

TEST_CASE_TEMPLATE("r is drawn in [1, n) coprime to n, and a caller's r is checked", Int,
                   PRIVET_PAILLIER_TYPES) {
  privet::testing::seeded_release_generator gen(42);
  const auto keys = small_keys<Int>(256, 13);
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;
  const Int n = pk.n();
  for (int i = 0; i < 50; ++i) {
    const Int r = pk.random_r(gen);
    CHECK(r >= 1);
    CHECK(r < n);
    CHECK(mp::gcd(r, n) == 1);
  }
  const std::string message =
      "privet: r is invalid; allowed: an integer in [1, n) coprime to n (n of 256 bits)";
  for (const Int& bad : {Int(0), Int(-1), n, Int(n + 1), sk.p(), Int(2 * sk.q())}) {
    CAPTURE(bad.str());
    CHECK_THROWS_WITH_AS((void)pk.encrypt_with(Int(1), bad), message.c_str(),
                         privet::invalid_parameter);
    CHECK(rejected_parameter([&] { (void)sk.encrypt_with(Int(1), bad); }) == "r");
    CHECK(rejected_parameter([&] { (void)pk.encrypt_signed_with(Int(-1), bad); }) == "r");
  }
}

TEST_CASE_TEMPLATE("received ciphertext values are validated", Int, PRIVET_PAILLIER_TYPES) {
  const auto keys = small_keys<Int>(256, 14);
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;
  const Int n2 = pk.n_squared();
  for (const Int& bad : {Int(0), Int(-3), n2, Int(n2 + 1), sk.p(), Int(sk.q() * 5), pk.n()}) {
    CAPTURE(bad.str());
    CHECK_THROWS_WITH_AS(paillier::ciphertext<Int>(pk, bad),
                         "privet: ciphertext value is invalid; allowed: an integer in [1, n^2) "
                         "coprime to n",
                         privet::invalid_parameter);
  }
  const paillier::ciphertext<Int> ok(pk, Int(n2 - 1));
  CHECK(ok.value() == n2 - 1);
  CHECK(sk.decrypt(ok) == sk.decrypt_textbook(ok));
  // Negation and subtraction invert modulo n^2. A validated ciphertext is
  // coprime to n, so no public call reaches the refusal; the inverse itself
  // refuses a value sharing a factor with the modulus.
  CHECK_THROWS_WITH_AS((void)paillier::detail::inverse_public(Int(sk.p() * 3), n2),
                       "privet: ciphertext is not invertible modulo n^2; allowed: a value coprime "
                       "to n",
                       privet::invalid_parameter);
  CHECK((paillier::detail::inverse_public(Int(n2 - 1), n2) * Int(n2 - 1)) % n2 == 1);
}

TEST_CASE_TEMPLATE("key generation: exact length, equal-length primes, consistent constants", Int,
                   PRIVET_PAILLIER_TYPES) {
  boost::random::mt19937 mt(7);  // Boost's own bases for the independent check
  std::uint64_t seed = 100;
  for (std::size_t bits : {128u, 130u, 256u, 382u, 512u}) {
    for (int i = 0; i < 2; ++i) {
      const auto keys = small_keys<Int>(bits, ++seed);
      const auto& pk = keys.public_key;
      const auto& sk = keys.private_key;
      CAPTURE(bits);
      const Int& p = sk.p();
      const Int& q = sk.q();
      CHECK(pk.bits() == bits);
      CHECK(privet::detail::bits_of(pk.n()) == bits);
      CHECK(privet::detail::bits_of(p) == bits / 2);
      CHECK(privet::detail::bits_of(q) == bits / 2);
      CHECK(mp::bit_test(p, static_cast<unsigned>(bits / 2 - 2)));  // top two bits set
      CHECK(mp::bit_test(q, static_cast<unsigned>(bits / 2 - 2)));
      CHECK(p != q);
      CHECK(pk.n() == p * q);
      CHECK(pk.n_squared() == pk.n() * pk.n());
      CHECK(mp::gcd(pk.n(), Int((p - 1) * (q - 1))) == 1);
      CHECK(mp::miller_rabin_test(to_cpp(p), 64, mt));
      CHECK(mp::miller_rabin_test(to_cpp(q), 64, mt));
      CHECK(sk.lambda() == mp::lcm(Int(p - 1), Int(q - 1)));
      // With g = n + 1, L(g^lambda mod n^2) = lambda mod n, so mu = lambda^-1.
      CHECK(mod_n(Int(sk.lambda() % pk.n() * sk.mu()), pk.n()) == 1);
      CHECK(pk.max_signed() == (pk.n() - 1) / 2);
    }
  }
  // Same seed, same key (generation is a function of the generator only).
  CHECK(small_keys<Int>(256, 5).public_key == small_keys<Int>(256, 5).public_key);
}

TEST_CASE_TEMPLATE("key sizes: 2048 bits minimum unless insecure is asked for by name", Int,
                   PRIVET_PAILLIER_TYPES) {
  privet::testing::seeded_release_generator gen(43);
  const std::string allowed =
      std::numeric_limits<Int>::is_bounded
          ? "[2048, 2048] (this integer type must hold n^2); smaller keys (>= 128) only through "
            "paillier::insecure_key_size or paillier::allow_insecure"
          : "[2048, 16384]; smaller keys (>= 128) only through paillier::insecure_key_size or "
            "paillier::allow_insecure";
  CHECK_THROWS_WITH_AS(
      (void)paillier::generate_keypair<Int>(1024, gen),
      ("privet: bits = 1024 is invalid; allowed: an even number in " + allowed).c_str(),
      privet::invalid_parameter);
  CHECK(rejected_parameter([&] { (void)paillier::generate_keypair<Int>(2049, gen); }) == "bits");
  CHECK(rejected_parameter([&] { (void)paillier::generate_keypair<Int>(16386, gen); }) == "bits");
  CHECK(rejected_parameter([&] {
          (void)paillier::generate_keypair<Int>(paillier::insecure_key_size{126}, gen);
        }) == "bits");
  CHECK(rejected_parameter([&] {
          (void)paillier::generate_keypair<Int>(paillier::insecure_key_size{255}, gen);
        }) == "bits");
  if constexpr (std::numeric_limits<Int>::is_bounded) {
    // 4096 bits hold n^2 for n of 2048 bits at most.
    CHECK_THROWS_WITH_AS(
        (void)paillier::generate_keypair<Int>(paillier::insecure_key_size{2050}, gen),
        "privet: bits = 2050 is invalid; allowed: an even number in [128, 2048] (this integer "
        "type must hold n^2)",
        privet::invalid_parameter);
  }
  // Loading a public key applies the same policy.
  const auto keys = small_keys<Int>(512, 15);
  const auto& pk = keys.public_key;
  CHECK_THROWS_WITH_AS(paillier::public_key<Int>{pk.n()},
                       ("privet: bits = 512 is invalid; allowed: " + allowed).c_str(),
                       privet::invalid_parameter);
  CHECK(paillier::public_key<Int>(pk.n(), paillier::allow_insecure) == pk);
  CHECK(rejected_parameter([&] { paillier::public_key<Int> k(Int(pk.n() + 1)); }) == "n");
  CHECK(rejected_parameter([&] { paillier::public_key<Int> k(Int(-pk.n())); }) == "n");
  CHECK(paillier::default_key_bits == 3072);
  CHECK(paillier::min_key_bits == 2048);
}

TEST_CASE_TEMPLATE("keys from given primes are checked", Int, PRIVET_PAILLIER_TYPES) {
  privet::testing::seeded_release_generator gen(44);
  const auto keys = small_keys<Int>(256, 16);
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;
  const Int p = sk.p();
  const Int q = sk.q();
  const auto rebuilt = paillier::private_key<Int>::from_primes(p, q, gen, paillier::allow_insecure);
  CHECK(rebuilt.public_key() == pk);
  CHECK(rebuilt.mu() == sk.mu());
  const auto c = pk.encrypt(Int(99), gen);
  CHECK(rebuilt.decrypt(c) == 99);
  CHECK(rejected_parameter([&] {
          (void)paillier::private_key<Int>::from_primes(p, q, gen);  // 256 bits: insecure
        }) == "bits");
  CHECK(rejected_parameter([&] {
          (void)paillier::private_key<Int>::from_primes(p, p, gen, paillier::allow_insecure);
        }) == "q");
  CHECK(rejected_parameter([&] {
          (void)paillier::private_key<Int>::from_primes(p, Int(q * 3), gen,
                                                        paillier::allow_insecure);
        }) == "q");  // longer than p
  // An odd multiple of 3 just below p, of p's length (p's top bits are set).
  const Int composite = p - 2 * (3 - p % 3);
  REQUIRE(composite % 3 == 0);
  REQUIRE(privet::detail::bits_of(composite) == privet::detail::bits_of(p));
  CHECK(rejected_parameter([&] {
          (void)paillier::private_key<Int>::from_primes(composite, q, gen,
                                                        paillier::allow_insecure);
        }) == "p");
  CHECK(rejected_parameter([&] {
          (void)paillier::private_key<Int>::from_primes(p, composite, gen,
                                                        paillier::allow_insecure);
        }) == "q");
}

TEST_CASE_TEMPLATE("keys from primes closer than key generation allows are refused", Int,
                   PRIVET_PAILLIER_TYPES) {
  // Issue 26, finding 5: key generation keeps |p - q| >= 2^(k - 100) for
  // k-bit primes (FIPS 186-5 A.1.3, against Fermat's factoring); from_primes
  // now applies the same rule. For 128-bit primes the floor is 2^28: the
  // primes nearest below and at/above p + 2^28 sit on either side of it.
  privet::testing::seeded_release_generator gen(45);
  const Int p = privet::detail::random_prime<Int>(128, gen);
  const Int floor = Int(1) << 28;
  const auto prime_from = [&](Int x, int step) {
    if (!mp::bit_test(x, 0)) x += step;
    while (!privet::detail::is_probable_prime(x, gen)) x += 2 * step;
    return x;
  };
  const Int too_close = prime_from(Int(p + floor - 1), -1);
  const Int far_enough = prime_from(Int(p + floor), +1);
  REQUIRE(too_close > p);
  REQUIRE(Int(too_close - p) < floor);
  REQUIRE(Int(far_enough - p) >= floor);
  REQUIRE(privet::detail::bits_of(far_enough) == 128);
  const std::string refusal =
      "privet: p and q are too close (|p - q| < 2^28, a number of 28 bits: n = p q falls to "
      "Fermat's factoring); allowed: 128-bit primes p, q with |p - q| >= 2^28 (2^(k - 100) for "
      "k-bit primes, as key generation)";
  // Either order, and primes a few units apart.
  CHECK_THROWS_WITH_AS(
      (void)paillier::private_key<Int>::from_primes(p, too_close, gen, paillier::allow_insecure),
      refusal.c_str(), privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(
      (void)paillier::private_key<Int>::from_primes(too_close, p, gen, paillier::allow_insecure),
      refusal.c_str(), privet::invalid_parameter);
  const Int next = prime_from(Int(p + 2), +1);
  CHECK(rejected_parameter([&] {
          (void)paillier::private_key<Int>::from_primes(p, next, gen, paillier::allow_insecure);
        }) == "q");
  // Coprimality of n and (p-1)(q-1) may still refuse a pair at the floor;
  // if it does not, the key is built.
  if (mp::gcd(Int(p * far_enough), Int((p - 1) * (far_enough - 1))) == 1) {
    const auto sk =
        paillier::private_key<Int>::from_primes(p, far_enough, gen, paillier::allow_insecure);
    CHECK(sk.public_key().n() == Int(p * far_enough));
  }
  // p = q: refused before anything else.
  CHECK_THROWS_WITH_AS(
      (void)paillier::private_key<Int>::from_primes(p, p, gen, paillier::allow_insecure),
      "privet: q equals p; allowed: a prime other than p", privet::invalid_parameter);
  // At most 100 bits per prime the rule is not applied (toy sizes).
  CHECK(paillier::detail::primes_far_apart(Int(101), Int(103), 100));
  CHECK(!paillier::detail::primes_far_apart(Int(p), Int(too_close), 128));
  CHECK(paillier::detail::primes_far_apart(Int(p), Int(far_enough), 128));
}

TEST_CASE_TEMPLATE("a public key with a prime modulus is refused", Int, PRIVET_PAILLIER_TYPES) {
  // Issue 26, finding 5: n prime has no Paillier private key; every prime is
  // a strong probable prime to base 2, so the check refuses all of them.
  privet::testing::seeded_release_generator gen(46);
  for (const std::size_t bits : {std::size_t{128}, std::size_t{256}, std::size_t{512}}) {
    CAPTURE(bits);
    const Int prime = privet::detail::random_prime<Int>(bits, gen);
    CHECK_THROWS_WITH_AS(paillier::public_key<Int>(prime, paillier::allow_insecure),
                         "privet: n is prime (a strong probable prime to base 2); allowed: n = p "
                         "q, a product of two distinct primes",
                         privet::invalid_parameter);
  }
  // A product of two primes is accepted (and so are all generated keys).
  const auto keys = small_keys<Int>(256, 47);
  CHECK(paillier::public_key<Int>(keys.public_key.n(), paillier::allow_insecure) ==
        keys.public_key);
}

TEST_CASE_TEMPLATE("a 2048-bit round trip", Int, PRIVET_PAILLIER_TYPES) {
  privet::testing::seeded_release_generator gen(45);
  const auto keys = paillier::generate_keypair<Int>(2048, gen);
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;
  CHECK(pk.bits() == 2048);
  CHECK(privet::detail::bits_of(sk.p()) == 1024);
  CHECK(privet::detail::bits_of(sk.q()) == 1024);
  const Int m = privet::uniform_below(gen, pk.n());
  const auto c = pk.encrypt(m, gen);
  CHECK(sk.decrypt(c) == m);
  CHECK(sk.decrypt_textbook(c) == m);
  const Int r = pk.random_r(gen);
  CHECK(sk.encrypt_with(m, r) == pk.encrypt_with(m, r));
  const auto d = pk.encrypt_signed(Int(-31337), gen);
  CHECK(sk.decrypt(c * -1 + d * 2) == mod_n(Int(-m - 62674), pk.n()));
}

TEST_CASE("ciphertexts agree across backends for the same key and r") {
  privet::testing::seeded_release_generator gen(46);
  const auto keys = small_keys<cpp_int>(512, 17);
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;
  const auto fixed = paillier::private_key<fixed4096>::from_primes(
      fixed4096(sk.p()), fixed4096(sk.q()), gen, paillier::allow_insecure);
#ifdef PRIVET_HAS_GMP
  const auto gmp = paillier::private_key<mp::mpz_int>::from_primes(
      mp::mpz_int(sk.p().str()), mp::mpz_int(sk.q().str()), gen, paillier::allow_insecure);
#endif
  for (int i = 0; i < 5; ++i) {
    const cpp_int m = privet::uniform_below(gen, pk.n());
    const cpp_int r = pk.random_r(gen);
    const auto c = pk.encrypt_with(m, r);
    const auto cf = fixed.public_key().encrypt_with(fixed4096(m), fixed4096(r));
    CHECK(c.value().str() == cf.value().str());
    CHECK(fixed.encrypt_with(fixed4096(m), fixed4096(r)).value().str() == c.value().str());
    CHECK((cf * -3).value().str() == (c * -3).value().str());
#ifdef PRIVET_HAS_GMP
    const auto cg = gmp.public_key().encrypt_with(mp::mpz_int(m.str()), mp::mpz_int(r.str()));
    CHECK(cg.value().str() == c.value().str());
    CHECK(gmp.encrypt_with(mp::mpz_int(m.str()), mp::mpz_int(r.str())).value().str() ==
          c.value().str());
    CHECK((cg * -3).value().str() == (c * -3).value().str());
    CHECK(gmp.decrypt(cg).str() == m.str());
#endif
    CHECK(fixed.decrypt(cf).str() == m.str());
  }
}

TEST_CASE_TEMPLATE("dot products and sums in parallel equal the serial ones", Int,
                   PRIVET_PAILLIER_TYPES) {
  privet::testing::seeded_release_generator gen(47);
  const auto keys = small_keys<Int>(256, 18);
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;
  const std::size_t size = 600;  // more than one chunk of the sum's reduction
  ciphertexts<Int> cs;
  std::vector<std::int64_t> weights;
  std::vector<paillier::sparse_entry<std::int64_t>> entries;
  Int expected = 0;
  Int total = 0;
  for (std::size_t i = 0; i < size; ++i) {
    const Int v(privet::uniform_int<std::int64_t>(gen, -1000, 1000));
    cs.push_back(pk.encrypt_signed(v, gen));
    weights.push_back(privet::uniform_int<std::int64_t>(gen, -50, 50));
    expected += v * Int(weights.back());
    total += v;
    if (i % 3 == 0) entries.push_back({i, weights.back()});
  }
  const std::span<const paillier::ciphertext<Int>> view(cs);
  const std::span<const std::int64_t> ks(weights);
  const std::span<const paillier::sparse_entry<std::int64_t>> sparse(entries);
  const auto serial = paillier::dot(view, ks, paillier::batch_options{1});
  CHECK(sk.decrypt_signed(serial) == expected);
  for (std::size_t threads : {0u, 2u, 3u}) {
    CAPTURE(threads);
    const paillier::batch_options options{threads};
    CHECK(paillier::dot(view, ks, options) == serial);
    CHECK(paillier::dot(view, sparse, options) == paillier::dot(view, sparse, {1}));
    CHECK(paillier::sum(view, options) == paillier::sum(view, {1}));
  }
  CHECK(sk.decrypt_signed(paillier::sum(view)) == total);
  CHECK(rejected_parameter([&] {
          (void)paillier::dot(view, ks, paillier::batch_options{paillier::max_batch_threads + 1});
        }) == "threads");
  // A scalar out of range is reported before any parallel work.
  std::vector<Int> bad(size, Int(1));
  bad[size - 1] = pk.n();
  CHECK_THROWS_AS((void)paillier::dot(view, std::span<const Int>(bad), {2}),
                  privet::overflow_error);
}

// --- the Damgård–Jurik–Nielsen mode ---------------------------------------------

namespace {

// c (1 + m n)^-1 mod n^2 = c (1 - m n) mod n^2: the randomiser inside an
// encryption of m.
cpp_int randomizer_of(const cpp_int& n, const cpp_int& c, const cpp_int& m) {
  const cpp_int n2 = n * n;
  cpp_int inv = (1 - m * n) % n2;
  if (inv < 0) inv += n2;
  return c * inv % n2;
}

// The documented derivation of h_N from n, written out again: x by rejection
// from ChaCha20 keyed with BLAKE2b-256("privet.paillier.djn_base.v1" || n
// big-endian), h = -x^2 mod n, h_N = h^n mod n^2 by Boost's powm.
cpp_int reference_djn_base(const cpp_int& n) {
  std::vector<unsigned char> bytes;
  mp::export_bits(n, std::back_inserter(bytes), 8);
  const std::string domain = "privet.paillier.djn_base.v1";
  std::array<unsigned char, 32> key{};
  crypto_generichash_state state;
  crypto_generichash_init(&state, nullptr, 0, key.size());
  crypto_generichash_update(&state, reinterpret_cast<const unsigned char*>(domain.data()),
                            domain.size());
  crypto_generichash_update(&state, bytes.data(), bytes.size());
  crypto_generichash_final(&state, key.data(), key.size());
  auto gen = privet::testing::seeded_release_generator::from_key(
      std::span<const unsigned char, 32>(key), 0);
  for (;;) {
    const cpp_int x = privet::uniform_below(gen, n);
    if (x == 0 || mp::gcd(x, n) != 1) continue;
    const cpp_int h = n - x * x % n;
    return cpp_int(mp::powm(h, n, cpp_int(n * n)));
  }
}

}  // namespace

TEST_CASE("DJN exponent lengths follow the security level of the modulus") {
  // NIST SP 800-57 part 1 rev. 5, table 2: 2048 -> 112, 3072 -> 128,
  // 7680 -> 192, 15360 -> 256 bits of security; exponents of 2 kappa bits.
  CHECK(paillier::djn_exponent_bits(2048) == 224);
  CHECK(paillier::djn_exponent_bits(3072) == 256);
  CHECK(paillier::djn_exponent_bits(4096) == 256);
  CHECK(paillier::djn_exponent_bits(7680) == 384);
  CHECK(paillier::djn_exponent_bits(15360) == 512);
  CHECK(paillier::djn_exponent_bits(2046) == 160);
  CHECK(paillier::djn_exponent_bits(256) == 160);
  static_assert(paillier::security_bits(3071) == 112);
}

TEST_CASE_TEMPLATE("the DJN base is derived from n alone, as documented", Int,
                   PRIVET_PAILLIER_TYPES) {
  const auto keys = small_keys<Int>(512, 19);
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;
  const cpp_int expected = reference_djn_base(to_cpp(pk.n()));
  CHECK(to_cpp(pk.djn_base()) == expected);
  // Any holder of n derives it, whatever the key object or backend.
  const paillier::public_key<Int> loaded(pk.n(), paillier::allow_insecure);
  CHECK(loaded.djn_base() == pk.djn_base());
  CHECK(
      to_cpp(paillier::public_key<cpp_int>(to_cpp(pk.n()), paillier::allow_insecure).djn_base()) ==
      expected);
  // An n-th residue: it decrypts to 0 and h_N^lambda = 1 mod n^2.
  const paillier::ciphertext<Int> base(pk, pk.djn_base());
  CHECK(sk.decrypt(base) == 0);
  CHECK(sk.decrypt_textbook(base) == 0);
  CHECK(cpp_int(mp::powm(expected, to_cpp(sk.lambda()), to_cpp(pk.n_squared()))) == 1);
  CHECK(pk.djn_base() != 1);
  CHECK(small_keys<Int>(512, 20).public_key.djn_base() != pk.djn_base());
}

TEST_CASE_TEMPLATE("DJN encryption is (1 + m n) h_N^a mod n^2, computed independently", Int,
                   PRIVET_PAILLIER_TYPES) {
  privet::testing::seeded_release_generator gen(48);
  for (std::size_t bits : {256u, 512u}) {
    const auto keys = small_keys<Int>(bits, 21 + bits);
    const auto& pk = keys.public_key;
    const auto& sk = keys.private_key;
    const std::size_t e = pk.djn_exponent_bits();
    CHECK(e == 160);
    const cpp_int n = to_cpp(pk.n());
    const cpp_int n2 = n * n;
    const cpp_int base = to_cpp(pk.djn_base());
    std::vector<Int> exponents = {Int(0), Int(1), Int(2),
                                  Int((Int(1) << static_cast<unsigned>(e)) - 1)};
    for (int i = 0; i < 6; ++i) exponents.push_back(privet::random_bits<Int>(gen, e));
    for (const Int& a : exponents) {
      CAPTURE(a.str());
      const Int m = privet::uniform_below(gen, pk.n());
      const auto c = pk.encrypt_djn_with(m, a);
      const cpp_int expected =
          cpp_int(1 + to_cpp(m) * n) * cpp_int(mp::powm(base, to_cpp(a), n2)) % n2;
      CHECK(to_cpp(c.value()) == expected);
      CHECK(sk.decrypt(c) == m);
    }
    const std::string message =
        "privet: DJN exponent a is invalid; allowed: an integer in [0, 2^160) "
        "for a " +
        std::to_string(bits) + "-bit modulus";
    CHECK_THROWS_WITH_AS((void)pk.encrypt_djn_with(Int(1), Int(Int(1) << 160)), message.c_str(),
                         privet::invalid_parameter);
    CHECK(rejected_parameter([&] { (void)pk.encrypt_djn_with(Int(1), Int(-1)); }) == "a");
    CHECK_THROWS_AS((void)pk.encrypt_djn_with(pk.n(), Int(1)), privet::overflow_error);
  }
}

TEST_CASE_TEMPLATE("DJN ciphertexts decrypt, are valid, mix with textbook ones and differ", Int,
                   PRIVET_PAILLIER_TYPES) {
  privet::testing::seeded_release_generator gen(49);
  const auto keys = small_keys<Int>(512, 22);
  const auto& sk = keys.private_key;
  const auto textbook = keys.public_key;
  const auto djn = textbook.with_mode(paillier::encryption_mode::djn);
  CHECK(textbook.mode() == paillier::encryption_mode::textbook);
  CHECK(djn.mode() == paillier::encryption_mode::djn);
  CHECK(djn == textbook);  // the same key: only the way of encrypting differs
  const Int n = djn.n();
  std::vector<Int> plaintexts = {Int(0), Int(1), Int(n - 1), djn.max_signed()};
  for (int i = 0; i < 10; ++i) plaintexts.push_back(privet::uniform_below(gen, n));
  for (const Int& m : plaintexts) {
    CAPTURE(m.str());
    const auto c = djn.encrypt(m, gen);
    CHECK(sk.decrypt(c) == m);
    CHECK(sk.decrypt_textbook(c) == m);
    // A valid ciphertext: accepted by the validating constructor.
    const paillier::ciphertext<Int> received(textbook, c.value());
    CHECK(received == c);
    // Homomorphic with textbook ciphertexts.
    const auto t = textbook.encrypt(Int(5), gen);
    CHECK(sk.decrypt(c + t) == mod_n(Int(m + 5), n));
    CHECK(sk.decrypt(djn.rerandomize(t, gen)) == 5);
  }
  const Int x = random_signed(gen, djn);
  CHECK(sk.decrypt_signed(djn.encrypt_signed(x, gen)) == x);
  // Distinct ciphertexts for one plaintext: a repeat within 200 draws of a
  // 160-bit exponent has probability below 2^-144.
  std::set<std::string> seen;
  for (int i = 0; i < 200; ++i) seen.insert(djn.encrypt(Int(7), gen).value().str());
  CHECK(seen.size() == 200);
  // Re-randomising changes the value and keeps the plaintext.
  const auto c = djn.encrypt(Int(99), gen);
  const auto d = djn.rerandomize(c, gen);
  CHECK(d.value() != c.value());
  CHECK(sk.decrypt(d) == 99);
  CHECK(rejected_parameter([&] {
          (void)textbook.with_mode(static_cast<paillier::encryption_mode>(7));
        }) == "mode");
}

TEST_CASE("DJN encryption agrees across backends for the same key and exponent") {
  privet::testing::seeded_release_generator gen(50);
  const auto keys = small_keys<cpp_int>(512, 23);
  const auto& pk = keys.public_key;
  const auto fixed = paillier::private_key<fixed4096>::from_primes(fixed4096(keys.private_key.p()),
                                                                   fixed4096(keys.private_key.q()),
                                                                   gen, paillier::allow_insecure);
  for (int i = 0; i < 4; ++i) {
    const cpp_int m = privet::uniform_below(gen, pk.n());
    const cpp_int a = privet::random_bits<cpp_int>(gen, pk.djn_exponent_bits());
    const auto c = pk.encrypt_djn_with(m, a);
    CHECK(fixed.public_key().encrypt_djn_with(fixed4096(m), fixed4096(a)).value().str() ==
          c.value().str());
#ifdef PRIVET_HAS_GMP
    const paillier::public_key<mp::mpz_int> gmp(mp::mpz_int(pk.n().str()),
                                                paillier::allow_insecure);
    CHECK(gmp.encrypt_djn_with(mp::mpz_int(m.str()), mp::mpz_int(a.str())).value().str() ==
          c.value().str());
#endif
  }
}

TEST_CASE_TEMPLATE("a 2048-bit DJN round trip", Int, PRIVET_PAILLIER_TYPES) {
  privet::testing::seeded_release_generator gen(51);
  const auto keys = paillier::generate_keypair<Int>(2048, gen);
  const auto djn = keys.public_key.with_mode(paillier::encryption_mode::djn);
  CHECK(djn.djn_exponent_bits() == 224);
  const Int m = privet::uniform_below(gen, djn.n());
  const auto c = djn.encrypt(m, gen);
  CHECK(keys.private_key.decrypt(c) == m);
  const Int a = privet::random_bits<Int>(gen, 224);
  const cpp_int n = to_cpp(djn.n());
  const cpp_int n2 = n * n;
  CHECK(to_cpp(djn.encrypt_djn_with(m, a).value()) ==
        cpp_int(1 + to_cpp(m) * n) * cpp_int(mp::powm(to_cpp(djn.djn_base()), to_cpp(a), n2)) % n2);
}

// --- the randomiser pool ------------------------------------------------------------

TEST_CASE_TEMPLATE("a pooled key uses each randomiser once, then computes fresh ones", Int,
                   PRIVET_PAILLIER_TYPES) {
  privet::testing::seeded_release_generator gen(52);
  const auto keys = small_keys<Int>(256, 24);
  const auto& sk = keys.private_key;
  for (const auto mode : {paillier::encryption_mode::textbook, paillier::encryption_mode::djn}) {
    CAPTURE(static_cast<int>(mode));
    const auto base = keys.public_key.with_mode(mode);
    // Two pools filled from the same seed hold the same randomisers: one is
    // used by encryption, the other read out for comparison.
    auto pool = std::make_shared<paillier::randomizer_pool<Int>>(base);
    paillier::randomizer_pool<Int> twin(base);
    privet::testing::seeded_release_generator fill_gen(7);
    privet::testing::seeded_release_generator twin_gen(7);
    pool->fill(30, fill_gen);
    twin.fill(30, twin_gen, {1});
    CHECK(pool->size() == 30);
    CHECK(pool->mode() == mode);
    std::vector<cpp_int> expected;
    while (auto r = twin.take()) expected.push_back(to_cpp(*r));
    CHECK(expected.size() == 30);
    CHECK(twin.size() == 0);
    const auto pk = base.with_pool(pool);
    std::vector<cpp_int> used;
    const cpp_int n = to_cpp(pk.n());
    for (int i = 0; i < 20; ++i) {
      const Int m = privet::uniform_below(gen, pk.n());
      const auto c = pk.encrypt(m, gen);
      CHECK(sk.decrypt(c) == m);
      used.push_back(randomizer_of(n, to_cpp(c.value()), to_cpp(m)));
    }
    // Then encryption and re-randomisation take one each.
    for (std::size_t j = 0; j < 5; ++j) {
      const auto c = pk.encrypt(Int(3), gen);
      const auto d = pk.rerandomize(c, gen);
      CHECK(sk.decrypt(d) == 3);
      CHECK(randomizer_of(n, to_cpp(c.value()), 3) == expected[20 + 2 * j]);
      CHECK(randomizer_of(n, to_cpp(d.value()), 3) ==
            expected[20 + 2 * j] * expected[21 + 2 * j] % (n * n));
    }
    CHECK(pool->size() == 0);
    // The first 20 randomisers are those of the pool, in its order.
    CHECK(used == std::vector<cpp_int>(expected.begin(), expected.begin() + 20));
    // None of the 30 was used twice (they are distinct to begin with).
    CHECK(std::set<cpp_int>(expected.begin(), expected.end()).size() == 30);
    // Empty: encryption still works, with fresh randomisers from gen.
    const auto fresh = pk.encrypt(Int(11), gen);
    CHECK(sk.decrypt(fresh) == 11);
    const cpp_int r = randomizer_of(n, to_cpp(fresh.value()), cpp_int(11));
    CHECK(std::find(expected.begin(), expected.end(), r) == expected.end());
    CHECK(pk.without_pool().pool() == nullptr);
  }
}

TEST_CASE_TEMPLATE("a pool filled on many threads equals one filled on one", Int,
                   PRIVET_PAILLIER_TYPES) {
  const auto keys = small_keys<Int>(256, 25);
  const auto pk = keys.public_key.with_mode(paillier::encryption_mode::djn);
  paillier::randomizer_pool<Int> one(pk);
  paillier::randomizer_pool<Int> many(pk);
  privet::testing::seeded_release_generator g1(9);
  privet::testing::seeded_release_generator g2(9);
  one.fill(40, g1, {1});
  many.fill(25, g2, {2});  // two fills: the second under a fresh secret
  many.fill(15, g2, {0});
  privet::testing::seeded_release_generator g3(9);
  paillier::randomizer_pool<Int> again(pk);
  again.fill(25, g3, {3});
  again.fill(15, g3, {1});
  const auto a = many.take(100);
  CHECK(a.size() == 40);
  CHECK(again.take(40) == a);
  // The first 25 of `one` (one fill of 40) equal the first fill of `many`:
  // randomiser i comes from stream i of the fill's secret.
  const auto b = one.take(40);
  CHECK(std::vector<Int>(b.begin() + 15, b.end()) == std::vector<Int>(a.begin() + 15, a.end()));
  CHECK(one.size() == 0);
  CHECK(one.take(3).empty());
  CHECK_FALSE(one.take().has_value());
  CHECK(rejected_parameter([&] { one.fill(1, g1, {paillier::max_batch_threads + 1}); }) ==
        "threads");
}

TEST_CASE_TEMPLATE("two threads encrypting from one pool never share a randomiser", Int,
                   PRIVET_PAILLIER_TYPES) {
  const auto keys = small_keys<Int>(256, 26);
  const auto& sk = keys.private_key;
  auto pool = std::make_shared<paillier::randomizer_pool<Int>>(keys.public_key);
  privet::testing::seeded_release_generator fill_gen(10);
  pool->fill(64, fill_gen);
  paillier::randomizer_pool<Int> twin(keys.public_key);
  privet::testing::seeded_release_generator twin_gen(10);
  twin.fill(64, twin_gen);
  const std::vector<Int> all = twin.take(64);
  const auto pk = keys.public_key.with_pool(pool);
  const cpp_int n = to_cpp(pk.n());
  std::vector<cpp_int> found[2];
  bool decrypted[2] = {true, true};
  auto worker = [&](int t) {
    privet::testing::seeded_release_generator gen(100 + static_cast<std::uint64_t>(t));
    for (int i = 0; i < 40; ++i) {  // 80 encryptions for 64 randomisers
      const Int m(t * 1000 + i);
      const auto c = pk.encrypt(m, gen);
      decrypted[t] = decrypted[t] && sk.decrypt(c) == m;
      found[t].push_back(randomizer_of(n, to_cpp(c.value()), to_cpp(m)));
    }
  };
  std::thread first(worker, 0);
  std::thread second(worker, 1);
  first.join();
  second.join();
  CHECK(decrypted[0]);
  CHECK(decrypted[1]);
  CHECK(pool->size() == 0);
  std::set<cpp_int> pooled;
  for (const Int& r : all) pooled.insert(to_cpp(r));
  REQUIRE(pooled.size() == 64);
  std::set<cpp_int> used;
  std::size_t from_pool = 0;
  for (const auto& list : found) {
    for (const cpp_int& r : list) {
      CHECK(used.insert(r).second);  // no randomiser twice
      from_pool += pooled.count(r);
    }
  }
  CHECK(from_pool == 64);  // every pooled one used, 16 fresh ones besides
}

TEST_CASE_TEMPLATE("pools are checked against their key", Int, PRIVET_PAILLIER_TYPES) {
  const auto keys = small_keys<Int>(256, 27);
  const auto other = small_keys<Int>(256, 28);
  auto pool = std::make_shared<paillier::randomizer_pool<Int>>(other.public_key);
  CHECK_THROWS_WITH_AS((void)keys.public_key.with_pool(pool),
                       "privet: pool holds randomisers of another public key; allowed: a "
                       "randomizer_pool made for this key (the same n)",
                       privet::invalid_parameter);
  CHECK(rejected_parameter([&] { (void)keys.public_key.with_pool(nullptr); }) == "pool");
  // The same n loaded again is the same key.
  const paillier::public_key<Int> loaded(other.public_key.n(), paillier::allow_insecure);
  CHECK(loaded.with_pool(pool).pool() == pool);
}

// --- key types ----------------------------------------------------------------------

namespace {
struct alice_key {};
struct bob_key {};
}  // namespace

TEST_CASE_TEMPLATE("keys of a named key type work as runtime keys do", Int, PRIVET_PAILLIER_TYPES) {
  privet::testing::seeded_release_generator gen(53);
  const auto alice =
      paillier::generate_keypair<Int, alice_key>(paillier::insecure_key_size{256}, gen);
  const auto alice2 =
      paillier::generate_keypair<Int, alice_key>(paillier::insecure_key_size{256}, gen);
  const auto bob = paillier::generate_keypair<Int, bob_key>(paillier::insecure_key_size{256}, gen);
  static_assert(std::is_same_v<decltype(alice.public_key), paillier::public_key<Int, alice_key>>);
  const auto a = alice.public_key.encrypt(Int(20), gen);
  const auto b = alice.public_key.with_mode(paillier::encryption_mode::djn).encrypt(Int(22), gen);
  static_assert(
      std::is_same_v<std::remove_const_t<decltype(a)>, paillier::ciphertext<Int, alice_key>>);
  CHECK(alice.private_key.decrypt(a + b) == 42);
  CHECK(alice.private_key.decrypt_signed(a - b) == -2);
  CHECK(alice.private_key.decrypt(a * 3) == 60);
  const std::vector<paillier::ciphertext<Int, alice_key>> cs = {a, b};
  CHECK(alice.private_key.decrypt(
            paillier::sum(std::span<const paillier::ciphertext<Int, alice_key>>(cs))) == 42);
  CHECK(a.key() == alice.public_key);
  // Two keys of one key type are still told apart at run time.
  const auto c = alice2.public_key.encrypt(Int(1), gen);
  CHECK(rejected_parameter([&] { (void)(a + c); }) == "rhs");
  CHECK(rejected_parameter([&] { (void)alice.private_key.decrypt(c); }) == "ciphertext");
  // Different key types: the mixed operators resolve to the overloads whose
  // bodies fail to compile (tests/compile_fail/paillier_mixed_key_types.cpp);
  // here only their declared type is inspected, nothing is instantiated.
  const auto d = bob.public_key.encrypt(Int(1), gen);
  static_assert(std::is_void_v<decltype(a + d)>);
  static_assert(std::is_void_v<decltype(alice.private_key.decrypt(d))>);
  static_assert(std::is_same_v<decltype(a + a), paillier::ciphertext<Int, alice_key>>);
  CHECK(bob.private_key.decrypt(d) == 1);
}
