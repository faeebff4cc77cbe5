// Count boundaries of sparse_histogram (privet/sketches/sparse_histogram.hpp)
// for every integer count type: the type's maximum (and minimum) is reached
// exactly, and one more saturates there (never wraps, never throws: issue 22,
// a count is data), through add, add_all, merge and noise. For each, the
// neighbouring pair "count at max" / "count at max plus one record" both
// release, and the released values are what the saturation rule says.
#include <privet/core/error.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/sketches/sparse_histogram.hpp>

#include <support/histogram_limits.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

using privet::test::fixed_noise;

TEST_CASE_TEMPLATE("counts reach the type's limits exactly, then saturate, never wrap or throw", T,
                   std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, std::int32_t,
                   std::uint32_t, std::int64_t, std::uint64_t) {
  constexpr T max = std::numeric_limits<T>::max();
  constexpr T min = std::numeric_limits<T>::min();
  privet::sparse_histogram<std::uint64_t, T> h;

  // add: max - 1, then 1: exactly max; one more record stays at max.
  h.add(7, T(max - 1));
  h.add(7);
  CHECK(h[7] == max);
  CHECK_NOTHROW(h.add(7));
  CHECK(h[7] == max);
  CHECK_NOTHROW(h.add(7, max));
  CHECK(h[7] == max);
  CHECK(h.size() == 1);
  if constexpr (std::is_signed_v<T>) {
    // Below the limit the count is exact again: max - 3.
    h.add(7, T(-3));
    CHECK(h[7] == T(max - 3));
    h.add(8, min);
    CHECK(h[8] == min);
    CHECK_NOTHROW(h.add(8, T(-1)));
    CHECK(h[8] == min);
    h.add(8, T(5));
    CHECK(h[8] == T(min + 5));
  }

  // add_all: a batch reaching max is exact; one past it saturates, the other
  // keys of the batch counted as usual.
  privet::sparse_histogram<std::uint64_t, T> b;
  b.add(1, T(max - 2));
  const std::vector<std::uint64_t> twice{1, 1};
  b.add_all(std::span<const std::uint64_t>(twice));
  CHECK(b[1] == max);
  const std::vector<std::uint64_t> batch{2, 3, 1};
  CHECK_NOTHROW(b.add_all(std::span<const std::uint64_t>(batch)));
  CHECK(b.size() == 3);
  CHECK(b[1] == max);
  CHECK(b[2] == 1);
  CHECK(b[3] == 1);

  // merge: shards summing to max are exact; one more saturates.
  privet::sparse_histogram<std::uint64_t, T> x, y;
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

  // Noise: the exact count + sample, saturated at T's limits. A count at
  // max and its neighbour one record below both release: max - 2 + 2 is
  // max exactly, max - 2 + 3 saturates to max, max - 3 + 3 is max.
  privet::testing::seeded_release_generator gen(1);
  privet::sparse_histogram<std::uint64_t, T> n;
  n.add(1, T(max - 2));
  CHECK(n.noisy(fixed_noise{2}, gen)[1] == max);
  T released = 0;
  CHECK_NOTHROW(released = n.noisy(fixed_noise{3}, gen)[1]);
  CHECK(released == max);
  CHECK(n.noisy(fixed_noise{-3}, gen)[1] == T(max - 5));
  CHECK(n.noisy_over(std::vector<std::uint64_t>{1, 2}, fixed_noise{1}, gen)[2] == 1);
  // The extreme samples of the sampler's type: the exact sum (computed here
  // in 128 bits) clamped to T, never a wrap. max - 2 + INT64_MIN is min for
  // the narrow types, and exact for int64 (-3) and uint64 (2^63 - 3).
  constexpr std::int64_t zmax = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t zmin = std::numeric_limits<std::int64_t>::min();
  CHECK(n.noisy(fixed_noise{zmax}, gen)[1] == max);
  CHECK(n.noisy(fixed_noise{zmin}, gen)[1] == privet::test::saturated_noisy<T>(T(max - 2), zmin));
  if constexpr (sizeof(T) < sizeof(std::int64_t))
    CHECK(privet::test::saturated_noisy<T>(T(max - 2), zmin) == min);
  // A negative sample is judged by the sum, also for unsigned counts: 10 +
  // (-10) is 0, 10 + (-11) is -1 for a signed type and saturates at 0 for
  // an unsigned one.
  privet::sparse_histogram<std::uint64_t, T> m;
  m.add(1, T(10));
  CHECK(m.noisy(fixed_noise{-10}, gen)[1] == 0);
  if constexpr (std::is_unsigned_v<T>) {
    CHECK(m.noisy(fixed_noise{-11}, gen)[1] == 0);
  } else {
    CHECK(m.noisy(fixed_noise{-11}, gen)[1] == -1);
  }
}
