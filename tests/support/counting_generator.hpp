// tests/support/counting_generator.hpp — a release-grade generator for tests
// (seeded, like seeded_release_generator) that counts the 64-bit words
// drawn: the exact stand-in for a constant-time sampler's work.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/testing.hpp>

#include <cstdint>
#include <limits>

namespace privet::test {

class counting_release_generator {
 public:
  using result_type = std::uint64_t;
  explicit counting_release_generator(std::uint64_t seed) : inner_(seed) {}
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }
  result_type operator()() {
    ++calls_;
    return inner_();
  }
  /// The words drawn so far.
  [[nodiscard]] std::uint64_t calls() const { return calls_; }

 private:
  privet::testing::seeded_release_generator inner_;
  std::uint64_t calls_ = 0;
};

}  // namespace privet::test

template <>
struct privet::generator_traits<privet::test::counting_release_generator> {
  static constexpr bool cryptographically_secure = true;  // tests only
};
