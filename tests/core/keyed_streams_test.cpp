// Keyed streams: determinism, independence of addresses, and the secret.
#include <privet/core/keyed_streams.hpp>
#include <privet/core/testing.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <set>

TEST_CASE("keyed streams are reproducible per address and distinct across addresses") {
  const auto s = privet::testing::seeded_keyed_streams(7);
  auto a = s.stream(1, 2), a2 = s.stream(1, 2), b = s.stream(2, 1), c = s.stream(1, 3);
  std::set<std::uint64_t> firsts;
  for (int i = 0; i < 100; ++i) {
    const std::uint64_t x = a();
    CHECK(x == a2());
    firsts.insert(x);
  }
  CHECK(b() != s.stream(1, 2)());
  CHECK(c() != s.stream(1, 2)());
  CHECK(firsts.size() == 100);
  // The same secret handed to another process gives the same streams.
  const privet::keyed_streams copy(s.secret());
  CHECK(copy.stream(5)() == s.stream(5)());
  // Other seeds and fresh secrets differ.
  CHECK(privet::testing::seeded_keyed_streams(8).stream(5)() != s.stream(5)());
  const privet::keyed_streams fresh1, fresh2;
  CHECK(fresh1.secret() != fresh2.secret());
}

TEST_CASE("a keyed stream's bits are balanced") {
  // 64 * 10^4 bits of stream (3, 4): the count of ones is within 4.9
  // standard deviations of half (two-sided false-alarm rate 1e-6).
  auto g = privet::testing::seeded_keyed_streams(1).stream(3, 4);
  long ones = 0;
  for (int i = 0; i < 10'000; ++i) ones += __builtin_popcountll(g());
  const double n = 64.0 * 10'000, sd = std::sqrt(n / 4);
  CHECK(std::fabs(static_cast<double>(ones) - n / 2) <= 4.9 * sd);
}
