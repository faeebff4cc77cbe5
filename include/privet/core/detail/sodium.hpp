// privet/core/detail/sodium.hpp — one-time libsodium initialisation and a
// fork generation counter, so that a buffered generator never hands the
// same bytes to a parent and its forked child.
#pragma once

#include <privet/core/error.hpp>

#include <sodium.h>

#include <pthread.h>
#include <atomic>
#include <cstdint>

namespace privet::detail {

inline std::atomic<std::uint64_t>& fork_generation_counter() noexcept {
  static std::atomic<std::uint64_t> generation{0};
  return generation;
}

inline void on_fork_in_child() noexcept {
  fork_generation_counter().fetch_add(1, std::memory_order_relaxed);
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
  return fork_generation_counter().load(std::memory_order_relaxed);
}

}  // namespace privet::detail
