// Tests of the fixed-base table behind DJN encryption
// (crypto/detail/fixed_base.hpp): powers against Boost's generic powm on
// unbounded cpp_int for many modulus sizes and exponent lengths (every
// window width the chooser picks), the ends of the exponent range, the
// window chooser's bounds, and the rejection of exponents beyond the table.
#include <privet/core/error.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform.hpp>
#include <privet/crypto/detail/fixed_base.hpp>

#include <doctest/doctest.h>
#include <boost/multiprecision/cpp_int.hpp>
#include <support/errors.hpp>
#ifdef PRIVET_HAS_GMP
#include <boost/multiprecision/gmp.hpp>
#endif

#include <cstddef>
#include <set>
#include <type_traits>
#include <vector>

namespace mp = boost::multiprecision;
using mp::cpp_int;
using privet::detail::fixed_base_pow;

using fixed4096 =
    mp::number<mp::cpp_int_backend<4096, 4096, mp::signed_magnitude, mp::checked, void>>;

#ifdef PRIVET_HAS_GMP
#define PRIVET_FIXED_BASE_TYPES cpp_int, fixed4096, mp::mpz_int
#else
#define PRIVET_FIXED_BASE_TYPES cpp_int, fixed4096
#endif

namespace {

using privet::test::rejected_parameter;

template <class Int>
cpp_int to_cpp(const Int& x) {
  return cpp_int(x.str());
}

template <class Int>
Int random_odd_modulus(privet::testing::seeded_release_generator& gen, std::size_t bits) {
  Int m = privet::random_bits<Int>(gen, bits);
  mp::bit_set(m, static_cast<unsigned>(bits - 1));
  mp::bit_set(m, 0);
  return m;
}

}  // namespace

TEST_CASE_TEMPLATE("fixed-base powers equal Boost's powm", Int, PRIVET_FIXED_BASE_TYPES) {
  privet::testing::seeded_release_generator gen(61);
  std::set<unsigned> widths;
  for (std::size_t bits : {3u, 64u, 65u, 200u, 1024u, 4000u}) {
    for (std::size_t exp_bits : {1u, 5u, 6u, 7u, 64u, 100u, 160u, 224u}) {
      CAPTURE(bits);
      CAPTURE(exp_bits);
      const Int m = random_odd_modulus<Int>(gen, bits);
      // Bases below and above the modulus (the table reduces them).
      const Int base = privet::random_bits<Int>(gen, bits + 3);
      const fixed_base_pow<Int> table(m, base, exp_bits);
      CHECK(table.exponent_bits() == exp_bits);
      widths.insert(table.window_bits());
      std::vector<Int> exponents = {Int(0), Int(1), Int((Int(1) << exp_bits) - 1)};
      for (int i = 0; i < 4; ++i) exponents.push_back(privet::random_bits<Int>(gen, exp_bits));
      for (const Int& e : exponents) {
        CAPTURE(e.str());
        CHECK(to_cpp(table.pow(e)) == cpp_int(mp::powm(to_cpp(base), to_cpp(e), to_cpp(m))));
      }
    }
  }
  CHECK(widths.size() >= 3);  // several window widths exercised
}

TEST_CASE_TEMPLATE("fixed-base tables reject exponents beyond their length", Int,
                   PRIVET_FIXED_BASE_TYPES) {
  privet::testing::seeded_release_generator gen(62);
  const Int m = random_odd_modulus<Int>(gen, 512);
  const fixed_base_pow<Int> table(m, Int(7), 100);
  CHECK_THROWS_WITH_AS((void)table.pow(Int(Int(1) << 100)),
                       "privet: exponent is negative or longer than its 100-bit public bound; "
                       "allowed: [0, 2^100)",
                       privet::invalid_parameter);
  CHECK(rejected_parameter([&] { (void)table.pow(Int(-1)); }) == "exponent");
  CHECK(rejected_parameter([&] { fixed_base_pow<Int> t(m, Int(7), 0); }) == "exp_bits");
  CHECK(rejected_parameter([&] { fixed_base_pow<Int> t(Int(m + 1), Int(7), 8); }) == "modulus");
  // The full messages (docs/error_audit.md); the GMP table checks its
  // modulus and base itself, the others through the Montgomery context.
  CHECK_THROWS_WITH_AS(
      (void)table.pow(Int(-1)),
      "privet: exponent is negative or longer than its 100-bit public bound; allowed: [0, 2^100)",
      privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(fixed_base_pow<Int>(m, Int(7), 0),
                       "privet: exp_bits = 0 is invalid; allowed: >= 1", privet::invalid_parameter);
  constexpr bool gmp = !std::is_same_v<Int, cpp_int> && !std::is_same_v<Int, fixed4096>;
  const char* const even = gmp ? "privet: modulus is even or below 3; allowed: an odd modulus > 1"
                               : "privet: modulus is even or zero; allowed: an odd modulus "
                                 "(Montgomery reduction needs gcd(m, 2) = 1)";
  CHECK_THROWS_WITH_AS(fixed_base_pow<Int>(Int(m + 1), Int(7), 8), even, privet::invalid_parameter);
  const char* const negative =
      gmp ? "privet: base is negative; allowed: an integer >= 0"
          : "privet: a negative integer was passed to modular arithmetic; allowed: >= 0";
  CHECK_THROWS_WITH_AS(fixed_base_pow<Int>(m, Int(-7), 8), negative, privet::invalid_parameter);
}

TEST_CASE("the window width stays within its bounds and the table within its budget") {
  using privet::detail::fixed_base_window_bits;
  for (std::size_t limbs : {1u, 8u, 64u, 96u, 256u, 512u}) {
    for (std::size_t exp_bits : {1u, 8u, 160u, 224u, 256u, 512u, 4096u}) {
      CAPTURE(limbs);
      CAPTURE(exp_bits);
      const unsigned w = fixed_base_window_bits(exp_bits, limbs);
      CHECK(w >= 1);
      CHECK(w <= privet::detail::max_fixed_base_window);
      const std::size_t bytes = (exp_bits + w - 1) / w * (std::size_t{1} << w) * limbs * 8;
      CHECK((w == 1 || bytes <= privet::detail::max_fixed_base_table_bytes));
    }
  }
  // DJN's tables at 2048 and 3072 bits (moduli n^2 of 64 and 96 limbs).
  CHECK(fixed_base_window_bits(224, 64) == 5);
  CHECK(fixed_base_window_bits(256, 96) == 6);
}
