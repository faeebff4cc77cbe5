// Count boundaries of sparse_histogram (privet/sketches/sparse_histogram.hpp)
// for every integer count type: the type's maximum (and minimum) is reached
// exactly, one more throws overflow_error naming both operands and leaves
// the histogram unchanged, through add, add_all, merge and noise.
#include <privet/core/error.hpp>
#include <privet/core/seeded_generator.hpp>
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

TEST_CASE_TEMPLATE("counts reach the type's limits exactly and never wrap", T, std::int8_t,
                   std::uint8_t, std::int16_t, std::uint16_t, std::int32_t, std::uint32_t,
                   std::int64_t, std::uint64_t) {
  constexpr T max = std::numeric_limits<T>::max();
  constexpr T min = std::numeric_limits<T>::min();
  privet::sparse_histogram<std::uint64_t, T> h;

  // add: max - 1, then 1: exactly max; one more throws, nothing changes.
  h.add(7, T(max - 1));
  h.add(7);
  CHECK(h[7] == max);
  CHECK_THROWS_WITH_AS(h.add(7), privet::test::histogram_overflow_message<T>(max, T(1)).c_str(),
                       privet::overflow_error);
  CHECK(h[7] == max);
  CHECK(h.size() == 1);
  if constexpr (std::is_signed_v<T>) {
    h.add(8, min);
    CHECK(h[8] == min);
    CHECK_THROWS_WITH_AS(h.add(8, T(-1)),
                         privet::test::histogram_overflow_message<T>(min, T(-1)).c_str(),
                         privet::overflow_error);
    CHECK(h[8] == min);
  }

  // add_all: a batch reaching max fits; a batch one past it changes nothing.
  privet::sparse_histogram<std::uint64_t, T> b;
  b.add(1, T(max - 2));
  const std::vector<std::uint64_t> twice{1, 1};
  b.add_all(std::span<const std::uint64_t>(twice));
  CHECK(b[1] == max);
  const std::vector<std::uint64_t> batch{2, 3, 1};
  CHECK_THROWS_WITH_AS(b.add_all(std::span<const std::uint64_t>(batch)),
                       privet::test::histogram_overflow_message<T>(max, T(1)).c_str(),
                       privet::overflow_error);
  CHECK(b.size() == 1);
  CHECK(b[1] == max);
  CHECK_FALSE(b.contains(2));

  // merge: shards summing to max fit; one more is refused whole.
  privet::sparse_histogram<std::uint64_t, T> x, y;
  x.add(1, T(max - 3));
  x.add(2, T(5));
  y.add(1, T(3));
  y.add(2, T(1));
  x.merge(y);
  CHECK(x[1] == max);
  CHECK(x[2] == 6);
  CHECK_THROWS_WITH_AS(x.merge(y), privet::test::histogram_overflow_message<T>(max, T(3)).c_str(),
                       privet::overflow_error);
  CHECK(x[1] == max);
  CHECK(x[2] == 6);

  // Noise: a sample that lands exactly on max fits, one more throws.
  privet::seeded_generator gen(1);
  privet::sparse_histogram<std::uint64_t, T> n;
  n.add(1, T(max - 2));
  CHECK(n.noisy(fixed_noise{2}, gen)[1] == max);
  CHECK_THROWS_WITH_AS((void)n.noisy(fixed_noise{3}, gen),
                       privet::test::histogram_overflow_message<T>(T(max - 2), T(3)).c_str(),
                       privet::overflow_error);
  // A negative sample is judged by the sum, also for unsigned counts: 10 +
  // (-10) is 0, 10 + (-11) leaves an unsigned type (and names the sample).
  privet::sparse_histogram<std::uint64_t, T> m;
  m.add(1, T(10));
  CHECK(m.noisy(fixed_noise{-10}, gen)[1] == 0);
  if constexpr (std::is_unsigned_v<T>) {
    CHECK_THROWS_WITH_AS((void)m.noisy(fixed_noise{-11}, gen),
                         ("privet: a histogram count plus noise -11 does not fit the count type; "
                          "allowed: [0, " +
                          privet::test::integer_text(max) + "]")
                             .c_str(),
                         privet::overflow_error);
  } else {
    CHECK(m.noisy(fixed_noise{-11}, gen)[1] == -1);
  }
}
