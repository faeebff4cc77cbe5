#include <privet/core/metric.hpp>

#include <doctest/doctest.h>

#include <cmath>

static_assert(privet::metric_converts_v<privet::absolute_distance, privet::l1_distance>);
static_assert(privet::metric_converts_v<privet::absolute_distance, privet::l2_distance>);
static_assert(privet::metric_converts_v<privet::partition_distance, privet::l2_distance>);
// Loose bounds are never implicit: they need a named metric_cast.
static_assert(!privet::metric_converts_v<privet::l1_distance, privet::l2_distance>);
static_assert(!privet::metric_converts_v<privet::l2_distance, privet::l1_distance>);
static_assert(!privet::metric_converts_v<privet::symmetric_distance, privet::unit_distance>);

TEST_CASE("partition bounds give L1 = k c and L2 = sqrt(k) c, rounded up") {
  const privet::partition_distance::distance_type d{10, 3.0};
  CHECK(privet::convert_distance<privet::partition_distance, privet::l1_distance>(d) == 30.0);
  const double l2 = privet::convert_distance<privet::partition_distance, privet::l2_distance>(d);
  CHECK(l2 >= std::sqrt(10.0) * 3.0);
  CHECK(l2 <= std::nextafter(std::nextafter(std::sqrt(10.0) * 3.0, 1e9), 1e9));
  CHECK(privet::convert_distance<privet::partition_distance, privet::linf_distance>(d) == 3.0);
}

TEST_CASE("upward rounding never under-estimates") {
  // 0.1 * 3 rounds down in binary64 (0.30000000000000004 is above, 0.3 below the product).
  const double p = privet::detail::mul_up(0.1, 3.0);
  CHECK(p >= 0.1L * 3.0L);
  CHECK(privet::detail::sqrt_up(2.0) * privet::detail::sqrt_up(2.0) >= 2.0);
  CHECK(static_cast<long double>(privet::detail::add_up(1.0, 1e-17)) >= 1.0L + 1e-17L);
  CHECK(privet::detail::add_up(1.0, 1e-17) > 1.0);
  CHECK(privet::detail::div_up(1.0, 3.0) * 3.0L >= 1.0L);
  CHECK(privet::detail::mul_up(2.0, 3.0) == 6.0);  // exact stays exact
}
