// The shared parallel loop: every index runs exactly once on any thread
// count, threads are validated, and streams_from makes per-task randomness
// a function of the caller's generator alone.
#include <privet/core/parallel.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>

#include <support/errors.hpp>

#include <doctest/doctest.h>

#include <atomic>
#include <cstdint>
#include <vector>

TEST_CASE("parallel_for_index runs every index once, on any thread count") {
  for (const std::size_t threads : {0u, 1u, 2u, 7u}) {
    for (const std::size_t count : {0u, 1u, 2u, 1000u}) {
      std::vector<std::atomic<int>> hits(count);
      privet::parallel_for_index(count, privet::parallel_options{threads},
                                 [&](std::size_t i) { hits[i].fetch_add(1); });
      CAPTURE(threads);
      CAPTURE(count);
      for (const auto& h : hits) CHECK(h.load() == 1);
    }
  }
}

TEST_CASE("per-index streams from one generator do not depend on the thread count") {
  auto draw = [](std::size_t threads) {
    privet::testing::seeded_release_generator gen(42);
    const auto streams = privet::streams_from(gen);
    std::vector<std::uint64_t> out(300);
    privet::parallel_for_index(out.size(), privet::parallel_options{threads}, [&](std::size_t i) {
      auto s = streams.stream(i);
      out[i] = s();
    });
    return out;
  };
  const auto one = draw(1);
  CHECK(draw(2) == one);
  CHECK(draw(0) == one);
  // Indices get distinct streams, and another seed gives other streams.
  CHECK(one[0] != one[1]);
  privet::testing::seeded_release_generator other(43);
  CHECK(privet::streams_from(other).stream(0)() != one[0]);
}

TEST_CASE("parallel options above the limit are refused by name") {
  const privet::parallel_options bad{privet::max_parallel_threads + 1};
  CHECK_THROWS_WITH_AS(privet::validate_parallel_options(bad),
                       "privet: threads = 4097 is invalid; allowed: [0, 4096] (0: every core TBB "
                       "may use, 1: the calling thread only)",
                       privet::invalid_parameter);
  CHECK(privet::test::rejected_parameter(
            [&] { privet::parallel_for_index(3, bad, [](std::size_t) {}); }) == "threads");
}
