// The spam filter's 4-gram features against a naive reference (std::set of
// memcpy'd windows mod d) on random byte strings, plus the documented edges.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform.hpp>
#include <privet/sketches/char_ngrams.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace {
std::vector<std::uint32_t> naive(const std::string& text, std::uint32_t d, std::size_t max_bytes) {
  std::set<std::uint32_t> s;
  const std::size_t n = std::min(text.size(), max_bytes);
  for (std::size_t i = 0; i + 4 <= n; ++i) {
    std::uint32_t v = 0;
    for (int b = 3; b >= 0; --b)
      v = (v << 8) | static_cast<unsigned char>(text[i + static_cast<std::size_t>(b)]);
    s.insert(v % d);
  }
  return {s.begin(), s.end()};
}
}  // namespace

TEST_CASE("4-gram features equal the naive windows modulo d") {
  privet::testing::seeded_release_generator gen(9);
  for (std::uint32_t d : {1u, 7u, 10'000u, 1'000'000u, 1u << 26}) {
    for (int trial = 0; trial < 10; ++trial) {
      std::string text(privet::uniform_below(gen, 3000), '\0');
      for (auto& c : text) c = static_cast<char>(privet::uniform_below(gen, trial % 2 ? 256 : 4));
      const std::size_t max_bytes = trial == 3 ? 100 : privet::spam_filter_prefix_bytes;
      CAPTURE(d);
      CHECK(privet::char4gram_features(text, d, max_bytes) == naive(text, d, max_bytes));
    }
  }
}

TEST_CASE("the window is little-endian on every machine, and only the prefix counts") {
  // "abcd" = 0x64636261.
  CHECK(privet::char4gram_features("abcd", 1u << 26) ==
        std::vector<std::uint32_t>{0x64636261u % (1u << 26)});
  CHECK(privet::char4gram_features("abcd", 1000) == std::vector<std::uint32_t>{0x64636261u % 1000});
  CHECK(privet::char4gram_features("abc", 1000).empty());
  CHECK(privet::char4gram_features("", 1000).empty());
  std::string long_text(40'000, 'x');
  long_text.replace(36'000, 4, "spam");  // past the 35 KB prefix: ignored
  CHECK(privet::char4gram_features(long_text, 1'000'000).size() == 1);
  CHECK(privet::char4gram_features(long_text, 1'000'000, long_text.size()).size() == 8);
}

TEST_CASE("bad feature space sizes throw, naming d") {
  CHECK_THROWS_WITH_AS(privet::char4gram_features("abcd", 0),
                       "privet: d = 0 is invalid; allowed: [1, 2^26]", privet::invalid_parameter);
  CHECK_THROWS_AS(privet::char4gram_features("abcd", (1u << 26) + 1), privet::invalid_parameter);
}
