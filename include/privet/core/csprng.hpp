// privet/core/csprng.hpp — the cryptographically secure generator privet uses
// by default for every release-grade random choice (as Google DP's
// SecureURBG). A fast-key-erasure generator (Bernstein 2017, as OpenBSD's
// arc4random and Linux's vDSO getrandom): a ChaCha20 key from the OS CSPRNG
// (libsodium's randombytes, getrandom(2) on Linux) produces 4 KiB of
// keystream per refill, whose first 32 bytes replace the key at once, so a
// later memory compromise reveals no earlier output. The key is drawn afresh
// from the OS every 256 KiB and after fork().
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/sodium.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>

namespace privet {

/// A `std::uniform_random_bit_generator` producing 64-bit words seeded from
/// the operating system's CSPRNG. Not copyable: a copy would replay the same
/// buffered randomness. Safe across fork(): a child discards the parent's
/// buffer. One instance per thread (see `secure_generator()`).
class csprng {
 public:
  /// Each call returns one uniform 64-bit word.
  using result_type = std::uint64_t;

  /// Initialises libsodium on first use; throws privet::error if the system
  /// has no usable entropy source. Draws no key until the first call.
  csprng() { detail::ensure_sodium(); }
  csprng(const csprng&) = delete;
  csprng& operator=(const csprng&) = delete;
  /// Takes over `other`'s key and unread buffer, then wipes `other` so that
  /// no word can be handed out twice; `other` stays usable (it rekeys).
  csprng(csprng&& other) noexcept
      : key_(other.key_),
        buffer_(other.buffer_),
        pos_(other.pos_),
        refills_(other.refills_),
        gen_(other.gen_) {
    other.wipe();
  }
  /// As the move constructor; this generator's own key and buffer are
  /// overwritten.
  csprng& operator=(csprng&& other) noexcept {
    if (this != &other) {
      key_ = other.key_;
      buffer_ = other.buffer_;
      pos_ = other.pos_;
      refills_ = other.refills_;
      gen_ = other.gen_;
      other.wipe();
    }
    return *this;
  }
  /// Zeroes the key and the unread buffer.
  ~csprng() { wipe(); }

  /// Smallest output, 0.
  static constexpr result_type min() noexcept { return 0; }
  /// Largest output, 2^64 - 1: every output word is 64 uniform bits.
  static constexpr result_type max() noexcept { return std::numeric_limits<result_type>::max(); }

  /// The next word of ChaCha20 keystream. Refills the buffer when it is used
  /// up or after fork() (rekeying from the OS every 64 refills); each word is
  /// zeroed in the buffer once returned.
  result_type operator()() {
    if (pos_ == buffer_.size() || gen_ != detail::fork_generation()) refill();
    const result_type r = buffer_[pos_];
    buffer_[pos_++] = 0;  // each word is handed out once and not kept
    return r;
  }

  /// Fills `out` with random bytes straight from the OS CSPRNG.
  void fill(std::span<std::byte> out) const { randombytes_buf(out.data(), out.size()); }

 private:
  static constexpr std::size_t words = 512;           // 4 KiB of output per refill
  static constexpr unsigned refills_per_reseed = 64;  // fresh OS key every 256 KiB

  void refill() {
    if (refills_ == 0 || gen_ != detail::fork_generation()) {
      randombytes_buf(key_.data(), key_.size());
      gen_ = detail::fork_generation();
      refills_ = refills_per_reseed;
    }
    --refills_;
    std::array<unsigned char, crypto_stream_chacha20_KEYBYTES + words * sizeof(result_type)>
        block{};
    static constexpr std::array<unsigned char, crypto_stream_chacha20_NONCEBYTES> nonce{};
    crypto_stream_chacha20(block.data(), block.size(), nonce.data(), key_.data());
    std::memcpy(key_.data(), block.data(), key_.size());  // erase the key that made this block
    std::memcpy(buffer_.data(), block.data() + key_.size(), sizeof(buffer_));
    sodium_memzero(block.data(), block.size());
    pos_ = 0;
  }
  void wipe() noexcept {
    sodium_memzero(key_.data(), key_.size());
    sodium_memzero(buffer_.data(), sizeof(buffer_));
    pos_ = buffer_.size();
    refills_ = 0;
  }

  std::array<unsigned char, crypto_stream_chacha20_KEYBYTES> key_{};
  std::array<result_type, words> buffer_{};
  std::size_t pos_ = words;
  unsigned refills_ = 0;
  std::uint64_t gen_ = 0;
};

/// This thread's secure generator: the default source of release noise.
inline csprng& secure_generator() {
  thread_local csprng gen;
  return gen;
}

/// csprng is a secure bit source: release mechanisms accept it.
template <>
struct generator_traits<csprng> {
  /// True: output is unpredictable without the OS-drawn key.
  static constexpr bool cryptographically_secure = true;
};

static_assert(secure_bit_source<csprng>);

}  // namespace privet
