// Encrypted fixed-point numbers at the limit of the plaintext range
// (privet/crypto/encrypted_number.hpp), in real values rather than
// mantissas: the largest double whose mantissa fits (n-1)/2 encrypts with
// itself as bound and decrypts to itself, its negation too; the next double
// is refused as a bound with the message; sums reach the limit exactly and
// one unit more is refused before any ciphertext is touched.
#include <privet/core/error.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/crypto/encrypted_number.hpp>

#include <doctest/doctest.h>
#include <support/paillier_backends.hpp>

#include <cmath>
#include <string>

namespace paillier = privet::paillier;

TEST_CASE_TEMPLATE("the largest real that fits encrypts and decrypts; the next is refused", Int,
                   PRIVET_PAILLIER_BACKENDS) {
  using S = paillier::hex_scale<4>;
  using fp = paillier::fixed_point<Int, S>;
  privet::testing::seeded_release_generator gen(92);
  const auto keys = privet::test::small_keys<Int>(128, 92);
  const auto& pk = keys.public_key;
  const auto& sk = keys.private_key;
  const Int half = pk.max_signed();
  // The double nearest (n-1)/2 / C, stepped down if it rounds above.
  double x = fp::from_mantissa(half).decode();
  if (fp::encode(x).mantissa() > half) x = std::nextafter(x, 0.0);
  const double next = std::nextafter(x, 1e300);
  const fp top = fp::encode(x);
  REQUIRE(top.mantissa() <= half);
  REQUIRE(fp::encode(next).mantissa() > half);

  const auto e = paillier::encrypt(pk, top, top, gen);
  CHECK(paillier::decrypt(sk, e).decode() == x);
  CHECK(paillier::decrypt(sk, -e).decode() == -x);
  const auto f = paillier::encrypt(pk, fp::encode(-x), top, gen);
  CHECK(paillier::decrypt(sk, f).decode() == -x);
  const fp over = fp::encode(next);
  CHECK_THROWS_WITH_AS((void)paillier::encrypt(pk, top, over, gen),
                       ("privet: bound = " + over.mantissa().str() + " exceeds (n-1)/2 = " +
                        half.str() + " for the 128-bit modulus n; allowed: [0, (n-1)/2]")
                           .c_str(),
                       privet::overflow_error);

  // A sum reaching (n-1)/2 exactly: x's mantissa plus the rest.
  const fp rest = fp::from_mantissa(Int(half - top.mantissa()));
  const auto r = paillier::encrypt(pk, rest, rest, gen);
  const auto sum = e + r;
  CHECK(sum.bound_mantissa() == half);
  CHECK(paillier::decrypt(sk, sum).mantissa() == half);
  const fp unit = fp::from_mantissa(Int(1));
  const auto u = paillier::encrypt(pk, unit, unit, gen);
  CHECK_THROWS_WITH_AS((void)(sum + u),
                       ("privet: addition could overflow the plaintext range: the bound " +
                        half.str() + " + 1 of its result exceeds (n-1)/2 = " + half.str() +
                        " for the 128-bit modulus n; allowed: results bounded by (n-1)/2")
                           .c_str(),
                       privet::overflow_error);
  CHECK_THROWS_AS((void)(sum + unit), privet::overflow_error);
}
