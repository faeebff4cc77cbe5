// tests/support/errors.hpp — which parameter an invalid_parameter names, and
// the message of an expected exception.
#pragma once

#include <privet/core/error.hpp>

#include <functional>
#include <string>

namespace privet::test {

/// The parameter the invalid_parameter thrown by f names, or "" when f
/// throws none (any other exception propagates).
inline std::string rejected_parameter(const std::function<void()>& f) {
  try {
    f();
  } catch (const privet::invalid_parameter& e) {
    return e.parameter();
  }
  return "";
}

/// The message of the E that f throws, or "" when f throws none (any other
/// exception propagates).
template <class E>
std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

/// The message of the serialization_error f throws ("" when it throws none).
inline std::string malformed(const std::function<void()>& f) {
  return message_of<privet::serialization_error>(f);
}

/// The message of the invalid_parameter f throws ("" when it throws none).
inline std::string invalid(const std::function<void()>& f) {
  return message_of<privet::invalid_parameter>(f);
}

}  // namespace privet::test
