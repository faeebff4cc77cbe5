#include <privet/core/pipeline.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/transformations/bounded_sum.hpp>
#include <privet/core/transformations/clamp.hpp>
#include <privet/core/transformations/count.hpp>
#include <privet/sketches/contribution_bounding.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

namespace {
// Measurement archetypes: the least a type must provide to end a pipeline.
// They add no noise; the real mechanisms are tested in tests/mechanisms.
template <class Metric, class Guarantee>
struct archetype_measurement : privet::pipeline_step {
  using input_metric = Metric;
  using guarantee_type = Guarantee;
  explicit archetype_measurement(double s) : scale(s) {}
  double scale;
  template <class G>
  double operator()(double x, G&) const {
    return x;
  }
  Guarantee guarantee(double d) const { return Guarantee(d / scale); }
};
using l1_archetype = archetype_measurement<privet::l1_distance, privet::pure_dp>;
using l2_archetype = archetype_measurement<privet::l2_distance, privet::gdp>;
}  // namespace

// Issue 35, item 5: steps of the user's own namespace compose with `|`
// without `using privet::operator|;` (argument-dependent lookup through the
// pipeline_step base the concepts require).
namespace user_steps {
// Doubles every record: stability d -> d (records map one to one).
struct doubled : privet::pipeline_step {
  using input_metric = privet::symmetric_distance;
  using output_metric = privet::symmetric_distance;
  std::vector<double> operator()(std::vector<double> v) const {
    for (double& x : v) x *= 2;
    return v;
  }
  std::uint64_t stability(std::uint64_t d) const { return d; }
};
// The number of records as a double; one record changes it by one.
struct size_of : privet::pipeline_step {
  using input_metric = privet::symmetric_distance;
  using output_metric = privet::absolute_distance;
  double operator()(const std::vector<double>& v) const { return static_cast<double>(v.size()); }
  double stability(std::uint64_t d) const { return static_cast<double>(d); }
};
// No noise: the guarantee it claims is d / 4, enough to test the plumbing.
struct echo : privet::pipeline_step {
  using input_metric = privet::absolute_distance;
  using guarantee_type = privet::pure_dp;
  template <class G>
  double operator()(double x, G&) const {
    return x;
  }
  privet::pure_dp guarantee(double d) const { return privet::pure_dp(d / 4); }
};
// The same members without the base: not a step.
struct no_base {
  using input_metric = privet::symmetric_distance;
  using output_metric = privet::symmetric_distance;
  std::uint64_t stability(std::uint64_t d) const { return d; }
};
}  // namespace user_steps

static_assert(privet::transformation<user_steps::doubled>);
static_assert(privet::measurement<user_steps::echo>);
static_assert(!privet::transformation<user_steps::no_base>);
// The base costs no space (empty-base optimisation).
struct one_double_step : privet::pipeline_step {
  double x;
};
static_assert(sizeof(one_double_step) == sizeof(double));
static_assert(std::is_empty_v<privet::count>);

TEST_CASE("operator| by argument-dependent lookup: two steps of a user namespace") {
  // This function is in the global namespace with no using-declaration; the
  // only way `|` resolves is through user_steps' privet::pipeline_step base.
  const auto t = user_steps::doubled{} | user_steps::size_of{};
  const auto m = t | user_steps::echo{};
  privet::testing::seeded_release_generator gen(1);
  CHECK(m(std::vector<double>{1, 2, 3}, gen) == 3.0);
  CHECK(m.guarantee(2).epsilon() == doctest::Approx(0.5));
  // Mixed with privet's own steps, in both positions.
  const auto mixed = privet::clamp(0.0, 1.0) | user_steps::doubled{} | user_steps::size_of{};
  CHECK(mixed(std::vector<double>{5, -5}) == 2.0);
}

static_assert(privet::transformation<privet::clamp<double>>);
static_assert(privet::transformation<privet::count>);
static_assert(!privet::measurement<privet::count>);
static_assert(privet::measurement<l1_archetype>);

TEST_CASE("clamp | bounded_sum | L1 measurement: guarantee computed from stabilities") {
  privet::testing::seeded_release_generator gen(1);
  auto p = privet::clamp(0.0, 10.0) | privet::bounded_sum(0.0, 10.0, 100) | l1_archetype{20.0};
  static_assert(std::same_as<privet::guarantee_t<decltype(p)>, privet::pure_dp>);
  CHECK(p(std::vector<double>{-5, 3, 50}, gen) == 13.0);
  // Sensitivity 10 (plus the proven rounding margin) over scale 20.
  CHECK(p.guarantee(1).epsilon() == doctest::Approx(0.5).epsilon(1e-12));
  CHECK(p.guarantee(1).epsilon() >= 0.5);
  CHECK(p.guarantee(2).epsilon() == doctest::Approx(1.0).epsilon(1e-12));
}

TEST_CASE("clamp | bounded_sum(0, 1, 100): neighbours at the data boundaries both release") {
  // Issue 22, finding 2: 100 records released and 101 threw. Every pair
  // below runs without an exception, and the outputs (the archetype adds no
  // noise) differ by at most the stability the guarantee is computed from.
  privet::seeded_generator gen(3);
  const auto t = privet::clamp(0.0, 1.0) | privet::bounded_sum(0.0, 1.0, 100);
  const auto p = t | l1_archetype{1.0};
  const auto check_pair = [&](std::vector<double> d, double extra) {
    const double without = p(d, gen);
    d.push_back(extra);
    const double with = p(d, gen);
    CHECK(std::fabs(with - without) <= t.stability(1));
  };
  check_pair(std::vector<double>(100, 1.0), 1.0);  // max_records vs max_records + 1
  check_pair(std::vector<double>(100, 0.5), 1.0);  // more records, sum below the cap
  check_pair(std::vector<double>(5, 0.5), std::numeric_limits<double>::quiet_NaN());
  check_pair(std::vector<double>(5, 0.5), std::numeric_limits<double>::infinity());
  check_pair(std::vector<double>(5, 0.5), -1e300);
  check_pair({}, 2.0);
  CHECK(p(std::vector<double>(101, 1.0), gen) == 100.0);
  CHECK(p.guarantee(1).epsilon() >= 1.0);
  CHECK(p.guarantee(1).epsilon() < 1.0 + 1e-12);
}

TEST_CASE("bound_contributions | count | L2 measurement: per-unit guarantee") {
  privet::testing::seeded_release_generator gen(2);
  using record = privet::unit_record<int, int>;
  std::vector<record> records;
  for (int u = 0; u < 5; ++u)
    for (int i = 0; i < 10; ++i) records.push_back({u, i});
  auto p = privet::bound_contributions<int, int>(3) | privet::count{} | l2_archetype{6.0};
  static_assert(std::same_as<privet::guarantee_t<decltype(p)>, privet::gdp>);
  static_assert(std::same_as<decltype(p)::input_metric, privet::unit_distance>);
  CHECK(p(records, gen) == 15.0);     // 5 units, 3 records each kept
  CHECK(p.guarantee(1).mu() == 0.5);  // one unit moves the count by 3; 3 / 6
  CHECK(p.guarantee(4).mu() == 2.0);
}

TEST_CASE("transformations chain without a mechanism") {
  auto t = privet::clamp(0.0, 1.0) | privet::count{};
  static_assert(privet::transformation<decltype(t)>);
  CHECK(t(std::vector<double>{1, 2, 3}) == 3);
  CHECK(t.stability(2) == 2.0);
}
