// The Gauss-Legendre rule that replaced Boost.Math's in analytic_gaussian:
// nodes and weights against Abramowitz & Stegun (1964), Table 25.4, and
// exactness on polynomials of degree 2N - 1.
#include <privet/core/detail/gauss_legendre.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>

TEST_CASE("gauss_legendre: 5 points match Abramowitz & Stegun Table 25.4") {
  const auto& r = privet::detail::gauss_legendre<5>();
  // A & S Table 25.4, n = 5 (nodes +-x_i, weights w_i).
  CHECK(r.nodes[2] == 0.0);
  CHECK(r.weights[2] == doctest::Approx(128.0 / 225).epsilon(1e-15));
  CHECK(r.nodes[3] == doctest::Approx(0.538469310105683091036).epsilon(1e-15));
  CHECK(r.weights[3] == doctest::Approx(0.478628670499366468041).epsilon(1e-15));
  CHECK(r.nodes[4] == doctest::Approx(0.906179845938663992798).epsilon(1e-15));
  CHECK(r.weights[4] == doctest::Approx(0.236926885056189087514).epsilon(1e-15));
  CHECK(r.nodes[0] == -r.nodes[4]);
  CHECK(r.weights[0] == r.weights[4]);
}

TEST_CASE("gauss_legendre: 20 points match Abramowitz & Stegun Table 25.4") {
  const auto& r = privet::detail::gauss_legendre<20>();
  // Innermost and outermost pairs of A & S Table 25.4, n = 20.
  CHECK(r.nodes[10] == doctest::Approx(0.076526521133497333755).epsilon(1e-15));
  CHECK(r.weights[10] == doctest::Approx(0.152753387130725850698).epsilon(1e-15));
  CHECK(r.nodes[19] == doctest::Approx(0.993128599185094924786).epsilon(1e-15));
  CHECK(r.weights[19] == doctest::Approx(0.017614007139152118312).epsilon(1e-14));
  double total = 0;
  for (double w : r.weights) total += w;
  CHECK(total == doctest::Approx(2.0).epsilon(1e-15));
}

TEST_CASE("gauss_legendre: N points integrate x^k exactly for k <= 2N - 1, not 2N") {
  const auto& r = privet::detail::gauss_legendre<20>();
  for (int k = 0; k <= 39; ++k) {
    const double exact = k % 2 == 1 ? 0.0 : 2.0 / (k + 1);
    const double got = r.integrate([k](double x) { return std::pow(x, k); });
    CAPTURE(k);
    CHECK(std::fabs(got - exact) <= 1e-15);  // a few ulps of the weights' sum, 2
  }
  // Degree 2N is where the rule stops being exact: the error is the rule's
  // known remainder, far above rounding.
  const double got40 = r.integrate([](double x) { return std::pow(x, 40); });
  CHECK(std::fabs(got40 - 2.0 / 41) > 1e-12);
}
