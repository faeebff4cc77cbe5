// privet/core/csprng.hpp — the cryptographically secure generator privet uses
// by default for every release-grade random choice (as Google DP's
// SecureURBG). Bytes come from libsodium's randombytes (the OS CSPRNG,
// getrandom(2) on Linux), buffered to amortise the system call.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/sodium.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>

namespace privet {

/// A `std::uniform_random_bit_generator` producing 64-bit words from the
/// operating system's CSPRNG. Not copyable: a copy would replay the same
/// buffered randomness. Safe across fork(): a child discards the parent's
/// buffer. One instance per thread (see `secure_generator()`).
class csprng {
 public:
  using result_type = std::uint64_t;

  csprng() { detail::ensure_sodium(); }
  csprng(const csprng&) = delete;
  csprng& operator=(const csprng&) = delete;
  csprng(csprng&& other) noexcept : buffer_(other.buffer_), pos_(other.pos_), gen_(other.gen_) {
    other.wipe();
  }
  csprng& operator=(csprng&& other) noexcept {
    if (this != &other) {
      buffer_ = other.buffer_;
      pos_ = other.pos_;
      gen_ = other.gen_;
      other.wipe();
    }
    return *this;
  }
  ~csprng() { wipe(); }

  static constexpr result_type min() noexcept { return 0; }
  static constexpr result_type max() noexcept { return std::numeric_limits<result_type>::max(); }

  result_type operator()() {
    if (pos_ == buffer_.size() || gen_ != detail::fork_generation()) refill();
    const result_type r = buffer_[pos_];
    buffer_[pos_++] = 0;  // each word is handed out once and not kept
    return r;
  }

  /// Fills `out` with random bytes straight from the OS CSPRNG.
  void fill(std::span<std::byte> out) const { randombytes_buf(out.data(), out.size()); }

 private:
  static constexpr std::size_t words = 512;  // 4 KiB per system call

  void refill() {
    randombytes_buf(buffer_.data(), sizeof(buffer_));
    pos_ = 0;
    gen_ = detail::fork_generation();
  }
  void wipe() noexcept {
    sodium_memzero(buffer_.data(), sizeof(buffer_));
    pos_ = buffer_.size();
  }

  std::array<result_type, words> buffer_{};
  std::size_t pos_ = words;
  std::uint64_t gen_ = 0;
};

/// This thread's secure generator: the default source of release noise.
inline csprng& secure_generator() {
  thread_local csprng gen;
  return gen;
}

static_assert(random_bit_source<csprng>);

}  // namespace privet
