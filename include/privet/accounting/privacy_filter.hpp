// privet/accounting/privacy_filter.hpp — a privacy filter (Rogers, Roth,
// Ullman & Vadhan 2016): a total budget that each release spends from, which
// refuses (throws budget_exhausted) any spend that would exceed it. Spends
// compose by the composition rule of the guarantee type: epsilons add for
// pure DP (Dwork et al. 2006) and rhos add for zCDP (Bun & Steinke 2016,
// Lemma 2.3); both are exact for these types, and a rejected spend leaves
// the filter unchanged.
#pragma once

#include <privet/core/detail/format.hpp>
#include <privet/core/detail/rounding.hpp>
#include <privet/core/error.hpp>
#include <privet/core/guarantee.hpp>

#include <string>

namespace privet {

namespace detail {
template <class G>
struct additive_parameter;
template <>
struct additive_parameter<pure_dp> {
  static double get(const pure_dp& g) { return g.epsilon(); }
  static constexpr const char* name = "epsilon";
};
template <>
struct additive_parameter<zcdp> {
  static double get(const zcdp& g) { return g.rho(); }
  static constexpr const char* name = "rho";
};
}  // namespace detail

/// A privacy filter over pure_dp or zcdp spends: a fixed total budget that
/// refuses, by throwing budget_exhausted, the first spend that would exceed it.
template <class Guarantee>
requires(std::same_as<Guarantee, pure_dp> || std::same_as<Guarantee, zcdp>) class privacy_filter {
 public:
  /// A filter with budget `total` and nothing spent.
  explicit privacy_filter(Guarantee total) : total_(total), spent_(0.0) {}

  /// Records `g` as spent; throws budget_exhausted (leaving the filter as it
  /// was) when the running total would exceed the budget.
  void spend(const Guarantee& g) {
    using p = detail::additive_parameter<Guarantee>;
    const double next = detail::add_up(p::get(spent_), p::get(g));
    if (next > p::get(total_)) {
      throw budget_exhausted(std::string("privet: spending ") + p::name + " = " +
                             detail::format_value(p::get(g)) +
                             " would exceed the budget: " + detail::format_value(p::get(spent_)) +
                             " of " + detail::format_value(p::get(total_)) + " already spent");
    }
    spent_ = Guarantee(next);
  }

  /// Whether `g` could still be spent.
  [[nodiscard]] bool can_spend(const Guarantee& g) const {
    using p = detail::additive_parameter<Guarantee>;
    return detail::add_up(p::get(spent_), p::get(g)) <= p::get(total_);
  }

  /// The sum of the accepted spends (rounded up).
  [[nodiscard]] const Guarantee& spent() const noexcept { return spent_; }
  /// The budget.
  [[nodiscard]] const Guarantee& total() const noexcept { return total_; }

 private:
  Guarantee total_;
  Guarantee spent_;
};

}  // namespace privet
