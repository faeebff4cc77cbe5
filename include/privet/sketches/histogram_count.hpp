// privet/sketches/histogram_count.hpp — the concept of a histogram's count
// type, shared by sparse_histogram and dense_histogram: a built-in integer
// other than bool (counts, overflow-checked: an update that would leave the
// type's range throws overflow_error) or a floating-point number (weights).
#pragma once

#include <concepts>
#include <type_traits>

namespace privet {

/// A count or weight a histogram can hold: integers are overflow-checked,
/// floating-point weights are added as they are.
template <class Count>
concept histogram_count = (std::integral<Count> && !std::same_as<std::remove_cv_t<Count>, bool>) ||
                          std::floating_point<Count>;

}  // namespace privet
