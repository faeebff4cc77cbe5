// privet/core/parallel.hpp — the parallel loop every layer shares: a body
// run for each index of a range on TBB, in an arena of a chosen number of
// threads, and (through `streams_from`, core/keyed_streams.hpp) the keyed
// streams that give each index its own randomness. Not in <privet/core/core.hpp>:
// TBB's headers add about 70 k preprocessed lines, so only the layers that
// run parallel loops include this one.
//
// Why keyed streams with the loop: randomness drawn by parallel tasks from
// one generator would depend on the schedule. Drawing one secret from the
// caller's generator and giving index i the stream i of keyed_streams
// (core/keyed_streams.hpp) makes the result a function of the generator's
// state alone, the same on 1 thread or 64, and, with a secret from a
// CSPRNG, release grade.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/detail/sodium.hpp>
#include <privet/core/keyed_streams.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <utility>

namespace privet {

/// How many threads a parallel operation may use: 0 for every core TBB may
/// use, 1 for the calling thread only.
struct parallel_options {
  /// Thread count, 0 (TBB's default) to max_parallel_threads; more than the
  /// cores TBB may use is capped to them.
  std::size_t threads = 0;
};

/// Largest `parallel_options::threads` accepted.
inline constexpr std::size_t max_parallel_threads = 4096;

/// Throws invalid_parameter naming `threads` when it is above
/// max_parallel_threads.
inline void validate_parallel_options(const parallel_options& options) {
  if (options.threads > max_parallel_threads) {
    throw_invalid("threads", options.threads,
                  "[0, " + std::to_string(max_parallel_threads) +
                      "] (0: every core TBB may use, 1: the calling thread only)");
  }
}

/// f() inside an arena of options.threads threads (TBB's default arena for
/// 0). More threads than TBB's default concurrency (the cores it may use)
/// would only queue behind each other, and TBB warns about them: capped.
template <class F>
decltype(auto) in_arena(const parallel_options& options, F&& f) {
  validate_parallel_options(options);
  if (options.threads == 0) return std::forward<F>(f)();
  const auto cores = static_cast<std::size_t>(std::max(1, tbb::info::default_concurrency()));
  tbb::task_arena arena(static_cast<int>(std::min(options.threads, cores)));
  return arena.execute(std::forward<F>(f));
}

/// body(i) for every i < count, on options.threads threads. body must write
/// only data of its own index and read only immutable shared data; then the
/// result does not depend on the schedule.
template <class Body>
void parallel_for_index(std::size_t count, const parallel_options& options, Body&& body) {
  validate_parallel_options(options);
  if (options.threads == 1 || count < 2) {
    for (std::size_t i = 0; i < count; ++i) body(i);
    return;
  }
  in_arena(options, [&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, count, 1),
                      [&](const tbb::blocked_range<std::size_t>& r) {
                        for (std::size_t i = r.begin(); i != r.end(); ++i) body(i);
                      });
  });
}

}  // namespace privet
