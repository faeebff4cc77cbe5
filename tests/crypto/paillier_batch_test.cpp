// Tests of Paillier's batch operations (crypto/paillier_batch.hpp) over
// every backend: each equals the one-element operations it parallelises,
// the result is the same on 1, 2, 3 threads and TBB's default (randomness
// per element from its own stream, pooled randomisers taken in order before
// the tasks), in both encryption modes; plaintexts round-trip; a pool's
// randomisers are used by batches too; and every rejection names the first
// bad element.
#include <privet/core/error.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform.hpp>
#include <privet/crypto/paillier.hpp>
#include <privet/crypto/paillier_batch.hpp>

#include <doctest/doctest.h>
#include <boost/multiprecision/cpp_int.hpp>
#include <support/errors.hpp>
#ifdef PRIVET_HAS_GMP
#include <boost/multiprecision/gmp.hpp>
#endif

#include <cstddef>
#include <cstdint>
#include <memory>
#include <set>
#include <span>
#include <string>
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
using view = std::span<const paillier::ciphertext<Int>>;

template <class Int>
paillier::keypair<Int> small_keys(std::size_t bits, std::uint64_t seed) {
  privet::testing::seeded_release_generator gen(seed);
  return paillier::generate_keypair<Int>(paillier::insecure_key_size{bits}, gen);
}

template <class Int>
std::vector<Int> random_plaintexts(privet::testing::seeded_release_generator& gen, const Int& n,
                                   std::size_t count) {
  std::vector<Int> out;
  for (std::size_t i = 0; i < count; ++i) out.push_back(privet::uniform_below(gen, n));
  return out;
}

constexpr std::size_t thread_counts[] = {0, 2, 3};

}  // namespace

TEST_CASE_TEMPLATE("batch encryption round-trips and does not depend on the threads", Int,
                   PRIVET_PAILLIER_TYPES) {
  privet::testing::seeded_release_generator gen(71);
  const auto keys = small_keys<Int>(256, 1);
  const auto& sk = keys.private_key;
  for (const auto mode : {paillier::encryption_mode::textbook, paillier::encryption_mode::djn}) {
    CAPTURE(static_cast<int>(mode));
    const auto pk = keys.public_key.with_mode(mode);
    const std::vector<Int> ms = random_plaintexts(gen, pk.n(), 37);
    privet::testing::seeded_release_generator g1(5);
    const auto serial = paillier::encrypt(pk, ms, g1, {1});
    REQUIRE(serial.size() == ms.size());
    CHECK(paillier::decrypt(sk, serial) == ms);
    for (std::size_t i = 0; i < ms.size(); ++i) CHECK(sk.decrypt_textbook(serial[i]) == ms[i]);
    for (const std::size_t threads : thread_counts) {
      CAPTURE(threads);
      privet::testing::seeded_release_generator g(5);
      CHECK(paillier::encrypt(pk, ms, g, {threads}) == serial);
    }
    // Another seed, other ciphertexts; fresh randomness for every element.
    privet::testing::seeded_release_generator g2(6);
    const auto other = paillier::encrypt(pk, ms, g2);
    std::set<std::string> values;
    for (std::size_t i = 0; i < ms.size(); ++i) {
      CHECK(other[i].value() != serial[i].value());
      values.insert(serial[i].value().str());
    }
    const std::vector<Int> same(20, Int(3));
    for (const auto& c : paillier::encrypt(pk, same, g2)) values.insert(c.value().str());
    CHECK(values.size() == ms.size() + same.size());
    // Signed plaintexts.
    std::vector<Int> xs;
    for (int i = -10; i <= 10; ++i) xs.push_back(Int(i * 1000003));
    xs.push_back(pk.max_signed());
    xs.push_back(Int(-pk.max_signed()));
    privet::testing::seeded_release_generator g3(7);
    const auto signed_cs = paillier::encrypt_signed(pk, xs, g3, {2});
    CHECK(paillier::decrypt_signed(sk, signed_cs) == xs);
    CHECK(paillier::decrypt_signed(sk, signed_cs, {1}) == xs);
    CHECK(paillier::encrypt(pk, std::vector<Int>{}, g3).empty());
  }
}

TEST_CASE_TEMPLATE("batch decryption equals decryption one by one", Int, PRIVET_PAILLIER_TYPES) {
  privet::testing::seeded_release_generator gen(72);
  const auto keys = small_keys<Int>(512, 2);
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;
  ciphertexts<Int> cs;
  for (int i = 0; i < 25; ++i) {
    // Arbitrary elements of Z*_{n^2}, not only encryptions we made.
    const Int v = privet::uniform_below(gen, pk.n_squared());
    if (v == 0 || mp::gcd(v, pk.n()) != 1) continue;
    cs.emplace_back(pk, v);
  }
  std::vector<Int> expected;
  for (const auto& c : cs) expected.push_back(sk.decrypt_textbook(c));
  CHECK(paillier::decrypt(sk, cs, {1}) == expected);
  for (const std::size_t threads : thread_counts) {
    CHECK(paillier::decrypt(sk, cs, {threads}) == expected);
  }
  CHECK(paillier::decrypt(sk, ciphertexts<Int>{}).empty());
}

TEST_CASE_TEMPLATE("batch re-randomisation keeps plaintexts and does not depend on the threads",
                   Int, PRIVET_PAILLIER_TYPES) {
  privet::testing::seeded_release_generator gen(73);
  const auto keys = small_keys<Int>(256, 3);
  const auto& sk = keys.private_key;
  for (const auto mode : {paillier::encryption_mode::textbook, paillier::encryption_mode::djn}) {
    const auto pk = keys.public_key.with_mode(mode);
    const std::vector<Int> ms = random_plaintexts(gen, pk.n(), 19);
    const auto cs = paillier::encrypt(pk, ms, gen);
    privet::testing::seeded_release_generator g1(8);
    const auto serial = paillier::rerandomize(pk, cs, g1, {1});
    CHECK(paillier::decrypt(sk, serial) == ms);
    for (std::size_t i = 0; i < cs.size(); ++i) CHECK(serial[i].value() != cs[i].value());
    for (const std::size_t threads : thread_counts) {
      privet::testing::seeded_release_generator g(8);
      CHECK(paillier::rerandomize(pk, cs, g, {threads}) == serial);
    }
  }
}

TEST_CASE_TEMPLATE("batches take a pool's randomisers first, in order, then fresh ones", Int,
                   PRIVET_PAILLIER_TYPES) {
  privet::testing::seeded_release_generator gen(74);
  const auto keys = small_keys<Int>(256, 4);
  const auto& sk = keys.private_key;
  const auto base = keys.public_key.with_mode(paillier::encryption_mode::djn);
  const std::vector<Int> ms = random_plaintexts(gen, base.n(), 16);
  std::vector<ciphertexts<Int>> results;
  for (const std::size_t threads : {1u, 2u, 0u}) {
    auto pool = std::make_shared<paillier::randomizer_pool<Int>>(base);
    privet::testing::seeded_release_generator fill_gen(9);
    pool->fill(10, fill_gen, {threads});
    const auto pk = base.with_pool(pool);
    privet::testing::seeded_release_generator g(10);
    results.push_back(paillier::encrypt(pk, ms, g, {threads}));
    CHECK(pool->size() == 0);  // 10 pooled, 6 fresh
    CHECK(paillier::decrypt(sk, results.back()) == ms);
  }
  CHECK(results[1] == results[0]);
  CHECK(results[2] == results[0]);
  // Elements 0..9 used the pool's randomisers in the order take() gives.
  paillier::randomizer_pool<Int> twin(base);
  privet::testing::seeded_release_generator twin_gen(9);
  twin.fill(10, twin_gen);
  const std::vector<Int> pooled = twin.take(10);
  const cpp_int n(base.n().str());
  const cpp_int n2 = n * n;
  for (std::size_t i = 0; i < 10; ++i) {
    cpp_int inv = (1 - cpp_int(ms[i].str()) * n) % n2;
    if (inv < 0) inv += n2;
    CHECK(cpp_int(results[0][i].value().str()) * inv % n2 == cpp_int(pooled[i].str()));
  }
  // A pool with more than enough keeps the rest.
  auto big = std::make_shared<paillier::randomizer_pool<Int>>(base);
  big->fill(20, gen);
  (void)paillier::rerandomize(base.with_pool(big), results[0], gen);
  CHECK(big->size() == 4);
}

TEST_CASE_TEMPLATE("elementwise addition and scalar products equal the one-by-one operations", Int,
                   PRIVET_PAILLIER_TYPES) {
  privet::testing::seeded_release_generator gen(75);
  const auto keys = small_keys<Int>(256, 5);
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;
  const std::size_t size = 23;
  const std::vector<Int> xs = random_plaintexts(gen, pk.n(), size);
  const std::vector<Int> ys = random_plaintexts(gen, pk.n(), size);
  const auto a = paillier::encrypt(pk, xs, gen);
  const auto b = paillier::encrypt(pk, ys, gen);
  std::vector<std::int64_t> ks;
  std::vector<Int> big_ks;
  for (std::size_t i = 0; i < size; ++i) {
    ks.push_back(i % 5 == 0 ? 0 : privet::uniform_int<std::int64_t>(gen, -1000000, 1000000));
    big_ks.push_back(i % 2 == 0 ? Int(pk.n() - 1 - Int(i)) : Int(-pk.n() + 1 + Int(i)));
  }
  ciphertexts<Int> sums, products, big_products, times_minus_seven;
  for (std::size_t i = 0; i < size; ++i) {
    sums.push_back(a[i] + b[i]);
    products.push_back(a[i] * ks[i]);
    big_products.push_back(a[i] * big_ks[i]);
    times_minus_seven.push_back(a[i] * -7);
  }
  for (const std::size_t threads : {1u, 0u, 2u, 3u}) {
    CAPTURE(threads);
    const paillier::batch_options options{threads};
    CHECK(paillier::add(view<Int>(a), b, options) == sums);
    CHECK(paillier::multiply(view<Int>(a), std::span<const std::int64_t>(ks), options) == products);
    CHECK(paillier::multiply(view<Int>(a), std::span<const Int>(big_ks), options) == big_products);
    CHECK(paillier::multiply(view<Int>(a), -7, options) == times_minus_seven);
  }
  const auto decrypted = paillier::decrypt(sk, paillier::add(view<Int>(a), b));
  for (std::size_t i = 0; i < size; ++i) CHECK(decrypted[i] == (xs[i] + ys[i]) % pk.n());
  CHECK(paillier::add(view<Int>(ciphertexts<Int>{}), ciphertexts<Int>{}).empty());
}

TEST_CASE_TEMPLATE("batch operations name the first bad element", Int, PRIVET_PAILLIER_TYPES) {
  privet::testing::seeded_release_generator gen(76);
  const auto keys = small_keys<Int>(256, 6);
  const auto other = small_keys<Int>(256, 7);
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;
  std::vector<Int> ms = {Int(1), Int(2), pk.n(), Int(-1)};
  CHECK_THROWS_WITH_AS((void)paillier::encrypt(pk, ms, gen, {2}),
                       "privet: plaintext plaintexts[2] is outside the plaintext range; allowed: "
                       "[0, n) with n the 256-bit modulus (use the signed functions for "
                       "negatives)",
                       privet::overflow_error);
  const std::vector<Int> xs = {Int(0), Int(-pk.max_signed() - 1)};
  CHECK_THROWS_WITH_AS((void)paillier::encrypt_signed(pk, xs, gen),
                       "privet: signed plaintext plaintexts[1] is outside the plaintext range; "
                       "allowed: [-(n-1)/2, (n-1)/2] with n the 256-bit modulus",
                       privet::overflow_error);
  ciphertexts<Int> cs = {pk.encrypt(Int(1), gen), pk.encrypt(Int(2), gen)};
  ciphertexts<Int> mixed = {cs[0], other.public_key.encrypt(Int(3), gen), cs[1]};
  CHECK_THROWS_WITH_AS((void)paillier::decrypt(sk, mixed),
                       "privet: ciphertexts[1] is under a different public key; allowed: "
                       "ciphertexts under this key (the same n)",
                       privet::invalid_parameter);
  CHECK(rejected_parameter([&] { (void)paillier::decrypt_signed(sk, mixed); }) == "ciphertexts");
  CHECK(rejected_parameter([&] { (void)paillier::rerandomize(pk, mixed, gen); }) == "ciphertexts");
  const ciphertexts<Int> three = {cs[0], cs[1], cs[0]};
  CHECK_THROWS_WITH_AS((void)paillier::add(view<Int>(cs), three),
                       "privet: b.size() = 3 is invalid; allowed: a.size() = 2",
                       privet::invalid_parameter);
  const ciphertexts<Int> foreign = {cs[0], other.public_key.encrypt(Int(3), gen)};
  CHECK(rejected_parameter([&] { (void)paillier::add(view<Int>(cs), foreign); }) == "b");
  CHECK(rejected_parameter([&] { (void)paillier::multiply(view<Int>(mixed), 2); }) ==
        "ciphertexts");
  const std::vector<Int> ks = {Int(1), Int(-pk.n())};
  CHECK_THROWS_WITH_AS((void)paillier::multiply(view<Int>(cs), std::span<const Int>(ks)),
                       "privet: scalars[1] is outside (-n, n) for the 256-bit modulus n; "
                       "allowed: |k| < n",
                       privet::overflow_error);
  const std::vector<int> one = {1};
  CHECK(rejected_parameter([&] {
          (void)paillier::multiply(view<Int>(cs), std::span<const int>(one));
        }) == "scalars.size()");
  CHECK_THROWS_AS((void)paillier::multiply(view<Int>(cs), pk.n()), privet::overflow_error);
  CHECK(rejected_parameter([&] {
          (void)paillier::decrypt(sk, cs, {paillier::max_batch_threads + 1});
        }) == "threads");
  CHECK(rejected_parameter([&] {
          (void)paillier::encrypt(pk, std::vector<Int>{Int(1)}, gen,
                                  {paillier::max_batch_threads + 1});
        }) == "threads");
}

TEST_CASE_TEMPLATE("every batch refusal's full message (docs/error_audit.md)", Int,
                   PRIVET_PAILLIER_TYPES) {
  // The rows of the audit that the test above checks by name or type only.
  privet::testing::seeded_release_generator gen(77);
  const auto keys = small_keys<Int>(256, 6);
  const auto other = small_keys<Int>(256, 7);
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;
  ciphertexts<Int> cs = {pk.encrypt(Int(1), gen), pk.encrypt(Int(2), gen)};
  ciphertexts<Int> mixed = {cs[0], other.public_key.encrypt(Int(3), gen), cs[1]};
  const char* const under_other =
      "privet: ciphertexts[1] is under a different public key; allowed: ciphertexts under this "
      "key (the same n)";
  CHECK_THROWS_WITH_AS((void)paillier::decrypt_signed(sk, mixed), under_other,
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)paillier::rerandomize(pk, mixed, gen), under_other,
                       privet::invalid_parameter);
  const ciphertexts<Int> foreign = {cs[0], other.public_key.encrypt(Int(3), gen)};
  CHECK_THROWS_WITH_AS((void)paillier::add(view<Int>(cs), foreign),
                       "privet: b[1] is under a different public key; allowed: ciphertexts under "
                       "this key (the same n)",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)paillier::add(view<Int>(foreign), cs),
                       "privet: a[1] is under a different public key; allowed: ciphertexts under "
                       "this key (the same n)",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)paillier::multiply(view<Int>(mixed), 2),
                       "privet: ciphertexts[1] is under a different public key than "
                       "ciphertexts[0]; allowed: ciphertexts under the same key (the same n)",
                       privet::invalid_parameter);
  const std::vector<int> one = {1};
  CHECK_THROWS_WITH_AS((void)paillier::multiply(view<Int>(cs), std::span<const int>(one)),
                       "privet: scalars.size() = 1 is invalid; allowed: ciphertexts.size() = 2",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)paillier::multiply(view<Int>(cs), pk.n()),
                       "privet: scalar k is outside (-n, n) for the 256-bit modulus n; allowed: "
                       "|k| < n",
                       privet::overflow_error);
  const std::string threads =
      "privet: threads = " + std::to_string(paillier::max_batch_threads + 1) +
      " is invalid; allowed: [0, " + std::to_string(paillier::max_batch_threads) +
      "] (0: every core TBB may use, 1: the calling thread only)";
  CHECK_THROWS_WITH_AS((void)paillier::decrypt(sk, cs, {paillier::max_batch_threads + 1}),
                       threads.c_str(), privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(
      (void)paillier::encrypt(pk, std::vector<Int>{Int(1)}, gen, {paillier::max_batch_threads + 1}),
      threads.c_str(), privet::invalid_parameter);
}
