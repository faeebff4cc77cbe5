// Output frequencies of the selectors, exact (secure_noise) and constant
// time (the default, exact up to a total variation below 2^-110 here and an
// epsilon within 2^-30 of the nominal one), against their exact output
// distributions; 5.5-sigma bands (each CHECK fails a correct sampler with
// probability < 4e-8). Permute-and-flip's distribution is computed by
// enumerating all orders of the candidates.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/mechanisms/exponential.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace {
void check_frequencies(const std::vector<int>& counts, const std::vector<double>& probs, int n) {
  for (std::size_t r = 0; r < probs.size(); ++r) {
    CAPTURE(r);
    const double p = probs[r];
    CHECK(std::fabs(counts[r] / double(n) - p) <= 5.5 * std::sqrt(p * (1 - p) / n) + 1e-12);
  }
}
}  // namespace

TEST_CASE_TEMPLATE("exponential mechanism outputs the softmax of eps q / (2 D)", Noise,
                   privet::secure_noise, privet::constant_time_noise) {
  const std::vector<double> q{1.0, 2.5, 0.0, 2.0};
  const double eps = 1.3, sens = 0.5;
  const privet::exponential_mechanism<Noise> em(eps, sens);
  std::vector<double> w;
  for (double v : q) w.push_back(std::exp(eps * v / (2 * sens)));
  const double z = std::accumulate(w.begin(), w.end(), 0.0);
  for (auto& x : w) x /= z;
  privet::testing::seeded_release_generator gen(31);
  const int n = 100'000;
  std::vector<int> counts(q.size());
  for (int i = 0; i < n; ++i) ++counts[em(q, gen)];
  check_frequencies(counts, w, n);
}

TEST_CASE_TEMPLATE("permute-and-flip matches its exact distribution", Noise, privet::secure_noise,
                   privet::constant_time_noise) {
  const std::vector<double> q{1.0, 2.5, 0.0, 2.0};
  const double eps = 1.3, sens = 0.5;
  const privet::permute_and_flip<Noise> pf(eps, sens);
  const double top = 2.5;
  std::vector<double> keep;
  for (double v : q) keep.push_back(std::exp(-eps * (top - v) / (2 * sens)));
  std::vector<double> probs(q.size());
  std::vector<std::size_t> order{0, 1, 2, 3};
  int perms = 0;
  do {
    ++perms;
    double reach = 1;
    for (auto r : order) {
      probs[r] += reach * keep[r];
      reach *= 1 - keep[r];
    }
  } while (std::next_permutation(order.begin(), order.end()));
  for (auto& p : probs) p /= perms;
  privet::testing::seeded_release_generator gen(32);
  const int n = 100'000;
  std::vector<int> counts(q.size());
  for (int i = 0; i < n; ++i) ++counts[pf(q, gen)];
  check_frequencies(counts, probs, n);
}
