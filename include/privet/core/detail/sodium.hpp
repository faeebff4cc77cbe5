// privet/core/detail/sodium.hpp — one-time libsodium initialisation and a
// fork generation counter, so that a buffered generator never hands the
// same bytes to a parent and its forked child.
#pragma once

#include <privet/core/error.hpp>

#include <sodium.h>

#include <pthread.h>
#include <cstdint>

namespace privet::detail {

// The counter is read and incremented with the compiler's atomic builtins
// (GCC and Clang, like the 128-bit integers of int128.hpp) rather than
// std::atomic: <atomic> would add about 5 k lines to every translation unit
// that includes <privet/core/core.hpp>, for one relaxed counter.
inline std::uint64_t& fork_generation_counter() noexcept {
  static std::uint64_t generation = 0;
  return generation;
}

inline void on_fork_in_child() noexcept {
  __atomic_fetch_add(&fork_generation_counter(), 1, __ATOMIC_RELAXED);
}

/// Initialises libsodium exactly once (thread-safe); throws privet::error if
/// the system offers no usable entropy source.
inline void ensure_sodium() {
  static const bool ready = [] {
    if (sodium_init() < 0) {
      throw error("privet: libsodium could not be initialised (no entropy source available)");
    }
    pthread_atfork(nullptr, nullptr, &on_fork_in_child);
    return true;
  }();
  (void)ready;
}

inline std::uint64_t fork_generation() noexcept {
  return __atomic_load_n(&fork_generation_counter(), __ATOMIC_RELAXED);
}

}  // namespace privet::detail
