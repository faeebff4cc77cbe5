// privet/sketches/pca.hpp — principal component analysis of sparse binary
// feature vectors: the data-dependent baseline of the private spam filter's
// dimensionality reduction (Pathak, Sharifi & Raj 2011, "Privacy Preserving
// Spam Filtering", arXiv:1102.4021, Section 6.4: PCA to 300 dimensions), next
// to df_pruning and multinomial_df_sampling in feature_reduction.hpp.
//
// The top k components are found by randomized subspace iteration (Halko,
// Martinsson & Tropp 2011, "Finding structure with randomness", Algorithm
// 4.4 for the range, Algorithm 5.1 for the decomposition): a Gaussian test
// matrix of k + p columns, q rounds of A A^T with re-orthonormalisation by QR
// in between, then an SVD of the small projected matrix. The error in the
// j-th component shrinks like (sigma_{k+p+1} / sigma_j)^(2q+1) (their
// Section 10.4), so a few rounds give the components of a spectrum with a
// gap to machine precision.
//
// A = X - 1 mu^T, the centred n x d training matrix, is never formed: X is
// kept sparse (each row the ascending list of its features) and the mean is
// subtracted inside each product, A W = X W - 1 (mu^T W) and
// A^T Q = X^T Q - mu (1^T Q), so the cost of a round is O(nnz (k + p)) for the
// sparse products plus O((n + d') (k + p)^2) for the QRs. Only the d'
// features present in the training set are represented: the others have
// zero variance and zero loadings. Memory is about 4 d' (k + p) + 2 n (k + p)
// numbers of type Real at its peak; float halves it for large d'.
//
// Dense products, QR and SVD go through xtensor-blas, so this header needs
// the privet::blas target (which defines PRIVET_HAS_BLAS). Without it
// sparse_pca is declared but any use fails to compile with a static_assert
// saying so.
//
// The variances are those of the sample covariance A^T A / (n - 1). Each
// component's sign is fixed so that its largest loading in absolute value
// (the first such feature on a tie) is positive, so a fit is reproducible
// and comparable with an eigendecomposition. Errors: invalid_parameter naming
// `input_dim`, `training`, `components`, or `x`.
#pragma once

#include <privet/core/detail/format.hpp>
#include <privet/core/error.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/validate.hpp>
#include <privet/sketches/feature_reduction.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#ifdef PRIVET_HAS_BLAS
#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xtensor.hpp>
#include <xtensor/xview.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <utility>
#endif

namespace privet {

/// The number types sparse_pca computes in: the BLAS types.
template <class Real>
concept pca_real = std::same_as<Real, float> || std::same_as<Real, double>;

/// Tuning of the randomized subspace iteration. The defaults are those of
/// scikit-learn's randomized_svd for a rank small against the matrix.
struct pca_options {
  /// p: the subspace has k + p columns (capped at the matrix's size).
  std::size_t oversampling = 10;
  /// q: rounds of multiplication by A A^T.
  std::size_t iterations = 7;
};

#ifdef PRIVET_HAS_BLAS

/// Principal component analysis of sparse binary vectors (the
/// data-dependent baseline of Pathak, Sharifi & Raj 2011, Section 6.4): the
/// top k components of the centred training matrix by randomized subspace
/// iteration (Halko, Martinsson & Tropp 2011, Algorithms 4.4 and 5.1),
/// without forming the dense matrix. A fit costs O(q nnz (k + p) + q (n +
/// d') (k + p)^2) for q iterations, oversampling p, n training vectors, d'
/// features present and nnz nonzeros; projecting a vector with m features
/// costs O(m (log d' + k)). Needs PRIVET_HAS_BLAS (the privet::blas target).
/// Not private: a fit reads the training set directly.
///
/// @tparam Real float or double, the BLAS type computed in.
template <pca_real Real = double>
class sparse_pca {
 public:
  using matrix_type = xt::xtensor<Real, 2>;  ///< A dense row-major matrix of Real.
  using vector_type = xt::xtensor<Real, 1>;  ///< A dense vector of Real.

  /// The top `components` principal components of `training` (each vector
  /// the ascending list of its features in [0, input_dim)), the test matrix
  /// drawn from `seed`. Throws invalid_parameter naming `input_dim` (1 <= D
  /// <= 2^32), `training` (fewer than 2 vectors, or a vector not strictly
  /// ascending or with an index >= D) or `components` (1 <= k <= min(n - 1,
  /// features present in the training set), the largest rank A can have).
  static sparse_pca fit(std::uint64_t input_dim, std::size_t components,
                        std::span<const std::vector<std::uint32_t>> training, std::uint64_t seed,
                        pca_options options = {}) {
    detail::check_input_dim(input_dim);
    const std::size_t n = training.size();
    if (n < 2) {
      throw invalid_parameter("training", "privet: training.size() = " + detail::format_value(n) +
                                              " is invalid; allowed: >= 2 vectors (the sample "
                                              "covariance divides by n - 1)");
    }
    const auto df = detail::document_frequencies(training, input_dim);
    const std::size_t max_rank = std::min(n - 1, df.size());
    if (components < 1 || components > max_rank) {
      throw_invalid("components", components,
                    "[1, min(n - 1, features present in the training set)] = [1, " +
                        detail::format_value(max_rank) + "]");
    }

    sparse_pca p;
    p.input_dim_ = input_dim;
    p.features_.reserve(df.size());
    p.mean_ = vector_type::from_shape({df.size()});
    for (std::size_t j = 0; j < df.size(); ++j) {
      p.features_.push_back(df[j].first);
      const double mu = static_cast<double>(df[j].second) / static_cast<double>(n);
      p.mean_(j) = static_cast<Real>(mu);
      // A binary feature's sample variance: n mu (1 - mu) / (n - 1).
      p.total_variance_ += mu * (1 - mu) * static_cast<double>(n) / static_cast<double>(n - 1);
    }
    const sparse_rows x = p.compress(training);

    const std::size_t l = std::min(components + options.oversampling, std::min(n, df.size()));
    seeded_generator gen(seed);
    matrix_type omega = matrix_type::from_shape({df.size(), l});
    for (auto& w : omega) w = static_cast<Real>(detail::standard_normal(gen));

    matrix_type q = orthonormal_basis(p.times(x, omega));
    omega = matrix_type();  // the largest buffer, no longer needed
    for (std::size_t round = 0; round < options.iterations; ++round) {
      q = orthonormal_basis(p.times(x, orthonormal_basis(p.transpose_times(x, q))));
    }
    // Z = A^T Q = Qz Rz; A ~ Q Q^T A = Q Z^T = Q Rz^T Qz^T, and the SVD
    // Rz^T = U S W^T gives A ~ (Q U) S (Qz W)^T: V = Qz W, variances S^2 / (n - 1).
    const matrix_type z = p.transpose_times(x, q);
    const auto [qz, rz] = xt::linalg::qr(z);
    const auto [u, s, wt] = xt::linalg::svd(xt::transpose(rz), false);
    (void)u;
    const matrix_type w = xt::view(xt::transpose(wt), xt::all(), xt::range(0, components));
    p.loadings_ = xt::linalg::dot(qz, w);

    p.explained_variance_ = vector_type::from_shape({components});
    for (std::size_t j = 0; j < components; ++j) {
      p.explained_variance_(j) = static_cast<Real>(
          static_cast<double>(s(j)) * static_cast<double>(s(j)) / static_cast<double>(n - 1));
    }
    p.fix_signs();
    p.offset_ = xt::linalg::dot(p.mean_, p.loadings_);
    return p;
  }

  /// The k coordinates of x (ascending features in [0, D)) along the
  /// components: V^T (x - mu). Features absent from the training set
  /// contribute nothing. Throws invalid_parameter naming `x` if x is not
  /// strictly ascending or has an index >= D.
  [[nodiscard]] vector_type operator()(const std::vector<std::uint32_t>& x) const {
    detail::validate_sparse(x, input_dim_, "x");
    vector_type out = -offset_;
    add_rows(x, out.data());
    return out;
  }

  /// The coordinates of every vector of xs, one row each. Throws
  /// invalid_parameter naming `x` as operator() does.
  [[nodiscard]] matrix_type transform(std::span<const std::vector<std::uint32_t>> xs) const {
    const std::size_t k = components();
    matrix_type out = matrix_type::from_shape({xs.size(), k});
    for (std::size_t i = 0; i < xs.size(); ++i) {
      detail::validate_sparse(xs[i], input_dim_, "x", static_cast<std::ptrdiff_t>(i));
      Real* row = out.data() + i * k;
      for (std::size_t c = 0; c < k; ++c) row[c] = -offset_(c);
      add_rows(xs[i], row);
    }
    return out;
  }

  /// k, the number of components.
  [[nodiscard]] std::size_t components() const noexcept { return explained_variance_.size(); }
  /// D: input indices are in [0, D).
  [[nodiscard]] std::uint64_t input_dim() const noexcept { return input_dim_; }

  /// The variance of the training set along each component (the k largest
  /// eigenvalues of the sample covariance), largest first.
  [[nodiscard]] const vector_type& explained_variance() const noexcept {
    return explained_variance_;
  }

  /// The trace of the sample covariance: the sum of all d variances,
  /// computed exactly from the document frequencies.
  [[nodiscard]] double total_variance() const noexcept { return total_variance_; }

  /// explained_variance() / total_variance() (all 0 when the training
  /// vectors are all equal and there is no variance to explain).
  [[nodiscard]] vector_type explained_variance_ratio() const {
    if (total_variance_ == 0) return xt::zeros<Real>({components()});
    return explained_variance_ / static_cast<Real>(total_variance_);
  }

  /// The features present in the training set, ascending: row r of
  /// loadings() and entry r of mean() belong to feature features()[r].
  [[nodiscard]] const std::vector<std::uint32_t>& features() const noexcept { return features_; }
  /// The components' loadings on features(), one column per component,
  /// orthonormal columns.
  [[nodiscard]] const matrix_type& loadings() const noexcept { return loadings_; }
  /// The training mean of each feature of features() (its document frequency / n).
  [[nodiscard]] const vector_type& mean() const noexcept { return mean_; }

  /// Component j as a dense vector of length D (zero off features()).
  /// Throws invalid_parameter naming `j` unless j < k.
  [[nodiscard]] vector_type component(std::size_t j) const {
    if (j >= components()) {
      throw_invalid("j", j, "[0, components) = [0, " + detail::format_value(components()) + ")");
    }
    vector_type out = xt::zeros<Real>({static_cast<std::size_t>(input_dim_)});
    for (std::size_t r = 0; r < features_.size(); ++r) out(features_[r]) = loadings_(r, j);
    return out;
  }

 private:
  // The training set in compressed-row form over the present features'
  // ranks: row i is cols[starts[i], starts[i + 1]).
  struct sparse_rows {
    std::vector<std::size_t> starts;
    std::vector<std::uint32_t> cols;
  };

  sparse_pca() = default;

  sparse_rows compress(std::span<const std::vector<std::uint32_t>> training) const {
    sparse_rows x;
    x.starts.reserve(training.size() + 1);
    x.starts.push_back(0);
    for (const auto& row : training) {
      // Both ascending: one merge-like walk finds every rank.
      auto from = features_.begin();
      for (const auto f : row) {
        from = std::lower_bound(from, features_.end(), f);
        x.cols.push_back(static_cast<std::uint32_t>(from - features_.begin()));
      }
      x.starts.push_back(x.cols.size());
    }
    return x;
  }

  // A W = X W - 1 (mu^T W): n x l.
  matrix_type times(const sparse_rows& x, const matrix_type& w) const {
    const std::size_t n = x.starts.size() - 1, l = w.shape()[1];
    matrix_type y = xt::zeros<Real>({n, l});
    const vector_type shift = xt::linalg::dot(mean_, w);
    for (std::size_t i = 0; i < n; ++i) {
      Real* yi = y.data() + i * l;
      for (std::size_t e = x.starts[i]; e < x.starts[i + 1]; ++e) {
        const Real* wf = w.data() + static_cast<std::size_t>(x.cols[e]) * l;
        for (std::size_t c = 0; c < l; ++c) yi[c] += wf[c];
      }
      for (std::size_t c = 0; c < l; ++c) yi[c] -= shift(c);
    }
    return y;
  }

  // A^T Q = X^T Q - mu (1^T Q): d' x l.
  matrix_type transpose_times(const sparse_rows& x, const matrix_type& q) const {
    const std::size_t n = x.starts.size() - 1, l = q.shape()[1];
    matrix_type z = xt::zeros<Real>({features_.size(), l});
    vector_type column_sums = xt::zeros<Real>({l});
    for (std::size_t i = 0; i < n; ++i) {
      const Real* qi = q.data() + i * l;
      for (std::size_t c = 0; c < l; ++c) column_sums(c) += qi[c];
      for (std::size_t e = x.starts[i]; e < x.starts[i + 1]; ++e) {
        Real* zf = z.data() + static_cast<std::size_t>(x.cols[e]) * l;
        for (std::size_t c = 0; c < l; ++c) zf[c] += qi[c];
      }
    }
    for (std::size_t f = 0; f < features_.size(); ++f) {
      Real* zf = z.data() + f * l;
      const Real mu = mean_(f);
      for (std::size_t c = 0; c < l; ++c) zf[c] -= mu * column_sums(c);
    }
    return z;
  }

  // An orthonormal basis of m's columns (Householder QR through LAPACK).
  static matrix_type orthonormal_basis(const matrix_type& m) {
    return std::get<0>(xt::linalg::qr(m));
  }

  void fix_signs() {
    const std::size_t k = components();
    for (std::size_t j = 0; j < k; ++j) {
      std::size_t best = 0;
      for (std::size_t r = 1; r < loadings_.shape()[0]; ++r) {
        if (std::abs(loadings_(r, j)) > std::abs(loadings_(best, j))) best = r;
      }
      if (loadings_(best, j) < 0) xt::view(loadings_, xt::all(), j) *= Real(-1);
    }
  }

  // out += the loadings of x's features present in the training set.
  void add_rows(const std::vector<std::uint32_t>& x, Real* out) const {
    const std::size_t k = components();
    auto from = features_.begin();
    for (const auto f : x) {
      from = std::lower_bound(from, features_.end(), f);
      if (from == features_.end()) break;
      if (*from != f) continue;
      const Real* v = loadings_.data() + static_cast<std::size_t>(from - features_.begin()) * k;
      for (std::size_t c = 0; c < k; ++c) out[c] += v[c];
    }
  }

  std::uint64_t input_dim_ = 0;
  std::vector<std::uint32_t> features_;
  vector_type mean_;
  matrix_type loadings_;
  vector_type explained_variance_;
  vector_type offset_;  // mu^T V
  double total_variance_ = 0;
};

#else

namespace detail {
template <class>
inline constexpr bool pca_needs_blas = false;
}  // namespace detail

/// Declared without PRIVET_HAS_BLAS so that a use names what is missing.
template <pca_real Real = double>
class sparse_pca {
  static_assert(detail::pca_needs_blas<Real>,
                "privet: sparse_pca needs xtensor-blas and a BLAS/LAPACK: link the privet::blas "
                "target, which defines PRIVET_HAS_BLAS.");
};

#endif

}  // namespace privet
