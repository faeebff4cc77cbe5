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
  using distance_type = std::uint64_t;
  static constexpr std::string_view name = "symmetric distance";
};

/// Datasets of records tagged by privacy unit (a user, a device, an actor
/// per day) whose neighbours differ by all the records of some units.
struct unit_distance {
  using distance_type = std::uint64_t;
  static constexpr std::string_view name = "privacy-unit distance";
};

/// |a - b| between two scalars.
struct absolute_distance {
  using distance_type = double;
  static constexpr std::string_view name = "absolute distance";
};

/// ||a - b||_1 between two vectors.
struct l1_distance {
  using distance_type = double;
  static constexpr std::string_view name = "L1 distance";
};

/// ||a - b||_2 between two vectors.
struct l2_distance {
  using distance_type = double;
  static constexpr std::string_view name = "L2 distance";
};

/// ||a - b||_inf between two vectors.
struct linf_distance {
  using distance_type = double;
  static constexpr std::string_view name = "L-infinity distance";
};

/// Between two histograms: at most `partitions` keys differ (L0), each by at
/// most `per_partition` (L-infinity).
struct partition_distance {
  struct distance_type {
    std::uint64_t partitions;
    double per_partition;
    friend bool operator==(const distance_type&, const distance_type&) = default;
  };
  static constexpr std::string_view name = "partition distance";
};

template <class M>
concept metric = requires {
  typename M::distance_type;
  { M::name } -> std::convertible_to<std::string_view>;
};

/// How a distance in metric From bounds a distance in metric To. The primary
/// template says "no bound"; specialisations give `convert`.
template <metric From, metric To>
struct metric_conversion {
  static constexpr bool exists = false;
};

template <metric M>
struct metric_conversion<M, M> {
  static constexpr bool exists = true;
  static constexpr typename M::distance_type convert(typename M::distance_type d) { return d; }
};

template <class To>
requires(std::same_as<To, l1_distance> || std::same_as<To, l2_distance> ||
         std::same_as<To, linf_distance>) struct metric_conversion<absolute_distance, To> {
  static constexpr bool exists = true;
  static constexpr double convert(double d) { return d; }
};

template <>
struct metric_conversion<partition_distance, l1_distance> {
  static constexpr bool exists = true;
  static double convert(partition_distance::distance_type d) {
    return detail::mul_up(static_cast<double>(d.partitions), d.per_partition);
  }
};

template <>
struct metric_conversion<partition_distance, l2_distance> {
  static constexpr bool exists = true;
  static double convert(partition_distance::distance_type d) {
    return detail::mul_up(detail::sqrt_up(static_cast<double>(d.partitions)), d.per_partition);
  }
};

template <>
struct metric_conversion<partition_distance, linf_distance> {
  static constexpr bool exists = true;
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
