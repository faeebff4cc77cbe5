// privet/ml/mlp.hpp — a multi-layer perceptron classifier (fully connected
// layers, tanh or ReLU hidden units, softmax cross-entropy head) whose
// per-example gradients come from one batched forward and backward pass.
//
// Per-example gradients: backpropagation (Rumelhart, Hinton & Williams 1986)
// runs once for the whole batch, each layer's deltas one matrix product; the
// gradient of example i in layer l's weights is the outer product
// delta_l[i] a_{l-1}[i]^T of its own delta and input activation, which the
// batched pass has already computed (Goodfellow 2015, "Efficient per-example
// gradient computations", arXiv:1510.01799). The per-example matrix costs
// B x P writes and the same multiplications as the summed gradient's
// product; examples are spread over TBB threads.
//
// Parameters, one flat vector: for each layer l (in_l inputs, out_l outputs)
// its weights W_l (out_l x in_l, row-major) and then its bias b_l (out_l).
// Forward: a_0 = x, z_l = W_l a_{l-1} + b_l, a_l = act(z_l) for hidden
// layers, logits = z_L. The loss of an example is -log softmax(logits)[y].
//
// Initialisation from an injected generator: Glorot-uniform weights for tanh
// (Glorot & Bengio 2010), He-uniform for ReLU (He et al. 2015), zero biases.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/csprng.hpp>
#include <privet/core/detail/ct_word.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>
#include <privet/ml/clipping.hpp>
#include <privet/ml/detail/linalg.hpp>
#include <privet/ml/model.hpp>
#include <privet/ml/softmax.hpp>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xtensor.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace privet::ml {

/// Nonlinearity of the hidden layers.
enum class activation {
  tanh,  ///< tanh(z)
  relu,  ///< max(0, z)
};

/// Shape of an `mlp`. `layers` has no default.
struct mlp_options {
  /// {inputs, hidden_1, ..., hidden_m, classes}: at least two entries, each
  /// >= 1, classes >= 2 (m = 0 is multinomial logistic regression).
  std::vector<std::size_t> layers;
  /// The hidden layers' nonlinearity (it also picks the initialisation).
  activation hidden_activation = activation::tanh;
};

/// A multi-layer perceptron classifier: fully connected layers with tanh or
/// ReLU hidden units and a softmax cross-entropy head, whose per-example
/// gradients (for DP-SGD) come from one batched backpropagation pass
/// (Rumelhart, Hinton & Williams 1986) with each example's weight gradient
/// the outer product of its own delta and input (Goodfellow 2015,
/// "Efficient per-example gradient computations"). A forward pass costs
/// O(B P) for B examples and P parameters; per_example_gradients() writes
/// the B x P matrix, while clipped_gradient_sum() and mean_gradient() avoid
/// it. Weights are Glorot-uniform (tanh) or He-uniform (ReLU), biases zero.
///
/// @tparam Real the parameter and feature type.
template <real_number Real>
class mlp {
 public:
  using real_type = Real;                ///< The parameter and feature type.
  using batch_type = dense_batch<Real>;  ///< Rows of features with one class label each.

  /// Largest layer width accepted (keeps every BLAS dimension within int).
  static constexpr std::size_t max_width = std::size_t{1} << 24;

  /// A network of `options`' shape, its weights drawn from `gen`. Throws
  /// invalid_parameter for fewer than two layers, a width of 0 or above
  /// max_width, or fewer than two classes.
  template <random_bit_source G>
  mlp(const mlp_options& options, G& gen) : options_(checked(options)) {
    std::size_t offset = 0;
    for (std::size_t l = 0; l + 1 < options_.layers.size(); ++l) {
      const std::size_t in = options_.layers[l], out = options_.layers[l + 1];
      layers_.push_back({in, out, offset, offset + out * in});
      offset += out * in + out;
    }
    params_.assign(offset, Real(0));
    for (const auto& layer : layers_) {
      // Glorot: Var = 2 / (in + out); He: Var = 2 / in; uniform on [-a, a]
      // has variance a^2 / 3.
      const double a = options_.hidden_activation == activation::relu
                           ? std::sqrt(6.0 / static_cast<double>(layer.in))
                           : std::sqrt(6.0 / static_cast<double>(layer.in + layer.out));
      for (std::size_t j = 0; j < layer.in * layer.out; ++j) {
        params_[layer.weights + j] = static_cast<Real>(a * (2 * uniform_real<double>(gen) - 1));
      }
    }
  }

  /// Initialised from the thread's CSPRNG (`secure_generator()`).
  explicit mlp(const mlp_options& options) : mlp(options, secure_generator()) {}

  /// The layer widths {inputs, hidden_1, ..., classes}.
  [[nodiscard]] const std::vector<std::size_t>& layers() const noexcept { return options_.layers; }
  /// The hidden layers' nonlinearity.
  [[nodiscard]] activation hidden_activation() const noexcept { return options_.hidden_activation; }
  /// The number of input features.
  [[nodiscard]] std::size_t inputs() const noexcept { return options_.layers.front(); }
  /// The number of classes (outputs).
  [[nodiscard]] std::size_t classes() const noexcept { return options_.layers.back(); }

  /// P: sum over layers of out_l (in_l + 1).
  [[nodiscard]] std::size_t parameter_count() const noexcept { return params_.size(); }
  /// The flat parameters: per layer, W_l (out_l x in_l, row-major) then b_l
  /// (writable: the optimisers update them in place).
  ///@{
  [[nodiscard]] std::span<const Real> parameters() const noexcept { return params_; }
  [[nodiscard]] std::span<Real> parameters() noexcept { return params_; }
  ///@}

  /// B x classes logits of a batch's rows.
  [[nodiscard]] xt::xtensor<Real, 2> logits(const batch_type& batch) const {
    check_inputs(batch);
    return forward(batch).back();
  }

  /// The most likely class of every row (the first on ties).
  [[nodiscard]] std::vector<int> predict(const batch_type& batch) const {
    const auto z = logits(batch);
    std::vector<int> out(z.shape(0));
    for (std::size_t i = 0; i < z.shape(0); ++i) {
      const Real* row = z.data() + i * z.shape(1);
      out[i] = static_cast<int>(std::max_element(row, row + z.shape(1)) - row);
    }
    return out;
  }

  /// -log softmax(logits_i)[y_i] for every example. Throws invalid_parameter
  /// for a label outside [0, classes), a feature count other than inputs(),
  /// or non-finite logits.
  [[nodiscard]] xt::xtensor<Real, 1> losses(const batch_type& batch) const {
    check_inputs(batch);
    const auto acts = forward(batch);
    return softmax_cross_entropy_loss(acts.back(), std::span<const int>(batch.y));
  }

  /// Row i: the gradient of losses(batch)(i) in parameters() order.
  [[nodiscard]] xt::xtensor<Real, 2> per_example_gradients(const batch_type& batch) const {
    check_inputs(batch);
    const std::size_t n = batch.size(), p = params_.size();
    xt::xtensor<Real, 2> g = xt::xtensor<Real, 2>::from_shape({n, p});
    if (n == 0) return g;
    backward(batch, forward(batch),
             [&](std::size_t l, const Real* a_prev, const xt::xtensor<Real, 2>& delta) {
               const layer_shape& s = layers_[l];
               // Each example's outer product goes into its own row: independent
               // writes, so examples split across threads without synchronisation.
               oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, n, grain(s)),
                                         [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
                                           for (std::size_t i = r.begin(); i < r.end(); ++i) {
                                             Real* gw = g.data() + i * p + s.weights;
                                             Real* gb = g.data() + i * p + s.bias;
                                             const Real* d = delta.data() + i * s.out;
                                             const Real* a = a_prev + i * s.in;
                                             for (std::size_t o = 0; o < s.out; ++o) {
                                               const Real dv = d[o];
                                               Real* row = gw + o * s.in;
                                               for (std::size_t c = 0; c < s.in; ++c)
                                                 row[c] = dv * a[c];
                                               gb[o] = dv;
                                             }
                                           }
                                         });
             });
    return g;
  }

  /// The gradient of the mean loss by one batched backward pass: weight
  /// gradients delta^T a / B as matrix products, no per-example matrix.
  [[nodiscard]] xt::xtensor<Real, 1> mean_gradient(const batch_type& batch) const {
    check_inputs(batch);
    const std::size_t n = batch.size();
    if (n == 0) throw_empty("batch");
    xt::xtensor<Real, 1> g = xt::zeros<Real>({params_.size()});
    const Real scale = Real(1) / static_cast<Real>(n);
    backward(batch, forward(batch),
             [&](std::size_t l, const Real* a_prev, const xt::xtensor<Real, 2>& delta) {
               const layer_shape& s = layers_[l];
               detail::gemm<Real>(true, false, scale, {delta.data(), n, s.out, s.out},
                                  {a_prev, n, s.in, s.in}, Real(0),
                                  {g.data() + s.weights, s.out, s.in, s.in});
               for (std::size_t i = 0; i < n; ++i) {
                 const Real* d = delta.data() + i * s.out;
                 for (std::size_t o = 0; o < s.out; ++o) g(s.bias + o) += scale * d[o];
               }
             });
    return g;
  }

  /// sum_i clip(g_i, C) of the per-example gradients without forming them:
  /// |g_i|^2 = sum_l |delta_l,i|^2 (|a_{l-1},i|^2 + 1), and each example's
  /// clipped weight gradients, the outer products (s_i delta_l,i) a_{l-1},i^T,
  /// go straight into the exact sum (ml/clipping.hpp) without being stored.
  /// This is DP-SGD's path, so data never makes it throw (docs/data_rule.md):
  /// an example whose label is outside [0, classes) or whose logits are not
  /// finite (non-finite features, or a forward pass that overflowed)
  /// contributes a zero gradient, as does one whose gradient norm is not
  /// finite. These rules look at one example only (record-wise), so the
  /// sum's sensitivity stays clipped_gradient_sum_sensitivity. Zeroed
  /// examples count in `clipped`. Throws invalid_parameter for clip_norm <= 0
  /// or NaN, or a batch whose shape does not fit the network.
  ///
  /// With a non-empty `counted` (one entry per example), only the examples
  /// with counted[i] != 0 enter the sum and `clipped`, and every example
  /// does the same work whether it counts or not: its scaled deltas are
  /// formed and added times 0 or 1 (a padded batch, ml/clipping.hpp).
  /// Throws invalid_parameter naming counted.size() unless it is 0 or the
  /// batch size.
  [[nodiscard]] clipped_sum clipped_gradient_sum(const batch_type& batch, double clip_norm,
                                                 std::span<const std::uint8_t> counted = {}) const {
    if (!(clip_norm > 0)) throw_invalid("clip_norm", clip_norm, "> 0 (or +inf)");
    check_inputs(batch);
    privet::ml::detail::check_counted(counted, batch.size());
    const std::size_t n = batch.size(), p = params_.size();
    clipped_sum out{std::vector<double>(p, 0.0), 0};
    if (n == 0) return out;
    const auto acts = forward(batch);
    // Unusable examples get fixed logits and label 0 (any valid pair): their
    // gradient is computed like the others' and then left out.
    std::vector<std::uint8_t> zeroed(n, 0);
    auto logits = acts.back();
    std::vector<int> labels(batch.y);
    const std::size_t k = classes();
    // By masks: the same work whichever examples are usable.
    for (std::size_t i = 0; i < n; ++i) {
      namespace ct = privet::detail;
      Real* z = logits.data() + i * k;
      const std::uint64_t label_ok =
          ct::ct_lt(static_cast<std::uint64_t>(static_cast<std::int64_t>(labels[i])), k);
      std::uint64_t finite = 1;
      for (std::size_t c = 0; c < k; ++c) {
        finite &= ct::ct_is_finite(static_cast<double>(z[c]));
      }
      // Non-finite logits become 0, -1, -2, ... (not all zero, so that the
      // softmax's exponentials take the same path as a usable example's:
      // exp(0) alone is a special case in the C library); a label out of
      // range becomes 0 with the logits kept, so that a left-out example's
      // arithmetic is a usable one's.
      for (std::size_t c = 0; c < k; ++c) z[c] = ct::ct_pick(finite, z[c], -static_cast<Real>(c));
      const std::uint64_t ok = label_ok & finite;
      zeroed[i] = static_cast<std::uint8_t>(ok ^ 1);
      labels[i] = static_cast<int>(ct::ct_select(
          ct::ct_mask(ok), static_cast<std::uint64_t>(static_cast<std::int64_t>(labels[i])), 0));
    }
    std::vector<xt::xtensor<Real, 2>> deltas(layers_.size());
    std::vector<const Real*> inputs(layers_.size());
    std::vector<double> sq(n, 0.0);
    backward(batch, acts, softmax_cross_entropy(logits, std::span<const int>(labels)).grad,
             [&](std::size_t l, const Real* a_prev, const xt::xtensor<Real, 2>& delta) {
               const layer_shape& s = layers_[l];
               deltas[l] = delta;
               inputs[l] = a_prev;
               for (std::size_t i = 0; i < n; ++i) {
                 double d2 = 0, a2 = 1;  // the bias acts as an input fixed at 1
                 const Real* d = delta.data() + i * s.out;
                 const Real* a = a_prev + i * s.in;
                 for (std::size_t o = 0; o < s.out; ++o) d2 += static_cast<double>(d[o]) * d[o];
                 for (std::size_t c = 0; c < s.in; ++c) a2 += static_cast<double>(a[c]) * a[c];
                 sq[i] += d2 * a2;
               }
             });
    // Every example's scaled deltas, in double (each rounded toward zero in
    // Real first, so that it never grows), and its inputs per layer. An
    // example left out (zeroed, or a norm that is not finite: scale 0) does
    // the same work and adds exactly 0 by a mask (0 times its deltas or
    // activations could be NaN); a finite norm implies finite deltas and
    // activations. No branch on whether an example is clipped or left out.
    std::vector<double> scales(n);
    std::vector<std::uint64_t> keep(n);
    for (std::size_t i = 0; i < n; ++i) {
      const double scale =
          privet::detail::ct_pick(zeroed[i], 0.0, clip_factor(std::sqrt(sq[i]), clip_norm, p));
      // 1 unless the row is padding; no branch on it.
      const std::size_t counts = counted.empty() || counted[i] != 0;
      out.clipped += counts & static_cast<std::size_t>(scale != 1.0);
      keep[i] = static_cast<std::uint64_t>(scale != 0.0);
      scales[i] = scale * static_cast<double>(counts);  // padding adds its deltas times 0
    }
    privet::ml::detail::exact_gradient_sum acc(p, clip_norm);
    std::vector<double> u;
    std::vector<const Real*> x;
    for (std::size_t first = 0; first < n;) {
      const std::size_t m = std::min(n - first, acc.rows_left());
      for (std::size_t l = 0; l < layers_.size(); ++l) {
        const layer_shape& s = layers_[l];
        u.resize(m * s.out);
        x.resize(m);
        for (std::size_t r = 0; r < m; ++r) {
          const std::size_t i = first + r;
          const Real* d = deltas[l].data() + i * s.out;
          for (std::size_t o = 0; o < s.out; ++o) {
            u[r * s.out + o] = static_cast<double>(
                privet::ml::detail::round_toward_zero<Real>(scales[i] * static_cast<double>(d[o])));
          }
          x[r] = inputs[l] + i * s.in;
        }
        acc.add_outer_products(s.weights, s.bias, u.data(), s.out, x.data(), s.in, m,
                               keep.data() + first);
      }
      acc.end_rows(m);
      first += m;
    }
    out.sum = acc.result();
    return out;
  }

 private:
  struct layer_shape {
    std::size_t in, out;
    std::size_t weights;  // offset of W_l
    std::size_t bias;     // offset of b_l
  };

  static const mlp_options& checked(const mlp_options& o) {
    if (o.layers.size() < 2) {
      throw_invalid("layers.size()", o.layers.size(), ">= 2 (inputs and classes)");
    }
    for (std::size_t w : o.layers) {
      if (w < 1 || w > max_width) {
        throw_invalid("layer width", w, "[1, " + privet::detail::format_value(max_width) + "]");
      }
    }
    if (o.layers.back() < 2) throw_invalid("classes", o.layers.back(), ">= 2");
    if (o.hidden_activation != activation::tanh && o.hidden_activation != activation::relu) {
      throw_invalid("hidden_activation", static_cast<int>(o.hidden_activation), "tanh or relu");
    }
    return o;
  }

  void check_inputs(const batch_type& batch) const {
    batch.validate();
    if (batch.x.shape(1) != inputs()) {
      throw_invalid("x.shape(1)", batch.x.shape(1),
                    "the network's inputs " + privet::detail::format_value(inputs()));
    }
  }

  static std::size_t grain(const layer_shape& s) {
    // Roughly 2^14 written entries per task: enough work to amortise a task.
    return std::max<std::size_t>(1, (std::size_t{1} << 14) / (s.in * s.out + s.out));
  }

  // Activations of layers 1..L (the last one the logits).
  std::vector<xt::xtensor<Real, 2>> forward(const batch_type& batch) const {
    const std::size_t n = batch.size();
    std::vector<xt::xtensor<Real, 2>> acts;
    acts.reserve(layers_.size());
    const Real* a_prev = batch.x.data();
    for (std::size_t l = 0; l < layers_.size(); ++l) {
      const layer_shape& s = layers_[l];
      xt::xtensor<Real, 2> z = xt::xtensor<Real, 2>::from_shape({n, s.out});
      if (n > 0) {
        detail::gemm<Real>(false, true, Real(1), {a_prev, n, s.in, s.in},
                           {params_.data() + s.weights, s.out, s.in, s.in}, Real(0),
                           {z.data(), n, s.out, s.out});
      }
      const Real* b = params_.data() + s.bias;
      const bool hidden = l + 1 < layers_.size();
      for (std::size_t i = 0; i < n; ++i) {
        Real* row = z.data() + i * s.out;
        for (std::size_t o = 0; o < s.out; ++o) {
          Real v = row[o] + b[o];
          if (hidden) {
            v = options_.hidden_activation == activation::tanh ? std::tanh(v)
                                                               : (v > Real(0) ? v : Real(0));
          }
          row[o] = v;
        }
      }
      acts.push_back(std::move(z));
      a_prev = acts.back().data();
    }
    return acts;
  }

  // Runs the batched backward pass from forward(batch)'s activations,
  // calling visit(l, a_{l-1}, delta_l) for
  // l = L-1 .. 0, where delta_l (B x out_l) holds each example's gradient of
  // its own loss in z_l.
  template <class Visit>
  void backward(const batch_type& batch, const std::vector<xt::xtensor<Real, 2>>& acts,
                Visit&& visit) const {
    backward(batch, acts, softmax_cross_entropy(acts.back(), std::span<const int>(batch.y)).grad,
             visit);
  }

  // The same from the loss's gradient in the logits, `delta` (B x classes).
  template <class Visit>
  void backward(const batch_type& batch, const std::vector<xt::xtensor<Real, 2>>& acts,
                xt::xtensor<Real, 2> delta, Visit&& visit) const {
    const std::size_t n = batch.size();
    for (std::size_t l = layers_.size(); l-- > 0;) {
      const layer_shape& s = layers_[l];
      const Real* a_prev = l == 0 ? batch.x.data() : acts[l - 1].data();
      visit(l, a_prev, delta);
      if (l == 0) break;
      xt::xtensor<Real, 2> prev = xt::xtensor<Real, 2>::from_shape({n, s.in});
      detail::gemm<Real>(false, false, Real(1), {delta.data(), n, s.out, s.out},
                         {params_.data() + s.weights, s.out, s.in, s.in}, Real(0),
                         {prev.data(), n, s.in, s.in});
      // act'(z) from the stored activation a = act(z): 1 - a^2 for tanh,
      // [a > 0] for ReLU (taking 0 as the derivative at the kink).
      const Real* a = acts[l - 1].data();
      Real* d = prev.data();
      const bool is_tanh = options_.hidden_activation == activation::tanh;
      for (std::size_t j = 0; j < n * s.in; ++j) {
        d[j] *= is_tanh ? Real(1) - a[j] * a[j] : (a[j] > Real(0) ? Real(1) : Real(0));
      }
      delta = std::move(prev);
    }
  }

  mlp_options options_;
  std::vector<layer_shape> layers_;
  std::vector<Real> params_;
};

}  // namespace privet::ml
