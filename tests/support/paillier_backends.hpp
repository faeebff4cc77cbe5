// tests/support/paillier_backends.hpp — the integer backends Paillier tests
// run over (cpp_int, a checked fixed-width 4096-bit cpp_int, and mpz_int
// under PRIVET_HAS_GMP) and small insecure keys for speed.
#pragma once

#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/crypto/paillier.hpp>

#include <boost/multiprecision/cpp_int.hpp>
#ifdef PRIVET_HAS_GMP
#include <boost/multiprecision/gmp.hpp>
#endif

#include <cstddef>
#include <cstdint>

namespace privet::test {

using fixed4096 = boost::multiprecision::number<boost::multiprecision::cpp_int_backend<
    4096, 4096, boost::multiprecision::signed_magnitude, boost::multiprecision::checked, void>>;

/// A key pair of `bits` bits (below the secure minimum: tests only), the
/// same for the same seed.
template <class Int>
paillier::keypair<Int> small_keys(std::size_t bits, std::uint64_t seed) {
  testing::seeded_release_generator gen(seed);
  return paillier::generate_keypair<Int>(paillier::insecure_key_size{bits}, gen);
}

/// x as an unbounded cpp_int (for arithmetic independent of the backend).
template <class Int>
boost::multiprecision::cpp_int to_cpp(const Int& x) {
  return boost::multiprecision::cpp_int(x.str());
}

}  // namespace privet::test

#ifdef PRIVET_HAS_GMP
#define PRIVET_PAILLIER_BACKENDS \
  boost::multiprecision::cpp_int, privet::test::fixed4096, boost::multiprecision::mpz_int
#else
#define PRIVET_PAILLIER_BACKENDS boost::multiprecision::cpp_int, privet::test::fixed4096
#endif
