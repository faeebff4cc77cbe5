// privet/sketches/prefix_trie.hpp — the layered prefix trie of TrieHH (Zhu,
// Kairouz, McMahan, Sun & Li 2020, "Federated Heavy Hitters Discovery with
// Differential Privacy", AISTATS) as LDP TrieHH uses it (Sun, Kairouz, Sun,
// Gascón & Suresh 2024, "Private federated discovery of out-of-vocabulary
// words for Gboard", arXiv:2404.11607, Algorithm 2): layer 0 holds every
// symbol of the alphabet X; layer i holds the prefixes of length i + 1 that a
// round of voting kept. A round's candidates are every kept prefix of the
// last layer extended by every symbol of X (the end-of-word symbol included),
// numbered parent_position * |X| + symbol_index so that a vote vector over
// the candidates needs no string at all; keeping candidates grows the next
// layer. A prefix that ends with the end-of-word symbol is a discovered word
// and is never extended.
//
// Nodes are stored once, with their parent and last symbol, so a prefix of
// length L costs one node, not L symbols; children are found through a hash
// of (parent, symbol index).
#pragma once

#include <privet/core/detail/format.hpp>
#include <privet/core/validate.hpp>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace privet {

/// The layered prefix trie of TrieHH (Zhu, Kairouz, McMahan, Sun & Li 2020,
/// "Federated Heavy Hitters Discovery with Differential Privacy") as LDP
/// TrieHH uses it (Sun, Kairouz, Sun, Gascón & Suresh 2024, Algorithm 2):
/// layer i holds the kept prefixes of length i + 1; each round's candidates
/// are the last layer's open prefixes extended by every symbol (end-of-word
/// included), numbered so that votes need no strings, and extend() keeps
/// some of them as the next layer. Lookups cost O(L) expected for a prefix
/// of length L; a node costs O(1) memory. At most 2^32 - 1 nodes
/// (overflow_error beyond).
///
/// @tparam Symbol the integer type of symbols (char32_t code points by
///   default).
template <std::integral Symbol = char32_t>
class prefix_trie {
 public:
  using symbol_type = Symbol;                        ///< A symbol of the alphabet.
  using string_type = std::basic_string<Symbol>;     ///< A prefix or word.
  using view_type = std::basic_string_view<Symbol>;  ///< A prefix passed in.
  using node_id = std::uint32_t;                     ///< A node's index, in order of creation.

  /// `alphabet`: the symbols X, distinct, not containing `end_of_word`,
  /// which is added as the last symbol. Layer 0 is every symbol of X
  /// (not end_of_word: an empty word is never a candidate). Throws
  /// invalid_parameter for an empty alphabet or a repeated symbol.
  prefix_trie(std::vector<Symbol> alphabet, Symbol end_of_word)
      : symbols_(std::move(alphabet)), end_of_word_(end_of_word) {
    if (symbols_.empty()) throw_empty("alphabet");
    for (std::size_t i = 0; i < symbols_.size(); ++i) {
      if (symbols_[i] == end_of_word_) {
        throw_invalid("alphabet[" + std::to_string(i) + "]", static_cast<long long>(symbols_[i]),
                      "any symbol but end_of_word");
      }
      if (!index_.try_emplace(symbols_[i], i).second) {
        throw_invalid("alphabet[" + std::to_string(i) + "]", static_cast<long long>(symbols_[i]),
                      "a symbol not already in the alphabet");
      }
    }
    index_.emplace(end_of_word_, symbols_.size());
    symbols_.push_back(end_of_word_);
    layers_.emplace_back();
    for (std::size_t s = 0; s + 1 < symbols_.size(); ++s) {
      layers_.back().push_back(add_node(none, s));
    }
  }

  /// Symbol i of X (the end-of-word symbol is the last).
  [[nodiscard]] Symbol symbol(std::size_t i) const {
    if (i >= symbols_.size()) {
      throw_invalid("i", i,
                    "[0, alphabet_size()) = [0, " + detail::format_value(symbols_.size()) + ")");
    }
    return symbols_[i];
  }

  /// |X| including the end-of-word symbol.
  [[nodiscard]] std::size_t alphabet_size() const noexcept { return symbols_.size(); }
  /// The end-of-word symbol (the last of the alphabet).
  [[nodiscard]] Symbol end_of_word() const noexcept { return end_of_word_; }
  /// The number of layers (1 after construction): the last layer holds
  /// prefixes of length depth(), and candidates have length depth() + 1.
  [[nodiscard]] std::size_t depth() const noexcept { return layers_.size(); }

  /// The nodes of layer i (prefixes of length i + 1), in candidate order.
  /// Throws invalid_parameter naming `layer` unless i < depth().
  [[nodiscard]] std::span<const node_id> layer(std::size_t i) const {
    check_layer(i);
    return layers_[i];
  }

  /// How many candidates extend the last layer: its open prefixes (those not
  /// ending a word) times |X|.
  [[nodiscard]] std::uint64_t candidate_count() const noexcept {
    return static_cast<std::uint64_t>(layers_.back().size()) * symbols_.size();
  }

  /// The candidate number of `prefix` (length depth() + 1), or nothing when
  /// its first depth() symbols are not a kept open prefix or a symbol is not
  /// in X.
  [[nodiscard]] std::optional<std::uint64_t> candidate_index(view_type prefix) const {
    if (prefix.size() != depth() + 1) return std::nullopt;
    const auto parent = find(prefix.substr(0, depth()));
    if (!parent || nodes_[*parent].word) return std::nullopt;
    const auto sym = symbol_index(prefix.back());
    if (!sym) return std::nullopt;
    return static_cast<std::uint64_t>(nodes_[*parent].position) * symbols_.size() + *sym;
  }

  /// The prefix a candidate number stands for. Throws invalid_parameter
  /// naming `index` unless index < candidate_count().
  [[nodiscard]] string_type candidate(std::uint64_t index) const {
    if (index >= candidate_count()) {
      throw_invalid(
          "index", index,
          "[0, candidate_count()) = [0, " + detail::format_value(candidate_count()) + ")");
    }
    string_type s = prefix(layers_.back()[static_cast<std::size_t>(index / symbols_.size())]);
    s.push_back(symbols_[static_cast<std::size_t>(index % symbols_.size())]);
    return s;
  }

  /// Adds the next layer: the kept candidates (indices into the current
  /// candidates, any order, no repeats). Those ending with end_of_word
  /// become words; the rest form the new last layer (possibly empty, after
  /// which no candidate remains). Throws invalid_parameter on an index out
  /// of range or repeated, leaving the trie unchanged.
  void extend(std::span<const std::uint64_t> kept) {
    // The refusals name the caller's own position: kept[j] in its order.
    for (std::size_t j = 0; j < kept.size(); ++j) {
      if (kept[j] >= candidate_count()) {
        throw_invalid(
            "kept[" + std::to_string(j) + "]", kept[j],
            "[0, candidate_count()) = [0, " + detail::format_value(candidate_count()) + ")");
      }
    }
    std::vector<std::pair<std::uint64_t, std::size_t>> order;
    order.reserve(kept.size());
    for (std::size_t j = 0; j < kept.size(); ++j) order.emplace_back(kept[j], j);
    std::sort(order.begin(), order.end());
    for (std::size_t i = 1; i < order.size(); ++i) {
      if (order[i].first == order[i - 1].first) {
        throw_invalid(
            "kept[" + std::to_string(order[i].second) + "]", order[i].first,
            "no repeats (kept[" + std::to_string(order[i - 1].second) + "] holds it too)");
      }
    }
    std::vector<std::uint64_t> sorted;
    sorted.reserve(order.size());
    for (const auto& o : order) sorted.push_back(o.first);
    std::vector<node_id> next;
    const std::vector<node_id>& last = layers_.back();
    for (std::uint64_t c : sorted) {
      const node_id parent = last[static_cast<std::size_t>(c / symbols_.size())];
      const auto sym = static_cast<std::size_t>(c % symbols_.size());
      const node_id id = add_node(parent, sym);
      if (symbols_[sym] == end_of_word_) {
        nodes_[id].word = true;
        words_.push_back(id);
      } else {
        nodes_[id].position = static_cast<std::uint32_t>(next.size());
        next.push_back(id);
      }
    }
    layers_.push_back(std::move(next));
  }

  /// Whether `prefix` (of any length) is a kept prefix or word.
  [[nodiscard]] bool contains(view_type prefix) const { return find(prefix).has_value(); }

  /// The node of `prefix`, if kept.
  [[nodiscard]] std::optional<node_id> find(view_type prefix) const {
    if (prefix.empty()) return std::nullopt;
    node_id at = none;
    for (Symbol s : prefix) {
      const auto sym = symbol_index(s);
      if (!sym) return std::nullopt;
      const auto it = children_.find(edge(at, *sym));
      if (it == children_.end()) return std::nullopt;
      at = it->second;
    }
    return at;
  }

  /// The kept children of a node, in symbol order. Throws invalid_parameter
  /// naming `node` for an id not from this trie.
  [[nodiscard]] std::vector<node_id> children(node_id n) const {
    check_node(n);
    std::vector<node_id> out;
    for (std::size_t s = 0; s < symbols_.size(); ++s) {
      if (const auto it = children_.find(edge(n, s)); it != children_.end())
        out.push_back(it->second);
    }
    return out;
  }

  /// The symbols of a node, from the root (a word's ends with
  /// end_of_word()). Throws invalid_parameter naming `node` for an id not
  /// from this trie.
  [[nodiscard]] string_type prefix(node_id n) const {
    check_node(n);
    string_type s;
    for (node_id at = n; at != none; at = nodes_[at].parent)
      s.push_back(symbols_[nodes_[at].symbol]);
    std::reverse(s.begin(), s.end());
    return s;
  }

  /// Whether node n is a discovered word (ends with end_of_word()). Throws
  /// invalid_parameter naming `node` for an id not from this trie.
  [[nodiscard]] bool is_word(node_id n) const {
    check_node(n);
    return nodes_[n].word;
  }

  /// Every discovered word, without its end-of-word symbol, in discovery order.
  [[nodiscard]] std::vector<string_type> words() const {
    std::vector<string_type> out;
    out.reserve(words_.size());
    for (node_id w : words_) {
      string_type s = prefix(w);
      s.pop_back();
      out.push_back(std::move(s));
    }
    return out;
  }

 private:
  static constexpr node_id none = ~node_id{0};

  struct node {
    node_id parent;
    std::uint32_t symbol;
    std::uint32_t position = 0;  // index within its layer (open prefixes only)
    bool word = false;
  };

  std::uint64_t edge(node_id parent, std::size_t sym) const noexcept {
    return (static_cast<std::uint64_t>(parent) << 32 | static_cast<std::uint32_t>(sym));
  }

  node_id add_node(node_id parent, std::size_t sym) {
    if (nodes_.size() >= none)
      throw overflow_error("privet: prefix_trie holds at most 2^32 - 1 nodes");
    const auto id = static_cast<node_id>(nodes_.size());
    nodes_.push_back(node{parent, static_cast<std::uint32_t>(sym)});
    if (parent == none) nodes_.back().position = static_cast<std::uint32_t>(sym);
    children_.emplace(edge(parent, sym), id);
    return id;
  }

  std::optional<std::size_t> symbol_index(Symbol s) const {
    const auto it = index_.find(s);
    if (it == index_.end()) return std::nullopt;
    return it->second;
  }

  void check_layer(std::size_t i) const {
    if (i >= layers_.size())
      throw_invalid("layer", i, "[0, depth()) = [0, " + detail::format_value(layers_.size()) + ")");
  }
  void check_node(node_id n) const {
    if (n >= nodes_.size())
      throw_invalid("node", n, "[0, " + detail::format_value(nodes_.size()) + ")");
  }

  std::vector<Symbol> symbols_;
  Symbol end_of_word_;
  std::unordered_map<Symbol, std::size_t> index_;
  std::vector<node> nodes_;
  std::vector<std::vector<node_id>> layers_;
  std::vector<node_id> words_;
  std::unordered_map<std::uint64_t, node_id> children_;
};

}  // namespace privet
