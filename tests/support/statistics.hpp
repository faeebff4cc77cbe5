// tests/support/statistics.hpp — goodness-of-fit helpers for statistical tests.
#pragma once

#include <boost/math/distributions/chi_squared.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

namespace privet::test {

struct chi_square_result {
  double statistic;
  double critical;  // the (1 - alpha) quantile for the pooled bins' degrees of freedom
  int bins;
  [[nodiscard]] bool passes() const { return statistic < critical; }
};

/// Chi-square goodness of fit of integer samples against `pmf`. Bins with an
/// expected count below 5 are pooled from each tail inward into the tail
/// bins, so the test is valid for any support. `alpha` is the false-alarm
/// probability of one call.
inline chi_square_result chi_square_integer(const std::vector<std::int64_t>& samples,
                                            const std::function<double(std::int64_t)>& pmf,
                                            double alpha) {
  std::map<std::int64_t, std::uint64_t> counts;
  for (auto x : samples) ++counts[x];
  const double n = static_cast<double>(samples.size());
  // Core range where expected counts are >= 5, found by walking out from the mode at 0.
  std::int64_t lo = 0, hi = 0;
  while (n * pmf(lo - 1) >= 5) --lo;
  while (n * pmf(hi + 1) >= 5) ++hi;
  double stat = 0;
  double inner_p = 0;
  std::uint64_t inner_count = 0;
  for (std::int64_t x = lo; x <= hi; ++x) {
    const double e = n * pmf(x);
    const auto it = counts.find(x);
    const double o = it == counts.end() ? 0.0 : static_cast<double>(it->second);
    stat += (o - e) * (o - e) / e;
    inner_p += pmf(x);
    inner_count += static_cast<std::uint64_t>(o);
  }
  int bins = static_cast<int>(hi - lo + 1);
  // Both tails together as one pooled bin.
  const double tail_e = n * (1 - inner_p);
  const double tail_o = n - static_cast<double>(inner_count);
  if (tail_e >= 1e-9) {
    stat += (tail_o - tail_e) * (tail_o - tail_e) / tail_e;
    ++bins;
  }
  boost::math::chi_squared dist(bins - 1);
  return {stat, boost::math::quantile(boost::math::complement(dist, alpha)), bins};
}

}  // namespace privet::test
