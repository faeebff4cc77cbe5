// privet/ml/clipping.hpp — per-example L2 clipping, DP-SGD's sensitivity
// bound (Abadi et al. 2016, Algorithm 1: g_i / max(1, |g_i|_2 / C)), on a
// matrix of per-example gradients (`clip_each_row`) and as an optional model
// capability (`clipped_sum_model`): a model that knows each example's
// gradient norm from its factors can return the sum of the clipped gradients
// without forming the B x P matrix.
//
// Why the capability: for a dense layer the gradient of example i is the
// outer product delta_i a_i^T, whose norm is |delta_i| |a_i|, so the clipped
// sum is sum_i s_i delta_i a_i^T = (s delta)^T A, one matrix product
// (Goodfellow 2015, arXiv:1510.01799, the norm trick behind "ghost clipping",
// Li et al. 2022). DP-SGD then costs about one extra pass over the
// activations instead of B x P writes.
//
// Rounding: a norm computed in floating point can be below the true one by
// about p/2 units in the last place for p squared terms; every clipping
// factor here includes the margin 1 - (p + 8) eps, and rows are clipped as
// soon as their computed norm exceeds C (1 - margin), so no clipped row is
// longer than C however the norm was rounded.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/validate.hpp>
#include <privet/ml/model.hpp>

#include <xtensor/xtensor.hpp>

#include <cmath>
#include <concepts>
#include <cstddef>
#include <limits>
#include <vector>

namespace privet::ml {

/// The factor an example's gradient is multiplied by: 1 if its computed norm
/// is within clip_norm (with the rounding margin for `terms` squared terms),
/// else slightly less than clip_norm / norm. Throws invalid_parameter for a
/// non-finite norm (training diverged).
inline double clip_factor(double norm, double clip_norm, std::size_t terms) {
  if (!std::isfinite(norm)) {
    throw_invalid("per-example gradient norm", norm, "finite (training diverged)");
  }
  const double margin = static_cast<double>(terms + 8) * std::numeric_limits<double>::epsilon();
  if (!(norm > clip_norm * (1 - margin))) return 1.0;
  return clip_norm / norm * (1 - margin);
}

namespace detail {

// sum_j x_j^2 in double over four interleaved partial sums: independent
// chains the compiler can keep in vector lanes. Any summation order's error
// is within clip_factor's margin (p squared terms).
template <real_number Real>
double sum_of_squares(const Real* x, std::size_t p) noexcept {
  double acc[4] = {0, 0, 0, 0};
  std::size_t j = 0;
  for (; j + 4 <= p; j += 4) {
    for (std::size_t k = 0; k < 4; ++k) {
      const auto v = static_cast<double>(x[j + k]);
      acc[k] += v * v;
    }
  }
  for (; j < p; ++j) acc[0] += static_cast<double>(x[j]) * static_cast<double>(x[j]);
  return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

// A factor s in Real with s (1 + eps/2) < scale, so that every product
// s x_j rounded to nearest in Real is at most scale |x_j| in magnitude
// (while the product is a normal number): scale (1 - 2 eps), rounded
// toward zero into Real.
template <real_number Real>
Real shrunk_factor(double scale) noexcept {
  const double eps = static_cast<double>(std::numeric_limits<Real>::epsilon());
  const double t = scale * (1 - 2 * eps);
  auto s = static_cast<Real>(t);
  if (static_cast<double>(s) >= t) s = std::nextafter(s, Real(0));
  return s;
}

// Whether products rounded to nearest in Real are safe for a row of p
// entries clipped to clip_norm: a product that lands among the subnormals
// can round up by half the smallest subnormal, which the factor's 2 eps
// shrink (about eps clip_norm of slack in the row's norm) covers only when
// clip_norm >= 2 sqrt(p) denorm_min / eps. Smaller clip norms take the
// exact path.
template <real_number Real>
bool products_are_safe(double clip_norm, std::size_t p) noexcept {
  const double tiny = static_cast<double>(std::numeric_limits<Real>::denorm_min());
  const double eps = static_cast<double>(std::numeric_limits<Real>::epsilon());
  return clip_norm >= 2 * std::sqrt(static_cast<double>(p)) * tiny / eps;
}

}  // namespace detail

/// Scales every row of g (one example's gradient) whose L2 norm exceeds
/// clip_norm down to norm clip_norm, in place, and returns how many rows it
/// scaled; +inf clips nothing. Throws invalid_parameter for clip_norm <= 0 or
/// NaN, or a row whose norm is not finite.
///
/// A clipped row is multiplied in Real by detail::shrunk_factor, slightly
/// below the exact factor, so that rounding to nearest cannot lengthen it
/// (one multiplication per entry, vectorisable); for clip norms so small
/// that the products would be subnormal, each product is instead computed
/// in double and rounded toward zero.
template <real_number Real>
std::size_t clip_each_row(xt::xtensor<Real, 2>& g, double clip_norm) {
  if (!(clip_norm > 0)) throw_invalid("clip_norm", clip_norm, "> 0 (or +inf)");
  const std::size_t rows = g.shape(0), p = g.shape(1);
  const bool fast = detail::products_are_safe<Real>(clip_norm, p);
  std::size_t clipped = 0;
  for (std::size_t i = 0; i < rows; ++i) {
    Real* row = g.data() + i * p;
    const double scale = clip_factor(std::sqrt(detail::sum_of_squares(row, p)), clip_norm, p);
    if (scale == 1.0) continue;
    if (fast) {
      const Real s = detail::shrunk_factor<Real>(scale);
      for (std::size_t j = 0; j < p; ++j) row[j] *= s;
    } else {
      for (std::size_t j = 0; j < p; ++j) {
        // Rounded toward zero when stored in Real, so the row never grows.
        const double v = scale * static_cast<double>(row[j]);
        auto r = static_cast<Real>(v);
        if (std::abs(static_cast<double>(r)) > std::abs(v)) r = std::nextafter(r, Real(0));
        row[j] = r;
      }
    }
    ++clipped;
  }
  return clipped;
}

/// The sum over a batch of the clipped per-example gradients.
struct clipped_sum {
  std::vector<double> sum;  ///< P entries
  std::size_t clipped = 0;  ///< examples whose gradient was scaled down
};

/// Clips every row of g (B x P) to L2 norm clip_norm, then sums the rows
/// in double: sum_i clip(g_i), with the count of rows clipped.
template <real_number Real>
clipped_sum clip_and_sum_rows(xt::xtensor<Real, 2>& g, double clip_norm) {
  const std::size_t p = g.shape(1);
  clipped_sum out{std::vector<double>(p, 0.0), clip_each_row(g, clip_norm)};
  for (std::size_t i = 0; i < g.shape(0); ++i) {
    const Real* row = g.data() + i * p;
    for (std::size_t j = 0; j < p; ++j) out.sum[j] += static_cast<double>(row[j]);
  }
  return out;
}

/// A model that computes sum_i clip(g_i, C) directly, equal (up to rounding)
/// to clipping the rows of per_example_gradients and summing them.
template <class M, class Batch>
concept clipped_sum_model = differentiable_model_for<M, Batch> &&
    requires(const M& cm, const Batch& b, double clip_norm) {
  { cm.clipped_gradient_sum(b, clip_norm) } -> std::same_as<clipped_sum>;
};

/// sum_i clip(g_i, C) for any model: the model's own clipped_gradient_sum
/// when it has one, else its per-example gradients clipped row by row.
template <class M, class Batch>
requires differentiable_model_for<M, Batch> clipped_sum sum_of_clipped_gradients(const M& model,
                                                                                 const Batch& batch,
                                                                                 double clip_norm) {
  if (!(clip_norm > 0)) throw_invalid("clip_norm", clip_norm, "> 0 (or +inf)");
  if constexpr (clipped_sum_model<M, Batch>) {
    return model.clipped_gradient_sum(batch, clip_norm);
  } else {
    const std::size_t p = model.parameter_count();
    clipped_sum out{std::vector<double>(p, 0.0), 0};
    if (batch.size() == 0) return out;
    auto g = model.per_example_gradients(batch);
    if (g.shape(0) != batch.size()) {
      throw_invalid(
          "per-example gradients' rows", g.shape(0),
          "one per example: == the batch size = " + privet::detail::format_value(batch.size()));
    }
    if (g.shape(1) != p) {
      throw_invalid("per-example gradients' columns", g.shape(1),
                    "one per parameter: == parameter_count() = " + privet::detail::format_value(p));
    }
    return clip_and_sum_rows(g, clip_norm);
  }
}

}  // namespace privet::ml
