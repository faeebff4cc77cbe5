// privet/crypto/detail/secagg_keys.hpp — the key agreement, key derivation,
// authenticated encryption and commitment of secure aggregation, on
// libsodium:
// - KA: X25519 (crypto_scalarmult). The raw Diffie-Hellman value is never
//   used as a key: BLAKE2b-256 hashes it with a purpose label, the session
//   and both public keys (lower client id first), as crypto_kx does, so the
//   channel key and the mask seed of a pair are independent and bound to
//   the session and the pair.
// - AE: XChaCha20-Poly1305 (crypto_aead_xchacha20poly1305_ietf) with a
//   random 192-bit nonce; the session, sender and recipient are associated
//   data, which binds a ciphertext to its pair and direction as the paper's
//   u || v inside the plaintext does.
// - Commitment to a self-mask seed: BLAKE2b-256 of a label, the session, the
//   owner and the seed (hiding for a uniform 256-bit seed, binding by
//   collision resistance).
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/sodium.hpp>
#include <privet/core/uniform.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace privet::detail {

using secagg_key = std::array<std::uint8_t, 32>;

inline constexpr std::size_t secagg_share_plain_bytes = 80;  // two 5-element shares
inline constexpr std::size_t secagg_ciphertext_bytes =
    crypto_aead_xchacha20poly1305_ietf_NPUBBYTES + secagg_share_plain_bytes +
    crypto_aead_xchacha20poly1305_ietf_ABYTES;
using secagg_ciphertext = std::array<std::uint8_t, secagg_ciphertext_bytes>;
using secagg_plaintext = std::array<std::uint8_t, secagg_share_plain_bytes>;

inline void secagg_put_u32(std::uint8_t* p, std::uint32_t v) noexcept {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
inline void secagg_put_u64(std::uint8_t* p, std::uint64_t v) noexcept {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

template <random_bit_source G>
void secagg_random(G& gen, std::span<std::uint8_t> out) {
  PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
  random_bytes(gen, std::as_writable_bytes(out));
}

// An X25519 key pair whose secret key is 32 bytes from `gen`.
template <random_bit_source G>
void secagg_keypair(G& gen, secagg_key& secret, secagg_key& pub) {
  PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
  secagg_random(gen, secret);
  crypto_scalarmult_base(pub.data(), secret.data());
}

// The public key of an X25519 secret key.
inline secagg_key secagg_public_of(const secagg_key& secret) {
  secagg_key pub{};
  crypto_scalarmult_base(pub.data(), secret.data());
  return pub;
}

// BLAKE2b-256(label || session || DH(secret, peer) || pk_low || pk_high):
// false when `peer` is a low-order point (the shared value would be 0).
inline bool secagg_agree(secagg_key& out, std::string_view label, std::uint64_t session,
                         const secagg_key& secret, const secagg_key& peer, const secagg_key& pk_low,
                         const secagg_key& pk_high) {
  std::array<std::uint8_t, crypto_scalarmult_BYTES> shared{};
  if (crypto_scalarmult(shared.data(), secret.data(), peer.data()) != 0) return false;
  std::array<std::uint8_t, 8> s{};
  secagg_put_u64(s.data(), session);
  crypto_generichash_state st;
  crypto_generichash_init(&st, nullptr, 0, out.size());
  crypto_generichash_update(&st, reinterpret_cast<const unsigned char*>(label.data()),
                            label.size());
  crypto_generichash_update(&st, s.data(), s.size());
  crypto_generichash_update(&st, shared.data(), shared.size());
  crypto_generichash_update(&st, pk_low.data(), pk_low.size());
  crypto_generichash_update(&st, pk_high.data(), pk_high.size());
  crypto_generichash_final(&st, out.data(), out.size());
  sodium_memzero(shared.data(), shared.size());
  sodium_memzero(&st, sizeof st);
  return true;
}

inline constexpr std::string_view secagg_share_label = "privet.secagg.v1.share";
using secagg_share_header = std::array<std::uint8_t, secagg_share_label.size() + 16>;

inline secagg_share_header secagg_share_ad(std::uint64_t session, std::uint32_t sender,
                                           std::uint32_t recipient) {
  secagg_share_header ad{};
  const std::size_t n = secagg_share_label.size();
  for (std::size_t i = 0; i < n; ++i) ad[i] = static_cast<std::uint8_t>(secagg_share_label[i]);
  secagg_put_u64(ad.data() + n, session);
  secagg_put_u32(ad.data() + n + 8, sender);
  secagg_put_u32(ad.data() + n + 12, recipient);
  return ad;
}

template <random_bit_source G>
secagg_ciphertext secagg_seal(const secagg_key& key, const secagg_plaintext& plain,
                              std::uint64_t session, std::uint32_t sender, std::uint32_t recipient,
                              G& gen) {
  PRIVET_REQUIRE_SECURE_CRYPTO_GENERATOR(G);
  secagg_ciphertext c{};
  constexpr std::size_t nonce_bytes = crypto_aead_xchacha20poly1305_ietf_NPUBBYTES;
  secagg_random(gen, std::span<std::uint8_t>(c.data(), nonce_bytes));
  const auto ad = secagg_share_ad(session, sender, recipient);
  unsigned long long len = 0;
  crypto_aead_xchacha20poly1305_ietf_encrypt(c.data() + nonce_bytes, &len, plain.data(),
                                             plain.size(), ad.data(), ad.size(), nullptr, c.data(),
                                             key.data());
  return c;
}

// False when the ciphertext does not authenticate under this key and header.
inline bool secagg_open(secagg_plaintext& plain, const secagg_key& key, const secagg_ciphertext& c,
                        std::uint64_t session, std::uint32_t sender, std::uint32_t recipient) {
  constexpr std::size_t nonce_bytes = crypto_aead_xchacha20poly1305_ietf_NPUBBYTES;
  const auto ad = secagg_share_ad(session, sender, recipient);
  unsigned long long len = 0;
  return crypto_aead_xchacha20poly1305_ietf_decrypt(
             plain.data(), &len, nullptr, c.data() + nonce_bytes, c.size() - nonce_bytes, ad.data(),
             ad.size(), c.data(), key.data()) == 0 &&
         len == plain.size();
}

inline secagg_key secagg_commit(std::uint64_t session, std::uint32_t owner,
                                const secagg_key& seed) {
  static constexpr std::string_view label = "privet.secagg.v1.seed";
  std::array<std::uint8_t, 12> header{};
  secagg_put_u64(header.data(), session);
  secagg_put_u32(header.data() + 8, owner);
  secagg_key out{};
  crypto_generichash_state st;
  crypto_generichash_init(&st, nullptr, 0, out.size());
  crypto_generichash_update(&st, reinterpret_cast<const unsigned char*>(label.data()),
                            label.size());
  crypto_generichash_update(&st, header.data(), header.size());
  crypto_generichash_update(&st, seed.data(), seed.size());
  crypto_generichash_final(&st, out.data(), out.size());
  return out;
}

}  // namespace privet::detail
