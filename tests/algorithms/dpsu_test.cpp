// DPSU (Gopi et al. 2020): calibration against independent computations of
// the analytic Gaussian, the zCDP conversion and rho_1; the contribution
// bound; the four update policies' norms; releases on small data; the
// accounting; determinism across threads; the documented errors.
#include <privet/algorithms/dpsu.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>

#include <doctest/doctest.h>
#include <boost/math/special_functions/erf.hpp>
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <support/errors.hpp>
#include <support/gaussian_reference.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <numbers>
#include <set>
#include <type_traits>
#include <vector>

namespace dpsu = privet::dpsu;
using privet::test::rejected_parameter;

namespace {

using privet::test::reference::analytic_sigma;
using privet::test::reference::quantile;
using privet::test::reference::rho_gauss;
long double zcdp_sigma(long double eps, long double delta) {
  return privet::test::reference::zcdp_sigma(eps, delta, 1.0005L);
}

// Records every user's kept items instead of updating: checks the bound.
struct recording_policy {
  static constexpr dpsu::update_norm norm = dpsu::update_norm::l2;
  static constexpr bool sequential = true;
  std::vector<std::size_t>* sizes;
  template <class Key>
  void update(std::span<const Key> items, privet::sparse_histogram<Key, std::int64_t>& h,
              const dpsu::update_context&) const {
    sizes->push_back(items.size());
    std::set<Key> distinct(items.begin(), items.end());
    CHECK(distinct.size() == items.size());
    for (const Key& k : items) h.add(k, 1);
  }
  [[nodiscard]] double cutoff(double rho, double) const { return rho; }
};
static_assert(dpsu::update_policy<recording_policy>);
static_assert(dpsu::update_policy<dpsu::weighted_gaussian>);
static_assert(dpsu::update_policy<dpsu::weighted_laplace>);
static_assert(dpsu::update_policy<dpsu::policy_gaussian>);
static_assert(dpsu::update_policy<dpsu::policy_laplace>);
static_assert(!dpsu::update_policy<int>);

}  // namespace

TEST_CASE("sigma and rho_1 match independent computations (simulation: analytic Gaussian)") {
  for (const auto& point :
       {std::tuple{4.0, 1e-7, std::uint64_t{100}}, std::tuple{1.0, 1e-6, std::uint64_t{10}},
        std::tuple{8.0, 1e-9, std::uint64_t{300}}}) {
    const double eps = std::get<0>(point), delta = std::get<1>(point);
    const std::uint64_t items = std::get<2>(point);
    const dpsu::set_union<dpsu::weighted_gaussian, privet::simulation_only_noise> su(
        dpsu::parameters{eps, delta, items, 1});
    const long double sigma = analytic_sigma(eps, delta / 2);
    INFO("eps = " << eps << ", delta = " << delta);
    CHECK(su.noise().scale() >= sigma * (1 - 1e-11L));
    CHECK(su.noise().scale() <= sigma * (1 + 1e-9L));
    const long double rho = rho_gauss(items, su.noise().scale(), delta / 2);
    CHECK(su.threshold() >= rho);
    CHECK(su.threshold() <= rho * (1 + 1e-8L));
    // Spent: (eps, delta) up to rounding, never above.
    const auto g = su.guarantee();
    CHECK(g.epsilon() <= eps);
    CHECK(g.epsilon() >= eps * (1 - 1e-6));
    CHECK(g.delta() <= delta * (1 + 1e-15));
  }
}

TEST_CASE("sigma matches the zCDP conversion for the discrete Gaussian (secure noise)") {
  const dpsu::set_union<> su(dpsu::parameters{4, 1e-7, 100, 1});
  const long double sigma = zcdp_sigma(4, 5e-8);
  CHECK(su.noise().scale() >= sigma * (1 - 1e-6L));
  CHECK(su.noise().scale() <= sigma * (1 + 1e-6L));
  CHECK(su.threshold() >= rho_gauss(100, su.noise().scale(), 5e-8));
  CHECK(su.guarantee().epsilon() <= 4);
  CHECK(su.guarantee().epsilon() >= 4 * (1 - 1e-6));
  // The secure noise needs about 5 % more than the continuous analytic one.
  const dpsu::set_union<dpsu::weighted_gaussian, privet::simulation_only_noise> sim(
      dpsu::parameters{4, 1e-7, 100, 1});
  CHECK(su.noise().scale() > sim.noise().scale());
  CHECK(su.noise().scale() < 1.1 * sim.noise().scale());
  // 2^20 to 2^21 fixed-point units per standard deviation.
  CHECK(su.noise().scale_units() >= 0x1p20);
  CHECK(su.noise().scale_units() < 0x1p21 * (1 + 1e-12));
}

TEST_CASE("Laplace policies: scale 1/eps and the Laplace threshold at the whole delta") {
  // The exact samplers: the constant-time ones add their share to delta
  // (dpsu_constant_time_test.cpp).
  const dpsu::set_union<dpsu::weighted_laplace, privet::secure_noise> su(
      dpsu::parameters{2, 1e-6, 50, 1});
  CHECK(su.noise().scale() == doctest::Approx(0.5).epsilon(1e-9));
  CHECK(su.noise().scale() >= 0.5);
  CHECK(su.threshold() >= privet::set_union_laplace_threshold(50, 0.5, 1e-6));
  CHECK(su.guarantee().epsilon() <= 2);
  CHECK(su.guarantee().delta() == 1e-6);
  CHECK(rejected_parameter([] {
          dpsu::set_union<dpsu::weighted_laplace>(dpsu::parameters{2, 0.6, 50, 1});
        }) == "delta");
}

TEST_CASE("a user's contribution never exceeds max_items distinct items after bounding") {
  // User u holds 3u + 1 items with repeats; the bound is 7.
  std::vector<std::size_t> sizes;
  const recording_policy policy{&sizes};
  const std::size_t users = 2500;  // more than two chunks
  const auto h = dpsu::accumulate<std::uint64_t>(
      policy, users,
      [](std::size_t u, std::vector<std::uint64_t>& out) {
        for (std::size_t i = 0; i < 3 * u + 1; ++i) {
          out.push_back(i % 1000);
          out.push_back(i % 1000);  // a repeat counts once
        }
      },
      7, dpsu::update_context{10, 0}, 1234, 1);
  REQUIRE(sizes.size() == users);
  std::size_t total = 0;
  for (std::size_t u = 0; u < users; ++u) total += sizes[u];
  for (auto s : sizes) CHECK(s <= 7);
  // Users 0 and 1 hold 1 and 4 distinct items: kept whole.
  CHECK(std::count(sizes.begin(), sizes.end(), 1u) == 1);
  CHECK(std::count(sizes.begin(), sizes.end(), 4u) == 1);
  std::int64_t sum = 0;
  for (const auto& [k, c] : h) sum += c;
  CHECK(static_cast<std::size_t>(sum) == total);
}

TEST_CASE("weighted policies: exact fixed-point weights and norms") {
  // Three users with 1, 4 and 9 distinct items.
  const std::vector<std::vector<int>> users{{1}, {1, 2, 3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9}};
  const dpsu::update_context ctx{20, 0};
  auto emit = [&](std::size_t u, std::vector<int>& out) {
    out.insert(out.end(), users[u].begin(), users[u].end());
  };
  const auto g = dpsu::accumulate<int>(dpsu::weighted_gaussian{}, 3, emit, 100, ctx, 1, 1);
  const std::int64_t one = std::int64_t{1} << 20;
  // floor(2^20 / sqrt(m)): m = 1, 4, 9 are exact.
  CHECK(g[1] == one + one / 2 + one / 3);
  CHECK(g[2] == one / 2 + one / 3);
  CHECK(g[9] == one / 3);
  const auto l = dpsu::accumulate<int>(dpsu::weighted_laplace{}, 3, emit, 100, ctx, 1, 1);
  CHECK(l[1] == one + one / 4 + one / 9);
  CHECK(l[9] == one / 9);
}

TEST_CASE("descent policies: updates within norm 1, towards the cutoff") {
  const dpsu::update_context ctx{16, 5 << 16};  // Gamma = 5
  const std::int64_t one = 1 << 16;
  privet::sparse_histogram<int, std::int64_t> h;
  h.add(1, 5 * one);        // at the cutoff: untouched
  h.add(2, 5 * one - 100);  // 100 units short
  const std::vector<int> items{1, 2, 3, 4};
  SUBCASE("policy Gaussian: L2 norm <= 1, along Gamma - H") {
    dpsu::policy_gaussian{}.update(std::span<const int>(items), h, ctx);
    CHECK(h[1] == 5 * one);
    const double d2 = 100 - (5 * one - h[2]);
    const double d3 = static_cast<double>(h[3]), d4 = static_cast<double>(h[4]);
    CHECK(d2 * d2 + d3 * d3 + d4 * d4 <= static_cast<double>(one) * one);
    CHECK(d2 * d2 + d3 * d3 + d4 * d4 >= static_cast<double>(one) * one * (1 - 1e-4));
    CHECK(d3 == d4);
    // The step is proportional to the gaps (100 : 5 2^16).
    CHECK(d2 / d3 == doctest::Approx(100.0 / (5 * one)).epsilon(1e-3));
    // A user whose gaps all fit in the budget fills them exactly.
    privet::sparse_histogram<int, std::int64_t> near;
    near.add(7, 5 * one - 10);
    const std::vector<int> seven{7};
    dpsu::policy_gaussian{}.update(std::span<const int>(seven), near, ctx);
    CHECK(near[7] == 5 * one);
  }
  SUBCASE("policy Laplace: L1 norm <= 1, water-filled") {
    dpsu::policy_laplace{}.update(std::span<const int>(items), h, ctx);
    CHECK(h[1] == 5 * one);
    CHECK(h[2] == 5 * one);  // its small gap filled first
    const std::int64_t rest = one - 100;
    // The other two rise by the same lambda = floor(rest / 2).
    CHECK(h[3] == rest / 2);
    CHECK(h[4] == rest / 2);
  }
}

TEST_CASE_TEMPLATE("releases: shared items pass, items of one user do not", Noise,
                   privet::secure_noise, privet::constant_time_noise) {
  // 3000 users share item 0; user u also holds a private item 1000 + u.
  // Fixed seed: each of the 3000 private items passes with probability
  // below the threshold's delta (5e-8 for the Gaussian policies, 1e-7 for
  // Laplace) and item 0 misses with probability below 1e-6 (alpha = 6 and
  // 15 for the descent policies), so a correct build fails with probability
  // below 2 (3000 5e-8) + 2 (3000 1e-7) + 4e-6, about 1e-3 per policy (the
  // constant-time samplers add their distance, under 2^-100 a draw).
  std::vector<std::vector<int>> users(3000);
  for (int u = 0; u < 3000; ++u) users[static_cast<std::size_t>(u)] = {0, 1000 + u};
  privet::testing::seeded_release_generator gen(5);
  const dpsu::parameters p{4, 1e-7, 10, 2};
  const auto check = [&](const auto& su) {
    const auto r = su(users, gen);
    CHECK(r.support == 3001);
    // Item 0 has weight 3000 / sqrt(2) ~ 2121 >> rho; each private item has
    // 1 / sqrt(2) and passes with probability below delta / 2.
    REQUIRE(r.items.size() == 1);
    CHECK(r.items[0] == 0);
  };
  check(dpsu::set_union<dpsu::weighted_gaussian, Noise>(p));
  if constexpr (std::is_same_v<Noise, privet::secure_noise>) {
    check(dpsu::set_union<dpsu::weighted_gaussian, privet::simulation_only_noise>(p));
  }
  check(dpsu::set_union<dpsu::weighted_laplace, Noise>(p));
  // Item 0 stops at the cutoff Gamma = rho + alpha scale; alpha = 6 (15 for
  // the heavier Laplace tail) keeps its miss below 1e-6.
  check(dpsu::set_union<dpsu::policy_gaussian, Noise>(p, dpsu::policy_gaussian{6}));
  check(dpsu::set_union<dpsu::policy_laplace, Noise>(p, dpsu::policy_laplace{15}));
}

TEST_CASE_TEMPLATE("a seeded run repeats, whatever the number of threads", Noise,
                   privet::secure_noise, privet::constant_time_noise) {
  std::vector<std::vector<std::uint32_t>> users(5000);
  for (std::uint32_t u = 0; u < 5000; ++u)
    for (std::uint32_t j = 0; j < 30; ++j) users[u].push_back((u * 7 + j * j) % 400);
  auto run = [&](unsigned threads) {
    privet::testing::seeded_release_generator gen(11);
    const dpsu::set_union<dpsu::weighted_gaussian, Noise> su(
        dpsu::parameters{2, 1e-6, 20, threads});
    return su(users, gen).items;
  };
  const auto one = run(1);
  CHECK(!one.empty());
  CHECK(run(2) == one);
  CHECK(run(3) == one);
}

TEST_CASE("with_noise: explicit noise and threshold delta, guarantee composed by the caller") {
  const auto su = dpsu::set_union<>::with_noise(3.0, 1e-8, 40);
  CHECK(su.noise().scale() >= 3.0);
  CHECK(su.noise().scale() <= 3.0 * (1 + 1e-12));
  CHECK(su.threshold_delta() == 1e-8);
  CHECK(su.threshold() >= rho_gauss(40, su.noise().scale(), 1e-8));
  // zCDP of the discrete Gaussian: rho = 1 / (2 sigma^2).
  CHECK(su.noise_guarantee().rho() == doctest::Approx(1 / 18.0).epsilon(1e-9));
  const auto g = su.guarantee(1e-8);
  CHECK(g.delta() == doctest::Approx(2e-8).epsilon(1e-12));
  CHECK(rejected_parameter([&] { (void)su.guarantee(); }) == "noise_delta");
}

TEST_CASE("pass_probability_bounds hold the exact tails at 50 digits, for every noise") {
  // Scale 1 puts one weight unit at 2^-20 and the noise at 2^20 units
  // (bits = 20 - ilogb(1)): the discrete Laplace's t = 2^20 exactly, so
  // P[Z >= k] = q^k / (1 + q), q = e^{-2^-20}, for k >= 1 and 1 - q^(1-k) /
  // (1 + q) below; the continuous Laplace's P[L > x] = e^{-x} / 2 for x >= 0
  // and 1 - e^x / 2 below, the normal's erfc(x / sqrt 2) / 2, x in scales.
  using big = boost::multiprecision::cpp_bin_float_50;
  using privet::secure_noise;
  using privet::simulation_only_noise;
  const dpsu::fixed_point_noise<dpsu::update_norm::l1, secure_noise> lap(1.0);
  const dpsu::fixed_point_noise<dpsu::update_norm::l1, simulation_only_noise> sim_lap(1.0);
  const dpsu::fixed_point_noise<dpsu::update_norm::l2, simulation_only_noise> sim_gauss(1.0);
  const dpsu::fixed_point_noise<dpsu::update_norm::l2, secure_noise> gauss(1.0);
  REQUIRE(lap.scale_bits() == 20);
  REQUIRE(lap.scale_units() == 0x1p20);
  const big unit = big(0x1p20);
  const big q = exp(-1 / unit);
  const auto check = [](const privet::probability_bounds& b, const big& want) {
    CHECK(big(b.lower) <= want);
    CHECK(want <= big(b.upper));
    CHECK(big(b.upper - b.lower) <= ldexp(want, -40) + 1e-4900L);
  };
  for (const double z : {-30.0, -3.0, -0.5, 0.0, 0.25, 1.0, 4.0, 20.0, 60.0}) {
    const auto tau = static_cast<std::int64_t>(std::llround(z * 0x1p20));
    for (const std::int64_t weight : {std::int64_t{0}, std::int64_t{3} << 18}) {
      const std::int64_t gap = tau - weight;
      INFO("z = " << z << ", weight = " << weight);
      // Passing is weight + noise > tau: noise >= gap + 1 for integer noise.
      const std::int64_t k = gap + 1;
      const big discrete = k >= 1 ? pow(q, k) / (1 + q) : 1 - pow(q, 1 - k) / (1 + q);
      check(lap.pass_probability_bounds(weight, tau), discrete);
      const big x = big(gap) / unit;
      check(sim_lap.pass_probability_bounds(weight, tau), x >= 0 ? exp(-x) / 2 : 1 - exp(x) / 2);
      check(sim_gauss.pass_probability_bounds(weight, tau),
            boost::math::erfc(x / sqrt(big(2))) / 2);
      // The discrete Gaussian's is the tail function's, at gap + 1.
      const auto g = gauss.pass_probability_bounds(weight, tau);
      const auto direct = privet::discrete_gaussian_upper_tail_bounds(
          privet::discrete_gaussian_distribution(gauss.scale_units()), k);
      CHECK(g.lower <= direct.upper);
      CHECK(direct.lower <= g.upper);
      CHECK(lap.pass_probability(weight, tau) ==
            static_cast<double>(lap.pass_probability_bounds(weight, tau).estimate));
    }
  }
  // Beyond 2^62 units the grid noises' tails are below every long double.
  const auto far = lap.pass_probability_bounds(0, std::numeric_limits<std::int64_t>::max());
  CHECK(far.lower == 0);
  CHECK(far.upper > 0);
  CHECK(far.upper < 1e-4000L);
}

TEST_CASE("parameters and scales are validated by name") {
  using su = dpsu::set_union<>;
  CHECK(rejected_parameter([] { su(dpsu::parameters{0, 1e-6, 10, 1}); }) == "epsilon");
  CHECK(rejected_parameter([] { su(dpsu::parameters{1, 0, 10, 1}); }) == "delta");
  CHECK(rejected_parameter([] { su(dpsu::parameters{1, 1, 10, 1}); }) == "delta");
  CHECK(rejected_parameter([] { su(dpsu::parameters{1, 1e-6, 0, 1}); }) == "max_items");
  CHECK(rejected_parameter([] { su(dpsu::parameters{1, 1e-6, 10, 0}); }) == "threads");
  CHECK(rejected_parameter([] { (void)su::with_noise(0, 1e-6, 10); }) == "scale");
  CHECK(rejected_parameter([] { (void)su::with_noise(1, 0, 10); }) == "threshold_delta");
  CHECK(rejected_parameter([] { (void)su::with_noise(1e12, 1e-6, 10); }) == "scale");
  CHECK(rejected_parameter([] {
          (void)dpsu::fixed_point_noise<dpsu::update_norm::l2, privet::secure_noise>(-1);
        }) == "scale");
  // The policies' alpha, named as the policy's (it was refused as `x`, the
  // argument of the unit conversion it reaches).
  const dpsu::parameters ok{1, 1e-6, 10, 1};
  for (const double alpha : {std::nan(""), std::numeric_limits<double>::infinity(), 1e300}) {
    CAPTURE(alpha);
    CHECK(rejected_parameter([&] {
            dpsu::set_union<dpsu::policy_gaussian>(ok, dpsu::policy_gaussian{alpha});
          }) == "policy.alpha");
    CHECK(rejected_parameter([&] {
            dpsu::set_union<dpsu::policy_laplace>(ok, dpsu::policy_laplace{-alpha});
          }) == "policy.alpha");
  }
  try {
    su(dpsu::parameters{-1, 1e-6, 10, 1});
    FAIL("expected invalid_parameter");
  } catch (const privet::invalid_parameter& e) {
    CHECK(std::string(e.what()).find("allowed: finite and > 0") != std::string::npos);
  }
}

TEST_CASE("DPSU messages name the parameter, its value and the allowed range") {
  using privet::invalid_parameter;
  using su = dpsu::set_union<>;
  CHECK_THROWS_WITH_AS(su(dpsu::parameters{0, 1e-6, 10, 1}),
                       "privet: epsilon = 0 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(su(dpsu::parameters{1, 1, 10, 1}),
                       "privet: delta = 1 is invalid; allowed: (0, 1)", invalid_parameter);
  CHECK_THROWS_WITH_AS(su(dpsu::parameters{1, 1e-6, 0, 1}),
                       "privet: max_items = 0 is invalid; allowed: >= 1", invalid_parameter);
  CHECK_THROWS_WITH_AS(su(dpsu::parameters{1, 1e-6, 10, 0}),
                       "privet: threads = 0 is invalid; allowed: >= 1", invalid_parameter);
  CHECK_THROWS_WITH_AS(dpsu::set_union<dpsu::weighted_laplace>(dpsu::parameters{2, 0.6, 50, 1}),
                       "privet: delta = 0.6 is invalid; allowed: (0, 0.5) for the Laplace policies",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((void)su::with_noise(0, 1e-6, 10),
                       "privet: scale = 0 is invalid; allowed: finite and > 0", invalid_parameter);
  CHECK_THROWS_WITH_AS((void)su::with_noise(1, 0, 10),
                       "privet: threshold_delta = 0 is invalid; allowed: (0, 1)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((void)su::with_noise(1, 1e-6, 0),
                       "privet: max_items = 0 is invalid; allowed: >= 1", invalid_parameter);
  CHECK_THROWS_WITH_AS((void)su::with_noise(1, 1e-6, 10, 0),
                       "privet: threads = 0 is invalid; allowed: >= 1", invalid_parameter);
  CHECK_THROWS_WITH_AS(
      (void)su::with_noise(1e12, 1e-6, 10),
      "privet: scale = 1e+12 is invalid; allowed: finite, > 0 and below about 2^31",
      invalid_parameter);
  // with_noise names its own threshold_delta, not the Laplace bound's
  // `delta` (docs/error_audit.md, finding 11); 0.5 is the first refused.
  CHECK_THROWS_WITH_AS(
      (void)dpsu::set_union<dpsu::weighted_laplace>::with_noise(1, 0.6, 10),
      "privet: threshold_delta = 0.6 is invalid; allowed: (0, 0.5) for the Laplace policies",
      invalid_parameter);
  CHECK_THROWS_WITH_AS(
      (void)dpsu::set_union<dpsu::policy_laplace>::with_noise(1, 0.5, 10),
      "privet: threshold_delta = 0.5 is invalid; allowed: (0, 0.5) for the Laplace policies",
      invalid_parameter);
  CHECK_NOTHROW((void)dpsu::set_union<dpsu::weighted_laplace>::with_noise(1, 0.49, 10));
  CHECK_NOTHROW((void)su::with_noise(1, 0.6, 10));  // the Gaussian bound takes (0, 1)
  CHECK_THROWS_WITH_AS((void)dpsu::gaussian_sigma<privet::secure_noise>(privet::approx_dp(0, 1e-6)),
                       "privet: target.epsilon = 0 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(
      (void)dpsu::gaussian_sigma<privet::simulation_only_noise>(privet::approx_dp(1, 0)),
      "privet: target.delta = 0 is invalid; allowed: (0, 1)", invalid_parameter);
  const auto made = su::with_noise(3.0, 1e-8, 40);
  CHECK_THROWS_WITH_AS((void)made.guarantee(),
                       "privet: noise_delta = nan is invalid; allowed: a run calibrated from "
                       "parameters (with_noise runs: call guarantee(noise_delta))",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((void)made.guarantee(0),
                       "privet: noise_delta = 0 is invalid; allowed: (0, 1)", invalid_parameter);
  const dpsu::fixed_point_noise<dpsu::update_norm::l2, privet::simulation_only_noise> noise(1.0);
  REQUIRE(noise.scale_bits() == 20);
  CHECK_THROWS_WITH_AS((void)noise.to_units(std::nan("")),
                       "privet: x = nan is invalid; allowed: a finite number", invalid_parameter);
  CHECK_THROWS_WITH_AS((void)noise.to_units(1e300),
                       "privet: threshold 1e+300 in units of 2^-20 does not fit int64; allowed: "
                       "|x| 2^b < 2^63",
                       privet::overflow_error);
  const auto emit = [](std::size_t, std::vector<int>& out) { out.push_back(1); };
  CHECK_THROWS_WITH_AS((void)dpsu::accumulate<int>(dpsu::weighted_gaussian{}, 1, emit, 0,
                                                   dpsu::update_context{10, 0}, 1, 1),
                       "privet: max_items = 0 is invalid; allowed: >= 1", invalid_parameter);
  CHECK_THROWS_WITH_AS((void)dpsu::accumulate<int>(dpsu::weighted_gaussian{}, 1, emit, 1,
                                                   dpsu::update_context{10, 0}, 1, 0),
                       "privet: threads = 0 is invalid; allowed: >= 1", invalid_parameter);
}
