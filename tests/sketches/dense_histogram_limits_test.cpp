// Count boundaries of dense_histogram (privet/sketches/dense_histogram.hpp),
// through its public API, for every integer count type: the type's maximum
// (and minimum) is reached exactly and further updates saturate there
// (never throw, never wrap) through add, add_all and merge; noise beyond the
// type saturates too (detail/histogram_ops.hpp).
#include <privet/core/error.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/sketches/dense_histogram.hpp>

#include <support/histogram_limits.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

using privet::test::fixed_noise;

TEST_CASE_TEMPLATE("counts reach the type's limits exactly, then saturate, never wrap", T,
                   std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, std::int32_t,
                   std::uint32_t, std::int64_t, std::uint64_t) {
  constexpr T max = std::numeric_limits<T>::max();
  constexpr T min = std::numeric_limits<T>::min();
  privet::dense_histogram<T> h(16);

  // add: max - 1, then 1: exactly max; one more saturates there (issue 22:
  // counts are data, and the neighbouring histograms both keep counting).
  h.add(7, T(max - 1));
  h.add(7);
  CHECK(h[7] == max);
  CHECK_NOTHROW(h.add(7));
  CHECK(h[7] == max);
  h.add(7, max);
  CHECK(h[7] == max);
  if constexpr (std::is_signed_v<T>) {
    h.add(8, min);
    CHECK(h[8] == min);
    CHECK_NOTHROW(h.add(8, T(-1)));
    CHECK(h[8] == min);
    // Saturation is a clamp of each update: a later negative weight counts
    // down from the limit.
    h.add(7, T(-5));
    CHECK(h[7] == T(max - 5));
  }

  // add_all: a batch reaching max fits; a batch past it saturates that id
  // and counts the others.
  privet::dense_histogram<T> b(16);
  b.add(1, T(max - 2));
  const std::vector<std::uint32_t> twice{1, 1};
  b.add_all(std::span<const std::uint32_t>(twice));
  CHECK(b[1] == max);
  const std::vector<std::uint32_t> batch{2, 3, 1};
  CHECK_NOTHROW(b.add_all(std::span<const std::uint32_t>(batch)));
  CHECK(b[1] == max);
  CHECK(b[2] == 1);
  CHECK(b[3] == 1);

  // merge: shards summing to max fit; more saturates.
  privet::dense_histogram<T> x(16), y(16);
  x.add(1, T(max - 3));
  x.add(2, T(5));
  y.add(1, T(3));
  y.add(2, T(1));
  x.merge(y);
  CHECK(x[1] == max);
  CHECK(x[2] == 6);
  CHECK_NOTHROW(x.merge(y));
  CHECK(x[1] == max);
  CHECK(x[2] == 7);

  // Noise: a sample that lands exactly on max fits; more saturates there
  // (detail::apply_noise clamps the exact sum: post-processing).
  privet::testing::seeded_release_generator gen(1);
  privet::dense_histogram<T> n(16);
  n.add(1, T(max - 2));
  CHECK(n.noisy(fixed_noise{2}, gen)[1] == max);
  CHECK(n.noisy(fixed_noise{3}, gen)[1] == max);
  // A negative sample is judged by the sum, also for unsigned counts: 10 +
  // (-10) is 0, 10 + (-11) is below an unsigned type and saturates at 0.
  privet::dense_histogram<T> m(1);  // noisy() noises every id of the domain
  m.add(0, T(10));
  CHECK(m.noisy(fixed_noise{-10}, gen)[0] == 0);
  if constexpr (std::is_unsigned_v<T>) {
    CHECK(m.noisy(fixed_noise{-11}, gen)[0] == 0);
  } else {
    CHECK(m.noisy(fixed_noise{-11}, gen)[0] == -1);
  }
}
