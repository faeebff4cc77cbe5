// Federated DP-SGD, statistically: a private worker's message is its exact
// mean clipped gradient plus noise of the standard deviation it reports
// (secure noise, the release path). Fixed seeds; each check's false-alarm
// rate is stated beside it.
#include <privet/algorithms/federated_dpsgd.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/ml/logistic_regression.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

TEST_CASE("a private worker's message carries noise of the reported standard deviation") {
  using model = privet::ml::logistic_regression<double, privet::ml::dense_batch<double>>;
  constexpr std::size_t n = 20, dim = 4000;
  std::mt19937 rng(3);
  std::normal_distribution<double> nd;
  privet::ml::dense_batch<double> data;
  data.x = xt::xtensor<double, 2>::from_shape({n, dim});
  for (auto& v : data.x) v = nd(rng) * 0.05;
  for (std::size_t i = 0; i < n; ++i) data.y.push_back(i % 2 == 0 ? 1 : -1);
  model initial(dim, true);

  // The whole data set as one fixed-size batch, so the noise-free message is
  // known exactly; fixed-size batches are accounted by RDP.
  privet::federated::worker_options o;
  o.name = "clinic";
  o.clip_norm = 0.5;
  o.batch_size = n;
  o.sampling = privet::ml::batch_sampling::fixed_size;
  o.privacy = privet::federated::total_budget{privet::approx_dp(4, 1e-5)};
  o.calibration.accountant = privet::accountant_kind::rdp;
  o.accounting.use_prv = false;
  o.accounting.use_pld = false;
  privet::federated::worker<model> w(0, o, data, initial, {.learning_rate = 0.1, .rounds = 3});
  privet::testing::seeded_release_generator gen(4);
  const auto m = w.contribute(0, gen);

  auto g = initial.per_example_gradients(data);
  privet::ml::clip_each_row(g, 0.5);
  const std::size_t p = dim + 1;
  double sum = 0, sq = 0;
  for (std::size_t j = 0; j < p; ++j) {
    double exact = 0;
    for (std::size_t i = 0; i < n; ++i) exact += g(i, j);
    const double noise = m.gradient[j] - exact / n;
    sum += noise;
    sq += noise * noise;
  }
  const double s = w.noise_stddev();
  REQUIRE(s > 0);
  const double mean = sum / p, sd = std::sqrt(sq / p - mean * mean);
  MESSAGE("noise mean " << mean << ", sd " << sd << " against the reported " << s);
  // The mean of 4001 N(0, s^2) draws has sd s / 63.3: beyond 6 of them with
  // probability 2e-9.
  CHECK(std::abs(mean) < 6 * s / std::sqrt(static_cast<double>(p)));
  // The sample sd has relative sd 1 / sqrt(2 * 4001) = 1.1 %: 7 % is beyond
  // 6 of them, probability below 1e-8.
  CHECK(sd == doctest::Approx(s).epsilon(0.07));
}
