// privet/algorithms/release_utility.hpp — how useful a thresholded noisy
// histogram is, against the ground truth (the counts after bounding): the
// metrics Wikimedia set as requirements for its pageview release, overall
// and broken down by any grouping of the keys (continent, subcontinent,
// country), so that no group suffers disproportionate error. Rerun it on new
// data to check that the assumptions behind the parameters still hold.
//
// Definitions (for the cells in scope of a group):
//   relative error of a published cell = |noisy - true| / true, and +inf for
//     a published cell whose true count is 0 (a spurious cell);
//   median relative error and the share of published cells with relative
//     error < 0.5 are over all published cells;
//   spurious rate = share of published cells whose true count is 0;
//   drop rate, three ways, since on a long-tailed day almost every non-zero
//   cell is a count of 1 or 2 that no threshold above the noise keeps
//   (issue 24: 99.5 % of cells but half of the views):
//   - by cells: share of cells with true count > 0 not published;
//   - by views: the dropped cells' share of the true views (the sum of the
//     true counts of the cells with true count > 0);
//   - among large cells: share of cells with true count >= a threshold
//     (the release threshold tau, typically) not published: the cells the
//     release could have been expected to keep.
// A metric over an empty set is NaN, never a made-up 0. View sums are exact
// (128-bit) and reported as doubles.
//
// utility_at_thresholds evaluates one set of unsuppressed noisy cells at
// many release thresholds in one pass per threshold: the parameter grid of
// a tuning run (which must use public or synthetic data: the truth is read
// without noise, so choosing parameters from the private day's report would
// spend budget the guarantee does not count).
#pragma once

#include <privet/core/detail/int128.hpp>
#include <privet/core/validate.hpp>
#include <privet/sketches/sparse_histogram.hpp>

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace privet {

/// How useful a thresholded noisy histogram is against the true counts,
/// for the cells of one group (or all of them): the counts behind each rate
/// and the rates themselves, as defined in the file comment. A rate over an
/// empty set is NaN, never 0. Filled by utility(), utility_by() and
/// utility_at_thresholds().
struct utility_metrics {
  std::size_t published = 0;     ///< cells released
  std::size_t true_nonzero = 0;  ///< cells with true count > 0
  std::size_t dropped = 0;       ///< true count > 0, not released
  std::size_t spurious = 0;      ///< released, true count 0
  /// Median of |noisy - true| / true over the published cells (+inf for a
  /// spurious cell); NaN when nothing was published.
  double median_relative_error = std::numeric_limits<double>::quiet_NaN();
  double share_below_half = std::numeric_limits<double>::quiet_NaN();  ///< rel. error < 0.5
  double true_views = 0;          ///< sum of the true counts > 0
  double dropped_views = 0;       ///< sum of the true counts of the dropped cells
  std::int64_t large_from = 0;    ///< threshold of the large cells; 0: not computed
  std::size_t true_large = 0;     ///< cells with true count >= large_from
  std::size_t dropped_large = 0;  ///< of those, not released

  /// Share of the cells with true count > 0 not published.
  [[nodiscard]] double drop_rate() const noexcept { return ratio(dropped, true_nonzero); }
  /// The dropped cells' share of the true views.
  [[nodiscard]] double view_drop_rate() const noexcept {
    return true_views == 0 ? std::numeric_limits<double>::quiet_NaN() : dropped_views / true_views;
  }
  /// Share of the cells with true count >= large_from not published (NaN
  /// when large_from was not given or no cell is that large).
  [[nodiscard]] double large_drop_rate() const noexcept {
    return large_from == 0 ? std::numeric_limits<double>::quiet_NaN()
                           : ratio(dropped_large, true_large);
  }
  /// Share of the published cells whose true count is 0 (NaN when nothing
  /// was published).
  [[nodiscard]] double spurious_rate() const noexcept { return ratio(spurious, published); }

 private:
  static double ratio(std::size_t a, std::size_t b) noexcept {
    return b == 0 ? std::numeric_limits<double>::quiet_NaN()
                  : static_cast<double>(a) / static_cast<double>(b);
  }
};

/// Accuracy goals a release must meet, Wikimedia's by default: median
/// relative error < 5 % and relative error < 50 % for at least 95 % of the
/// published cells. A release that publishes nothing meets neither.
struct utility_requirements {
  double max_median_relative_error = 0.05;  ///< the median must be below it
  double min_share_below_half = 0.95;       ///< the share must reach it

  /// Whether `m` meets both goals: median relative error strictly below
  /// max_median_relative_error and share_below_half at least
  /// min_share_below_half. False when either metric is NaN (nothing
  /// published). Does not validate the requirements (validate_requirements).
  [[nodiscard]] bool met_by(const utility_metrics& m) const noexcept {
    return m.median_relative_error < max_median_relative_error &&
           m.share_below_half >= min_share_below_half;
  }
};

/// Throws invalid_parameter unless max_median_relative_error is in (0, inf]
/// and min_share_below_half in [0, 1].
inline const utility_requirements& validate_requirements(const utility_requirements& r) {
  if (!(r.max_median_relative_error > 0)) {
    throw_invalid("max_median_relative_error", r.max_median_relative_error, "(0, inf]");
  }
  validate_closed_range(r.min_share_below_half, 0, 1, "min_share_below_half");
  return r;
}

namespace detail {

struct utility_accumulator {
  std::vector<double> errors;
  utility_metrics m;
  uint128 true_views = 0, dropped_views = 0;

  /// A cell of the truth with count t > 0.
  void add_truth(std::int64_t t, bool published) {
    ++m.true_nonzero;
    true_views += static_cast<std::uint64_t>(t);
    const bool large = m.large_from > 0 && t >= m.large_from;
    m.true_large += large;
    if (!published) {
      ++m.dropped;
      dropped_views += static_cast<std::uint64_t>(t);
      m.dropped_large += large;
    }
  }

  /// A published cell whose true count is t (0 when absent).
  void add_published(std::int64_t noisy, std::int64_t t) {
    ++m.published;
    if (t <= 0) {
      ++m.spurious;
      errors.push_back(std::numeric_limits<double>::infinity());
    } else {
      const double diff = std::fabs(static_cast<double>(noisy) - static_cast<double>(t));
      errors.push_back(diff / static_cast<double>(t));
    }
  }

  utility_metrics finish() {
    m.true_views = static_cast<double>(true_views);
    m.dropped_views = static_cast<double>(dropped_views);
    if (!errors.empty()) {
      const std::size_t n = errors.size();
      std::sort(errors.begin(), errors.end());
      m.median_relative_error = n % 2 == 1 ? errors[n / 2]
                                           : (errors[n / 2 - 1] == errors[n / 2]
                                                  ? errors[n / 2]
                                                  : errors[n / 2 - 1] / 2 + errors[n / 2] / 2);
      const auto below = std::lower_bound(errors.begin(), errors.end(), 0.5) - errors.begin();
      m.share_below_half = static_cast<double>(below) / static_cast<double>(n);
    }
    return m;
  }
};

inline std::int64_t validate_large_from(std::int64_t large_from) {
  return validate_at_least<std::int64_t>(large_from, 1, "large_from");
}

template <class Key>
void refuse_duplicates(std::vector<Key>& keys, const char* name) {
  std::sort(keys.begin(), keys.end());
  if (std::adjacent_find(keys.begin(), keys.end()) != keys.end()) {
    throw_invalid(name, "a cell published twice", "each cell at most once");
  }
}

template <class Key, class GroupOf>
std::map<std::string, utility_metrics> utility_by_impl(
    const sparse_histogram<Key, std::int64_t>& truth,
    const std::vector<std::pair<Key, std::int64_t>>& released, GroupOf& group_of,
    std::int64_t large_from) {
  std::map<std::string, utility_accumulator> acc;
  auto group = [&](const Key& key) -> utility_accumulator& {
    auto& a = acc[std::string(group_of(key))];
    a.m.large_from = large_from;
    return a;
  };
  std::vector<Key> published_keys;
  published_keys.reserve(released.size());
  for (const auto& [key, noisy] : released) {
    published_keys.push_back(key);
    group(key).add_published(noisy, truth[key]);
  }
  refuse_duplicates(published_keys, "released");
  for (const auto& [key, t] : truth.sorted_by_key()) {
    if (t <= 0) continue;
    group(key).add_truth(t, std::binary_search(published_keys.begin(), published_keys.end(), key));
  }
  std::map<std::string, utility_metrics> out;
  for (auto& [g, a] : acc) out.emplace(g, a.finish());
  return out;
}

}  // namespace detail

/// The metrics per group: group_of(key) names the group of a cell (use a
/// function returning one constant for the overall figures). `truth` holds
/// the true counts (cells absent are 0); `released` the published cells.
/// Throws invalid_parameter if a cell is published twice. Without
/// large_from, large_drop_rate() is NaN. Cost: O(T log T + R log R) for T
/// cells of the truth and R released cells, plus one group_of call per cell.
template <class Key, class GroupOf>
requires std::totally_ordered<Key> &&
    std::convertible_to<std::invoke_result_t<GroupOf&, const Key&>, std::string>
        std::map<std::string, utility_metrics> utility_by(
            const sparse_histogram<Key, std::int64_t>& truth,
            const std::vector<std::pair<Key, std::int64_t>>& released, GroupOf group_of) {
  return detail::utility_by_impl(truth, released, group_of, 0);
}

/// The same with the drop rate among cells of true count >= large_from
/// (pass the release threshold). Throws invalid_parameter unless
/// large_from >= 1.
template <class Key, class GroupOf>
requires std::totally_ordered<Key> &&
    std::convertible_to<std::invoke_result_t<GroupOf&, const Key&>, std::string>
        std::map<std::string, utility_metrics> utility_by(
            const sparse_histogram<Key, std::int64_t>& truth,
            const std::vector<std::pair<Key, std::int64_t>>& released, GroupOf group_of,
            std::int64_t large_from) {
  return detail::utility_by_impl(truth, released, group_of,
                                 detail::validate_large_from(large_from));
}

/// The overall metrics.
template <class Key>
requires std::totally_ordered<Key> utility_metrics
utility(const sparse_histogram<Key, std::int64_t>& truth,
        const std::vector<std::pair<Key, std::int64_t>>& released) {
  auto by = utility_by(truth, released, [](const Key&) { return std::string("all"); });
  return by.empty() ? utility_metrics{} : by.begin()->second;
}

/// The overall metrics with the drop rate among cells of true count >=
/// large_from. Throws invalid_parameter unless large_from >= 1.
template <class Key>
requires std::totally_ordered<Key> utility_metrics
utility(const sparse_histogram<Key, std::int64_t>& truth,
        const std::vector<std::pair<Key, std::int64_t>>& released, std::int64_t large_from) {
  auto by = utility_by(
      truth, released, [](const Key&) { return std::string("all"); }, large_from);
  if (!by.empty()) return by.begin()->second;
  utility_metrics none;
  none.large_from = large_from;
  return none;
}

/// The overall metrics of the release that publishes the cells of
/// `unsuppressed` (every cell the release could publish, with its noisy
/// count) whose noisy count is >= tau, for each tau of `thresholds`, with
/// large_from = tau: element i equals utility(truth, {cells >= thresholds[i]},
/// thresholds[i]), computed without re-reading the truth per threshold.
/// Throws invalid_parameter if a cell appears twice in unsuppressed or a
/// threshold is below 1. Cost: O(T log T + U log U) once, then O(U + P log P)
/// per threshold (U unsuppressed cells, P of them published at that tau).
template <class Key>
requires std::totally_ordered<Key> std::vector<utility_metrics> utility_at_thresholds(
    const sparse_histogram<Key, std::int64_t>& truth,
    const std::vector<std::pair<Key, std::int64_t>>& unsuppressed,
    const std::vector<std::int64_t>& thresholds) {
  for (const std::int64_t tau : thresholds) validate_at_least<std::int64_t>(tau, 1, "thresholds");
  std::vector<Key> keys;
  keys.reserve(unsuppressed.size());
  for (const auto& cell : unsuppressed) keys.push_back(cell.first);
  detail::refuse_duplicates(keys, "unsuppressed");
  // The truth once: its non-zero counts sorted (large cells by binary
  // search), its total, and each candidate cell's count.
  std::vector<std::int64_t> sorted_truth;
  detail::uint128 all_views = 0;
  for (const auto& [key, t] : truth) {
    if (t <= 0) continue;
    sorted_truth.push_back(t);
    all_views += static_cast<std::uint64_t>(t);
  }
  std::sort(sorted_truth.begin(), sorted_truth.end());
  std::vector<std::int64_t> cell_truth;
  cell_truth.reserve(unsuppressed.size());
  for (const auto& cell : unsuppressed) cell_truth.push_back(truth[cell.first]);

  std::vector<utility_metrics> out;
  out.reserve(thresholds.size());
  for (const std::int64_t tau : thresholds) {
    detail::utility_accumulator a;
    a.m.large_from = tau;
    a.m.true_nonzero = sorted_truth.size();
    a.m.true_large = static_cast<std::size_t>(
        sorted_truth.end() - std::lower_bound(sorted_truth.begin(), sorted_truth.end(), tau));
    std::size_t kept_nonzero = 0, kept_large = 0;
    detail::uint128 kept_views = 0;
    for (std::size_t i = 0; i < unsuppressed.size(); ++i) {
      if (unsuppressed[i].second < tau) continue;
      const std::int64_t t = cell_truth[i];
      a.add_published(unsuppressed[i].second, t);
      if (t > 0) {
        ++kept_nonzero;
        kept_views += static_cast<std::uint64_t>(t);
        kept_large += t >= tau;
      }
    }
    a.m.dropped = a.m.true_nonzero - kept_nonzero;
    a.m.dropped_large = a.m.true_large - kept_large;
    a.true_views = all_views;
    a.dropped_views = all_views - kept_views;
    out.push_back(a.finish());
  }
  return out;
}

}  // namespace privet
