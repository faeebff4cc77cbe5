// privet/ml/clipping.hpp — per-example L2 clipping, DP-SGD's sensitivity
// bound (Abadi et al. 2016, Algorithm 1: g_i / max(1, |g_i|_2 / C)), on a
// matrix of per-example gradients (`clip_each_row`) and as an optional model
// capability (`clipped_sum_model`): a model that knows each example's
// gradient norm from its factors can return the sum of the clipped gradients
// without forming the B x P matrix.
//
// Why the capability: for a dense layer the gradient of example i is the
// outer product delta_i a_i^T, whose norm is |delta_i| |a_i|, so the clipped
// sum is sum_i s_i delta_i a_i^T (Goodfellow 2015, arXiv:1510.01799, the norm
// trick behind "ghost clipping", Li et al. 2022): no B x P matrix is stored.
//
// Data never makes clipping throw (docs/data_rule.md). A per-example gradient
// whose norm, computed in double, is not finite (a NaN or infinite
// coordinate: non-finite features, or arithmetic that overflowed; or a norm
// beyond the double range) counts as the zero vector. (The models' factor
// paths compute the squared norm, so there a norm beyond about 1e154
// counts as not finite too.) That is a record-wise map
// (it looks at one example's gradient and the public parameters only), and
// its image has norm 0 <= C, so the sensitivity is unchanged.
//
// Rounding of each row: a norm computed in floating point can be below the
// true one by about p/2 units in the last place for p squared terms; every
// clipping factor here includes the margin 1 - (p + 8) eps, and rows are
// clipped as soon as their computed norm exceeds C (1 - margin), so no
// clipped row is longer than C however the norm was rounded.
//
// Rounding of the sum: a floating-point sum of clipped rows depends on their
// order and rounds at every step, so neighbouring sums can differ by more
// than C (Casacuberta, Shoemate, Vadhan & Wagaman 2022, "Widespread
// underestimation of sensitivity in differentially private libraries";
// issue 22 showed 17% for float). The rows are therefore summed exactly
// (`detail::exact_gradient_sum`): each entry is rounded to the grid
// G = 2^(ilogb(C) - 49) <= C 2^-49 (a record-wise map that moves a row by at
// most sqrt(P) G in L2), the grid integers are added exactly (int64 blocks
// flushed into 128 bits), and the total is rounded once to double.
// `clipped_gradient_sum_sensitivity` bounds the distance between two
// neighbouring outputs with both roundings; DP-SGD calibrates its noise and
// its accounting to that bound, not to C alone.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/ct_word.hpp>
#include <privet/core/detail/fixed_point_sum.hpp>
#include <privet/core/detail/int128.hpp>
#include <privet/core/detail/rounding.hpp>
#include <privet/core/validate.hpp>
#include <privet/ml/model.hpp>

#include <xtensor/xtensor.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>
#include <vector>

namespace privet::ml {

/// The factor an example's gradient is multiplied by: 1 if its computed norm
/// is within clip_norm (with the rounding margin for `terms` squared terms),
/// else slightly less than clip_norm / norm; 0 for a norm that is not finite
/// (the example then counts as the zero vector: callers must set it to 0,
/// not multiply, as 0 times a NaN or infinite coordinate is NaN). Never
/// throws. Computed without a branch on the norm (both factors formed, one
/// picked by masks), so whether an example is clipped does not show in the
/// time.
inline double clip_factor(double norm, double clip_norm, std::size_t terms) noexcept {
  namespace ct = privet::detail;
  const double margin = static_cast<double>(terms + 8) * std::numeric_limits<double>::epsilon();
  // A zero or non-finite norm makes `shrink` inf or NaN; it is then not picked.
  const double shrink = clip_norm / norm * (1 - margin);
  const auto over = static_cast<std::uint64_t>(norm > clip_norm * (1 - margin));
  return ct::ct_pick(ct::ct_is_finite(norm), ct::ct_pick(over, shrink, 1.0), 0.0);
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

// The L2 norm of x, without overflow in the squares: max |x_j| times the
// norm of x / max |x_j| (whose squares are at most 1). Not finite when an
// entry is not, or the norm exceeds the double range. Any order's error
// is within clip_factor's margin, as for sum_of_squares.
template <real_number Real>
double scaled_norm(const Real* x, std::size_t p) noexcept {
  double top = 0;
  for (std::size_t j = 0; j < p; ++j) {
    const double a = std::fabs(static_cast<double>(x[j]));
    if (!(a <= top)) top = a;  // a NaN entry makes top NaN
    if (std::isnan(top)) return top;
  }
  if (top == 0 || !std::isfinite(top)) return top;
  double s = 0;
  for (std::size_t j = 0; j < p; ++j) {
    const double z = static_cast<double>(x[j]) / top;
    s += z * z;
  }
  return top * std::sqrt(s);
}

// A factor s in Real with s (1 + eps/2) < scale, so that every product
// s x_j rounded to nearest in Real is at most scale |x_j| in magnitude
// (while the product is a normal number): scale (1 - 2 eps), rounded
// toward zero into Real.
// For float and double (scale in [0, 1], so s >= +0) the step toward zero
// is the bit pattern minus 0 or 1 (never below +0): no branch on the scale.
template <real_number Real>
Real shrunk_factor(double scale) noexcept {
  const double eps = static_cast<double>(std::numeric_limits<Real>::epsilon());
  const double t = scale * (1 - 2 * eps);
  auto s = static_cast<Real>(t);
  const auto up = static_cast<std::uint64_t>(static_cast<double>(s) >= t);
  if constexpr (std::is_same_v<Real, double> || std::is_same_v<Real, float>) {
    using word = std::conditional_t<std::is_same_v<Real, double>, std::uint64_t, std::uint32_t>;
    const auto bits = std::bit_cast<word>(s);
    return std::bit_cast<Real>(
        static_cast<word>(bits - static_cast<word>(up & (1 ^ privet::detail::ct_is_zero(bits)))));
  } else {
    if (up != 0) s = std::nextafter(s, Real(0));
    return s;
  }
}

// v rounded toward zero into Real (so that it never grows): for float and
// double the step toward zero is the bit pattern minus the comparison's 0
// or 1, arithmetic with no branch on v (and no mask, so loops vectorise).
template <real_number Real>
Real round_toward_zero(double v) noexcept {
  auto r = static_cast<Real>(v);
  const bool over = std::abs(static_cast<double>(r)) > std::abs(v);
  if constexpr (std::is_same_v<Real, double> || std::is_same_v<Real, float>) {
    using word = std::conditional_t<std::is_same_v<Real, double>, std::uint64_t, std::uint32_t>;
    // r != 0 whenever over (|r| > |v| >= 0), so the decrement steps its
    // magnitude down by one unit, for either sign.
    return std::bit_cast<Real>(static_cast<word>(std::bit_cast<word>(r) - static_cast<word>(over)));
  } else {
    return over ? std::nextafter(r, Real(0)) : r;
  }
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

namespace detail {

// Clips one row of p entries to L2 norm clip_norm in place (clip_each_row's
// rules); true when it was scaled down or zeroed.
template <real_number Real>
bool clip_row(Real* row, std::size_t p, double clip_norm, bool fast) {
  double norm = std::sqrt(sum_of_squares(row, p));
  if (!std::isfinite(norm)) norm = scaled_norm(row, p);  // overflow in the squares
  const double scale = clip_factor(norm, clip_norm, p);
  const auto changed = static_cast<std::uint64_t>(scale != 1.0);
  if (fast) {
    // The same pass over every row, clipped or not: times exactly 1 when
    // within the norm, times the shrunk factor when above, masked to +0
    // when the norm is not finite. Whether a row is clipped does not show
    // in the time.
    const Real s = privet::detail::ct_pick(changed, shrunk_factor<Real>(scale), Real(1));
    const std::uint64_t mask = privet::detail::ct_mask(static_cast<std::uint64_t>(scale != 0.0));
    for (std::size_t j = 0; j < p; ++j) row[j] = privet::detail::ct_and(row[j] * s, mask);
    return changed != 0;
  }
  // Clip norms so small that the products are subnormal (below about
  // 1e-290): each product in double, rounded toward zero, with branches.
  if (scale == 1.0) return false;
  if (scale == 0.0) {
    std::fill(row, row + p, Real(0));
    return true;
  }
  for (std::size_t j = 0; j < p; ++j) {
    // Rounded toward zero when stored in Real, so the row never grows.
    const double v = scale * static_cast<double>(row[j]);
    auto r = static_cast<Real>(v);
    if (std::abs(static_cast<double>(r)) > std::abs(v)) r = std::nextafter(r, Real(0));
    row[j] = r;
  }
  return true;
}

}  // namespace detail

/// Scales every row of g (one example's gradient) whose L2 norm exceeds
/// clip_norm down to norm clip_norm, in place, and returns how many rows it
/// scaled; +inf clips nothing. A row whose computed norm is not finite is set
/// to zero (and counted as scaled). Throws invalid_parameter for
/// clip_norm <= 0 or NaN; never because of the rows.
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
  for (std::size_t i = 0; i < rows; ++i)
    clipped += detail::clip_row(g.data() + i * p, p, clip_norm, fast);
  return clipped;
}

/// The sum over a batch of the clipped per-example gradients.
struct clipped_sum {
  std::vector<double> sum;  ///< P entries
  std::size_t clipped = 0;  ///< examples whose gradient was scaled down (or zeroed)
};

namespace detail {

/// The exact sum of rows whose entries are at most C in magnitude (clipped
/// gradients), rounded once to double; see the file comment. Each entry v
/// becomes the integer k nearest v / G for the grid G = 2^(ilogb(C) - 49):
/// |v| <= C < 2^50 G, so |k| <= 2^50 (2^51 leaves room for rounding), and
/// 2^11 rows add up in 64 bits before the block is flushed into 128 bits. For C = +inf (no
/// clipping, no privacy claim) entries are summed in double.
class exact_gradient_sum {
 public:
  static constexpr int grid_bits = 50;  // |k| <= 2^50 for |v| <= C, 2^51 for |v| <= 2C
  static constexpr std::size_t rows_per_block = std::size_t{1} << 11;  // 2^11 2^51 = 2^62

  exact_gradient_sum(std::size_t p, double clip_norm) : exact_(std::isfinite(clip_norm)) {
    if (!exact_) {
      plain_.assign(p, 0.0);
      return;
    }
    exponent_ = std::ilogb(clip_norm) + 1 - grid_bits;
    // v / G = v 2^-exponent_ in two exact power-of-two products (2^-exponent_
    // alone may exceed the double range when C is subnormal).
    const int first = std::min(-exponent_, 1023);
    scale_hi_ = std::ldexp(1.0, first);
    scale_lo_ = std::ldexp(1.0, -exponent_ - first);
    block_.assign(p, 0);  // total_ waits for the first flush: most batches never need it
  }

  /// Adds entry j of the current row; end_row() closes the row.
  void add(std::size_t j, double v) noexcept {
    if (!exact_) {
      plain_[j] += v;
      return;
    }
    block_[j] += units(v);
  }

  void end_row() {
    if (exact_ && ++rows_ == rows_per_block) flush();
  }

  /// Adds factor * x[c] to entry offset + c of the current row, for c < len;
  /// with keep = 0, adds exactly 0 (by a mask on each product, so that a
  /// left-out example with non-finite entries does the same work and adds
  /// nothing, where 0 times its entries would be NaN).
  template <real_number Real>
  void add_scaled(std::size_t offset, double factor, const Real* x, std::size_t len,
                  std::uint64_t keep = 1) noexcept {
    namespace ct = privet::detail;
    const std::uint64_t mask = ct::ct_mask(keep);  // built once: the loop vectorises
    if (!exact_) {
      for (std::size_t c = 0; c < len; ++c)
        plain_[offset + c] += ct::ct_and(factor * static_cast<double>(x[c]), mask);
      return;
    }
    std::uint64_t* b = block_.data() + offset;
    const double hi = scale_hi_, lo = scale_lo_;
    for (std::size_t c = 0; c < len; ++c)
      b[c] += units(ct::ct_and(factor * static_cast<double>(x[c]), mask), hi, lo);
  }

  /// Adds v to every entry listed in `entries` (a sparse binary row scaled
  /// by v): one grid integer, computed once.
  template <class Index>
  void add_to_each(std::span<const Index> entries, double v) noexcept {
    if (!exact_) {
      for (auto j : entries) plain_[j] += v;
      return;
    }
    const std::uint64_t k = units(v);
    for (auto j : entries) block_[j] += k;
  }

  /// For rows i < n, each one example: adds u[i out + o] x[i][c] to entry
  /// weights + o len + c and u[i out + o] to entry bias + o (a dense layer's
  /// gradient, the outer product of its delta and input plus its bias). The
  /// rows are closed by end_rows(n), and n must be at most rows_left().
  /// Entries are visited by tiles of outputs so that the tile's sums stay
  /// in cache while the examples stream past.
  /// With `keep` (n entries), row i adds exactly 0 where keep[i] = 0, with
  /// the same work (add_scaled's mask).
  template <real_number Real>
  void add_outer_products(std::size_t weights, std::size_t bias, const double* u, std::size_t out,
                          const Real* const* x, std::size_t len, std::size_t n,
                          const std::uint64_t* keep = nullptr) noexcept {
    constexpr std::size_t tile = 32;
    for (std::size_t o0 = 0; o0 < out; o0 += tile) {
      const std::size_t o1 = std::min(out, o0 + tile);
      for (std::size_t i = 0; i < n; ++i) {
        const Real* xi = x[i];
        const std::uint64_t k = keep == nullptr ? 1 : keep[i];
        for (std::size_t o = o0; o < o1; ++o) {
          const double f = u[i * out + o];
          add_scaled(weights + o * len, f, xi, len, k);
          add(bias + o, privet::detail::ct_keep(f, k));
        }
      }
    }
  }

  /// Rows that may still be added before the int64 block must be flushed.
  [[nodiscard]] std::size_t rows_left() const noexcept {
    return exact_ ? rows_per_block - rows_ : std::numeric_limits<std::size_t>::max();
  }

  /// Closes n rows added entry by entry (n <= rows_left()).
  void end_rows(std::size_t n) {
    if (!exact_) return;
    rows_ += n;
    if (rows_ >= rows_per_block) flush();
  }

  /// Adds a whole row of P entries.
  template <real_number Real>
  void add_row(const Real* row) {
    const std::size_t p = exact_ ? block_.size() : plain_.size();
    if (!exact_) {
      for (std::size_t j = 0; j < p; ++j) plain_[j] += static_cast<double>(row[j]);
      return;
    }
    std::uint64_t* b = block_.data();
    const double hi = scale_hi_, lo = scale_lo_;
    for (std::size_t j = 0; j < p; ++j) b[j] += units(static_cast<double>(row[j]), hi, lo);
    end_row();
  }

  /// The exact sum rounded once to double (saturated at the largest finite
  /// double, a 1-Lipschitz map).
  [[nodiscard]] std::vector<double> result() {
    if (!exact_) return plain_;
    if (!total_.empty()) flush();
    std::vector<double> out(block_.size());
    constexpr double top = std::numeric_limits<double>::max();
    // G as a double when it is one (C >= about 2^-1024): then t * G is the
    // exact product rounded once, like ldexp, at a fraction of its cost.
    const bool representable = exponent_ >= std::numeric_limits<double>::min_exponent - 53;
    const double grid = representable ? std::ldexp(1.0, exponent_) : 0.0;
    // Whether a block was flushed depends on the number of rows alone. A
    // block holds at most 2^11 2^51 = 2^62 units in magnitude: int64, which
    // the hardware converts rounding once. A flushed total is int128 and
    // converted by ct_round_to_double, which also rounds once, with the same
    // instructions whatever the sum (the runtime library's conversion
    // branches on its size, and the int64 shortcut on whether it fits).
    const bool wide = !total_.empty();
    for (std::size_t j = 0; j < out.size(); ++j) {
      const double d = wide ? privet::detail::ct_round_to_double(total_[j])
                            : static_cast<double>(static_cast<std::int64_t>(block_[j]));
      out[j] = std::clamp(representable ? d * grid : std::ldexp(d, exponent_), -top, top);
    }
    return out;
  }

 private:
  // The integer nearest v / G (in the current rounding mode: within 1 of
  // v / G in any mode), as a two's-complement uint64, for a finite v with
  // |v| <= 2C (every caller passes entries of rows already clipped to norm
  // C, and zeroes non-finite rows first), so |v / G| <= 2^51. Adding
  // 1.5 2^52 to a double of magnitude <= 2^51 rounds it to an integer
  // exactly, and that integer is the sum's bit pattern minus the constant's
  // (the doubles in [2^52, 2^53] are consecutive integers with consecutive
  // bit patterns): no libm call, no conversion and no branch, so the loops
  // vectorise. Unsigned arithmetic keeps even a violated precondition free of
  // undefined behaviour.
  static std::uint64_t units(double v, double hi, double lo) noexcept {
    constexpr double magic = 0x1.8p52;
    return std::bit_cast<std::uint64_t>(v * hi * lo + magic) - std::bit_cast<std::uint64_t>(magic);
  }
  std::uint64_t units(double v) const noexcept { return units(v, scale_hi_, scale_lo_); }

  void flush() {
    if (total_.empty()) total_.assign(block_.size(), 0);
    for (std::size_t j = 0; j < block_.size(); ++j) {
      total_[j] += static_cast<std::int64_t>(block_[j]);  // modular: the true partial sum
      block_[j] = 0;
    }
    rows_ = 0;
  }

  bool exact_;
  int exponent_ = 0;
  double scale_hi_ = 1, scale_lo_ = 1;
  std::size_t rows_ = 0;
  std::vector<std::uint64_t> block_;
  std::vector<privet::detail::int128> total_;
  std::vector<double> plain_;
};

}  // namespace detail

/// An upper bound on the L2 distance between the sums of clipped gradients
/// (as returned by clip_and_sum_rows, sum_of_clipped_gradients and the
/// models' clipped_gradient_sum) of two batches of at most `max_rows` rows
/// each, p entries per row, that differ in `changed` rows (1 when one row
/// is added or removed, 2 when one is replaced). Each exact row has norm
/// <= C and moves by at most sqrt(p) G <= sqrt(p) C 2^-49 on the grid, so
/// the exact sums differ by at most changed (C + sqrt(p) C 2^-49) and each
/// has norm at most R = max_rows (C + sqrt(p) C 2^-49). Rounding an int128
/// to double errs by less than 2^-52 of its magnitude in any rounding mode,
/// the power-of-two scaling is exact unless it underflows (an error below
/// denorm_min), and the saturation is 1-Lipschitz; so each output is within
/// 2^-52 R + sqrt(p) denorm_min of its exact sum. Every step rounds up.
/// For clip_norm = +inf: +inf.
inline double clipped_gradient_sum_sensitivity(double clip_norm, std::size_t p,
                                               std::uint64_t max_rows, unsigned changed) noexcept {
  using privet::detail::add_up;
  using privet::detail::mul_up;
  using privet::detail::sqrt_up;
  if (!std::isfinite(clip_norm)) return std::numeric_limits<double>::infinity();
  using privet::detail::to_double_up;
  const double root_p = sqrt_up(to_double_up(static_cast<std::uint64_t>(p)));
  const double row = add_up(clip_norm, mul_up(mul_up(root_p, clip_norm), 0x1p-49));
  const double rows = to_double_up(max_rows);
  const double final_rounding = add_up(mul_up(0x1p-52, mul_up(rows, row)),
                                       mul_up(root_p, std::numeric_limits<double>::denorm_min()));
  return add_up(mul_up(static_cast<double>(changed), row), mul_up(2, final_rounding));
}

/// Clips every row of g (B x P) to L2 norm clip_norm, then sums the rows
/// exactly (rounded once to double, see detail::exact_gradient_sum):
/// sum_i clip(g_i), with the count of rows clipped or zeroed.
template <real_number Real>
clipped_sum clip_and_sum_rows(xt::xtensor<Real, 2>& g, double clip_norm) {
  const std::size_t p = g.shape(1);
  clipped_sum out{{}, clip_each_row(g, clip_norm)};
  detail::exact_gradient_sum acc(p, clip_norm);
  for (std::size_t i = 0; i < g.shape(0); ++i) acc.add_row(g.data() + i * p);
  out.sum = acc.result();
  return out;
}

namespace detail {

// Throws invalid_parameter unless `counted` is empty or has one entry per row.
inline void check_counted(std::span<const std::uint8_t> counted, std::size_t rows) {
  if (!counted.empty() && counted.size() != rows) {
    throw_invalid(
        "counted.size()", counted.size(),
        "0 (every row counts) or the batch's rows = " + privet::detail::format_value(rows));
  }
}

}  // namespace detail

/// clip_and_sum_rows over the rows i with counted[i] != 0 only, doing the
/// same work for every row: each row is clipped as it would be, then
/// multiplied by 1 or 0 and summed, and `clipped` counts the counted rows
/// only. A padded batch (dpsgd's constant-time Poisson steps) thus takes
/// the same time whichever of its rows are padding. Empty `counted`: every
/// row counts. Throws invalid_parameter naming counted.size() otherwise
/// unless it equals g's rows.
template <real_number Real>
clipped_sum clip_and_sum_rows(xt::xtensor<Real, 2>& g, double clip_norm,
                              std::span<const std::uint8_t> counted) {
  if (counted.empty()) return clip_and_sum_rows(g, clip_norm);
  if (!(clip_norm > 0)) throw_invalid("clip_norm", clip_norm, "> 0 (or +inf)");
  const std::size_t rows = g.shape(0), p = g.shape(1);
  detail::check_counted(counted, rows);
  const bool fast = detail::products_are_safe<Real>(clip_norm, p);
  clipped_sum out{{}, 0};
  detail::exact_gradient_sum acc(p, clip_norm);
  for (std::size_t i = 0; i < rows; ++i) {
    Real* row = g.data() + i * p;
    const std::size_t c = counted[i] != 0;
    out.clipped += c & static_cast<std::size_t>(detail::clip_row(row, p, clip_norm, fast));
    const auto m = static_cast<Real>(c);
    for (std::size_t j = 0; j < p; ++j) row[j] *= m;
    acc.add_row(row);
  }
  out.sum = acc.result();
  return out;
}

/// A model that computes sum_i clip(g_i, C) directly, equal (up to rounding)
/// to clipping the rows of per_example_gradients and summing them.
template <class M, class Batch>
concept clipped_sum_model = differentiable_model_for<M, Batch> &&
    requires(const M& cm, const Batch& b, double clip_norm) {
  { cm.clipped_gradient_sum(b, clip_norm) } -> std::same_as<clipped_sum>;
};

/// A clipped_sum_model that also sums over the counted rows of a padded
/// batch with the same work for every row (the models' clipped_gradient_sum
/// with a `counted` mask).
template <class M, class Batch>
concept masked_clipped_sum_model = clipped_sum_model<M, Batch> &&
    requires(const M& cm, const Batch& b, double clip_norm, std::span<const std::uint8_t> counted) {
  { cm.clipped_gradient_sum(b, clip_norm, counted) } -> std::same_as<clipped_sum>;
};

/// A model whose per-example gradients of the examples at `rows` of a batch
/// read them where they are (`per_example_gradients(batch, rows)`), so that
/// a step needs no copy of the selected records, whose time would follow
/// their sizes (the LSTM's sequences).
template <class M, class Batch>
concept indexed_gradient_model = differentiable_model_for<M, Batch> &&
    requires(const M& cm, const Batch& b, std::span<const std::size_t> rows) {
  cm.per_example_gradients(b, rows);
};

/// A model whose clipped sum over the examples at `rows` of a batch reads
/// them where they are (`clipped_gradient_sum(batch, rows, C, counted)`:
/// sparse logistic regression).
template <class M, class Batch>
concept indexed_clipped_sum_model = differentiable_model_for<M, Batch> &&
    requires(const M& cm, const Batch& b, std::span<const std::size_t> rows, double clip_norm,
             std::span<const std::uint8_t> counted) {
  { cm.clipped_gradient_sum(b, rows, clip_norm, counted) } -> std::same_as<clipped_sum>;
};

namespace detail {

// Per-example gradients refused by name unless they have one row per
// example and one column per parameter (a model breaking its own contract,
// not data).
template <class G>
void check_gradient_shape(const G& g, std::size_t examples, std::size_t p) {
  if (g.shape(0) != examples) {
    throw_invalid("per-example gradients' rows", g.shape(0),
                  "one per example: == the batch size = " + privet::detail::format_value(examples));
  }
  if (g.shape(1) != p) {
    throw_invalid("per-example gradients' columns", g.shape(1),
                  "one per parameter: == parameter_count() = " + privet::detail::format_value(p));
  }
}

// The model's per-example gradients, their shape checked.
template <class M, class Batch>
auto checked_per_example_gradients(const M& model, const Batch& batch) {
  auto g = model.per_example_gradients(batch);
  check_gradient_shape(g, batch.size(), model.parameter_count());
  return g;
}

}  // namespace detail

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
    if (batch.size() == 0) return clipped_sum{std::vector<double>(model.parameter_count(), 0.0), 0};
    auto g = detail::checked_per_example_gradients(model, batch);
    return clip_and_sum_rows(g, clip_norm);
  }
}

/// sum_{i : counted[i] != 0} clip(g_i, C) over a padded batch, with the same
/// work for every row whichever rows count: the model's masked
/// clipped_gradient_sum when it has one, else its per-example gradients of
/// every row, clipped and masked by clip_and_sum_rows. Empty `counted`: the
/// three-argument form. Throws invalid_parameter as that does, and naming
/// counted.size() unless it is 0 or the batch size.
template <class M, class Batch>
requires differentiable_model_for<M, Batch> clipped_sum sum_of_clipped_gradients(
    const M& model, const Batch& batch, double clip_norm, std::span<const std::uint8_t> counted) {
  if (counted.empty()) return sum_of_clipped_gradients(model, batch, clip_norm);
  if (!(clip_norm > 0)) throw_invalid("clip_norm", clip_norm, "> 0 (or +inf)");
  detail::check_counted(counted, batch.size());
  if constexpr (masked_clipped_sum_model<M, Batch>) {
    return model.clipped_gradient_sum(batch, clip_norm, counted);
  } else {
    auto g = detail::checked_per_example_gradients(model, batch);
    return clip_and_sum_rows(g, clip_norm, counted);
  }
}

/// The four-argument form over the examples at `rows` of `data` (counted as
/// there, counted.size() 0 or rows.size()), reading them where they are
/// when the model can: its clipped_gradient_sum(data, rows, C, counted),
/// else its per_example_gradients(data, rows), else the four-argument form
/// on data.select(rows). Throws as that does, and naming the index for a
/// row >= data.size().
template <class M, class Batch>
requires differentiable_model_for<M, Batch> clipped_sum
sum_of_clipped_gradients(const M& model, const Batch& data, std::span<const std::size_t> rows,
                         double clip_norm, std::span<const std::uint8_t> counted = {}) {
  if constexpr (indexed_clipped_sum_model<M, Batch>) {
    return model.clipped_gradient_sum(data, rows, clip_norm, counted);
  } else if constexpr (indexed_gradient_model<M, Batch>) {
    if (!(clip_norm > 0)) throw_invalid("clip_norm", clip_norm, "> 0 (or +inf)");
    if (!counted.empty()) detail::check_counted(counted, rows.size());
    const std::size_t p = model.parameter_count();
    if (rows.empty()) return clipped_sum{std::vector<double>(p, 0.0), 0};
    auto g = model.per_example_gradients(data, rows);
    detail::check_gradient_shape(g, rows.size(), p);
    return counted.empty() ? clip_and_sum_rows(g, clip_norm)
                           : clip_and_sum_rows(g, clip_norm, counted);
  } else {
    return sum_of_clipped_gradients(model, data.select(rows), clip_norm, counted);
  }
}

}  // namespace privet::ml
