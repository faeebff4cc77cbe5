// privet/crypto/detail/wipe_memory.hpp — zeroing memory that held secrets
// before it is released: a non-elidable zeroing and an allocator that zeroes
// every block it frees. Light on purpose (no Boost): Shamir's shares use it.
// The integer wiping built on it, and what none of it reaches, is in
// wipe.hpp.
#pragma once

#include <sodium.h>

#include <cstddef>
#include <memory>
#include <vector>

namespace privet::detail {

/// Zeroes `n` bytes at `p` with a write the compiler may not elide.
inline void secure_zero(void* p, std::size_t n) noexcept {
  if (p != nullptr && n != 0) sodium_memzero(p, n);
}

/// std::allocator that zeroes every block before releasing it.
template <class T>
struct wiping_allocator {
  using value_type = T;
  wiping_allocator() noexcept = default;
  template <class U>
  wiping_allocator(const wiping_allocator<U>&) noexcept {}  // NOLINT: rebind
  [[nodiscard]] T* allocate(std::size_t n) { return std::allocator<T>{}.allocate(n); }
  void deallocate(T* p, std::size_t n) noexcept {
    secure_zero(p, n * sizeof(T));
    std::allocator<T>{}.deallocate(p, n);
  }
  template <class U>
  friend bool operator==(const wiping_allocator&, const wiping_allocator<U>&) noexcept {
    return true;
  }
};

/// A vector whose storage is zeroed when it is released (destruction and
/// growth alike: the old block of a reallocation goes through deallocate).
template <class T>
using wiping_vector = std::vector<T, wiping_allocator<T>>;

}  // namespace privet::detail
