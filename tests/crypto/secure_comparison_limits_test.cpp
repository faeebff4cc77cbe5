// Hostile input to the DGK key reader (privet/crypto/dgk.hpp) and the secure
// comparison's message reader (privet/crypto/secure_comparison.hpp), issue
// 32 items 4 and 5: a peer's key is measured (modulus and subgroup lengths)
// before n, g and h are read, weak moduli are refused naming the check, and a
// list of ciphertexts is refused on its width and count before any big
// integer is made. Timing and memory at full size: bench/secure_comparison_bench.cpp.
#include <privet/core/error.hpp>
#include <privet/core/testing.hpp>
#include <privet/crypto/detail/primes.hpp>
#include <privet/crypto/dgk.hpp>
#include <privet/crypto/secure_comparison.hpp>

#include <support/errors.hpp>

#include <doctest/doctest.h>
#include <boost/multiprecision/cpp_int.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace mp = boost::multiprecision;
namespace dgk = privet::dgk;
namespace cmp = privet::comparison;
using Int = mp::cpp_int;

namespace {

using privet::test::malformed;

// A DGK public key's encoding with the given header and n, g, h.
std::vector<std::uint8_t> dgk_key_bytes(std::uint32_t bits, std::uint32_t t, std::uint32_t u,
                                        const Int& n, const Int& g, const Int& h) {
  privet::detail::wire_writer w;
  w.u8(1);
  w.u8(1);
  w.u32(bits);
  w.u32(t);
  w.u32(u);
  const std::size_t width = (bits + 7) / 8;
  dgk::detail::write_fixed(w, n, width);
  dgk::detail::write_fixed(w, g, width);
  dgk::detail::write_fixed(w, h, width);
  return w.take();
}

}  // namespace

TEST_CASE("a peer's DGK key is measured before n, g and h are read") {
  const std::string pre = "privet: malformed DGK public key: ";
  // 16384 bits with t = 8173 (a key accepted before; its encryptions cost
  // about a second and 88 MB each): refused on the modulus length, and with
  // the limit raised, on t.
  const Int n16 = (Int(1) << 16383) + 1;
  const auto big = dgk_key_bytes(16384, 8173, 3, n16, Int(2), Int(3));
  CHECK(malformed([&] { (void)dgk::deserialize_public_key<Int>(big); }) ==
        pre +
            "modulus length 16384 bits; allowed from another party: at most 4096 "
            "(dgk::max_peer_key_bits = 4096; pass crypto::peer_key_limit{bits} for more)");
  CHECK(malformed([&] {
          (void)dgk::deserialize_public_key<Int>(big, privet::crypto::peer_key_limit{16384});
        }) == pre +
                  "subgroup length t = 8173 bits; allowed from another party: at most 512 "
                  "(dgk::max_peer_subgroup_bits)");
  // A 2048-bit key with t = 600: the subgroup cap alone.
  const Int n2 = (Int(1) << 2047) + 1;
  CHECK(malformed([&] {
          (void)dgk::deserialize_public_key<Int>(dgk_key_bytes(2048, 600, 3, n2, 2, 3));
        }) == pre +
                  "subgroup length t = 600 bits; allowed from another party: at most 512 "
                  "(dgk::max_peer_subgroup_bits)");
}

TEST_CASE("weak DGK moduli are refused, naming the check") {
  privet::testing::seeded_release_generator gen(3210);
  const Int p = privet::detail::random_prime<Int>(128, gen);
  const Int q = privet::detail::random_prime<Int>(128, gen);
  const std::string pre = "privet: malformed DGK public key: ";
  CHECK(malformed([&] {
          (void)dgk::deserialize_public_key<Int>(dgk_key_bytes(256, 40, 5, Int(p * p), 2, 3),
                                                 dgk::allow_insecure);
        }) == pre +
                  "n is a perfect power (n = a^2); allowed: n = p q, a product of two "
                  "distinct primes");
  const Int r = privet::detail::random_prime<Int>(126, gen);
  const Int three_m = 3 * p * r;
  const auto bits = static_cast<std::uint32_t>(privet::detail::bits_of(three_m));
  CHECK(malformed([&] {
          (void)dgk::deserialize_public_key<Int>(dgk_key_bytes(bits, 40, 5, three_m, 2, 5),
                                                 dgk::allow_insecure);
        }) == pre +
                  "n has the prime factor 3 (trial division by the primes below 32768); "
                  "allowed: n = p q, a product of two large primes");
  (void)q;
  // The constructor refuses the same, as invalid_parameter.
  try {
    (void)dgk::public_key<Int>(Int(p * p), 2, 3, 5, 40, dgk::allow_insecure);
    CHECK(false);
  } catch (const privet::invalid_parameter& e) {
    CHECK(std::string(e.what()) ==
          "privet: n is a perfect power (n = a^2); allowed: n = p q, a product of two distinct "
          "primes");
  }
}

TEST_CASE("a list of ciphertexts is refused on its width and count before it is built") {
  // 1-byte elements: refused before a single Int is made (10 MB of them made
  // 482 MB of integers before).
  privet::detail::wire_writer w;
  w.u8(1);
  w.u8(2);
  w.u64(7);
  w.u32(1);
  w.u32(1000);
  auto b = w.take();
  b.resize(b.size() + 1000, 7);
  CHECK(malformed([&] { (void)cmp::deserialize<cmp::encrypted_bits<Int>>(b); }) ==
        "privet: malformed encrypted bits: element width 1 below the 16 bytes of the smallest "
        "DGK modulus");
  // A count beyond any comparison's l + 1.
  privet::detail::wire_writer w2;
  w2.u8(1);
  w2.u8(3);
  w2.u64(7);
  w2.u32(16);
  w2.u32(70000);
  auto b2 = w2.take();
  b2.resize(b2.size() + 70000 * 16 + 1, 0);
  CHECK(malformed([&] { (void)cmp::deserialize<cmp::blinded_tests<Int>>(b2); }) ==
        "privet: malformed blinded tests: a count of 70000 elements exceeds the 65520 of any "
        "comparison (l + 1 < u <= 65521)");
  // Under a key, the width must be the key's before any element is read.
  privet::testing::seeded_release_generator gen(3211);
  const auto keys =
      dgk::generate_keypair<Int>(dgk::key_parameters{256, 40, 11}, dgk::allow_insecure, gen);
  cmp::encrypted_bits<Int> m;
  m.session = 7;
  m.width = 33;
  m.bits = {Int(1), Int(2)};
  const auto wide = cmp::serialize(m);
  CHECK(
      malformed([&] { (void)cmp::deserialize<cmp::encrypted_bits<Int>>(wide, keys.public_key); }) ==
      "privet: malformed encrypted bits: element width 33 bytes, not the 32 of the DGK "
      "modulus");
  m.width = 32;
  CHECK(cmp::deserialize<cmp::encrypted_bits<Int>>(cmp::serialize(m), keys.public_key) == m);
  // The writer refuses what the reader would.
  m.width = 8;
  CHECK(malformed([&] { (void)cmp::serialize(m); }) ==
        "privet: cannot encode a encrypted bits message: width 8 below the 16 bytes of the "
        "smallest DGK modulus");
}
