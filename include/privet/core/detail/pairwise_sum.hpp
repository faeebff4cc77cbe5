// privet/core/detail/pairwise_sum.hpp — streaming pairwise summation. Partial
// sums of equal size are merged as in a binary counter, so memory is
// O(log n) and the rounding error is at most gamma_L * sum |x_i| with
// L = ceil(log2 n) + 1 (Higham, Accuracy and Stability of Numerical
// Algorithms, 2nd ed., section 4.2) instead of gamma_{n-1} for a plain loop.
#pragma once

#include <array>
#include <cstdint>

namespace privet::detail {

template <class Acc>
class pairwise_sum {
 public:
  void add(Acc x) {
    std::uint64_t size = 1;
    // Merge while the top partial sum covers as many terms as the new one.
    while (depth_ > 0 && sizes_[depth_ - 1] == size) {
      x = sums_[depth_ - 1] + x;
      size += sizes_[depth_ - 1];
      --depth_;
    }
    sums_[depth_] = x;
    sizes_[depth_] = size;
    ++depth_;
    ++count_;
  }

  [[nodiscard]] Acc total() const {
    Acc t = 0;
    for (int i = depth_ - 1; i >= 0; --i) t = sums_[static_cast<std::size_t>(i)] + t;
    return t;
  }

  [[nodiscard]] std::uint64_t count() const noexcept { return count_; }

 private:
  std::array<Acc, 65> sums_{};
  std::array<std::uint64_t, 65> sizes_{};
  int depth_ = 0;
  std::uint64_t count_ = 0;
};

}  // namespace privet::detail
