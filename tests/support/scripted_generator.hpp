// tests/support/scripted_generator.hpp — a generator that returns a given
// list of 64-bit words, in order (then throws): steers a constant-time
// randomiser to a chosen coin and chosen uniform draws, so that its
// arithmetic on them can be checked exhaustively. Marked secure for tests
// only: a release type that insists on a CSPRNG must still accept it.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/int128.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

namespace privet::test {

class scripted_generator {
 public:
  using result_type = std::uint64_t;
  explicit scripted_generator(std::vector<std::uint64_t> words) : words_(std::move(words)) {}
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }
  result_type operator()() {
    if (next_ == words_.size()) throw std::logic_error("scripted_generator: out of words");
    return words_[next_++];
  }
  /// The words returned so far.
  [[nodiscard]] std::size_t used() const { return next_; }

 private:
  std::vector<std::uint64_t> words_;
  std::size_t next_ = 0;
};

/// The word w whose Lemire draw below `product` is n (n < product) and is
/// accepted: the largest w with floor(w product / 2^64) = n, whose low word
/// w product - n 2^64 exceeds 2^64 - product, above every rejection
/// threshold (2^64 mod product < product <= 2^64 - product for product
/// <= 2^63). Its mixed-radix digits over bounds b_0, b_1, ... (product =
/// their product, b_0 most significant) are what a batched draw returns.
inline std::uint64_t lemire_word(std::uint64_t n, std::uint64_t product) {
  using u128 = privet::detail::uint128;
  return static_cast<std::uint64_t>((((static_cast<u128>(n) + 1) << 64) - 1) / product);
}

}  // namespace privet::test

template <>
struct privet::generator_traits<privet::test::scripted_generator> {
  static constexpr bool cryptographically_secure = true;  // tests only
};
