// privet/ml/privacy_units.hpp — the privacy unit of a data set: which
// examples belong to one person, for user-level DP-SGD (McMahan, Ramage,
// Talwar & Zhang 2018, "Learning Differentially Private Recurrent Language
// Models", the user-level DP-SGD of its Algorithm 1 with one local step).
//
// Why: example-level DP-SGD protects one example. A speaker with 70
// utterances is 70 neighbouring steps away, and group privacy gives only
// about 70 eps for the speaker. DP-SGD over units samples units, not
// examples, and clips each sampled unit's mean gradient as one record, so
// neighbouring data sets differ in all of one unit's examples and the
// guarantee covers the person, whatever number of examples they gave. The
// partition into singletons is example-level DP, and the default.
#pragma once

#include <privet/core/detail/format.hpp>
#include <privet/core/validate.hpp>

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace privet::ml {

/// A partition of a data set's n examples into U units (users, speakers).
class privacy_units {
 public:
  /// Every example its own unit: example-level privacy.
  privacy_units() = default;

  /// Example i belongs to unit unit_of[i]. The ids must be 0 .. U - 1 with
  /// every unit holding at least one example (an unused id would change the
  /// sampling rate q = b / U without a person behind it), so U <= n and
  /// every id is below n. Throws invalid_parameter for an empty list, an id
  /// >= n or an unused id.
  explicit privacy_units(std::span<const std::size_t> unit_of) {
    if (unit_of.empty()) throw_empty("unit_of");
    const std::size_t n = unit_of.size();
    std::size_t units = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (unit_of[i] >= n) {
        throw_invalid("unit_of[" + std::to_string(i) + "]", unit_of[i],
                      "a unit id < unit_of.size() = " + privet::detail::format_value(n) +
                          " (ids 0 .. U - 1, each naming at least one example)");
      }
      units = std::max(units, unit_of[i] + 1);
    }
    std::vector<std::size_t> count(units, 0);
    for (std::size_t u : unit_of) ++count[u];
    offsets_.assign(units + 1, 0);
    for (std::size_t u = 0; u < units; ++u) {
      if (count[u] == 0) {
        throw_invalid("unit_of",
                      "ids up to " + privet::detail::format_value(units - 1) +
                          " with none equal to " + privet::detail::format_value(u),
                      "ids 0 .. U - 1 that each name at least one example");
      }
      offsets_[u + 1] = offsets_[u] + count[u];
    }
    members_.resize(unit_of.size());
    std::vector<std::size_t> next(offsets_.begin(), offsets_.end() - 1);
    for (std::size_t i = 0; i < unit_of.size(); ++i) members_[next[unit_of[i]]++] = i;
  }

  /// True for the default partition into single examples.
  [[nodiscard]] bool example_level() const noexcept { return offsets_.empty(); }

  /// U, or 0 for example-level units (then U is the data set's size).
  [[nodiscard]] std::size_t unit_count() const noexcept {
    return offsets_.empty() ? 0 : offsets_.size() - 1;
  }

  /// n, the examples partitioned (0 for example-level units).
  [[nodiscard]] std::size_t example_count() const noexcept { return members_.size(); }

  /// The examples of unit u, in increasing order. Throws invalid_parameter
  /// for u >= unit_count().
  [[nodiscard]] std::span<const std::size_t> examples_of(std::size_t u) const {
    if (u >= unit_count()) {
      throw_invalid("u", u,
                    "a unit < unit_count() = " + privet::detail::format_value(unit_count()));
    }
    return std::span<const std::size_t>(members_).subspan(offsets_[u],
                                                          offsets_[u + 1] - offsets_[u]);
  }

  /// The same partition (unit ids included); example-level equals only
  /// example-level.
  friend bool operator==(const privacy_units&, const privacy_units&) = default;

 private:
  std::vector<std::size_t> offsets_;  // U + 1 entries: unit u is members_[o[u], o[u+1])
  std::vector<std::size_t> members_;  // the example indices, grouped by unit
};

}  // namespace privet::ml
