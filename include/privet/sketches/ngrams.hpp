// privet/sketches/ngrams.hpp — word n-grams as interned ids, for DPNE (Kim,
// Gopi, Kulkarni & Yekhanin 2021, "Differentially Private n-gram Extraction",
// NeurIPS; algorithms/dpne.hpp): every n-gram of every length up to T gets a
// 32-bit id without its words ever being copied into a per-gram string.
//
// A word is a 1-gram; a k-gram (k >= 2) is stored as the pair (id of its
// (k-1)-gram prefix, id of its last word), so extending a gram by one word
// is one hash lookup and a text of N words yields its N T grams in O(N T).
// The same structure answers DPNE's validity check for a k-gram x.y.z built
// from a kept prefix x.y: its suffix y.z must be kept too, and y.z is found
// from the suffix of x.y and z in O(k) lookups (suffix_of).
#pragma once

#include <privet/core/detail/hash.hpp>
#include <privet/core/error.hpp>
#include <privet/core/validate.hpp>
#include <privet/sketches/detail/string_hash.hpp>

#include <tsl/robin_map.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace privet {

/// Interned word n-grams for DPNE (Kim, Gopi, Kulkarni & Yekhanin 2021,
/// "Differentially Private n-gram Extraction"): every word and every gram
/// gets a dense 32-bit id in order of first interning (so the ids index a
/// dense_histogram), a k-gram stored as (id of its (k-1)-gram prefix, id of
/// its last word). Interning or finding a one-word extension is one
/// expected-O(1) hash lookup, so for_each_ngram() yields the N T grams of a
/// text of N words in O(N T); suffix_of() answers DPNE's validity check in
/// O(k) lookups. At most 2^32 - 1 grams (overflow_error beyond). Every id
/// argument is checked: an id not from this table throws invalid_parameter.
class ngram_table {
 public:
  using id = std::uint32_t;  ///< A gram's id: its index in order of interning.

  /// An empty table.
  ngram_table() = default;
  /// A deep copy, with its own word spellings.
  // spelling_ views the keys of words_: a copy must view its own keys, not
  // the original's (which a moved-from or destroyed original no longer has).
  ngram_table(const ngram_table& other)
      : nodes_(other.nodes_), words_(other.words_), children_(other.children_) {
    respell();
  }
  /// Replaces this table with a deep copy of `other`.
  ngram_table& operator=(const ngram_table& other) {
    if (this != &other) {
      ngram_table copy(other);
      *this = std::move(copy);
    }
    return *this;
  }
  /// Moves keep the ids; the moved-from table is left valid but unspecified.
  ///@{
  // Moving a node-based map hands over its nodes, so the views stay valid.
  ngram_table(ngram_table&&) noexcept = default;
  ngram_table& operator=(ngram_table&&) noexcept = default;
  ///@}
  ~ngram_table() = default;

  /// The id of word `w` (a 1-gram), interning it if new. Throws
  /// overflow_error when the table already holds 2^32 - 1 grams.
  id word(std::string_view w) {
    if (const auto it = words_.find(w); it != words_.end()) return it->second;
    const id g = add(none, 0);
    nodes_[g].last = g;
    const auto it = words_.emplace(std::string(w), g).first;
    spelling_.emplace(g, std::string_view(it->first));  // keys of a node-based map stay put
    return g;
  }

  /// The id of word `w` if interned (nothing is interned).
  [[nodiscard]] std::optional<id> find_word(std::string_view w) const {
    const auto it = words_.find(w);
    if (it == words_.end()) return std::nullopt;
    return it->second;
  }

  /// The id of gram `prefix` followed by word `w` (a 1-gram id), interning
  /// it. Throws invalid_parameter naming `prefix` or `w` for an id not from
  /// this table or a `w` that is not a word, and overflow_error when the
  /// table is full.
  id extend(id prefix, id w) {
    check(prefix, "prefix");
    check_word(w);
    if (const auto it = children_.find(key(prefix, w)); it != children_.end()) return it->second;
    const id g = add(prefix, nodes_[prefix].length);
    nodes_[g].last = w;
    children_.emplace(key(prefix, w), g);
    return g;
  }

  /// The id of `prefix` followed by `w`, if interned.
  [[nodiscard]] std::optional<id> find_extension(id prefix, id w) const {
    check(prefix, "prefix");
    check_word(w);
    const auto it = children_.find(key(prefix, w));
    if (it == children_.end()) return std::nullopt;
    return it->second;
  }

  /// The (k-1)-gram ending gram g (k >= 2), if interned: for a 2-gram its
  /// last word, otherwise the suffix of its prefix extended by its last word.
  [[nodiscard]] std::optional<id> suffix(id g) const {
    check(g, "g");
    if (nodes_[g].length < 2) {
      throw_invalid("g", g, "a gram of length >= 2 (a word has no suffix gram)");
    }
    return suffix_of(nodes_[g].prefix, nodes_[g].last);
  }

  /// The suffix of the gram `prefix`.`w` without interning that gram (DPNE
  /// checks candidates this way before deciding to keep them). A loop over
  /// the gram's words, not a recursion: a gram of 10^6 words costs O(10^6)
  /// time and a buffer of its words, never 10^6 stack frames.
  [[nodiscard]] std::optional<id> suffix_of(id prefix, id w) const {
    check(prefix, "prefix");
    check_word(w);
    const std::size_t k = nodes_[prefix].length;
    if (k == 1) return w;
    // The prefix's words x_2..x_k, last first (x_1 is dropped): short grams,
    // DPNE's, fit the stack buffer.
    std::array<id, 64> small;
    std::vector<id> large;
    id* words = small.data();
    if (k - 1 > small.size()) {
      large.resize(k - 1);
      words = large.data();
    }
    id g = prefix;
    for (std::size_t i = 0; i + 1 < k; ++i, g = nodes_[g].prefix) words[i] = nodes_[g].last;
    id s = words[k - 2];  // x_2, a word
    for (std::size_t i = k - 2; i-- > 0;) {
      const auto next = find_extension(s, words[i]);
      if (!next) return std::nullopt;
      s = *next;
    }
    return find_extension(s, w);
  }

  /// The number of words of gram g (1 for a word).
  [[nodiscard]] std::size_t length(id g) const {
    check(g, "g");
    return nodes_[g].length;
  }
  /// The (k-1)-gram prefix of a k-gram, k >= 2.
  [[nodiscard]] id prefix(id g) const {
    check(g, "g");
    if (nodes_[g].length < 2) throw_invalid("g", g, "a gram of length >= 2 (a word has no prefix)");
    return nodes_[g].prefix;
  }
  /// The id of gram g's last word (g itself for a word).
  [[nodiscard]] id last_word(id g) const {
    check(g, "g");
    return nodes_[g].last;
  }

  /// The word ids of gram g, first to last.
  [[nodiscard]] std::vector<id> words_of(id g) const {
    check(g, "g");
    std::vector<id> out(nodes_[g].length);
    for (std::size_t i = out.size(); i-- > 0; g = nodes_[g].prefix) out[i] = nodes_[g].last;
    return out;
  }

  /// The gram's words joined by `separator`.
  [[nodiscard]] std::string text(id g, std::string_view separator = " ") const {
    std::string out;
    for (id w : words_of(g)) {
      if (!out.empty()) out += separator;
      out += spelling_.at(w);
    }
    return out;
  }

  /// The number of grams interned, words included (ids are [0, size())).
  [[nodiscard]] std::size_t size() const noexcept { return nodes_.size(); }
  /// The number of distinct words interned.
  [[nodiscard]] std::size_t word_count() const noexcept { return words_.size(); }

  /// Interns every n-gram of `tokens` (word ids) of length 1..max_length and
  /// calls f(gram_id, length, start) for each occurrence, shortest first at
  /// each start position: O(N max_length) lookups for N tokens. Throws
  /// invalid_parameter for max_length = 0, and invalid_parameter naming
  /// `tokens[i]` for the first token that is not a word id of this table,
  /// before f sees anything.
  template <class F>
  void for_each_ngram(std::span<const id> tokens, std::size_t max_length, F&& f) {
    validate_at_least<std::size_t>(max_length, 1, "max_length");
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      const id w = tokens[i];
      if (w >= nodes_.size() || nodes_[w].length != 1) {
        throw_invalid("tokens[" + std::to_string(i) + "]", w,
                      "the id of a word (a 1-gram) of this table");
      }
    }
    for (std::size_t start = 0; start < tokens.size(); ++start) {
      id g = tokens[start];
      f(g, std::size_t{1}, start);
      for (std::size_t k = 2; k <= max_length && start + k <= tokens.size(); ++k) {
        g = extend(g, tokens[start + k - 1]);
        f(g, k, start);
      }
    }
  }

 private:
  static constexpr id none = ~id{0};

  struct node {
    id prefix;
    id last = 0;
    std::uint32_t length;
  };

  static std::uint64_t key(id prefix, id w) noexcept {
    return (static_cast<std::uint64_t>(prefix) << 32) | w;
  }

  id add(id prefix, std::uint32_t prefix_length) {
    if (nodes_.size() >= none)
      throw overflow_error("privet: ngram_table holds at most 2^32 - 1 grams");
    nodes_.push_back(node{prefix, 0, prefix_length + 1});
    return static_cast<id>(nodes_.size() - 1);
  }

  void respell() {
    spelling_.clear();
    spelling_.reserve(words_.size());
    for (const auto& [w, g] : words_) spelling_.emplace(g, std::string_view(w));
  }

  void check(id g, const char* name) const {
    if (g >= nodes_.size())
      throw_invalid(name, g, "an id from this table (< " + std::to_string(nodes_.size()) + ")");
  }
  void check_word(id w) const {
    check(w, "w");
    if (nodes_[w].length != 1) throw_invalid("w", w, "the id of a word (a 1-gram)");
  }

  std::vector<node> nodes_;
  // Transparent hashing (a lookup never copies the word into a string) with
  // XXH3, faster than std::hash on words (bench/README.md).
  std::unordered_map<std::string, id, detail::xxh3_string_hash, std::equal_to<>> words_;
  std::unordered_map<id, std::string_view> spelling_;
  // Open addressing with robin-hood probing: the (prefix, word) -> gram map
  // is the hot loop of n-gram extraction, and tsl::robin_map interns about
  // 2x faster than std::unordered_map here (bench/README.md).
  struct key_hash {
    std::size_t operator()(std::uint64_t k) const noexcept {
      return static_cast<std::size_t>(detail::mix64(k));
    }
  };
  tsl::robin_map<std::uint64_t, id, key_hash> children_;
};

}  // namespace privet
