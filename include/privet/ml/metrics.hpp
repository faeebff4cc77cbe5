// privet/ml/metrics.hpp — evaluation metrics: the exact ROC AUC (the
// Mann-Whitney U statistic over n_pos n_neg, ties counted one half by
// midranks; Hanley & McNeil 1982), accuracy, and log loss (binary and
// multi-class).
//
// Binary labels follow logistic_regression's convention: 1 is positive,
// -1 and 0 are negative; anything else throws. Empty input, inputs of
// different lengths, NaN scores and (for the AUC) a single class throw
// invalid_parameter naming the argument: an AUC over one class is undefined,
// not 0.5.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/validate.hpp>

#include <xtensor/xtensor.hpp>

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <numeric>
#include <ranges>
#include <utility>
#include <vector>

namespace privet::ml {

namespace detail {

template <class Scores, class Labels>
void check_pair(const Scores& scores, const Labels& labels, std::string_view scores_name) {
  const auto n = static_cast<std::size_t>(std::ranges::distance(scores));
  const auto m = static_cast<std::size_t>(std::ranges::distance(labels));
  if (n == 0) throw_empty(scores_name);
  if (m != n) {
    throw_invalid(
        "labels.size()", m,
        "the number of " + std::string(scores_name) + " (" + privet::detail::format_value(n) + ")");
  }
}

// A label at a width where comparisons are exact: a std::uint64_t label
// 2^64 - 1 must not read as -1 (a negative) through a cast to long long.
// bool and the character types, which std::cmp_equal refuses, fit long long.
template <std::integral T>
constexpr auto exact_label(T y) noexcept {
  if constexpr (std::same_as<T, bool> || sizeof(T) < sizeof(long long)) {
    return static_cast<long long>(y);
  } else {
    return y;
  }
}

template <std::integral T>
bool positive_label(T label) {
  const auto y = exact_label(label);
  if (std::cmp_equal(y, 1)) return true;
  if (std::cmp_equal(y, 0) || std::cmp_equal(y, -1)) return false;
  throw_invalid("label", y, "1 (positive), or -1 or 0 (negative)");
}

}  // namespace detail

/// A range of real scores.
template <class R>
concept score_range = std::ranges::forward_range<R> && real_number<std::ranges::range_value_t<R>>;

/// A range of integer labels (bool is accepted: true is positive).
template <class R>
concept label_range = std::ranges::forward_range<R> && std::integral<std::ranges::range_value_t<R>>;

/// The area under the ROC curve of `scores` (higher = more likely positive)
/// against binary labels: P[score of a random positive > score of a random
/// negative] + 1/2 P[equal], exactly, from midranks in O(n log n).
template <score_range Scores, label_range Labels>
[[nodiscard]] double roc_auc(const Scores& scores, const Labels& labels) {
  detail::check_pair(scores, labels, "scores");
  struct item {
    double score;
    bool positive;
  };
  std::vector<item> items;
  auto l = std::ranges::begin(labels);
  for (const auto& s : scores) {
    const auto v = static_cast<double>(s);
    if (std::isnan(v)) throw_invalid("score", v, "a number (not NaN)");
    items.push_back({v, detail::positive_label(*l)});
    ++l;
  }
  std::sort(items.begin(), items.end(),
            [](const item& a, const item& b) { return a.score < b.score; });
  // Twice the midrank sum of the positives, in integers: a tie group over
  // 1-based ranks [a, b] has midrank (a + b) / 2, so 2 x midrank = a + b.
  const std::uint64_t n = items.size();
  std::uint64_t pos = 0, twice_rank_sum = 0;
  for (std::uint64_t i = 0; i < n;) {
    std::uint64_t j = i;
    std::uint64_t group_pos = 0;
    while (j < n && items[j].score == items[i].score) group_pos += items[j++].positive ? 1 : 0;
    twice_rank_sum += group_pos * ((i + 1) + j);
    pos += group_pos;
    i = j;
  }
  const std::uint64_t neg = n - pos;
  if (pos == 0 || neg == 0) {
    throw_invalid("labels", pos == 0 ? "all negative" : "all positive",
                  "both classes present (the AUC is undefined for one class)");
  }
  // 2U = 2 (rank sum - pos (pos + 1) / 2); AUC = U / (pos neg).
  const std::uint64_t twice_u = twice_rank_sum - pos * (pos + 1);
  return static_cast<double>(twice_u) / (2.0 * static_cast<double>(pos) * static_cast<double>(neg));
}

/// The fraction of examples whose score is on the side of `threshold` their
/// label says: score > threshold for positives, <= for negatives.
template <score_range Scores, label_range Labels>
[[nodiscard]] double binary_accuracy(const Scores& scores, const Labels& labels,
                                     double threshold = 0) {
  detail::check_pair(scores, labels, "scores");
  validate_finite(threshold, "threshold");
  std::size_t right = 0, n = 0;
  auto l = std::ranges::begin(labels);
  for (const auto& s : scores) {
    const auto v = static_cast<double>(s);
    if (std::isnan(v)) throw_invalid("score", v, "a number (not NaN)");
    right += ((v > threshold) == detail::positive_label(*l)) ? 1 : 0;
    ++l;
    ++n;
  }
  return static_cast<double>(right) / static_cast<double>(n);
}

/// The fraction of positions where the predicted class equals the true one.
template <label_range Predicted, label_range Actual>
[[nodiscard]] double accuracy(const Predicted& predicted, const Actual& actual) {
  detail::check_pair(predicted, actual, "predictions");
  std::size_t right = 0, n = 0;
  auto a = std::ranges::begin(actual);
  for (const auto& p : predicted) {
    right += std::cmp_equal(detail::exact_label(p), detail::exact_label(*a)) ? 1 : 0;
    ++a;
    ++n;
  }
  return static_cast<double>(right) / static_cast<double>(n);
}

/// Mean binary log loss, -mean(log p_i) for positives and -mean(log(1 - p_i))
/// for negatives, from probabilities of the positive class in [0, 1]. A
/// probability of 0 on the true class gives +inf (no clipping).
template <score_range Probabilities, label_range Labels>
[[nodiscard]] double log_loss(const Probabilities& probabilities, const Labels& labels) {
  detail::check_pair(probabilities, labels, "probabilities");
  double total = 0;
  std::size_t n = 0;
  auto l = std::ranges::begin(labels);
  for (const auto& p : probabilities) {
    const auto v = static_cast<double>(p);
    if (!(v >= 0 && v <= 1)) throw_invalid("probability", v, "[0, 1]");
    const bool positive = detail::positive_label(*l);
    total -= positive ? std::log(v) : std::log1p(-v);
    ++l;
    ++n;
  }
  return total / static_cast<double>(n);
}

/// Mean multi-class log loss, -mean(log P[i, y_i]), from a B x K matrix of
/// class probabilities (each row in [0, 1], summing to 1 within 1e-6) and
/// labels in [0, K).
template <real_number Real, label_range Labels>
[[nodiscard]] double log_loss(const xt::xtensor<Real, 2>& probabilities, const Labels& labels) {
  const std::size_t rows = probabilities.shape(0), k = probabilities.shape(1);
  if (rows == 0) throw_empty("probabilities");
  const auto m = static_cast<std::size_t>(std::ranges::distance(labels));
  if (m != rows) {
    throw_invalid(
        "labels.size()", m,
        "the number of rows of probabilities (" + privet::detail::format_value(rows) + ")");
  }
  double total = 0;
  auto l = std::ranges::begin(labels);
  for (std::size_t i = 0; i < rows; ++i, ++l) {
    double row_sum = 0;
    for (std::size_t c = 0; c < k; ++c) {
      const auto v = static_cast<double>(probabilities(i, c));
      if (!(v >= 0 && v <= 1)) throw_invalid("probability", v, "[0, 1]");
      row_sum += v;
    }
    if (!(std::abs(row_sum - 1) <= 1e-6)) {
      throw_invalid("probabilities row sum", row_sum, "1 (within 1e-6)");
    }
    const auto y = detail::exact_label(*l);
    if (std::cmp_less(y, 0) || !std::cmp_less(y, k)) {
      throw_invalid("label", y, "a class index in [0, " + privet::detail::format_value(k) + ")");
    }
    total -= std::log(static_cast<double>(probabilities(i, static_cast<std::size_t>(y))));
  }
  return total / static_cast<double>(rows);
}

}  // namespace privet::ml
