// Keyed streams: determinism, independence of addresses, and the secret.
#include <privet/core/keyed_streams.hpp>
#include <privet/core/testing.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <new>
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

TEST_CASE("a keyed stream's subkey is zeroed when the stream is destroyed") {
  // The subkey of stream (a, b), recomputed from the documented construction
  // (BLAKE2b-256 keyed with the secret over "privet.keyed_streams.v1" || a || b,
  // little-endian), is in the stream's bytes while it lives and nowhere in
  // them after its destructor has run (the storage outlives the object).
  const auto s = privet::testing::seeded_keyed_streams(11);
  const std::uint64_t a = 3, b = 9;
  static constexpr char domain[] = "privet.keyed_streams.v1";
  std::array<unsigned char, sizeof(domain) - 1 + 16> input{};
  std::memcpy(input.data(), domain, sizeof(domain) - 1);
  for (int i = 0; i < 8; ++i) {
    input[sizeof(domain) - 1 + static_cast<std::size_t>(i)] =
        static_cast<unsigned char>(a >> (8 * i));
    input[sizeof(domain) - 1 + 8 + static_cast<std::size_t>(i)] =
        static_cast<unsigned char>(b >> (8 * i));
  }
  std::array<unsigned char, 32> subkey{};
  crypto_generichash(subkey.data(), subkey.size(), input.data(), input.size(), s.secret().data(),
                     s.secret().size());
  alignas(privet::keyed_stream) unsigned char storage[sizeof(privet::keyed_stream)];
  const auto holds_subkey = [&] {
    return std::search(std::begin(storage), std::end(storage), subkey.begin(), subkey.end()) !=
           std::end(storage);
  };
  auto* stream = new (storage) privet::keyed_stream(s.stream(a, b));
  CHECK((*stream)() == s.stream(a, b)());  // the recomputed subkey is this stream's
  CHECK(holds_subkey());
  stream->~keyed_stream();
  CHECK_FALSE(holds_subkey());
}
