// Resource limits of the word tokenizer (privet/sketches/tokenizer.hpp).
// Its input is a string_view, so the text itself is the caller's memory;
// what the tokenizer adds is one word at a time: for_each over 32 MiB of
// short words allocates nothing per word, and the longest word (here one
// of 16 MiB, a maximal run of letters as the header defines a word) is
// delivered whole, its buffer the only memory that grows with it.
#include <privet/sketches/tokenizer.hpp>

#include <doctest/doctest.h>
#include <support/memory.hpp>

#include <cstddef>
#include <string>
#include <string_view>

using privet::test::mebibyte;
using privet::test::peak_rss_probe;

TEST_CASE("for_each over 32 MiB of words holds one word at a time") {
  const std::string unit = "Größe don't ";  // two words, lowercased to "größe" and "don't"
  std::string text;
  text.reserve(32 * mebibyte);
  while (text.size() + unit.size() <= 32 * mebibyte) text += unit;
  const std::size_t expected = text.size() / unit.size() * 2;
  const privet::word_tokenizer tok;
  std::size_t words = 0, bytes = 0;
  const peak_rss_probe probe;
  tok.for_each(text, [&](std::string_view w) {
    ++words;
    bytes += w.size();
  });
  const std::size_t growth = probe.growth();
  CHECK(words == expected);
  CHECK(bytes == expected / 2 * (unit.size() - 2));
  // Memory: one word's buffer, not the 4.8 million words (operator() would
  // hold them all: about 180 MB). Limit 4 MiB; skipped under
  // AddressSanitizer, whose shadow memory and quarantine make resident
  // sizes meaningless.
  MESSAGE("peak RSS growth tokenizing 32 MiB: " << growth / 1024 << " KiB");
  if constexpr (!privet::test::address_sanitizer) CHECK(growth < 4 * mebibyte);
}

TEST_CASE("a 16 MiB run of letters is one word, delivered whole") {
  const std::string text = "start " + std::string(16 * mebibyte, 'A') + " end";
  const privet::word_tokenizer tok;
  std::size_t words = 0;
  std::size_t longest = 0;
  bool lowered = true;
  const peak_rss_probe probe;
  tok.for_each(text, [&](std::string_view w) {
    ++words;
    if (w.size() > longest) {
      longest = w.size();
      lowered = w.find_first_not_of('a') == std::string_view::npos;
    }
  });
  const std::size_t growth = probe.growth();
  CHECK(words == 3);
  CHECK(longest == 16 * mebibyte);
  CHECK(lowered);
  // The word's buffer and nothing per letter: the buffer grows by doubling,
  // so while it moves the old and the new copy (up to 3 times the word) are
  // held. Limit 64 MiB, about 4 times the word; skipped under
  // AddressSanitizer as above.
  MESSAGE("peak RSS growth for a 16 MiB word: " << growth / 1024 << " KiB");
  if constexpr (!privet::test::address_sanitizer) CHECK(growth < 64 * mebibyte);
}
