// privet/core/detail/gauss_legendre.hpp — the N-point Gauss-Legendre rule on
// [-1, 1], computed once per N.
//
// Why not Boost.Math's quadrature: its header costs about 150 k preprocessed
// lines in every translation unit that includes core, for a rule whose nodes
// are the roots of one polynomial. The roots are found by Newton's method on
// the three-term recurrence of the Legendre polynomials in long double,
// started at Tricomi's approximation cos(pi (i - 1/4) / (N + 1/2)), which is
// within the basin of the i-th root for every N (Abramowitz & Stegun 1964,
// 22.16.6; Golub & Welsch 1969 for the rule itself). The weights are
// 2 / ((1 - x^2) P_N'(x)^2) (A & S 25.4.29). The rule integrates polynomials
// of degree up to 2N - 1 exactly (tested against A & S Table 25.4).
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <numbers>

namespace privet::detail {

template <std::size_t N>
struct gauss_legendre_rule {
  static_assert(N >= 1 && N <= 256, "privet: Gauss-Legendre rules of 1 to 256 points");
  std::array<double, N> nodes{};
  std::array<double, N> weights{};

  gauss_legendre_rule() {
    for (std::size_t i = 0; i < (N + 1) / 2; ++i) {
      long double x =
          std::cos(std::numbers::pi_v<long double> * (static_cast<long double>(i) + 0.75L) /
                   (static_cast<long double>(N) + 0.5L));
      long double derivative = 1;
      // Quadratic convergence from Tricomi's start: a handful of steps reach
      // long double precision; the cap only guards a pathological platform.
      for (int step = 0; step < 100; ++step) {
        long double p0 = 1, p1 = x;  // P_0, P_1
        for (std::size_t k = 2; k <= N; ++k) {
          const long double pk = ((2 * static_cast<long double>(k) - 1) * x * p1 -
                                  (static_cast<long double>(k) - 1) * p0) /
                                 static_cast<long double>(k);
          p0 = p1;
          p1 = pk;
        }
        const long double pn = N == 1 ? x : p1;
        const long double pn_minus_1 = N == 1 ? 1 : p0;
        derivative = static_cast<long double>(N) * (x * pn - pn_minus_1) / (x * x - 1);
        const long double dx = pn / derivative;
        x -= dx;
        if (std::fabs(dx) <= 1e-19L) break;
      }
      const long double w = 2 / ((1 - x * x) * derivative * derivative);
      nodes[i] = -static_cast<double>(x);
      nodes[N - 1 - i] = static_cast<double>(x);
      weights[i] = weights[N - 1 - i] = static_cast<double>(w);
    }
    if (N % 2 == 1) nodes[N / 2] = 0;
  }

  /// Integral of f over [-1, 1] by the rule.
  template <class F>
  double integrate(F&& f) const {
    double sum = 0;
    for (std::size_t i = 0; i < N; ++i) sum += weights[i] * f(nodes[i]);
    return sum;
  }
};

/// The rule of N points, built on first use (thread-safe static).
template <std::size_t N>
const gauss_legendre_rule<N>& gauss_legendre() {
  static const gauss_legendre_rule<N> rule;
  return rule;
}

}  // namespace privet::detail
