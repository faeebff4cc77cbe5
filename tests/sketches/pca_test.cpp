// PCA of sparse binary vectors (built only with privet::blas): components
// and variances against an exact eigendecomposition (xt::linalg::eigh) of the
// dense sample covariance, explained variance, the projection against its
// dense definition, determinism per seed, and the documented errors.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform.hpp>
#include <privet/sketches/pca.hpp>

#include <support/errors.hpp>

#include <doctest/doctest.h>

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xtensor.hpp>
#include <xtensor/xview.hpp>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

using privet::test::rejected_parameter;
using rows = std::vector<std::vector<std::uint32_t>>;

namespace {

// n vectors over features [0, d) (features >= d / 2 + 5 never occur) from
// four latent topics: topic t turns on features [8 t, 8 t + 8) with
// probability 0.9 and every other feature with probability 0.05. Four
// clusters give three large eigenvalues (the directions between the cluster
// means) well above the within-cluster noise.
rows topic_data(std::size_t n, std::uint32_t d, std::uint64_t seed) {
  privet::testing::seeded_release_generator gen(seed);
  rows out(n);
  for (auto& row : out) {
    const auto topic = static_cast<std::uint32_t>(privet::uniform_below(gen, 4));
    for (std::uint32_t f = 0; f < d / 2 + 5; ++f) {
      const bool in_topic = f >= 8 * topic && f < 8 * topic + 8;
      if (privet::uniform_real(gen) < (in_topic ? 0.9 : 0.05)) row.push_back(f);
    }
  }
  return out;
}

xt::xtensor<double, 2> dense_matrix(const rows& x, std::uint32_t d) {
  xt::xtensor<double, 2> m = xt::zeros<double>({x.size(), std::size_t{d}});
  for (std::size_t i = 0; i < x.size(); ++i) {
    for (const auto f : x[i]) m(i, f) = 1;
  }
  return m;
}

// The sample covariance's eigenvalues, largest first, and unit eigenvectors
// (columns, same order) of the dense centred matrix.
struct exact_pca {
  xt::xtensor<double, 1> values;
  xt::xtensor<double, 2> vectors;
  xt::xtensor<double, 1> mean;
};

exact_pca exact(const rows& x, std::uint32_t d) {
  const auto m = dense_matrix(x, d);
  exact_pca e;
  e.mean = xt::mean(m, {0});
  const xt::xtensor<double, 2> a = m - e.mean;
  const xt::xtensor<double, 2> cov =
      xt::linalg::dot(xt::transpose(a), a) / static_cast<double>(x.size() - 1);
  auto [w, v] = xt::linalg::eigh(cov);  // ascending
  e.values = xt::flip(w, 0);
  e.vectors = xt::flip(v, 1);
  return e;
}

}  // namespace

TEST_CASE("components and variances match an exact eigendecomposition") {
  constexpr std::uint32_t d = 60;
  const auto x = topic_data(300, d, 1);
  const auto e = exact(x, d);
  // k + p = 3 + 5 = 8 columns, far fewer than the 35 present features: the
  // iteration, not a full-rank sketch, finds the subspace. With
  // lambda_9 / lambda_3 < 0.2 (checked below), 10 rounds leave each
  // component off by an angle of order (lambda_9 / lambda_3)^10.5 < 5e-8,
  // and each variance (a Rayleigh quotient) off by its square.
  const privet::pca_options options{5, 10};
  const auto p = privet::sparse_pca<>::fit(d, 3, x, 7, options);
  REQUIRE(p.components() == 3);
  REQUIRE(e.values(2) > 5 * e.values(8));  // the gap the bound above assumes
  for (std::size_t j = 0; j < 3; ++j) {
    CAPTURE(j);
    CHECK(p.explained_variance()(j) == doctest::Approx(e.values(j)).epsilon(1e-9));
    const auto v = p.component(j);
    const double cosine = xt::sum(v * xt::view(e.vectors, xt::all(), j))();
    CHECK(std::abs(cosine) == doctest::Approx(1.0).epsilon(1e-9));
    CHECK(xt::sum(v * v)() == doctest::Approx(1.0).epsilon(1e-12));
  }
  // Orthogonal components.
  const auto v0 = p.component(0), v1 = p.component(1);
  CHECK(std::abs(xt::sum(v0 * v1)()) < 1e-10);
  // Features never seen have zero loading.
  CHECK(p.component(0)(d - 1) == 0.0);
  CHECK(p.features().size() == d / 2 + 5);
}

TEST_CASE("a subspace as large as the data is exact without any iteration") {
  constexpr std::uint32_t d = 24;
  const auto x = topic_data(40, d, 2);
  const auto e = exact(x, d);
  // 17 present features and k + p >= 17: the sketch spans everything.
  const auto p = privet::sparse_pca<>::fit(d, 4, x, 3, privet::pca_options{30, 0});
  for (std::size_t j = 0; j < 4; ++j) {
    CHECK(p.explained_variance()(j) == doctest::Approx(e.values(j)).epsilon(1e-10));
  }
}

TEST_CASE("explained variance: the total is the covariance's trace, the ratio its share") {
  constexpr std::uint32_t d = 60;
  const auto x = topic_data(300, d, 4);
  const auto e = exact(x, d);
  const auto p = privet::sparse_pca<>::fit(d, 3, x, 9);
  const double trace = xt::sum(e.values)();
  CHECK(p.total_variance() == doctest::Approx(trace).epsilon(1e-12));
  const auto ratio = p.explained_variance_ratio();
  double sum = 0;
  for (std::size_t j = 0; j < 3; ++j) {
    CHECK(ratio(j) == doctest::Approx(e.values(j) / trace).epsilon(1e-8));
    if (j > 0) CHECK(ratio(j) <= ratio(j - 1));
    sum += ratio(j);
  }
  CHECK(sum < 1.0);
  // The three directions between the four topics carry most of the variance.
  CHECK(sum > 0.5);
}

TEST_CASE("projection equals V^T (x - mean), features unseen in training ignored") {
  constexpr std::uint32_t d = 60;
  const auto x = topic_data(200, d, 5);
  const auto p = privet::sparse_pca<>::fit(d, 3, x, 11);
  const rows tests{{}, {0, 3, 11, 59}, {20, 21, 22, 23, 24, 40}};
  const auto batch = p.transform(tests);
  for (std::size_t t = 0; t < tests.size(); ++t) {
    CAPTURE(t);
    xt::xtensor<double, 1> dense = xt::zeros<double>({std::size_t{d}});
    for (const auto f : tests[t]) dense(f) = 1;
    const auto y = p(tests[t]);
    for (std::size_t j = 0; j < 3; ++j) {
      xt::xtensor<double, 1> mean = xt::zeros<double>({std::size_t{d}});
      for (std::size_t r = 0; r < p.features().size(); ++r) mean(p.features()[r]) = p.mean()(r);
      const double expected = xt::sum((dense - mean) * p.component(j))();
      CHECK(y(j) == doctest::Approx(expected).epsilon(1e-12));
      CHECK(batch(t, j) == doctest::Approx(expected).epsilon(1e-12));
    }
  }
}

TEST_CASE("deterministic per seed; signs fixed by the largest loading; float agrees") {
  constexpr std::uint32_t d = 60;
  const auto x = topic_data(200, d, 6);
  const auto a = privet::sparse_pca<>::fit(d, 3, x, 13), b = privet::sparse_pca<>::fit(d, 3, x, 13);
  CHECK(a.loadings() == b.loadings());
  const auto c = privet::sparse_pca<>::fit(d, 3, x, 14);  // another test matrix, same answer
  for (std::size_t j = 0; j < 3; ++j) {
    CAPTURE(j);
    const auto v = a.component(j);
    std::size_t largest = 0;
    for (std::size_t f = 1; f < v.size(); ++f) {
      if (std::abs(v(f)) > std::abs(v(largest))) largest = f;
    }
    CHECK(v(largest) > 0);
    CHECK(xt::sum(v * c.component(j))() == doctest::Approx(1.0).epsilon(1e-8));
  }
  const auto f = privet::sparse_pca<float>::fit(d, 3, x, 13);
  for (std::size_t j = 0; j < 3; ++j) {
    CHECK(f.explained_variance()(j) == doctest::Approx(a.explained_variance()(j)).epsilon(1e-4));
  }
}

TEST_CASE("documented errors name the parameter and its range") {
  const rows x{{0, 1}, {1, 2}, {2, 3}, {0, 3}};
  CHECK_THROWS_WITH_AS(privet::sparse_pca<>::fit(10, 4, x, 1),
                       "privet: components = 4 is invalid; allowed: [1, min(n - 1, features "
                       "present in the training set)] = [1, 3]",
                       privet::invalid_parameter);
  CHECK(rejected_parameter([&] { (void)privet::sparse_pca<>::fit(10, 0, x, 1); }) == "components");
  CHECK(rejected_parameter([&] { (void)privet::sparse_pca<>::fit(0, 1, x, 1); }) == "input_dim");
  CHECK_THROWS_WITH_AS(privet::sparse_pca<>::fit(10, 1, rows{{1}}, 1),
                       "privet: training.size() = 1 is invalid; allowed: >= 2 vectors (the "
                       "sample covariance divides by n - 1)",
                       privet::invalid_parameter);
  CHECK(rejected_parameter([&] {
          (void)privet::sparse_pca<>::fit(10, 1, rows{{1}, {3, 2}}, 1);
        }) == "training");
  CHECK(rejected_parameter([&] {
          (void)privet::sparse_pca<>::fit(3, 1, rows{{1}, {3}}, 1);
        }) == "training");
  const auto p = privet::sparse_pca<>::fit(10, 2, x, 1);
  CHECK(rejected_parameter([&] { (void)p(std::vector<std::uint32_t>{10}); }) == "x");
  CHECK(rejected_parameter([&] { (void)p.component(2); }) == "j");
  // No variance at all: ratios are 0, not NaN.
  const auto flat = privet::sparse_pca<>::fit(5, 1, rows{{1, 2}, {1, 2}, {1, 2}}, 1);
  CHECK(flat.total_variance() == 0.0);
  CHECK(flat.explained_variance_ratio()(0) == 0.0);
}
