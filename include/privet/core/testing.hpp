// privet/core/testing.hpp — deterministic generators that release paths
// accept, for tests and nothing else. Not included by <privet/privet.hpp>:
// a program that includes this header says in its own source that its noise
// is reproducible by whoever knows the seed, which is no noise at all.
//
// Statistical tests need fixed seeds (to state a false-alarm rate and to
// fail the same way twice); release paths accept only `secure_bit_source`
// generators (core/concepts.hpp). These two names are the explicit bridge.
// For simulations that do not release, use `simulation_only_noise` instead.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/keyed_streams.hpp>
#include <privet/core/seeded_generator.hpp>

#include <array>
#include <cstdint>
#include <cstring>

namespace privet::testing {

/// A `seeded_generator` that release paths accept. Tests only.
class seeded_release_generator : public seeded_generator {
 public:
  /// The same stream as `seeded_generator(seed, stream)`.
  explicit seeded_release_generator(std::uint64_t seed, std::uint64_t stream = 0)
      : seeded_generator(seed, stream) {}
};

/// `keyed_streams` under a secret derived from a 64-bit seed
/// (BLAKE2b-256 of "privet.keyed_streams.seed.v1" || seed, little-endian), so
/// that a distributed or parallel test can be replayed. Tests only.
inline keyed_streams seeded_keyed_streams(std::uint64_t seed) {
  detail::ensure_sodium();
  static constexpr char domain[] = "privet.keyed_streams.seed.v1";
  std::array<unsigned char, sizeof(domain) - 1 + 8> input{};
  std::memcpy(input.data(), domain, sizeof(domain) - 1);
  for (int i = 0; i < 8; ++i) {
    input[sizeof(domain) - 1 + static_cast<std::size_t>(i)] =
        static_cast<unsigned char>(seed >> (8 * i));
  }
  keyed_streams::key_type secret{};
  crypto_generichash(secret.data(), secret.size(), input.data(), input.size(), nullptr, 0);
  return keyed_streams(secret);
}

}  // namespace privet::testing

namespace privet {
/// Marks `testing::seeded_release_generator` secure so that tests can drive
/// release paths reproducibly; this is the whole point of the class.
template <>
struct generator_traits<testing::seeded_release_generator> {
  /// True, although the seed is known: tests only.
  static constexpr bool cryptographically_secure = true;
};
}  // namespace privet
