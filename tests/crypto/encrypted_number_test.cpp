// Tests of encrypted fixed-point numbers (privet/crypto/encrypted_number.hpp)
// over every Paillier backend: every homomorphic operation against exact
// fixed-point arithmetic, the bound each result carries, and the overflow
// checks at their exact boundaries (a bound equal to (n-1)/2 passes, one
// more throws, before the ciphertext is touched), including a wrap that
// takes many additions and that plain ciphertext arithmetic would not see.
#include <privet/core/error.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform.hpp>
#include <privet/crypto/encrypted_number.hpp>

#include <doctest/doctest.h>
#include <support/errors.hpp>
#include <support/paillier_backends.hpp>

#include <concepts>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace paillier = privet::paillier;
using privet::test::rejected_parameter;
using privet::test::small_keys;

namespace {

using S = paillier::hex_scale<4>;
using S2 = paillier::product_scale_t<S, S>;

template <class Int>
using fp = paillier::fixed_point<Int, S>;
template <class Int>
using enc = paillier::encrypted_number<Int, S>;
template <class Int>
using encs = std::span<const enc<Int>>;

template <class Int>
fp<Int> random_value(privet::testing::seeded_release_generator& gen, double limit) {
  return fp<Int>::encode((2 * privet::uniform_real(gen) - 1) * limit);
}

template <class Int>
std::string bound_message(const std::string& operation, const std::string& expression,
                          const paillier::public_key<Int>& pk) {
  return "privet: " + operation + " could overflow the plaintext range: the bound " + expression +
         " of its result exceeds (n-1)/2 = " + pk.max_signed().str() + " for the " +
         std::to_string(pk.bits()) + "-bit modulus n; allowed: results bounded by (n-1)/2";
}

}  // namespace

TEST_CASE_TEMPLATE("homomorphic operations equal fixed-point arithmetic, bounds included", Int,
                   PRIVET_PAILLIER_BACKENDS) {
  privet::testing::seeded_release_generator gen(81);
  const auto keys = small_keys<Int>(256, 81);
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;
  const fp<Int> bound = fp<Int>::encode(100.0);
  const Int b0 = bound.mantissa();
  for (int i = 0; i < 6; ++i) {
    const fp<Int> a = random_value<Int>(gen, 100.0);
    const fp<Int> b = random_value<Int>(gen, 100.0);
    CAPTURE(a.decode());
    CAPTURE(b.decode());
    const auto ea = paillier::encrypt(pk, a, bound, gen);
    const auto eb = paillier::encrypt(sk, b, bound, gen);  // the owner's CRT encryption
    CHECK(paillier::decrypt(sk, ea) == a);
    CHECK(paillier::decrypt(sk, eb) == b);
    CHECK(ea.bound() == bound);
    CHECK(ea.key() == pk);

    const auto sum = ea + eb;
    CHECK(paillier::decrypt(sk, sum) == a + b);
    CHECK(sum.bound_mantissa() == 2 * b0);
    CHECK(paillier::decrypt(sk, ea - eb) == a - b);
    CHECK((ea - eb).bound_mantissa() == 2 * b0);
    CHECK(paillier::decrypt(sk, -ea) == -a);
    CHECK((-ea).bound_mantissa() == b0);

    // Plaintext addition: the bound grows by |k|.
    CHECK(paillier::decrypt(sk, ea + b) == a + b);
    CHECK(paillier::decrypt(sk, b + ea) == a + b);
    CHECK(paillier::decrypt(sk, ea - b) == a - b);
    CHECK((ea + b).bound_mantissa() == b0 + b.abs().mantissa());

    // Integer scalars keep the scale; the bound scales by |k|.
    for (long long k : {3LL, -3LL, 1LL, -1LL, 0LL, 1000LL}) {
      CAPTURE(k);
      const auto p = ea * k;
      static_assert(std::same_as<std::remove_cvref_t<decltype(p)>, enc<Int>>);
      CHECK(paillier::decrypt(sk, p).mantissa() == a.mantissa() * Int(k));
      CHECK(p.bound_mantissa() == b0 * Int(k < 0 ? -k : k));
      CHECK(paillier::decrypt(sk, k * ea) == paillier::decrypt(sk, p));
    }
    CHECK(paillier::decrypt(sk, ea * Int(-7)).mantissa() == a.mantissa() * -7);

    // A fixed-point scalar gives the product scale, exactly.
    const auto prod = ea * b;
    static_assert(
        std::same_as<std::remove_cvref_t<decltype(prod)>, paillier::encrypted_number<Int, S2>>);
    CHECK(paillier::decrypt(sk, prod) == a * b);
    CHECK(prod.bound_mantissa() == b0 * b.abs().mantissa());
    CHECK(paillier::decrypt(sk, b * ea) == a * b);
    // Upscaled, a value of scale C adds to a product of scale C^2.
    const auto mixed = prod + paillier::upscale<S2>(ea);
    CHECK(paillier::decrypt(sk, mixed) == a * b + paillier::upscale<S2>(a));
    CHECK(paillier::upscale<S2>(ea).bound_mantissa() == b0 * 65536);

    auto acc = ea;
    acc += eb;
    acc -= ea;
    acc *= 2;
    CHECK(paillier::decrypt(sk, acc) == b + b);
    CHECK(acc.bound_mantissa() == 6 * b0);

    const auto r = paillier::rerandomize(pk, ea, gen);
    CHECK(r.ciphertext().value() != ea.ciphertext().value());
    CHECK(paillier::decrypt(sk, r) == a);
    CHECK(r.bound() == bound);
  }
  // Encryption with the caller's r is (1 + m n) r^n mod n^2 of the plaintext.
  const Int r = pk.random_r(gen);
  const fp<Int> x = fp<Int>::encode(-3.25);
  CHECK(paillier::encrypt_with(pk, x, bound, r).ciphertext() ==
        pk.encrypt_with(Int(pk.n() - 212992), r));  // -3.25 * 16^4 = -212992
}

TEST_CASE_TEMPLATE("sums and dense and sparse dot products", Int, PRIVET_PAILLIER_BACKENDS) {
  privet::testing::seeded_release_generator gen(82);
  const auto keys = small_keys<Int>(256, 82);
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;
  const std::size_t size = 9;
  std::vector<fp<Int>> values;
  std::vector<fp<Int>> bounds;
  std::vector<enc<Int>> xs;
  for (std::size_t i = 0; i < size; ++i) {
    values.push_back(random_value<Int>(gen, 50.0));
    bounds.push_back(fp<Int>::encode(50.0 + static_cast<double>(i)));  // bounds differ
    xs.push_back(paillier::encrypt(pk, values.back(), bounds.back(), gen));
  }
  const encs<Int> view(xs);
  fp<Int> total;
  Int total_bound = 0;
  for (std::size_t i = 0; i < size; ++i) {
    total = total + values[i];
    total_bound += bounds[i].mantissa();
  }
  const auto s = paillier::sum(view);
  CHECK(paillier::decrypt(sk, s) == total);
  CHECK(s.bound_mantissa() == total_bound);

  std::vector<int> weights;
  std::vector<fp<Int>> fweights;
  fp<Int> dot_int;
  paillier::fixed_point<Int, S2> dot_fp;
  Int int_bound = 0;
  Int fp_bound = 0;
  for (std::size_t i = 0; i < size; ++i) {
    weights.push_back(i % 3 == 0 ? 0
                                 : static_cast<int>(privet::uniform_int<std::int64_t>(gen, -9, 9)));
    fweights.push_back(random_value<Int>(gen, 2.0));
    dot_int = dot_int + fp<Int>::from_mantissa(Int(values[i].mantissa() * weights[i]));
    dot_fp = dot_fp + values[i] * fweights[i];
    int_bound += bounds[i].mantissa() * Int(weights[i] < 0 ? -weights[i] : weights[i]);
    fp_bound += bounds[i].mantissa() * fweights[i].abs().mantissa();
  }
  const auto d = paillier::dot(view, std::span<const int>(weights));
  static_assert(std::same_as<std::remove_cvref_t<decltype(d)>, enc<Int>>);
  CHECK(paillier::decrypt(sk, d) == dot_int);
  CHECK(d.bound_mantissa() == int_bound);
  const auto df = paillier::dot(view, std::span<const fp<Int>>(fweights));
  static_assert(
      std::same_as<std::remove_cvref_t<decltype(df)>, paillier::encrypted_number<Int, S2>>);
  CHECK(paillier::decrypt(sk, df) == dot_fp);
  CHECK(df.bound_mantissa() == fp_bound);

  // Sparse: a repeated index adds its weights and their bounds.
  const std::vector<paillier::sparse_entry<long long>> entries = {{2, 4}, {7, -3}, {2, 1}};
  const auto sp = paillier::dot(view, std::span<const paillier::sparse_entry<long long>>(entries));
  CHECK(paillier::decrypt(sk, sp).mantissa() ==
        values[2].mantissa() * 5 - values[7].mantissa() * 3);
  CHECK(sp.bound_mantissa() == bounds[2].mantissa() * 5 + bounds[7].mantissa() * 3);
  const std::vector<paillier::sparse_entry<fp<Int>>> fentries = {{4, fp<Int>::encode(-0.5)}};
  const auto spf = paillier::dot(view, std::span<const paillier::sparse_entry<fp<Int>>>(fentries));
  CHECK(paillier::decrypt(sk, spf) == values[4] * fp<Int>::encode(-0.5));
  const auto none = paillier::dot(view, std::span<const paillier::sparse_entry<int>>());
  CHECK(none.bound_mantissa() == 0);
  CHECK(paillier::decrypt(sk, none).mantissa() == 0);

  const std::vector<int> short_weights = {1, 2};
  CHECK_THROWS_WITH_AS((void)paillier::dot(view, std::span<const int>(short_weights)),
                       "privet: scalars.size() = 2 is invalid; allowed: ciphertexts.size() = 9",
                       privet::invalid_parameter);
  const std::vector<paillier::sparse_entry<int>> outside = {{9, 1}};
  CHECK_THROWS_WITH_AS(
      (void)paillier::dot(view, std::span<const paillier::sparse_entry<int>>(outside)),
      "privet: index = 9 is invalid; allowed: < ciphertexts.size() = 9", privet::invalid_parameter);
  CHECK(rejected_parameter([] { (void)paillier::sum(encs<Int>()); }) == "ciphertexts");
}

TEST_CASE_TEMPLATE("bounds at (n-1)/2 pass and one more throws, for every operation", Int,
                   PRIVET_PAILLIER_BACKENDS) {
  privet::testing::seeded_release_generator gen(83);
  const auto keys = small_keys<Int>(128, 83);  // (n-1)/2 fits a message in full
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;
  const Int half = pk.max_signed();
  const auto f = [](const Int& m) { return fp<Int>::from_mantissa(m); };

  // Encryption: the bound itself.
  const auto top = paillier::encrypt(pk, f(half), f(half), gen);
  CHECK(paillier::decrypt(sk, top) == f(half));
  CHECK(paillier::decrypt(sk, -top) == f(Int(-half)));
  CHECK_THROWS_WITH_AS((void)paillier::encrypt(pk, f(Int(1)), f(Int(half + 1)), gen),
                       ("privet: bound = " + Int(half + 1).str() + " exceeds (n-1)/2 = " +
                        half.str() + " for the 128-bit modulus n; allowed: [0, (n-1)/2]")
                           .c_str(),
                       privet::overflow_error);
  CHECK_THROWS_WITH_AS((void)paillier::encrypt(pk, f(Int(-8)), f(Int(7)), gen),
                       "privet: x exceeds its bound: |mantissa| = 8 > bound = 7 (at scale 16^4); "
                       "allowed: |x| <= bound",
                       privet::overflow_error);
  CHECK(rejected_parameter([&] { (void)paillier::encrypt(pk, f(Int(0)), f(Int(-1)), gen); }) ==
        "bound");

  // Addition and subtraction: bounds adding up to exactly (n-1)/2.
  const Int part = half / 3;
  const auto a = paillier::encrypt(pk, f(part), f(part), gen);
  const auto b = paillier::encrypt(pk, f(Int(-1)), f(Int(half - part)), gen);
  const auto b_over = paillier::encrypt(pk, f(Int(-1)), f(Int(half - part + 1)), gen);
  CHECK(paillier::decrypt(sk, a + b) == f(Int(part - 1)));
  CHECK((a + b).bound_mantissa() == half);
  CHECK(paillier::decrypt(sk, a - b) == f(Int(part + 1)));
  CHECK_THROWS_WITH_AS(
      (void)(a + b_over),
      bound_message<Int>("addition", part.str() + " + " + Int(half - part + 1).str(), pk).c_str(),
      privet::overflow_error);
  CHECK_THROWS_WITH_AS(
      (void)(a - b_over),
      bound_message<Int>("subtraction", part.str() + " + " + Int(half - part + 1).str(), pk)
          .c_str(),
      privet::overflow_error);

  // Plaintext addition: bound + |k|.
  CHECK(paillier::decrypt(sk, a + f(Int(-(half - part)))) == f(Int(2 * part - half)));
  CHECK_THROWS_AS((void)(a + f(Int(half - part + 1))), privet::overflow_error);
  CHECK_THROWS_AS((void)(a - f(Int(half - part + 1))), privet::overflow_error);

  // Multiplication: bound * |k| <= (n-1)/2, decided without forming the product.
  const auto three = paillier::encrypt(pk, f(Int(-3)), f(Int(3)), gen);
  const Int k = half / 3;
  CHECK(paillier::decrypt(sk, three * k) == f(Int(-3 * k)));
  CHECK(paillier::decrypt(sk, three * Int(-k)) == f(Int(3 * k)));
  CHECK_THROWS_WITH_AS((void)(three * Int(k + 1)),
                       bound_message<Int>("multiplication", "3 * " + Int(k + 1).str(), pk).c_str(),
                       privet::overflow_error);
  CHECK_THROWS_AS((void)(three * Int(-k - 1)), privet::overflow_error);
  CHECK_THROWS_AS((void)(three * f(Int(k + 1))), privet::overflow_error);
  const auto one = paillier::encrypt(pk, f(Int(1)), f(Int(1)), gen);
  CHECK(paillier::decrypt(sk, one * half) == f(half));
  CHECK_THROWS_AS((void)(one * Int(half + 1)), privet::overflow_error);

  // Upscaling multiplies the bound by 16^k.
  const auto up_ok = paillier::encrypt(pk, f(Int(1)), f(Int(half / 16)), gen);
  CHECK(paillier::upscale<paillier::hex_scale<5>>(up_ok).bound_mantissa() == half / 16 * 16);
  const auto up_bad = paillier::encrypt(pk, f(Int(1)), f(Int(half / 16 + 1)), gen);
  CHECK_THROWS_AS((void)paillier::upscale<paillier::hex_scale<5>>(up_bad), privet::overflow_error);

  // Dot products: sum of |k_i| bound_i, dense and sparse (repeated index).
  const std::vector<enc<Int>> ones = {one, one};
  const std::vector<Int> w_ok = {Int(half - 5), Int(-5)};
  const std::vector<Int> w_over = {Int(half - 5), Int(-6)};
  CHECK(paillier::decrypt(sk, paillier::dot(encs<Int>(ones), std::span<const Int>(w_ok))) ==
        f(Int(half - 10)));
  CHECK_THROWS_WITH_AS((void)paillier::dot(encs<Int>(ones), std::span<const Int>(w_over)),
                       bound_message<Int>("dot product", Int(half - 5).str() + " + 6", pk).c_str(),
                       privet::overflow_error);
  const std::vector<paillier::sparse_entry<Int>> s_ok = {{1, Int(half - 5)}, {1, Int(5)}};
  const std::vector<paillier::sparse_entry<Int>> s_over = {{1, Int(half - 5)}, {1, Int(6)}};
  CHECK(paillier::dot(encs<Int>(ones), std::span<const paillier::sparse_entry<Int>>(s_ok))
            .bound_mantissa() == half);
  CHECK_THROWS_AS(
      (void)paillier::dot(encs<Int>(ones), std::span<const paillier::sparse_entry<Int>>(s_over)),
      privet::overflow_error);
}

TEST_CASE_TEMPLATE("a wrap that takes many additions is caught before the last one", Int,
                   PRIVET_PAILLIER_BACKENDS) {
  privet::testing::seeded_release_generator gen(84);
  const auto keys = small_keys<Int>(256, 84);
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;
  const Int half = pk.max_signed();
  const Int big = half / 7 + 12345;  // 6 copies fit, 7 do not
  const std::size_t fit = static_cast<std::size_t>(Int(half / big));
  REQUIRE(fit == 6);
  const auto x =
      paillier::encrypt(pk, fp<Int>::from_mantissa(big), fp<Int>::from_mantissa(big), gen);
  auto acc = x;
  for (std::size_t t = 2; t <= fit; ++t) acc += x;
  CHECK(paillier::decrypt(sk, acc).mantissa() == big * Int(fit));
  CHECK(acc.bound_mantissa() == big * Int(fit));
  CHECK_THROWS_AS((void)(acc + x), privet::overflow_error);
  // Plain ciphertext arithmetic wraps past n/2 and reads back a negative
  // number: what the bound prevents.
  const auto raw = acc.ciphertext() + x.ciphertext();
  CHECK(sk.decrypt_signed(raw) != big * Int(fit + 1));
  CHECK(sk.decrypt_signed(raw) < 0);
  // The same through sum().
  const std::vector<enc<Int>> copies(fit, x);
  CHECK(paillier::decrypt(sk, paillier::sum(encs<Int>(copies))).mantissa() == big * Int(fit));
  std::vector<enc<Int>> too_many(fit + 1, x);
  CHECK_THROWS_AS((void)paillier::sum(encs<Int>(too_many)), privet::overflow_error);
}

TEST_CASE_TEMPLATE("a broken bound, and mixed keys, are refused", Int, PRIVET_PAILLIER_BACKENDS) {
  privet::testing::seeded_release_generator gen(85);
  const auto keys = small_keys<Int>(256, 85);
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;
  // A ciphertext of 50 received with a claimed bound of 10.
  const paillier::encrypted_number<Int, S> liar(pk.encrypt(Int(50), gen),
                                                fp<Int>::from_mantissa(Int(10)));
  CHECK_THROWS_WITH_AS((void)paillier::decrypt(sk, liar),
                       "privet: a decrypted mantissa exceeds its encrypted number's bound = 10; "
                       "allowed: values within the bound the ciphertext was sent with",
                       privet::protocol_error);
  const paillier::encrypted_number<Int, S> honest(pk.encrypt(Int(pk.n() - 50), gen),
                                                  fp<Int>::from_mantissa(Int(50)));
  CHECK(paillier::decrypt(sk, honest).mantissa() == -50);
  CHECK_THROWS_AS(
      (paillier::encrypted_number<Int, S>(pk.encrypt(Int(1), gen), fp<Int>::from_mantissa(pk.n()))),
      privet::overflow_error);

  const auto other = small_keys<Int>(256, 86);
  const fp<Int> one = fp<Int>::encode(1.0);
  const auto a = paillier::encrypt(pk, one, one, gen);
  const auto b = paillier::encrypt(other.public_key, one, one, gen);
  CHECK_THROWS_WITH_AS((void)(a + b),
                       "privet: rhs is a ciphertext under a different public key; allowed: "
                       "ciphertexts under the same key (the same n)",
                       privet::invalid_parameter);
  CHECK(rejected_parameter([&] { (void)(a - b); }) == "rhs");
  const std::vector<enc<Int>> mixed = {a, b};
  CHECK(rejected_parameter([&] { (void)paillier::sum(encs<Int>(mixed)); }) == "ciphertexts");
  CHECK(rejected_parameter([&] { (void)paillier::decrypt(other.private_key, a); }) == "ciphertext");
}
