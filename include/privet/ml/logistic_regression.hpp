// privet/ml/logistic_regression.hpp — binary logistic regression on sparse
// binary or dense features: the model of the private spam filter (Pathak,
// Sharifi & Raj, "Privacy-Preserving Spam Filtering", section 3) trained by
// gradient ascent on the log-likelihood, in batch mode (repeat to
// convergence) and online mode (one update per block of K examples), with an
// optional L2 penalty; and a `differentiable_model` for DP-SGD.
//
// Model: P(y | x, w) = 1 / (1 + e^{-y (w^T x + b)}) with y in {-1, +1} and
// b an optional intercept (off by default: the spam filter's protocol has
// none). Label convention: a label is positive if it is 1 and negative if it
// is -1 or 0, so both {-1, +1} and {0, 1} data work unchanged; any other
// label throws invalid_parameter.
//
// Update (Pathak, Sharifi & Raj 2011's, for the penalised log-likelihood L(w) - lambda |w|^2):
//   w <- w + eta ( sum_i y_i x_i / (1 + e^{y_i w^T x_i}) - 2 lambda w ),
// a sum over the examples of the batch or block (not a mean), so eta plays
// the paper's role. The intercept is not penalised. The paper writes the
// penalty's term as "adding 2 lambda w" to the encrypted update; the sign
// here is the one that maximises the penalised likelihood (it shrinks w).
//
// As a differentiable_model, the loss is the negative log-likelihood of each
// example, -log sigma(y s), computed by the stable log-sigmoid; its gradient
// is -y sigma(-y s) (x, 1).
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/ct_word.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/validate.hpp>
#include <privet/ml/clipping.hpp>
#include <privet/ml/detail/linalg.hpp>
#include <privet/ml/model.hpp>
#include <privet/ml/softmax.hpp>

#include <xtensor/xbuilder.hpp>
#include <xtensor/xtensor.hpp>

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace privet::ml {

/// +1 for a positive label (1), -1 for a negative one (-1 or 0); throws
/// invalid_parameter for any other value.
inline int signed_label(int label) {
  if (label == 1) return 1;
  if (label == -1 || label == 0) return -1;
  throw_invalid("label", label, "1 (positive), or -1 or 0 (negative)");
}

/// The inputs logistic regression accepts: sparse binary rows or dense rows
/// of the model's real type.
template <class B, class Real>
concept logistic_input = std::same_as<B, sparse_binary_batch> || std::same_as<B, dense_batch<Real>>;

/// Stopping rule of batch training. learning_rate has no usable default
/// (NaN: leaving it out throws).
struct batch_fit_options {
  double learning_rate = std::numeric_limits<double>::quiet_NaN();  ///< eta > 0
  double l2 = 0;                                                    ///< lambda >= 0
  std::size_t max_iterations = 1000;                                ///< The most updates, >= 1.
  /// Stop once an update moves no parameter by more than
  /// tolerance * max(1, largest |parameter|).
  double tolerance = 1e-10;
};

/// What fit_batch did.
struct batch_fit_report {
  std::size_t iterations;  ///< Updates run.
  bool converged;          ///< Whether the stopping rule held (else max_iterations ran out).
  double log_likelihood;   ///< sum_i log P(y_i | x_i, w) at the end, without the penalty
};

/// Online training: passes over the examples in order, one update per block
/// of `block_size` consecutive examples (the last block of a pass may be
/// shorter). learning_rate and block_size have no usable defaults (NaN and
/// 0: leaving one out throws).
struct online_fit_options {
  double learning_rate = std::numeric_limits<double>::quiet_NaN();  ///< eta > 0
  std::size_t block_size = 0;                                       ///< K >= 1
  double l2 = 0;                                                    ///< lambda >= 0
  std::size_t epochs = 1;                                           ///< passes >= 1
};

/// Binary logistic regression, P(y | x, w) = 1 / (1 + e^{-y (w^T x + b)}):
/// the model of the private spam filter (Pathak, Sharifi & Raj 2011,
/// "Privacy Preserving Spam Filtering", Section 3), trained by gradient
/// ascent in batch (fit_batch) or online (fit_online) mode with an optional
/// L2 penalty, and a differentiable_model for DP-SGD (per-example loss
/// -log P(y_i | x_i), clipped_gradient_sum() without the B x P matrix).
/// Labels are 1 (positive) and -1 or 0 (negative). A pass over a batch
/// costs O(nnz) on sparse rows and O(B D) on dense ones.
///
/// @tparam Real the parameter type.
/// @tparam Batch sparse_binary_batch or dense_batch<Real>: the batch_type
///   the optimisers use (both are accepted by every member).
template <real_number Real = double, class Batch = sparse_binary_batch>
requires logistic_input<Batch, Real>
class logistic_regression {
 public:
  using real_type = Real;    ///< The parameter type.
  using batch_type = Batch;  ///< The batch type DP-SGD trains on.

  /// All-zero weights over `dimension` >= 1 features, plus an intercept when
  /// asked. Throws invalid_parameter naming `dimension` when it is 0.
  explicit logistic_regression(std::size_t dimension, bool intercept = false)
      : dimension_(validate_at_least<std::size_t>(dimension, 1, "dimension")),
        intercept_(intercept),
        params_(dimension + (intercept ? 1 : 0), Real(0)) {}

  /// D, the number of features.
  [[nodiscard]] std::size_t dimension() const noexcept { return dimension_; }
  /// Whether the model has an intercept b.
  [[nodiscard]] bool has_intercept() const noexcept { return intercept_; }
  /// D, plus 1 with an intercept.
  [[nodiscard]] std::size_t parameter_count() const noexcept { return params_.size(); }
  /// The weights, then the intercept if there is one (writable: the
  /// optimisers update them in place).
  ///@{
  [[nodiscard]] std::span<const Real> parameters() const noexcept { return params_; }
  [[nodiscard]] std::span<Real> parameters() noexcept { return params_; }
  ///@}
  /// The D weights w.
  [[nodiscard]] std::span<const Real> weights() const noexcept {
    return std::span<const Real>(params_).first(dimension_);
  }
  /// The intercept b (0 without one).
  [[nodiscard]] Real intercept() const noexcept { return intercept_ ? params_.back() : Real(0); }

  /// w^T x_i + b for every example.
  template <logistic_input<Real> B>
  [[nodiscard]] xt::xtensor<Real, 1> scores(const B& batch) const {
    check(batch);
    return raw_scores(batch, 0, batch.size());
  }

  /// P(y_i = +1 | x_i) for every example.
  template <logistic_input<Real> B>
  [[nodiscard]] xt::xtensor<Real, 1> probabilities(const B& batch) const {
    auto s = scores(batch);
    for (auto& v : s) v = sigmoid(v);
    return s;
  }

  /// -log P(y_i | x_i) for every example.
  template <logistic_input<Real> B>
  [[nodiscard]] xt::xtensor<Real, 1> losses(const B& batch) const {
    check(batch);
    auto s = raw_scores(batch, 0, batch.size());
    for (std::size_t i = 0; i < s.size(); ++i) s(i) = -log_sigmoid(signed_label(batch.y[i]) * s(i));
    return s;
  }

  /// sum_i log P(y_i | x_i), without the penalty.
  template <logistic_input<Real> B>
  [[nodiscard]] double log_likelihood(const B& batch) const {
    const auto l = losses(batch);
    double total = 0;
    for (Real v : l) total -= static_cast<double>(v);
    return total;
  }

  /// Row i: the gradient of losses(batch)(i), -y_i sigma(-y_i s_i) (x_i, 1).
  template <logistic_input<Real> B>
  [[nodiscard]] xt::xtensor<Real, 2> per_example_gradients(const B& batch) const {
    check(batch);
    const std::size_t n = batch.size(), p = params_.size();
    const auto s = raw_scores(batch, 0, n);
    xt::xtensor<Real, 2> g = xt::zeros<Real>({n, p});
    for (std::size_t i = 0; i < n; ++i) {
      const Real c = coefficient(batch.y[i], s(i));
      Real* row = g.data() + i * p;
      if constexpr (std::same_as<B, sparse_binary_batch>) {
        for (auto j : batch.features[i]) row[j] = -c;
      } else {
        const Real* x = batch.x.data() + i * dimension_;
        for (std::size_t j = 0; j < dimension_; ++j) row[j] = -c * x[j];
      }
      if (intercept_) row[dimension_] = -c;
    }
    return g;
  }

  /// The gradient of the log-likelihood, sum_i y_i sigma(-y_i s_i) (x_i, 1):
  /// the quantity the spam filter's protocol computes under encryption.
  template <logistic_input<Real> B>
  [[nodiscard]] xt::xtensor<Real, 1> log_likelihood_gradient(const B& batch) const {
    check(batch);
    xt::xtensor<Real, 1> g = xt::zeros<Real>({params_.size()});
    add_gradient(batch, 0, batch.size(), g.data());
    return g;
  }

  /// The gradient of the mean loss, -log_likelihood_gradient / n, without
  /// forming the per-example matrix (non-private SGD's step).
  template <logistic_input<Real> B>
  [[nodiscard]] xt::xtensor<Real, 1> mean_gradient(const B& batch) const {
    if (batch.size() == 0) throw_empty("batch");
    auto g = log_likelihood_gradient(batch);
    g *= Real(-1) / static_cast<Real>(batch.size());
    return g;
  }

  /// sum_i clip(g_i, C) of the per-example loss gradients without forming
  /// them: |g_i| = |y_i sigma(-y_i s_i)| |(x_i, 1)| (ml/clipping.hpp), summed
  /// exactly. This is DP-SGD's path, so data never makes it throw
  /// (docs/data_rule.md): an example whose label is not 1, 0 or -1, or
  /// (sparse rows) whose feature list holds an index >= dimension or the same
  /// index twice, contributes a zero gradient; so does an example whose
  /// gradient norm is not finite (non-finite features: ml/clipping.hpp).
  /// These rules look at one example only (record-wise), so the sum's
  /// sensitivity stays clipped_gradient_sum_sensitivity. Zeroed examples
  /// count in `clipped`. Throws invalid_parameter for clip_norm <= 0 or NaN,
  /// or a batch whose shape does not fit the model (dimension, one label per
  /// example).
  ///
  /// With a non-empty `counted` (one entry per example), only the examples
  /// with counted[i] != 0 enter the sum and `clipped`, and every example
  /// does the same work whether it counts or not: its gradient is formed
  /// and added times 0 or 1 (a padded batch, ml/clipping.hpp). Throws
  /// invalid_parameter naming counted.size() unless it is 0 or the batch
  /// size.
  ///
  /// Timing: on dense rows every example does the same work, whether its
  /// label is valid, its gradient clipped or left out (masks, no branch).
  /// On sparse rows an example's work and the weights it reads follow its
  /// features, and an ill-formed one is skipped (docs/security_model.md).
  template <logistic_input<Real> B>
  [[nodiscard]] clipped_sum clipped_gradient_sum(const B& batch, double clip_norm,
                                                 std::span<const std::uint8_t> counted = {}) const {
    if (!(clip_norm > 0)) throw_invalid("clip_norm", clip_norm, "> 0 (or +inf)");
    check_shape(batch);
    privet::ml::detail::check_counted(counted, batch.size());
    return clipped_sum_at(batch, {}, true, clip_norm, counted);
  }

  /// clipped_gradient_sum over the examples at `rows` of sparse rows, read
  /// where they are (DP-SGD's steps: no copy of the selected feature lists,
  /// whose time would follow their lengths): the same sum as on
  /// batch.select(rows). Throws as clipped_gradient_sum, naming `rows` for
  /// an index >= batch.size() and counted.size() unless it is 0 or
  /// rows.size().
  [[nodiscard]] clipped_sum clipped_gradient_sum(const sparse_binary_batch& batch,
                                                 std::span<const std::size_t> rows,
                                                 double clip_norm,
                                                 std::span<const std::uint8_t> counted = {}) const {
    if (!(clip_norm > 0)) throw_invalid("clip_norm", clip_norm, "> 0 (or +inf)");
    check_shape(batch);
    privet::ml::detail::check_counted(counted, rows.size());
    for (const std::size_t i : rows) privet::ml::detail::check_index(i, batch.size(), "rows");
    return clipped_sum_at(batch, rows, false, clip_norm, counted);
  }

  /// One gradient-ascent update on the whole batch.
  template <logistic_input<Real> B>
  void ascent_step(const B& batch, double learning_rate, double l2 = 0) {
    validate_positive(learning_rate, "learning_rate");
    validate_non_negative(l2, "l2");
    check(batch);
    (void)step_range(batch, 0, batch.size(), static_cast<Real>(learning_rate),
                     static_cast<Real>(l2));
  }

  /// Batch training: gradient ascent on the whole batch until the stopping
  /// rule holds or max_iterations updates have run.
  template <logistic_input<Real> B>
  batch_fit_report fit_batch(const B& batch, const batch_fit_options& o) {
    validate_positive(o.learning_rate, "learning_rate");
    validate_non_negative(o.l2, "l2");
    validate_positive(o.tolerance, "tolerance");
    validate_at_least<std::size_t>(o.max_iterations, 1, "max_iterations");
    check(batch);
    if (batch.size() == 0) throw_empty("batch");
    // Restored if a step diverges, so that a refused fit leaves the model
    // as it was (one copy per call, not per step).
    const std::vector<Real> before = params_;
    batch_fit_report r{0, false, 0};
    while (r.iterations < o.max_iterations && !r.converged) {
      const Real moved = step_range(batch, 0, batch.size(), static_cast<Real>(o.learning_rate),
                                    static_cast<Real>(o.l2));
      ++r.iterations;
      Real largest = 1;
      for (Real v : params_) largest = std::max(largest, std::abs(v));
      r.converged = moved <= static_cast<Real>(o.tolerance) * largest;
      if (!std::isfinite(static_cast<double>(moved))) {
        params_ = before;
        throw_invalid("learning_rate", o.learning_rate,
                      "a step small enough that training does not diverge (the weights became "
                      "non-finite)");
      }
    }
    r.log_likelihood = log_likelihood(batch);
    return r;
  }

  /// Online training: one update per block of K consecutive examples.
  template <logistic_input<Real> B>
  void fit_online(const B& batch, const online_fit_options& o) {
    validate_positive(o.learning_rate, "learning_rate");
    validate_non_negative(o.l2, "l2");
    validate_at_least<std::size_t>(o.block_size, 1, "block_size");
    validate_at_least<std::size_t>(o.epochs, 1, "epochs");
    check(batch);
    if (batch.size() == 0) throw_empty("batch");
    const std::vector<Real> before = params_;  // restored if a block diverges
    for (std::size_t e = 0; e < o.epochs; ++e) {
      for (std::size_t begin = 0; begin < batch.size(); begin += o.block_size) {
        const std::size_t end = std::min(batch.size(), begin + o.block_size);
        const Real moved = step_range(batch, begin, end, static_cast<Real>(o.learning_rate),
                                      static_cast<Real>(o.l2));
        if (!std::isfinite(static_cast<double>(moved))) {
          params_ = before;
          throw_invalid("learning_rate", o.learning_rate,
                        "a step small enough that training does not diverge (the weights "
                        "became non-finite)");
        }
      }
    }
  }

 private:
  // The batch's shape against the model: the dimension and one label per
  // example (what the batch is, not what its examples hold).
  template <class B>
  void check_shape(const B& batch) const {
    if constexpr (std::same_as<B, sparse_binary_batch>) {
      if (batch.dimension != dimension_) {
        throw_invalid("batch.dimension", batch.dimension,
                      "the model's dimension " + privet::detail::format_value(dimension_));
      }
      privet::ml::detail::check_label_count(batch.y.size(), batch.features.size(), "y.size()");
    } else {
      batch.validate();
      if (batch.x.shape(1) != dimension_) {
        throw_invalid("x.shape(1)", batch.x.shape(1),
                      "the model's dimension " + privet::detail::format_value(dimension_));
      }
    }
  }

  // clipped_gradient_sum's work over the examples rows[k] (every example in
  // order when `all`), checked by the callers. Dense rows take the same
  // work for every example: the label's validity and sign, the norm, the
  // clip factor and whether the example is left out are combined by masks,
  // and a left-out example adds exactly 0 (add_scaled's mask, as 0 times a
  // non-finite feature would be NaN). Sparse rows read each example's own
  // features and skip an ill-formed one.
  template <class B>
  clipped_sum clipped_sum_at(const B& batch, std::span<const std::size_t> rows, bool all,
                             double clip_norm, std::span<const std::uint8_t> counted) const {
    namespace ct = privet::detail;
    const std::size_t n = all ? batch.size() : rows.size(), p = params_.size();
    clipped_sum out{{}, 0};
    privet::ml::detail::exact_gradient_sum acc(p, clip_norm);
    [[maybe_unused]] xt::xtensor<Real, 1> dense_scores;
    [[maybe_unused]] std::vector<std::uint8_t> seen;
    if constexpr (std::same_as<B, sparse_binary_batch>) {
      seen.assign(dimension_, 0);
    } else {
      dense_scores = raw_scores(batch, 0, batch.size());
    }
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = all ? k : rows[k];
      // 1 unless the row is padding; no branch on it.
      const std::uint64_t counts = counted.empty() || counted[k] != 0;
      if constexpr (std::same_as<B, sparse_binary_batch>) {
        const int y = batch.y[i];
        const bool ok = (y == 1 || y == 0 || y == -1) && well_formed(batch.features[i], seen);
        double c = 0, x_sq = intercept_ ? 1.0 : 0.0;
        if (ok) {
          Real score = intercept();
          for (auto j : batch.features[i]) score += params_[j];
          c = static_cast<double>(coefficient(y, score));
          x_sq += static_cast<double>(batch.features[i].size());
        }
        const double scale = ok ? clip_factor(std::abs(c) * std::sqrt(x_sq), clip_norm, p) : 0.0;
        out.clipped += counts & static_cast<std::size_t>(scale != 1.0);
        if (scale == 0.0) continue;  // the zero gradient (a finite norm implies finite entries)
        // The loss gradient is -c (x_i, 1); padding adds it times 0.
        const double w = -c * scale * static_cast<double>(counts);
        acc.add_to_each(std::span<const std::uint32_t>(batch.features[i]), w);
        if (intercept_) acc.add(dimension_, w);
      } else {
        const auto y = static_cast<std::uint64_t>(static_cast<std::int64_t>(batch.y[i]));
        const std::uint64_t positive = ct::ct_is_zero(y - 1);
        const std::uint64_t usable = positive | ct::ct_is_zero(y) | ct::ct_is_zero(y + 1);
        // y sigma(-y s) for the label's sign y (coefficient(), without a branch).
        const Real sign = ct::ct_pick(positive, Real(1), Real(-1));
        const Real* x = batch.x.data() + i * dimension_;
        double x_sq = intercept_ ? 1.0 : 0.0;
        for (std::size_t j = 0; j < dimension_; ++j) x_sq += static_cast<double>(x[j]) * x[j];
        const double c = static_cast<double>(sign * sigmoid(-sign * dense_scores(i)));
        const double scale =
            ct::ct_pick(usable, clip_factor(std::abs(c) * std::sqrt(x_sq), clip_norm, p), 0.0);
        out.clipped += counts & static_cast<std::size_t>(scale != 1.0);
        const auto keep = static_cast<std::uint64_t>(scale != 0.0);
        // The loss gradient is -c (x_i, 1); padding adds it times 0.
        const double w = -c * scale * static_cast<double>(counts);
        acc.add_scaled(0, w, x, dimension_, keep);
        if (intercept_) acc.add(dimension_, ct::ct_keep(w, keep));
      }
      acc.end_row();
    }
    out.sum = acc.result();
    return out;
  }

  // Every index below the dimension and none twice; `seen` (dimension_
  // zeros) is left all zero again.
  bool well_formed(const std::vector<std::uint32_t>& row, std::vector<std::uint8_t>& seen) const {
    bool ok = true;
    std::size_t marked = 0;
    for (; marked < row.size(); ++marked) {
      const auto j = row[marked];
      if (j >= dimension_ || seen[j] != 0) {
        ok = false;
        break;
      }
      seen[j] = 1;
    }
    for (std::size_t k = 0; k < marked; ++k) seen[row[k]] = 0;
    return ok;
  }

  template <class B>
  void check(const B& batch) const {
    if constexpr (std::same_as<B, sparse_binary_batch>) {
      if (batch.dimension != dimension_) {
        throw_invalid("batch.dimension", batch.dimension,
                      "the model's dimension " + privet::detail::format_value(dimension_));
      }
      batch.validate();
    } else {
      batch.validate();
      if (batch.x.shape(1) != dimension_) {
        throw_invalid("x.shape(1)", batch.x.shape(1),
                      "the model's dimension " + privet::detail::format_value(dimension_));
      }
    }
    for (int y : batch.y) (void)signed_label(y);
  }

  // sigma(-y s) y: the weight of example i in the log-likelihood gradient.
  static Real coefficient(int label, Real score) {
    const int y = signed_label(label);
    return static_cast<Real>(y) * sigmoid(static_cast<Real>(-y) * score);
  }

  template <class B>
  xt::xtensor<Real, 1> raw_scores(const B& batch, std::size_t begin, std::size_t end) const {
    xt::xtensor<Real, 1> s = xt::xtensor<Real, 1>::from_shape({end - begin});
    const Real b = intercept();
    if constexpr (std::same_as<B, sparse_binary_batch>) {
      for (std::size_t i = begin; i < end; ++i) {
        Real acc = b;
        for (auto j : batch.features[i]) acc += params_[j];
        s(i - begin) = acc;
      }
    } else {
      detail::gemm<Real>(false, false, Real(1),
                         {batch.x.data() + begin * dimension_, end - begin, dimension_, dimension_},
                         {params_.data(), dimension_, 1, 1}, Real(0),
                         {s.data(), end - begin, 1, 1});
      if (intercept_) s += b;
    }
    return s;
  }

  // out += sum over [begin, end) of y_i sigma(-y_i s_i) (x_i, 1).
  template <class B>
  void add_gradient(const B& batch, std::size_t begin, std::size_t end, Real* out) const {
    const auto s = raw_scores(batch, begin, end);
    for (std::size_t i = begin; i < end; ++i) {
      const Real c = coefficient(batch.y[i], s(i - begin));
      if constexpr (std::same_as<B, sparse_binary_batch>) {
        for (auto j : batch.features[i]) out[j] += c;
      } else {
        const Real* x = batch.x.data() + i * dimension_;
        for (std::size_t j = 0; j < dimension_; ++j) out[j] += c * x[j];
      }
      if (intercept_) out[dimension_] += c;
    }
  }

  // One update on [begin, end); returns the largest parameter move.
  template <class B>
  Real step_range(const B& batch, std::size_t begin, std::size_t end, Real eta, Real l2) {
    std::vector<Real> g(params_.size(), Real(0));
    add_gradient(batch, begin, end, g.data());
    Real moved = 0;
    for (std::size_t j = 0; j < params_.size(); ++j) {
      const Real penalty = j < dimension_ ? Real(2) * l2 * params_[j] : Real(0);
      const Real delta = eta * (g[j] - penalty);
      params_[j] += delta;
      moved = std::max(moved, std::abs(delta));
      if (!std::isfinite(static_cast<double>(params_[j])))
        return std::numeric_limits<Real>::infinity();
    }
    return moved;
  }

  std::size_t dimension_;
  bool intercept_;
  std::vector<Real> params_;
};

}  // namespace privet::ml
