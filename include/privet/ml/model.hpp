// privet/ml/model.hpp — the interface every trainable model of the ML layer
// offers to the optimisers (concept `differentiable_model`), the batch concept
// (`example_batch`) and the batch types shared by the models:
// `dense_batch` (rows of real features), `sparse_binary_batch` (lists of active
// feature indices), `sequence_batch` (one label per sequence) and
// `frame_sequence_batch` (one label per frame).
//
// DP-SGD (Abadi et al. 2016, "Deep Learning with Differential Privacy",
// Algorithm 1) needs each example's gradient separately before clipping, so the
// central requirement is `per_example_gradients`: a B x P matrix computed from
// one batched forward and backward pass, never a loop re-running the forward
// pass per example.
//
// Conventions every model follows:
// - the loss is minimised; `losses` are per-example losses (for classifiers
//   the negative log-likelihood of the label), without any regulariser;
// - `per_example_gradients(b)` row i is the gradient of `losses(b)[i]` with
//   respect to the flat parameter vector `parameters()`, in its order;
// - `parameters()` is one contiguous vector the optimiser updates in place.
// Data-independent terms such as an L2 penalty are not part of a per-example
// gradient: DP-SGD must not clip them, so optimisers add them separately.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/validate.hpp>

#include <xtensor/xbuilder.hpp>
#include <xtensor/xtensor.hpp>
#include <xtensor/xview.hpp>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace privet::ml {

/// A set of labelled examples that an optimiser can count and subsample:
/// `size()` examples, and `select(indices)` a new batch of those examples in
/// the order given (indices may repeat only if the batch type allows it; the
/// optimisers never repeat one).
template <class B>
concept example_batch = std::copy_constructible<B> &&
    requires(const B& b, std::span<const std::size_t> indices) {
  { b.size() } -> std::convertible_to<std::size_t>;
  { b.select(indices) } -> std::same_as<B>;
};

/// A model trained through per-example gradients on batches of type Batch.
template <class M, class Batch>
concept differentiable_model_for = example_batch<Batch> && requires {
  typename M::real_type;
  requires real_number<typename M::real_type>;
} && requires(M& m, const M& cm, const Batch& b) {
  { cm.parameter_count() } -> std::same_as<std::size_t>;
  { cm.parameters() } -> std::same_as<std::span<const typename M::real_type>>;
  { m.parameters() } -> std::same_as<std::span<typename M::real_type>>;
  { cm.per_example_gradients(b) } -> std::same_as<xt::xtensor<typename M::real_type, 2>>;
  { cm.losses(b) } -> std::same_as<xt::xtensor<typename M::real_type, 1>>;
};

/// A model with its own batch type `M::batch_type` (the one the optimisers use).
template <class M>
concept differentiable_model = requires {
  typename M::batch_type;
}
&&differentiable_model_for<M, typename M::batch_type>;

namespace detail {

inline void check_index(std::size_t index, std::size_t size, std::string_view name) {
  if (index >= size) {
    throw_invalid(name, index,
                  "an example index < batch size " + privet::detail::format_value(size));
  }
}

inline void check_label_count(std::size_t labels, std::size_t examples, std::string_view name) {
  if (labels != examples) {
    throw_invalid(name, labels,
                  "one label per example (" + privet::detail::format_value(examples) + ")");
  }
}

}  // namespace detail

/// Rows of dense real features with one integer label each: x is B x F.
template <real_number Real>
struct dense_batch {
  using real_type = Real;  ///< The feature type.
  xt::xtensor<Real, 2> x;  ///< The features, B x F (row i is example i).
  std::vector<int> y;      ///< The labels, one per row of x.

  /// B, the number of examples (labels).
  [[nodiscard]] std::size_t size() const noexcept { return y.size(); }
  /// F, the number of features per example.
  [[nodiscard]] std::size_t features() const noexcept { return x.shape(1); }

  /// Throws invalid_parameter when x and y disagree in length.
  void validate() const { detail::check_label_count(y.size(), x.shape(0), "y.size()"); }

  /// The examples at `indices`, in that order, copied into a new batch (O(k
  /// F) for k indices). Throws invalid_parameter naming `y.size()` when x
  /// and y disagree in length, or `indices` for an index >= size().
  [[nodiscard]] dense_batch select(std::span<const std::size_t> indices) const {
    validate();
    dense_batch out;
    out.x = xt::xtensor<Real, 2>::from_shape({indices.size(), x.shape(1)});
    out.y.reserve(indices.size());
    const std::size_t f = x.shape(1);
    for (std::size_t r = 0; r < indices.size(); ++r) {
      detail::check_index(indices[r], size(), "indices");
      const Real* src = x.data() + indices[r] * f;
      std::copy(src, src + f, out.x.data() + r * f);
      out.y.push_back(y[indices[r]]);
    }
    return out;
  }
};

/// Binary (present/absent) features given as each example's active feature
/// indices (the spam filter's hashed character 4-grams): `features[i]` lists
/// the indices in [0, dimension) present in example i, each at most once.
struct sparse_binary_batch {
  std::vector<std::vector<std::uint32_t>> features;  ///< Each example's active indices.
  std::vector<int> y;                                ///< The labels, one per example.
  std::size_t dimension = 0;                         ///< D: indices are in [0, D).

  /// The number of examples (labels).
  [[nodiscard]] std::size_t size() const noexcept { return y.size(); }

  /// Throws invalid_parameter when lengths disagree or an index is outside
  /// [0, dimension) or repeated within an example.
  void validate() const {
    detail::check_label_count(y.size(), features.size(), "y.size()");
    std::vector<std::uint8_t> seen(dimension, 0);
    for (const auto& row : features) {
      for (auto j : row) {
        if (j >= dimension) {
          throw_invalid("feature index", j,
                        "< dimension = " + privet::detail::format_value(dimension));
        }
        if (seen[j] != 0) throw_invalid("feature index", j, "each index at most once per example");
        seen[j] = 1;
      }
      for (auto j : row) seen[j] = 0;
    }
  }

  /// The examples at `indices`, in that order, copied (the feature lists
  /// are not validated). Throws invalid_parameter naming `y.size()` when
  /// features and y disagree in length, or `indices` for an index >= size().
  [[nodiscard]] sparse_binary_batch select(std::span<const std::size_t> indices) const {
    detail::check_label_count(y.size(), features.size(), "y.size()");
    sparse_binary_batch out;
    out.dimension = dimension;
    out.features.reserve(indices.size());
    out.y.reserve(indices.size());
    for (auto i : indices) {
      detail::check_index(i, size(), "indices");
      out.features.push_back(features[i]);
      out.y.push_back(y[i]);
    }
    return out;
  }
};

/// Variable-length sequences of feature frames with one label per sequence
/// (word classification): x[i] is T_i x F.
template <real_number Real>
struct sequence_batch {
  using real_type = Real;               ///< The feature type.
  std::vector<xt::xtensor<Real, 2>> x;  ///< The sequences, x[i] of T_i frames x F features.
  std::vector<int> y;                   ///< The labels, one per sequence.

  /// The number of sequences (labels).
  [[nodiscard]] std::size_t size() const noexcept { return y.size(); }

  /// Throws invalid_parameter naming `y.size()` unless there is one label
  /// per sequence.
  void validate() const { detail::check_label_count(y.size(), x.size(), "y.size()"); }

  /// The sequences at `indices`, in that order, copied. Throws
  /// invalid_parameter as validate() does, or naming `indices` for an index
  /// >= size().
  [[nodiscard]] sequence_batch select(std::span<const std::size_t> indices) const {
    validate();
    sequence_batch out;
    out.x.reserve(indices.size());
    out.y.reserve(indices.size());
    for (auto i : indices) {
      detail::check_index(i, size(), "indices");
      out.x.push_back(x[i]);
      out.y.push_back(y[i]);
    }
    return out;
  }
};

/// Variable-length sequences with one label per frame (frame classification,
/// as senone targets): x[i] is T_i x F and y[i] has T_i labels. One example
/// (one privacy unit's contribution to a gradient) is a whole sequence.
template <real_number Real>
struct frame_sequence_batch {
  using real_type = Real;               ///< The feature type.
  std::vector<xt::xtensor<Real, 2>> x;  ///< The sequences, x[i] of T_i frames x F features.
  std::vector<std::vector<int>> y;      ///< The labels, y[i] one per frame of x[i].

  /// The number of sequences.
  [[nodiscard]] std::size_t size() const noexcept { return y.size(); }

  /// Throws invalid_parameter naming `y.size()` unless there is one label
  /// list per sequence, or `y[i].size()` unless y[i] has one label per
  /// frame of x[i].
  void validate() const {
    detail::check_label_count(y.size(), x.size(), "y.size()");
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (y[i].size() != x[i].shape(0)) {
        throw_invalid(
            "y[i].size()", y[i].size(),
            "one label per frame of x[i] (" + privet::detail::format_value(x[i].shape(0)) + ")");
      }
    }
  }

  /// The sequences at `indices`, in that order, copied (frame labels are not
  /// checked). Throws invalid_parameter naming `y.size()` when x and y
  /// disagree in length, or `indices` for an index >= size().
  [[nodiscard]] frame_sequence_batch select(std::span<const std::size_t> indices) const {
    detail::check_label_count(y.size(), x.size(), "y.size()");
    frame_sequence_batch out;
    out.x.reserve(indices.size());
    out.y.reserve(indices.size());
    for (auto i : indices) {
      detail::check_index(i, size(), "indices");
      out.x.push_back(x[i]);
      out.y.push_back(y[i]);
    }
    return out;
  }
};

/// A model that also computes the gradient of the mean loss directly (one
/// batched backward pass, no B x P matrix): what non-private SGD uses.
template <class M, class Batch>
concept batch_gradient_model = differentiable_model_for<M, Batch> &&
    requires(const M& cm, const Batch& b) {
  { cm.mean_gradient(b) } -> std::same_as<xt::xtensor<typename M::real_type, 1>>;
};

/// The gradient of the mean loss over a non-empty batch: the model's own
/// `mean_gradient` when it has one, else the mean of the per-example rows.
template <class M, class Batch>
requires differentiable_model_for<M, Batch>
[[nodiscard]] xt::xtensor<typename M::real_type, 1> mean_gradient(const M& model,
                                                                  const Batch& batch) {
  using R = typename M::real_type;
  if (batch.size() == 0) throw_empty("batch");
  if constexpr (batch_gradient_model<M, Batch>) {
    return model.mean_gradient(batch);
  } else {
    const auto g = model.per_example_gradients(batch);
    xt::xtensor<R, 1> out = xt::zeros<R>({model.parameter_count()});
    const std::size_t p = model.parameter_count();
    for (std::size_t i = 0; i < g.shape(0); ++i) {
      const R* row = g.data() + i * p;
      for (std::size_t j = 0; j < p; ++j) out(j) += row[j];
    }
    out /= static_cast<R>(g.shape(0));
    return out;
  }
}

}  // namespace privet::ml
