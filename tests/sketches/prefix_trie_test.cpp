// The TrieHH prefix trie: layers, candidate numbering both ways, extension
// with words, queries, and errors.
#include <privet/sketches/prefix_trie.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {
using trie = privet::prefix_trie<char>;
trie abc() {
  return trie({'a', 'b', 'c'}, '$');
}
std::uint64_t index_of(const trie& t, const std::string& s) {
  return t.candidate_index(s).value();
}
}  // namespace

TEST_CASE("layer 0 is the alphabet; candidates are its extensions by X and the end symbol") {
  const auto t = abc();
  CHECK(t.alphabet_size() == 4);
  CHECK(t.depth() == 1);
  REQUIRE(t.layer(0).size() == 3);
  CHECK(t.prefix(t.layer(0)[1]) == "b");
  CHECK(t.candidate_count() == 12);
  // parent position * |X| + symbol index: "ba" = 1 * 4 + 0, "c$" = 2 * 4 + 3.
  CHECK(index_of(t, "ba") == 4);
  CHECK(index_of(t, "c$") == 11);
  for (std::uint64_t i = 0; i < t.candidate_count(); ++i) CHECK(index_of(t, t.candidate(i)) == i);
  CHECK_FALSE(t.candidate_index("a").has_value());   // wrong length
  CHECK_FALSE(t.candidate_index("ax").has_value());  // x not in X
  CHECK_FALSE(t.candidate_index("$a").has_value());  // "$" is not a kept prefix
}

TEST_CASE("extending keeps prefixes, records words, and renumbers candidates") {
  auto t = abc();
  const std::vector<std::uint64_t> kept{index_of(t, "ca"), index_of(t, "a$"), index_of(t, "ab")};
  t.extend(kept);
  CHECK(t.depth() == 2);
  REQUIRE(t.layer(1).size() == 2);  // "ab", "ca" (candidate order); "a$" is a word
  CHECK(t.prefix(t.layer(1)[0]) == "ab");
  CHECK(t.prefix(t.layer(1)[1]) == "ca");
  CHECK(t.words() == std::vector<std::string>{"a"});
  CHECK(t.contains("ab"));
  CHECK(t.contains("a$"));
  CHECK_FALSE(t.contains("ba"));
  CHECK(t.is_word(*t.find("a$")));
  CHECK(t.children(*t.find("a")).size() == 2);  // "ab" and "a$"
  CHECK(t.candidate_count() == 8);
  CHECK(index_of(t, "cab") == 4 + 1);
  CHECK(t.candidate(7) == "ca$");
  CHECK_FALSE(t.candidate_index("bab").has_value());  // "ba" was not kept
  t.extend(std::vector<std::uint64_t>{index_of(t, "ca$"), index_of(t, "ab$")});
  CHECK(t.words() == std::vector<std::string>{"a", "ab", "ca"});
  CHECK(t.layer(2).empty());
  CHECK(t.candidate_count() == 0);
}

TEST_CASE("works on Unicode code points") {
  privet::prefix_trie<char32_t> t({U'é', U'ß', U'中'}, U'\0');
  t.extend(std::vector<std::uint64_t>{t.candidate_index(U"中ß").value()});
  CHECK(t.prefix(t.layer(1)[0]) == U"中ß");
}

TEST_CASE("bad trie inputs throw, naming the parameter; a refused extension changes nothing") {
  CHECK_THROWS_WITH_AS(trie({}, '$'), "privet: alphabet is empty; allowed: at least one element",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(
      trie({'a', 'b', 'a'}, '$'),
      "privet: alphabet[2] = 97 is invalid; allowed: a symbol not already in the alphabet",
      privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(trie({'a', '$'}, '$'),
                       "privet: alphabet[1] = 36 is invalid; allowed: any symbol but end_of_word",
                       privet::invalid_parameter);
  auto t = abc();
  CHECK_THROWS_WITH_AS(t.extend(std::vector<std::uint64_t>{3, 12}),
                       "privet: kept[1] = 12 is invalid; allowed: [0, candidate_count()) = [0, 12)",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(t.extend(std::vector<std::uint64_t>{5, 3, 1, 3}),
                       "privet: kept[3] = 3 is invalid; allowed: no repeats (kept[1] holds it too)",
                       privet::invalid_parameter);
  CHECK(t.depth() == 1);
  CHECK_THROWS_WITH_AS((void)t.candidate(12),
                       "privet: index = 12 is invalid; allowed: [0, candidate_count()) = [0, 12)",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)t.layer(1),
                       "privet: layer = 1 is invalid; allowed: [0, depth()) = [0, 1)",
                       privet::invalid_parameter);
  CHECK(t.symbol(3) == '$');
  CHECK_THROWS_WITH_AS((void)t.symbol(4),
                       "privet: i = 4 is invalid; allowed: [0, alphabet_size()) = [0, 4)",
                       privet::invalid_parameter);
  // Three nodes (a, b, c): node 3 does not exist yet.
  CHECK(t.prefix(2) == "c");
  const std::string no_node = "privet: node = 3 is invalid; allowed: [0, 3)";
  CHECK_THROWS_WITH_AS((void)t.children(3), no_node.c_str(), privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)t.prefix(3), no_node.c_str(), privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)t.is_word(3), no_node.c_str(), privet::invalid_parameter);
}
