// Word n-grams: interning against a naive reference on random texts
// (including non-ASCII words), prefix/suffix structure, DPNE's validity
// check, and errors.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform.hpp>
#include <privet/sketches/ngrams.hpp>

#include <doctest/doctest.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

using id = privet::ngram_table::id;

TEST_CASE("every n-gram up to T matches a naive reference on random texts") {
  privet::testing::seeded_release_generator gen(5);
  const std::vector<std::string> vocabulary{"the", "cat",   "sat",  "on",
                                            "mat", "naïve", "café", "日本"};
  for (int trial = 0; trial < 20; ++trial) {
    privet::ngram_table table;
    std::vector<std::string> text;
    std::vector<id> tokens;
    const auto n = privet::uniform_below(gen, 60);
    for (std::uint64_t i = 0; i < n; ++i) {
      text.push_back(vocabulary[privet::uniform_below(gen, vocabulary.size())]);
      tokens.push_back(table.word(text.back()));
    }
    const std::size_t t = 1 + privet::uniform_below(gen, 9);
    // Naive: the joined string of every window, counted.
    std::map<std::string, int> expected;
    for (std::size_t s = 0; s < text.size(); ++s) {
      std::string gram;
      for (std::size_t k = 1; k <= t && s + k <= text.size(); ++k) {
        gram += (k > 1 ? " " : "") + text[s + k - 1];
        ++expected[gram];
      }
    }
    std::map<std::string, int> got;
    std::map<std::string, id> ids;
    table.for_each_ngram(tokens, t, [&](id g, std::size_t length, std::size_t start) {
      const std::string s = table.text(g);
      ++got[s];
      CHECK(table.length(g) == length);
      CHECK(table.words_of(g) ==
            std::vector<id>(tokens.begin() + static_cast<long>(start),
                            tokens.begin() + static_cast<long>(start + length)));
      const auto [it, fresh] = ids.try_emplace(s, g);
      CHECK(it->second == g);  // one id per distinct gram
    });
    CHECK(got == expected);
  }
}

TEST_CASE("prefix, suffix and DPNE's validity check") {
  privet::ngram_table t;
  const id a = t.word("a"), b = t.word("b"), c = t.word("c");
  CHECK(t.word("b") == b);
  CHECK(*t.find_word("c") == c);
  CHECK_FALSE(t.find_word("d").has_value());
  const id ab = t.extend(a, b), abc = t.extend(ab, c);
  CHECK(t.prefix(abc) == ab);
  CHECK(t.last_word(abc) == c);
  CHECK(t.suffix(ab) == b);
  CHECK_FALSE(t.suffix(abc).has_value());  // "b c" not interned yet
  CHECK_FALSE(t.suffix_of(ab, c).has_value());
  const id bc = t.extend(b, c);
  CHECK(t.suffix(abc) == bc);
  CHECK(t.suffix_of(ab, c) == bc);
  // A 4-gram's suffix goes through the suffixes of its prefixes.
  const id abcd = t.extend(abc, t.word("d"));
  CHECK_FALSE(t.suffix(abcd).has_value());
  const id bcd = t.extend(bc, t.word("d"));
  CHECK(t.suffix(abcd) == bcd);
  CHECK(t.text(abcd, "_") == "a_b_c_d");
}

TEST_CASE("bad n-gram inputs throw, naming the parameter") {
  privet::ngram_table t;
  const id a = t.word("a"), b = t.word("b");
  const id ab = t.extend(a, b);
  CHECK_THROWS_WITH_AS((void)t.extend(a, ab),
                       "privet: w = 2 is invalid; allowed: the id of a word (a 1-gram)",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)t.extend(7, a),
                       "privet: prefix = 7 is invalid; allowed: an id from this table (< 3)",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)t.suffix(a),
                       "privet: g = 0 is invalid; allowed: a gram of length >= 2 (a word has no "
                       "suffix gram)",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)t.prefix(a),
                       "privet: g = 0 is invalid; allowed: a gram of length >= 2 (a word has no "
                       "prefix)",
                       privet::invalid_parameter);
  // An id the table never handed out, for every accessor of a gram.
  const std::string not_an_id = "privet: g = 3 is invalid; allowed: an id from this table (< 3)";
  CHECK_THROWS_WITH_AS((void)t.suffix(3), not_an_id.c_str(), privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)t.prefix(3), not_an_id.c_str(), privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)t.last_word(3), not_an_id.c_str(), privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)t.words_of(3), not_an_id.c_str(), privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)t.length(3), not_an_id.c_str(), privet::invalid_parameter);
  const std::vector<id> tokens{a, b};
  CHECK_THROWS_WITH_AS(t.for_each_ngram(tokens, 0, [](id, std::size_t, std::size_t) {}),
                       "privet: max_length = 0 is invalid; allowed: >= 1",
                       privet::invalid_parameter);
  // The caller's own argument is named, and f sees nothing of a refused call.
  const std::vector<id> bad{a, ab};
  int calls = 0;
  CHECK_THROWS_WITH_AS(
      t.for_each_ngram(bad, 2, [&calls](id, std::size_t, std::size_t) { ++calls; }),
      "privet: tokens[1] = 2 is invalid; allowed: the id of a word (a 1-gram) of this table",
      privet::invalid_parameter);
  const std::vector<id> beyond{a, b, 7};
  CHECK_THROWS_WITH_AS(
      t.for_each_ngram(beyond, 2, [&calls](id, std::size_t, std::size_t) { ++calls; }),
      "privet: tokens[2] = 7 is invalid; allowed: the id of a word (a 1-gram) of this table",
      privet::invalid_parameter);
  CHECK(calls == 0);
}

TEST_CASE("a copied ngram_table spells its grams after the original is gone") {
  // The spellings view the word map's keys: a copy used to view the
  // original's, and read freed memory once the original was destroyed.
  auto original = std::make_unique<privet::ngram_table>();
  const auto a = original->word("alpha");
  const auto ab = original->extend(a, original->word("beta"));
  privet::ngram_table copy(*original);
  privet::ngram_table assigned;
  assigned.word("unrelated");
  assigned = *original;
  original.reset();
  CHECK(copy.text(ab) == "alpha beta");
  CHECK(assigned.text(ab) == "alpha beta");
  copy.word("gamma");  // the copy interns on its own
  CHECK(copy.text(*copy.find_word("gamma")) == "gamma");
  privet::ngram_table moved(std::move(copy));
  CHECK(moved.text(ab) == "alpha beta");
}
