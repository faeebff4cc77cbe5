// Resource limits of the n-gram table (privet/sketches/ngrams.hpp): a gram
// of 10^5 distinct words, and one of 10^6 repeats of a word, are interned,
// spelled and have their suffix found in time and memory linear in their
// length, without one stack frame per word (a recursion 10^6 deep would
// overflow the stack).
#include <privet/core/error.hpp>
#include <privet/sketches/ngrams.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

using privet::ngram_table;

TEST_CASE("a gram of 10^5 distinct words: words, spelling and suffix") {
  constexpr std::size_t n = 100'000;
  ngram_table t;
  std::vector<ngram_table::id> words(n);
  for (std::size_t i = 0; i < n; ++i) words[i] = t.word("w" + std::to_string(i));
  // The gram w0..w(n-1), and w1..w(n-1), its suffix.
  ngram_table::id g = words[0];
  for (std::size_t i = 1; i < n; ++i) g = t.extend(g, words[i]);
  ngram_table::id s = words[1];
  for (std::size_t i = 2; i < n; ++i) s = t.extend(s, words[i]);
  CHECK(t.length(g) == n);
  CHECK(t.words_of(g) == words);
  CHECK(t.suffix(g) == s);
  CHECK(t.suffix_of(t.prefix(g), words[n - 1]) == s);
  // A suffix that was never interned is absent, not an error.
  CHECK(t.suffix_of(t.prefix(g), words[0]) == std::nullopt);
  std::string expected = "w0";
  for (std::size_t i = 1; i < n; ++i) expected += " w" + std::to_string(i);
  CHECK(t.text(g) == expected);
  CHECK(t.size() == n + (n - 1) + (n - 2));
}

TEST_CASE("a gram of 10^6 repeats of one word has its suffix found without deep recursion") {
  constexpr std::size_t n = 1'000'000;
  ngram_table t;
  const ngram_table::id a = t.word("a");
  std::vector<ngram_table::id> grams{a};  // grams[k - 1] = a^k
  for (std::size_t k = 2; k <= n; ++k) grams.push_back(t.extend(grams.back(), a));
  CHECK(t.length(grams.back()) == n);
  CHECK(t.suffix(grams.back()) == grams[n - 2]);
  CHECK(t.suffix_of(grams.back(), a) == grams.back());  // a^(n+1)'s suffix is a^n
  CHECK(t.suffix(grams[1]) == a);                       // the shortest case: a.a
  CHECK_THROWS_WITH_AS((void)t.suffix(a),
                       "privet: g = 0 is invalid; allowed: a gram of length >= 2 (a word has no "
                       "suffix gram)",
                       privet::invalid_parameter);
}
