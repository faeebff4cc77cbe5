// privet/crypto/key_size.hpp — the key sizes every factoring-based scheme in
// privet accepts (Paillier, DGK), their security levels, and the one opt-in
// tag for keys below them. One place, so that the schemes a protocol combines
// cannot disagree about what "secure" means.
#pragma once

#include <cstddef>

namespace privet::crypto {

/// Bits of the modulus for new keys unless the caller says otherwise.
inline constexpr std::size_t default_key_bits = 3072;
/// Smallest modulus accepted without `allow_insecure` (NIST SP 800-57 part 1
/// rev. 5: a 2048-bit factoring modulus gives 112-bit security).
inline constexpr std::size_t min_key_bits = 2048;
/// Largest modulus accepted.
inline constexpr std::size_t max_key_bits = 16384;
/// Smallest modulus accepted even with `allow_insecure` (primes of 64 bits).
inline constexpr std::size_t min_insecure_key_bits = 128;
/// Largest modulus a reader accepts from another party by default: a
/// Paillier or DGK public key read from bytes or JSON. A peer's key sets
/// what every encryption under it costs its users (a 16384-bit key costs
/// about 500 times a 2048-bit one), so a party pays for larger keys only when
/// it asks, with `peer_key_limit`. Private keys, read by their owner, are
/// accepted up to max_key_bits.
inline constexpr std::size_t max_peer_key_bits = 4096;

/// The largest modulus (bits) a reader is to accept from another party, in
/// [min_insecure_key_bits, max_key_bits]: `peer_key_limit{8192}` accepts
/// keys of up to 8192 bits. Readers check it before any arithmetic on the
/// key.
struct peer_key_limit {
  /// The limit in bits of the modulus; max_peer_key_bits unless raised.
  std::size_t bits = max_peer_key_bits;
};

/// The security level (bits) of a factoring modulus of `modulus_bits` bits,
/// NIST SP 800-57 part 1 rev. 5, table 2: 112 from 2048 bits, 128 from 3072,
/// 192 from 7680, 256 from 15360; 80 below 2048 (insecure keys).
constexpr std::size_t security_bits(std::size_t modulus_bits) noexcept {
  if (modulus_bits >= 15360) return 256;
  if (modulus_bits >= 7680) return 192;
  if (modulus_bits >= 3072) return 128;
  if (modulus_bits >= 2048) return 112;
  return 80;
}

/// Tag accepting keys below the secure sizes: tests, and reproducing the
/// papers' small-key timings. Such keys are breakable.
struct allow_insecure_t {
  explicit allow_insecure_t() = default;
};
/// The value of allow_insecure_t to pass where a key below min_key_bits is
/// meant.
inline constexpr allow_insecure_t allow_insecure{};

}  // namespace privet::crypto
