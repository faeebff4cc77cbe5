// privet/core/transformations/clipped_sum.hpp — the sum of vectors, each first
// scaled down to norm at most `clip` in the chosen norm (L1 or L2). The
// name says it clips: that is the bounding step of DP-SGD (Abadi et al.
// 2016) and of DPSU's weighting (Gopi et al. 2020). Adding or removing one
// row moves the sum by at most `clip` in that norm, plus one final rounding
// (`stability_margin`).
//
// Data never makes it throw (docs/data_rule.md); each row goes through a
// fixed record-wise map, which keeps stability 1:
// - a row longer than `dimension` is truncated to its first `dimension`
//   coordinates, a shorter one padded with zeros;
// - a NaN coordinate counts as 0; a row with infinite coordinates becomes the
//   vector of their signs (0 elsewhere), the limit of clipping as those
//   coordinates grow, and is then clipped like any other;
// - the clipped row is rounded to the grid clip * 2^-62 and its norm is
//   checked in exact integer arithmetic: a row whose rounded norm exceeded
//   clip would be halved until it does not, so the bound `clip` is proven
//   per row, not inferred from a floating-point error analysis. (A row that
//   fails the check is first retried 2^-40 below the clip norm, which
//   absorbs the rounding for any dimension below about 2^20, so rows are
//   halved only in far larger dimensions.)
// The grid integers are summed exactly in 128 bits, the exact sum of each
// coordinate saturates at +-max_records * clip and is rounded once
// (core/detail/fixed_point_sum.hpp): the result does not depend on the order
// of the rows, more rows than max_records are summed, not refused, and the
// stability map covers the rounding of the float or double output
// (Casacuberta et al. 2022, "Widespread underestimation of sensitivity in
// differentially private libraries").
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/fixed_point_sum.hpp>
#include <privet/core/detail/int128.hpp>
#include <privet/core/detail/rounding.hpp>
#include <privet/core/metric.hpp>
#include <privet/core/pipeline_step.hpp>
#include <privet/core/validate.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <ranges>
#include <string>
#include <type_traits>
#include <vector>

namespace privet {

/// Transformation: a dataset of vectors (rows) to the exact sum of the rows,
/// each fitted to `dimension` coordinates and scaled to Norm at most `clip`
/// (see the file comment for the rules on malformed rows). O(n dimension).
template <class Norm, real_number Real = double>
requires(std::same_as<Norm, l1_distance> || std::same_as<Norm, l2_distance>) class clipped_sum
    : public pipeline_step {
  static constexpr bool is_l1 = std::same_as<Norm, l1_distance>;

 public:
  /// Neighbouring datasets differ by rows added or removed.
  using input_metric = symmetric_distance;
  /// Neighbours' sums differ in the clipping norm, L1 or L2.
  using output_metric = Norm;

  /// Throws invalid_parameter unless dimension >= 1, clip is finite and > 0,
  /// max_records >= 1 and the stability max_records * clip (times the
  /// dimension factor of the rounding margin) is a finite double.
  /// `max_records` is where each coordinate of the sum saturates (see above).
  clipped_sum(std::size_t dimension, Real clip, std::uint64_t max_records = std::uint64_t{1} << 32)
      : dimension_(validate_at_least<std::size_t>(dimension, 1, "dimension")),
        clip_(static_cast<Real>(validate_positive(static_cast<double>(clip), "clip"))),
        max_records_(validate_at_least<std::uint64_t>(max_records, 1, "max_records")),
        unit_(detail::fixed_point_unit(static_cast<long double>(clip_))),
        cap_(detail::fixed_point_cap(max_records)) {
    if (unit_ == 0) {
      throw_invalid("clip", static_cast<double>(clip),
                    ">= " + detail::format_value(std::ldexp(std::numeric_limits<long double>::min(),
                                                            detail::fixed_point_bits)));
    }
    if (!std::isfinite(stability(1))) {
      throw_invalid("max_records", max_records,
                    "small enough that max_records * clip * dimension is a finite double");
    }
  }

  /// The exact sum of the clipped rows, each coordinate saturated at
  /// +-max_records * clip and rounded once to Real. Never throws because of
  /// the rows.
  template <std::ranges::input_range R>
  requires std::ranges::input_range<std::ranges::range_value_t<R>> &&
      std::convertible_to<std::ranges::range_value_t<std::ranges::range_value_t<R>>, Real>
          std::vector<Real>
  operator()(const R& rows) const {
    std::vector<detail::int128> total(dimension_, 0);
    std::vector<long double> x(dimension_);
    std::vector<std::int64_t> units(dimension_);
    for (const auto& row : rows) {
      read_row(row, x);
      clip_row(x, units);
      for (std::size_t j = 0; j < dimension_; ++j) total[j] += units[j];
    }
    std::vector<Real> out(dimension_);
    for (std::size_t j = 0; j < dimension_; ++j) {
      out[j] = detail::fixed_point_value<Real>(total[j], cap_, unit_);
    }
    return out;
  }

  /// d_in rows changed move the exact, saturated sum by at most d_in * clip
  /// in the norm; the outputs may differ by that plus `stability_margin()`.
  [[nodiscard]] double stability(symmetric_distance::distance_type d_in) const noexcept {
    return detail::add_up(detail::mul_up(detail::to_double_up(d_in), clip_up()),
                          stability_margin());
  }

  /// The final rounding of both neighbouring sums: each coordinate, at most
  /// max_records * clip after saturation, errs by at most
  /// `fixed_point_error`, so the error vector's norm is at most that times
  /// sqrt(dimension) (L2) or dimension (L1).
  [[nodiscard]] double stability_margin() const noexcept {
    const double radius = detail::mul_up(detail::to_double_up(max_records_), clip_up());
    const double d = detail::to_double_up(static_cast<std::uint64_t>(dimension_));
    const double spread = is_l1 ? d : detail::sqrt_up(d);
    return detail::mul_up(2, detail::mul_up(spread, detail::fixed_point_error<Real>(radius)));
  }

  /// The number of coordinates each row is fitted to.
  [[nodiscard]] std::size_t dimension() const noexcept { return dimension_; }
  /// The largest norm of a row after clipping.
  [[nodiscard]] Real clip() const noexcept { return clip_; }
  /// The declared dataset size, where each coordinate of the sum saturates.
  [[nodiscard]] std::uint64_t max_records() const noexcept { return max_records_; }

 private:
  double clip_up() const noexcept { return detail::to_double_up(static_cast<long double>(clip_)); }

  // Truncates or zero-pads to the dimension; NaN -> 0; infinite coordinates
  // -> the signs of the infinite ones.
  template <class Row>
  void read_row(const Row& row, std::vector<long double>& x) const {
    std::size_t j = 0;
    for (auto it = std::ranges::begin(row); j < dimension_ && it != std::ranges::end(row);
         ++it, ++j) {
      x[j] = static_cast<long double>(static_cast<Real>(*it));
    }
    std::fill(x.begin() + static_cast<std::ptrdiff_t>(j), x.end(), 0.0L);
    bool infinite = false;
    for (long double& v : x) {
      if (std::isnan(v)) v = 0;
      infinite = infinite || std::isinf(v);
    }
    if (infinite) {
      for (long double& v : x) v = std::isinf(v) ? std::copysign(1.0L, v) : 0.0L;
    }
  }

  // Grid integers of the row scaled to norm at most clip, with the norm
  // bound checked exactly.
  void clip_row(const std::vector<long double>& x, std::vector<std::int64_t>& units) const {
    long double top = 0;
    for (long double v : x) top = std::max(top, std::fabs(v));
    if (top == 0) {
      std::fill(units.begin(), units.end(), 0);
      return;
    }
    // The norm of x / top (>= 1, as the largest term is exactly 1): no
    // overflow or underflow whatever the magnitudes.
    long double norm = 0;
    for (long double v : x) {
      const long double z = v / top;
      norm += is_l1 ? std::fabs(z) : z * z;
    }
    if constexpr (!is_l1) norm = std::sqrt(norm);
    const auto c = static_cast<long double>(clip_);
    const bool clips = norm > c / top;
    const auto fill = [&](long double factor) {
      for (std::size_t j = 0; j < dimension_; ++j) {
        const long double v = clips ? x[j] / top / norm : x[j] / c;
        units[j] = detail::fixed_point_units(v * factor);
      }
    };
    fill(1);
    if (within_grid_norm(units)) return;
    // A row at the clip norm, up to rounding: retry with headroom for the
    // rounding of the norm and of each grid integer.
    const long double u = std::numeric_limits<long double>::epsilon();
    const auto d = static_cast<long double>(dimension_);
    fill(std::max(0.5L, 1 - std::ldexp(1.0L, -40) - 8 * (d + 2) * u - std::ldexp(d, -61)));
    while (!within_grid_norm(units)) {
      for (std::int64_t& k : units) k /= 2;  // towards zero: every |k| at most halves
    }
  }

  // ||units|| <= 2^62 exactly. Every |k| <= 2^62; the running sum stops as
  // soon as it passes the bound, so it stays below 2^126 in 128 bits.
  static bool within_grid_norm(const std::vector<std::int64_t>& units) {
    using detail::uint128;
    const uint128 one = static_cast<uint128>(detail::fixed_point_one);
    const uint128 limit = is_l1 ? one : one * one;
    uint128 sum = 0;
    for (std::int64_t k : units) {
      const uint128 a = static_cast<uint128>(k < 0 ? -static_cast<detail::int128>(k) : k);
      sum += is_l1 ? a : a * a;
      if (sum > limit) return false;
    }
    return true;
  }

  std::size_t dimension_;
  Real clip_;
  std::uint64_t max_records_;
  long double unit_;
  detail::int128 cap_;
};

}  // namespace privet
