// privet/core/validate.hpp — shared parameter validators (as Google DP's
// util.h). Each throws privet::invalid_parameter with a message of the form
//   "privet: epsilon = -1 is invalid; allowed: finite and > 0"
// so that every check in the library reads the same way and tests can match it.
#pragma once

#include <privet/core/detail/format.hpp>
#include <privet/core/error.hpp>

#include <cmath>
#include <concepts>
#include <cstddef>
#include <string>
#include <string_view>

namespace privet {

/// Throws invalid_parameter for `name = value`, `allowed` saying the range.
template <class T>
[[noreturn]] void throw_invalid(std::string_view name, const T& value, std::string_view allowed) {
  std::string msg = "privet: ";
  msg.append(name);
  msg += " = ";
  msg += detail::format_value(value);
  msg += " is invalid; allowed: ";
  msg.append(allowed);
  throw invalid_parameter(std::string(name), msg);
}

/// Throws invalid_parameter for an empty input named `name`.
[[noreturn]] inline void throw_empty(std::string_view name) {
  std::string msg = "privet: ";
  msg.append(name);
  msg += " is empty; allowed: at least one element";
  throw invalid_parameter(std::string(name), msg);
}

/// `value` is neither NaN nor infinite.
inline double validate_finite(double value, std::string_view name) {
  if (!std::isfinite(value)) throw_invalid(name, value, "a finite number");
  return value;
}

/// `value` is finite and > 0.
inline double validate_positive(double value, std::string_view name) {
  if (!(std::isfinite(value) && value > 0)) throw_invalid(name, value, "finite and > 0");
  return value;
}

/// `value` is finite and >= 0.
inline double validate_non_negative(double value, std::string_view name) {
  if (!(std::isfinite(value) && value >= 0)) throw_invalid(name, value, "finite and >= 0");
  return value;
}

/// `value` lies in [lo, hi].
inline double validate_closed_range(double value, double lo, double hi, std::string_view name) {
  if (!(value >= lo && value <= hi)) {
    throw_invalid(name, value,
                  "[" + detail::format_value(lo) + ", " + detail::format_value(hi) + "]");
  }
  return value;
}

/// Finite bounds with lower <= upper (the range of a clamp or a sum).
inline void validate_bounds(double lower, double upper) {
  validate_finite(lower, "lower");
  validate_finite(upper, "upper");
  if (lower > upper) throw_invalid("upper", upper, ">= lower = " + detail::format_value(lower));
}

/// A privacy parameter epsilon of a mechanism: finite and > 0.
inline double validate_epsilon(double epsilon, std::string_view name = "epsilon") {
  return validate_positive(epsilon, name);
}

/// A failure probability delta: in [0, 1).
inline double validate_delta(double delta, std::string_view name = "delta") {
  if (!(delta >= 0 && delta < 1)) throw_invalid(name, delta, "[0, 1)");
  return delta;
}

/// A failure probability delta that must be strictly positive: in (0, 1).
inline double validate_delta_positive(double delta, std::string_view name = "delta") {
  if (!(delta > 0 && delta < 1)) throw_invalid(name, delta, "(0, 1)");
  return delta;
}

/// A probability: in [0, 1].
inline double validate_probability(double p, std::string_view name) {
  return validate_closed_range(p, 0.0, 1.0, name);
}

/// A sensitivity or noise scale: finite and > 0.
inline double validate_scale(double scale, std::string_view name = "scale") {
  return validate_positive(scale, name);
}

/// A count that must be at least `min` (e.g. a contribution bound >= 1).
template <std::integral I>
I validate_at_least(I value, I min, std::string_view name) {
  if (value < min) throw_invalid(name, value, ">= " + detail::format_value(min));
  return value;
}

/// A container argument that must not be empty.
template <class Range>
const Range& validate_non_empty(const Range& r, std::string_view name) {
  if (std::empty(r)) throw_empty(name);
  return r;
}

}  // namespace privet
