// Stable softmax, log-softmax, cross-entropy and log-sigmoid: hand-computed
// values, extreme logits that overflow a naive formula, and the gradient
// against finite differences.
#include <privet/ml/softmax.hpp>

#include <support/errors.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

TEST_CASE_TEMPLATE("log_sigmoid and sigmoid are accurate at both extremes", Real, float, double) {
  using privet::ml::log_sigmoid;
  using privet::ml::sigmoid;
  CHECK(log_sigmoid<Real>(0) == doctest::Approx(-std::log(2.0)));
  CHECK(sigmoid<Real>(0) == Real(0.5));
  // log sigma(-1000) = -1000 - log(1 + e^-1000) = -1000 exactly in floating point;
  // the naive log(1 / (1 + e^1000)) is log(0) = -inf.
  CHECK(log_sigmoid<Real>(-1000) == Real(-1000));
  // log sigma(40) = -log1p(e^-40) ~ -4.248e-18: not rounded to 0.
  CHECK(log_sigmoid<double>(40) == doctest::Approx(-std::exp(-40.0)).epsilon(1e-12));
  CHECK(sigmoid<Real>(-1000) == Real(0));
  CHECK(sigmoid<Real>(1000) == Real(1));
  CHECK(sigmoid<double>(2) == doctest::Approx(1 / (1 + std::exp(-2.0))));
  CHECK(std::isfinite(log_sigmoid<Real>(-std::numeric_limits<Real>::max())));
}

TEST_CASE("softmax and log_softmax of hand-computed rows") {
  const xt::xtensor<double, 2> z{{0, std::log(3.0)}, {1000, 1000}};
  const auto p = privet::ml::softmax(z);
  CHECK(p(0, 0) == doctest::Approx(0.25));
  CHECK(p(0, 1) == doctest::Approx(0.75));
  // Logits of 1000 overflow a naive exp: the shift keeps them exact.
  CHECK(p(1, 0) == doctest::Approx(0.5));
  const auto lp = privet::ml::log_softmax(z);
  CHECK(lp(0, 1) == doctest::Approx(std::log(0.75)));
  CHECK(lp(1, 1) == doctest::Approx(-std::log(2.0)));
}

TEST_CASE("softmax_cross_entropy: loss and gradient") {
  const xt::xtensor<double, 2> z{{1, 2, 3}, {-500, 0, 500}};
  const std::vector<int> y{0, 2};
  const auto r = privet::ml::softmax_cross_entropy(z, y);
  // Row 0: -log(e / (e + e^2 + e^3)) = log(1 + e + e^2).
  CHECK(r.loss(0) == doctest::Approx(std::log(1 + std::exp(1.0) + std::exp(2.0))));
  // Row 1: a confident correct prediction has loss log(1 + e^-500 + e^-1000) ~ 0.
  CHECK(r.loss(1) == doctest::Approx(0.0));
  CHECK(r.loss(1) >= 0);
  const auto only = privet::ml::softmax_cross_entropy_loss(z, y);
  CHECK(only(0) == r.loss(0));
  CHECK(only(1) == r.loss(1));
  // Gradient against central differences.
  const double h = 1e-6;
  for (std::size_t c = 0; c < 3; ++c) {
    auto zp = z, zm = z;
    zp(0, c) += h;
    zm(0, c) -= h;
    const double fd = (privet::ml::softmax_cross_entropy_loss(zp, y)(0) -
                       privet::ml::softmax_cross_entropy_loss(zm, y)(0)) /
                      (2 * h);
    CHECK(r.grad(0, c) == doctest::Approx(fd).epsilon(1e-7));
  }
  // Each gradient row sums to 0 (probabilities minus a one-hot vector).
  CHECK(r.grad(1, 0) + r.grad(1, 1) + r.grad(1, 2) == doctest::Approx(0.0));
}

TEST_CASE("softmax_cross_entropy rejects bad labels and non-finite logits") {
  const xt::xtensor<double, 2> z{{1, 2}};
  try {
    (void)privet::ml::softmax_cross_entropy(z, std::vector<int>{2});
    FAIL("no throw");
  } catch (const privet::invalid_parameter& e) {
    CHECK(std::string(e.what()) ==
          "privet: label = 2 is invalid; allowed: a class index in [0, 2)");
  }
  CHECK(privet::test::rejected_parameter(
            [&] { (void)privet::ml::softmax_cross_entropy(z, std::vector<int>{-1}); }) == "label");
  CHECK(privet::test::rejected_parameter([&] {
          (void)privet::ml::softmax_cross_entropy(z, std::vector<int>{0, 1});
        }) == "labels.size()");
  const xt::xtensor<double, 2> bad{{1, std::numeric_limits<double>::quiet_NaN()}};
  CHECK(privet::test::rejected_parameter([&] { (void)privet::ml::softmax(bad); }) == "logits");
}

TEST_CASE("softmax messages name the argument, its value and the allowed range") {
  using privet::invalid_parameter;
  const xt::xtensor<double, 2> no_class = xt::zeros<double>({std::size_t{1}, std::size_t{0}});
  CHECK_THROWS_WITH_AS((void)privet::ml::log_softmax(no_class),
                       "privet: logits.shape(1) = 0 is invalid; allowed: >= 1 class",
                       invalid_parameter);
  const xt::xtensor<double, 2> bad{{1, std::numeric_limits<double>::infinity()}};
  CHECK_THROWS_WITH_AS((void)privet::ml::softmax(bad),
                       "privet: logits = inf is invalid; allowed: finite values (a non-finite "
                       "logit means training diverged)",
                       invalid_parameter);
  const xt::xtensor<double, 2> z{{1, 2}};
  CHECK_THROWS_WITH_AS((void)privet::ml::softmax_cross_entropy_loss(z, std::vector<int>{-1}),
                       "privet: label = -1 is invalid; allowed: a class index in [0, 2)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(
      (void)privet::ml::softmax_cross_entropy(z, std::vector<int>{0, 1}),
      "privet: labels.size() = 2 is invalid; allowed: one label per row of logits (1)",
      invalid_parameter);
}

// The branch-free forms against the two-sided formulas they replace (each
// side chosen by the sign, as before): equal bit for bit, at both signs,
// both zeros, tiny and huge magnitudes and NaN.
TEST_CASE_TEMPLATE("sigmoid and log_sigmoid without a branch equal the two-sided formulas", Real,
                   float, double) {
  using lim = std::numeric_limits<Real>;
  std::vector<Real> xs = {Real(0),       -Real(0),        lim::denorm_min(), -lim::denorm_min(),
                          lim::min(),    Real(1e-3),      Real(-0.7),        Real(3.25),
                          Real(-40),     Real(88),        Real(-700),        lim::max(),
                          lim::lowest(), lim::infinity(), -lim::infinity()};
  for (int i = -200; i <= 200; ++i) xs.push_back(static_cast<Real>(i) * Real(0.173));
  for (const Real x : xs) {
    CAPTURE(x);
    const Real s =
        x >= Real(0) ? Real(1) / (Real(1) + std::exp(-x)) : std::exp(x) / (Real(1) + std::exp(x));
    const Real ls = x >= Real(0) ? -std::log1p(std::exp(-x)) : x - std::log1p(std::exp(x));
    CHECK(privet::ml::sigmoid(x) == s);
    CHECK(privet::ml::log_sigmoid(x) == ls);
  }
  CHECK(std::isnan(privet::ml::sigmoid(lim::quiet_NaN())));
  CHECK(std::isnan(privet::ml::log_sigmoid(lim::quiet_NaN())));
}
