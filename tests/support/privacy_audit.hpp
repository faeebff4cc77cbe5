// tests/support/privacy_audit.hpp — an empirical privacy audit for any
// mechanism: run it many times on two neighbouring inputs, count how often
// each of a set of events happens, and turn the counts into a lower bound on
// the epsilon the mechanism can satisfy, valid with a stated confidence.
//
// For an (eps, delta)-DP mechanism and any event S,
//   P[M(x) in S] <= e^eps P[M(x') in S] + delta   (and with x, x' swapped),
// so eps >= ln((P[M(x) in S] - delta) / P[M(x') in S]). The probabilities are
// replaced by Clopper-Pearson bounds (Clopper & Pearson 1934; exact binomial
// intervals from Boost.Math's inverse incomplete beta): a lower bound for the
// numerator, an upper bound for the denominator, each at level
// alpha / (2 m) for m events tried in both directions (Bonferroni), so the
// reported lower bound exceeds the true epsilon with probability at most
// alpha. This is the standard black-box audit (Jagielski, Ullman & Oprea
// 2020; Nasr et al. 2021); a correct mechanism passes "lower bound <=
// claimed eps" except with probability alpha, and a mechanism weaker than
// its claim is caught once enough runs make the bound tight.
#pragma once

#include <privet/core/seeded_generator.hpp>

#include <boost/math/special_functions/beta.hpp>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace privet::test {

struct audit_result {
  double epsilon_lower = 0;  // 0 when no event gives evidence
  std::string event;         // the event (and direction) that gave it
  std::uint64_t runs = 0;    // per input
};

/// Clopper-Pearson one-sided bounds on a binomial proportion with `hits`
/// of `n`, each wrong with probability at most `alpha`.
inline double cp_lower(std::uint64_t hits, std::uint64_t n, double alpha) {
  if (hits == 0) return 0;
  return boost::math::ibeta_inv(static_cast<double>(hits), static_cast<double>(n - hits + 1),
                                alpha);
}
inline double cp_upper(std::uint64_t hits, std::uint64_t n, double alpha) {
  if (hits == n) return 1;
  return boost::math::ibeta_inv(static_cast<double>(hits + 1), static_cast<double>(n - hits),
                                1 - alpha);
}

template <class Output>
struct audit_event {
  std::string name;
  std::function<bool(const Output&)> test;
};

/// Audits `mechanism(input, gen)` on the neighbours x0 and x1 with `runs`
/// runs each (seeded, so reproducible) against (eps, delta) over `events`;
/// the result is wrong (above the true epsilon) with probability <= alpha.
template <class Output, class Input, class Mechanism>
audit_result audit(Mechanism&& mechanism, const Input& x0, const Input& x1,
                   const std::vector<audit_event<Output>>& events, std::uint64_t runs, double delta,
                   double alpha, std::uint64_t seed) {
  std::vector<std::uint64_t> c0(events.size()), c1(events.size());
  privet::seeded_generator g0(seed, 0), g1(seed, 1);
  for (std::uint64_t r = 0; r < runs; ++r) {
    const Output y0 = mechanism(x0, g0);
    const Output y1 = mechanism(x1, g1);
    for (std::size_t e = 0; e < events.size(); ++e) {
      c0[e] += events[e].test(y0);
      c1[e] += events[e].test(y1);
    }
  }
  const double level = alpha / (2.0 * static_cast<double>(events.size()));
  audit_result best;
  best.runs = runs;
  auto consider = [&](std::uint64_t hi, std::uint64_t lo, const std::string& name) {
    const double num = cp_lower(hi, runs, level) - delta;
    const double den = cp_upper(lo, runs, level);
    if (num <= 0) return;
    const double eps = std::log(num / den);
    if (eps > best.epsilon_lower) {
      best.epsilon_lower = eps;
      best.event = name;
    }
  };
  for (std::size_t e = 0; e < events.size(); ++e) {
    consider(c0[e], c1[e], events[e].name + " (x0 over x1)");
    consider(c1[e], c0[e], events[e].name + " (x1 over x0)");
  }
  return best;
}

/// Threshold events {y >= t} and {y <= t} for t = lo, lo + step, ..., hi.
template <class Output>
std::vector<audit_event<Output>> threshold_events(double lo, double hi, double step) {
  std::vector<audit_event<Output>> events;
  for (double t = lo; t <= hi + 1e-12; t += step) {
    events.push_back({"y >= " + std::to_string(t),
                      [t](const Output& y) { return static_cast<double>(y) >= t; }});
    events.push_back({"y <= " + std::to_string(t),
                      [t](const Output& y) { return static_cast<double>(y) <= t; }});
  }
  return events;
}

/// Events {y == v} for v in [0, k).
template <class Output>
std::vector<audit_event<Output>> value_events(std::uint64_t k) {
  std::vector<audit_event<Output>> events;
  for (std::uint64_t v = 0; v < k; ++v) {
    events.push_back({"y == " + std::to_string(v),
                      [v](const Output& y) { return static_cast<std::uint64_t>(y) == v; }});
  }
  return events;
}

}  // namespace privet::test
