// The model interface: batch types select and validate; the concepts accept
// a conforming model and reject incomplete ones; mean_gradient averages the
// per-example rows.
#include <privet/ml/model.hpp>

#include <support/errors.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace {
using privet::ml::dense_batch;
using privet::ml::frame_sequence_batch;
using privet::ml::sequence_batch;
using privet::ml::sparse_binary_batch;

// A two-parameter model with loss_i = (w0 x_i + w1 - y_i)^2 / 2, so its
// per-example gradients are known in closed form.
struct toy_model {
  using real_type = double;
  using batch_type = dense_batch<double>;
  std::vector<double> w{0.5, -1.0};
  std::size_t parameter_count() const { return 2; }
  std::span<const double> parameters() const { return w; }
  std::span<double> parameters() { return w; }
  xt::xtensor<double, 2> per_example_gradients(const batch_type& b) const {
    xt::xtensor<double, 2> g = xt::zeros<double>({b.size(), std::size_t{2}});
    for (std::size_t i = 0; i < b.size(); ++i) {
      const double r = w[0] * b.x(i, 0) + w[1] - b.y[i];
      g(i, 0) = r * b.x(i, 0);
      g(i, 1) = r;
    }
    return g;
  }
  xt::xtensor<double, 1> losses(const batch_type& b) const {
    xt::xtensor<double, 1> l = xt::zeros<double>({b.size()});
    for (std::size_t i = 0; i < b.size(); ++i) {
      const double r = w[0] * b.x(i, 0) + w[1] - b.y[i];
      l(i) = r * r / 2;
    }
    return l;
  }
};

struct no_losses {
  using real_type = double;
  using batch_type = dense_batch<double>;
  std::size_t parameter_count() const { return 0; }
  std::span<const double> parameters() const { return {}; }
  std::span<double> parameters() { return {}; }
  xt::xtensor<double, 2> per_example_gradients(const batch_type&) const { return {}; }
};

struct integer_model : toy_model {
  using real_type = int;
};
}  // namespace

static_assert(privet::ml::differentiable_model<toy_model>);
static_assert(!privet::ml::differentiable_model<no_losses>);
static_assert(!privet::ml::differentiable_model<integer_model>);
static_assert(privet::ml::example_batch<dense_batch<float>>);
static_assert(privet::ml::example_batch<sparse_binary_batch>);
static_assert(privet::ml::example_batch<sequence_batch<double>>);
static_assert(privet::ml::example_batch<frame_sequence_batch<double>>);
static_assert(!privet::ml::example_batch<std::vector<int>>);

TEST_CASE("dense_batch::select copies the chosen rows in order") {
  dense_batch<double> b;
  b.x = xt::xtensor<double, 2>{{1, 2}, {3, 4}, {5, 6}};
  b.y = {7, 8, 9};
  const std::size_t idx[] = {2, 0, 2};
  const auto s = b.select(idx);
  REQUIRE(s.size() == 3);
  CHECK(s.x == xt::xtensor<double, 2>{{5, 6}, {1, 2}, {5, 6}});
  CHECK(s.y == std::vector<int>{9, 7, 9});
  const std::size_t bad[] = {3};
  CHECK(privet::test::rejected_parameter([&] { (void)b.select(bad); }) == "indices");
  b.y.pop_back();
  CHECK(privet::test::rejected_parameter([&] { b.validate(); }) == "y.size()");
}

TEST_CASE("sparse_binary_batch validates indices against the dimension") {
  sparse_binary_batch b;
  b.dimension = 4;
  b.features = {{0, 3}, {1}};
  b.y = {1, -1};
  CHECK_NOTHROW(b.validate());
  const std::size_t idx[] = {1};
  const auto s = b.select(idx);
  CHECK(s.dimension == 4);
  CHECK(s.features == std::vector<std::vector<std::uint32_t>>{{1}});
  CHECK(s.y == std::vector<int>{-1});
  b.features[1] = {4};
  try {
    b.validate();
    FAIL("no throw");
  } catch (const privet::invalid_parameter& e) {
    CHECK(std::string(e.what()) ==
          "privet: feature index = 4 is invalid; allowed: < dimension = 4");
  }
  b.features[1] = {2, 2};
  CHECK(privet::test::rejected_parameter([&] { b.validate(); }) == "feature index");
}

TEST_CASE("sequence batches keep sequences and labels together") {
  frame_sequence_batch<double> f;
  f.x = {xt::zeros<double>({std::size_t{3}, std::size_t{2}}),
         xt::ones<double>({std::size_t{1}, std::size_t{2}})};
  f.y = {{0, 1, 0}, {2}};
  CHECK_NOTHROW(f.validate());
  const std::size_t idx[] = {1};
  const auto s = f.select(idx);
  CHECK(s.x[0].shape(0) == 1);
  CHECK(s.y[0] == std::vector<int>{2});
  f.y[0].pop_back();
  CHECK(privet::test::rejected_parameter([&] { f.validate(); }) == "y[i].size()");

  sequence_batch<float> q;
  q.x = {xt::zeros<float>({std::size_t{2}, std::size_t{1}})};
  q.y = {1, 0};
  CHECK(privet::test::rejected_parameter([&] { q.validate(); }) == "y.size()");
}

TEST_CASE("mean_gradient is the average of the per-example gradients") {
  toy_model m;
  dense_batch<double> b;
  b.x = xt::xtensor<double, 2>{{1}, {2}, {-1}};
  b.y = {0, 1, 2};
  // residuals: 0.5 - 1 - 0 = -0.5; 1 - 1 - 1 = -1; -0.5 - 1 - 2 = -3.5
  const auto g = privet::ml::mean_gradient(m, b);
  CHECK(g(0) == doctest::Approx((-0.5 * 1 + -1 * 2 + -3.5 * -1) / 3));
  CHECK(g(1) == doctest::Approx((-0.5 - 1 - 3.5) / 3));
  dense_batch<double> empty;
  empty.x = xt::zeros<double>({std::size_t{0}, std::size_t{1}});
  CHECK(privet::test::rejected_parameter([&] { (void)privet::ml::mean_gradient(m, empty); }) ==
        "batch");
}

TEST_CASE("batch messages name the argument, its value and the allowed range") {
  using privet::invalid_parameter;
  dense_batch<double> d;
  d.x = xt::xtensor<double, 2>{{1, 2}, {3, 4}, {5, 6}};
  d.y = {7, 8, 9};
  const std::size_t past[] = {0, 3};
  CHECK_THROWS_WITH_AS((void)d.select(past),
                       "privet: indices = 3 is invalid; allowed: an example index < batch size 3",
                       invalid_parameter);
  d.y.pop_back();
  CHECK_THROWS_WITH_AS(d.validate(),
                       "privet: y.size() = 2 is invalid; allowed: one label per example (3)",
                       invalid_parameter);
  sparse_binary_batch s;
  s.dimension = 4;
  s.features = {{0, 3}, {2, 2}};
  s.y = {1, -1};
  CHECK_THROWS_WITH_AS(
      s.validate(),
      "privet: feature index = 2 is invalid; allowed: each index at most once per example",
      invalid_parameter);
  const std::size_t two[] = {2};
  CHECK_THROWS_WITH_AS((void)s.select(two),
                       "privet: indices = 2 is invalid; allowed: an example index < batch size 2",
                       invalid_parameter);
  s.y.pop_back();
  CHECK_THROWS_WITH_AS((void)s.select(two),
                       "privet: y.size() = 1 is invalid; allowed: one label per example (2)",
                       invalid_parameter);
  frame_sequence_batch<double> f;
  f.x = {xt::zeros<double>({std::size_t{3}, std::size_t{2}})};
  f.y = {{0, 1}};
  CHECK_THROWS_WITH_AS(
      f.validate(), "privet: y[i].size() = 2 is invalid; allowed: one label per frame of x[i] (3)",
      invalid_parameter);
  sequence_batch<float> q;
  q.x = {xt::zeros<float>({std::size_t{2}, std::size_t{1}})};
  q.y = {1, 0};
  CHECK_THROWS_WITH_AS(q.validate(),
                       "privet: y.size() = 2 is invalid; allowed: one label per example (1)",
                       invalid_parameter);
  toy_model m;
  dense_batch<double> empty;
  empty.x = xt::zeros<double>({std::size_t{0}, std::size_t{1}});
  CHECK_THROWS_WITH_AS((void)privet::ml::mean_gradient(m, empty),
                       "privet: batch is empty; allowed: at least one element", invalid_parameter);
}
