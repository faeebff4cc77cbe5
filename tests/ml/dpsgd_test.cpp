// DP-SGD: without noise and clipping it is plain SGD; clipping bounds every
// per-example norm; each accountant's epsilon in the running report equals an
// independent computation by the accounting layer's curves, PLDs and PRVs;
// calibration meets its target (and reproduces the analytic Gaussian for one
// full-batch step); the calibrated budget is enforced; the optimiser is
// generic over models; every documented error is raised with its message.
#include <privet/core/analytic_gaussian.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/ml/dpsgd.hpp>
#include <privet/ml/logistic_regression.hpp>
#include <privet/ml/metrics.hpp>
#include <privet/ml/mlp.hpp>

#include <support/counting_generator.hpp>
#include <support/errors.hpp>
#include <support/per_example_model.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace {
using privet::approx_dp;
using privet::simulation_only_noise;
using privet::ml::batch_sampling;
using privet::ml::dense_batch;
using privet::ml::dpsgd;
using privet::ml::dpsgd_options;
using privet::ml::logistic_regression;
using privet::ml::sparse_binary_batch;
using privet::testing::seeded_release_generator;

using sparse_lr = logistic_regression<double>;
using dense_lr = logistic_regression<double, dense_batch<double>>;

sparse_binary_batch separable(std::size_t n, std::size_t d, unsigned seed) {
  std::mt19937 gen(seed);
  sparse_binary_batch b;
  b.dimension = d;
  for (std::size_t i = 0; i < n; ++i) {
    const bool spam = i % 2 == 0;
    std::vector<std::uint32_t> row{spam ? 0u : 1u};
    for (std::uint32_t j = 2; j < d; ++j)
      if (gen() % 4 == 0) row.push_back(j);
    b.features.push_back(row);
    b.y.push_back(spam ? 1 : -1);
  }
  return b;
}

dense_batch<double> gaussian_rows(std::size_t n, std::size_t f, double scale, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> nd(0, scale);
  dense_batch<double> b;
  b.x = xt::xtensor<double, 2>::from_shape({n, f});
  for (auto& v : b.x) v = nd(gen);
  for (std::size_t i = 0; i < n; ++i) b.y.push_back(i % 3 == 0 ? 1 : 0);
  return b;
}

double norm(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return std::sqrt(s);
}
}  // namespace

static_assert(privet::privacy_event<privet::ml::fixed_size_subsampled_gaussian_event>);

TEST_CASE("without noise and clipping, DP-SGD is plain SGD on the sampled batch") {
  const auto data = separable(60, 12, 1);
  for (auto sampling : {batch_sampling::fixed_size, batch_sampling::poisson}) {
    const dpsgd_options o{.learning_rate = 0.5,
                          .clip_norm = std::numeric_limits<double>::infinity(),
                          .batch_size = 10,
                          .sampling = sampling,
                          .weight_decay = 0.01};
    auto opt = dpsgd<sparse_lr>::non_private(12, 60, o);
    sparse_lr model(12), plain(12);
    privet::testing::seeded_release_generator gen(2);
    for (int step = 0; step < 15; ++step) {
      const auto r = opt.step(model, data, gen);
      if (sampling == batch_sampling::fixed_size) REQUIRE(r.batch.size() == 10);
      CHECK(r.clipped == 0);
      // Plain SGD on the same examples: the mean gradient for fixed-size
      // batches; for Poisson the sum over the expected size b = 10.
      std::vector<double> g(12, 0.0);
      if (!r.batch.empty()) {
        const auto mean = privet::ml::mean_gradient(plain, data.select(r.batch));
        const double factor = static_cast<double>(r.batch.size()) / 10.0;
        for (std::size_t j = 0; j < 12; ++j) g[j] = mean(j) * factor;
      }
      for (std::size_t j = 0; j < 12; ++j) {
        plain.parameters()[j] -= 0.5 * (g[j] + 0.01 * plain.parameters()[j]);
      }
      for (std::size_t j = 0; j < 12; ++j)
        CHECK(model.parameters()[j] == doctest::Approx(plain.parameters()[j]).epsilon(1e-12));
    }
    CHECK(opt.steps() == 15);
    CHECK(opt.noise_stddev() == 0);
  }
}

TEST_CASE("DP-SGD's update is the clipped sum plus noise over b") {
  // With q = 1 (b = n, fixed size) every example is used; without noise the
  // update times b / lr is exactly the sum of the clipped gradients.
  const auto data = gaussian_rows(8, 5, 10.0, 4);
  dense_lr model(5, true);
  for (std::size_t j = 0; j < 6; ++j) model.parameters()[j] = 0.1 * static_cast<double>(j);
  auto g = model.per_example_gradients(data);
  const std::size_t expect = privet::ml::clip_each_row(g, 0.3);
  REQUIRE(expect > 0);
  const std::vector<double> w0(model.parameters().begin(), model.parameters().end());
  auto opt = dpsgd<dense_lr>::non_private(6, 8,
                                          {.learning_rate = 2,
                                           .clip_norm = 0.3,
                                           .batch_size = 8,
                                           .sampling = batch_sampling::fixed_size});
  privet::testing::seeded_release_generator gen(5);
  const auto r = opt.step(model, data, gen);
  CHECK(r.clipped == expect);
  std::vector<double> update(6);
  for (std::size_t j = 0; j < 6; ++j) {
    double s = 0;
    for (std::size_t i = 0; i < 8; ++i) s += g(i, j);
    CHECK((w0[j] - model.parameters()[j]) * 8 / 2 == doctest::Approx(s).epsilon(1e-12));
    update[j] = (w0[j] - model.parameters()[j]) * 8 / 2;
  }
  CHECK(norm(update) <= 8 * 0.3 + 1e-12);
}

namespace {
// The same model seen only through the differentiable_model interface, so
// DP-SGD takes its generic path (per-example rows, clip_each_row, sum).
using rows_only = privet::test::per_example_only<dense_lr>;
}  // namespace

TEST_CASE("the generic per-example path and a model's clipped sum take the same steps") {
  static_assert(!privet::ml::clipped_sum_model<rows_only, dense_batch<double>>);
  static_assert(privet::ml::clipped_sum_model<dense_lr, dense_batch<double>>);
  const auto data = gaussian_rows(50, 6, 3.0, 14);
  const dpsgd_options o{.learning_rate = 0.3, .clip_norm = 0.4, .batch_size = 10};
  dpsgd<dense_lr, simulation_only_noise> fast(7, 50, o, 0.8);
  dpsgd<rows_only, simulation_only_noise> generic(7, 50, o, 0.8);
  dense_lr a(6, true);
  rows_only b{dense_lr(6, true)};
  privet::testing::seeded_release_generator ga(15), gb(15);
  for (int s = 0; s < 20; ++s) {
    const auto ra = fast.step(a, data, ga);
    const auto rb = generic.step(b, data, gb);
    CHECK(ra.batch == rb.batch);
    CHECK(ra.clipped == rb.clipped);
  }
  for (std::size_t j = 0; j < 7; ++j)
    CHECK(a.parameters()[j] == doctest::Approx(b.parameters()[j]).epsilon(1e-10));
}

TEST_CASE("the noise of a step does not depend on how many threads draw it") {
  // 10^4 features: the noise spans three blocks of gaussian_mechanism's
  // parallel draw, so the threads really split it.
  const auto data = separable(40, 10000, 8);
  auto gradient = [&](std::size_t threads, std::uint64_t seed) {
    const dpsgd_options o{.learning_rate = 0.1,
                          .clip_norm = 1,
                          .batch_size = 8,
                          .noise_threads = privet::parallel_options{threads}};
    dpsgd<sparse_lr> d(10001, 40, o, 1.1);
    const sparse_lr model(10000, true);
    privet::testing::seeded_release_generator gen(seed);
    return d.privatize(model, data, gen).gradient;
  };
  const auto one = gradient(1, 3);
  CHECK(gradient(2, 3) == one);
  CHECK(gradient(0, 3) == one);
  CHECK(gradient(1, 4) != one);
  const dpsgd_options bad{
      .learning_rate = 0.1,
      .clip_norm = 1,
      .batch_size = 8,
      .noise_threads = privet::parallel_options{privet::max_parallel_threads + 1}};
  CHECK(privet::test::rejected_parameter([&] { dpsgd<sparse_lr> d(10001, 40, bad, 1.1); }) ==
        "threads");
}

TEST_CASE("the report's epsilons equal the accounting layer's direct computations (Poisson)") {
  const auto data = separable(200, 10, 6);
  const double z = 1.3, delta = 1e-5;
  const dpsgd_options o{.learning_rate = 0.1, .clip_norm = 1.5, .batch_size = 10};
  dpsgd<sparse_lr, simulation_only_noise> opt(10, 200, o, z);
  sparse_lr model(10);
  privet::testing::seeded_release_generator gen(7);
  const std::uint64_t k = 40;
  for (std::uint64_t s = 0; s < k; ++s) (void)opt.step(model, data, gen);
  const auto r = opt.privacy_spent(delta);
  CHECK(r.steps == k);
  CHECK(r.sampling_rate == 0.05);
  // Simulation noise is exactly sigma = z C; the accounted multiplier is the
  // mechanism's (rounded down by a few units in the last place).
  CHECK(opt.noise_stddev() == doctest::Approx(z * 1.5).epsilon(1e-15));
  CHECK(r.noise_multiplier <= z);
  // sigma over the sensitivity with the exact sum's rounding margin
  // (ml/clipping.hpp), for P = 10 parameters and N = 200 examples.
  const double sensitivity = privet::ml::clipped_gradient_sum_sensitivity(1.5, 10, 200, 1);
  CHECK(sensitivity > 1.5);
  CHECK(sensitivity < 1.5 * (1 + 1e-12));
  CHECK(r.noise_multiplier == doctest::Approx(z * 1.5 / sensitivity).epsilon(1e-14));
  const double q = 0.05, zm = r.noise_multiplier;
  // RDP: the Mironov-Talwar-Zhang curve composed k times.
  const auto curve = privet::rdp_subsampled_gaussian(q, zm).composed(k);
  REQUIRE(r.accountants.rdp);
  CHECK(r.accountants.rdp->epsilon() ==
        doctest::Approx(privet::to_approx_dp(curve, delta).epsilon()).epsilon(1e-12));
  // PLD: one subsampled-Gaussian PLD self-composed k times, on the odometer's grid.
  const auto pld =
      privet::privacy_loss_distribution::subsampled_gaussian(q, zm, opt.odometer().options().pld)
          .self_compose(k);
  REQUIRE(r.accountants.pld);
  CHECK(r.accountants.pld->epsilon() ==
        doctest::Approx(pld.epsilon(delta).epsilon()).epsilon(1e-12));
  // PRV: its upper bound.
  privet::prv_accountant prv(opt.odometer().options().prv);
  prv.add(privet::prv::subsampled_gaussian(q, zm), k);
  REQUIRE(r.accountants.prv);
  CHECK(r.accountants.prv->epsilon() ==
        doctest::Approx(privet::to_approx_dp(prv, delta).epsilon()).epsilon(1e-12));
  // The accountants agree to within their stated slack, PLD below RDP.
  CHECK(r.accountants.pld->epsilon() < r.accountants.rdp->epsilon());
  CHECK(r.accountants.prv->epsilon() ==
        doctest::Approx(r.accountants.pld->epsilon()).epsilon(0.05));
  CHECK(r.accountants.tightest.epsilon() ==
        std::min({r.accountants.rdp->epsilon(), r.accountants.pld->epsilon(),
                  r.accountants.prv->epsilon()}));
  // One merged entry of k steps.
  REQUIRE(opt.odometer().entries().size() == 1);
  CHECK(opt.odometer().entries()[0].count == k);
  const std::string text = privet::ml::to_string(r);
  CHECK(text.find("40 steps, Poisson sampling (rate 0.05, add/remove neighbours)") !=
        std::string::npos);
  CHECK(text.find("RDP: eps = ") != std::string::npos);
  CHECK(text.find("PLD: eps = ") != std::string::npos);
  CHECK(text.find("PRV: eps = ") != std::string::npos);
}

TEST_CASE("fixed-size batches are accounted by the without-replacement RDP bound") {
  const auto data = separable(100, 6, 8);
  const double z = 2.0, delta = 1e-6;
  const dpsgd_options o{.learning_rate = 0.1,
                        .clip_norm = 0.5,
                        .batch_size = 20,
                        .sampling = batch_sampling::fixed_size};
  dpsgd<sparse_lr, simulation_only_noise> opt(6, 100, o, z);
  sparse_lr model(6);
  privet::testing::seeded_release_generator gen(9);
  for (int s = 0; s < 25; ++s) {
    const auto r = opt.step(model, data, gen);
    CHECK(r.batch.size() == 20);
  }
  const auto r = opt.privacy_spent(delta);
  // Replace-one sensitivity 2C (plus the rounding margin): the accounted
  // multiplier is sigma / (2C) = z / 2, just below.
  const double sensitivity = privet::ml::clipped_gradient_sum_sensitivity(0.5, 6, 100, 2);
  CHECK(sensitivity > 1.0);
  CHECK(r.noise_multiplier == doctest::Approx(z * 0.5 / sensitivity).epsilon(1e-14));
  CHECK(r.noise_multiplier == doctest::Approx(z / 2).epsilon(1e-12));
  const auto curve = privet::rdp_subsampled_wor_gaussian(0.2, r.noise_multiplier).composed(25);
  REQUIRE(r.accountants.rdp);
  CHECK(r.accountants.rdp->epsilon() ==
        doctest::Approx(privet::to_approx_dp(curve, delta).epsilon()).epsilon(1e-12));
  CHECK_FALSE(r.accountants.pld);
  CHECK_FALSE(r.accountants.prv);
  CHECK(r.accountants.method == privet::accountant_kind::rdp);
  CHECK(privet::ml::to_string(r).find("PLD: eps = n/a") != std::string::npos);
}

TEST_CASE("secure noise: the accounted multiplier covers the grid and stays close") {
  dpsgd<sparse_lr> opt(1000, 100, {.learning_rate = 1, .clip_norm = 1, .batch_size = 10}, 1.1);
  // sigma is rounded up to the sampler's representation; the grid adds
  // sqrt(P) g ~ 32 sigma 2^-20 to the sensitivity.
  CHECK(opt.noise_stddev() >= 1.1);
  CHECK(opt.accounted_noise_multiplier() < opt.noise_multiplier());
  CHECK(opt.accounted_noise_multiplier() == doctest::Approx(1.1).epsilon(1e-4));
}

TEST_CASE("calibration meets the target and the budget is enforced") {
  const auto data = separable(100, 8, 10);
  const approx_dp target(2.0, 1e-5);
  const dpsgd_options o{.learning_rate = 0.1, .clip_norm = 1, .batch_size = 5};
  // PLD calibration on a coarser grid than the default (fast); the odometer
  // reports on the same grid, so the target must hold exactly.
  privet::calibration_options c;
  c.relative_tolerance = 1e-4;
  c.pld.value_discretization_interval = 1e-2;
  privet::odometer_options same;
  same.pld = c.pld;
  auto opt = dpsgd<sparse_lr>::calibrated(8, 100, o, target, 30, c, same);
  const double needed = privet::dpsgd_noise_multiplier(0.05, 30, target, c);
  CHECK(opt.accounted_noise_multiplier() >= needed);
  CHECK(opt.accounted_noise_multiplier() == doctest::Approx(needed).epsilon(1e-6));
  REQUIRE(opt.budget_steps());
  CHECK(*opt.budget_steps() == 30);
  sparse_lr model(8);
  privet::testing::seeded_release_generator gen(11);
  for (int s = 0; s < 30; ++s) (void)opt.step(model, data, gen);
  const auto r = opt.privacy_spent(1e-5);
  REQUIRE(r.accountants.pld);
  CHECK(r.accountants.pld->epsilon() <= 2.0);
  CHECK(r.accountants.pld->epsilon() > 2.0 * (1 - 2e-3));
  try {
    (void)opt.step(model, data, gen);
    FAIL("no throw");
  } catch (const privet::budget_exhausted& e) {
    CHECK(std::string(e.what()) ==
          "privet: DP-SGD was calibrated for 30 steps to meet (eps = 2, delta = 1e-05); step 31 "
          "would exceed it");
  }
  CHECK(opt.steps() == 30);

  // Fixed-size batches by RDP.
  privet::calibration_options by_rdp;
  by_rdp.accountant = privet::accountant_kind::rdp;
  const dpsgd_options f{.learning_rate = 0.1,
                        .clip_norm = 1,
                        .batch_size = 5,
                        .sampling = batch_sampling::fixed_size};
  auto fixed = dpsgd<sparse_lr, simulation_only_noise>::calibrated(8, 100, f, target, 30, by_rdp);
  for (int s = 0; s < 30; ++s) (void)fixed.step(model, data, gen);
  const auto rf = fixed.privacy_spent(1e-5);
  REQUIRE(rf.accountants.rdp);
  CHECK(rf.accountants.rdp->epsilon() <= 2.0);
  CHECK(rf.accountants.rdp->epsilon() > 2.0 * (1 - 1e-4));
  // ...and not by the PLD accountant, which has no bound for it.
  CHECK(privet::test::rejected_parameter([&] {
          (void)dpsgd<sparse_lr>::calibrated(8, 100, f, target, 30, c);
        }) == "calibration.accountant");
}

TEST_CASE("one full-batch step calibrated by the PLD is the analytic Gaussian") {
  // Sotto Voce's per-step setting: eps = 100, delta = 1e-6, C = 1. With
  // q = 1 and one step the mechanism is a single Gaussian, whose exact
  // sigma is the analytic Gaussian's (Balle & Wang 2018); the PLD's
  // pessimistic grid can only ask for slightly more.
  const approx_dp target(100, 1e-6);
  auto opt = dpsgd<sparse_lr, simulation_only_noise>::calibrated(
      4, 50, {.learning_rate = 1e-4, .clip_norm = 1, .batch_size = 50}, target, 1);
  const double exact = privet::analytic_gaussian_sigma(target, 1.0);
  CHECK(opt.noise_stddev() >= exact * (1 - 1e-9));
  CHECK(opt.noise_stddev() == doctest::Approx(exact).epsilon(2e-3));
}

namespace {

// 400 points in two well-separated Gaussian blobs (centres -2 and 2 on the
// first axis, standard deviation 0.5), labels alternating; fixed seed.
dense_batch<double> two_blobs() {
  std::mt19937 data_gen(12);
  std::normal_distribution<double> nd(0, 0.5);
  dense_batch<double> data;
  data.x = xt::xtensor<double, 2>::from_shape({400, 2});
  for (std::size_t i = 0; i < 400; ++i) {
    const int y = static_cast<int>(i % 2);
    data.x(i, 0) = (y == 1 ? 2.0 : -2.0) + nd(data_gen);
    data.x(i, 1) = nd(data_gen);
    data.y.push_back(y);
  }
  return data;
}

}  // namespace

TEST_CASE("DP-SGD is generic: an MLP trains under DP-SGD") {
  // Two well-separated Gaussian blobs; eps ~ 3 over 200 steps. Deterministic
  // (fixed seeds), so this checks the wiring, not a probability.
  const dense_batch<double> data = two_blobs();
  privet::testing::seeded_release_generator gen(13);
  privet::ml::mlp<double> model({{2, 8, 2}, privet::ml::activation::tanh}, gen);
  privet::calibration_options by_rdp;
  by_rdp.accountant = privet::accountant_kind::rdp;
  auto opt = dpsgd<privet::ml::mlp<double>>::calibrated(
      model.parameter_count(), 400, {.learning_rate = 0.5, .clip_norm = 1, .batch_size = 40},
      approx_dp(3, 1e-5), 200, by_rdp);
  for (int s = 0; s < 200; ++s) (void)opt.step(model, data, gen);
  CHECK(privet::ml::accuracy(model.predict(data), data.y) > 0.95);
  CHECK(opt.privacy_spent(1e-5).accountants.tightest.epsilon() <= 3);
}

TEST_CASE("DP-SGD rejects bad parameters with named messages") {
  using privet::test::rejected_parameter;
  const dpsgd_options ok{.learning_rate = 0.1, .clip_norm = 1, .batch_size = 5};
  auto with = [&](auto change) {
    dpsgd_options o = ok;
    change(o);
    return o;
  };
  CHECK(rejected_parameter([&] {
          dpsgd<sparse_lr> d(4, 10, with([](auto& o) { o.learning_rate = 0; }), 1.0);
        }) == "learning_rate");
  CHECK(rejected_parameter([&] {
          dpsgd<sparse_lr> d(4, 10, with([](auto& o) { o.clip_norm = -1; }), 1.0);
        }) == "clip_norm");
  // A parameter left out is invalid, never a silent default.
  try {
    dpsgd<sparse_lr> d(4, 10, dpsgd_options{.clip_norm = 1, .batch_size = 5}, 1.0);
    FAIL("no throw");
  } catch (const privet::invalid_parameter& e) {
    CHECK(std::string(e.what()) ==
          "privet: learning_rate = nan is invalid; allowed: finite and > 0");
  }
  CHECK(rejected_parameter([&] {
          dpsgd<sparse_lr> d(4, 10, dpsgd_options{.learning_rate = 1, .batch_size = 5}, 1.0);
        }) == "clip_norm");
  CHECK(rejected_parameter([&] {
          dpsgd<sparse_lr> d(4, 10, dpsgd_options{.learning_rate = 1, .clip_norm = 1}, 1.0);
        }) == "batch_size");
  try {
    dpsgd<sparse_lr> d(4, 10, with([](auto& o) { o.batch_size = 11; }), 1.0);
    FAIL("no throw");
  } catch (const privet::invalid_parameter& e) {
    CHECK(std::string(e.what()) ==
          "privet: batch_size = 11 is invalid; allowed: [1, dataset_size = 10] (or 0 with a "
          "sampling_rate)");
  }
  CHECK(rejected_parameter([&] {
          dpsgd<sparse_lr> d(4, 10, with([](auto& o) { o.batch_size = 0; }), 1.0);
        }) == "batch_size");
  CHECK(rejected_parameter([&] {
          dpsgd<sparse_lr> d(4, 10, with([](auto& o) { o.weight_decay = -1; }), 1.0);
        }) == "weight_decay");
  CHECK(rejected_parameter([&] { dpsgd<sparse_lr> d(4, 0, ok, 1.0); }) == "dataset_size");
  CHECK(rejected_parameter([&] { dpsgd<sparse_lr> d(0, 10, ok, 1.0); }) == "parameter_count");
  CHECK(rejected_parameter([&] { dpsgd<sparse_lr> d(4, 10, ok, 0.0); }) == "noise_multiplier");
  try {
    dpsgd<sparse_lr> d(
        4, 10, with([](auto& o) { o.clip_norm = std::numeric_limits<double>::infinity(); }), 1.0);
    FAIL("no throw");
  } catch (const privet::invalid_parameter& e) {
    CHECK(std::string(e.what()) ==
          "privet: clip_norm = inf is invalid; allowed: finite and > 0 when noise is added");
  }
  CHECK(rejected_parameter([&] {
          (void)dpsgd<sparse_lr>::calibrated(4, 10, ok, approx_dp(1, 0), 10);
        }) == "target.delta");
  CHECK(rejected_parameter([&] {
          (void)dpsgd<sparse_lr>::calibrated(4, 10, ok, approx_dp(1, 1e-5), 0);
        }) == "steps");
  // Step-time checks: the data and the model must be the ones accounted for.
  dpsgd<sparse_lr> d(4, 10, ok, 1.0);
  sparse_lr model(4);
  const auto data = separable(10, 4, 1);
  const auto more = separable(11, 4, 1);
  privet::testing::seeded_release_generator gen(1);
  try {
    (void)d.step(model, more, gen);
    FAIL("no throw");
  } catch (const privet::invalid_parameter& e) {
    CHECK(std::string(e.what()) ==
          "privet: data.size() = 11 is invalid; allowed: the dataset size 10 the sampling rate "
          "was accounted for");
  }
  sparse_lr wrong(5);
  const auto data5 = separable(10, 5, 1);
  CHECK(rejected_parameter([&] { (void)d.step(wrong, data5, gen); }) == "model.parameter_count()");
  CHECK(d.steps() == 0);
  auto plain = dpsgd<sparse_lr>::non_private(4, 10, ok);
  try {
    (void)plain.privacy_spent(1e-5);
    FAIL("no throw");
  } catch (const privet::invalid_parameter& e) {
    CHECK(std::string(e.what()) ==
          "privet: noise_multiplier = 0 is invalid; allowed: > 0 for a privacy report (this "
          "optimiser adds no noise: its steps have no finite guarantee)");
  }
  CHECK(rejected_parameter([&] { (void)d.privacy_spent(0); }) == "delta");
}

TEST_CASE("privatize then apply_update is one step, and per-step calibration has no step limit") {
  const auto data = separable(80, 8, 21);
  const dpsgd_options o{
      .learning_rate = 0.2, .clip_norm = 0.7, .batch_size = 8, .weight_decay = 0.01};
  dpsgd<sparse_lr> a(8, 80, o, 1.1), b(8, 80, o, 1.1);
  sparse_lr ma(8), mb(8);
  privet::testing::seeded_release_generator ga(22), gb(22);
  for (int s = 0; s < 10; ++s) {
    const auto ra = a.step(ma, data, ga);
    const auto g = b.privatize(mb, data, gb);
    CHECK(g.report.batch == ra.batch);
    REQUIRE(g.gradient.size() == 8);
    b.apply_update(mb, g.gradient);
    for (std::size_t j = 0; j < 8; ++j) CHECK(ma.parameters()[j] == mb.parameters()[j]);
  }
  CHECK(b.steps() == 10);
  CHECK(b.odometer().entries()[0].count == 10);
  CHECK(privet::test::rejected_parameter(
            [&] { b.apply_update(mb, std::vector<double>(7, 0.0)); }) == "gradient.size()");

  // Calibrated so that one step meets (1, 1e-6); any number of steps may run.
  auto per_step =
      dpsgd<sparse_lr, simulation_only_noise>::calibrated_per_step(8, 80, o, approx_dp(1, 1e-6));
  CHECK_FALSE(per_step.budget_steps());
  CHECK(per_step.accounted_noise_multiplier() ==
        doctest::Approx(privet::dpsgd_noise_multiplier(0.1, 1, approx_dp(1, 1e-6))).epsilon(1e-6));
  sparse_lr mc(8);
  privet::testing::seeded_release_generator gc(23);
  (void)per_step.step(mc, data, gc);
  CHECK(per_step.privacy_spent(1e-6).accountants.pld->epsilon() <= 1.0);
  for (int s = 0; s < 4; ++s) (void)per_step.step(mc, data, gc);
  CHECK(per_step.privacy_spent(1e-6).accountants.pld->epsilon() > 1.0);
}

TEST_CASE("DP-SGD messages name the parameter, its value and the allowed range") {
  using privet::invalid_parameter;
  const dpsgd_options ok{.learning_rate = 0.1, .clip_norm = 1, .batch_size = 5};
  auto with = [&](auto change) {
    dpsgd_options o = ok;
    change(o);
    return o;
  };
  CHECK_THROWS_WITH_AS(dpsgd<sparse_lr>(4, 10, ok, 0.0),
                       "privet: noise_multiplier = 0 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(dpsgd<sparse_lr>(4, 0, ok, 1.0),
                       "privet: dataset_size = 0 is invalid; allowed: >= 1", invalid_parameter);
  CHECK_THROWS_WITH_AS(dpsgd<sparse_lr>(0, 10, ok, 1.0),
                       "privet: parameter_count = 0 is invalid; allowed: >= 1", invalid_parameter);
  CHECK_THROWS_WITH_AS(dpsgd<sparse_lr>(4, 10, with([](auto& o) { o.clip_norm = -1; }), 1.0),
                       "privet: clip_norm = -1 is invalid; allowed: > 0 (or +inf without noise)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(static_cast<void>(dpsgd<sparse_lr>::non_private(
                           4, 10, dpsgd_options{.learning_rate = 1, .batch_size = 5})),
                       "privet: clip_norm = nan is invalid; allowed: > 0 (or +inf without noise)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(
      dpsgd<sparse_lr>(4, 10, with([](auto& o) { o.batch_size = 0; }), 1.0),
      "privet: batch_size = 0 is invalid; allowed: [1, dataset_size = 10] (or 0 with a "
      "sampling_rate)",
      invalid_parameter);
  CHECK_THROWS_WITH_AS(
      dpsgd<sparse_lr>(4, 10, with([](auto& o) { o.sampling = static_cast<batch_sampling>(7); }),
                       1.0),
      "privet: sampling = 7 is invalid; allowed: poisson or fixed_size", invalid_parameter);
  CHECK_THROWS_WITH_AS(dpsgd<sparse_lr>(4, 10, with([](auto& o) { o.weight_decay = -1; }), 1.0),
                       "privet: weight_decay = -1 is invalid; allowed: finite and >= 0",
                       invalid_parameter);
  const std::string too_many = std::to_string(privet::max_parallel_threads + 1);
  CHECK_THROWS_WITH_AS(dpsgd<sparse_lr>(4, 10, with([](auto& o) {
                                          o.noise_threads = privet::parallel_options{
                                              privet::max_parallel_threads + 1};
                                        }),
                                        1.0),
                       ("privet: threads = " + too_many + " is invalid; allowed: [0, " +
                        std::to_string(privet::max_parallel_threads) +
                        "] (0: every core TBB may use, 1: the calling thread only)")
                           .c_str(),
                       invalid_parameter);
  // calibrated(): the clip norm, the step count and the target.
  CHECK_THROWS_WITH_AS(
      (void)dpsgd<sparse_lr>::calibrated(
          4, 10, with([](auto& o) { o.clip_norm = std::numeric_limits<double>::infinity(); }),
          approx_dp(1, 1e-5), 10),
      "privet: clip_norm = inf is invalid; allowed: finite and > 0 when noise is added",
      invalid_parameter);
  CHECK_THROWS_WITH_AS((void)dpsgd<sparse_lr>::calibrated(4, 10, ok, approx_dp(1, 1e-5), 0),
                       "privet: steps = 0 is invalid; allowed: >= 1", invalid_parameter);
  CHECK_THROWS_WITH_AS((void)dpsgd<sparse_lr>::calibrated(4, 10, ok, approx_dp(0, 1e-5), 10),
                       "privet: target.epsilon = 0 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((void)dpsgd<sparse_lr>::calibrated(4, 10, ok, approx_dp(1, 0), 10),
                       "privet: target.delta = 0 is invalid; allowed: (0, 1)", invalid_parameter);
  CHECK_THROWS_WITH_AS(
      (void)dpsgd<sparse_lr>::calibrated(
          4, 10, with([](auto& o) { o.sampling = batch_sampling::fixed_size; }), approx_dp(1, 1e-5),
          10),
      "privet: calibration.accountant = PLD is invalid; allowed: RDP for fixed-size batches "
      "(sampling without replacement has only an RDP bound)",
      invalid_parameter);
  // Step-time checks.
  dpsgd<sparse_lr> d(4, 10, ok, 1.0);
  sparse_lr wrong(5);
  const auto data5 = separable(10, 5, 1);
  privet::testing::seeded_release_generator gen(2);
  CHECK_THROWS_WITH_AS((void)d.privatize(wrong, data5, gen),
                       "privet: model.parameter_count() = 5 is invalid; allowed: the optimiser's 4",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(d.apply_update(wrong, std::vector<double>(4, 0.0)),
                       "privet: model.parameter_count() = 5 is invalid; allowed: the optimiser's 4",
                       invalid_parameter);
  sparse_lr model(4);
  CHECK_THROWS_WITH_AS(d.apply_update(model, std::vector<double>(3, 0.0)),
                       "privet: gradient.size() = 3 is invalid; allowed: the parameter count 4",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((void)d.privacy_spent(0), "privet: delta = 0 is invalid; allowed: (0, 1)",
                       invalid_parameter);
  const auto plain = dpsgd<sparse_lr>::non_private(4, 10, ok);
  CHECK_THROWS_WITH_AS((void)plain.step_event(),
                       "privet: noise_multiplier = 0 is invalid; allowed: > 0 for an accounting "
                       "event",
                       invalid_parameter);
  CHECK(d.steps() == 0);
}

// ---- user-level DP-SGD (privacy units) ---------------------------------------

namespace {
using privet::ml::privacy_units;

std::vector<double> difference_over_lr(const std::vector<double>& before,
                                       std::span<const double> after, double lr) {
  std::vector<double> out(before.size());
  for (std::size_t j = 0; j < before.size(); ++j) out[j] = (before[j] - after[j]) / lr;
  return out;
}

// A user-level step's gradient from scratch: the sum over the batch's users
// u of clip(mean of the rows of g whose unit_of is u, the first `cap` of
// them in increasing order (0: all)) / b.
std::vector<double> user_level_gradient(const xt::xtensor<double, 2>& g,
                                        const std::vector<std::size_t>& unit_of,
                                        const std::vector<std::size_t>& batch, double b,
                                        double clip, std::size_t cap = 0) {
  const std::size_t p = g.shape(1);
  std::vector<double> out(p, 0.0);
  for (std::size_t u : batch) {
    std::vector<double> mean(p, 0.0);
    double count = 0;
    for (std::size_t i = 0; i < unit_of.size(); ++i) {
      if (unit_of[i] != u || (cap > 0 && count == static_cast<double>(cap))) continue;
      for (std::size_t j = 0; j < p; ++j) mean[j] += g(i, j);
      ++count;
    }
    for (auto& v : mean) v /= count;
    const double scale = std::min(1.0, clip / norm(mean));
    for (std::size_t j = 0; j < p; ++j) out[j] += scale * mean[j] / b;
  }
  return out;
}
}  // namespace

TEST_CASE("user-level DP-SGD clips each user's mean gradient as one record") {
  // 8 examples of 4 users, all users in the batch (fixed size b = U = 4), no
  // noise: the update is sum_u clip(mean_{i in u} g_i) / 4, computed here
  // from the model's per-example gradients.
  const auto data = gaussian_rows(8, 5, 4.0, 31);
  const std::vector<std::size_t> unit_of{0, 0, 1, 2, 2, 2, 3, 1};
  const privacy_units users(unit_of);
  dense_lr model(5, true);
  for (std::size_t j = 0; j < 6; ++j) model.parameters()[j] = 0.05 * static_cast<double>(j);
  const auto g = model.per_example_gradients(data);
  std::vector<std::vector<double>> means;
  for (std::size_t u = 0; u < 4; ++u) {
    std::vector<double> mean(6, 0.0);
    double count = 0;
    for (std::size_t i = 0; i < 8; ++i) {
      if (unit_of[i] != u) continue;
      for (std::size_t j = 0; j < 6; ++j) mean[j] += g(i, j);
      ++count;
    }
    for (auto& v : mean) v /= count;
    means.push_back(mean);
  }
  // A clip bound between the users' second and third norms: two are clipped.
  std::vector<double> norms;
  for (const auto& m : means) norms.push_back(norm(m));
  std::sort(norms.begin(), norms.end());
  REQUIRE(norms[2] > norms[1] * 1.01);
  const double clip = (norms[1] + norms[2]) / 2;
  std::vector<double> expect(6, 0.0);
  std::size_t expect_clipped = 0;
  for (const auto& mean : means) {
    const double scale = std::min(1.0, clip / norm(mean));
    if (scale < 1) ++expect_clipped;
    for (std::size_t j = 0; j < 6; ++j) expect[j] += scale * mean[j] / 4;
  }
  REQUIRE(expect_clipped == 2);
  const std::vector<double> w0(model.parameters().begin(), model.parameters().end());
  auto opt = dpsgd<dense_lr>::non_private(6, 8,
                                          {.learning_rate = 2,
                                           .clip_norm = clip,
                                           .batch_size = 4,
                                           .sampling = batch_sampling::fixed_size,
                                           .units = users});
  CHECK(opt.population() == 4);
  CHECK(opt.sampling_rate() == 1.0);
  privet::testing::seeded_release_generator gen(32);
  const auto r = opt.step(model, data, gen);
  CHECK(r.batch == std::vector<std::size_t>{0, 1, 2, 3});
  CHECK(r.clipped == expect_clipped);
  const auto got = difference_over_lr(w0, model.parameters(), 2);
  for (std::size_t j = 0; j < 6; ++j) CHECK(got[j] == doctest::Approx(expect[j]).epsilon(1e-12));
  // Per-example clipping of the same batch would give another update.
  auto per_example = g;
  (void)privet::ml::clip_each_row(per_example, clip);
  double s0 = 0;
  for (std::size_t i = 0; i < 8; ++i) s0 += per_example(i, 0) / 4;
  CHECK(std::abs(s0 - expect[0]) > 1e-6);
}

TEST_CASE("with one example per user, user-level DP-SGD takes the example-level steps") {
  const auto data = gaussian_rows(40, 6, 3.0, 33);
  std::vector<std::size_t> identity(40);
  for (std::size_t i = 0; i < 40; ++i) identity[i] = i;
  const dpsgd_options examples{.learning_rate = 0.3, .clip_norm = 0.4, .batch_size = 8};
  dpsgd_options users = examples;
  users.units = privacy_units(identity);
  dpsgd<dense_lr, simulation_only_noise> a(7, 40, examples, 0.9), b(7, 40, users, 0.9);
  dense_lr ma(6, true), mb(6, true);
  privet::testing::seeded_release_generator ga(34), gb(34);
  for (int s = 0; s < 15; ++s) {
    const auto ra = a.step(ma, data, ga);
    const auto rb = b.step(mb, data, gb);
    CHECK(ra.batch == rb.batch);
    CHECK(ra.clipped == rb.clipped);
  }
  for (std::size_t j = 0; j < 7; ++j)
    CHECK(ma.parameters()[j] == doctest::Approx(mb.parameters()[j]).epsilon(1e-10));
  // The same events, so the same report, except for the unit it names.
  const auto pa = a.privacy_spent(1e-5), pb = b.privacy_spent(1e-5);
  CHECK(pa.accountants.tightest.epsilon() == pb.accountants.tightest.epsilon());
  CHECK(pa.users == 0);
  CHECK(pb.users == 40);
  CHECK(privet::ml::to_string(pa).find("privacy unit: one example") != std::string::npos);
  CHECK(privet::ml::to_string(pb).find(
            "privacy unit: one user, with all of their examples (40 users)") != std::string::npos);
}

TEST_CASE("a sampling rate below one user per batch divides by the expected batch q U") {
  // One user holding all 12 examples, sampled in about a tenth of the steps.
  const auto data = gaussian_rows(12, 4, 2.0, 35);
  const privacy_units one(std::vector<std::size_t>(12, 0));
  const dpsgd_options o{.learning_rate = 1, .clip_norm = 0.25, .sampling_rate = 0.1, .units = one};
  auto opt = dpsgd<dense_lr>::non_private(5, 12, o);
  CHECK(opt.population() == 1);
  CHECK(opt.sampling_rate() == 0.1);
  CHECK(opt.expected_batch_size() == 0.1);
  dense_lr model(4, true);
  const auto mean = privet::ml::mean_gradient(model, data);
  std::vector<double> m(mean.begin(), mean.end());
  const double scale = std::min(1.0, 0.25 / norm(m));
  privet::testing::seeded_release_generator gen(36);
  int sampled = 0, skipped = 0;
  for (int s = 0; s < 60; ++s) {
    const auto g = opt.privatize(model, data, gen);
    if (g.report.batch.empty()) {
      ++skipped;
      for (double v : g.gradient) CHECK(v == 0);
    } else {
      ++sampled;
      CHECK(g.report.batch == std::vector<std::size_t>{0});
      for (std::size_t j = 0; j < 5; ++j)
        CHECK(g.gradient[j] == doctest::Approx(scale * m[j] / 0.1).epsilon(1e-12));
    }
  }
  // Both outcomes occur with these seeds (each has probability > 1 - 1e-2
  // over 60 steps at q = 0.1).
  CHECK(sampled > 0);
  CHECK(skipped > 0);

  // Accounting: the same event as example-level DP-SGD at q = 0.1.
  dpsgd<dense_lr, simulation_only_noise> users(5, 12, o, 1.2);
  dpsgd<dense_lr, simulation_only_noise> examples(
      5, 10, {.learning_rate = 1, .clip_norm = 0.25, .batch_size = 1}, 1.2);
  const auto ten = gaussian_rows(10, 4, 2.0, 37);
  privet::testing::seeded_release_generator g1(38), g2(39);
  for (int s = 0; s < 20; ++s) {
    (void)users.privatize(model, data, g1);
    (void)examples.privatize(model, ten, g2);
  }
  const auto pu = users.privacy_spent(1e-5), pe = examples.privacy_spent(1e-5);
  CHECK(pu.sampling_rate == pe.sampling_rate);
  // The same event up to the rounding margin, which grows with the
  // population (1 user against 10 examples).
  CHECK(pu.noise_multiplier == doctest::Approx(pe.noise_multiplier).epsilon(1e-13));
  CHECK(pu.accountants.tightest.epsilon() ==
        doctest::Approx(pe.accountants.tightest.epsilon()).epsilon(1e-10));
  CHECK(pu.users == 1);
}

TEST_CASE("user-level DP-SGD and sampling rates reject bad options with named messages") {
  using privet::invalid_parameter;
  const privacy_units three(std::vector<std::size_t>{0, 1, 2, 0, 1, 2});
  const dpsgd_options ok{.learning_rate = 0.1, .clip_norm = 1, .batch_size = 2, .units = three};
  auto with = [&](auto change) {
    dpsgd_options o = ok;
    change(o);
    return o;
  };
  CHECK_NOTHROW(dpsgd<sparse_lr>(4, 6, ok, 1.0));
  CHECK_THROWS_WITH_AS(dpsgd<sparse_lr>(4, 7, ok, 1.0),
                       "privet: units.example_count() = 6 is invalid; allowed: the dataset size 7 "
                       "(the partition must cover every example once)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(dpsgd<sparse_lr>(4, 6, with([](auto& o) { o.batch_size = 4; }), 1.0),
                       "privet: batch_size = 4 is invalid; allowed: [1, units.unit_count() = 3] "
                       "(or 0 with a sampling_rate)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(dpsgd<sparse_lr>(4, 6, with([](auto& o) { o.sampling_rate = 0.5; }), 1.0),
                       "privet: batch_size = 2 is invalid; allowed: 0 when sampling_rate is given "
                       "(give one of the two)",
                       invalid_parameter);
  for (double bad : {0.0, -0.1, 1.5, 1e-310, std::numeric_limits<double>::infinity()}) {
    CHECK(privet::test::rejected_parameter([&] {
            (void)dpsgd<sparse_lr>(4, 6, with([&](auto& o) {
                                     o.batch_size = 0;
                                     o.sampling_rate = bad;
                                   }),
                                   1.0);
          }) == "sampling_rate");
  }
  CHECK_THROWS_WITH_AS(dpsgd<sparse_lr>(4, 6, with([](auto& o) {
                                          o.batch_size = 0;
                                          o.sampling_rate = 2;
                                        }),
                                        1.0),
                       "privet: sampling_rate = 2 is invalid; allowed: [2^-1022, 1] (a normal "
                       "double), or NaN to use batch_size",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(dpsgd<sparse_lr>(4, 6, with([](auto& o) {
                                          o.batch_size = 0;
                                          o.sampling_rate = 0.5;
                                          o.sampling = batch_sampling::fixed_size;
                                        }),
                                        1.0),
                       "privet: sampling_rate = 0.5 is invalid; allowed: NaN (unset) for "
                       "fixed-size batches, which take a batch_size",
                       invalid_parameter);
  // Calibration runs on the users' rate: q = 2 / 3.
  // (RDP on integer orders only: the default fractional ones take seconds.)
  privet::calibration_options rdp{.accountant = privet::accountant_kind::rdp};
  rdp.orders.clear();
  for (int a = 2; a <= 64; ++a) rdp.orders.push_back(a);
  const auto c = dpsgd<sparse_lr>::calibrated(4, 6, ok, approx_dp(1, 1e-5), 5, rdp);
  CHECK(c.sampling_rate() == doctest::Approx(2.0 / 3.0).epsilon(1e-15));
  CHECK(c.privacy_spent(1e-5).steps == 0);
}

TEST_CASE("each step sums the sampled users' clipped mean gradients, whatever their sizes") {
  // 10 users of 1 to 4 examples over 23 examples, ids shuffled across the
  // data; Poisson at q = 0.4 (b = 4 of 10) and fixed-size b = 3. Without
  // noise each step's gradient is sum over the sampled users of
  // clip(mean over examples_of(u)) / b, computed here from scratch.
  const auto data = gaussian_rows(23, 4, 3.0, 41);
  std::vector<std::size_t> unit_of;
  for (std::size_t u = 0; u < 10; ++u)
    for (std::size_t k = 0; k <= u % 4; ++k) unit_of.push_back((7 * u + 3) % 10);
  REQUIRE(unit_of.size() == 23);
  std::mt19937 shuffle(42);
  std::shuffle(unit_of.begin(), unit_of.end(), shuffle);
  const privacy_units users(unit_of);
  REQUIRE(users.unit_count() == 10);
  dense_lr model(4, true);
  for (std::size_t j = 0; j < 5; ++j) model.parameters()[j] = 0.2 - 0.1 * static_cast<double>(j);
  const auto g = model.per_example_gradients(data);
  const double clip = 0.6;
  auto expected = [&](const std::vector<std::size_t>& batch, double b) {
    return user_level_gradient(g, unit_of, batch, b, clip);
  };
  for (auto sampling : {batch_sampling::poisson, batch_sampling::fixed_size}) {
    const std::size_t b = sampling == batch_sampling::poisson ? 4 : 3;
    auto opt = dpsgd<dense_lr>::non_private(5, 23,
                                            {.learning_rate = 1,
                                             .clip_norm = clip,
                                             .batch_size = b,
                                             .sampling = sampling,
                                             .units = users});
    CHECK(opt.population() == 10);
    privet::testing::seeded_release_generator gen(43);
    std::size_t nonempty = 0, partial = 0;
    for (int step = 0; step < 12; ++step) {
      const auto p = opt.privatize(model, data, gen);
      for (std::size_t u : p.report.batch) CHECK(u < 10);
      if (sampling == batch_sampling::fixed_size) CHECK(p.report.batch.size() == 3);
      nonempty += !p.report.batch.empty();
      partial += p.report.batch.size() < 10;
      const auto want = expected(p.report.batch, static_cast<double>(b));
      for (std::size_t j = 0; j < 5; ++j)
        CHECK(p.gradient[j] == doctest::Approx(want[j]).epsilon(1e-12));
    }
    CHECK(nonempty > 0);
    CHECK(partial > 0);
  }
  // Fixed-size batches of users are accounted without replacement at
  // gamma = b / U.
  dpsgd<dense_lr, simulation_only_noise> fixed(5, 23,
                                               {.learning_rate = 1,
                                                .clip_norm = clip,
                                                .batch_size = 3,
                                                .sampling = batch_sampling::fixed_size,
                                                .units = users},
                                               1.5);
  const auto e = fixed.step_event();
  REQUIRE(std::holds_alternative<privet::fixed_size_subsampled_gaussian_event>(e));
  CHECK(std::get<privet::fixed_size_subsampled_gaussian_event>(e).sampling_fraction == 0.3);
}

TEST_CASE("calibration with a sampling rate below one user per batch uses that rate") {
  // One user, q = 0.1: calibrated() and calibrated_per_step() find the
  // multiplier dpsgd_noise_multiplier gives for q = 0.1 (b / N would be 0).
  const privacy_units one(std::vector<std::size_t>(6, 0));
  const dpsgd_options o{.learning_rate = 0.1, .clip_norm = 1, .sampling_rate = 0.1, .units = one};
  privet::calibration_options rdp{.accountant = privet::accountant_kind::rdp};
  rdp.orders.clear();
  for (int a = 2; a <= 64; ++a) rdp.orders.push_back(a);
  const approx_dp target(2, 1e-5);
  const double needed = privet::dpsgd_noise_multiplier(0.1, 30, target, rdp);
  const auto total = dpsgd<sparse_lr>::calibrated(4, 6, o, target, 30, rdp);
  CHECK(total.sampling_rate() == 0.1);
  CHECK(total.accounted_noise_multiplier() >= needed);
  CHECK(total.accounted_noise_multiplier() == doctest::Approx(needed).epsilon(1e-4));
  const double per_step_needed = privet::dpsgd_noise_multiplier(0.1, 1, target, rdp);
  const auto per_step = dpsgd<sparse_lr>::calibrated_per_step(4, 6, o, target, rdp);
  CHECK(per_step.accounted_noise_multiplier() >= per_step_needed);
  CHECK(per_step.accounted_noise_multiplier() == doctest::Approx(per_step_needed).epsilon(1e-4));
  CHECK(per_step.expected_batch_size() == 0.1);
}

// ---- the data rule (docs/data_rule.md) ----------------------------------------

namespace {
dense_batch<double> with_extra_row(const dense_batch<double>& d, std::vector<double> row, int y) {
  dense_batch<double> out;
  const std::size_t n = d.size(), f = d.features();
  out.x = xt::xtensor<double, 2>::from_shape({n + 1, f});
  std::copy(d.x.begin(), d.x.end(), out.x.begin());
  std::copy(row.begin(), row.end(), out.x.begin() + static_cast<std::ptrdiff_t>(n * f));
  out.y = d.y;
  out.y.push_back(y);
  return out;
}
}  // namespace

// D against D plus one record a model cannot use (NaN or infinite features,
// a label that is not 1, 0 or -1): both steps release, and their noiseless
// sums (q = 1: every record is in the batch) differ by at most the
// sensitivity the noise is calibrated to. At example level and at user level
// (the bad record joins a user's examples).
TEST_CASE("a DP-SGD step releases whatever one record holds, within the sensitivity") {
  const auto clean = gaussian_rows(20, 4, 2.0, 50);
  dense_lr model(4, true);
  for (std::size_t j = 0; j < 5; ++j) model.parameters()[j] = 0.3 - 0.1 * static_cast<double>(j);
  const double c = 0.5;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<std::pair<std::vector<double>, int>> bad_records{{{1, nan, 0, 0}, 1},
                                                                     {{inf, 0, 0, 1}, 0},
                                                                     {{0, 0, -inf, 0}, 1},
                                                                     {{1, 1, 1, 1}, 7},
                                                                     {{1, 1, 1, 1}, -5}};
  for (std::size_t k = 0; k < bad_records.size(); ++k) {
    CAPTURE(k);
    const auto bad = with_extra_row(clean, bad_records[k].first, bad_records[k].second);
    // Example level.
    const dpsgd_options o{.learning_rate = 1, .clip_norm = c, .sampling_rate = 1.0};
    auto on_clean = dpsgd<dense_lr>::non_private(5, 20, o);
    auto on_bad = dpsgd<dense_lr>::non_private(5, 21, o);
    privet::testing::seeded_release_generator g1(51), g2(52);
    privet::ml::privatized_gradient a, b;
    REQUIRE_NOTHROW(a = on_clean.privatize(model, clean, g1));
    REQUIRE_NOTHROW(b = on_bad.privatize(model, bad, g2));
    std::vector<double> sa(5), sb(5);
    for (std::size_t j = 0; j < 5; ++j) {
      sa[j] = a.gradient[j] * 20;
      sb[j] = b.gradient[j] * 21;
      sa[j] -= sb[j];
    }
    CHECK(norm(sa) <= privet::ml::clipped_gradient_sum_sensitivity(c, 5, 21, 1));
    // With noise, the step releases a finite update.
    dpsgd<dense_lr, simulation_only_noise> noisy(5, 21, o, 1.0);
    privet::testing::seeded_release_generator g3(53);
    const auto released = noisy.privatize(model, bad, g3);
    for (double v : released.gradient) CHECK(std::isfinite(v));

    // User level: 21 examples, user 0 holds examples 0, 1 and the bad one;
    // against the same users without it.
    std::vector<std::size_t> owners(20);
    for (std::size_t i = 0; i < 20; ++i) owners[i] = i / 2;
    auto owners_bad = owners;
    owners_bad.push_back(0);
    const dpsgd_options ou{
        .learning_rate = 1, .clip_norm = c, .sampling_rate = 1.0, .units = privacy_units(owners)};
    auto oub = ou;
    oub.units = privacy_units(owners_bad);
    auto users_clean = dpsgd<dense_lr>::non_private(5, 20, ou);
    auto users_bad = dpsgd<dense_lr>::non_private(5, 21, oub);
    REQUIRE_NOTHROW(a = users_clean.privatize(model, clean, g1));
    REQUIRE_NOTHROW(b = users_bad.privatize(model, bad, g2));
    for (std::size_t j = 0; j < 5; ++j) sa[j] = (a.gradient[j] - b.gradient[j]) * 10;
    // Replacing user 0's data: at most 2 clipped rows apart.
    CHECK(norm(sa) <= privet::ml::clipped_gradient_sum_sensitivity(c, 5, 10, 2));
    for (double v : b.gradient) CHECK(std::isfinite(v));
  }
}

// The rounding margin grows with N C, so a clip norm for which it overflows
// is refused as a parameter, in both constructors.
TEST_CASE("a clip norm whose rounding margin is not a finite double is refused") {
  const dpsgd_options o{.learning_rate = 0.1, .clip_norm = 1e308, .batch_size = 2};
  try {
    dpsgd<dense_lr, simulation_only_noise> d(5, 10, o, 1.0);
    FAIL("no throw");
  } catch (const privet::invalid_parameter& e) {
    CHECK(std::string(e.what()) ==
          "privet: clip_norm = 1e+308 is invalid; allowed: small enough that the population (10) "
          "times clip_norm is a finite double");
  }
  CHECK(privet::test::rejected_parameter([&] {
          (void)dpsgd<dense_lr, simulation_only_noise>::calibrated(5, 10, o, approx_dp(1, 1e-5),
                                                                   10);
        }) == "clip_norm");
  // 1e300 on 10 examples is fine.
  dpsgd<dense_lr, simulation_only_noise> fine(
      5, 10, {.learning_rate = 0.1, .clip_norm = 1e300, .batch_size = 2}, 1.0);
  CHECK(fine.accounted_noise_multiplier() < 1.0);
}

TEST_CASE("constant-time noise: the exact steps' epsilon at delta less the samplers' share") {
  // The same run under secure_noise and constant_time_noise: the same
  // mechanism parameters, hence the same events; the constant-time steps
  // are each within P tau of the exact ones, and the report is the exact
  // accountants' at delta - share (accounting/odometer.hpp), share = max(4
  // T P tau, 2^-48 delta) here, since (1 + e^eps) T P tau is far smaller.
  const auto data = separable(200, 10, 6);
  const double z = 1.3, delta = 1e-5;
  const dpsgd_options o{.learning_rate = 0.1, .clip_norm = 1.5, .batch_size = 10};
  dpsgd<sparse_lr, privet::secure_noise> exact(10, 200, o, z);
  dpsgd<sparse_lr> timed(10, 200, o, z);  // constant_time_noise, the default
  CHECK(timed.noise_stddev() == exact.noise_stddev());
  CHECK(timed.accounted_noise_multiplier() == exact.accounted_noise_multiplier());
  sparse_lr m1(10), m2(10);
  seeded_release_generator g1(7), g2(7);
  const std::uint64_t k = 40;
  for (std::uint64_t s = 0; s < k; ++s) {
    (void)exact.step(m1, data, g1);
    (void)timed.step(m2, data, g2);
  }
  // Each step's distance: the mechanism's, P coordinates of tau each, plus
  // the batch's, N coins within 2^-128 of q each.
  const auto mech = privet::gaussian_mechanism<double, privet::constant_time_noise>::from_scale(
      timed.noise_stddev(), 10);
  // (plus 2^-100 for a batch beyond the padded steps' capacity)
  CHECK(timed.sampling_total_variation() ==
        privet::detail::add_up(privet::detail::mul_up(200, 0x1p-128), 0x1p-100));
  CHECK(exact.sampling_total_variation() == 0);
  const double per_step =
      privet::detail::add_up(mech.sampler_total_variation(), timed.sampling_total_variation());
  CHECK(timed.step_total_variation() == per_step);
  CHECK(per_step > 0);
  CHECK(per_step <= 11 * 0x1p-100 + 200 * 0x1p-127);
  const double tv = timed.odometer().total_variation();
  CHECK(exact.odometer().total_variation() == 0);
  CHECK(tv >= k * per_step);
  CHECK(tv <= k * per_step * (1 + 1e-13));
  const auto r = timed.privacy_spent(delta);
  const auto plain = exact.odometer().report(delta - std::ldexp(delta, -48));
  REQUIRE(r.accountants.rdp);
  REQUIRE(r.accountants.pld);
  REQUIRE(r.accountants.prv);
  CHECK(r.accountants.rdp->epsilon() == plain.rdp->epsilon());
  CHECK(r.accountants.pld->epsilon() == plain.pld->epsilon());
  CHECK(r.accountants.prv->epsilon() == plain.prv->epsilon());
  CHECK(r.accountants.tightest.delta() == delta);
  // add_total_variation of the exact guarantee fits within the delta asked.
  CHECK(privet::add_total_variation(*plain.pld, tv).delta() <= delta);
  // A delta-raised view of the same fact: at the report's epsilon the
  // odometer's delta is the exact one's plus (1 + e^eps) T P tau.
  const double eps = r.accountants.pld->epsilon();
  CHECK(timed.odometer().delta(eps) ==
        privet::add_total_variation(approx_dp(eps, exact.odometer().delta(eps)), tv).delta());
  // The epsilons are the exact run's to 12 digits: the share is 2^-48 delta.
  CHECK(r.accountants.pld->epsilon() ==
        doctest::Approx(exact.privacy_spent(delta).accountants.pld->epsilon()).epsilon(1e-12));
}

TEST_CASE("constant-time Poisson batches: two words a unit, whatever the coins") {
  // A counting generator: a non-private optimiser (no noise) draws exactly
  // 2 N words a step (plus one per padded row) whatever the batch, and its batches are increasing
  // and within the population; at q = 1 every unit, no word drawn.
  const auto data = separable(50, 4, 3);
  auto opt =
      dpsgd<sparse_lr>::non_private(4, 50, {.learning_rate = 0.1, .clip_norm = 1, .batch_size = 5});
  static_assert(dpsgd<sparse_lr>::constant_time_sampling);
  static_assert(!dpsgd<sparse_lr, privet::secure_noise>::constant_time_sampling);
  sparse_lr model(4);
  privet::test::counting_release_generator gen(9);
  std::set<std::size_t> sizes;
  for (int s = 0; s < 200; ++s) {
    const std::uint64_t before = gen.calls();
    const auto r = opt.step(model, data, gen);
    CHECK(gen.calls() - before == 100 + opt.batch_capacity());  // coins, then the fillers
    for (std::size_t i = 1; i < r.batch.size(); ++i) REQUIRE(r.batch[i - 1] < r.batch[i]);
    if (!r.batch.empty()) CHECK(r.batch.back() < 50);
    sizes.insert(r.batch.size());
  }
  CHECK(sizes.size() > 5);  // Binomial(50, 0.1): the sizes vary
  auto all = dpsgd<sparse_lr>::non_private(
      4, 50, {.learning_rate = 0.1, .clip_norm = 1, .batch_size = 50});
  const std::uint64_t before = gen.calls();
  std::vector<std::size_t> every(50);
  for (std::size_t i = 0; i < 50; ++i) every[i] = i;
  CHECK(all.step(model, data, gen).batch == every);
  CHECK(gen.calls() == before);
  CHECK(all.sampling_total_variation() == 0);
  // The coin's threshold: floor(q 2^128) for q = 0.1. The double 0.1 is m
  // 2^-56 with m = 0x1999999999999a, so q 2^128 = m 2^72 exactly: the high
  // word m 2^8, the low word 0, and P[coin] = q exactly.
  const auto t = privet::detail::ct_threshold_below(0.1);
  CHECK(t.hi == std::uint64_t{0x1999999999999a} << 8);
  CHECK(t.lo == 0);
}

TEST_CASE("constant-time noise: calibration meets the target with the samplers' share") {
  const auto data = separable(100, 8, 10);
  const approx_dp target(2.0, 1e-5);
  const dpsgd_options o{.learning_rate = 0.1, .clip_norm = 1, .batch_size = 5};
  privet::calibration_options c;
  c.relative_tolerance = 1e-4;
  c.pld.value_discretization_interval = 1e-2;
  privet::odometer_options same;
  same.pld = c.pld;
  auto opt =
      dpsgd<sparse_lr, privet::constant_time_noise>::calibrated(8, 100, o, target, 30, c, same);
  REQUIRE(opt.budget_steps());
  CHECK(*opt.budget_steps() == 30);
  sparse_lr model(8);
  seeded_release_generator gen(11);
  for (int s = 0; s < 30; ++s) (void)opt.step(model, data, gen);
  CHECK(opt.odometer().total_variation() > 0);
  const auto r = opt.privacy_spent(1e-5);
  REQUIRE(r.accountants.pld);
  CHECK(r.accountants.pld->delta() == 1e-5);
  CHECK(r.accountants.pld->epsilon() <= 2.0);
  CHECK(r.accountants.pld->epsilon() > 2.0 * (1 - 2e-3));
  CHECK_THROWS_AS((void)opt.step(model, data, gen), privet::budget_exhausted);
  // The calibrated multiplier is secure noise's to the calibration's
  // tolerance: the share costs a relative 2^-46 of delta.
  auto secure = dpsgd<sparse_lr>::calibrated(8, 100, o, target, 30, c, same);
  CHECK(opt.accounted_noise_multiplier() >= secure.accounted_noise_multiplier() * (1 - 1e-4));
  CHECK(opt.accounted_noise_multiplier() ==
        doctest::Approx(secure.accounted_noise_multiplier()).epsilon(2e-4));
  // A target whose share (1 + e^eps) T P 2^-100 exceeds delta is refused:
  // Sotto Voce's per-step eps = 100 (e^100 P 2^-100 ~ 8.5e13 > 1e-6).
  CHECK(privet::test::rejected_parameter([&] {
          (void)dpsgd<sparse_lr, privet::constant_time_noise>::calibrated_per_step(
              4, 50, {.learning_rate = 1e-4, .clip_norm = 1, .batch_size = 50},
              approx_dp(100, 1e-6));
        }) == "target.delta");
}

TEST_CASE("constant-time noise: an MLP trains as under exact noise") {
  // The MLP test above, with the noise drawn by the constant-time sampler;
  // deterministic (fixed seeds), so it checks the wiring and that the noise
  // has the exact sampler's scale.
  const dense_batch<double> data = two_blobs();
  using net = privet::ml::mlp<double>;
  privet::calibration_options by_rdp;
  by_rdp.accountant = privet::accountant_kind::rdp;
  const dpsgd_options o{.learning_rate = 0.5, .clip_norm = 1, .batch_size = 40};
  double accuracy[2] = {0, 0};
  double eps[2] = {0, 0};
  for (int timed = 0; timed < 2; ++timed) {
    seeded_release_generator gen(13);
    net model({{2, 8, 2}, privet::ml::activation::tanh}, gen);
    if (timed == 1) {
      auto opt = dpsgd<net, privet::constant_time_noise>::calibrated(
          model.parameter_count(), 400, o, approx_dp(3, 1e-5), 200, by_rdp);
      for (int s = 0; s < 200; ++s) (void)opt.step(model, data, gen);
      eps[1] = opt.privacy_spent(1e-5).accountants.tightest.epsilon();
    } else {
      auto opt =
          dpsgd<net>::calibrated(model.parameter_count(), 400, o, approx_dp(3, 1e-5), 200, by_rdp);
      for (int s = 0; s < 200; ++s) (void)opt.step(model, data, gen);
      eps[0] = opt.privacy_spent(1e-5).accountants.tightest.epsilon();
    }
    accuracy[timed] = privet::ml::accuracy(model.predict(data), data.y);
  }
  CHECK(accuracy[0] > 0.95);
  CHECK(accuracy[1] > 0.95);
  CHECK(eps[1] <= 3);
  CHECK(eps[1] == doctest::Approx(eps[0]).epsilon(1e-6));
}

namespace {
// dense_lr through the per-example interface, recording the rows of every
// batch it is given.
struct recording_lr : privet::test::per_example_only<dense_lr> {
  std::vector<std::size_t>* sizes = nullptr;
  xt::xtensor<double, 2> per_example_gradients(const batch_type& b) const {
    sizes->push_back(b.size());
    return inner.per_example_gradients(b);
  }
};
}  // namespace

TEST_CASE("constant-time Poisson steps run the gradient pass on the same rows whatever the batch") {
  // N = 400, b = 8: the capacity is the Chernoff bound's (well below N), and
  // the model sees exactly that many rows every step while the batches'
  // sizes vary; the gradient is the members' alone (fillers add zero), equal
  // bit for bit to the clipped sum over the reported batch.
  const auto data = gaussian_rows(400, 5, 2.0, 31);
  const dpsgd_options o{.learning_rate = 0.2, .clip_norm = 0.5, .batch_size = 8};
  auto opt = dpsgd<recording_lr>::non_private(6, 400, o);
  const std::size_t cap = opt.batch_capacity();
  CHECK(cap == privet::detail::ct_poisson_capacity(400, 8.0 / 400).rows);
  CHECK(cap > 8);
  CHECK(cap < 400);
  CHECK(opt.sampling_total_variation() ==
        privet::detail::add_up(privet::detail::mul_up(400.0, 0x1p-128), 0x1p-100));
  std::vector<std::size_t> sizes;
  recording_lr model{{dense_lr(5, true)}, &sizes};
  seeded_release_generator gen(32);
  std::set<std::size_t> batch_sizes;
  for (int s = 0; s < 60; ++s) {
    const auto p = opt.privatize(model, data, gen);
    batch_sizes.insert(p.report.batch.size());
    std::vector<std::size_t> scratch;
    const recording_lr probe{{model.inner}, &scratch};
    const auto direct =
        privet::ml::sum_of_clipped_gradients(probe, data.select(p.report.batch), 0.5);
    REQUIRE(p.gradient.size() == 6);
    for (std::size_t j = 0; j < 6; ++j) CHECK(p.gradient[j] == direct.sum[j] / 8.0);
    opt.apply_update(model, p.gradient);
  }
  CHECK(batch_sizes.size() > 5);  // Binomial(400, 0.02): the sizes vary
  REQUIRE(sizes.size() == 60);
  for (const std::size_t rows : sizes) CHECK(rows == cap);
  // Not padded: exact noise, fixed-size batches, user-level units, q = 1.
  CHECK(dpsgd<dense_lr, privet::secure_noise>::non_private(6, 400, o).batch_capacity() == 0);
  dpsgd_options fixed = o;
  fixed.sampling = batch_sampling::fixed_size;
  CHECK(dpsgd<dense_lr>::non_private(6, 400, fixed).batch_capacity() == 0);
  dpsgd_options users = o;
  std::vector<std::size_t> unit_of(400);
  for (std::size_t i = 0; i < 400; ++i) unit_of[i] = i / 4;
  users.units = privet::ml::privacy_units(unit_of);
  CHECK(dpsgd<dense_lr>::non_private(6, 400, users).batch_capacity() == 0);
  dpsgd_options all = o;
  all.batch_size = 400;
  CHECK(dpsgd<dense_lr>::non_private(6, 400, all).batch_capacity() == 0);
}

TEST_CASE("user-level steps with a cap of m examples run each unit's pass on m rows") {
  // 60 users of 1 to 7 examples (240 examples, ids interleaved). With
  // unit_examples = m = 4 each unit's gradient is the mean of its first 4
  // examples (all of them when it has fewer). Under constant_time_noise
  // every unit's pass sees exactly 4 rows and a Poisson step runs on
  // batch_capacity() units; the gradient is, to rounding, the clipped sum
  // over the reported users of those means, computed here from scratch.
  std::vector<std::size_t> unit_of;
  for (std::size_t u = 0; u < 60; ++u)
    for (std::size_t k = 0; k <= u % 7; ++k) unit_of.push_back(u);
  std::mt19937 shuffle(51);
  std::shuffle(unit_of.begin(), unit_of.end(), shuffle);
  const std::size_t n = unit_of.size();
  const auto data = gaussian_rows(n, 4, 3.0, 52);
  const privacy_units users(unit_of);
  const double clip = 0.6;
  const std::size_t m = 4;
  dense_lr inner(4, true);
  for (std::size_t j = 0; j < 5; ++j) inner.parameters()[j] = 0.3 - 0.1 * static_cast<double>(j);
  const auto g = inner.per_example_gradients(data);
  auto expected = [&](const std::vector<std::size_t>& batch, double b, std::size_t cap) {
    return user_level_gradient(g, unit_of, batch, b, clip, cap);
  };
  for (auto sampling : {batch_sampling::poisson, batch_sampling::fixed_size}) {
    CAPTURE(to_string(sampling));
    const std::size_t b = 6;
    dpsgd_options o{.learning_rate = 1,
                    .clip_norm = clip,
                    .batch_size = b,
                    .sampling = sampling,
                    .units = users,
                    .unit_examples = m};
    auto opt = dpsgd<recording_lr>::non_private(5, n, o);
    const std::size_t cap = opt.batch_capacity();
    if (sampling == batch_sampling::poisson) {
      CHECK(cap == privet::detail::ct_poisson_capacity(60, 6.0 / 60).rows);
      CHECK(cap > b);
      CHECK(cap < 60);
    } else {
      CHECK(cap == 0);
    }
    std::vector<std::size_t> sizes;
    recording_lr model{{inner}, &sizes};
    seeded_release_generator gen(53);
    std::set<std::size_t> batch_sizes;
    bool truncated = false;
    for (int step = 0; step < 20; ++step) {
      sizes.clear();
      const auto p = opt.privatize(model, data, gen);
      batch_sizes.insert(p.report.batch.size());
      for (std::size_t u : p.report.batch) truncated |= users.examples_of(u).size() > m;
      // Every pass is on m rows: capacity units (Poisson) or b (fixed size).
      CHECK(sizes.size() == (sampling == batch_sampling::poisson ? cap : b));
      for (const std::size_t rows : sizes) CHECK(rows == m);
      const auto want = expected(p.report.batch, static_cast<double>(b), m);
      for (std::size_t j = 0; j < 5; ++j)
        CHECK(p.gradient[j] == doctest::Approx(want[j]).epsilon(1e-12));
    }
    CHECK(truncated);
    if (sampling == batch_sampling::poisson) CHECK(batch_sizes.size() > 3);
    // Exact noise takes the same cap, without the padding.
    auto exact = dpsgd<recording_lr, privet::secure_noise>::non_private(5, n, o);
    CHECK(exact.batch_capacity() == 0);
    seeded_release_generator gen2(54);
    const auto p = exact.privatize(model, data, gen2);
    const auto want = expected(p.report.batch, static_cast<double>(b), m);
    for (std::size_t j = 0; j < 5; ++j)
      CHECK(p.gradient[j] == doctest::Approx(want[j]).epsilon(1e-12));
  }
  // The cap is for user-level units only.
  const dpsgd_options bad{
      .learning_rate = 1, .clip_norm = clip, .batch_size = 6, .unit_examples = 3};
  CHECK_THROWS_WITH_AS(static_cast<void>(dpsgd<dense_lr>::non_private(5, n, bad)),
                       doctest::Contains("unit_examples"), privet::invalid_parameter);
}
