// tests/support/histogram_limits.hpp — what the dense and sparse histogram
// boundary tests share: the value a saturating noisy release must give, a
// sampler that always draws one value, and the overflow message the
// histograms built before counts saturated (issue 22; still read by
// dense_histogram_limits_test.cpp until its noise block is updated).
#pragma once

#include <privet/core/detail/int128.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace privet::test {

/// v as the library's messages print an integer.
template <class T>
std::string integer_text(T v) {
  if constexpr (std::is_signed_v<T>) {
    return std::to_string(static_cast<long long>(v));
  } else {
    return std::to_string(static_cast<unsigned long long>(v));
  }
}

/// The message of a count a + b that leaves T.
template <class T>
std::string histogram_overflow_message(T a, T b) {
  return "privet: a histogram count would overflow: " + integer_text(a) + " + " + integer_text(b) +
         "; allowed: the range of the count type [" + integer_text(std::numeric_limits<T>::min()) +
         ", " + integer_text(std::numeric_limits<T>::max()) + "]";
}

/// count + z computed exactly in 128 bits, then clamped to T's range: what
/// a histogram's noisy() releases for a count and an integer sample
/// (sketches/detail/histogram_ops.hpp), computed independently of it.
template <class T>
T saturated_noisy(T count, std::int64_t z) {
  using privet::detail::int128;
  const int128 exact = int128{count} + int128{z};
  return static_cast<T>(
      std::clamp<int128>(exact, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
}

/// A sampler that always draws z.
struct fixed_noise {
  std::int64_t z;
  std::int64_t operator()(privet::testing::seeded_release_generator&) const { return z; }
};

}  // namespace privet::test
