// privet/ml/lstm.hpp — an LSTM sequence classifier whose per-example gradients
// come from one batched pass, for DP-SGD (Abadi et al. 2016).
//
// Model: one LSTM layer (Hochreiter & Schmidhuber 1997, with the forget gate
// of Gers, Schmidhuber & Cummins 2000, no peepholes) over frames x_t in R^D,
//   z_t = W x_t + U h_{t-1} + b,   z = [z_i; z_f; z_g; z_o]   (gate order i, f, g, o)
//   c_t = s(z_f) * c_{t-1} + s(z_i) * tanh(z_g),   h_t = s(z_o) * tanh(c_t),
// with h_{-1} = c_{-1} = 0, followed by a softmax head y = softmax(V r + c).
// - `sequence_batch` (one label per sequence, keyword spotting): r is the mean
//   of h_t over the sequence's frames (`sequence_pooling::mean`, the default)
//   or its final h_t (`sequence_pooling::last`). The mean suits spotting words
//   in MFCC frames: a word's evidence is spread over its frames, recordings
//   carry leading and trailing silence of varying length, and every frame
//   reaches the loss through a path of length one instead of through up to a
//   hundred recurrent steps, where the final-state gradient fades.
// - `frame_sequence_batch` (one label per frame, e.g. senones): the head reads
//   every h_t, and an example's loss is the mean of its frames' losses, so
//   long and short utterances weigh alike before DP-SGD's clipping.
//
// Gradients: backpropagation through time (Werbos 1990) for all sequences at
// once, each time step's recurrent product one matrix product over the batch.
// Per-example weight gradients are sums over time of outer products,
//   dW_j = sum_t dz_t x_t^T,   dU_j = sum_t dz_t h_{t-1}^T,
// formed from the stored activations by one matrix product per example and
// parameter block (the cached-activation per-example gradient of Goodfellow
// 2015, arXiv:1510.01799, extended through time): the forward pass runs once,
// and the per-example products cost the same arithmetic as the batch
// gradient's single product.
//
// Variable lengths: each block of sequences is padded to its longest; padded
// steps are never computed forward and carry zero gradient backward, so
// padding changes no result (the per-example products read only each
// sequence's own frames). That makes a pass's time follow the lengths, which
// are data: with `lstm_options::gradient_frames` = T, DP-SGD's pass
// (per_example_gradients) runs every sequence for exactly T steps instead,
// whatever its length. A sequence's first min(T_i, T) frames are read
// through a clamped row index, the rest are zero and masked; the steps past
// its length are computed and never read (the heads take h_t by masks, and
// exactly 0 flows back through them), so its gradient is the one of its
// first T frames, cut by a rule that looks at no data. The label of a
// sequence or of a frame is read by masks over the K classes, and a
// sequence's validity (frames, width, labels) is combined by masks, so the
// work, the branches and the addresses written depend on the number of
// sequences, T, D, H and K only. Not covered: the addresses read (where each
// sequence is stored, a frame's label), and floating-point latencies that
// depend on operands (exp of the gates, subnormals). Predictions, losses and
// mean_gradient read every frame, in time that follows the lengths (they
// are not DP-SGD's release path).
//
// Initialisation: W and V Glorot-uniform (Glorot & Bengio 2010), each gate's
// block of U a random orthogonal matrix (Saxe, McClelland & Ganguli 2014),
// biases zero except the forget gate's (1 by default: Jozefowicz, Zaremba &
// Sutskever 2015), all drawn from an injected generator.
//
// Matrix products go through ml/detail/linalg.hpp: xtensor-blas's GEMM on
// the BLAS of the `privet::blas` target when PRIVET_HAS_BLAS is defined,
// plain loops otherwise.
//
// Parallelism: blocks of `examples_per_task` sequences are independent TBB
// tasks, each running the recurrence for its block; the partition depends on
// the batch alone, so results do not depend on the number of threads. Each
// task calls BLAS, so a multi-threaded BLAS should be held to one thread
// (OPENBLAS_NUM_THREADS=1) when several TBB threads run, or the cores are
// oversubscribed.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/csprng.hpp>
#include <privet/core/detail/ct_word.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/parallel.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>
#include <privet/ml/detail/linalg.hpp>
#include <privet/ml/model.hpp>

#include <xtensor/xbuilder.hpp>
#include <xtensor/xtensor.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace privet::ml {

/// How a sequence-level head reads the LSTM's hidden states.
enum class sequence_pooling {
  mean,  ///< the mean of h_t over the sequence's frames
  last,  ///< the hidden state after the sequence's last frame
};

/// Shape and initialisation of an `lstm_classifier`. `classes` has no default.
struct lstm_options {
  std::size_t input_dim = 13;                         ///< D: features per frame (13 MFCCs)
  std::size_t hidden = 200;                           ///< H: LSTM units
  std::size_t classes = 0;                            ///< K >= 2: softmax outputs
  sequence_pooling pooling = sequence_pooling::mean;  ///< r for sequence labels (file comment)
  double forget_bias = 1.0;                           ///< initial bias of the forget gate
  /// T > 0: per_example_gradients (DP-SGD's pass) reads exactly T frames of
  /// every sequence, in time that does not follow the sequences' lengths
  /// (a longer one contributes its first T frames; see the file comment).
  /// 0: each block runs to its longest sequence. At most max_frames.
  std::size_t gradient_frames = 0;
};

/// Where one parameter block lies in the flat parameter vector: a row-major
/// rows x cols matrix (cols = 1 for a bias) starting at `offset`.
struct parameter_block {
  std::string_view name;  ///< "W", "U", "b", "V" or "c".
  std::size_t offset;     ///< Index of its first entry in parameters().
  std::size_t rows;       ///< Rows of the matrix.
  std::size_t cols;       ///< Columns (1 for a bias).
  /// rows * cols, the number of parameters in the block.
  [[nodiscard]] std::size_t size() const noexcept { return rows * cols; }
};

/// One LSTM layer (Hochreiter & Schmidhuber 1997, with the forget gate of
/// Gers, Schmidhuber & Cummins 2000) and a softmax head, classifying whole
/// sequences (sequence_batch) or each frame (frame_sequence_batch), with
/// per-example gradients for DP-SGD (Abadi et al. 2016) from one batched
/// backpropagation through time; see the file comment. A forward pass over
/// T frames costs O(T H (D + H + K)) per sequence; per_example_gradients()
/// writes the B x P matrix. The flat parameter vector holds, in order: W
/// (4H x D), U (4H x H), b (4H), V (K x H), c (K), the gate blocks of W, U
/// and b in the order i, f, g, o.
///
/// @tparam Real the parameter and feature type.
/// @tparam Batch the batch type DP-SGD and the federations train on:
///   sequence_batch<Real> (a label per sequence, the default) or
///   frame_sequence_batch<Real> (a label per frame: frame_lstm_classifier).
///   Every member accepts both; only batch_type differs.
template <real_number Real, class Batch = sequence_batch<Real>>
requires std::same_as<Batch, sequence_batch<Real>> ||
    std::same_as<Batch, frame_sequence_batch<Real>>
class lstm_classifier {
 public:
  using real_type = Real;    ///< The parameter and feature type.
  using batch_type = Batch;  ///< What DP-SGD trains on.

  /// Sequences per TBB task (and per padded block).
  static constexpr std::size_t examples_per_task = 16;
  /// Largest input_dim, hidden and classes accepted.
  static constexpr std::size_t max_dimension = std::size_t{1} << 20;
  /// Longest sequence accepted (keeps every BLAS dimension within int).
  static constexpr std::size_t max_frames = std::size_t{1} << 26;

  /// Throws invalid_parameter when a dimension is 0 (classes < 2) or above
  /// max_dimension, or forget_bias is not finite.
  template <random_bit_source G>
  lstm_classifier(const lstm_options& options, G& gen) : options_(checked(options)) {
    d_ = options_.input_dim;
    h_ = options_.hidden;
    k_ = options_.classes;
    w_ = {"W", 0, 4 * h_, d_};
    u_ = {"U", w_.offset + w_.size(), 4 * h_, h_};
    b_ = {"b", u_.offset + u_.size(), 4 * h_, 1};
    v_ = {"V", b_.offset + b_.size(), k_, h_};
    c_ = {"c", v_.offset + v_.size(), k_, 1};
    params_ = xt::zeros<Real>({c_.offset + c_.size()});
    initialise(gen);
  }

  /// Initialised from the thread's CSPRNG (`secure_generator()`).
  explicit lstm_classifier(const lstm_options& options)
      : lstm_classifier(options, secure_generator()) {}

  /// D, the features per frame.
  [[nodiscard]] std::size_t input_dim() const noexcept { return d_; }
  /// H, the LSTM units.
  [[nodiscard]] std::size_t hidden() const noexcept { return h_; }
  /// K, the classes.
  [[nodiscard]] std::size_t classes() const noexcept { return k_; }
  /// How the sequence head reads the hidden states.
  [[nodiscard]] sequence_pooling pooling() const noexcept { return options_.pooling; }

  /// P = 4H (D + H + 1) + K (H + 1).
  [[nodiscard]] std::size_t parameter_count() const noexcept { return params_.size(); }
  /// The flat parameters in the order of parameter_blocks() (writable: the
  /// optimisers update them in place).
  ///@{
  [[nodiscard]] std::span<const Real> parameters() const noexcept {
    return {params_.data(), params_.size()};
  }
  [[nodiscard]] std::span<Real> parameters() noexcept { return {params_.data(), params_.size()}; }
  ///@}

  /// The blocks W, U, b, V, c of the flat parameter vector, in that order.
  [[nodiscard]] std::array<parameter_block, 5> parameter_blocks() const noexcept {
    return {w_, u_, b_, v_, c_};
  }

  // ---- sequence classification (one label per sequence) ----------------------

  /// B x K logits; labels are not read. Throws invalid_parameter for an empty
  /// sequence, a frame width other than input_dim, or a non-finite feature.
  /// An empty batch gives empty results here and in `losses` and
  /// `per_example_gradients` (Poisson sampling can draw one).
  [[nodiscard]] xt::xtensor<Real, 2> logits(const sequence_batch<Real>& batch) const {
    check_frames(batch.x);
    xt::xtensor<Real, 2> out = xt::xtensor<Real, 2>::from_shape({batch.x.size(), k_});
    for_each_block(batch.x.size(), [&](std::size_t first, std::size_t n) {
      block_state s = forward(batch.x, all_rows, first, n, head_kind(), 0, nullptr);
      std::copy(s.logits.begin(), s.logits.end(), out.data() + first * k_);
    });
    return out;
  }

  /// The most likely class of each sequence.
  [[nodiscard]] std::vector<int> predict(const sequence_batch<Real>& batch) const {
    const auto z = logits(batch);
    std::vector<int> out(z.shape(0));
    for (std::size_t i = 0; i < out.size(); ++i) {
      const Real* row = z.data() + i * k_;
      out[i] = static_cast<int>(std::max_element(row, row + k_) - row);
    }
    return out;
  }

  /// Each sequence's cross-entropy loss. Throws as `logits`, and for a label
  /// count other than the number of sequences or a label outside [0, K).
  [[nodiscard]] xt::xtensor<Real, 1> losses(const sequence_batch<Real>& batch) const {
    check(batch);
    xt::xtensor<Real, 1> out = xt::xtensor<Real, 1>::from_shape({batch.size()});
    for_each_block(batch.size(), [&](std::size_t first, std::size_t n) {
      block_state s = forward(batch.x, all_rows, first, n, head_kind(), 0, nullptr);
      for (std::size_t j = 0; j < n; ++j) out(first + j) = sequence_loss(s, j, batch.y[first + j]);
    });
    return out;
  }

  /// B x P: row i is the gradient of losses(batch)(i) in parameters().
  /// This is DP-SGD's path, so data never makes it throw
  /// (docs/data_rule.md): a non-finite feature counts as 0, and a sequence
  /// that is empty, longer than max_frames, has frames other than input_dim
  /// wide, or a label outside [0, K), gets the zero row. Each rule looks at
  /// one sequence only (record-wise), so clipping keeps its bound. With
  /// gradient_frames = T > 0, row i is the gradient of the loss of the
  /// sequence's first min(T_i, T) frames, computed in time that does not
  /// follow the lengths (file comment). Throws invalid_parameter only for a
  /// label count other than the number of sequences (the batch's shape).
  [[nodiscard]] xt::xtensor<Real, 2> per_example_gradients(
      const sequence_batch<Real>& batch) const {
    return gradients_at(batch, all_rows);
  }

  /// The rows of per_example_gradients(batch) at `rows`, in that order,
  /// reading those sequences where they are (DP-SGD's steps: no copy of
  /// the selected sequences, whose time would follow their lengths).
  /// Throws as per_example_gradients, and naming `rows` for an index >=
  /// batch.size().
  [[nodiscard]] xt::xtensor<Real, 2> per_example_gradients(
      const sequence_batch<Real>& batch, std::span<const std::size_t> rows) const {
    return gradients_at(batch, selection{rows, false});
  }

  /// The gradient of the mean loss (the mean of the rows of
  /// per_example_gradients, computed without forming them): non-private
  /// training. Throws as `losses`, and for an empty batch.
  [[nodiscard]] xt::xtensor<Real, 1> mean_gradient(const sequence_batch<Real>& batch) const {
    check(batch);
    return mean(batch.x, head_kind(), sequence_labels(batch));
  }

  // ---- frame classification (one label per frame) ------------------------------

  /// Each sequence's T_i x K frame logits; labels are not read. Throws as `logits`.
  [[nodiscard]] std::vector<xt::xtensor<Real, 2>> frame_logits(
      const frame_sequence_batch<Real>& batch) const {
    check_frames(batch.x);
    std::vector<xt::xtensor<Real, 2>> out(batch.x.size());
    for_each_block(batch.x.size(), [&](std::size_t first, std::size_t n) {
      block_state s = forward(batch.x, all_rows, first, n, head::frames, 0, nullptr);
      for (std::size_t j = 0; j < n; ++j) {
        const std::size_t len = s.len[j];
        out[first + j] = xt::xtensor<Real, 2>::from_shape({len, k_});
        const Real* src = s.logits.data() + (j * s.rows + 1) * k_;
        std::copy(src, src + len * k_, out[first + j].data());
      }
    });
    return out;
  }

  /// Each sequence's mean frame cross-entropy. Throws as `logits`, and for a
  /// label count other than the number of sequences or of a sequence's
  /// frames, or a label outside [0, K).
  [[nodiscard]] xt::xtensor<Real, 1> losses(const frame_sequence_batch<Real>& batch) const {
    check(batch);
    xt::xtensor<Real, 1> out = xt::xtensor<Real, 1>::from_shape({batch.size()});
    for_each_block(batch.size(), [&](std::size_t first, std::size_t n) {
      block_state s = forward(batch.x, all_rows, first, n, head::frames, 0, nullptr);
      for (std::size_t j = 0; j < n; ++j) out(first + j) = frame_loss(s, j, batch.y[first + j]);
    });
    return out;
  }

  /// B x P per-example gradients of the mean frame losses, with the rules of
  /// the sequence version (a sequence with any frame label outside [0, K),
  /// or a label count other than its frame count, gets the zero row; with
  /// gradient_frames = T, only the labels of the frames read are looked
  /// at). Throws invalid_parameter only for a label count other than the
  /// number of sequences.
  [[nodiscard]] xt::xtensor<Real, 2> per_example_gradients(
      const frame_sequence_batch<Real>& batch) const {
    return gradients_at(batch, all_rows);
  }

  /// The rows of per_example_gradients(batch) at `rows`, read in place, as
  /// the sequence_batch version.
  [[nodiscard]] xt::xtensor<Real, 2> per_example_gradients(
      const frame_sequence_batch<Real>& batch, std::span<const std::size_t> rows) const {
    return gradients_at(batch, selection{rows, false});
  }

  /// The gradient of the mean over sequences of their mean frame losses.
  /// Throws as `losses`, and for an empty batch.
  [[nodiscard]] xt::xtensor<Real, 1> mean_gradient(const frame_sequence_batch<Real>& batch) const {
    check(batch);
    return mean(batch.x, head::frames, frame_labels(batch));
  }

 private:
  // Contiguous row-major blocks of the activation buffers and parameters.
  struct cmat {
    const Real* data;
    std::size_t rows, cols;
  };
  struct mat {
    Real* data;
    std::size_t rows, cols;
  };
  enum class op { none, transpose };
  enum class head { mean, last, frames };

  struct label_ref {
    const int* data;
    std::size_t size;
  };

  // The label an unreadable sequence is read with (its row is zeroed).
  static constexpr int stand_in_label = 0;

  // Which sequences of a batch a pass reads: every one in order (all), or
  // rows[i] for i < rows.size().
  struct selection {
    std::span<const std::size_t> rows;
    bool all;
    [[nodiscard]] std::size_t operator()(std::size_t i) const noexcept { return all ? i : rows[i]; }
  };
  static constexpr selection all_rows{{}, true};

  static auto sequence_labels(const sequence_batch<Real>& batch) {
    return [&batch](std::size_t i) { return label_ref{&batch.y[i], 1}; };
  }
  static auto frame_labels(const frame_sequence_batch<Real>& batch) {
    return [&batch](std::size_t i) { return label_ref{batch.y[i].data(), batch.y[i].size()}; };
  }

  // One block's activations. Every per-sequence buffer has `rows` = steps + 1
  // rows per sequence, where row t of
  //   x      holds x_t (zero when t >= the sequence's length),
  //   gates  holds the activated gates (i, f, g, o) at t, and after the
  //          backward pass dL/dz_t (zero when t >= length),
  //   h, c   hold h_{t-1}, c_{t-1} (row 0 is the zero initial state),
  //   tanh_c holds tanh(c_t).
  // The extra row keeps gates row t aligned with h row t (h_{t-1}) over the
  // whole block, so the summed dU is one product over all rows.
  struct block_state {
    std::size_t n = 0, steps = 0, rows = 0;
    bool padded = false;            // steps fixed at gradient_frames
    std::vector<std::size_t> len;   // the frames read of each sequence
    std::vector<std::uint8_t> ok;   // 0: unreadable, read as one zero frame
    std::vector<label_ref> labels;  // each sequence's labels (the stand-in when not ok)
    xt::xtensor<Real, 1> x, gates, h, c, tanh_c;
    xt::xtensor<Real, 1> pooled;   // n x H (sequence heads)
    xt::xtensor<Real, 1> logits;   // n x K, or (n rows) x K for frames
    xt::xtensor<Real, 1> dlogits;  // same shape as logits
  };

  static lstm_options checked(const lstm_options& o) {
    const std::string range = "[1, " + privet::detail::format_value(max_dimension) + "]";
    if (o.input_dim < 1 || o.input_dim > max_dimension)
      throw_invalid("input_dim", o.input_dim, range);
    if (o.hidden < 1 || o.hidden > max_dimension) throw_invalid("hidden", o.hidden, range);
    if (o.classes < 2 || o.classes > max_dimension) {
      throw_invalid("classes", o.classes,
                    "[2, " + privet::detail::format_value(max_dimension) + "]");
    }
    validate_finite(o.forget_bias, "forget_bias");
    if (o.gradient_frames > max_frames) {
      throw_invalid("gradient_frames", o.gradient_frames,
                    "[0, " + privet::detail::format_value(max_frames) + "] (0: no cap)");
    }
    if (o.pooling != sequence_pooling::mean && o.pooling != sequence_pooling::last) {
      throw_invalid("pooling", static_cast<int>(o.pooling),
                    "sequence_pooling::mean (0) or sequence_pooling::last (1)");
    }
    return o;
  }

  [[nodiscard]] head head_kind() const noexcept {
    return options_.pooling == sequence_pooling::mean ? head::mean : head::last;
  }

  // ---- initialisation --------------------------------------------------------

  template <random_bit_source G>
  static double standard_normal(G& gen) {
    // Box-Muller; 1 - u lies in (0, 1], so the logarithm is finite. For
    // initialisation only: release noise never comes from here.
    const double u = 1.0 - uniform_real<double>(gen);
    const double v = uniform_real<double>(gen);
    return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * std::numbers::pi * v);
  }

  template <random_bit_source G>
  void glorot_uniform(G& gen, const parameter_block& blk, std::size_t fan_in, std::size_t fan_out) {
    const double a = std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
    Real* p = params_.data() + blk.offset;
    for (std::size_t i = 0; i < blk.size(); ++i) {
      p[i] = static_cast<Real>(a * (2.0 * uniform_real<double>(gen) - 1.0));
    }
  }

  // Rows of an n x n Gaussian matrix orthonormalised in order (Gram-Schmidt,
  // i.e. the Q of a QR factorisation with positive diagonal R), which is
  // Haar-distributed on the orthogonal group. Each row is projected twice
  // ("twice is enough": Giraud, Langou & Rozloznik 2005).
  template <random_bit_source G>
  static void random_orthogonal(G& gen, std::size_t n, Real* out) {
    std::vector<double> q(n * n);
    for (std::size_t r = 0; r < n; ++r) {
      double* qr = q.data() + r * n;
      for (;;) {
        for (std::size_t k = 0; k < n; ++k) qr[k] = standard_normal(gen);
        for (int pass = 0; pass < 2; ++pass) {
          for (std::size_t s = 0; s < r; ++s) {
            const double* qs = q.data() + s * n;
            double dot = 0;
            for (std::size_t k = 0; k < n; ++k) dot += qr[k] * qs[k];
            for (std::size_t k = 0; k < n; ++k) qr[k] -= dot * qs[k];
          }
        }
        double norm = 0;
        for (std::size_t k = 0; k < n; ++k) norm += qr[k] * qr[k];
        norm = std::sqrt(norm);
        // A draw (almost) inside the span of the previous rows has probability
        // ~0; normalising it would amplify rounding, so draw again.
        if (norm > 1e-6 * std::sqrt(static_cast<double>(n))) {
          for (std::size_t k = 0; k < n; ++k) qr[k] /= norm;
          break;
        }
      }
    }
    for (std::size_t i = 0; i < n * n; ++i) out[i] = static_cast<Real>(q[i]);
  }

  template <random_bit_source G>
  void initialise(G& gen) {
    // Each gate's H x D block has fans D and H.
    glorot_uniform(gen, w_, d_, h_);
    for (std::size_t g = 0; g < 4; ++g) {
      random_orthogonal(gen, h_, params_.data() + u_.offset + g * h_ * h_);
    }
    Real* b = params_.data() + b_.offset;
    for (std::size_t q = 0; q < h_; ++q) b[h_ + q] = static_cast<Real>(options_.forget_bias);
    glorot_uniform(gen, v_, h_, k_);
  }

  // ---- validation ---------------------------------------------------------------

  static std::string indexed(const char* name, std::size_t i, const char* suffix = "") {
    return std::string(name) + "[" + privet::detail::format_value(i) + "]" + suffix;
  }

  void check_frames(const std::vector<xt::xtensor<Real, 2>>& x) const {
    for (std::size_t i = 0; i < x.size(); ++i) {
      const std::size_t t = x[i].shape(0);
      if (t < 1 || t > max_frames) {
        throw_invalid(indexed("x", i, ".shape(0)"), t,
                      "[1, " + privet::detail::format_value(max_frames) + "] frames");
      }
      if (x[i].shape(1) != d_) {
        throw_invalid(indexed("x", i, ".shape(1)"), x[i].shape(1),
                      "input_dim = " + privet::detail::format_value(d_));
      }
      for (const Real v : x[i]) {
        if (!std::isfinite(v)) throw_invalid(indexed("x", i), v, "finite features");
      }
    }
  }

  // 1 when y is a class index in [0, K), else 0, without a branch.
  [[nodiscard]] std::uint64_t label_fits(int y) const noexcept {
    // A negative y converts to 2^64 + y, never below K.
    return privet::detail::ct_lt(static_cast<std::uint64_t>(static_cast<std::int64_t>(y)), k_);
  }

  void check_label(int y, const std::string& name) const {
    if (y < 0 || static_cast<std::size_t>(y) >= k_) {
      throw_invalid(name, y, "a class index in [0, " + privet::detail::format_value(k_) + ")");
    }
  }

  void check(const sequence_batch<Real>& batch) const {
    check_frames(batch.x);
    batch.validate();
    for (std::size_t i = 0; i < batch.y.size(); ++i) check_label(batch.y[i], indexed("y", i));
  }

  void check(const frame_sequence_batch<Real>& batch) const {
    check_frames(batch.x);
    batch.validate();
    for (std::size_t i = 0; i < batch.y.size(); ++i) {
      for (std::size_t t = 0; t < batch.y[i].size(); ++t) {
        check_label(batch.y[i][t], indexed("y", i) + "[" + privet::detail::format_value(t) + "]");
      }
    }
  }

  // ---- blocks ---------------------------------------------------------------------

  template <class F>
  static void for_each_block(std::size_t count, F&& f) {
    const std::size_t blocks = (count + examples_per_task - 1) / examples_per_task;
    parallel_for_index(blocks, parallel_options{}, [&](std::size_t k) {
      const std::size_t first = k * examples_per_task;
      f(first, std::min(examples_per_task, count - first));
    });
  }

  [[nodiscard]] const Real* param(const parameter_block& blk) const noexcept {
    return params_.data() + blk.offset;
  }
  [[nodiscard]] cmat param_matrix(const parameter_block& blk) const noexcept {
    return {param(blk), blk.rows, blk.cols};
  }

  static xt::xtensor<Real, 1> zeros(std::size_t n) { return xt::zeros<Real>({n}); }

  // c = op_a(a) op_b(b) + beta c through the layer's GEMM (BLAS when available).
  static void gemm(cmat a, op op_a, cmat b, op op_b, mat c, Real beta) {
    ml::detail::gemm(op_a == op::transpose, op_b == op::transpose, Real(1),
                     ml::detail::const_block<Real>{a.data, a.rows, a.cols, a.cols},
                     ml::detail::const_block<Real>{b.data, b.rows, b.cols, b.cols}, beta,
                     ml::detail::block<Real>{c.data, c.rows, c.cols, c.cols});
  }

  // The logistic function without a branch, so the gate loop vectorises; for
  // x -> -inf, exp(-x) overflows to +inf and the result is exactly 0, not NaN.
  static Real logistic(Real x) noexcept { return Real(1) / (Real(1) + std::exp(-x)); }

  // tanh through one exponential: glibc's tanh (by expm1) costs several times
  // exp, and was a quarter of the whole gradient's time. The absolute error
  // stays within a few units in the last place of 1 (the relative error near
  // 0 is larger, which no LSTM quantity needs); for |x| large the exponential
  // saturates to 0 or +inf and the result to exactly -1 or 1.
  static Real tanh_by_exp(Real x) noexcept {
    return Real(1) - Real(2) / (std::exp(Real(2) * x) + Real(1));
  }

  // ---- forward ----------------------------------------------------------------------

  // Reads sequences at(first + j), j < n, of x into s (len, ok, labels, x),
  // with their labels from labels(data index), or none (std::nullptr_t:
  // every labelled path below checks the batch first).
  //
  // A sequence is readable (ok) when it has 1 to max_frames frames of
  // input_dim features and, with labels, labels that fit (one in [0, K);
  // for frames, one per frame, each frame read labelled in [0, K));
  // otherwise it is read as one zero frame with the stand-in label, and the
  // per-example paths zero its row. Non-finite features are read as 0.
  //
  // cap > 0 (gradient_frames): every sequence takes exactly cap steps
  // whatever its length, min(T_i, cap) frames read through a clamped row
  // index and the rest masked to 0, its validity, length and labels chosen
  // by masks, so the block's work and the addresses it writes depend on n,
  // cap, D and K only (the addresses it reads follow where each sequence is
  // stored, and a frame's label). cap = 0: the block runs to its longest
  // sequence.
  template <class Labels>
  void load(block_state& s, const std::vector<xt::xtensor<Real, 2>>& x, selection at,
            std::size_t first, std::size_t n, head kind, std::size_t cap,
            const Labels& labels) const {
    namespace ct = privet::detail;
    const std::size_t d = d_;
    const label_ref stand_in{&stand_in_label, 1};
    const auto pick = [](std::uint64_t ok, const label_ref& a, const label_ref& b) {
      const std::uint64_t m = ct::ct_mask(ok);
      return label_ref{
          reinterpret_cast<const int*>(ct::ct_select(m, reinterpret_cast<std::uintptr_t>(a.data),
                                                     reinterpret_cast<std::uintptr_t>(b.data))),
          ct::ct_select(m, a.size, b.size)};
    };
    const std::vector<Real> zero_frame(d, Real(0));
    std::vector<const Real*> src(n);
    s.n = n;
    s.padded = cap > 0;
    s.len.assign(n, 1);
    s.ok.assign(n, 0);
    s.labels.assign(n, stand_in);
    for (std::size_t j = 0; j < n; ++j) {
      const std::size_t i = at(first + j);
      const auto& xj = x[i];
      const std::uint64_t t = xj.shape(0);
      std::uint64_t ok = ct::ct_lt(0, t) & ct::ct_lt(t, std::uint64_t{max_frames} + 1) &
                         ct::ct_is_zero(xj.shape(1) ^ d);
      std::uint64_t len = s.padded ? ct::ct_min(t, cap) : t;
      label_ref lab = stand_in;
      if constexpr (!std::is_same_v<Labels, std::nullptr_t>) {
        const label_ref given = labels(i);
        ok &= kind == head::frames ? ct::ct_is_zero(given.size ^ t) : label_fits(*given.data);
        lab = pick(ok, given, stand_in);
        len = ct::ct_select(ct::ct_mask(ok), len, 1);
        if (kind == head::frames) {
          // Each frame read must have a label in [0, K): a scan of the
          // same length for every sequence when padded.
          std::uint64_t bad = 0;
          const std::uint64_t scan = s.padded ? cap : len;
          for (std::uint64_t u = 0; u < scan; ++u) {
            bad |= ct::ct_lt(u, len) & (label_fits(lab.data[ct::ct_min(u, len - 1)]) ^ 1);
          }
          ok &= bad ^ 1;
          lab = pick(ok, lab, stand_in);
        }
      }
      len = ct::ct_select(ct::ct_mask(ok), len, 1);
      s.len[j] = len;
      s.ok[j] = static_cast<std::uint8_t>(ok);
      s.labels[j] = lab;
      src[j] = reinterpret_cast<const Real*>(
          ct::ct_select(ct::ct_mask(ok), reinterpret_cast<std::uintptr_t>(xj.data()),
                        reinterpret_cast<std::uintptr_t>(zero_frame.data())));
      if (!s.padded) s.steps = std::max(s.steps, s.len[j]);
    }
    if (s.padded) s.steps = cap;
    const std::size_t rows = s.rows = s.steps + 1;
    s.x = zeros(n * rows * d);
    for (std::size_t j = 0; j < n; ++j) {
      const std::uint64_t len = s.len[j];
      const std::size_t scan = s.padded ? s.steps : s.len[j];
      for (std::uint64_t u = 0; u < scan; ++u) {
        const Real* in = src[j] + ct::ct_min(u, len - 1) * d;
        Real* out = s.x.data() + (j * rows + u) * d;
        const std::uint64_t keep = ct::ct_lt(u, len);
        for (std::size_t q = 0; q < d; ++q) out[q] = ct::ct_keep_finite(in[q], keep);
      }
    }
  }

  template <class Labels>
  block_state forward(const std::vector<xt::xtensor<Real, 2>>& x, selection at, std::size_t first,
                      std::size_t n, head kind, std::size_t cap, const Labels& labels) const {
    namespace ct = privet::detail;
    const std::size_t d = d_, h = h_, g4 = 4 * h_, k = k_;
    block_state s;
    load(s, x, at, first, n, kind, cap, labels);
    const std::size_t rows = s.rows;
    s.gates = zeros(n * rows * g4);
    s.h = zeros(n * rows * h);
    s.c = zeros(n * rows * h);
    s.tanh_c = zeros(n * rows * h);
    // The input projection of every frame at once: gates = x W^T.
    gemm(cmat{s.x.data(), n * rows, d}, op::none, param_matrix(w_), op::transpose,
         mat{s.gates.data(), n * rows, g4}, Real(0));

    // Step buffers: the recurrent product needs h_{t-1} of the block as one
    // contiguous n x H matrix.
    xt::xtensor<Real, 1> step_h = zeros(n * h), step_z = zeros(n * g4);
    const Real* bias = param(b_);
    for (std::size_t t = 0; t < s.steps; ++t) {
      if (t > 0) {
        gemm(cmat{step_h.data(), n, h}, op::none, param_matrix(u_), op::transpose,
             mat{step_z.data(), n, g4}, Real(0));
      }
      for (std::size_t j = 0; j < n; ++j) {
        // Padded, a sequence's steps past its length run on zero frames:
        // what they compute is never read (the heads below mask them, and
        // their gradient is exactly 0 backward).
        if (!s.padded && t >= s.len[j]) continue;
        Real* a = s.gates.data() + (j * rows + t) * g4;
        const Real* rec = step_z.data() + j * g4;  // zero at t = 0
        const Real* c_prev = s.c.data() + (j * rows + t) * h;
        Real* c_next = s.c.data() + (j * rows + t + 1) * h;
        Real* h_next = s.h.data() + (j * rows + t + 1) * h;
        Real* tc = s.tanh_c.data() + (j * rows + t) * h;
        Real* hs = step_h.data() + j * h;
        for (std::size_t q = 0; q < h; ++q) {
          const Real i = logistic(a[q] + rec[q] + bias[q]);
          const Real f = logistic(a[h + q] + rec[h + q] + bias[h + q]);
          const Real g = tanh_by_exp(a[2 * h + q] + rec[2 * h + q] + bias[2 * h + q]);
          const Real o = logistic(a[3 * h + q] + rec[3 * h + q] + bias[3 * h + q]);
          a[q] = i;
          a[h + q] = f;
          a[2 * h + q] = g;
          a[3 * h + q] = o;
          const Real cn = f * c_prev[q] + i * g;
          c_next[q] = cn;
          tc[q] = tanh_by_exp(cn);
          h_next[q] = hs[q] = o * tc[q];
        }
      }
    }

    if (kind == head::frames) {
      // Logits of every row of h; row (j, t + 1) belongs to frame t, the
      // others are never read.
      s.logits = zeros(n * rows * k);
      gemm(cmat{s.h.data(), n * rows, h}, op::none, param_matrix(v_), op::transpose,
           mat{s.logits.data(), n * rows, k}, Real(0));
      add_output_bias(s.logits.data(), n * rows);
    } else {
      s.pooled = zeros(n * h);
      // r = h at the last frame, or the sum of h over the frames over
      // their count, reading every row by masks (h is finite: bounded by
      // tanh); the terms masked out add +0, so the sum is the same as over
      // the frames alone.
      for (std::size_t j = 0; j < n; ++j) {
        Real* r = s.pooled.data() + j * h;
        const std::uint64_t len = s.len[j];
        for (std::uint64_t t = 1; t <= s.steps; ++t) {
          const std::uint64_t take =
              kind == head::last ? ct::ct_is_zero(t ^ len) : ct::ct_lt(t, len + 1);
          const Real* ht = s.h.data() + (j * rows + t) * h;
          const std::uint64_t mask = ct::ct_mask(take);
          for (std::size_t q = 0; q < h; ++q) r[q] += ct::ct_and(ht[q], mask);
        }
        if (kind == head::mean) {
          const Real inv = Real(1) / static_cast<Real>(len);
          for (std::size_t q = 0; q < h; ++q) r[q] *= inv;
        }
      }
      s.logits = zeros(n * k);
      gemm(cmat{s.pooled.data(), n, h}, op::none, param_matrix(v_), op::transpose,
           mat{s.logits.data(), n, k}, Real(0));
      add_output_bias(s.logits.data(), n);
    }
    return s;
  }

  void add_output_bias(Real* logits, std::size_t count) const {
    const Real* c = param(c_);
    for (std::size_t r = 0; r < count; ++r)
      for (std::size_t q = 0; q < k_; ++q) logits[r * k_ + q] += c[q];
  }

  // -log softmax(z)[y], and when grad is given, softmax(z) - onehot(y) scaled by
  // `scale` into grad (log-sum-exp shifted by the maximum, as ml/softmax.hpp).
  // The label is read by masks over all K classes, never as an address.
  Real cross_entropy(const Real* z, int y, Real* grad, Real scale) const {
    namespace ct = privet::detail;
    Real m = z[0];
    for (std::size_t q = 1; q < k_; ++q) m = std::max(m, z[q]);
    Real sum = 0;
    for (std::size_t q = 0; q < k_; ++q) sum += std::exp(z[q] - m);
    const auto label = static_cast<std::uint64_t>(y);
    Real zy = 0;
    for (std::size_t q = 0; q < k_; ++q) zy += ct::ct_keep(z[q], ct::ct_is_zero(q ^ label));
    if (grad != nullptr) {
      for (std::size_t q = 0; q < k_; ++q) {
        grad[q] = scale * std::exp(z[q] - m) / sum - ct::ct_keep(scale, ct::ct_is_zero(q ^ label));
      }
    }
    return std::log(sum) - (zy - m);
  }

  Real sequence_loss(const block_state& s, std::size_t j, int y) const {
    return cross_entropy(s.logits.data() + j * k_, y, nullptr, Real(0));
  }

  Real frame_loss(const block_state& s, std::size_t j, const std::vector<int>& y) const {
    Real total = 0;
    for (std::size_t t = 0; t < s.len[j]; ++t) {
      total += cross_entropy(s.logits.data() + (j * s.rows + t + 1) * k_, y[t], nullptr, Real(0));
    }
    return total / static_cast<Real>(s.len[j]);
  }

  // ---- backward ------------------------------------------------------------------------

  // Fills s.dlogits and overwrites s.gates with dL/dz (zero on padded rows),
  // for the loss of each sequence of the block, with the labels load() read.
  // Padded (s.padded), every step of every sequence runs, a frame's share
  // of the head's gradient masked by whether it was read: the steps past a
  // sequence's length receive exactly 0 (0 from the head, and 0 times the
  // finite activations from the step after), so the rows it read get the
  // same values as unpadded.
  void backward(block_state& s, head kind) const {
    namespace ct = privet::detail;
    const std::size_t h = h_, g4 = 4 * h_, k = k_, n = s.n, rows = s.rows;
    // Gradient reaching the hidden states from the head: dr (n x H) for a
    // sequence head, or one row per h row for frames.
    xt::xtensor<Real, 1> dhead;
    s.dlogits = zeros(s.logits.size());
    if (kind == head::frames) {
      for (std::size_t j = 0; j < n; ++j) {
        const label_ref y = s.labels[j];
        const std::uint64_t len = s.len[j];
        const Real scale = Real(1) / static_cast<Real>(len);
        const std::size_t scan = s.padded ? s.steps : s.len[j];
        for (std::uint64_t t = 0; t < scan; ++t) {
          const std::size_t r = (j * rows + t + 1) * k;
          cross_entropy(s.logits.data() + r, y.data[ct::ct_min(t, len - 1)], s.dlogits.data() + r,
                        ct::ct_keep(scale, ct::ct_lt(t, len)));
        }
      }
      dhead = zeros(n * rows * h);
      gemm(cmat{s.dlogits.data(), n * rows, k}, op::none, param_matrix(v_), op::none,
           mat{dhead.data(), n * rows, h}, Real(0));
    } else {
      for (std::size_t j = 0; j < n; ++j) {
        cross_entropy(s.logits.data() + j * k, *s.labels[j].data, s.dlogits.data() + j * k,
                      Real(1));
      }
      dhead = zeros(n * h);
      gemm(cmat{s.dlogits.data(), n, k}, op::none, param_matrix(v_), op::none,
           mat{dhead.data(), n, h}, Real(0));
      if (kind == head::mean) {
        for (std::size_t j = 0; j < n; ++j) {
          const Real inv = Real(1) / static_cast<Real>(s.len[j]);
          for (std::size_t q = 0; q < h; ++q) dhead(j * h + q) *= inv;
        }
      }
    }

    // dh_rec = U^T dz_{t+1} and dc_next = dc_{t+1} * f_{t+1}, one row per sequence.
    xt::xtensor<Real, 1> dh_rec = zeros(n * h), dc_next = zeros(n * h), step_dz = zeros(n * g4);
    for (std::size_t t = s.steps; t-- > 0;) {
      for (std::size_t j = 0; j < n; ++j) {
        Real* a = s.gates.data() + (j * rows + t) * g4;
        Real* dz_step = step_dz.data() + j * g4;
        if (!s.padded && t >= s.len[j]) {
          // Masked: no gradient, and nothing flows into the sequence's last
          // real step from here (dh_rec and dc_next stay zero).
          std::fill(a, a + g4, Real(0));
          std::fill(dz_step, dz_step + g4, Real(0));
          continue;
        }
        // The head's gradient reaches h_t for every frame (frames: its own
        // row, zero past the length), every frame read (mean) or the last
        // (last), selected by a mask.
        const std::uint64_t len = s.len[j];
        const Real* from_head =
            kind == head::frames ? dhead.data() + (j * rows + t + 1) * h : dhead.data() + j * h;
        const std::uint64_t take = kind == head::frames ? 1
                                   : kind == head::mean ? ct::ct_lt(t, len)
                                                        : ct::ct_is_zero((t + 1) ^ len);
        const Real* rec = dh_rec.data() + j * h;
        Real* dcn = dc_next.data() + j * h;
        const Real* c_prev = s.c.data() + (j * rows + t) * h;
        const Real* tc = s.tanh_c.data() + (j * rows + t) * h;
        const std::uint64_t take_mask = ct::ct_mask(take);
        for (std::size_t q = 0; q < h; ++q) {
          const Real i = a[q], f = a[h + q], g = a[2 * h + q], o = a[3 * h + q];
          const Real dh = rec[q] + ct::ct_and(from_head[q], take_mask);
          const Real dc = dh * o * (Real(1) - tc[q] * tc[q]) + dcn[q];
          dcn[q] = dc * f;
          const Real dzi = dc * g * i * (Real(1) - i);
          const Real dzf = dc * c_prev[q] * f * (Real(1) - f);
          const Real dzg = dc * i * (Real(1) - g * g);
          const Real dzo = dh * tc[q] * o * (Real(1) - o);
          a[q] = dz_step[q] = dzi;
          a[h + q] = dz_step[h + q] = dzf;
          a[2 * h + q] = dz_step[2 * h + q] = dzg;
          a[3 * h + q] = dz_step[3 * h + q] = dzo;
        }
      }
      if (t > 0) {
        gemm(cmat{step_dz.data(), n, g4}, op::none, param_matrix(u_), op::none,
             mat{dh_rec.data(), n, h}, Real(0));
      }
    }
    // The extra row of every sequence (t = steps) never held a real step.
    for (std::size_t j = 0; j < n; ++j) {
      Real* a = s.gates.data() + (j * rows + s.steps) * g4;
      std::fill(a, a + g4, Real(0));
    }
  }

  // One sequence's gradient, from its own rows of the block, into out (P values).
  // Padded, every sequence's products run over all its steps (the rows past
  // its length are zero in dz and in the frames' dlogits).
  void write_example_gradient(const block_state& s, std::size_t j, head kind, Real* out) const {
    const std::size_t d = d_, h = h_, g4 = 4 * h_, k = k_, rows = s.rows;
    const std::size_t len = s.padded ? s.steps : s.len[j];
    const cmat dz{s.gates.data() + j * rows * g4, len, g4};
    gemm(dz, op::transpose, cmat{s.x.data() + j * rows * d, len, d}, op::none,
         mat{out + w_.offset, g4, d}, Real(0));
    gemm(dz, op::transpose, cmat{s.h.data() + j * rows * h, len, h}, op::none,
         mat{out + u_.offset, g4, h}, Real(0));
    Real* db = out + b_.offset;
    std::fill(db, db + g4, Real(0));
    for (std::size_t t = 0; t < len; ++t) {
      const Real* row = dz.data + t * g4;
      for (std::size_t q = 0; q < g4; ++q) db[q] += row[q];
    }
    Real* dv = out + v_.offset;
    Real* dc = out + c_.offset;
    if (kind == head::frames) {
      const cmat dl{s.dlogits.data() + (j * rows + 1) * k, len, k};
      gemm(dl, op::transpose, cmat{s.h.data() + (j * rows + 1) * h, len, h}, op::none,
           mat{dv, k, h}, Real(0));
      std::fill(dc, dc + k, Real(0));
      for (std::size_t t = 0; t < len; ++t)
        for (std::size_t q = 0; q < k; ++q) dc[q] += dl.data[t * k + q];
    } else {
      const Real* dl = s.dlogits.data() + j * k;
      const Real* r = s.pooled.data() + j * h;
      for (std::size_t q = 0; q < k; ++q)
        for (std::size_t p = 0; p < h; ++p) dv[q * h + p] = dl[q] * r[p];
      std::copy(dl, dl + k, dc);
    }
  }

  // The block's summed gradient added into acc (P values): each block one
  // product over all its rows (padded rows of dz are zero).
  void add_block_gradient(const block_state& s, head kind, Real* acc) const {
    const std::size_t d = d_, h = h_, g4 = 4 * h_, k = k_, all = s.n * s.rows;
    const cmat dz{s.gates.data(), all, g4};
    gemm(dz, op::transpose, cmat{s.x.data(), all, d}, op::none, mat{acc + w_.offset, g4, d},
         Real(1));
    gemm(dz, op::transpose, cmat{s.h.data(), all, h}, op::none, mat{acc + u_.offset, g4, h},
         Real(1));
    Real* db = acc + b_.offset;
    for (std::size_t r = 0; r < all; ++r) {
      const Real* row = dz.data + r * g4;
      for (std::size_t q = 0; q < g4; ++q) db[q] += row[q];
    }
    const bool frames = kind == head::frames;
    const std::size_t logit_rows = frames ? all : s.n;
    const cmat dl{s.dlogits.data(), logit_rows, k};
    const cmat r = frames ? cmat{s.h.data(), all, h} : cmat{s.pooled.data(), s.n, h};
    gemm(dl, op::transpose, r, op::none, mat{acc + v_.offset, k, h}, Real(1));
    Real* dc = acc + c_.offset;
    for (std::size_t i = 0; i < logit_rows; ++i)
      for (std::size_t q = 0; q < k; ++q) dc[q] += dl.data[i * k + q];
  }

  template <class Labels>
  xt::xtensor<Real, 2> per_example(const std::vector<xt::xtensor<Real, 2>>& x, selection at,
                                   std::size_t count, head kind, const Labels& labels) const {
    const std::size_t p = parameter_count();
    // Every entry of every row is written, so the output starts uninitialised.
    xt::xtensor<Real, 2> out = xt::xtensor<Real, 2>::from_shape({count, p});
    for_each_block(count, [&](std::size_t first, std::size_t n) {
      block_state s = forward(x, at, first, n, kind, options_.gradient_frames, labels);
      backward(s, kind);
      for (std::size_t j = 0; j < n; ++j) {
        Real* row = out.data() + (first + j) * p;
        write_example_gradient(s, j, kind, row);
        // An unreadable sequence's row is zero, by a mask.
        const std::uint64_t mask = privet::detail::ct_mask(s.ok[j]);
        for (std::size_t i = 0; i < p; ++i) row[i] = privet::detail::ct_and(row[i], mask);
      }
    });
    return out;
  }

  // DP-SGD's per-example gradients of the sequences at(i), i < count.
  template <class B>
  xt::xtensor<Real, 2> gradients_at(const B& batch, selection at) const {
    privet::ml::detail::check_label_count(batch.y.size(), batch.x.size(), "y.size()");
    const std::size_t count = at.all ? batch.size() : at.rows.size();
    for (std::size_t i = 0; !at.all && i < count; ++i) {
      privet::ml::detail::check_index(at.rows[i], batch.size(), "rows");
    }
    if constexpr (std::is_same_v<B, frame_sequence_batch<Real>>) {
      return per_example(batch.x, at, count, head::frames, frame_labels(batch));
    } else {
      return per_example(batch.x, at, count, head_kind(), sequence_labels(batch));
    }
  }

  template <class Labels>
  xt::xtensor<Real, 1> mean(const std::vector<xt::xtensor<Real, 2>>& x, head kind,
                            const Labels& labels) const {
    if (x.empty()) throw_empty("batch");
    const std::size_t p = parameter_count();
    const std::size_t blocks = (x.size() + examples_per_task - 1) / examples_per_task;
    // One partial sum per block, added in block order: the result does not
    // depend on how many threads ran.
    xt::xtensor<Real, 2> partial = xt::zeros<Real>({blocks, p});
    for_each_block(x.size(), [&](std::size_t first, std::size_t n) {
      block_state s = forward(x, all_rows, first, n, kind, 0, labels);
      backward(s, kind);
      add_block_gradient(s, kind, partial.data() + (first / examples_per_task) * p);
    });
    xt::xtensor<Real, 1> out = zeros(p);
    for (std::size_t blk = 0; blk < blocks; ++blk) {
      const Real* row = partial.data() + blk * p;
      for (std::size_t i = 0; i < p; ++i) out(i) += row[i];
    }
    out /= static_cast<Real>(x.size());
    return out;
  }

  lstm_options options_;
  std::size_t d_ = 0, h_ = 0, k_ = 0;
  parameter_block w_{}, u_{}, b_{}, v_{}, c_{};
  xt::xtensor<Real, 1> params_;
};

/// The LSTM trained on a label per frame (senones): lstm_classifier with
/// frame_sequence_batch as the batch type DP-SGD and the federations use.
template <real_number Real>
using frame_lstm_classifier = lstm_classifier<Real, frame_sequence_batch<Real>>;

}  // namespace privet::ml
