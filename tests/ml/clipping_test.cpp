// Per-example clipping: clip_each_row bounds every row's norm and keeps its
// direction; the models' clipped_gradient_sum (from their gradients' factors)
// equals clipping the rows of per_example_gradients and summing them, for
// logistic regression (sparse, dense, intercept) and the MLP (tanh, ReLU).
#include <privet/core/seeded_generator.hpp>
#include <privet/ml/clipping.hpp>
#include <privet/ml/logistic_regression.hpp>
#include <privet/ml/mlp.hpp>

#include <support/errors.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>
#include <span>
#include <vector>

namespace {
using privet::ml::dense_batch;
using privet::ml::sparse_binary_batch;

// The reference: every row clipped, then summed.
template <class Model, class Batch>
privet::ml::clipped_sum by_rows(const Model& m, const Batch& b, double c) {
  auto g = m.per_example_gradients(b);
  privet::ml::clipped_sum out{std::vector<double>(m.parameter_count(), 0.0), 0};
  out.clipped = privet::ml::clip_each_row(g, c);
  for (std::size_t i = 0; i < g.shape(0); ++i)
    for (std::size_t j = 0; j < g.shape(1); ++j) out.sum[j] += g(i, j);
  return out;
}

template <class Model, class Batch>
void check_same_clipped_sum(const Model& m, const Batch& b, double c) {
  static_assert(privet::ml::clipped_sum_model<Model, Batch>);
  const auto fast = privet::ml::sum_of_clipped_gradients(m, b, c);
  const auto ref = by_rows(m, b, c);
  CAPTURE(c);
  CHECK(fast.clipped == ref.clipped);
  REQUIRE(fast.sum.size() == ref.sum.size());
  for (std::size_t j = 0; j < ref.sum.size(); ++j)
    CHECK(fast.sum[j] == doctest::Approx(ref.sum[j]).epsilon(1e-11).scale(1e-12));
}

dense_batch<double> gaussian_rows(std::size_t n, std::size_t f, int classes, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> nd;
  dense_batch<double> b;
  b.x = xt::xtensor<double, 2>::from_shape({n, f});
  for (auto& v : b.x) v = nd(gen);
  for (std::size_t i = 0; i < n; ++i) b.y.push_back(static_cast<int>(gen() % classes));
  return b;
}
}  // namespace

TEST_CASE("clip_each_row bounds every per-example norm and keeps directions") {
  std::mt19937 gen(3);
  std::normal_distribution<double> nd;
  xt::xtensor<double, 2> g = xt::xtensor<double, 2>::from_shape({50, 300});
  for (std::size_t i = 0; i < 50; ++i)
    for (std::size_t j = 0; j < 300; ++j) g(i, j) = nd(gen) * static_cast<double>(i) * 0.01;
  const auto before = g;
  const double c = 1.0;
  std::size_t expect_clipped = 0;
  std::vector<double> norms;
  for (std::size_t i = 0; i < 50; ++i) {
    double s = 0;
    for (std::size_t j = 0; j < 300; ++j) s += before(i, j) * before(i, j);
    norms.push_back(std::sqrt(s));
    expect_clipped += std::sqrt(s) > c ? 1 : 0;
  }
  REQUIRE(expect_clipped > 10);
  REQUIRE(expect_clipped < 45);
  CHECK(privet::ml::clip_each_row(g, c) == expect_clipped);
  for (std::size_t i = 0; i < 50; ++i) {
    long double s = 0;
    for (std::size_t j = 0; j < 300; ++j) s += static_cast<long double>(g(i, j)) * g(i, j);
    CAPTURE(i);
    CHECK(std::sqrt(static_cast<double>(s)) <= c);
    if (norms[i] > c) {
      CHECK(std::sqrt(static_cast<double>(s)) == doctest::Approx(c).epsilon(1e-12));
      for (std::size_t j = 0; j < 300; ++j)
        CHECK(g(i, j) == doctest::Approx(before(i, j) * c / norms[i]).epsilon(1e-12));
    } else {
      for (std::size_t j = 0; j < 300; ++j) CHECK(g(i, j) == before(i, j));
    }
  }
  // float rows too: rounding to float never lengthens a clipped row.
  xt::xtensor<float, 2> f = xt::xtensor<float, 2>::from_shape({20, 1000});
  for (auto& v : f) v = static_cast<float>(nd(gen));
  privet::ml::clip_each_row(f, 0.5);
  for (std::size_t i = 0; i < 20; ++i) {
    long double s = 0;
    for (std::size_t j = 0; j < 1000; ++j) s += static_cast<long double>(f(i, j)) * f(i, j);
    CHECK(static_cast<double>(std::sqrt(s)) <= 0.5);
  }
}

// The fast path multiplies in Real by a factor a little below the exact
// one; these rows are built so that rounding to nearest rounds many
// products up (each entry's product lands just above a midpoint), so a
// factor that were not shrunk would lengthen the row. The norms are
// computed exactly enough (long double over float squares, every square
// exact in long double) to see a one-ulp excess.
TEST_CASE("clip_each_row never lengthens a row through rounding, on float and double") {
  std::mt19937 gen(11);
  std::uniform_real_distribution<float> unit(0.5f, 1.0f);
  for (const double c : {1.0, 0.3, 1e-3, 7.5}) {
    xt::xtensor<float, 2> f = xt::xtensor<float, 2>::from_shape({64, 257});
    for (auto& v : f) v = unit(gen);
    // Rows of equal entries: every product rounds the same way, so an
    // upward rounding is not averaged out by the others.
    for (std::size_t j = 0; j < 257; ++j) f(0, j) = 1.0f + 0x1p-23f;
    for (std::size_t j = 0; j < 257; ++j) f(1, j) = 0.75f;
    const auto before = f;
    CHECK(privet::ml::clip_each_row(f, c) == 64);
    for (std::size_t i = 0; i < 64; ++i) {
      long double s = 0;
      for (std::size_t j = 0; j < 257; ++j) s += static_cast<long double>(f(i, j)) * f(i, j);
      CAPTURE(c);
      CAPTURE(i);
      CHECK(s <= static_cast<long double>(c) * c);
      // ... and shorter by no more than a few float ulps of the exact scaling.
      CHECK(std::sqrt(static_cast<double>(s)) == doctest::Approx(c).epsilon(4e-7));
      // The direction is kept: every entry is scaled by the same factor.
      const double ratio = static_cast<double>(f(i, 0)) / before(i, 0);
      for (std::size_t j = 1; j < 257; ++j)
        CHECK(static_cast<double>(f(i, j)) / before(i, j) == doctest::Approx(ratio).epsilon(2e-7));
    }
  }
  // A clip norm whose products would be subnormal floats takes the exact
  // path (rounding toward zero entry by entry) and still never lengthens.
  xt::xtensor<float, 2> tiny = xt::xtensor<float, 2>::from_shape({4, 100});
  for (auto& v : tiny) v = unit(gen);
  const double c_tiny = 1e-40;
  CHECK(privet::ml::clip_each_row(tiny, c_tiny) == 4);
  for (std::size_t i = 0; i < 4; ++i) {
    long double s = 0;
    for (std::size_t j = 0; j < 100; ++j) s += static_cast<long double>(tiny(i, j)) * tiny(i, j);
    CHECK(s <= static_cast<long double>(c_tiny) * c_tiny);
    CHECK(s > 0);
  }
  // double rows with entries equal to each other.
  xt::xtensor<double, 2> d = xt::xtensor<double, 2>::from_shape({3, 1000});
  for (auto& v : d) v = 1.0 + 0x1p-52;
  for (std::size_t j = 0; j < 1000; ++j) d(1, j) = 3.0;
  for (std::size_t j = 0; j < 1000; ++j) d(2, j) = (j % 2 ? -1.0 : 1.0) * 0.1;
  CHECK(privet::ml::clip_each_row(d, 1.0) == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    long double s = 0;
    for (std::size_t j = 0; j < 1000; ++j) s += static_cast<long double>(d(i, j)) * d(i, j);
    CAPTURE(i);
    CHECK(s <= 1.0L + 1e-16L);  // long double's own rounding in the sum: < 1000 x 2^-64
    CHECK(std::sqrt(static_cast<double>(s)) == doctest::Approx(1.0).epsilon(1e-12));
  }
}

TEST_CASE("logistic regression's clipped sum equals clipping its per-example rows") {
  std::mt19937 gen(4);
  std::normal_distribution<double> nd;
  sparse_binary_batch s;
  s.dimension = 30;
  for (int i = 0; i < 40; ++i) {
    std::vector<std::uint32_t> row;
    for (std::uint32_t j = 0; j < 30; ++j)
      if (gen() % (1 + i % 5) == 0) row.push_back(j);
    s.features.push_back(row);
    s.y.push_back(i % 2 == 0 ? 1 : 0);
  }
  privet::ml::logistic_regression<double> ms(30, true);
  for (auto& w : ms.parameters()) w = 0.3 * nd(gen);
  privet::ml::logistic_regression<double, dense_batch<double>> md(7);
  for (auto& w : md.parameters()) w = nd(gen);
  auto d = gaussian_rows(25, 7, 2, 5);
  for (double c : {0.05, 0.5, 2.0, 1e6, std::numeric_limits<double>::infinity()}) {
    check_same_clipped_sum(ms, s, c);
    check_same_clipped_sum(md, d, c);
  }
}

TEST_CASE("the MLP's clipped sum equals clipping its per-example rows") {
  privet::seeded_generator gen(6);
  for (auto act : {privet::ml::activation::tanh, privet::ml::activation::relu}) {
    privet::ml::mlp<double> m({{5, 9, 7, 3}, act}, gen);
    const auto b = gaussian_rows(33, 5, 3, 7);
    for (double c : {0.01, 0.3, 1.0, 5.0, std::numeric_limits<double>::infinity()})
      check_same_clipped_sum(m, b, c);
    // Single precision through the same path.
    privet::ml::mlp<float> mf({{5, 9, 3}, act}, gen);
    dense_batch<float> bf;
    bf.x = xt::xtensor<float, 2>::from_shape({b.size(), std::size_t{5}});
    for (std::size_t k = 0; k < b.x.size(); ++k) bf.x.data()[k] = static_cast<float>(b.x.data()[k]);
    bf.y = b.y;
    const auto fast = privet::ml::sum_of_clipped_gradients(mf, bf, 0.2);
    const auto ref = by_rows(mf, bf, 0.2);
    CHECK(fast.clipped == ref.clipped);
    CHECK(fast.clipped > 0);
    for (std::size_t j = 0; j < ref.sum.size(); ++j)
      CHECK(fast.sum[j] == doctest::Approx(ref.sum[j]).epsilon(1e-4).scale(1e-5));
  }
  // An empty batch sums to zero.
  privet::ml::mlp<double> m({{2, 2}}, gen);
  const auto none = privet::ml::sum_of_clipped_gradients(m, gaussian_rows(0, 2, 2, 1), 1.0);
  CHECK(none.clipped == 0);
  CHECK(none.sum == std::vector<double>(m.parameter_count(), 0.0));
  CHECK(privet::test::rejected_parameter([&] {
          (void)privet::ml::sum_of_clipped_gradients(m, gaussian_rows(1, 2, 2, 1), 0.0);
        }) == "clip_norm");
}

namespace {
// A model that breaks its own contract: one gradient entry per example for
// two parameters (or, with extra_rows, two entries but too many rows).
struct short_rows_model {
  std::size_t extra_rows = 0;
  using real_type = double;
  using batch_type = dense_batch<double>;
  std::vector<double> w{0.0, 0.0};
  std::size_t parameter_count() const { return 2; }
  std::span<const double> parameters() const { return w; }
  std::span<double> parameters() { return w; }
  xt::xtensor<double, 2> per_example_gradients(const batch_type& b) const {
    return xt::zeros<double>(
        {b.size() + extra_rows, extra_rows > 0 ? std::size_t{2} : std::size_t{1}});
  }
  xt::xtensor<double, 1> losses(const batch_type& b) const { return xt::zeros<double>({b.size()}); }
};
}  // namespace

TEST_CASE("clipping messages name the argument, its value and the allowed range") {
  using privet::invalid_parameter;
  xt::xtensor<double, 2> g{{3.0, 4.0}};
  CHECK_THROWS_WITH_AS(privet::ml::clip_each_row(g, 0.0),
                       "privet: clip_norm = 0 is invalid; allowed: > 0 (or +inf)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::ml::clip_each_row(g, std::nan("")),
                       "privet: clip_norm = nan is invalid; allowed: > 0 (or +inf)",
                       invalid_parameter);
  xt::xtensor<double, 2> diverged{{1.0, std::numeric_limits<double>::infinity()}};
  CHECK_THROWS_WITH_AS(
      privet::ml::clip_each_row(diverged, 1.0),
      "privet: per-example gradient norm = inf is invalid; allowed: finite (training diverged)",
      invalid_parameter);
  short_rows_model m;
  dense_batch<double> b;
  b.x = xt::xtensor<double, 2>{{1.0}, {2.0}};
  b.y = {0, 1};
  CHECK_THROWS_WITH_AS((void)privet::ml::sum_of_clipped_gradients(m, b, -1.0),
                       "privet: clip_norm = -1 is invalid; allowed: > 0 (or +inf)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((void)privet::ml::sum_of_clipped_gradients(m, b, 1.0),
                       "privet: per-example gradients' columns = 1 is invalid; allowed: one per "
                       "parameter: == parameter_count() = 2",
                       invalid_parameter);
  // The wrong row count is named as such, with the batch size (finding 12).
  m.extra_rows = 3;
  CHECK_THROWS_WITH_AS((void)privet::ml::sum_of_clipped_gradients(m, b, 1.0),
                       "privet: per-example gradients' rows = 5 is invalid; allowed: one per "
                       "example: == the batch size = 2",
                       invalid_parameter);
}
