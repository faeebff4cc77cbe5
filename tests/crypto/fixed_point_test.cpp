// Tests of the fixed-point encoding (privet/crypto/fixed_point.hpp) over every
// Paillier backend: encode rounds C x to the nearest integer (ties to even),
// up or down, checked exactly against rational arithmetic; decode is the
// double nearest to mantissa / C; the stated round-trip error; mantissas
// equal to python-paillier's for the same exponent; exact products of the
// product scale (a type), upscaling, the map to plaintexts (negatives as
// n - |x|) with its exact boundary, and every rejection.
#include <privet/core/error.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform.hpp>
#include <privet/crypto/fixed_point.hpp>

#include <doctest/doctest.h>
#include <boost/multiprecision/cpp_int.hpp>
#include <support/errors.hpp>
#include <support/paillier_backends.hpp>

#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <vector>

namespace mp = boost::multiprecision;
namespace paillier = privet::paillier;
using mp::cpp_int;
using mp::cpp_rational;
using privet::test::to_cpp;

namespace {

// A double as an exact rational: frac 2^exp with frac's 53 bits as an integer.
cpp_rational exact(double d) {
  if (d == 0) return cpp_rational(0);
  int e = 0;
  const double f = std::frexp(d, &e);
  const auto m = static_cast<std::int64_t>(std::ldexp(f, 53));
  e -= 53;
  cpp_rational r(m);
  if (e >= 0) {
    r *= cpp_rational(cpp_int(1) << e);
  } else {
    r /= cpp_rational(cpp_int(1) << -e);
  }
  return r;
}

cpp_rational abs_r(const cpp_rational& x) {
  return x < 0 ? cpp_rational(-x) : x;
}

template <class Int, class S>
cpp_rational value_of(const paillier::fixed_point<Int, S>& x) {
  return cpp_rational(to_cpp(x.mantissa())) / cpp_rational(to_cpp(x.scale()));
}

// A random double spread over many magnitudes and both signs.
double random_double(privet::testing::seeded_release_generator& gen) {
  const double u = privet::uniform_real(gen);
  const int e = static_cast<int>(privet::uniform_int<std::int64_t>(gen, -40, 60));
  const double sign = privet::random_bit(gen) ? 1.0 : -1.0;
  return sign * std::ldexp(0.5 + u / 2, e);
}

template <class Int, class S>
void check_encode_decode(double x) {
  using fp = paillier::fixed_point<Int, S>;
  CAPTURE(x);
  const cpp_rational cx = exact(x) * cpp_rational(to_cpp(fp::scale()));
  const fp nearest = fp::encode(x);
  const cpp_rational m(to_cpp(nearest.mantissa()));
  // Nearest: |C x - M| <= 1/2, and at exactly 1/2 the mantissa is even.
  const cpp_rational dist = abs_r(cpp_rational(cx - m));
  CHECK(dist <= cpp_rational(1, 2));
  if (dist == cpp_rational(1, 2)) CHECK(mp::bit_test(to_cpp(nearest.mantissa()), 0) == false);
  // Up and down: the ceiling and the floor.
  const cpp_rational up(to_cpp(fp::encode(x, paillier::rounding::up).mantissa()));
  const cpp_rational down(to_cpp(fp::encode(x, paillier::rounding::down).mantissa()));
  CHECK(up >= cx);
  CHECK(up - 1 < cx);
  CHECK(down <= cx);
  CHECK(down + 1 > cx);
  // Decode: the nearest double to M / C (no neighbour is closer).
  const double y = nearest.decode();
  const cpp_rational target = value_of(nearest);
  const cpp_rational err = abs_r(cpp_rational(exact(y) - target));
  if (y != 0) {
    for (double neighbour : {std::nextafter(y, HUGE_VAL), std::nextafter(y, -HUGE_VAL)}) {
      if (std::isfinite(neighbour)) {
        CHECK(abs_r(cpp_rational(exact(neighbour) - target)) >= err);
      }
    }
  } else {
    CHECK(nearest.mantissa() == 0);
  }
  // The stated round trip: |decode(encode(x)) - x| <= 1/(2C) + ulp(y)/2,
  // ulp(y) the spacing of doubles in y's binade.
  const double ulp = y == 0 ? 0.0 : std::ldexp(1.0, std::ilogb(y) - 52);
  const cpp_rational allowed =
      cpp_rational(1, 2) / cpp_rational(to_cpp(fp::scale())) + exact(ulp) / 2;
  CHECK(abs_r(cpp_rational(exact(y) - exact(x))) <= allowed);
}

}  // namespace

TEST_CASE_TEMPLATE("encode rounds exactly and decode is the nearest double", Int,
                   PRIVET_PAILLIER_BACKENDS) {
  privet::testing::seeded_release_generator gen(71);
  const std::vector<double> edges = {0.0,   1.0,    -1.0, 0.5,   -0.5,   0.1,     -0.1,
                                     1e-30, -1e-30, 1e30, -1e30, 2.5e-5, 1.0 / 3, 123456.789};
  for (double x : edges) {
    check_encode_decode<Int, paillier::hex_scale<8>>(x);
    check_encode_decode<Int, paillier::decimal_scale<6>>(x);
    check_encode_decode<Int, paillier::binary_scale<70>>(x);
    check_encode_decode<Int, paillier::decimal_scale<0>>(x);
  }
  for (int i = 0; i < 200; ++i) {
    const double x = random_double(gen);
    check_encode_decode<Int, paillier::hex_scale<8>>(x);
    check_encode_decode<Int, paillier::decimal_scale<9>>(x);
    check_encode_decode<Int, paillier::hex_scale<32>>(x);
  }
  // Extremes of the double range at a fine scale (no overflow in 4096 bits).
  check_encode_decode<Int, paillier::hex_scale<32>>(std::numeric_limits<double>::max());
  check_encode_decode<Int, paillier::hex_scale<32>>(-std::numeric_limits<double>::max());
  check_encode_decode<Int, paillier::hex_scale<32>>(std::numeric_limits<double>::denorm_min());
}

TEST_CASE_TEMPLATE("ties go to even, and the directed roundings", Int, PRIVET_PAILLIER_BACKENDS) {
  using unit = paillier::fixed_point<Int, paillier::decimal_scale<0>>;
  CHECK(unit::encode(2.5).mantissa() == 2);
  CHECK(unit::encode(3.5).mantissa() == 4);
  CHECK(unit::encode(-2.5).mantissa() == -2);
  CHECK(unit::encode(-3.5).mantissa() == -4);
  CHECK(unit::encode(0.5).mantissa() == 0);
  CHECK(unit::encode(2.1, paillier::rounding::up).mantissa() == 3);
  CHECK(unit::encode(2.1, paillier::rounding::down).mantissa() == 2);
  CHECK(unit::encode(-2.1, paillier::rounding::up).mantissa() == -2);
  CHECK(unit::encode(-2.1, paillier::rounding::down).mantissa() == -3);
  CHECK(unit::encode(1e-300, paillier::rounding::up).mantissa() == 1);
  CHECK(unit::encode(-1e-300, paillier::rounding::down).mantissa() == -1);
  CHECK(unit::encode(1e-300).mantissa() == 0);
  CHECK(unit::encode(3.0, paillier::rounding::up).mantissa() == 3);
  using cents = paillier::fixed_point<Int, paillier::decimal_scale<2>>;
  // 1.005 is 1.00499999999999989... as a double: 100 cents, as Python's
  // round(Fraction(1.005) * 100) gives.
  CHECK(cents::encode(1.005).mantissa() == 100);
  CHECK(cents::encode(-1.005).mantissa() == -100);
  CHECK(cents::encode(1.0).decode() == 1.0);
}

TEST_CASE_TEMPLATE("mantissas equal python-paillier's for the same exponent", Int,
                   PRIVET_PAILLIER_BACKENDS) {
  // python-paillier (phe/encoding.py, EncodedNumber.encode): int_rep =
  // round(Fraction(x) * 16^-exponent), with exponent floor((frexp(x)[1] - 53)
  // / 4) by default. Expected values computed with Python 3's fractions from
  // that formula: 0.1 -> exponent -14, 7205759403792794; -1.5 -> exponent
  // -13, -6755399441055744; 0.1 at max_exponent -8 -> 429496730.
  CHECK(paillier::fixed_point<Int, paillier::hex_scale<14>>::encode(0.1).mantissa() ==
        Int(7205759403792794));
  CHECK(paillier::fixed_point<Int, paillier::hex_scale<13>>::encode(-1.5).mantissa() ==
        Int(-6755399441055744));
  CHECK(paillier::fixed_point<Int, paillier::hex_scale<8>>::encode(0.1).mantissa() ==
        Int(429496730));
  CHECK(paillier::fixed_point<Int, paillier::hex_scale<32>>::encode(0.5).mantissa() ==
        (Int(1) << 127));
}

TEST_CASE_TEMPLATE("products have the product scale; upscale and integers are exact", Int,
                   PRIVET_PAILLIER_BACKENDS) {
  using S = paillier::decimal_scale<3>;
  using fp = paillier::fixed_point<Int, S>;
  static_assert(std::same_as<paillier::product_scale_t<S, S>, paillier::decimal_scale<6>>);
  static_assert(
      std::same_as<paillier::product_scale_t<paillier::hex_scale<2>, paillier::hex_scale<5>>,
                   paillier::hex_scale<7>>);
  const fp a = fp::encode(1.25);
  const fp b = fp::encode(-0.004);
  const auto p = a * b;
  static_assert(
      std::same_as<decltype(p), const paillier::fixed_point<Int, paillier::decimal_scale<6>>>);
  CHECK(p.mantissa() == Int(-5000));  // 1250 * -4 at 10^6
  CHECK(p.decode() == -0.005);
  CHECK((a + a).mantissa() == 2500);
  CHECK((a - b).mantissa() == 1254);
  CHECK((-a).mantissa() == -1250);
  CHECK(b.abs().mantissa() == 4);
  CHECK(a > b);
  CHECK(a == fp::from_mantissa(Int(1250)));
  const auto up = paillier::upscale<paillier::decimal_scale<6>>(a);
  CHECK(up.mantissa() == 1250000);
  CHECK((up + p).decode() == 1.245);
  CHECK(fp::from_integer(-7).mantissa() == -7000);
  CHECK(fp::from_integer(Int(12)).decode() == 12.0);
  CHECK(fp::scale() == 1000);
  CHECK(paillier::fixed_point<Int, paillier::hex_scale<3>>::scale() == 4096);
  CHECK(fp().mantissa() == 0);
}

TEST_CASE_TEMPLATE("plaintexts: negatives as n - |x|, exactly up to (n-1)/2", Int,
                   PRIVET_PAILLIER_BACKENDS) {
  using fp = paillier::fixed_point<Int, paillier::hex_scale<4>>;
  const auto keys = privet::test::small_keys<Int>(256, 71);
  const auto& pk = keys.public_key;
  const Int half = pk.max_signed();
  CHECK(paillier::to_plaintext(pk, fp::from_mantissa(Int(5))) == 5);
  CHECK(paillier::to_plaintext(pk, fp::from_mantissa(Int(-5))) == pk.n() - 5);
  CHECK(paillier::to_plaintext(pk, fp::from_mantissa(half)) == half);
  CHECK(paillier::to_plaintext(pk, fp::from_mantissa(Int(-half))) == half + 1);
  const std::string message =
      "privet: fixed-point mantissa is outside the signed plaintext range; allowed: "
      "[-(n-1)/2, (n-1)/2] with n the 256-bit modulus (the value times its scale 16^4)";
  CHECK_THROWS_WITH_AS((void)paillier::to_plaintext(pk, fp::from_mantissa(Int(half + 1))),
                       message.c_str(), privet::overflow_error);
  CHECK_THROWS_AS((void)paillier::to_plaintext(pk, fp::from_mantissa(Int(-half - 1))),
                  privet::overflow_error);
  for (const Int& m : {Int(0), Int(1), half, Int(half + 1), Int(pk.n() - 1)}) {
    const auto x = paillier::from_plaintext<paillier::hex_scale<4>>(pk, m);
    CHECK(paillier::to_plaintext(pk, x) == m);
  }
  CHECK(paillier::from_plaintext<paillier::hex_scale<4>>(pk, Int(pk.n() - 1)).mantissa() == -1);
  CHECK(privet::test::rejected_parameter(
            [&] { (void)paillier::from_plaintext<paillier::hex_scale<4>>(pk, pk.n()); }) == "m");
}

TEST_CASE_TEMPLATE("encode rejects NaN and infinities", Int, PRIVET_PAILLIER_BACKENDS) {
  using fp = paillier::fixed_point<Int, paillier::hex_scale<4>>;
  CHECK_THROWS_WITH_AS((void)fp::encode(std::numeric_limits<double>::quiet_NaN()),
                       "privet: x = nan is invalid; allowed: a finite number",
                       privet::invalid_parameter);
  CHECK(privet::test::rejected_parameter(
            [] { (void)fp::encode(std::numeric_limits<double>::infinity()); }) == "x");
  CHECK(privet::test::rejected_parameter(
            [] { (void)fp::encode(-std::numeric_limits<double>::infinity()); }) == "x");
}

TEST_CASE("a fixed-width integer too narrow for a value throws overflow_error") {
  using narrow =
      mp::number<mp::cpp_int_backend<1152, 1152, mp::signed_magnitude, mp::checked, void>>;
  using fp = paillier::fixed_point<narrow, paillier::hex_scale<32>>;
  CHECK(fp::encode(1e300).decode() == 1e300);
  // DBL_MAX = (2^53 - 1) 2^971 times C = 2^128: 53 + 128 + 971 bits.
  CHECK_THROWS_WITH_AS((void)fp::encode(std::numeric_limits<double>::max()),
                       "privet: fixed-point encode(x) needs about 1152 bits, more than the "
                       "integer type holds; allowed: results of at most 1151 bits",
                       privet::overflow_error);
  // 1e150 C is about 2^626.3, a 627-bit mantissa: the product needs 1254.
  const fp big = fp::encode(1e150);
  CHECK_THROWS_WITH_AS((void)(big * big),
                       "privet: fixed-point a * b needs about 1254 bits, more than the integer "
                       "type holds; allowed: results of at most 1151 bits",
                       privet::overflow_error);
  // 2^1100 C: 1101 bits plus the 160 the scale 16^32 is counted as (32 x 5).
  CHECK_THROWS_WITH_AS((void)fp::from_integer(narrow(1) << 1100),
                       "privet: fixed-point from_integer(k) needs about 1261 bits, more than the "
                       "integer type holds; allowed: results of at most 1151 bits",
                       privet::overflow_error);
  // Decoding beyond the double range throws rather than returning infinity.
  using wide = paillier::fixed_point<cpp_int, paillier::decimal_scale<0>>;
  CHECK_THROWS_WITH_AS((void)wide::from_mantissa(cpp_int(1) << 1100).decode(),
                       "privet: a decoded fixed-point value (about 2^1100) exceeds the range of "
                       "double; allowed: |value| < 2^1024",
                       privet::overflow_error);
  CHECK(wide::from_mantissa((cpp_int(1) << 1023)).decode() == std::ldexp(1.0, 1023));
}
