// privet/sketches/histogram_count.hpp — the concept of a histogram's count
// type, shared by sparse_histogram and dense_histogram: a built-in integer
// other than bool (counts: an update that would leave the type's range
// saturates at its limits, never wraps or throws, because the counts are
// data; see docs/data_rule.md) or a floating-point number (weights: NaN
// adds 0, infinities and sums saturate at the largest finite value).
#pragma once

#include <concepts>
#include <type_traits>

namespace privet {

/// A count or weight a histogram can hold: integer counts saturate at the
/// type's limits; floating-point weights are kept finite (NaN adds 0,
/// infinities and sums saturate).
template <class Count>
concept histogram_count = (std::integral<Count> && !std::same_as<std::remove_cv_t<Count>, bool>) ||
                          std::floating_point<Count>;

}  // namespace privet
