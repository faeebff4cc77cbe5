// tests/support/histogram_limits.hpp — what the dense and sparse histogram
// boundary tests share: the overflow message the histograms build for a
// count type, and a sampler that always draws one value.
#pragma once

#include <privet/core/seeded_generator.hpp>

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

/// A sampler that always draws z.
struct fixed_noise {
  std::int64_t z;
  std::int64_t operator()(privet::seeded_generator&) const { return z; }
};

}  // namespace privet::test
