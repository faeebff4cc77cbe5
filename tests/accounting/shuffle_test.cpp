// Amplification by shuffling: the numerical bound against a brute-force
// evaluation of the same divergence (every c and every x, in long double,
// both directions, no window, no recurrence), never below it; numerical <=
// closed form; monotone in n, eps0 and delta; delta(eps(delta)) ~ delta;
// never negative; and the documented errors. The brute force also shows the
// two directions are equal (the symmetry the implementation relies on).
#include <privet/accounting/shuffle.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>

namespace {

long double log_binom_pmf(long double k, long double n, long double p) {
  return std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1) + k * std::log(p) +
         (n - k) * std::log1p(-p);
}

// sum_c Pr[C = c] sum_x (P_c(x) - e^eps Q_c(x))_+ , and the same with P, Q swapped.
std::pair<long double, long double> brute_force(double eps0, std::uint64_t n, double eps) {
  const long double a = 1 / (1 + std::exp(-static_cast<long double>(eps0)));
  const long double ee = std::exp(static_cast<long double>(eps));
  const long double p = std::exp(-static_cast<long double>(eps0));
  long double pq = 0, qp = 0;
  for (std::uint64_t c = 0; c < n; ++c) {
    const long double w = std::exp(log_binom_pmf(c, n - 1, p));
    long double dpq = 0, dqp = 0;
    for (std::uint64_t x = 0; x <= c + 1; ++x) {
      const long double bx = x <= c ? std::exp(log_binom_pmf(x, c, 0.5L)) : 0;
      const long double bx1 = x >= 1 ? std::exp(log_binom_pmf(x - 1, c, 0.5L)) : 0;
      const long double pc = a * bx + (1 - a) * bx1, qc = a * bx1 + (1 - a) * bx;
      dpq += std::max(0.0L, pc - ee * qc);
      dqp += std::max(0.0L, qc - ee * pc);
    }
    pq += w * dpq;
    qp += w * dqp;
  }
  return {pq, qp};
}

}  // namespace

TEST_CASE("the numerical delta equals a brute-force divergence, from above") {
  struct point {
    double eps0;
    std::uint64_t n;
    double eps;
  };
  for (const point& pt : {point{1.0, 300, 0.3}, point{2.0, 500, 0.5}, point{4.0, 800, 1.0},
                          point{0.5, 400, 0.05}, point{3.0, 200, 2.9}}) {
    const double eps0 = pt.eps0, eps = pt.eps;
    const std::uint64_t n = pt.n;
    const auto [pq, qp] = brute_force(eps0, n, eps);
    const double ours = privet::shuffle_amplification_delta(eps0, n, eps);
    CAPTURE(eps0);
    CAPTURE(n);
    CHECK(static_cast<double>(pq) == doctest::Approx(static_cast<double>(qp)).epsilon(1e-9));
    CHECK(ours >= static_cast<double>(pq));
    CHECK(ours == doctest::Approx(static_cast<double>(pq)).epsilon(1e-6));
  }
}

TEST_CASE("numerical <= closed form, and both behave monotonically") {
  for (double eps0 : {0.5, 1.0, 3.0, 5.0}) {
    for (std::uint64_t n : {10'000u, 100'000u, 1'000'000u}) {
      for (double delta : {1e-6, 1e-9}) {
        double closed = 0;
        try {
          closed = privet::shuffle_amplification_closed_form(eps0, n, delta).epsilon();
        } catch (const privet::invalid_parameter&) {
          continue;  // outside the closed form's range
        }
        const double numerical = privet::shuffle_amplification(eps0, n, delta).epsilon();
        CAPTURE(eps0);
        CAPTURE(n);
        CAPTURE(delta);
        CHECK(numerical <= closed);
        CHECK(numerical < eps0);
        CHECK(privet::shuffle_amplification_delta(eps0, n, numerical) <= delta);
      }
    }
  }
  // More users, smaller eps; larger delta, smaller eps; larger eps0, larger eps.
  const auto eps = [](double e0, std::uint64_t n, double d) {
    return privet::shuffle_amplification(e0, n, d).epsilon();
  };
  CHECK(eps(2, 1'000'000, 1e-8) < eps(2, 100'000, 1e-8));
  CHECK(eps(2, 100'000, 1e-6) < eps(2, 100'000, 1e-8));
  CHECK(eps(1, 100'000, 1e-8) < eps(2, 100'000, 1e-8));
  // The Gboard setting: eps0 = 10, n = 10^7 users' reports.
  CHECK(eps(10, 10'000'000, 1e-8) <
        privet::shuffle_amplification_closed_form(10, 10'000'000, 1e-8).epsilon());
}

TEST_CASE("delta is never negative and reaches 0 at eps0") {
  for (double e : {0.0, 0.5, 0.99, 1.0, 2.0}) {
    const double d = privet::shuffle_amplification_delta(1.0, 1000, e);
    CHECK(d >= 0);
    CHECK(d <= 1);
  }
  CHECK(privet::shuffle_amplification_delta(1.0, 1000, 1.0) == 0);
  CHECK(privet::shuffle_amplification_delta(1.0, 10'000'000, 0.0) > 0);
}

TEST_CASE("bad shuffle inputs throw, naming the parameter") {
  CHECK_THROWS_WITH_AS(privet::shuffle_amplification(0.0, 100, 1e-6),
                       "privet: epsilon0 = 0 is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::shuffle_amplification(1.0, 1, 1e-6),
                       "privet: n = 1 is invalid; allowed: >= 2", privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::shuffle_amplification(1.0, 100, 1.0),
                       "privet: delta = 1 is invalid; allowed: (0, 1)", privet::invalid_parameter);
  CHECK_THROWS_AS(privet::shuffle_amplification_closed_form(10.0, 1000, 1e-6),
                  privet::invalid_parameter);
}

TEST_CASE("shuffle messages name the parameter, value and range") {
  using privet::invalid_parameter;
  // n = 1000, delta = 1e-6: ln(1000 / (8 ln 2e6) - 1) = 2.03...
  CHECK_THROWS_WITH_AS(privet::shuffle_amplification_closed_form(10.0, 1000, 1e-6),
                       doctest::Contains("privet: epsilon0 = 10 is invalid; allowed: <= ln(n / (8 "
                                         "ln(2 / delta)) - 1) = 2.03"),
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::shuffle_amplification_closed_form(1.0, 10, 1e-6),
                       "privet: epsilon0 = 1 is invalid; allowed: <= ln(n / (8 ln(2 / delta)) - 1) "
                       "(no eps0 > 0 qualifies for this n and delta)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::shuffle_amplification_closed_form(1.0, 1000, 0),
                       "privet: delta = 0 is invalid; allowed: (0, 1)", invalid_parameter);
  CHECK_THROWS_WITH_AS((void)privet::shuffle_amplification_delta(1.0, 100, -1),
                       "privet: epsilon = -1 is invalid; allowed: finite and >= 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((void)privet::shuffle_amplification_delta(1.0, 0, 0.5),
                       "privet: n = 0 is invalid; allowed: >= 2", invalid_parameter);
}
