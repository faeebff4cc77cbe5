// Unit tests of the branch-free word arithmetic (core/detail/ct_word.hpp)
// against plain comparisons: the single-word helpers over edge words and
// seeded random ones, and ct_keep_finite over every class of float and
// double (zeros, subnormals, normals, the largest finite, infinities, quiet
// and signalling NaNs), kept and masked, and ct_keep over the same.
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
