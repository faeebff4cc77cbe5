// tests/support/statistics.hpp — goodness-of-fit helpers for the statistical
// tests: Pearson's chi-square test (Pearson 1900) with cells pooled until
// each expects at least 5 observations (the usual validity rule, e.g.
// Cochran 1954), critical values from the chi-square quantile (Boost.Math),
// and sample moments.
//
// Every check takes its false-alarm probability `alpha` explicitly, so each
// test can state the chance that a correct sampler fails it.
#pragma once

#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>

#include <boost/math/distributions/chi_squared.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace privet::test {

/// n samples of an integer distribution from a seeded generator (seed, stream).
template <class Distribution>
std::vector<std::int64_t> draw_samples(const Distribution& d, std::uint64_t seed, int n,
                                       std::uint64_t stream = 0) {
  privet::testing::seeded_release_generator gen(seed, stream);
  std::vector<std::int64_t> xs(static_cast<std::size_t>(n));
  for (auto& x : xs) x = d(gen);
  return xs;
}

struct chi_square_result {
  double statistic = 0;
  double critical = std::numeric_limits<double>::infinity();  // (1 - alpha) quantile
  int cells = 0;  // after pooling; degrees of freedom = cells - 1
  [[nodiscard]] bool passes() const { return statistic < critical; }
};

/// The (1 - alpha) quantile of the chi-square distribution with `df` degrees
/// of freedom: a statistic above it has probability alpha under the null.
inline double chi_square_critical(double df, double alpha) {
  const boost::math::chi_squared dist(df);
  return boost::math::quantile(boost::math::complement(dist, alpha));
}

/// Pearson's chi-square of `observed` counts against cell `probabilities`
/// (which must sum to 1 within 1e-6: a pmf that is not normalised is a bug
/// the test should report, not absorb). Adjacent cells are pooled in order
/// until each pooled cell expects >= 5; a short last group joins the one
/// before it. With a single cell left there is nothing to test and the
/// result passes. A correct sampler fails with probability `alpha`.
inline chi_square_result chi_square_cells(const std::vector<std::uint64_t>& observed,
                                          const std::vector<double>& probabilities, double alpha) {
  if (observed.size() != probabilities.size() || observed.empty()) {
    throw std::invalid_argument("chi_square_cells: one probability per observed cell");
  }
  double n = 0, total_p = 0;
  for (auto o : observed) n += static_cast<double>(o);
  for (double p : probabilities) total_p += p;
  if (!(std::fabs(total_p - 1) < 1e-6)) {
    throw std::invalid_argument("chi_square_cells: probabilities sum to " +
                                std::to_string(total_p) + ", not 1");
  }
  std::vector<double> obs, expct;
  double o_acc = 0, e_acc = 0;
  for (std::size_t i = 0; i < observed.size(); ++i) {
    o_acc += static_cast<double>(observed[i]);
    e_acc += n * probabilities[i];
    if (e_acc >= 5) {
      obs.push_back(o_acc);
      expct.push_back(e_acc);
      o_acc = e_acc = 0;
    }
  }
  if (o_acc != 0 || e_acc != 0) {
    if (obs.empty()) {
      obs.push_back(o_acc);
      expct.push_back(e_acc);
    } else {
      obs.back() += o_acc;
      expct.back() += e_acc;
    }
  }
  chi_square_result r;
  r.cells = static_cast<int>(obs.size());
  if (r.cells < 2) return r;
  for (std::size_t i = 0; i < obs.size(); ++i) {
    r.statistic += (obs[i] - expct[i]) * (obs[i] - expct[i]) / expct[i];
  }
  r.critical = chi_square_critical(r.cells - 1, alpha);
  return r;
}

namespace detail {
// sum of pmf(x) for x = from, from + step, ... until the terms are negligible
// (pmf must decrease in that direction, as beyond the mode of a unimodal pmf).
inline double tail_sum(const std::function<double(std::int64_t)>& pmf, std::int64_t from,
                       std::int64_t step) {
  double sum = 0;
  for (std::int64_t x = from, i = 0; i < 100'000'000; x += step, ++i) {
    const double p = pmf(x);
    sum += p;
    if (p < 1e-300 || p < sum * 1e-18) break;
  }
  return sum;
}
}  // namespace detail

/// Chi-square goodness of fit of integer samples against `pmf`, unimodal
/// with its mode at `mode`. The cells are every x walking out from the mode
/// while its expected count is >= 5, plus the left and right tails, each
/// summed numerically into one cell (pooled with its neighbour when it
/// expects < 5). The cells depend on the pmf and the sample size only, never
/// on the sample. A correct sampler fails with probability `alpha`.
inline chi_square_result chi_square_integer(const std::vector<std::int64_t>& samples,
                                            const std::function<double(std::int64_t)>& pmf,
                                            double alpha, std::int64_t mode = 0) {
  const double n = static_cast<double>(samples.size());
  std::int64_t lo = mode, hi = mode;
  while (n * pmf(lo - 1) >= 5) --lo;
  while (n * pmf(hi + 1) >= 5) ++hi;
  // Cells: 0 = (-inf, lo), 1 + (x - lo) = {x}, last = (hi, inf).
  const auto inner = static_cast<std::size_t>(hi - lo + 1);
  std::vector<std::uint64_t> counts(inner + 2);
  for (auto x : samples) {
    if (x < lo) {
      ++counts.front();
    } else if (x > hi) {
      ++counts.back();
    } else {
      ++counts[1 + static_cast<std::size_t>(x - lo)];
    }
  }
  std::vector<double> probs(inner + 2);
  probs.front() = detail::tail_sum(pmf, lo - 1, -1);
  probs.back() = detail::tail_sum(pmf, hi + 1, 1);
  for (std::int64_t x = lo; x <= hi; ++x) probs[1 + static_cast<std::size_t>(x - lo)] = pmf(x);
  return chi_square_cells(counts, probs, alpha);
}

/// Counts of `samples` in the cells (-inf, edges[0]), [edges[0], edges[1]),
/// ..., [edges.back(), inf); `edges` ascending.
inline std::vector<std::uint64_t> histogram(const std::vector<std::int64_t>& samples,
                                            const std::vector<std::int64_t>& edges) {
  std::vector<std::uint64_t> counts(edges.size() + 1);
  for (auto x : samples) {
    std::size_t lo = 0, hi = edges.size();  // first edge > x, by bisection
    while (lo < hi) {
      const std::size_t mid = (lo + hi) / 2;
      if (edges[mid] > x) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    ++counts[lo];
  }
  return counts;
}

struct moments {
  double mean;
  double variance;  // with divisor n - 1
};

inline moments sample_moments(const std::vector<std::int64_t>& xs) {
  // Shifted by the first sample, so large-scale samples lose no precision.
  const long double shift = xs.empty() ? 0 : static_cast<long double>(xs.front());
  long double s = 0, s2 = 0;
  for (auto x : xs) {
    const long double d = static_cast<long double>(x) - shift;
    s += d;
    s2 += d * d;
  }
  const auto n = static_cast<long double>(xs.size());
  const long double mean = s / n;
  return {static_cast<double>(mean + shift), static_cast<double>((s2 - n * mean * mean) / (n - 1))};
}

/// |estimate - truth| <= z * sd: a two-sided normal-approximation band. With
/// z = 5.5 a correct estimator fails with probability about 3.8e-8.
inline bool within_sd(double estimate, double truth, double sd, double z = 5.5) {
  return std::fabs(estimate - truth) <= z * sd;
}

}  // namespace privet::test
