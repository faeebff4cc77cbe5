#include <privet/core/pipeline.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/transformations/clipped_sum.hpp>
#include <privet/core/transformations/count.hpp>
#include <privet/core/transformations/metric_cast.hpp>
#include <privet/mechanisms/gaussian.hpp>
#include <privet/sketches/contribution_bounding.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

using privet::gaussian_mechanism;

TEST_CASE("Gaussian from scale: rho = D^2 / (2 sigma^2) up to the grid step") {
  const auto m = gaussian_mechanism<>::from_scale(4.0);
  CHECK(m.sigma() >= 4.0);
  CHECK(m.sigma() <= 4.0 * (1 + 1e-9));
  const double rho = m.guarantee(2.0).rho();
  CHECK(rho >= 0.125);
  CHECK(rho == doctest::Approx(0.125).epsilon(1e-5));
  const auto sim = gaussian_mechanism<double, privet::simulation_only_noise>::from_scale(4.0);
  CHECK(sim.guarantee(2.0).rho() == 0.125);
}

TEST_CASE("Gaussian calibrated to a zCDP target never exceeds it") {
  for (double rho : {0.001, 0.015, 0.5, 2.0})
    for (double sens : {1.0, 3.0, 0.01}) {
      for (std::size_t dim : {1u, 10u}) {
        const auto m = gaussian_mechanism<>::from_guarantee(privet::zcdp(rho), sens, dim);
        CHECK(m.guarantee(sens).rho() <= rho);
        CHECK(m.guarantee(sens).rho() >= rho * (1 - 1e-4));
      }
    }
}

TEST_CASE("Gaussian calibration near a power-of-two sigma stays in the sampler's range") {
  // sigma0 = 1 / sqrt(2 rho) just below 2^k: the grid slack pushes sigma / g
  // over 2^21, which used to overflow the sampler's 62-bit sigma^2.
  for (double sigma0 : {std::nextafter(1.0, 0.0), std::nextafter(1024.0, 0.0), 0.999999}) {
    const double rho = 1 / (2 * sigma0 * sigma0);
    const auto m = gaussian_mechanism<>::from_guarantee(privet::zcdp(rho), 1.0, 1000);
    CHECK(m.guarantee(1.0).rho() <= rho);
  }
}

TEST_CASE("Gaussian noise variance matches sigma^2 (coarse check)") {
  // Sample variance of 20000 normals has relative sd sqrt(2/20000) = 1%; a
  // 6% band fails with probability < 1e-8.
  privet::seeded_generator gen(5);
  const auto m = gaussian_mechanism<>::from_scale(2.5);
  double sum = 0, sum2 = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const double z = m(0.0, gen);
    sum += z;
    sum2 += z * z;
  }
  CHECK(sum2 / n - (sum / n) * (sum / n) == doctest::Approx(6.25).epsilon(0.06));
}

TEST_CASE("pipeline bound_contributions | count | Gaussian: per-user guarantee") {
  privet::seeded_generator gen(6);
  std::vector<privet::unit_record<int, int>> records;
  for (int u = 0; u < 100; ++u)
    for (int i = 0; i < 5; ++i) records.push_back({u, i});
  auto p = privet::bound_contributions<int, int>(2) | privet::count{} |
           gaussian_mechanism<>::from_guarantee(privet::zcdp(0.1), 2.0);
  static_assert(std::same_as<privet::guarantee_t<decltype(p)>, privet::zcdp>);
  CHECK(p.guarantee(1).rho() <= 0.1);
  CHECK(p.guarantee(2).rho() == doctest::Approx(0.4).epsilon(1e-4));  // two users: 4x
  CHECK(std::fabs(p(records, gen) - 200.0) < 6 * 5.0);
}

TEST_CASE("vector pipeline: clipped_sum<l2> | Gaussian, and L1 only via a named cast") {
  privet::seeded_generator gen(7);
  auto p =
      privet::clipped_sum<privet::l2_distance>(3, 1.0) | gaussian_mechanism<>::from_scale(2.0, 3);
  CHECK(p(std::vector<std::vector<double>>{{1, 0, 0}, {0, 5, 0}}, gen).size() == 3);
  auto q = privet::clipped_sum<privet::l1_distance>(3, 1.0) | privet::l1_as_l2() |
           gaussian_mechanism<>::from_scale(2.0, 3);
  CHECK(q.guarantee(1).rho() == doctest::Approx(p.guarantee(1).rho()));
}

TEST_CASE("Gaussian rejects bad parameters with clear messages") {
  CHECK_THROWS_WITH_AS(gaussian_mechanism<>::from_scale(-1),
                       "privet: sigma = -1 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(gaussian_mechanism<>::from_guarantee(privet::zcdp(0.1), 0),
                       "privet: l2_sensitivity = 0 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(gaussian_mechanism<>::from_scale(1, 0),
                       "privet: dimension = 0 is invalid; allowed: >= 1",
                       privet::invalid_parameter);
}
