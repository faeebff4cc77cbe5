// Per-example clipping: clip_each_row bounds every row's norm and keeps its
// direction; the models' clipped_gradient_sum (from their gradients' factors)
// equals clipping the rows of per_example_gradients and summing them, for
// logistic regression (sparse, dense, intercept) and the MLP (tanh, ReLU).
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/ml/clipping.hpp>
#include <privet/ml/logistic_regression.hpp>
#include <privet/ml/lstm.hpp>
#include <privet/ml/mlp.hpp>

#include <support/errors.hpp>
#include <support/per_example_model.hpp>

#include <doctest/doctest.h>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xview.hpp>

#include <bit>
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
  // The exact sum rounds each entry to the grid G <= C 2^-49 (ml/clipping.hpp):
  // at most one G per row apart from a double sum, besides the double sum's
  // own rounding.
  const double grid = std::isfinite(c) ? static_cast<double>(b.size()) * std::ldexp(c, -49) : 0;
  for (std::size_t j = 0; j < ref.sum.size(); ++j) {
    CAPTURE(j);
    CHECK(std::abs(fast.sum[j] - ref.sum[j]) <= 1e-11 * (std::abs(ref.sum[j]) + 1e-12) + grid);
  }
}

// 40 sparse rows over 30 features, every fifth row densest, with the
// labels label(i).
template <class Label>
sparse_binary_batch sparse_rows(std::mt19937& gen, Label label) {
  sparse_binary_batch s;
  s.dimension = 30;
  for (int i = 0; i < 40; ++i) {
    std::vector<std::uint32_t> row;
    for (std::uint32_t j = 0; j < 30; ++j)
      if (gen() % (1 + i % 5) == 0) row.push_back(j);
    s.features.push_back(row);
    s.y.push_back(label(i));
  }
  return s;
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
  const auto s = sparse_rows(gen, [](int i) { return i % 2 == 0 ? 1 : 0; });
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
  privet::testing::seeded_release_generator gen(6);
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

// ---- the data rule (docs/data_rule.md) and the rounding of the sum ---------

namespace {
double distance(const std::vector<double>& a, const std::vector<double>& b) {
  long double s = 0;
  for (std::size_t j = 0; j < a.size(); ++j) {
    const long double d = static_cast<long double>(a[j]) - b[j];
    s += d * d;
  }
  return static_cast<double>(std::sqrt(s));
}

template <class Batch>
Batch without(const Batch& b, std::size_t skip) {
  std::vector<std::size_t> keep;
  for (std::size_t i = 0; i < b.size(); ++i)
    if (i != skip) keep.push_back(i);
  return b.select(keep);
}
}  // namespace

TEST_CASE("a non-finite per-example gradient counts as zero and keeps the sensitivity") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  // clip_each_row: NaN, +inf, -inf, and a norm beyond the double range; a
  // norm whose square overflows but which is finite is clipped as usual.
  xt::xtensor<double, 2> g{{3.0, 4.0},  {nan, 1.0},         {inf, 0.0},
                           {1.0, -inf}, {1.5e308, 1.5e308}, {3e200, -4e200}};
  CHECK(privet::ml::clip_each_row(g, 1.0) == 6);
  CHECK(g(0, 0) == doctest::Approx(0.6).epsilon(1e-12));
  CHECK(g(5, 0) == doctest::Approx(0.6).epsilon(1e-12));
  CHECK(g(5, 1) == doctest::Approx(-0.8).epsilon(1e-12));
  for (std::size_t i = 1; i < 5; ++i) {
    CAPTURE(i);
    CHECK(g(i, 0) == 0.0);
    CHECK(g(i, 1) == 0.0);
  }
  CHECK(privet::ml::clip_factor(nan, 1.0, 2) == 0.0);
  CHECK(privet::ml::clip_factor(inf, 1.0, 2) == 0.0);

  // Each model's clipped sum (and the generic path) on a batch holding one
  // bad example against the batch without it: both return, and they differ
  // by at most the sensitivity (here by nothing: the bad example is zero).
  const double c = 0.7;
  auto d = gaussian_rows(12, 4, 3, 40);
  privet::testing::seeded_release_generator gen(41);
  privet::ml::mlp<double> m({{4, 5, 3}, privet::ml::activation::tanh}, gen);
  privet::ml::logistic_regression<double, dense_batch<double>> lr(4, true);
  for (auto& w : lr.parameters()) w = 0.2;
  const auto check_pair = [&](const auto& model, const auto& bad, std::size_t at) {
    const auto p = model.parameter_count();
    privet::ml::clipped_sum with, alone;
    REQUIRE_NOTHROW(with = privet::ml::sum_of_clipped_gradients(model, bad, c));
    REQUIRE_NOTHROW(alone = privet::ml::sum_of_clipped_gradients(model, without(bad, at), c));
    const double delta = privet::ml::clipped_gradient_sum_sensitivity(c, p, bad.size(), 1);
    CHECK(distance(with.sum, alone.sum) <= delta);
    CHECK(distance(with.sum, alone.sum) == 0.0);
    CHECK(with.clipped == alone.clipped + 1);  // the zeroed example counts
    for (double v : with.sum) CHECK(std::isfinite(v));
  };
  for (int variant = 0; variant < 5; ++variant) {
    CAPTURE(variant);
    auto bad = d;
    if (variant == 0) bad.x(3, 1) = nan;
    if (variant == 1) bad.x(3, 0) = inf;
    if (variant == 2) bad.x(3, 2) = -1e308;  // finite, but the logits overflow
    if (variant == 3) bad.y[3] = 3;          // a class the MLP does not have
    if (variant == 4) bad.y[3] = -2;
    if (variant < 3) {
      check_pair(lr, bad, 3);
      if (variant != 2) check_pair(m, bad, 3);  // tanh keeps -1e308's logits finite
    } else {
      check_pair(m, bad, 3);
      auto bad_lr = d;
      bad_lr.y[3] = variant == 3 ? 2 : -2;  // logistic labels are 1, 0 or -1
      check_pair(lr, bad_lr, 3);
    }
  }
  // An MLP without hidden layers (linear logits) overflows on -1e308.
  privet::ml::mlp<double> linear({{4, 3}, privet::ml::activation::relu}, gen);
  auto huge = d;
  huge.x(5, 0) = -1e308;
  huge.x(5, 1) = 1e308;
  check_pair(linear, huge, 5);

  // Sparse rows: an index beyond the dimension, or repeated.
  privet::ml::logistic_regression<double> sparse(6);
  sparse_binary_batch s;
  s.dimension = 6;
  s.features = {{0, 2}, {1, 5}, {3}, {2, 4}};
  s.y = {1, 0, 1, -1};
  for (int variant = 0; variant < 2; ++variant) {
    auto bad = s;
    bad.features[2] =
        variant == 0 ? std::vector<std::uint32_t>{3, 6} : std::vector<std::uint32_t>{3, 1, 3};
    check_pair(sparse, bad, 2);
  }
}

// Issue 22, finding 4, on the ML path: a floating-point sum of clipped rows
// can move by more than C when one row is added. The MLP used to sum its
// float gradients in float (one matrix product): one example whose weight
// gradient is (1, -1) ahead of 2^20 whose entries are 1.5 2^-24 rounds each
// addition up by a quarter unit, and the neighbouring sums then differ by
// 1.621, above the row's norm 1.581 and above C = 1.6. The exact sum must
// differ by at most clipped_gradient_sum_sensitivity.
TEST_CASE("the clipped sum's neighbouring distance stays within its sensitivity (finding 4)") {
  privet::testing::seeded_release_generator gen(42);
  privet::ml::mlp<float> m({{1, 2}, privet::ml::activation::tanh}, gen);
  for (auto& w : m.parameters()) w = 0.0F;  // logits 0: each delta is (-1/2, 1/2), exactly
  const std::size_t many = std::size_t{1} << 20;
  dense_batch<float> d;
  d.x = xt::xtensor<float, 2>::from_shape({many + 1, std::size_t{1}});
  d.x(0, 0) = 2.0F;  // weight gradient (-1, 1), bias gradient (-1/2, 1/2): norm sqrt(2.5)
  for (std::size_t i = 1; i <= many; ++i) d.x(i, 0) = 3.0F * std::ldexp(1.0F, -24);
  d.y.assign(many + 1, 0);
  const double c = 1.6;
  const auto with = m.clipped_gradient_sum(d, c);
  const auto alone = m.clipped_gradient_sum(without(d, 0), c);
  CHECK(with.clipped == 0);
  const double delta = privet::ml::clipped_gradient_sum_sensitivity(c, 4, many + 1, 1);
  const double moved = distance(with.sum, alone.sum);
  CHECK(moved <= delta);
  CHECK(moved == doctest::Approx(std::sqrt(2.5)).epsilon(1e-9));
  // The same rows summed in float, as before: the reproducer is sharp.
  float w_with = 0, w_alone = 0;
  for (std::size_t i = 0; i <= many; ++i) w_with += 0.5F * d.x(i, 0);
  for (std::size_t i = 1; i <= many; ++i) w_alone += 0.5F * d.x(i, 0);
  const double naive = std::sqrt(2 * std::pow(static_cast<double>(w_with - w_alone), 2) + 0.5);
  CHECK(naive > c);

  // Double rows through clip_and_sum_rows: one row 1 ahead of 2^20 rows of
  // 1.5 2^-53, which a double sum rounds up by a quarter unit each. The
  // exact sum does not depend on the order of the rows.
  xt::xtensor<double, 2> rows = xt::xtensor<double, 2>::from_shape({many + 1, std::size_t{1}});
  rows(0, 0) = 1.0;
  for (std::size_t i = 1; i <= many; ++i) rows(i, 0) = 1.5 * std::ldexp(1.0, -53);
  xt::xtensor<double, 2> rest = xt::view(rows, xt::range(1, many + 1), xt::all());
  xt::xtensor<double, 2> reversed = xt::flip(rows, 0);
  auto a = rows;
  const auto sum_with = privet::ml::clip_and_sum_rows(a, 1.0).sum;
  const auto sum_alone = privet::ml::clip_and_sum_rows(rest, 1.0).sum;
  CHECK(privet::ml::clip_and_sum_rows(reversed, 1.0).sum == sum_with);
  CHECK(distance(sum_with, sum_alone) <=
        privet::ml::clipped_gradient_sum_sensitivity(1.0, 1, many + 1, 1));
  double plain = 0;
  for (std::size_t i = 0; i <= many; ++i) plain += rows(i, 0);
  double plain_alone = 0;
  for (std::size_t i = 1; i <= many; ++i) plain_alone += rows(i, 0);
  CHECK(plain - plain_alone > 1.0);
}

TEST_CASE("a sum beyond 2^63 grid units is rounded once, as the runtime's int128 conversion") {
  // C = 2: the grid is G = 2^(ilogb(2) + 1 - 50) = 2^-48, so 1.0 is 2^48
  // units and 2^15 + 3 rows of it pass 2^63 units: the int128 totals after
  // the blocks' flushes, converted without a branch (ct_round_to_double).
  const std::size_t n = (std::size_t{1} << 15) + 3;
  xt::xtensor<double, 2> rows = xt::xtensor<double, 2>::from_shape({n + 1, std::size_t{3}});
  for (std::size_t i = 0; i < n; ++i) {
    rows(i, 0) = 1.0;
    rows(i, 1) = -1.0;
    rows(i, 2) = 0.75;
  }
  // One more row of a single unit (2^-48) and of 2^-10: the totals need 64
  // bits, so the conversion rounds.
  rows(n, 0) = std::ldexp(1.0, -48);
  rows(n, 1) = -std::ldexp(1.0, -10);
  rows(n, 2) = 0;
  const auto got = privet::ml::clip_and_sum_rows(rows, 2.0).sum;
  using privet::detail::int128;
  const int128 unit = int128{1} << 48;
  const int128 totals[3] = {static_cast<int128>(n) * unit + 1,
                            -static_cast<int128>(n) * unit - (int128{1} << 38),
                            static_cast<int128>(n) * 3 * (unit / 4)};
  REQUIRE(got.size() == 3);
  CHECK(totals[0] > (int128{1} << 63));
  CHECK(-totals[1] > (int128{1} << 63));
  for (int j = 0; j < 3; ++j) {
    INFO("entry " << j);
    CHECK(got[static_cast<std::size_t>(j)] ==
          std::ldexp(static_cast<double>(totals[j]), -48));  // the runtime's conversion
  }
}

TEST_CASE("clipped_gradient_sum_sensitivity: C plus a margin that grows with P and N") {
  using privet::ml::clipped_gradient_sum_sensitivity;
  // One row, one parameter: C + C 2^-49 + 2 (2^-52 (C + C 2^-49)) + rounding up.
  const double one = clipped_gradient_sum_sensitivity(1.0, 1, 1, 1);
  CHECK(one >= 1 + std::ldexp(1.0, -49) + std::ldexp(1.0, -51));
  CHECK(one <= 1 + std::ldexp(1.0, -48));
  CHECK(clipped_gradient_sum_sensitivity(1.0, 1, 1, 2) > 2);
  // 10^6 parameters and 10^9 rows: still within 1e-6 of C.
  const double big = clipped_gradient_sum_sensitivity(2.0, 1'000'000, 1'000'000'000, 1);
  CHECK(big > 2.0);
  CHECK(big < 2.0 * (1 + 1e-6));
  CHECK(clipped_gradient_sum_sensitivity(std::numeric_limits<double>::infinity(), 3, 3, 1) ==
        std::numeric_limits<double>::infinity());
  // Subnormal and huge clip norms sum without overflow in the grid.
  const double t = std::ldexp(3.0, -1065);  // subnormal
  xt::xtensor<double, 2> tiny{{t, 0.0}, {t, t}};
  CHECK(privet::ml::clip_and_sum_rows(tiny, std::ldexp(1.0, -1060)).sum ==
        std::vector<double>{2 * t, t});
  xt::xtensor<double, 2> large{{1e300, 0.0}, {1e300, 0.0}};
  CHECK(privet::ml::clip_and_sum_rows(large, 1e300).sum[0] ==
        doctest::Approx(2e300).epsilon(1e-14));
}

namespace {
// A model seen only through per_example_gradients: the generic masked path.
template <class Inner>
using rows_of = privet::test::per_example_only<Inner>;

// The masked sum over a batch equals the plain sum over its counted rows,
// bit for bit (both are exact sums rounded once), with the same `clipped`.
template <class Model, class Batch>
void check_masked(const Model& m, const Batch& b, double c, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<std::uint8_t> counted(b.size());
  std::vector<std::size_t> kept;
  for (std::size_t i = 0; i < b.size(); ++i) {
    counted[i] = static_cast<std::uint8_t>(gen() % 3 != 0 ? 1 : 0);  // 0 or 1 by chance
    if (counted[i] != 0) kept.push_back(i);
  }
  counted[0] = 7;  // any non-zero entry counts
  if (kept.empty() || kept.front() != 0) kept.insert(kept.begin(), 0);
  const auto masked = privet::ml::sum_of_clipped_gradients(m, b, c, counted);
  const auto plain = privet::ml::sum_of_clipped_gradients(m, b.select(kept), c);
  CAPTURE(c);
  CHECK(masked.clipped == plain.clipped);
  CHECK(masked.sum == plain.sum);
  // Nothing counted: the zero sum, still one row's work each.
  std::fill(counted.begin(), counted.end(), std::uint8_t{0});
  const auto none = privet::ml::sum_of_clipped_gradients(m, b, c, counted);
  CHECK(none.clipped == 0);
  for (const double v : none.sum) CHECK(v == 0.0);
}
}  // namespace

TEST_CASE("a padded batch's masked sum is the sum over its counted rows, on every path") {
  static_assert(privet::ml::masked_clipped_sum_model<privet::ml::mlp<double>, dense_batch<double>>);
  static_assert(!privet::ml::masked_clipped_sum_model<
                rows_of<privet::ml::logistic_regression<double, dense_batch<double>>>,
                dense_batch<double>>);
  std::mt19937 gen(8);
  std::normal_distribution<double> nd;
  // Label 5: an unusable example.
  const auto s = sparse_rows(gen, [](int i) { return i % 7 == 3 ? 5 : i % 2; });
  privet::ml::logistic_regression<double> ms(30, true);
  for (auto& w : ms.parameters()) w = 0.3 * nd(gen);
  privet::ml::logistic_regression<double, dense_batch<double>> md(7);
  for (auto& w : md.parameters()) w = nd(gen);
  const auto d = gaussian_rows(25, 7, 2, 5);
  privet::testing::seeded_release_generator init(9);
  const privet::ml::mlp<double> mm({{7, 9, 3}, privet::ml::activation::tanh}, init);
  const auto d3 = gaussian_rows(33, 7, 3, 6);
  const rows_of<privet::ml::logistic_regression<double, dense_batch<double>>> generic{md};
  std::uint64_t seed = 1;
  for (double c : {0.05, 0.5, 2.0, std::numeric_limits<double>::infinity()}) {
    check_masked(ms, s, c, ++seed);
    check_masked(md, d, c, ++seed);
    check_masked(mm, d3, c, ++seed);
    check_masked(generic, d, c, ++seed);
  }
  // A mask of the wrong length is a parameter error, named.
  const std::vector<std::uint8_t> short_mask(3, 1);
  CHECK_THROWS_WITH_AS(privet::ml::sum_of_clipped_gradients(md, d, 1.0, short_mask),
                       "privet: counted.size() = 3 is invalid; allowed: 0 (every row counts) or "
                       "the batch's rows = 25",
                       privet::invalid_parameter);
  CHECK_THROWS_AS((void)md.clipped_gradient_sum(d, 1.0, short_mask), privet::invalid_parameter);
  CHECK_THROWS_AS((void)mm.clipped_gradient_sum(d3, 1.0, short_mask), privet::invalid_parameter);
}

// The rows form (DP-SGD's steps) against the four-argument form on the
// selected batch: the same sums for a model that reads rows in place (the
// LSTM) and one that does not (logistic regression, through select), with
// and without a mask, repeated rows included.
TEST_CASE("the clipped sum over rows of the data equals the clipped sum of the selected batch") {
  using privet::ml::sum_of_clipped_gradients;
  static_assert(privet::ml::indexed_gradient_model<privet::ml::lstm_classifier<double>,
                                                   privet::ml::sequence_batch<double>>);
  static_assert(!privet::ml::indexed_gradient_model<
                privet::ml::logistic_regression<double, dense_batch<double>>, dense_batch<double>>);
  privet::testing::seeded_release_generator gen(11);
  const privet::ml::lstm_classifier<double> lstm(
      {.input_dim = 2, .hidden = 3, .classes = 2, .gradient_frames = 5}, gen);
  privet::ml::sequence_batch<double> seqs;
  for (std::size_t i = 0; i < 9; ++i) {
    xt::xtensor<double, 2> x = xt::xtensor<double, 2>::from_shape({1 + (i * 3) % 8, 2});
    for (auto& v : x) v = 2 * privet::uniform_real(gen) - 1;
    seqs.x.push_back(x);
    seqs.y.push_back(static_cast<int>(i % 2));
  }
  privet::ml::logistic_regression<double, dense_batch<double>> md(7);
  std::mt19937 mt(12);
  std::normal_distribution<double> nd;
  for (auto& w : md.parameters()) w = nd(mt);
  const auto d = gaussian_rows(25, 7, 2, 5);
  const std::vector<std::size_t> rows = {8, 0, 3, 3, 6, 1};
  const std::vector<std::uint8_t> counted = {1, 0, 1, 1, 0, 1};
  for (double c : {0.05, 1.0, std::numeric_limits<double>::infinity()}) {
    CAPTURE(c);
    for (const auto mask :
         {std::span<const std::uint8_t>{}, std::span<const std::uint8_t>(counted)}) {
      const auto a = sum_of_clipped_gradients(lstm, seqs, rows, c, mask);
      const auto b = sum_of_clipped_gradients(lstm, seqs.select(rows), c, mask);
      CHECK(a.sum == b.sum);
      CHECK(a.clipped == b.clipped);
      const auto e = sum_of_clipped_gradients(md, d, rows, c, mask);
      const auto f = sum_of_clipped_gradients(md, d.select(rows), c, mask);
      CHECK(e.sum == f.sum);
      CHECK(e.clipped == f.clipped);
    }
  }
  // No rows: the zero sum; a mask of the wrong length: named.
  CHECK(sum_of_clipped_gradients(lstm, seqs, std::span<const std::size_t>{}, 1.0).sum ==
        std::vector<double>(lstm.parameter_count(), 0.0));
  CHECK(privet::test::rejected_parameter([&] {
          static_cast<void>(sum_of_clipped_gradients(
              lstm, seqs, rows, 1.0, std::span<const std::uint8_t>(counted).first(2)));
        }) == "counted.size()");
}

// The rows form of sparse logistic regression (read in place) against its
// clipped sum on the selected batch, with every record-wise rule among the
// rows: labels 5 and -2, an index at the dimension, a repeated index, no
// features.
TEST_CASE("sparse logistic regression sums over rows in place as over the selected batch") {
  using privet::ml::sum_of_clipped_gradients;
  static_assert(privet::ml::indexed_clipped_sum_model<privet::ml::logistic_regression<double>,
                                                      sparse_binary_batch>);
  std::mt19937 gen(21);
  std::normal_distribution<double> nd;
  auto s = sparse_rows(gen, [](int i) { return i % 11 == 4 ? 5 : (i % 13 == 6 ? -2 : i % 2); });
  s.features[1] = {3, 30, 4};
  s.features[2] = {5, 7, 5};
  s.features[5].clear();
  privet::ml::logistic_regression<double> m(30, true);
  for (auto& w : m.parameters()) w = 0.3 * nd(gen);
  const std::vector<std::size_t> rows = {39, 0, 3, 3, 2, 17, 5, 1, 4, 6};
  const std::vector<std::uint8_t> row_mask = {1, 1, 0, 1, 1, 0, 1, 1, 1, 1};
  for (double c : {0.05, 1.0, std::numeric_limits<double>::infinity()}) {
    CAPTURE(c);
    for (const auto mask :
         {std::span<const std::uint8_t>{}, std::span<const std::uint8_t>(row_mask)}) {
      const auto e = sum_of_clipped_gradients(m, s, rows, c, mask);
      const auto f = sum_of_clipped_gradients(m, s.select(rows), c, mask);
      CHECK(e.sum == f.sum);
      CHECK(e.clipped == f.clipped);
    }
  }
  CHECK(privet::test::rejected_parameter([&] {
          const std::vector<std::size_t> outside = {40};
          static_cast<void>(m.clipped_gradient_sum(s, outside, 1.0));
        }) == "rows");
}

// round_toward_zero (the MLP's clipped deltas) against the branchy
// reference it replaced: the float nearest v, stepped toward zero by
// std::nextafter when it is larger in magnitude than v; never larger than
// v in magnitude; exact for double.
TEST_CASE("round_toward_zero steps toward zero exactly when rounding to nearest grew the value") {
  std::mt19937_64 gen(31);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::vector<double> vs = {
      0.0,    -0.0,   1.0, -1.0, 0x1.000001p0, -0x1.000001p0, 1e-40, -1e-40, 0x1.fffffffp127,
      3.4e38, -3.4e38};
  for (int i = 0; i < 20000; ++i)
    vs.push_back(std::ldexp(unit(gen), static_cast<int>(gen() % 200) - 100));
  for (const double v : vs) {
    CAPTURE(v);
    auto ref = static_cast<float>(v);
    if (std::abs(static_cast<double>(ref)) > std::abs(v)) ref = std::nextafter(ref, 0.0f);
    const float r = privet::ml::detail::round_toward_zero<float>(v);
    CHECK(std::bit_cast<std::uint32_t>(r) == std::bit_cast<std::uint32_t>(ref));
    CHECK(std::abs(static_cast<double>(r)) <= std::abs(v));
    CHECK(privet::ml::detail::round_toward_zero<double>(v) == v);
  }
}

// shrunk_factor against the branchy reference it replaced (scale (1 - 2 eps)
// rounded to nearest, stepped toward zero by std::nextafter when not below
// it), over scales in [0, 1] including 0, 1 and tiny ones.
TEST_CASE_TEMPLATE("shrunk_factor equals the nextafter reference and stays below the scale", Real,
                   float, double) {
  std::mt19937_64 gen(37);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> scales = {0.0, 1.0, 0.5, 1e-300, 1e-40, 0x1p-149, 0x1p-126};
  for (int i = 0; i < 20000; ++i)
    scales.push_back(std::ldexp(unit(gen), -static_cast<int>(gen() % 64)));
  const double eps = static_cast<double>(std::numeric_limits<Real>::epsilon());
  for (const double scale : scales) {
    CAPTURE(scale);
    const double t = scale * (1 - 2 * eps);
    auto ref = static_cast<Real>(t);
    if (static_cast<double>(ref) >= t) ref = std::nextafter(ref, Real(0));
    const Real s = privet::ml::detail::shrunk_factor<Real>(scale);
    CHECK(s == ref);
    CHECK_FALSE(std::signbit(s));
    CHECK((static_cast<double>(s) < t || s == Real(0)));
  }
}
