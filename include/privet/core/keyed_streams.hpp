// privet/core/keyed_streams.hpp — independent random streams addressed by a
// key, from one secret: the noise for a histogram cell (or a page) is drawn
// from the stream of its own key, so it does not depend on which process
// computes it or in which order. A distributed run that shares the secret
// gives exactly the single-process result.
//
// Stream (a, b) is ChaCha20 under the subkey BLAKE2b-256 keyed with the
// secret over ("privet.keyed_streams.v1", a, b). With a secret drawn from the
// OS CSPRNG (the default constructor) the streams are computationally
// indistinguishable from independent uniform bits to anyone without the
// secret (BLAKE2b as a PRF, ChaCha20 as a PRG), which is what release noise
// needs; distinct (a, b) never share a stream (no hashing of the address
// to fewer bits, so no collisions that would correlate two cells' noise).
// A stream is a `keyed_stream`, marked cryptographically secure
// (`generator_traits`): the class's contract is that its secret comes from a
// CSPRNG (the default constructor, `streams_from(csprng&)`, or a secret
// broadcast from a process that drew it so). Streams from a 64-bit seed, for
// tests only, are `privet::testing::seeded_keyed_streams` in
// <privet/core/testing.hpp>: a 64-bit seed can be searched.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/sodium.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/uniform.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

namespace privet {

class keyed_streams;

/// One stream of `keyed_streams`: ChaCha20 under the stream's subkey.
/// Its subkey and unread keystream are zeroed when it is destroyed: a
/// stream's key would let whoever reads the memory later replay its draws
/// (the noise of one cell, the randomisers of one batch task).
class keyed_stream : public seeded_generator {
 public:
  /// Copies the stream's state: the copy yields the same words.
  keyed_stream(const keyed_stream&) = default;
  /// Replaces this stream's state by a copy of the other's.
  keyed_stream& operator=(const keyed_stream&) = default;
  /// Zeroes the subkey and the unread keystream.
  ~keyed_stream() { wipe(); }

 private:
  friend class keyed_streams;
  explicit keyed_stream(std::span<const unsigned char, seeded_generator::key_bytes> key)
      : seeded_generator(key, 0) {}
};

/// A `keyed_stream` is a secure bit source: its subkey is a PRF of a secret
/// that `keyed_streams`' contract says came from a CSPRNG.
template <>
struct generator_traits<keyed_stream> {
  /// True: release paths accept a keyed_stream.
  static constexpr bool cryptographically_secure = true;
};

/// Independent release-grade streams addressed by a pair of 64-bit keys, all
/// derived from one 32-byte secret (see the file comment for the
/// construction). Copies share the secret; the destructor zeroes it.
class keyed_streams {
 public:
  /// Size in bytes of the secret.
  static constexpr std::size_t key_bytes = 32;
  /// The secret, as raw bytes.
  using key_type = std::array<unsigned char, key_bytes>;

  /// A fresh secret from the OS CSPRNG.
  keyed_streams() {
    detail::ensure_sodium();
    randombytes_buf(secret_.data(), secret_.size());
  }

  /// A given secret (e.g. broadcast to every rank of a distributed run).
  explicit keyed_streams(const key_type& secret) : secret_(secret) { detail::ensure_sodium(); }

  /// Copies the secret: the copy addresses the same streams.
  keyed_streams(const keyed_streams&) = default;
  /// Replaces the secret by a copy of the other's.
  keyed_streams& operator=(const keyed_streams&) = default;
  /// Zeroes the secret.
  ~keyed_streams() { sodium_memzero(secret_.data(), secret_.size()); }

  /// The stream addressed by (a, b).
  [[nodiscard]] keyed_stream stream(std::uint64_t a, std::uint64_t b = 0) const {
    static constexpr char domain[] = "privet.keyed_streams.v1";
    std::array<unsigned char, sizeof(domain) - 1 + 16> input{};
    std::memcpy(input.data(), domain, sizeof(domain) - 1);
    for (int i = 0; i < 8; ++i) {
      input[sizeof(domain) - 1 + static_cast<std::size_t>(i)] =
          static_cast<unsigned char>(a >> (8 * i));
      input[sizeof(domain) - 1 + 8 + static_cast<std::size_t>(i)] =
          static_cast<unsigned char>(b >> (8 * i));
    }
    key_type subkey{};
    crypto_generichash(subkey.data(), subkey.size(), input.data(), input.size(), secret_.data(),
                       secret_.size());
    keyed_stream out{std::span<const unsigned char, key_bytes>(subkey)};
    sodium_memzero(subkey.data(), subkey.size());
    return out;
  }

  /// The secret, to hand to the other processes of one run.
  [[nodiscard]] const key_type& secret() const noexcept { return secret_; }

 private:
  key_type secret_{};
};

/// The same streams under a secret that came from a generator not marked
/// cryptographically secure (`streams_from(seeded_generator&)`, say): each
/// stream is a plain `seeded_generator`, so release paths refuse it, and
/// simulations and parallel tests get the same reproducible streams.
class simulation_keyed_streams {
 public:
  /// Streams under `secret`, whatever its origin.
  explicit simulation_keyed_streams(const keyed_streams::key_type& secret) : inner_(secret) {}

  /// The stream addressed by (a, b), as keyed_streams::stream computes it.
  [[nodiscard]] seeded_generator stream(std::uint64_t a, std::uint64_t b = 0) const {
    return inner_.stream(a, b);
  }

  /// The secret, to replay the same streams elsewhere.
  [[nodiscard]] const keyed_streams::key_type& secret() const noexcept { return inner_.secret(); }

 private:
  keyed_streams inner_;
};

/// Keyed streams under a secret of 32 bytes drawn from gen: one stream per
/// parallel task, all determined by gen's state. The streams are as good as
/// gen: `keyed_streams` (release grade) when gen is a `secure_bit_source`,
/// `simulation_keyed_streams` (plain seeded generators) otherwise.
template <random_bit_source G>
auto streams_from(G& gen) {
  keyed_streams::key_type secret{};
  random_bytes(gen, std::as_writable_bytes(std::span(secret)));
  if constexpr (secure_bit_source<G>) {
    keyed_streams streams(secret);
    sodium_memzero(secret.data(), secret.size());
    return streams;
  } else {
    simulation_keyed_streams streams(secret);
    sodium_memzero(secret.data(), secret.size());
    return streams;
  }
}

}  // namespace privet
