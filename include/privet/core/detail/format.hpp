// privet/core/detail/format.hpp — value formatting for error messages and
// reports: shortest round-trip decimal for reals, so a message shows exactly
// the value the caller passed.
#pragma once

#include <charconv>
#include <cmath>
#include <concepts>
#include <string>
#include <string_view>

namespace privet::detail {

inline std::string format_value(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

inline std::string format_value(long double v) {
  return format_value(static_cast<double>(v));
}
inline std::string format_value(float v) {
  return format_value(static_cast<double>(v));
}

template <std::integral I>
std::string format_value(I v) {
  if constexpr (std::same_as<I, bool>) {
    return v ? "true" : "false";
  } else {
    char buf[48];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, end);
  }
}

inline std::string format_value(std::string_view v) {
  return std::string(v);
}

}  // namespace privet::detail
