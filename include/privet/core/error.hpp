// privet/core/error.hpp — the exception hierarchy. Every error privet throws
// derives from privet::error, and its message names what went wrong, the
// offending value and the allowed range.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace privet {

/// Base of every exception privet throws.
class error : public std::runtime_error {
 public:
  /// Takes the whole message: what went wrong, the offending value and the
  /// allowed range.
  explicit error(const std::string& what) : std::runtime_error(what) {}
};

/// A parameter is outside its allowed range (epsilon <= 0, delta >= 1, NaN,
/// an empty input where one is required...). `parameter()` names it.
class invalid_parameter : public error {
 public:
  /// `parameter` is the caller's name for the refused argument (not an
  /// internal variable's); `what` is the whole message (see
  /// core/validate.hpp's throw_invalid for the usual wording).
  invalid_parameter(std::string parameter, const std::string& what)
      : error(what), parameter_(std::move(parameter)) {}
  /// The name of the refused parameter, as the caller spells it.
  [[nodiscard]] const std::string& parameter() const noexcept { return parameter_; }

 private:
  std::string parameter_;
};

/// A privacy budget (an accountant's or a filter's) would be exceeded.
class budget_exhausted : public error {
 public:
  /// Takes the whole message (see privet::error).
  using error::error;
};

/// A value does not fit its representation (a count, a fixed-point encoding,
/// a Paillier plaintext). privet never wraps silently.
class overflow_error : public error {
 public:
  /// Takes the whole message (see privet::error).
  using error::error;
};

/// Serialised data (a key, a ciphertext, a message, a file) is malformed.
class serialization_error : public error {
 public:
  /// Takes the whole message (see privet::error).
  using error::error;
};

/// A party of a protocol received a message it must not accept (malformed,
/// replayed, out of order, from the wrong key).
class protocol_error : public error {
 public:
  /// Takes the whole message (see privet::error).
  using error::error;
};

}  // namespace privet
