// Fixed-point encodings at their exact limits (privet/crypto/fixed_point.hpp):
// for a fixed-width integer type, the largest value of every operation
// (encode, from_integer, product, sum, upscale) fits and the next one throws
// overflow_error with its message, and an unchecked type never wraps; decode
// stops exactly where the double range does; and the largest real whose
// mantissa fits a Paillier key's signed plaintext range maps there and
// back, the next double is refused.
#include <privet/core/error.hpp>
#include <privet/crypto/fixed_point.hpp>

#include <doctest/doctest.h>
#include <boost/multiprecision/cpp_int.hpp>
#include <support/paillier_backends.hpp>

#include <cmath>
#include <limits>
#include <string>

namespace mp = boost::multiprecision;
namespace paillier = privet::paillier;

namespace {

// 1152 bits of magnitude, checked: results may take at most 1151 bits.
using narrow = mp::number<mp::cpp_int_backend<1152, 1152, mp::signed_magnitude, mp::checked, void>>;
// 1024 bits, unchecked: arithmetic beyond them would wrap silently.
using wrapping = mp::int1024_t;
static_assert(std::numeric_limits<narrow>::digits == 1152);
static_assert(std::numeric_limits<wrapping>::digits == 1024);

std::string too_wide(const std::string& what, int bits, int allowed) {
  return "privet: fixed-point " + what + " needs about " + std::to_string(bits) +
         " bits, more than the integer type holds; allowed: results of at most " +
         std::to_string(allowed) + " bits";
}

}  // namespace

TEST_CASE("encode and from_integer: the widest value that fits, and one more") {
  using fp = paillier::fixed_point<narrow, paillier::hex_scale<32>>;  // C = 2^128
  // The largest double below 2^1023 takes 1151 bits times C: it fits and
  // round-trips exactly; 2^1023 takes 1152 and is refused.
  const double top = std::nextafter(0x1p1023, 0.0);
  CHECK(fp::encode(top).decode() == top);
  CHECK(fp::encode(-top).decode() == -top);
  CHECK(fp::encode(top).mantissa() == (narrow((std::uint64_t{1} << 53) - 1) << (970 + 128)));
  CHECK_THROWS_WITH_AS((void)fp::encode(0x1p1023), too_wide("encode(x)", 1152, 1151).c_str(),
                       privet::overflow_error);
  CHECK_THROWS_WITH_AS((void)fp::encode(-0x1p1023), too_wide("encode(x)", 1152, 1151).c_str(),
                       privet::overflow_error);
  // from_integer counts C as 32 x 5 = 160 bits: k of 991 bits fits, 992 do not.
  const narrow k = (narrow(1) << 991) - 1;
  CHECK(fp::from_integer(k).mantissa() == k << 128);
  CHECK(fp::from_integer(narrow(-k)).mantissa() == narrow(-(k << 128)));
  CHECK_THROWS_WITH_AS((void)fp::from_integer(narrow(k + 1)),
                       too_wide("from_integer(k)", 1152, 1151).c_str(), privet::overflow_error);
}

TEST_CASE("products, sums and upscaling: the widest result that fits, and one more") {
  using fp = paillier::fixed_point<narrow, paillier::hex_scale<1>>;
  // Products: mantissas of 576 and 575 bits make 1151, which fits; 576 x 576 does not.
  const fp a = fp::from_mantissa(narrow(1) << 575);
  const fp b = fp::from_mantissa(narrow(1) << 574);
  CHECK((a * b).mantissa() == narrow(1) << 1149);
  CHECK_THROWS_WITH_AS((void)(a * a), too_wide("a * b", 1152, 1151).c_str(),
                       privet::overflow_error);

  // Sums in an unchecked 1024-bit type, whose arithmetic wraps silently:
  // two 1022-bit mantissas add up exactly (1023 bits at most); a 1023-bit
  // operand could take the sum to 1024 bits, one more than results may
  // have, and is refused; 2^1023 + 2^1023 would wrap to 0.
  using wp = paillier::fixed_point<wrapping, paillier::hex_scale<4>>;
  const wrapping m1022 = (wrapping(1) << 1022) - 1;
  const wp x = wp::from_mantissa(m1022);
  CHECK((x + x).mantissa() == 2 * m1022);
  CHECK((-x - x).mantissa() == -2 * m1022);
  const wp one = wp::from_mantissa(wrapping(1));
  const wp y = wp::from_mantissa(wrapping(1) << 1022);
  CHECK_THROWS_WITH_AS((void)(y + one), too_wide("a + b", 1024, 1023).c_str(),
                       privet::overflow_error);
  CHECK_THROWS_WITH_AS((void)(-y - one), too_wide("a - b", 1024, 1023).c_str(),
                       privet::overflow_error);
  const wp big = wp::from_mantissa(wrapping(1) << 1023);
  CHECK_THROWS_WITH_AS((void)(big + big), too_wide("a + b", 1025, 1023).c_str(),
                       privet::overflow_error);
  // Upscaling by 16 (5 bits): a 1018-bit mantissa fits, a 1019-bit one is refused.
  const wrapping m1018 = (wrapping(1) << 1018) - 1;
  CHECK(paillier::upscale<paillier::hex_scale<5>>(wp::from_mantissa(m1018)).mantissa() ==
        m1018 * 16);
  CHECK_THROWS_WITH_AS(
      (void)paillier::upscale<paillier::hex_scale<5>>(wp::from_mantissa(wrapping(1) << 1018)),
      too_wide("upscale(x)", 1024, 1023).c_str(), privet::overflow_error);
}

TEST_CASE("decode stops exactly at the double range") {
  using fp = paillier::fixed_point<mp::cpp_int, paillier::decimal_scale<0>>;  // C = 1
  // 2^1024 - 2^970 is the midpoint between DBL_MAX and 2^1024: one below it
  // rounds to DBL_MAX, the midpoint itself rounds (to even) to 2^1024.
  const mp::cpp_int limit = (mp::cpp_int(1) << 1024) - (mp::cpp_int(1) << 970);
  CHECK(fp::from_mantissa(mp::cpp_int(limit - 1)).decode() == std::numeric_limits<double>::max());
  CHECK(fp::from_mantissa(mp::cpp_int(1 - limit)).decode() == -std::numeric_limits<double>::max());
  const std::string message =
      "privet: a decoded fixed-point value (about 2^1023) exceeds the range of double; allowed: "
      "|value| < 2^1024";
  CHECK_THROWS_WITH_AS((void)fp::from_mantissa(limit).decode(), message.c_str(),
                       privet::overflow_error);
  CHECK_THROWS_WITH_AS((void)fp::from_mantissa(mp::cpp_int(-limit)).decode(), message.c_str(),
                       privet::overflow_error);
}

TEST_CASE_TEMPLATE("the largest real whose mantissa fits the plaintext range, and the next", Int,
                   PRIVET_PAILLIER_BACKENDS) {
  using fp = paillier::fixed_point<Int, paillier::hex_scale<4>>;
  const auto keys = privet::test::small_keys<Int>(128, 91);
  const auto& pk = keys.public_key;
  const Int half = pk.max_signed();
  // The double nearest (n-1)/2 / C, stepped down if it rounds above.
  double x = fp::from_mantissa(half).decode();
  if (fp::encode(x).mantissa() > half) x = std::nextafter(x, 0.0);
  const double next = std::nextafter(x, 1e300);
  REQUIRE(fp::encode(x).mantissa() <= half);
  REQUIRE(fp::encode(next).mantissa() > half);
  for (const double v : {x, -x}) {
    const Int m = paillier::to_plaintext(pk, fp::encode(v));
    CHECK(paillier::from_plaintext<paillier::hex_scale<4>>(pk, m).decode() == v);
  }
  const std::string message =
      "privet: fixed-point mantissa is outside the signed plaintext range; allowed: "
      "[-(n-1)/2, (n-1)/2] with n the 128-bit modulus (the value times its scale 16^4)";
  CHECK_THROWS_WITH_AS((void)paillier::to_plaintext(pk, fp::encode(next)), message.c_str(),
                       privet::overflow_error);
  CHECK_THROWS_WITH_AS((void)paillier::to_plaintext(pk, fp::encode(-next)), message.c_str(),
                       privet::overflow_error);
}
