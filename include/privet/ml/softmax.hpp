// privet/ml/softmax.hpp — numerically stable softmax, log-softmax and the
// softmax cross-entropy loss with its gradient in the logits, plus the
// two-class case (sigmoid, log-sigmoid) used by logistic regression.
//
// Stability: every row is shifted by its maximum before exponentiating (the
// log-sum-exp trick), so no exponential overflows and the largest term is
// exactly 1; log-sigmoid uses log1p on the side where exp cannot overflow.
// The cross-entropy gradient in the logits is softmax(z) - onehot(y)
// (e.g. Goodfellow, Bengio & Courville, "Deep Learning", section 6.2.2.3).
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/ct_word.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/validate.hpp>

#include <xtensor/xtensor.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace privet::ml {

/// log(1 / (1 + e^-x)) without overflow or loss of precision for any finite x.
template <real_number Real>
[[nodiscard]] Real log_sigmoid(Real x) noexcept {
  using std::abs;
  using std::exp;
  using std::log1p;
  using std::min;
  // For x >= 0, e^-x <= 1 so log1p is accurate; for x < 0 rewrite as
  // x - log(1 + e^x) so the exponential again stays <= 1. Both sides are
  // min(x, 0) - log1p(e^-|x|), with no branch on the sign (DP-SGD's
  // passes must not time the data).
  return min(x, Real(0)) - log1p(exp(-abs(x)));
}

/// 1 / (1 + e^-x) without overflow for any finite x: 1 / (1 + e) for x >= 0
/// and e / (1 + e) below, e = e^-|x|, the numerator picked by a mask (no
/// branch on the sign).
template <real_number Real>
[[nodiscard]] Real sigmoid(Real x) noexcept {
  using std::abs;
  using std::exp;
  const Real e = exp(-abs(x));
  return privet::detail::ct_pick(static_cast<std::uint64_t>(x >= Real(0)), Real(1), e) /
         (Real(1) + e);
}

namespace detail {

template <real_number Real>
void check_logits(const xt::xtensor<Real, 2>& logits) {
  if (logits.shape(1) == 0) throw_invalid("logits.shape(1)", std::size_t{0}, ">= 1 class");
  for (Real v : logits) {
    if (!std::isfinite(static_cast<double>(v))) {
      throw_invalid("logits", static_cast<double>(v),
                    "finite values (a non-finite logit means training diverged)");
    }
  }
}

template <real_number Real>
void check_labels(std::span<const int> labels, std::size_t rows, std::size_t classes) {
  if (labels.size() != rows) {
    throw_invalid("labels.size()", labels.size(),
                  "one label per row of logits (" + privet::detail::format_value(rows) + ")");
  }
  for (int y : labels) {
    if (y < 0 || static_cast<std::size_t>(y) >= classes) {
      throw_invalid("label", y,
                    "a class index in [0, " + privet::detail::format_value(classes) + ")");
    }
  }
}

}  // namespace detail

/// Row-wise log-softmax of a B x K matrix of logits.
template <real_number Real>
[[nodiscard]] xt::xtensor<Real, 2> log_softmax(const xt::xtensor<Real, 2>& logits) {
  detail::check_logits(logits);
  const std::size_t rows = logits.shape(0), k = logits.shape(1);
  xt::xtensor<Real, 2> out = xt::xtensor<Real, 2>::from_shape({rows, k});
  for (std::size_t i = 0; i < rows; ++i) {
    const Real* z = logits.data() + i * k;
    Real* o = out.data() + i * k;
    Real m = z[0];
    for (std::size_t c = 1; c < k; ++c) m = z[c] > m ? z[c] : m;
    Real s = 0;
    for (std::size_t c = 0; c < k; ++c) s += std::exp(z[c] - m);
    const Real lse = m + std::log(s);
    for (std::size_t c = 0; c < k; ++c) o[c] = z[c] - lse;
  }
  return out;
}

/// Row-wise softmax of a B x K matrix of logits (rows sum to 1).
template <real_number Real>
[[nodiscard]] xt::xtensor<Real, 2> softmax(const xt::xtensor<Real, 2>& logits) {
  detail::check_logits(logits);
  const std::size_t rows = logits.shape(0), k = logits.shape(1);
  xt::xtensor<Real, 2> out = xt::xtensor<Real, 2>::from_shape({rows, k});
  for (std::size_t i = 0; i < rows; ++i) {
    const Real* z = logits.data() + i * k;
    Real* o = out.data() + i * k;
    Real m = z[0];
    for (std::size_t c = 1; c < k; ++c) m = z[c] > m ? z[c] : m;
    Real s = 0;
    for (std::size_t c = 0; c < k; ++c) s += (o[c] = std::exp(z[c] - m));
    for (std::size_t c = 0; c < k; ++c) o[c] /= s;
  }
  return out;
}

/// Per-row cross-entropy losses and their gradients in the logits.
template <real_number Real>
struct cross_entropy_result {
  xt::xtensor<Real, 1> loss;  ///< loss(i) = -log softmax(logits_i)[y_i]
  xt::xtensor<Real, 2> grad;  ///< grad(i, c) = softmax(logits_i)[c] - [c == y_i]
};

/// Softmax cross-entropy of a B x K matrix of logits against labels in
/// [0, K), with the gradient of each row's loss in that row's logits. Throws
/// invalid_parameter for a label outside [0, K), a label count other than B,
/// or a non-finite logit.
template <real_number Real>
[[nodiscard]] cross_entropy_result<Real> softmax_cross_entropy(const xt::xtensor<Real, 2>& logits,
                                                               std::span<const int> labels) {
  detail::check_logits(logits);
  const std::size_t rows = logits.shape(0), k = logits.shape(1);
  detail::check_labels<Real>(labels, rows, k);
  cross_entropy_result<Real> r{xt::xtensor<Real, 1>::from_shape({rows}),
                               xt::xtensor<Real, 2>::from_shape({rows, k})};
  for (std::size_t i = 0; i < rows; ++i) {
    const Real* z = logits.data() + i * k;
    Real* g = r.grad.data() + i * k;
    Real m = z[0];
    for (std::size_t c = 1; c < k; ++c) m = z[c] > m ? z[c] : m;
    Real s = 0;
    for (std::size_t c = 0; c < k; ++c) s += (g[c] = std::exp(z[c] - m));
    // The label is read by masks over the K classes, never as an address
    // (DP-SGD's passes run through here; the values are the same as
    // z[y] and g[y] -= 1).
    const auto y = static_cast<std::uint64_t>(labels[i]);
    Real zy = 0;
    for (std::size_t c = 0; c < k; ++c)
      zy += privet::detail::ct_keep(z[c], privet::detail::ct_is_zero(c ^ y));
    // -log p_y = log-sum-exp - z_y, computed from the shifted values so the
    // loss of a confidently right prediction is an accurate small number.
    r.loss(i) = std::log(s) - (zy - m);
    for (std::size_t c = 0; c < k; ++c) {
      g[c] = g[c] / s - privet::detail::ct_keep(Real(1), privet::detail::ct_is_zero(c ^ y));
    }
  }
  return r;
}

/// Per-row cross-entropy losses only (no gradient).
template <real_number Real>
[[nodiscard]] xt::xtensor<Real, 1> softmax_cross_entropy_loss(const xt::xtensor<Real, 2>& logits,
                                                              std::span<const int> labels) {
  detail::check_logits(logits);
  const std::size_t rows = logits.shape(0), k = logits.shape(1);
  detail::check_labels<Real>(labels, rows, k);
  xt::xtensor<Real, 1> loss = xt::xtensor<Real, 1>::from_shape({rows});
  for (std::size_t i = 0; i < rows; ++i) {
    const Real* z = logits.data() + i * k;
    Real m = z[0];
    for (std::size_t c = 1; c < k; ++c) m = z[c] > m ? z[c] : m;
    Real s = 0;
    for (std::size_t c = 0; c < k; ++c) s += std::exp(z[c] - m);
    loss(i) = std::log(s) - (z[static_cast<std::size_t>(labels[i])] - m);
  }
  return loss;
}

}  // namespace privet::ml
