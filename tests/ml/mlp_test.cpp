// The MLP: per-example gradients against central finite differences (tanh and
// ReLU, several depths), against single-example passes and the batched mean
// gradient; training on XOR; and every documented error.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/ml/metrics.hpp>
#include <privet/ml/mlp.hpp>

#include <support/errors.hpp>

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

namespace {
using privet::ml::activation;
using privet::ml::dense_batch;
using privet::ml::mlp;

dense_batch<double> random_batch(std::size_t n, std::size_t f, int classes, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> nd;
  dense_batch<double> b;
  b.x = xt::xtensor<double, 2>::from_shape({n, f});
  for (auto& v : b.x) v = nd(gen);
  for (std::size_t i = 0; i < n; ++i) b.y.push_back(static_cast<int>(gen() % classes));
  return b;
}
}  // namespace

static_assert(privet::ml::differentiable_model<mlp<double>>);
static_assert(privet::ml::differentiable_model<mlp<float>>);
static_assert(privet::ml::batch_gradient_model<mlp<double>, dense_batch<double>>);

TEST_CASE("MLP per-example gradients match finite differences") {
  privet::testing::seeded_release_generator gen(1);
  for (auto act : {activation::tanh, activation::relu}) {
    for (const auto& layers :
         std::vector<std::vector<std::size_t>>{{3, 4}, {3, 5, 4}, {4, 6, 5, 3}}) {
      mlp<double> m({layers, act}, gen);
      // Non-zero biases so every parameter's derivative is exercised.
      for (auto& w : m.parameters()) w += 0.05;
      const auto b = random_batch(5, layers.front(), static_cast<int>(layers.back()), 2);
      const auto g = m.per_example_gradients(b);
      REQUIRE(g.shape(0) == 5);
      REQUIRE(g.shape(1) == m.parameter_count());
      const double h = 1e-6;
      for (std::size_t j = 0; j < m.parameter_count(); ++j) {
        const double saved = m.parameters()[j];
        m.parameters()[j] = saved + h;
        const auto up = m.losses(b);
        m.parameters()[j] = saved - h;
        const auto down = m.losses(b);
        m.parameters()[j] = saved;
        for (std::size_t i = 0; i < 5; ++i) {
          CAPTURE(j);
          CAPTURE(i);
          CAPTURE(layers.size());
          CHECK(g(i, j) == doctest::Approx((up(i) - down(i)) / (2 * h)).epsilon(1e-5).scale(1e-7));
        }
      }
    }
  }
}

TEST_CASE("MLP per-example rows equal single-example passes and average to the mean gradient") {
  privet::testing::seeded_release_generator gen(3);
  mlp<double> m({{6, 8, 8, 4}, activation::relu}, gen);
  const auto b = random_batch(37, 6, 4, 4);
  const auto g = m.per_example_gradients(b);
  const auto mean = m.mean_gradient(b);
  for (std::size_t j = 0; j < m.parameter_count(); ++j) {
    double s = 0;
    for (std::size_t i = 0; i < b.size(); ++i) s += g(i, j);
    CHECK(s / 37 == doctest::Approx(mean(j)).epsilon(1e-10).scale(1e-12));
  }
  for (std::size_t i : {std::size_t{0}, std::size_t{17}, std::size_t{36}}) {
    const std::size_t idx[] = {i};
    const auto one = m.per_example_gradients(b.select(idx));
    for (std::size_t j = 0; j < m.parameter_count(); ++j)
      CHECK(one(0, j) == doctest::Approx(g(i, j)).epsilon(1e-12).scale(1e-14));
  }
  // The generic mean_gradient dispatches to the member.
  const auto generic = privet::ml::mean_gradient(m, b);
  CHECK(generic == mean);
  // An empty batch has an empty per-example matrix.
  const auto none = m.per_example_gradients(b.select(std::span<const std::size_t>()));
  CHECK(none.shape(0) == 0);
  CHECK(none.shape(1) == m.parameter_count());
}

TEST_CASE("an MLP without hidden layers is multinomial logistic regression") {
  privet::testing::seeded_release_generator gen(5);
  mlp<double> m({{2, 3}}, gen);
  REQUIRE(m.parameter_count() == 3 * 2 + 3);
  const auto b = random_batch(4, 2, 3, 6);
  const auto z = m.logits(b);
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t k = 0; k < 3; ++k) {
      const auto w = m.parameters();
      CHECK(z(i, k) == doctest::Approx(w[k * 2] * b.x(i, 0) + w[k * 2 + 1] * b.x(i, 1) + w[6 + k]));
    }
}

TEST_CASE_TEMPLATE("an MLP learns XOR", Real, float, double) {
  privet::testing::seeded_release_generator gen(7);
  mlp<Real> m({{2, 8, 2}, activation::tanh}, gen);
  dense_batch<Real> b;
  b.x = xt::xtensor<Real, 2>{{0, 0}, {0, 1}, {1, 0}, {1, 1}};
  b.y = {0, 1, 1, 0};
  double first = 0;
  for (Real v : m.losses(b)) first += v;
  for (int step = 0; step < 3000; ++step) {
    const auto g = m.mean_gradient(b);
    for (std::size_t j = 0; j < m.parameter_count(); ++j) m.parameters()[j] -= Real(0.5) * g(j);
  }
  double last = 0;
  for (Real v : m.losses(b)) last += v;
  CHECK(last < first / 10);
  CHECK(privet::ml::accuracy(m.predict(b), b.y) == 1.0);
}

TEST_CASE("MLP rejects bad shapes and labels with named parameters") {
  using privet::test::rejected_parameter;
  privet::testing::seeded_release_generator gen(9);
  CHECK(rejected_parameter([&] { mlp<double>({{3}}, gen); }) == "layers.size()");
  CHECK(rejected_parameter([&] { mlp<double>({{3, 0, 2}}, gen); }) == "layer width");
  try {
    mlp<double>({{3, 1}}, gen);
    FAIL("no throw");
  } catch (const privet::invalid_parameter& e) {
    CHECK(std::string(e.what()) == "privet: classes = 1 is invalid; allowed: >= 2");
  }
  mlp<double> m({{3, 4, 2}}, gen);
  auto b = random_batch(2, 3, 2, 1);
  b.y[1] = 2;
  CHECK(rejected_parameter([&] { (void)m.per_example_gradients(b); }) == "label");
  const auto wide = random_batch(2, 4, 2, 1);
  CHECK(rejected_parameter([&] { (void)m.losses(wide); }) == "x.shape(1)");
  b.y.pop_back();
  CHECK(rejected_parameter([&] { (void)m.losses(b); }) == "y.size()");
  const auto empty = random_batch(0, 3, 2, 1);
  CHECK(rejected_parameter([&] { (void)m.mean_gradient(empty); }) == "batch");
}

TEST_CASE("MLP messages name the argument, its value and the allowed range") {
  using privet::invalid_parameter;
  privet::testing::seeded_release_generator gen(10);
  CHECK_THROWS_WITH_AS(mlp<double>({{3}}, gen),
                       "privet: layers.size() = 1 is invalid; allowed: >= 2 (inputs and classes)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(mlp<double>({{3, 0, 2}}, gen),
                       "privet: layer width = 0 is invalid; allowed: [1, 16777216]",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(
      mlp<double>({.layers = {3, 2}, .hidden_activation = static_cast<privet::ml::activation>(7)},
                  gen),
      "privet: hidden_activation = 7 is invalid; allowed: tanh or relu", invalid_parameter);
  mlp<double> m({{3, 4, 2}}, gen);
  auto b = random_batch(2, 3, 2, 1);
  b.y[1] = 2;
  CHECK_THROWS_WITH_AS((void)m.per_example_gradients(b),
                       "privet: label = 2 is invalid; allowed: a class index in [0, 2)",
                       invalid_parameter);
  const auto wide = random_batch(2, 4, 2, 1);
  CHECK_THROWS_WITH_AS((void)m.losses(wide),
                       "privet: x.shape(1) = 4 is invalid; allowed: the network's inputs 3",
                       invalid_parameter);
  b.y.pop_back();
  CHECK_THROWS_WITH_AS((void)m.losses(b),
                       "privet: y.size() = 1 is invalid; allowed: one label per example (2)",
                       invalid_parameter);
  const auto empty = random_batch(0, 3, 2, 1);
  CHECK_THROWS_WITH_AS((void)m.mean_gradient(empty),
                       "privet: batch is empty; allowed: at least one element", invalid_parameter);
  CHECK_THROWS_WITH_AS((void)m.clipped_gradient_sum(random_batch(2, 3, 2, 1), 0.0),
                       "privet: clip_norm = 0 is invalid; allowed: > 0 (or +inf)",
                       invalid_parameter);
}
