// tests/support/renyi.hpp — the Renyi divergence of two finite distributions
// by brute force, the second method the RDP tests check closed forms and
// bounds against.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace privet::test {

/// D_alpha(P || Q) of finite distributions on the same outcomes (order 1:
/// the Kullback-Leibler divergence; +inf: the max log ratio). Outcomes with
/// p = 0 are skipped; the finite orders sum in log space (p^a and q^(1 - a)
/// may underflow and overflow alone).
inline double renyi_divergence(const std::vector<double>& p, const std::vector<double>& q,
                               double a) {
  double s = 0, top = -std::numeric_limits<double>::infinity();
  std::vector<double> terms;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] == 0) continue;
    if (a == 1) {
      s += p[i] * std::log(p[i] / q[i]);
    } else if (std::isinf(a)) {
      top = std::max(top, std::log(p[i] / q[i]));
    } else {
      const double l = a * std::log(p[i]) + (1 - a) * std::log(q[i]);
      top = std::max(top, l);
      terms.push_back(l);
    }
  }
  if (a == 1) return s;
  if (std::isinf(a)) return top;
  for (double l : terms) s += std::exp(l - top);
  return (top + std::log(s)) / (a - 1);
}

}  // namespace privet::test
