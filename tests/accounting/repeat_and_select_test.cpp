// Repeat-and-select (Papernot & Steinke 2022): the truncated negative
// binomial's mean against a direct sum of its probabilities, the bounds
// against the exact Renyi divergences of a small repeated mechanism
// (brute force), and the published closed forms (Corollaries 3 and 4 and
// the Poisson formula that dp_accounting's rdp_privacy_accountant_test.py
// checks).
#include <privet/accounting/repeat_and_select.hpp>

#include <doctest/doctest.h>
#include <support/renyi.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <vector>

namespace {

const double inf = std::numeric_limits<double>::infinity();

// The output distribution of the best (largest) of K runs of a mechanism
// with output distribution `base` on 0, 1, ..., n - 1, K with probability
// generating function g; the last entry is "nothing" (K = 0), g(0).
std::vector<double> best_of(const std::vector<double>& base,
                            const std::function<double(double)>& g) {
  std::vector<double> out;
  double cdf = 0, prev = g(0);
  for (double b : base) {
    cdf += b;
    const double now = g(std::min(cdf, 1.0));
    out.push_back(now - prev);
    prev = now;
  }
  out.push_back(g(0));
  return out;
}

}  // namespace

TEST_CASE("truncated negative binomial mean: closed forms and a direct sum") {
  for (double gamma : {1e-3, 0.1, 0.5, 0.9, 0.999999}) {
    CAPTURE(gamma);
    CHECK(privet::truncated_negative_binomial_mean(gamma, 1) == doctest::Approx(1 / gamma));
    CHECK(privet::truncated_negative_binomial_mean(gamma, 0) ==
          doctest::Approx((1 - gamma) / (gamma * std::log(1 / gamma))).epsilon(1e-9));
    for (double eta : {0.5, 2.0, 5.0}) {
      CAPTURE(eta);
      const double closed = eta * (1 / gamma - 1) / (1 - std::pow(gamma, eta));
      CHECK(privet::truncated_negative_binomial_mean(gamma, eta) ==
            doctest::Approx(closed).epsilon(1e-10));
      if (gamma < 0.05) continue;  // the direct sum below needs a fast decay
      // Direct: weights C(k + eta - 1, k) (1 - gamma)^k for k >= 1.
      double w = 1, mass = 0, first = 0;
      for (int k = 1; k < 20000; ++k) {
        w *= (k + eta - 1) / k * (1 - gamma);
        mass += w;
        first += k * w;
      }
      CHECK(privet::truncated_negative_binomial_mean(gamma, eta) ==
            doctest::Approx(first / mass).epsilon(1e-9));
    }
  }
  CHECK(privet::truncated_negative_binomial_mean(1.0, 3.0) == 1);
  // The inverse, rounded down: its mean is >= the target and close to it.
  for (double eta : {0.0, 0.5, 1.0, 2.0}) {
    for (double mean : {1.0, 1.5, 10.0, 1e4, 1e9}) {
      const double g = privet::truncated_negative_binomial_gamma(eta, mean);
      CAPTURE(eta);
      CAPTURE(mean);
      CHECK(privet::truncated_negative_binomial_mean(g, eta) >= mean);
      CHECK(privet::truncated_negative_binomial_mean(g, eta) ==
            doctest::Approx(mean).epsilon(1e-9));
    }
  }
  CHECK_THROWS_WITH_AS(privet::truncated_negative_binomial_gamma(1.0, 0.5),
                       "privet: mean = 0.5 is invalid; allowed: finite and >= 1",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::rdp_repeat_and_select(privet::rdp({2.0}, {1.0}), 2, -1),
                       "privet: shape = -1 is invalid; allowed: >= 0 (+inf: Poisson)",
                       privet::invalid_parameter);
}

TEST_CASE("repeat-and-select bounds the exact divergence of a repeated mechanism") {
  // A three-outcome mechanism on two neighbours; the released run is the
  // largest output. Its curve (both directions) by brute force, then the
  // best-of-K output distributions for each K distribution and their exact
  // divergences, which the bound must not undercut.
  const std::vector<double> p{0.2, 0.3, 0.5}, q{0.35, 0.3, 0.35};
  std::vector<double> orders{1.0, 1.25, 1.5, 2.0, 3.0, 5.0, 10.0, 30.0, inf};
  std::vector<double> eps;
  for (double a : orders)
    eps.push_back(
        std::max(privet::test::renyi_divergence(p, q, a), privet::test::renyi_divergence(q, p, a)));
  const privet::rdp single(orders, eps);
  for (double mean : {1.0, 2.0, 5.0, 30.0}) {
    for (double shape : {0.0, 0.5, 1.0, 3.0, inf}) {
      std::function<double(double)> g;
      if (mean == 1 && !std::isinf(shape)) {
        g = [](double s) { return s; };  // K = 1
      } else if (std::isinf(shape)) {
        g = [&](double s) { return std::exp(mean * (s - 1)); };
      } else {
        const double gm = privet::truncated_negative_binomial_gamma(shape, mean);
        if (shape == 0) {
          g = [=](double s) { return std::log1p(-(1 - gm) * s) / std::log(gm); };
        } else {
          g = [=](double s) {
            return (std::pow(1 - (1 - gm) * s, -shape) - 1) / (std::pow(gm, -shape) - 1);
          };
        }
      }
      const auto bp = best_of(p, g), bq = best_of(q, g);
      const auto bound = privet::rdp_repeat_and_select(single, mean, shape);
      for (std::size_t i = 0; i < orders.size(); ++i) {
        const double exact = std::max(privet::test::renyi_divergence(bp, bq, orders[i]),
                                      privet::test::renyi_divergence(bq, bp, orders[i]));
        CAPTURE(mean);
        CAPTURE(shape);
        CAPTURE(orders[i]);
        CHECK(exact <= bound.epsilons()[i] * (1 + 1e-9) + 1e-12);
        if (mean == 1 && !std::isinf(shape)) CHECK(bound.epsilons()[i] == eps[i]);
      }
      // Monotone in the order (the truncated negative binomial's).
      for (std::size_t i = 1; i < orders.size() && !std::isinf(shape); ++i) {
        CHECK(bound.epsilons()[i - 1] <= bound.epsilons()[i]);
      }
    }
  }
}

TEST_CASE("repeat-and-select meets Papernot & Steinke's closed forms") {
  // Corollary 3 (pure DP, truncated negative binomial): eps (2 + eta), here
  // from the Laplace curve at one large order (dp_accounting's
  // test_repeat_select_pure_negative_binomial, mean 1000 or 100).
  for (double shape : {0.0, 0.5, 1.0, 2.0, 5.0}) {
    const double mean = shape == 2.0 ? 100 : 1000;
    const auto r = privet::rdp_repeat_and_select(privet::rdp_laplace(1.0, {1e10}), mean, shape);
    CAPTURE(shape);
    CHECK(r.epsilons()[0] == doctest::Approx(2 + shape).epsilon(1e-7));
  }
  // Corollary 4 (Gaussian, rho-zCDP base, truncated negative binomial):
  // eps'(lambda) = 2 sqrt(rho log mu) + 2 (1 + eta) sqrt(rho log(1 / gamma)) -
  // eta rho up to lambda = 1 + sqrt(log(mu) / rho), and rho (lambda - 1) +
  // log(mu) / (lambda - 1) + 2 (1 + eta) sqrt(rho log(1 / gamma)) - eta rho
  // above (test_repeat_select_gaussian_negative_binomial).
  struct param {
    double rho, gamma, shape;
  };
  for (const param& c : {param{0.01, 0.01, 0}, param{1, 0.1, 0.5}, param{10, 0.99, 1},
                         param{1, 0.1, 5}, param{0.01, 0.01, 5}}) {
    const double mean = privet::truncated_negative_binomial_mean(c.gamma, c.shape);
    const double rho = std::min(c.rho, -std::log(c.gamma));
    const std::vector<double> orders{1,
                                     1.1,
                                     2,
                                     std::sqrt(-std::log(c.gamma) / rho),
                                     1 + std::sqrt(std::log(mean) / rho),
                                     3,
                                     5,
                                     10,
                                     100,
                                     1000,
                                     10000};
    std::vector<double> sorted = orders;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    const auto base = privet::rdp_gaussian(std::sqrt(0.5 / rho), sorted);
    const auto r = privet::rdp_repeat_and_select(base, mean, c.shape);
    const double common = 2 * (1 + c.shape) * std::sqrt(-rho * std::log(c.gamma)) - c.shape * rho;
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      const double a = sorted[i];
      const double expected = a <= 1 + std::sqrt(std::log(mean) / rho)
                                  ? 2 * std::sqrt(rho * std::log(mean)) + common
                                  : rho * (a - 1) + std::log(mean) / (a - 1) + common;
      CAPTURE(c.rho);
      CAPTURE(c.shape);
      CAPTURE(a);
      CHECK(r.epsilons()[i] == doctest::Approx(expected).epsilon(1e-6));
    }
  }
  // Poisson (Theorem 6), pure-DP base: at lambda = 1 + 1 / (e^eps - 1) the
  // bound is the Laplace curve plus log(mu) (e^eps - 1), the delta term
  // vanishing at the order 1e100 (test_repeat_and_select_pure_poisson).
  for (const auto& job : {std::pair{1.0, 1.0}, std::pair{0.1, 2.0}, std::pair{10.0, 10.0},
                          std::pair{0.001, 100.0}, std::pair{2.0, 1000.0}, std::pair{1.0, 1e10}}) {
    const double eps = job.first, mean = job.second;  // named: clang 14 cannot capture a binding
    const double alpha = 1 + 1 / std::expm1(eps);
    const auto r = privet::rdp_repeat_and_select(privet::rdp_laplace(1 / eps, {alpha, 1e10, 1e100}),
                                                 mean, inf);
    const double expected =
        eps +
        std::log1p(std::expm1((1 - 2 * alpha) * eps) * (alpha - 1) / (2 * alpha - 1)) /
            (alpha - 1) +
        std::log(mean) * std::expm1(eps);
    CAPTURE(eps);
    CAPTURE(mean);
    CHECK(r.epsilons()[0] / expected == doctest::Approx(1).epsilon(1e-3));
  }
}
