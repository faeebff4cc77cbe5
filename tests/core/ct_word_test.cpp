// Unit tests of the branch-free word arithmetic (core/detail/ct_word.hpp)
// against plain comparisons: the single-word helpers over edge words and
// seeded random ones, the bit width and the int128-to-double rounding
// against the standard library and the runtime's conversion, and ct_keep_finite over every class of
// float and double (zeros, subnormals, normals, the largest finite, infinities, quiet and
// signalling NaNs), kept and masked, and ct_keep over the same.
#include <privet/core/detail/ct_word.hpp>
#include <privet/core/seeded_generator.hpp>

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace {

template <class Real>
std::vector<Real> float_classes() {
  using lim = std::numeric_limits<Real>;
  return {
      Real(0),          -Real(0),         lim::denorm_min(),   -lim::denorm_min(), lim::min(),
      Real(1),          Real(-2.5),       lim::max(),          lim::lowest(),      lim::infinity(),
      -lim::infinity(), lim::quiet_NaN(), lim::signaling_NaN()};
}

}  // namespace

TEST_CASE("ct_lt, ct_is_zero, ct_mask, ct_select and ct_min agree with plain arithmetic") {
  namespace d = privet::detail;
  std::vector<std::uint64_t> words = {0,
                                      1,
                                      2,
                                      0x7fffffffffffffffULL,
                                      0x8000000000000000ULL,
                                      0xfffffffffffffffeULL,
                                      0xffffffffffffffffULL};
  privet::seeded_generator gen(7);
  for (int i = 0; i < 24; ++i) words.push_back(gen());
  for (std::uint64_t a : words) {
    CHECK(d::ct_is_zero(a) == (a == 0 ? 1u : 0u));
    CHECK(d::ct_mask(a & 1) == ((a & 1) != 0 ? ~std::uint64_t{0} : 0));
    for (std::uint64_t b : words) {
      CHECK(d::ct_lt(a, b) == (a < b ? 1u : 0u));
      CHECK(d::ct_select(d::ct_mask(1), a, b) == a);
      CHECK(d::ct_select(d::ct_mask(0), a, b) == b);
      CHECK(d::ct_min(a, b) == std::min(a, b));
    }
  }
}

TEST_CASE_TEMPLATE(
    "ct_keep_finite keeps a finite value and zeroes the rest; ct_keep keeps any value", Real, float,
    double, long double) {
  for (const Real v : float_classes<Real>()) {
    const Real kept = privet::detail::ct_keep_finite(v, 1);
    const Real dropped = privet::detail::ct_keep_finite(v, 0);
    if (std::isfinite(v)) {
      CHECK(std::signbit(kept) == std::signbit(v));
      CHECK((kept == v));
    } else {
      CHECK((kept == Real(0)));
      CHECK_FALSE(std::signbit(kept));
    }
    CHECK((dropped == Real(0)));
    CHECK_FALSE(std::signbit(dropped));
    // ct_keep: every value, NaNs and infinities included, kept bit for bit.
    const Real plain = privet::detail::ct_keep(v, 1);
    if (std::isnan(v)) {
      CHECK(std::isnan(plain));
    } else {
      CHECK((plain == v));
      CHECK(std::signbit(plain) == std::signbit(v));
    }
    CHECK((privet::detail::ct_keep(v, 0) == Real(0)));
    CHECK_FALSE(std::signbit(privet::detail::ct_keep(v, 0)));
  }
}

TEST_CASE(
    "ct_bit_width and ct_round_to_double agree with std::bit_width and the runtime's conversion") {
  namespace d = privet::detail;
  using privet::detail::int128;
  using privet::detail::uint128;
  privet::seeded_generator gen(11);
  for (unsigned b = 0; b < 64; ++b) {
    const std::uint64_t p = std::uint64_t{1} << b;
    for (std::uint64_t x : {p, p - 1, p + 1, b == 0 ? p : p | (gen() >> (64 - b))}) {
      CHECK(d::ct_bit_width(x) == std::bit_width(x));
    }
  }
  CHECK(d::ct_bit_width(0) == 0);
  CHECK(d::ct_bit_width(~std::uint64_t{0}) == 64);
  // Every magnitude up to 2^127, with the patterns rounding cares about:
  // exact doubles, halfway cases between two doubles (ties to even, both
  // parities), one above and below them, and random low bits (the sticky
  // bit far below the 53rd), each with both signs. The runtime's int128
  // conversion (libgcc's __floattidf) rounds correctly: the reference.
  std::vector<int128> values = {0,
                                1,
                                -1,
                                2,
                                3,
                                (int128{1} << 53) + 1,
                                (int128{1} << 63) - 1,
                                int128{1} << 63,
                                (int128{1} << 64) - 1,
                                (int128{1} << 126) - 1,
                                static_cast<int128>((uint128{1} << 127) - 1)};
  for (unsigned e = 54; e < 127; ++e) {
    const uint128 base = uint128{1} << e;
    const uint128 ulp = uint128{1} << (e - 52);  // one unit of a double at [2^e, 2^(e+1))
    for (uint128 m : {uint128{0}, ulp, 2 * ulp, 3 * ulp}) {
      const uint128 tie = base + m + ulp / 2;
      for (uint128 v : {base + m, tie, tie - 1, tie + 1}) values.push_back(static_cast<int128>(v));
    }
    const uint128 random = (static_cast<uint128>(gen()) << 64 | gen()) & ((base << 1) - 1);
    values.push_back(static_cast<int128>(random | base));
  }
  for (int i = 0; i < 2000; ++i) {
    const unsigned bits = 1 + static_cast<unsigned>(gen() % 126);
    const uint128 v = (static_cast<uint128>(gen()) << 64 | gen()) >> (128 - bits);
    values.push_back(static_cast<int128>(v));
  }
  for (const int128 v : values) {
    for (const int128 t : {v, -v}) {
      const double want = static_cast<double>(t);
      const double got = d::ct_round_to_double(t);
      INFO("t = " << want << " (high word " << static_cast<std::int64_t>(t >> 64) << ")");
      CHECK(std::bit_cast<std::uint64_t>(got) == std::bit_cast<std::uint64_t>(want));
    }
  }
}
