// privet/core/metric.hpp — the distances that pipelines track, in the sense
// of OpenDP's metrics: a transformation maps inputs at distance d_in to
// outputs at distance at most d_out (its stability), and a mechanism turns an
// output distance into a privacy guarantee.
//
// Implicit conversions are only those that lose nothing: a scalar's absolute
// difference is its L1, L2 and L-infinity distance, and a bound on
// (partitions touched, change per partition) gives L1 = k c, L2 = sqrt(k) c,
// L-infinity = c. Anything looser (L1 used as L2, L2 used as L1 with a
// dimension factor) must be asked for by name (see
// privet/core/transformations/metric_cast.hpp).
#pragma once

#include <privet/core/detail/rounding.hpp>

#include <concepts>
#include <cstdint>
#include <string_view>

namespace privet {

/// Datasets whose neighbours differ by records added or removed.
struct symmetric_distance {
  /// Number of records added plus records removed.
  using distance_type = std::uint64_t;
  /// Human-readable name, used in messages.
  static constexpr std::string_view name = "symmetric distance";
};

/// Datasets of records tagged by privacy unit (a user, a device, an actor
/// per day) whose neighbours differ by all the records of some units.
struct unit_distance {
  /// Number of privacy units whose records differ.
  using distance_type = std::uint64_t;
  /// Human-readable name, used in messages.
  static constexpr std::string_view name = "privacy-unit distance";
};

/// |a - b| between two scalars.
struct absolute_distance {
  /// A non-negative real distance, in the data's units.
  using distance_type = double;
  /// Human-readable name, used in messages.
  static constexpr std::string_view name = "absolute distance";
};

/// ||a - b||_1 between two vectors.
struct l1_distance {
  /// A non-negative real distance, in the data's units.
  using distance_type = double;
  /// Human-readable name, used in messages.
  static constexpr std::string_view name = "L1 distance";
};

/// ||a - b||_2 between two vectors.
struct l2_distance {
  /// A non-negative real distance, in the data's units.
  using distance_type = double;
  /// Human-readable name, used in messages.
  static constexpr std::string_view name = "L2 distance";
};

/// ||a - b||_inf between two vectors.
struct linf_distance {
  /// A non-negative real distance, in the data's units.
  using distance_type = double;
  /// Human-readable name, used in messages.
  static constexpr std::string_view name = "L-infinity distance";
};

/// Between two histograms: at most `partitions` keys differ (L0), each by at
/// most `per_partition` (L-infinity).
struct partition_distance {
  /// A pair of bounds (L0, L-infinity) on the difference of two histograms.
  struct distance_type {
    /// At most this many keys differ.
    std::uint64_t partitions;
    /// Each differing key's value changes by at most this much.
    double per_partition;
    /// Equal when both bounds are equal.
    friend bool operator==(const distance_type&, const distance_type&) = default;
  };
  /// Human-readable name, used in messages.
  static constexpr std::string_view name = "partition distance";
};

/// A metric tag: names its `distance_type` and has a `name` for messages.
template <class M>
concept metric = requires {
  typename M::distance_type;
  { M::name } -> std::convertible_to<std::string_view>;
};

/// How a distance in metric From bounds a distance in metric To. The primary
/// template says "no bound"; specialisations give `convert`.
template <metric From, metric To>
struct metric_conversion {
  /// False: no implicit bound from From to To.
  static constexpr bool exists = false;
};

/// Every metric bounds itself: the distance is unchanged.
template <metric M>
struct metric_conversion<M, M> {
  /// True: a conversion exists.
  static constexpr bool exists = true;
  /// Returns `d` unchanged.
  static constexpr typename M::distance_type convert(typename M::distance_type d) { return d; }
};

/// A scalar's absolute difference is its L1, L2 and L-infinity distance.
template <class To>
requires(std::same_as<To, l1_distance> || std::same_as<To, l2_distance> ||
         std::same_as<To, linf_distance>) struct metric_conversion<absolute_distance, To> {
  /// True: a conversion exists.
  static constexpr bool exists = true;
  /// Returns `d` unchanged: a scalar's |a - b| is also its L1, L2 and
  /// L-infinity distance.
  static constexpr double convert(double d) { return d; }
};

/// A partition bound (k, c) gives L1 <= k c.
template <>
struct metric_conversion<partition_distance, l1_distance> {
  /// True: a conversion exists.
  static constexpr bool exists = true;
  /// Returns k c, rounded up so the bound stays a bound in floating point.
  static double convert(partition_distance::distance_type d) {
    return detail::mul_up(static_cast<double>(d.partitions), d.per_partition);
  }
};

/// A partition bound (k, c) gives L2 <= sqrt(k) c.
template <>
struct metric_conversion<partition_distance, l2_distance> {
  /// True: a conversion exists.
  static constexpr bool exists = true;
  /// Returns sqrt(k) c, with the square root and the product rounded up.
  static double convert(partition_distance::distance_type d) {
    return detail::mul_up(detail::sqrt_up(static_cast<double>(d.partitions)), d.per_partition);
  }
};

/// A partition bound (k, c) gives L-infinity <= c, whatever k.
template <>
struct metric_conversion<partition_distance, linf_distance> {
  /// True: a conversion exists.
  static constexpr bool exists = true;
  /// Returns c (`per_partition`).
  static double convert(partition_distance::distance_type d) { return d.per_partition; }
};

/// True when a bound in From gives a bound in To without a named conversion.
template <class From, class To>
inline constexpr bool metric_converts_v = metric_conversion<From, To>::exists;

/// Converts a distance from metric From to metric To.
template <metric From, metric To>
requires metric_converts_v<From, To>
constexpr typename To::distance_type convert_distance(typename From::distance_type d) {
  return metric_conversion<From, To>::convert(d);
}

}  // namespace privet
