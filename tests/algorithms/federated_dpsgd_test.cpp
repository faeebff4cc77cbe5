// Federated DP-SGD: replicas stay bitwise identical over many rounds; the
// aggregator's update is the weighted mean of the messages whatever their
// arrival order; a worker that declares its data public sends its exact
// (clipped) gradient and spends nothing; each private worker's accountant
// reports the epsilon an independent computation gives (the
// Mironov-Talwar-Zhang RDP of the Poisson-subsampled Gaussian summed in this
// file, converted by Balle et al.'s bound; and the PLD composed directly);
// federated training learns; every documented error is raised.
#include <privet/algorithms/federated_dpsgd.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/ml/logistic_regression.hpp>
#include <privet/ml/mlp.hpp>

#include <support/errors.hpp>

#include <support/federated_fixtures.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {
using privet::approx_dp;
using privet::simulation_only_noise;
using privet::federated::aggregation;
using privet::federated::aggregator;
using privet::federated::federation;
using privet::federated::federation_options;
using privet::federated::gradient_message;
using privet::federated::per_step_budget;
using privet::federated::public_data;
using privet::federated::total_budget;
using privet::federated::worker;
using privet::federated::worker_options;
using privet::ml::batch_sampling;
using privet::ml::dense_batch;
using privet::testing::seeded_release_generator;

using privet::test::blobs;
using privet::test::integer_orders;
using privet::test::same_bits;

using dense_lr = privet::ml::logistic_regression<double, dense_batch<double>>;
using mlp = privet::ml::mlp<double>;

// A private worker calibrated and accounted by RDP on integer orders only,
// which is fast (the default orders' fractional series take seconds per
// calibration); the PLD path is exercised where accounting is the subject.
worker_options private_options(std::string name, double clip, std::size_t b, approx_dp target) {
  worker_options o;
  o.name = std::move(name);
  o.clip_norm = clip;
  o.batch_size = b;
  o.privacy = total_budget{target};
  o.calibration.accountant = privet::accountant_kind::rdp;
  o.calibration.orders = integer_orders(128);
  o.accounting.orders = integer_orders(128);
  o.accounting.use_pld = false;
  o.accounting.use_prv = false;
  return o;
}

// The RDP of the Poisson-subsampled Gaussian at integer order a (Mironov,
// Talwar & Zhang 2019, Section 3.3): A_a = sum_k C(a, k) (1 - q)^(a - k) q^k
// exp((k^2 - k) / (2 z^2)), eps(a) = log(A_a) / (a - 1), summed here in log
// space directly, without the accounting layer.
double mtz_rdp(double q, double z, int a) {
  std::vector<double> terms;
  for (int k = 0; k <= a; ++k) {
    const double log_binom = std::lgamma(a + 1.0) - std::lgamma(k + 1.0) - std::lgamma(a - k + 1.0);
    terms.push_back(log_binom + (a - k) * std::log1p(-q) + k * std::log(q) +
                    (static_cast<double>(k) * k - k) / (2 * z * z));
  }
  double m = terms[0];
  for (double t : terms) m = std::max(m, t);
  double s = 0;
  for (double t : terms) s += std::exp(t - m);
  return (m + std::log(s)) / (a - 1);
}

// (eps, delta) from T compositions by Balle, Barthe, Gaboardi, Hsu & Sato
// (2020, Theorem 21): min_a T eps(a) + log((a - 1) / a) - (log delta + log a) / (a - 1).
double mtz_epsilon(double q, double z, std::uint64_t steps, double delta,
                   const std::vector<double>& orders) {
  double best = std::numeric_limits<double>::infinity();
  for (double order : orders) {
    const int a = static_cast<int>(order);
    const double e = static_cast<double>(steps) * mtz_rdp(q, z, a) + std::log1p(-1.0 / a) -
                     (std::log(delta) + std::log(static_cast<double>(a))) / (a - 1);
    best = std::min(best, e);
  }
  return best;
}
}  // namespace

TEST_CASE("replicas stay bitwise identical over many rounds and the model moves") {
  // Three organisations with different budgets, clip norms, batch sizes and
  // sampling, one of them public, on an MLP; 60 rounds of secure noise.
  privet::testing::seeded_release_generator init(1);
  const mlp initial({.layers = {6, 12, 3}}, init);
  std::vector<federation<mlp>::member> members;
  members.push_back({private_options("a", 1.0, 20, approx_dp(3, 1e-5)), blobs(200, 6, 1.5, 2, 3)});
  worker_options pub;
  pub.name = "public";
  pub.clip_norm = std::numeric_limits<double>::infinity();
  pub.batch_size = 16;
  pub.sampling = batch_sampling::fixed_size;
  pub.privacy = public_data{};
  members.push_back({pub, blobs(80, 6, 1.5, 3, 3)});
  worker_options c = private_options("c", 0.5, 10, approx_dp(100, 1e-6));
  c.privacy = per_step_budget{approx_dp(2, 1e-6)};
  members.push_back({c, blobs(120, 6, 1.5, 4, 3)});
  federation<mlp> fed(initial, std::move(members),
                      {.learning_rate = 0.2, .weight_decay = 1e-3, .rounds = 60});
  std::vector<privet::testing::seeded_release_generator> gens{
      privet::testing::seeded_release_generator(10), privet::testing::seeded_release_generator(11),
      privet::testing::seeded_release_generator(12)};
  for (int r = 0; r < 60; ++r)
    fed.run_round(std::span<privet::testing::seeded_release_generator>(gens));
  CHECK(fed.rounds_done() == 60);
  const auto& w = fed.workers();
  REQUIRE(w.size() == 3);
  for (const auto& x : w) CHECK(x.round() == 60);
  CHECK(same_bits(w[0].replica().parameters(), w[1].replica().parameters()));
  CHECK(same_bits(w[0].replica().parameters(), w[2].replica().parameters()));
  CHECK_FALSE(same_bits(w[0].replica().parameters(), initial.parameters()));
  // The schedule is enforced.
  try {
    fed.run_round(std::span<privet::testing::seeded_release_generator>(gens));
    FAIL("no throw");
  } catch (const privet::budget_exhausted& e) {
    CHECK(std::string(e.what()) ==
          "privet: federated DP-SGD was scheduled for 60 rounds; round 61 would exceed the "
          "schedule");
  }
  // Every private worker spent budget, the public one none.
  const auto report = fed.privacy_report();
  REQUIRE(report.size() == 3);
  CHECK(report[0].spent);
  CHECK_FALSE(report[1].spent);
  CHECK(report[1].is_public);
  CHECK(report[1].noise_stddev == 0);
  CHECK(report[2].spent);
  CHECK(report[0].spent->accountants.tightest.epsilon() <= 3.0);
  CHECK(privet::federated::to_string(report[1]) == "public: public data, no noise, 60 rounds\n");
  CHECK(privet::federated::to_string(report[0]).find("a: noise std ") == 0);
}

TEST_CASE("the same seeds give the same federation, in any thread schedule") {
  // Workers run as parallel tasks; each draws only from its own generator and
  // the aggregator sums in worker order, so two runs agree bit for bit.
  auto run = [] {
    const dense_lr initial(4, true);
    std::vector<federation<dense_lr, simulation_only_noise>::member> members;
    for (unsigned i = 0; i < 4; ++i) {
      members.push_back({private_options("w" + std::to_string(i), 1.0, 8, approx_dp(4, 1e-5)),
                         blobs(60 + 10 * i, 4, 1.0, 20 + i, 2)});
    }
    federation<dense_lr, simulation_only_noise> fed(initial, std::move(members),
                                                    {.learning_rate = 0.5, .rounds = 25});
    std::vector<privet::testing::seeded_release_generator> gens;
    for (unsigned i = 0; i < 4; ++i) gens.emplace_back(100 + i);
    for (int r = 0; r < 25; ++r)
      fed.run_round(std::span<privet::testing::seeded_release_generator>(gens));
    const auto p = fed.model().parameters();
    return std::vector<double>(p.begin(), p.end());
  };
  const auto a = run();
  const auto b = run();
  CHECK(same_bits(a, b));
}

TEST_CASE("the update is the weighted mean of the messages, in any arrival order") {
  const std::vector<std::vector<double>> g{{1, 2, 3}, {0.5, -1, 0.1}, {1e-3, 7, -2}};
  for (auto rule : {aggregation::mean, aggregation::batch_weighted}) {
    const std::vector<double> weights =
        rule == aggregation::mean ? std::vector<double>{1, 1, 1} : std::vector<double>{10, 30, 5};
    aggregator forward(3, weights), backward(3, weights);
    for (std::uint32_t w = 0; w < 3; ++w) forward.receive({w, 0, g[w]});
    for (std::uint32_t w = 3; w-- > 0;) backward.receive({w, 0, g[w]});
    CHECK(forward.complete());
    const auto u = forward.aggregate();
    const auto v = backward.aggregate();
    CHECK(u.round == 0);
    CHECK(forward.round() == 1);
    CHECK(same_bits(u.gradient, v.gradient));
    const double total = weights[0] + weights[1] + weights[2];
    for (std::size_t j = 0; j < 3; ++j) {
      const double expect =
          (weights[0] * g[0][j] + weights[1] * g[1][j] + weights[2] * g[2][j]) / total;
      CHECK(u.gradient[j] == doctest::Approx(expect).epsilon(1e-15));
    }
  }
}

TEST_CASE("batch-weighted aggregation is one pooled batch of the workers' sums") {
  // Two public workers with full fixed-size batches and no clipping send
  // exact mean gradients; weighted by b they average to the pooled data's
  // mean gradient.
  const auto a = blobs(30, 3, 1.0, 41, 2), b = blobs(70, 3, 1.0, 42, 2);
  dense_lr model(3, true);
  for (std::size_t j = 0; j < 4; ++j) model.parameters()[j] = 0.1 * static_cast<double>(j) - 0.2;
  auto pub = [](std::size_t n) {
    worker_options o;
    o.name = "p";
    o.clip_norm = std::numeric_limits<double>::infinity();
    o.batch_size = n;
    o.sampling = batch_sampling::fixed_size;
    o.privacy = public_data{};
    return o;
  };
  std::vector<federation<dense_lr>::member> members{{pub(30), a}, {pub(70), b}};
  federation<dense_lr> fed(
      model, std::move(members),
      {.learning_rate = 1.0, .rounds = 1, .rule = aggregation::batch_weighted});
  fed.run_round();
  dense_batch<double> pooled;
  pooled.x = xt::concatenate(xt::xtuple(a.x, b.x), 0);
  pooled.y = a.y;
  pooled.y.insert(pooled.y.end(), b.y.begin(), b.y.end());
  const auto g = privet::ml::mean_gradient(model, pooled);
  for (std::size_t j = 0; j < 4; ++j) {
    CHECK(fed.model().parameters()[j] ==
          doctest::Approx(model.parameters()[j] - g(j)).epsilon(1e-12));
  }
}

TEST_CASE("a user-level worker is weighted by its expected number of users") {
  // A public worker of 30 examples (b = 30, full batch) and a user-level
  // worker whose one user holds 20 examples, sampled at q = 0.25: weight
  // q U = 0.25. Without noise (public data) the update is
  // (30 g_a + 1[sampled] clip(mean g_b)) / 30.25.
  const auto a = blobs(30, 3, 1.0, 51, 2), b = blobs(20, 3, 1.0, 52, 2);
  dense_lr model(3, true);
  for (std::size_t j = 0; j < 4; ++j) model.parameters()[j] = 0.1 * static_cast<double>(j) - 0.2;
  worker_options pa;
  pa.name = "a";
  pa.clip_norm = std::numeric_limits<double>::infinity();
  pa.batch_size = 30;
  pa.sampling = batch_sampling::fixed_size;
  pa.privacy = public_data{};
  worker_options pb = pa;
  pb.name = "one speaker";
  pb.clip_norm = 0.05;
  pb.batch_size = 0;
  pb.sampling = batch_sampling::poisson;
  pb.sampling_rate = 0.25;
  pb.units = privet::ml::privacy_units(std::vector<std::size_t>(20, 0));
  CHECK(privet::federated::aggregation_weight(aggregation::batch_weighted, pa, 30) == 30);
  CHECK(privet::federated::aggregation_weight(aggregation::batch_weighted, pb, 20) == 0.25);
  CHECK(privet::federated::aggregation_weight(aggregation::mean, pb, 20) == 1);
  const auto ga = privet::ml::mean_gradient(model, a);
  const auto gb = privet::ml::mean_gradient(model, b);
  std::vector<double> mb(gb.begin(), gb.end());
  double nb = 0;
  for (double v : mb) nb += v * v;
  const double scale = std::min(1.0, 0.05 / std::sqrt(nb));
  REQUIRE(scale < 1);
  // Several one-round federations from the same start: rounds where the
  // user was sampled and rounds where it was not (seeded).
  bool saw_sampled = false, saw_skipped = false;
  for (std::uint64_t seed = 0; seed < 16; ++seed) {
    std::vector<federation<dense_lr>::member> members{{pa, a}, {pb, b}};
    federation<dense_lr> fed(
        model, std::move(members),
        {.learning_rate = 1.0, .rounds = 1, .rule = aggregation::batch_weighted});
    std::vector<privet::testing::seeded_release_generator> gens{
        privet::testing::seeded_release_generator(seed, 1),
        privet::testing::seeded_release_generator(seed, 2)};
    fed.run_round(std::span<privet::testing::seeded_release_generator>(gens));
    // Was the user sampled? The update tells: compare both hypotheses.
    bool sampled_fits = true, skipped_fits = true;
    for (std::size_t j = 0; j < 4; ++j) {
      const double got = model.parameters()[j] - fed.model().parameters()[j];
      const double with = (30 * ga(j) + scale * mb[j]) / 30.25, without = 30 * ga(j) / 30.25;
      sampled_fits = sampled_fits && std::abs(got - with) <= 1e-12 * (1 + std::abs(with));
      skipped_fits = skipped_fits && std::abs(got - without) <= 1e-12 * (1 + std::abs(without));
    }
    CHECK(sampled_fits != skipped_fits);
    saw_sampled = saw_sampled || sampled_fits;
    saw_skipped = saw_skipped || skipped_fits;
  }
  CHECK(saw_sampled);
  CHECK(saw_skipped);
}

TEST_CASE("a private user-level worker reports its unit and its noise on the mean") {
  // Three users of 10 examples each, sampled at q = 0.2: the expected batch
  // is q U = 0.6, the noise on the message sigma / 0.6.
  const auto data = blobs(30, 3, 1.0, 61, 2);
  std::vector<std::size_t> unit_of(30);
  for (std::size_t i = 0; i < 30; ++i) unit_of[i] = i % 3;
  worker_options o = private_options("users", 0.5, 0, approx_dp(2, 1e-5));
  o.sampling_rate = 0.2;
  o.units = privet::ml::privacy_units(unit_of);
  dense_lr model(3, true);
  const federation_options f{.learning_rate = 0.1, .rounds = 4};
  worker<dense_lr> w(0, o, data, model, f);
  CHECK(w.optimiser().expected_batch_size() == doctest::Approx(0.6).epsilon(1e-15));
  CHECK(w.noise_stddev() == w.optimiser().noise_stddev() / w.optimiser().expected_batch_size());
  CHECK(std::isfinite(w.noise_stddev()));
  std::vector<federation<dense_lr>::member> members{{o, data}};
  federation<dense_lr> fed(model, std::move(members), f);
  fed.run_round();
  const auto report = fed.privacy_report();
  REQUIRE(report.size() == 1);
  REQUIRE(report[0].spent);
  CHECK(report[0].spent->users == 3);
  CHECK(report[0].spent->sampling_rate == 0.2);
  CHECK(report[0].spent->steps == 1);
  CHECK(privet::federated::to_string(report[0]).find("privacy unit: one user") !=
        std::string::npos);
}

TEST_CASE("a worker that declares its data public adds no noise and spends nothing") {
  const auto data = blobs(40, 5, 1.0, 5, 2);
  dense_lr model(5, true);
  for (std::size_t j = 0; j < 6; ++j) model.parameters()[j] = 0.05 * static_cast<double>(j);
  const federation_options f{.learning_rate = 0.1, .rounds = 3};
  for (double clip : {std::numeric_limits<double>::infinity(), 0.2}) {
    worker_options o;
    o.name = "public";
    o.clip_norm = clip;
    o.batch_size = 40;
    o.sampling = batch_sampling::fixed_size;
    o.privacy = public_data{};
    worker<dense_lr> w(0, o, data, model, f);
    CHECK(w.is_public());
    CHECK(w.noise_stddev() == 0);
    privet::testing::seeded_release_generator gen(6);
    const gradient_message m = w.contribute(0, gen);
    CHECK(m.worker == 0);
    CHECK(m.round == 0);
    // The batch is all 40 examples: the message is exactly the mean of the
    // clipped per-example gradients.
    auto g = model.per_example_gradients(data);
    privet::ml::clip_each_row(g, clip);
    REQUIRE(m.gradient.size() == 6);
    for (std::size_t j = 0; j < 6; ++j) {
      double s = 0;
      for (std::size_t i = 0; i < 40; ++i) s += g(i, j);
      CHECK(m.gradient[j] == doctest::Approx(s / 40).epsilon(1e-12));
    }
    CHECK_FALSE(w.privacy_spent());
    CHECK_FALSE(w.spent());
    CHECK(privet::test::rejected_parameter([&] { (void)w.budget(); }) == "privacy");
  }
  // A private worker with the same batch sends something else: noise.
  worker<dense_lr> p(0, private_options("p", 0.2, 40, approx_dp(1, 1e-5)), data, model, f);
  CHECK(p.noise_stddev() > 0);
  privet::testing::seeded_release_generator gen(6);
  const auto noisy = p.contribute(0, gen);
  auto g = model.per_example_gradients(data);
  privet::ml::clip_each_row(g, 0.2);
  double s0 = 0;
  for (std::size_t i = 0; i < 40; ++i) s0 += g(i, 0);
  CHECK(noisy.gradient[0] != doctest::Approx(s0 / 40).epsilon(1e-9));
}

TEST_CASE("each private worker's epsilon equals an independent computation") {
  // Poisson batches, simulation noise (exactly sigma = z C), the odometer on
  // integer orders 2..128 so that the direct sum above covers the same
  // orders; the calibration target is met by the PLD accountant.
  const auto data = blobs(250, 4, 1.0, 7, 2);
  const dense_lr initial(4, true);
  worker_options o = private_options("clinic", 1.5, 25, approx_dp(2.0, 1e-5));
  o.calibration.accountant = privet::accountant_kind::pld;
  o.accounting.use_pld = true;
  const std::uint64_t rounds = 40;
  worker<dense_lr, simulation_only_noise> w(0, o, data, initial,
                                            {.learning_rate = 0.1, .rounds = rounds});
  privet::testing::seeded_release_generator gen(8);
  for (std::uint64_t r = 0; r < rounds; ++r) {
    const auto m = w.contribute(r, gen);
    w.apply({r, m.gradient});
  }
  const auto report = w.privacy_spent();
  REQUIRE(report);
  CHECK(report->steps == rounds);
  CHECK(report->sampling_rate == 0.1);
  const double z = report->noise_multiplier;
  CHECK(z == doctest::Approx(w.optimiser().noise_multiplier()).epsilon(1e-12));
  CHECK(w.noise_stddev() == doctest::Approx(z * 1.5 / 25).epsilon(1e-12));
  // RDP, summed directly.
  REQUIRE(report->accountants.rdp);
  CHECK(report->accountants.rdp->epsilon() ==
        doctest::Approx(mtz_epsilon(0.1, z, rounds, 1e-5, o.accounting.orders)).epsilon(1e-9));
  // PLD: one step's PLD composed `rounds` times on the odometer's grid.
  const auto pld = privet::privacy_loss_distribution::subsampled_gaussian(0.1, z, o.accounting.pld)
                       .self_compose(rounds);
  REQUIRE(report->accountants.pld);
  CHECK(report->accountants.pld->epsilon() ==
        doctest::Approx(pld.epsilon(1e-5).epsilon()).epsilon(1e-12));
  // The worker's budget was calibrated by the PLD accountant and is met.
  CHECK(report->accountants.pld->epsilon() <= 2.0);
  CHECK(report->accountants.pld->epsilon() > 2.0 * (1 - 2e-3));
  REQUIRE(w.spent());
  CHECK(w.spent()->epsilon() == report->accountants.tightest.epsilon());
  CHECK(w.spent()->delta() == 1e-5);
  // A further contribution would exceed the budget.
  CHECK_THROWS_AS((void)w.contribute(rounds, gen), privet::budget_exhausted);
}

TEST_CASE("a per-step budget calibrates one step and composes over the run") {
  const auto data = blobs(100, 3, 1.0, 9, 2);
  const dense_lr initial(3, true);
  worker_options o = private_options("org", 1.0, 10, approx_dp(1, 1e-6));
  o.privacy = per_step_budget{approx_dp(1.0, 1e-6)};
  o.calibration.accountant = privet::accountant_kind::pld;
  o.accounting.use_pld = true;
  worker<dense_lr, simulation_only_noise> w(0, o, data, initial,
                                            {.learning_rate = 0.1, .rounds = 5});
  // The multiplier is the accounting layer's for one step at q = 0.1.
  const double needed = privet::dpsgd_noise_multiplier(0.1, 1, approx_dp(1.0, 1e-6));
  CHECK(w.optimiser().accounted_noise_multiplier() >= needed);
  CHECK(w.optimiser().accounted_noise_multiplier() == doctest::Approx(needed).epsilon(1e-6));
  privet::testing::seeded_release_generator gen(9);
  auto step = [&](std::uint64_t r) { w.apply({r, w.contribute(r, gen).gradient}); };
  step(0);
  CHECK(w.privacy_spent()->accountants.pld->epsilon() <= 1.0);
  for (std::uint64_t r = 1; r < 5; ++r) step(r);
  // Five steps spend more than one (and no more than five, basic composition).
  const double e5 = w.privacy_spent()->accountants.pld->epsilon();
  CHECK(e5 > 1.0);
  CHECK(e5 < 5.0);
  CHECK(w.budget() == approx_dp(1.0, 1e-6));
}

TEST_CASE("federated DP-SGD learns a separable task") {
  // Three organisations whose data alone each favour a different part of
  // the space; trained together under (4, 1e-5)-DP each, the shared model
  // classifies held-out data well. Deterministic for the fixed seeds.
  const dense_lr initial(2, true);
  std::vector<federation<dense_lr, simulation_only_noise>::member> members;
  for (unsigned i = 0; i < 3; ++i) {
    members.push_back({private_options("o" + std::to_string(i), 1.0, 30, approx_dp(4, 1e-5)),
                       blobs(300, 2, 1.5, 30 + i, 2)});
  }
  federation<dense_lr, simulation_only_noise> fed(initial, std::move(members),
                                                  {.learning_rate = 0.5, .rounds = 100});
  std::vector<privet::testing::seeded_release_generator> gens{
      privet::testing::seeded_release_generator(31), privet::testing::seeded_release_generator(32),
      privet::testing::seeded_release_generator(33)};
  for (int r = 0; r < 100; ++r)
    fed.run_round(std::span<privet::testing::seeded_release_generator>(gens));
  const auto test = blobs(1000, 2, 1.5, 40, 2);
  const auto p = fed.model().probabilities(test);
  std::size_t right = 0;
  for (std::size_t i = 0; i < test.size(); ++i) right += (p(i) > 0.5) == (test.y[i] == 1);
  MESSAGE("held-out accuracy " << static_cast<double>(right) / 1000);
  CHECK(right > 880);  // the Bayes rate for +-1.5 is 93.3 %
}

TEST_CASE("federated DP-SGD rejects bad options and messages with clear errors") {
  using privet::test::rejected_parameter;
  const auto data = blobs(20, 2, 1.0, 50, 2);
  const dense_lr initial(2, true);
  const federation_options f{.learning_rate = 0.1, .rounds = 2};
  using W = worker<dense_lr, simulation_only_noise>;
  using F = federation<dense_lr, simulation_only_noise>;

  worker_options unset;
  unset.name = "x";
  unset.clip_norm = 1;
  unset.batch_size = 5;
  CHECK_THROWS_WITH_AS(W(0, unset, data, initial, f),
                       "privet: privacy = unset is invalid; allowed: public_data, total_budget or "
                       "per_step_budget",
                       privet::invalid_parameter);
  auto unclipped =
      private_options("x", std::numeric_limits<double>::infinity(), 5, approx_dp(1, 1e-5));
  CHECK(rejected_parameter([&] { W(0, unclipped, data, initial, f); }) == "clip_norm");
  CHECK(rejected_parameter([&] {
          W(0, private_options("x", 1, 21, approx_dp(1, 1e-5)), data, initial, f);
        }) == "batch_size");
  CHECK(rejected_parameter([&] {
          W(0, private_options("x", 1, 5, approx_dp(0, 1e-5)), data, initial, f);
        }) == "target.epsilon");
  auto fixed_pld = private_options("x", 1, 5, approx_dp(1, 1e-5));
  fixed_pld.sampling = batch_sampling::fixed_size;
  fixed_pld.calibration.accountant = privet::accountant_kind::pld;
  CHECK(rejected_parameter([&] { W(0, fixed_pld, data, initial, f); }) == "calibration.accountant");

  auto good = [&] {
    return std::vector<F::member>{{private_options("x", 1, 5, approx_dp(1, 1e-5)), data}};
  };
  CHECK(rejected_parameter([&] { F(initial, {}, f); }) == "members");
  CHECK_THROWS_WITH_AS(F(initial, good(), {.rounds = 2}),
                       "privet: learning_rate = nan is invalid; allowed: finite and > 0",
                       privet::invalid_parameter);
  CHECK(rejected_parameter([&] { F(initial, good(), {.learning_rate = 0.1}); }) == "rounds");
  CHECK(rejected_parameter([&] {
          F(initial, good(), {.learning_rate = 0.1, .weight_decay = -1, .rounds = 1});
        }) == "weight_decay");
  F fed(initial, good(), f);
  std::vector<privet::testing::seeded_release_generator> two{
      privet::testing::seeded_release_generator(1), privet::testing::seeded_release_generator(2)};
  CHECK_THROWS_WITH_AS(fed.run_round(std::span<privet::testing::seeded_release_generator>(two)),
                       "privet: generators.size() = 2 is invalid; allowed: one per worker (1)",
                       privet::invalid_parameter);

  // A worker contributes once per round, to its own round, and applies only
  // its round's update.
  W w(3, private_options("x", 1, 5, approx_dp(1, 1e-5)), data, initial, f);
  privet::testing::seeded_release_generator gen(2);
  CHECK_THROWS_WITH_AS((void)w.contribute(1, gen),
                       "privet: federated DP-SGD: worker 3 asked for round 1 while in round 0",
                       privet::protocol_error);
  const auto m = w.contribute(0, gen);
  CHECK(m.worker == 3);
  CHECK_THROWS_WITH_AS((void)w.contribute(0, gen),
                       "privet: federated DP-SGD: worker 3 already contributed to round 0",
                       privet::protocol_error);
  CHECK_THROWS_WITH_AS(w.apply({1, m.gradient}),
                       "privet: federated DP-SGD: worker 3 received the update of round 1 while "
                       "in round 0",
                       privet::protocol_error);
  CHECK_THROWS_WITH_AS(w.apply({0, {1.0}}),
                       "privet: federated DP-SGD: update of 1 entries; the model has 3 parameters",
                       privet::protocol_error);
  w.apply({0, m.gradient});
  CHECK(w.round() == 1);

  // The aggregator refuses what it must not accept and keeps its state.
  CHECK(rejected_parameter([] { aggregator(3, {}); }) == "weights");
  CHECK(rejected_parameter([] { aggregator(3, {1, 0}); }) == "weight");
  CHECK(rejected_parameter([] { aggregator(0, {1}); }) == "parameter_count");
  aggregator agg(2, {1, 1});
  CHECK_THROWS_WITH_AS(agg.receive({0, 1, {1, 2}}),
                       "privet: federated DP-SGD: message of round 1 from worker 0; the "
                       "aggregator is collecting round 0",
                       privet::protocol_error);
  CHECK_THROWS_WITH_AS(agg.receive({2, 0, {1, 2}}),
                       "privet: federated DP-SGD: message from worker 2; workers are 0 to 1",
                       privet::protocol_error);
  CHECK_THROWS_WITH_AS(agg.receive({0, 0, {1, 2, 3}}),
                       "privet: federated DP-SGD: gradient of 3 entries from worker 0; the model "
                       "has 2 parameters",
                       privet::protocol_error);
  CHECK_THROWS_WITH_AS(agg.receive({0, 0, {1, std::nan("")}}),
                       "privet: federated DP-SGD: gradient entry 1 from worker 0 is not finite",
                       privet::protocol_error);
  CHECK(agg.received() == 0);
  agg.receive({1, 0, {1, 2}});
  CHECK_THROWS_WITH_AS(agg.receive({1, 0, {3, 4}}),
                       "privet: federated DP-SGD: worker 1 already sent its gradient for round 0",
                       privet::protocol_error);
  CHECK_THROWS_WITH_AS((void)agg.aggregate(),
                       "privet: federated DP-SGD: round 0 has 1 of 2 gradients (worker 0 missing)",
                       privet::protocol_error);
  agg.receive({0, 0, {3, 4}});
  const auto u = agg.aggregate();
  CHECK(u.gradient == std::vector<double>{2, 3});
}

TEST_CASE("federated DP-SGD messages name the option, its value and the allowed range") {
  using privet::invalid_parameter;
  const auto data = blobs(20, 2, 1.0, 50, 2);
  const dense_lr initial(2, true);
  const federation_options f{.learning_rate = 0.1, .rounds = 1};
  using W = worker<dense_lr, simulation_only_noise>;
  using F = federation<dense_lr, simulation_only_noise>;
  const approx_dp target(1, 1e-5);

  CHECK_THROWS_WITH_AS(
      W(0, private_options("x", std::numeric_limits<double>::infinity(), 5, target), data, initial,
        f),
      "privet: clip_norm = inf is invalid; allowed: finite and > 0 when noise is added",
      invalid_parameter);
  CHECK_THROWS_WITH_AS(
      W(0, private_options("x", 1, 21, target), data, initial, f),
      "privet: batch_size = 21 is invalid; allowed: [1, dataset_size = 20] (or 0 with a "
      "sampling_rate)",
      invalid_parameter);
  CHECK_THROWS_WITH_AS(W(0, private_options("x", 1, 5, approx_dp(0, 1e-5)), data, initial, f),
                       "privet: target.epsilon = 0 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  auto fixed_pld = private_options("x", 1, 5, target);
  fixed_pld.sampling = batch_sampling::fixed_size;
  fixed_pld.calibration.accountant = privet::accountant_kind::pld;
  CHECK_THROWS_WITH_AS(W(0, fixed_pld, data, initial, f),
                       "privet: calibration.accountant = PLD is invalid; allowed: RDP for "
                       "fixed-size batches (sampling without replacement has only an RDP bound)",
                       invalid_parameter);
  worker_options pub;
  pub.name = "p";
  pub.clip_norm = 1;
  pub.batch_size = 5;
  pub.privacy = public_data{};
  const W public_worker(0, pub, data, initial, f);
  CHECK_THROWS_WITH_AS((void)public_worker.budget(),
                       "privet: privacy = public_data is invalid; allowed: a total or per-step "
                       "budget for a privacy budget",
                       invalid_parameter);

  auto good = [&] { return std::vector<F::member>{{private_options("x", 1, 5, target), data}}; };
  CHECK_THROWS_WITH_AS(F(initial, {}, f), "privet: members is empty; allowed: at least one element",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(F(initial, good(), {.learning_rate = 0.1}),
                       "privet: rounds = 0 is invalid; allowed: >= 1", invalid_parameter);
  CHECK_THROWS_WITH_AS(F(initial, good(), {.learning_rate = 0.1, .weight_decay = -1, .rounds = 1}),
                       "privet: weight_decay = -1 is invalid; allowed: finite and >= 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(
      F(initial, good(), {.learning_rate = 0.1, .rounds = 1, .rule = static_cast<aggregation>(5)}),
      "privet: rule = 5 is invalid; allowed: mean or batch_weighted", invalid_parameter);
  CHECK_THROWS_WITH_AS(aggregator(3, {}), "privet: weights is empty; allowed: at least one element",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(aggregator(3, {1, std::nan("")}),
                       "privet: weight = nan is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(aggregator(0, {1}), "privet: parameter_count = 0 is invalid; allowed: >= 1",
                       invalid_parameter);

  // A total budget for one round: a worker's second contribution is refused
  // by its optimiser, naming the budget.
  W w(0, private_options("x", 1, 5, target), data, initial, f);
  privet::testing::seeded_release_generator gen(3);
  const auto m = w.contribute(0, gen);
  w.apply({0, m.gradient});
  CHECK_THROWS_WITH_AS((void)w.contribute(1, gen),
                       "privet: DP-SGD was calibrated for 1 steps to meet (eps = 1, delta = "
                       "1e-05); step 2 would exceed it",
                       privet::budget_exhausted);
}

TEST_CASE("a federation over constant-time noise keeps its replicas equal and its budgets") {
  // Two private workers whose noise is drawn by the constant-time sampler;
  // each worker's report includes its samplers' total variation
  // (ml/dpsgd.hpp) and still meets its total budget.
  using privet::constant_time_noise;
  privet::testing::seeded_release_generator init(1);
  const dense_lr initial(4, true);
  std::vector<federation<dense_lr, constant_time_noise>::member> members;
  members.push_back({private_options("a", 1.0, 20, approx_dp(3, 1e-5)), blobs(200, 4, 1.5, 2, 2)});
  members.push_back({private_options("b", 0.5, 10, approx_dp(2, 1e-5)), blobs(120, 4, 1.5, 4, 2)});
  federation<dense_lr, constant_time_noise> fed(initial, std::move(members),
                                                {.learning_rate = 0.2, .rounds = 20});
  std::vector<seeded_release_generator> gens{seeded_release_generator(10),
                                             seeded_release_generator(11)};
  for (int r = 0; r < 20; ++r) fed.run_round(std::span<seeded_release_generator>(gens));
  const auto& w = fed.workers();
  REQUIRE(w.size() == 2);
  CHECK(same_bits(w[0].replica().parameters(), w[1].replica().parameters()));
  CHECK_FALSE(same_bits(w[0].replica().parameters(), initial.parameters()));
  const auto report = fed.privacy_report();
  REQUIRE(report.size() == 2);
  const double targets[2] = {3, 2};
  for (std::size_t i = 0; i < 2; ++i) {
    CAPTURE(i);
    CHECK(w[i].optimiser().odometer().total_variation() > 0);
    REQUIRE(report[i].spent);
    CHECK(report[i].spent->accountants.tightest.delta() == 1e-5);
    CHECK(report[i].spent->accountants.tightest.epsilon() <= targets[i]);
  }
}
