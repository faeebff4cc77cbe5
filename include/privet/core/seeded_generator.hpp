// privet/core/seeded_generator.hpp — a deterministic generator for tests and
// reproducible simulations: the ChaCha20 keystream (Bernstein 2008, the
// original 64-bit-nonce variant, via libsodium) under a key derived from a
// seed. Identical seeds give identical streams on every platform; distinct
// `stream` numbers give independent streams for parallel workers.
//
// Not for release noise: anyone who knows the seed knows the noise.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/sodium.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>

namespace privet {

/// A reproducible `random_bit_source` of 64-bit words: the ChaCha20 keystream
/// under a key derived from a 64-bit seed. Copyable: a copy yields the same
/// words as the original from there on. Not marked cryptographically secure,
/// so release paths refuse it.
class seeded_generator {
 public:
  /// Each call returns one uniform 64-bit word.
  using result_type = std::uint64_t;
  /// Size in bytes of a ChaCha20 key (32), as `from_key` takes it.
  static constexpr std::size_t key_bytes = crypto_stream_chacha20_KEYBYTES;

  /// Key = BLAKE2b-256("privet.seeded_generator.v1" || seed, little-endian);
  /// nonce = stream, little-endian.
  explicit seeded_generator(std::uint64_t seed, std::uint64_t stream = 0) {
    detail::ensure_sodium();
    static constexpr char domain[] = "privet.seeded_generator.v1";
    std::array<unsigned char, sizeof(domain) - 1 + 8> input{};
    std::memcpy(input.data(), domain, sizeof(domain) - 1);
    store_le(input.data() + sizeof(domain) - 1, seed);
    crypto_generichash(key_.data(), key_.size(), input.data(), input.size(), nullptr, 0);
    store_le(nonce_.data(), stream);
  }

  /// The raw ChaCha20 keystream for `key` and `nonce`, as 64-bit
  /// little-endian words (for known-answer tests against RFC vectors).
  static seeded_generator from_key(std::span<const unsigned char, key_bytes> key,
                                   std::uint64_t nonce) {
    return seeded_generator(key, nonce);
  }

  /// Smallest output, 0.
  static constexpr result_type min() noexcept { return 0; }
  /// Largest output, 2^64 - 1: every output word is 64 uniform bits.
  static constexpr result_type max() noexcept { return std::numeric_limits<result_type>::max(); }

  /// The next keystream word (little-endian), computing 16 ChaCha20 blocks
  /// at a time.
  result_type operator()() {
    if (pos_ == words) refill();
    return buffer_[pos_++];
  }

  /// Skips `n` outputs in O(1) block computations.
  void discard(unsigned long long n) {
    const unsigned long long left = words - pos_;
    if (n <= left) {
      pos_ += static_cast<std::size_t>(n);
      return;
    }
    n -= left;
    const unsigned long long words_per_block = 64 / sizeof(result_type);
    block_ += (n / words) * (words / words_per_block);
    refill();
    pos_ = static_cast<std::size_t>(n % words);
  }

  /// Equal when both have the same key, nonce and number of outputs consumed,
  /// so they will produce the same words from here on.
  friend bool operator==(const seeded_generator& a, const seeded_generator& b) noexcept {
    return a.key_ == b.key_ && a.nonce_ == b.nonce_ && a.position() == b.position();
  }

 protected:
  /// The keystream for `key` and `nonce` (what `from_key` returns), for
  /// derived generators that must not leave a temporary copy of the key.
  seeded_generator(std::span<const unsigned char, key_bytes> key, std::uint64_t nonce) {
    detail::ensure_sodium();
    std::copy(key.begin(), key.end(), key_.begin());
    store_le(nonce_.data(), nonce);
  }
  /// Zeroes the key and the unread keystream (for derived generators whose
  /// key is secret, such as `keyed_stream`); the generator then yields the
  /// keystream of the all-zero key and must not be used again.
  void wipe() noexcept {
    sodium_memzero(key_.data(), key_.size());
    sodium_memzero(buffer_.data(), sizeof(buffer_));
    pos_ = words;
  }

 private:
  static constexpr std::size_t words = 128;  // 16 ChaCha20 blocks per refill
  static constexpr std::uint64_t blocks_per_refill = words * sizeof(result_type) / 64;

  static void store_le(unsigned char* p, std::uint64_t v) noexcept {
    for (int i = 0; i < 8; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
  }

  // Outputs consumed so far, whatever the buffering state.
  [[nodiscard]] unsigned long long position() const noexcept {
    return pos_ == words && block_ == 0
               ? 0
               : (block_ - blocks_per_refill) * (64 / sizeof(result_type)) + pos_;
  }

  void refill() {
    if constexpr (std::endian::native == std::endian::little) {
      // The keystream's little-endian words are the buffer's own bytes:
      // write it in place instead of assembling words byte by byte (a
      // third of the generator's time otherwise).
      auto* bytes = reinterpret_cast<unsigned char*>(buffer_.data());
      std::memset(bytes, 0, sizeof(buffer_));
      crypto_stream_chacha20_xor_ic(bytes, bytes, sizeof(buffer_), nonce_.data(), block_,
                                    key_.data());
    } else {
      std::array<unsigned char, words * sizeof(result_type)> bytes{};
      crypto_stream_chacha20_xor_ic(bytes.data(), bytes.data(), bytes.size(), nonce_.data(), block_,
                                    key_.data());
      for (std::size_t i = 0; i < words; ++i) {
        std::uint64_t w = 0;
        for (int b = 7; b >= 0; --b) w = (w << 8) | bytes[i * 8 + static_cast<std::size_t>(b)];
        buffer_[i] = w;
      }
    }
    block_ += blocks_per_refill;
    pos_ = 0;
  }

  std::array<unsigned char, key_bytes> key_{};
  std::array<unsigned char, crypto_stream_chacha20_NONCEBYTES> nonce_{};
  std::uint64_t block_ = 0;  // next block counter to compute
  std::array<result_type, words> buffer_{};
  std::size_t pos_ = words;
};

static_assert(random_bit_source<seeded_generator>);

}  // namespace privet
