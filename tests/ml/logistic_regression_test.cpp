// Logistic regression: gradients against finite differences, the closed-form
// maximum-likelihood solution of one-hot data, separable data, online blocks
// against explicit updates, sparse and dense inputs agreeing, and every
// documented error.
#include <privet/ml/logistic_regression.hpp>
#include <privet/ml/metrics.hpp>

#include <support/errors.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace {
using privet::ml::dense_batch;
using privet::ml::logistic_regression;
using privet::ml::sparse_binary_batch;

sparse_binary_batch random_sparse(std::size_t n, std::size_t d, unsigned seed) {
  std::mt19937 gen(seed);
  sparse_binary_batch b;
  b.dimension = d;
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<std::uint32_t> row;
    for (std::uint32_t j = 0; j < d; ++j)
      if (gen() % 3 == 0) row.push_back(j);
    b.features.push_back(row);
    b.y.push_back(gen() % 2 == 0 ? 1 : -1);
  }
  return b;
}

dense_batch<double> to_dense(const sparse_binary_batch& s) {
  dense_batch<double> d;
  d.x = xt::zeros<double>({s.size(), s.dimension});
  for (std::size_t i = 0; i < s.size(); ++i)
    for (auto j : s.features[i]) d.x(i, j) = 1;
  d.y = s.y;
  return d;
}

template <class Model, class Batch>
void check_gradients_by_finite_differences(Model& m, const Batch& b) {
  const auto g = m.per_example_gradients(b);
  REQUIRE(g.shape(0) == b.size());
  REQUIRE(g.shape(1) == m.parameter_count());
  const double h = 1e-6;
  for (std::size_t j = 0; j < m.parameter_count(); ++j) {
    const double saved = m.parameters()[j];
    m.parameters()[j] = saved + h;
    const auto up = m.losses(b);
    m.parameters()[j] = saved - h;
    const auto down = m.losses(b);
    m.parameters()[j] = saved;
    for (std::size_t i = 0; i < b.size(); ++i) {
      CAPTURE(i);
      CAPTURE(j);
      CHECK(g(i, j) == doctest::Approx((up(i) - down(i)) / (2 * h)).epsilon(1e-6).scale(1e-8));
    }
  }
}
}  // namespace

static_assert(privet::ml::differentiable_model<logistic_regression<double>>);
static_assert(privet::ml::differentiable_model<logistic_regression<float, dense_batch<float>>>);

TEST_CASE("logistic regression gradients match finite differences (sparse and dense)") {
  const auto s = random_sparse(6, 5, 1);
  logistic_regression<double> m(5, true);
  std::mt19937 gen(2);
  std::normal_distribution<double> nd;
  for (auto& w : m.parameters()) w = nd(gen);
  check_gradients_by_finite_differences(m, s);

  dense_batch<double> d;
  d.x = xt::xtensor<double, 2>::from_shape({4, 3});
  for (auto& v : d.x) v = nd(gen);
  d.y = {1, 0, 0, 1};
  logistic_regression<double, dense_batch<double>> md(3, true);
  for (auto& w : md.parameters()) w = nd(gen);
  check_gradients_by_finite_differences(md, d);
}

TEST_CASE("per-example gradients sum to minus the log-likelihood gradient") {
  const auto s = random_sparse(20, 7, 3);
  logistic_regression<double> m(7, true);
  for (std::size_t j = 0; j < 8; ++j) m.parameters()[j] = 0.3 * static_cast<double>(j) - 1;
  const auto g = m.per_example_gradients(s);
  const auto total = m.log_likelihood_gradient(s);
  for (std::size_t j = 0; j < 8; ++j) {
    double sum = 0;
    for (std::size_t i = 0; i < s.size(); ++i) sum += g(i, j);
    CHECK(sum == doctest::Approx(-total(j)).epsilon(1e-12));
  }
  // And the losses are the negative log-likelihood.
  const auto l = m.losses(s);
  double nll = 0;
  for (double v : l) nll += v;
  CHECK(m.log_likelihood(s) == doctest::Approx(-nll));
}

TEST_CASE("batch training reaches the closed-form MLE of one-hot data") {
  // Each example has exactly one active feature (its group), so the
  // likelihood separates by group and the MLE is w_j = log(pos_j / neg_j).
  const std::vector<std::pair<int, int>> groups{{3, 1}, {1, 4}, {2, 2}, {5, 2}};
  for (bool zero_one : {false, true}) {
    sparse_binary_batch b;
    b.dimension = groups.size();
    for (std::uint32_t j = 0; j < groups.size(); ++j) {
      for (int k = 0; k < groups[j].first; ++k) {
        b.features.push_back({j});
        b.y.push_back(1);
      }
      for (int k = 0; k < groups[j].second; ++k) {
        b.features.push_back({j});
        b.y.push_back(zero_one ? 0 : -1);
      }
    }
    logistic_regression<double> m(groups.size());
    const auto r =
        m.fit_batch(b, {.learning_rate = 0.2, .max_iterations = 20000, .tolerance = 1e-13});
    CHECK(r.converged);
    double ll = 0;
    for (std::size_t j = 0; j < groups.size(); ++j) {
      const double pos = groups[j].first, neg = groups[j].second;
      CHECK(m.weights()[j] == doctest::Approx(std::log(pos / neg)).epsilon(1e-9));
      ll += pos * std::log(pos / (pos + neg)) + neg * std::log(neg / (pos + neg));
    }
    CHECK(r.log_likelihood == doctest::Approx(ll).epsilon(1e-10));
  }
}

TEST_CASE("the intercept alone fits the log-odds of the labels") {
  // A feature that is never active leaves only the intercept: b = log(7 / 3).
  dense_batch<double> d;
  d.x = xt::zeros<double>({std::size_t{10}, std::size_t{1}});
  d.y = {1, 1, 1, 1, 1, 1, 1, -1, -1, -1};
  logistic_regression<double, dense_batch<double>> m(1, true);
  const auto r =
      m.fit_batch(d, {.learning_rate = 0.1, .max_iterations = 10000, .tolerance = 1e-13});
  CHECK(r.converged);
  CHECK(m.intercept() == doctest::Approx(std::log(7.0 / 3.0)).epsilon(1e-9));
  CHECK(m.weights()[0] == 0.0);
}

TEST_CASE("L2 training stops at the penalised optimum") {
  // At the optimum of L(w) - lambda |w|^2, the gradient of L equals 2 lambda w.
  const auto s = random_sparse(40, 6, 5);
  logistic_regression<double> m(6);
  const double lambda = 0.5;
  const auto r = m.fit_batch(
      s, {.learning_rate = 0.02, .l2 = lambda, .max_iterations = 50000, .tolerance = 1e-14});
  CHECK(r.converged);
  const auto g = m.log_likelihood_gradient(s);
  for (std::size_t j = 0; j < 6; ++j)
    CHECK(g(j) == doctest::Approx(2 * lambda * m.weights()[j]).scale(1e-9));
  // The penalty shrinks the weights relative to the unpenalised fit.
  logistic_regression<double> free_fit(6);
  (void)free_fit.fit_batch(s, {.learning_rate = 0.02, .max_iterations = 50000, .tolerance = 1e-14});
  double norm_l2 = 0, norm_free = 0;
  for (std::size_t j = 0; j < 6; ++j) {
    norm_l2 += m.weights()[j] * m.weights()[j];
    norm_free += free_fit.weights()[j] * free_fit.weights()[j];
  }
  CHECK(norm_l2 < norm_free);
}

TEST_CASE("separable data: training separates the classes") {
  // Feature 0 marks spam, feature 1 ham; features 2..9 are noise.
  std::mt19937 gen(7);
  sparse_binary_batch b;
  b.dimension = 10;
  for (int i = 0; i < 200; ++i) {
    const bool spam = i % 2 == 0;
    std::vector<std::uint32_t> row{spam ? 0u : 1u};
    for (std::uint32_t j = 2; j < 10; ++j)
      if (gen() % 2 == 0) row.push_back(j);
    b.features.push_back(row);
    b.y.push_back(spam ? 1 : 0);
  }
  logistic_regression<double> m(10);
  double previous = m.log_likelihood(b);
  for (int round = 0; round < 20; ++round) {
    m.ascent_step(b, 0.01);
    const double now = m.log_likelihood(b);
    CHECK(now > previous);  // a small enough step always increases a concave objective
    previous = now;
  }
  const auto sc = m.scores(b);
  CHECK(privet::ml::roc_auc(sc, b.y) == 1.0);
  CHECK(privet::ml::binary_accuracy(sc, b.y) == 1.0);
  CHECK(m.weights()[0] > 0);
  CHECK(m.weights()[1] < 0);
}

TEST_CASE("online training is one update per block of K") {
  const auto s = random_sparse(23, 5, 11);
  logistic_regression<double> online(5);
  online.fit_online(s, {.learning_rate = 0.3, .block_size = 5, .l2 = 0.1, .epochs = 2});
  logistic_regression<double> manual(5);
  for (int e = 0; e < 2; ++e) {
    for (std::size_t begin = 0; begin < s.size(); begin += 5) {
      std::vector<std::size_t> idx;
      for (std::size_t i = begin; i < std::min(s.size(), begin + 5); ++i) idx.push_back(i);
      manual.ascent_step(s.select(idx), 0.3, 0.1);
    }
  }
  for (std::size_t j = 0; j < 5; ++j) CHECK(online.weights()[j] == manual.weights()[j]);
  // One block of all examples is one batch step.
  logistic_regression<double> one_block(5), batch(5);
  one_block.fit_online(s, {.learning_rate = 0.3, .block_size = 100});
  batch.ascent_step(s, 0.3);
  for (std::size_t j = 0; j < 5; ++j) CHECK(one_block.weights()[j] == batch.weights()[j]);
}

TEST_CASE("sparse and dense inputs train the same model") {
  const auto s = random_sparse(30, 8, 13);
  const auto d = to_dense(s);
  logistic_regression<double> ms(8, true);
  logistic_regression<double, dense_batch<double>> md(8, true);
  (void)ms.fit_batch(s, {.learning_rate = 0.05, .l2 = 0.01, .max_iterations = 200});
  (void)md.fit_batch(d, {.learning_rate = 0.05, .l2 = 0.01, .max_iterations = 200});
  for (std::size_t j = 0; j < 9; ++j)
    CHECK(ms.parameters()[j] == doctest::Approx(md.parameters()[j]).epsilon(1e-12));
  // A sparse model also scores dense rows.
  const auto a = ms.scores(s), b = ms.scores(d);
  for (std::size_t i = 0; i < s.size(); ++i) CHECK(a(i) == doctest::Approx(b(i)));
}

TEST_CASE_TEMPLATE("single precision trains too", Real, float, double) {
  const auto s = random_sparse(50, 4, 17);
  logistic_regression<Real> m(4);
  const double before = m.log_likelihood(s);
  m.fit_online(s, {.learning_rate = 0.1, .block_size = 10, .epochs = 3});
  CHECK(m.log_likelihood(s) > before);
}

TEST_CASE("logistic regression rejects bad input with named parameters") {
  using privet::test::rejected_parameter;
  CHECK(rejected_parameter([] { logistic_regression<double> m(0); }) == "dimension");
  logistic_regression<double> m(3);
  sparse_binary_batch b;
  b.dimension = 3;
  b.features = {{0}, {1}};
  b.y = {1, 2};
  try {
    (void)m.losses(b);
    FAIL("no throw");
  } catch (const privet::invalid_parameter& e) {
    CHECK(std::string(e.what()) ==
          "privet: label = 2 is invalid; allowed: 1 (positive), or -1 or 0 (negative)");
  }
  b.y = {1, 0};
  b.dimension = 4;
  CHECK(rejected_parameter([&] { (void)m.scores(b); }) == "batch.dimension");
  b.dimension = 3;
  CHECK(rejected_parameter([&] { m.ascent_step(b, 0.0); }) == "learning_rate");
  CHECK(rejected_parameter([&] { m.ascent_step(b, 0.1, -1); }) == "l2");
  CHECK(rejected_parameter([&] { m.fit_online(b, {.learning_rate = 1, .block_size = 0}); }) ==
        "block_size");
  CHECK(rejected_parameter([&] {
          (void)m.fit_batch(b, {.learning_rate = 1, .max_iterations = 0});
        }) == "max_iterations");
  CHECK(rejected_parameter([&] { m.fit_online(b, {.learning_rate = 1}); }) == "block_size");
  CHECK(rejected_parameter([&] { m.fit_online(b, {.block_size = 2}); }) == "learning_rate");
  CHECK(rejected_parameter([&] { (void)m.fit_batch(b, {}); }) == "learning_rate");
  sparse_binary_batch empty;
  empty.dimension = 3;
  CHECK(rejected_parameter([&] { (void)m.fit_batch(empty, {.learning_rate = 1}); }) == "batch");
  dense_batch<double> d;
  d.x = xt::zeros<double>({std::size_t{2}, std::size_t{2}});
  d.y = {1, 0};
  CHECK(rejected_parameter([&] { (void)m.scores(d); }) == "x.shape(1)");
  // A step that overflows the weights is reported, not continued with inf.
  logistic_regression<double, dense_batch<double>> md(1);
  dense_batch<double> big;
  big.x = xt::xtensor<double, 2>{{1e300}, {-1e300}};
  big.y = {1, -1};
  CHECK(rejected_parameter([&] { (void)md.fit_batch(big, {.learning_rate = 1e300}); }) ==
        "learning_rate");
}

TEST_CASE("logistic regression messages name the argument, its value and the allowed range") {
  using privet::invalid_parameter;
  CHECK_THROWS_WITH_AS(logistic_regression<double>(0),
                       "privet: dimension = 0 is invalid; allowed: >= 1", invalid_parameter);
  CHECK_THROWS_WITH_AS(
      (void)privet::ml::signed_label(-2),
      "privet: label = -2 is invalid; allowed: 1 (positive), or -1 or 0 (negative)",
      invalid_parameter);
  logistic_regression<double> m(3);
  sparse_binary_batch b;
  b.dimension = 4;
  b.features = {{0}, {1}};
  b.y = {1, 0};
  CHECK_THROWS_WITH_AS((void)m.scores(b),
                       "privet: batch.dimension = 4 is invalid; allowed: the model's dimension 3",
                       invalid_parameter);
  b.dimension = 3;
  CHECK_THROWS_WITH_AS(m.ascent_step(b, 0.0),
                       "privet: learning_rate = 0 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(m.ascent_step(b, 0.1, -1),
                       "privet: l2 = -1 is invalid; allowed: finite and >= 0", invalid_parameter);
  CHECK_THROWS_WITH_AS((void)m.fit_batch(b, {}),
                       "privet: learning_rate = nan is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((void)m.fit_batch(b, {.learning_rate = 1, .l2 = -0.5}),
                       "privet: l2 = -0.5 is invalid; allowed: finite and >= 0", invalid_parameter);
  CHECK_THROWS_WITH_AS((void)m.fit_batch(b, {.learning_rate = 1, .tolerance = 0}),
                       "privet: tolerance = 0 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((void)m.fit_batch(b, {.learning_rate = 1, .max_iterations = 0}),
                       "privet: max_iterations = 0 is invalid; allowed: >= 1", invalid_parameter);
  CHECK_THROWS_WITH_AS(m.fit_online(b, {.block_size = 2}),
                       "privet: learning_rate = nan is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(m.fit_online(b, {.learning_rate = 1, .block_size = 2, .l2 = -1}),
                       "privet: l2 = -1 is invalid; allowed: finite and >= 0", invalid_parameter);
  CHECK_THROWS_WITH_AS(m.fit_online(b, {.learning_rate = 1}),
                       "privet: block_size = 0 is invalid; allowed: >= 1", invalid_parameter);
  CHECK_THROWS_WITH_AS(m.fit_online(b, {.learning_rate = 1, .block_size = 2, .epochs = 0}),
                       "privet: epochs = 0 is invalid; allowed: >= 1", invalid_parameter);
  CHECK_THROWS_WITH_AS((void)m.clipped_gradient_sum(b, 0.0),
                       "privet: clip_norm = 0 is invalid; allowed: > 0 (or +inf)",
                       invalid_parameter);
  sparse_binary_batch empty;
  empty.dimension = 3;
  CHECK_THROWS_WITH_AS((void)m.fit_batch(empty, {.learning_rate = 1}),
                       "privet: batch is empty; allowed: at least one element", invalid_parameter);
  CHECK_THROWS_WITH_AS(m.fit_online(empty, {.learning_rate = 1, .block_size = 1}),
                       "privet: batch is empty; allowed: at least one element", invalid_parameter);
  CHECK_THROWS_WITH_AS((void)m.mean_gradient(empty),
                       "privet: batch is empty; allowed: at least one element", invalid_parameter);
  dense_batch<double> d;
  d.x = xt::zeros<double>({std::size_t{2}, std::size_t{2}});
  d.y = {1, 0};
  CHECK_THROWS_WITH_AS((void)m.scores(d),
                       "privet: x.shape(1) = 2 is invalid; allowed: the model's dimension 3",
                       invalid_parameter);
  logistic_regression<double, dense_batch<double>> md(1);
  dense_batch<double> big;
  big.x = xt::xtensor<double, 2>{{1e300}, {-1e300}};
  big.y = {1, -1};
  const char* diverged =
      "privet: learning_rate = 1e+300 is invalid; allowed: a step small enough that training "
      "does not diverge (the weights became non-finite)";
  REQUIRE(md.parameters().size() == 1);
  md.parameters()[0] = -0.25;  // misclassifies both rows: a huge gradient
  CHECK_THROWS_WITH_AS((void)md.fit_batch(big, {.learning_rate = 1e300}), diverged,
                       invalid_parameter);
  // A refused fit leaves the model as it was, not with non-finite weights.
  CHECK(md.parameters()[0] == -0.25);
  logistic_regression<double, dense_batch<double>> mo(1);
  CHECK_THROWS_WITH_AS(mo.fit_online(big, {.learning_rate = 1e300, .block_size = 2}), diverged,
                       invalid_parameter);
  for (const double w : mo.parameters()) CHECK(w == 0.0);
}
