// Unit tests of uniform_subset: sizes, distinctness, range, validation,
// determinism, and that memory does not grow with n.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/uniform_subset.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <vector>

TEST_CASE("uniform_subset returns m distinct values below n") {
  privet::seeded_generator gen(1);
  for (const auto& nm : {std::pair<std::uint64_t, std::uint64_t>{1, 1},
                         {10, 0},
                         {10, 10},
                         {10, 3},
                         {1'000'000, 46},
                         {1'000'000, 300'000},
                         {UINT64_MAX - 1, 100}}) {
    const std::uint64_t n = nm.first, m = nm.second;
    const auto out = privet::uniform_subset(gen, n, m);
    CAPTURE(n);
    CAPTURE(m);
    REQUIRE(out.size() == m);
    const std::set<std::uint64_t> distinct(out.begin(), out.end());
    CHECK(distinct.size() == m);
    CHECK(std::all_of(out.begin(), out.end(), [&](std::uint64_t v) { return v < n; }));
  }
}

TEST_CASE("uniform_subset appends, keeping what the vector held") {
  privet::seeded_generator gen(2);
  std::vector<std::uint64_t> out{7, 7};
  privet::uniform_subset(gen, 5, 5, out);
  REQUIRE(out.size() == 7);
  CHECK(out[0] == 7);
  CHECK(out[1] == 7);
  std::sort(out.begin() + 2, out.end());
  CHECK(out == std::vector<std::uint64_t>{7, 7, 0, 1, 2, 3, 4});
}

TEST_CASE("uniform_subset validates m and n") {
  privet::seeded_generator gen(3);
  CHECK_THROWS_WITH_AS(privet::uniform_subset(gen, 4, 5),
                       "privet: m = 5 is invalid; allowed: [0, n] = [0, 4]",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::uniform_subset(gen, UINT64_MAX, 1),
                       "privet: n = 18446744073709551615 is invalid; allowed: < 2^64 - 1",
                       privet::invalid_parameter);
}

TEST_CASE("uniform_subset is a deterministic function of the seed") {
  privet::seeded_generator a(4), b(4), c(5);
  const auto x = privet::uniform_subset(a, 1000, 20);
  CHECK(x == privet::uniform_subset(b, 1000, 20));
  CHECK(x != privet::uniform_subset(c, 1000, 20));
}

TEST_CASE("uniform_subset reuses its table across calls of any size") {
  // Large then small then large again: a stale slot must never count as
  // kept, and m = n must give every value once (Floyd's j path, taken on
  // every collision, under batched draws).
  privet::seeded_generator gen(6);
  for (const auto& nm : {std::pair<std::uint64_t, std::uint64_t>{1'000'000, 300'000},
                         {1'000'000, 45},
                         {980'100, 45},
                         {1000, 1000},
                         {1'000'000, 100'000},
                         {3, 2},
                         {1000, 1000}}) {
    const std::uint64_t n = nm.first, m = nm.second;
    const auto out = privet::uniform_subset(gen, n, m);
    CAPTURE(n);
    CAPTURE(m);
    REQUIRE(out.size() == m);
    const std::set<std::uint64_t> distinct(out.begin(), out.end());
    CHECK(distinct.size() == m);
    CHECK(*distinct.rbegin() < n);
    if (m == n) CHECK(*distinct.rbegin() == n - 1);
  }
}

namespace {
// A seeded stream that throws after `left` words, as a generator may.
struct failing_generator {
  using result_type = std::uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~std::uint64_t{0}; }
  privet::seeded_generator inner;
  int left;
  result_type operator()() {
    if (left-- == 0) throw std::runtime_error("generator failed");
    return inner();
  }
};
}  // namespace

TEST_CASE("uniform_subset leaves no trace of a call its generator aborted") {
  // Small n uses a bitmap that must be all zero between calls: an aborted
  // call clears what it set, or the next m = n call would repeat values.
  failing_generator bad{privet::seeded_generator(9), 40};
  std::vector<std::uint64_t> out;
  CHECK_THROWS_AS(privet::uniform_subset(bad, 1000, 900, out), std::runtime_error);
  privet::seeded_generator gen(10);
  const auto all = privet::uniform_subset(gen, 1000, 1000);
  CHECK(std::set<std::uint64_t>(all.begin(), all.end()).size() == 1000);
  failing_generator bad_hash{privet::seeded_generator(9), 5};
  CHECK_THROWS_AS(privet::uniform_subset(bad_hash, 1'000'000, 45), std::runtime_error);
  const auto some = privet::uniform_subset(gen, 1'000'000, 45);
  CHECK(std::set<std::uint64_t>(some.begin(), some.end()).size() == 45);
}
