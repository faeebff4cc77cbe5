// privet/algorithms/ldp_triehh.hpp — LDP TrieHH, Gboard's private discovery
// of out-of-vocabulary words (Sun, Kairouz, Sun, Gascón & Suresh 2024,
// "Private federated discovery of out-of-vocabulary words for Gboard",
// arXiv:2404.11607, Algorithm 2), composed from the lower layers: the trie
// (sketches/prefix_trie.hpp), the subset-selection randomiser
// (mechanisms/subset_selection.hpp), uniform subsets for the samplers and
// user groups (core/uniform_subset.hpp), keyed random streams for simulated
// users (core/keyed_streams.hpp), and the shuffle amplification bounds
// (accounting/shuffle.hpp) for the report.
//
// One layer i: the server broadcasts the kept prefixes P_{i-1}; each client
// of that layer's fresh user group forms its valid prefixes of length i + 1
// (of its out-of-vocabulary words, extending a broadcast prefix), keeps at
// most B of them by a local sampling policy, pads with the dummy gamma to
// exactly B items and sends one subset-selection report per item over the
// candidates Z_i plus gamma (gamma's slot is dropped: the server only counts
// candidates). The server sums the votes, keeps the candidates whose count
// reaches the eta_max-th largest count (and at least 1), and the kept ones
// ending with the end-of-word symbol are discovered words.
//
// Client and server are separate types that exchange only layer_broadcast
// and vote messages. The server sums them itself (receive: it sees each
// vote, as an ephemeral aggregation service would), takes sums kept by such
// services outside it (vote_sum, one per thread of a simulation), or takes
// a sum computed by secure aggregation over to_dense() vectors
// (receive_sum: it sees only the sum). The privacy of one report is the
// subset selection's epsilon (item-level LDP); each user joins one layer,
// so layers compose in parallel, and the central guarantee of a layer's
// N * B shuffled reports comes from the accounting layer (privacy_report).
//
// Speed of a simulated user (bench/algorithms_bench.cpp): candidates are
// integers from the start (the broadcast is indexed once per layer and a
// word's candidate is found by hashing its prefix in place), the
// randomiser is set up once per layer (prepared_layer), a thread's buffers
// are reused across users, Floyd's subset draws three indices per 64-bit
// CSPRNG word, votes are summed into 32-bit counts, and a layer's users run
// on all cores, each block of users from its own keyed stream.
//
// epsilon = +infinity is accepted and means no randomisation (each item is
// reported as itself): the exact heavy-hitter trie, for testing and for
// seeing what the noise costs; its report says so.
//
// run() and simulate_layer() are the exact per-user simulation (every
// client's reports). algorithms/triehh_simulation.hpp adds the
// distribution-level path for paper-scale utility studies (each user's
// local step, then each candidate's count drawn from its binomial law; that
// header says when it applies) and the paper's coverage measure.
#pragma once

#include <privet/accounting/composition.hpp>
#include <privet/accounting/shuffle.hpp>
#include <privet/core/concepts.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/error.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/keyed_streams.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/uniform_subset.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/subset_selection.hpp>
#include <privet/sketches/detail/string_hash.hpp>
#include <privet/sketches/prefix_trie.hpp>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/partitioner.h>
#include <boost/math/distributions/binomial.hpp>
#include <boost/math/special_functions/beta.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <ranges>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

namespace privet::triehh {

/// A word (or prefix) as a string of Unicode code points.
using word = std::u32string;

/// The parameters of a run (Sun et al. 2024, Algorithm 2), which the server
/// and every client agree on; all public.
struct parameters {
  double epsilon = 10;                   ///< per-report LDP epsilon; +inf: no noise
  std::uint64_t contributions = 60;      ///< B: items per user (padded with gamma)
  std::uint64_t users_per_layer = 1000;  ///< N
  std::uint64_t max_prefixes = 10'000;   ///< eta_max
  std::size_t max_depth = 15;            ///< D: layers (longest word found: D letters)

  /// Throws invalid_parameter naming the first field out of range: epsilon
  /// (in (0, +inf]), contributions, users_per_layer, max_prefixes or
  /// max_depth (each >= 1).
  void validate() const {
    if (!(epsilon > 0)) throw_invalid("epsilon", epsilon, "(0, +inf]");
    validate_at_least<std::uint64_t>(contributions, 1, "contributions");
    validate_at_least<std::uint64_t>(users_per_layer, 1, "users_per_layer");
    validate_at_least<std::uint64_t>(max_prefixes, 1, "max_prefixes");
    validate_at_least<std::size_t>(max_depth, 1, "max_depth");
  }
};

// ---- messages ------------------------------------------------------------------------

/// Server to the clients of layer `layer` (1-based): the kept open prefixes
/// of length `layer`, in candidate order, and the alphabet with the
/// end-of-word symbol last. Candidate c stands for prefixes[c / |X|]
/// followed by alphabet[c % |X|].
struct layer_broadcast {
  std::uint32_t layer;         ///< i, 1-based: the length of every prefix
  std::vector<word> prefixes;  ///< P_{i-1}: the kept open prefixes, distinct
  word alphabet;               ///< X with the end-of-word symbol last
};

/// A broadcast with its lookup tables built, once per device and layer
/// (every client of a simulation can share one). The prefixes are stored
/// flat and found by open addressing on their XXH3 hash, so a lookup copies
/// no string and allocates nothing.
class prepared_broadcast {
 public:
  /// Checks and indexes a broadcast, in time linear in its size. Throws
  /// protocol_error (the message is refused) for an alphabet of fewer than
  /// 2 symbols or a repeated symbol, 2^32 - 1 or more prefixes or symbols,
  /// or a prefix whose length is not `layer` or that repeats.
  explicit prepared_broadcast(layer_broadcast b) : b_(std::move(b)) {
    if (b_.alphabet.size() < 2) {
      throw protocol_error("privet: a TrieHH broadcast needs an alphabet of >= 2 symbols");
    }
    if (b_.prefixes.size() >= std::numeric_limits<std::uint32_t>::max() ||
        b_.alphabet.size() >= std::numeric_limits<std::uint32_t>::max()) {
      throw protocol_error("privet: a TrieHH broadcast has more than 2^32 - 2 prefixes or symbols");
    }
    const std::size_t len = b_.layer;
    auto refuse = [](std::size_t i) {
      throw protocol_error("privet: TrieHH broadcast prefix " + std::to_string(i) +
                           " has the wrong length or repeats");
    };
    for (std::size_t i = 0; i < b_.prefixes.size(); ++i) {
      if (b_.prefixes[i].size() != len) refuse(i);
    }
    flat_.reserve(b_.prefixes.size() * len);  // the words themselves are that long
    prefix_slots_.assign(table_size(b_.prefixes.size()), 0);
    for (std::size_t i = 0; i < b_.prefixes.size(); ++i) {
      const word& pre = b_.prefixes[i];
      if (find_prefix(pre) != none) refuse(i);
      flat_.insert(flat_.end(), pre.begin(), pre.end());
      prefix_slots_[free_slot(prefix_slots_, hash(pre))] = static_cast<std::uint32_t>(i + 1);
    }
    symbol_slots_.assign(table_size(b_.alphabet.size()), {0, 0});
    for (std::size_t i = 0; i < b_.alphabet.size(); ++i) {
      if (find_symbol(b_.alphabet[i]) != none) {
        throw protocol_error("privet: TrieHH broadcast alphabet repeats a symbol");
      }
      auto mask = symbol_slots_.size() - 1;
      auto j = static_cast<std::size_t>(hash(b_.alphabet[i]) & mask);
      while (symbol_slots_[j].second != 0) j = (j + 1) & mask;
      symbol_slots_[j] = {b_.alphabet[i], static_cast<std::uint32_t>(i + 1)};
    }
  }

  /// The broadcast as received.
  [[nodiscard]] const layer_broadcast& message() const noexcept { return b_; }

  /// The candidate index of a prefix of length layer + 1, if it is one.
  [[nodiscard]] std::optional<std::uint64_t> candidate(std::u32string_view prefix) const {
    if (prefix.size() != b_.layer + std::size_t{1}) return std::nullopt;
    return candidate_of(prefix.substr(0, b_.layer), prefix.back());
  }

  /// The candidate a typed word `w` (without the end-of-word symbol) votes
  /// for: the first layer + 1 symbols of w followed by the end-of-word
  /// symbol, if that is a candidate.
  [[nodiscard]] std::optional<std::uint64_t> candidate_of_word(std::u32string_view w) const {
    const std::size_t len = b_.layer;
    if (w.size() < len) return std::nullopt;
    return candidate_of(w.substr(0, len), w.size() > len ? w[len] : b_.alphabet.back());
  }

  /// |Z_i| = |P_{i-1}| |X|: every prefix extended by every symbol.
  [[nodiscard]] std::uint64_t candidates() const noexcept {
    return static_cast<std::uint64_t>(b_.prefixes.size()) * b_.alphabet.size();
  }

 private:
  static constexpr std::uint64_t none = ~std::uint64_t{0};

  // Load factor at most 1/2.
  static std::size_t table_size(std::size_t n) {
    return std::bit_ceil(std::max<std::size_t>(2 * n, 16));
  }
  static std::uint64_t hash(std::u32string_view s) noexcept {
    return XXH3_64bits(s.data(), s.size() * sizeof(char32_t));
  }
  static std::uint64_t hash(char32_t c) noexcept {
    return (static_cast<std::uint64_t>(c) * 0x9E3779B97F4A7C15ull) >> 32;
  }
  static std::size_t free_slot(const std::vector<std::uint32_t>& slots, std::uint64_t h) {
    const std::size_t mask = slots.size() - 1;
    auto j = static_cast<std::size_t>(h & mask);
    while (slots[j] != 0) j = (j + 1) & mask;
    return j;
  }

  [[nodiscard]] std::uint64_t find_prefix(std::u32string_view pre) const {
    const std::size_t mask = prefix_slots_.size() - 1, len = b_.layer;
    for (auto j = static_cast<std::size_t>(hash(pre) & mask); prefix_slots_[j] != 0;
         j = (j + 1) & mask) {
      const std::size_t pos = prefix_slots_[j] - 1;
      if (std::u32string_view(flat_.data() + pos * len, len) == pre) return pos;
    }
    return none;
  }
  [[nodiscard]] std::uint64_t find_symbol(char32_t c) const {
    const std::size_t mask = symbol_slots_.size() - 1;
    for (auto j = static_cast<std::size_t>(hash(c) & mask); symbol_slots_[j].second != 0;
         j = (j + 1) & mask) {
      if (symbol_slots_[j].first == c) return symbol_slots_[j].second - 1;
    }
    return none;
  }
  [[nodiscard]] std::optional<std::uint64_t> candidate_of(std::u32string_view pre,
                                                          char32_t symbol) const {
    const std::uint64_t p = find_prefix(pre);
    if (p == none) return std::nullopt;
    const std::uint64_t s = find_symbol(symbol);
    if (s == none) return std::nullopt;
    return p * b_.alphabet.size() + s;
  }

  layer_broadcast b_;
  std::vector<char32_t> flat_;               // prefix i at [i * layer, (i + 1) * layer)
  std::vector<std::uint32_t> prefix_slots_;  // position + 1; 0: empty
  std::vector<std::pair<char32_t, std::uint32_t>> symbol_slots_;  // (symbol, index + 1)
};

/// A broadcast prepared together with the layer's parameters: its lookup
/// tables and the subset-selection randomiser over its candidates plus
/// gamma, whose exact coin takes big-number arithmetic to set up (more than
/// a user's 60 reports cost), so it is built once per device and layer and
/// shared by every client of a simulation.
class prepared_layer {
 public:
  /// Prepares the broadcast (see prepared_broadcast), then the layer.
  prepared_layer(layer_broadcast b, const parameters& p)
      : prepared_layer(prepared_broadcast(std::move(b)), p) {}
  /// Sets the randomiser up for the broadcast's candidates plus gamma (none
  /// at epsilon = inf or without candidates). Throws invalid_parameter as
  /// parameters::validate does, protocol_error for 2^64 - 1 candidates.
  prepared_layer(prepared_broadcast b, const parameters& p) : b_(std::move(b)), p_(p) {
    p_.validate();
    if (!std::isinf(p_.epsilon) && b_.candidates() > 0) {
      if (b_.candidates() == std::numeric_limits<std::uint64_t>::max()) {
        throw protocol_error("privet: a TrieHH broadcast has too many candidates (2^64 - 1)");
      }
      ss_.emplace(p_.epsilon, b_.candidates() + 1);
    }
  }
  /// The prepared broadcast.
  [[nodiscard]] const prepared_broadcast& broadcast() const noexcept { return b_; }
  /// The parameters the layer was prepared for.
  [[nodiscard]] const parameters& params() const noexcept { return p_; }
  /// The randomiser over the candidates and gamma; null for epsilon = inf
  /// or a layer without candidates.
  [[nodiscard]] const subset_selection* randomiser() const noexcept {
    return ss_ ? &*ss_ : nullptr;
  }

 private:
  prepared_broadcast b_;
  parameters p_;
  std::optional<subset_selection> ss_;
};

/// Client to server: the candidate indices of all its reports (a multi-hot
/// vector per report, concatenated; an index may repeat across reports).
struct vote {
  std::uint32_t layer;                 ///< the layer voted in (1-based)
  std::vector<std::uint64_t> indices;  ///< candidate indices: at most B d (B at epsilon = inf)
};

/// One user's data: the words typed, with how often.
using user_data = std::vector<std::pair<word, std::uint64_t>>;

/// A user's typed words as a range of (word, count) pairs read once, in
/// order: a user_data, or any input range (a lazy view over a device's
/// store need not be held whole).
template <class R>
concept typed_words = std::ranges::input_range<const R&> &&
    requires(std::ranges::range_reference_t<const R&> e) {
  requires std::same_as<std::remove_cvref_t<decltype(e.first)>, word>;
  { e.second } -> std::convertible_to<std::uint64_t>;
};

/// A valid prefix as a candidate index with the number of times the user
/// typed words that have it.
using prefix_count = std::pair<std::uint64_t, std::uint64_t>;

// ---- local sampling policies --------------------------------------------------------------

/// The B most frequent valid prefixes (ties: the smaller candidate index).
struct greedy_sampling {
  /// Appends the kept candidates to `out`; `counts` (distinct candidates,
  /// in any order) is reordered.
  template <random_bit_source G>
  void sample(std::vector<prefix_count>& counts, std::uint64_t b, G&,
              std::vector<std::uint64_t>& out) const {
    const auto by_count = [](const prefix_count& x, const prefix_count& y) {
      return x.second != y.second ? x.second > y.second : x.first < y.first;
    };
    const auto keep = static_cast<std::size_t>(std::min<std::uint64_t>(b, counts.size()));
    std::partial_sort(counts.begin(), counts.begin() + static_cast<std::ptrdiff_t>(keep),
                      counts.end(), by_count);
    for (std::size_t i = 0; i < keep; ++i) out.push_back(counts[i].first);
  }

  /// The kept candidates of `counts` for a bound `b`, as a new vector.
  template <random_bit_source G>
  std::vector<std::uint64_t> operator()(std::vector<prefix_count> counts, std::uint64_t b,
                                        G& gen) const {
    std::vector<std::uint64_t> out;
    sample(counts, b, gen, out);
    return out;
  }
};

/// B valid prefixes uniformly at random, ignoring counts.
struct random_sampling {
  /// Appends the kept candidates to `out`; `counts` (distinct candidates,
  /// in any order) is sorted by candidate.
  template <random_bit_source G>
  void sample(std::vector<prefix_count>& counts, std::uint64_t b, G& gen,
              std::vector<std::uint64_t>& out) const {
    // A canonical order before drawing (already so when the counts come
    // from valid_prefixes).
    if (!std::is_sorted(counts.begin(), counts.end())) std::sort(counts.begin(), counts.end());
    const std::size_t first = out.size();
    if (counts.size() <= b) {
      for (const auto& c : counts) out.push_back(c.first);
      return;
    }
    uniform_subset(gen, counts.size(), b, out);
    for (std::size_t i = first; i < out.size(); ++i) {
      out[i] = counts[static_cast<std::size_t>(out[i])].first;
    }
  }

  /// The kept candidates of `counts` for a bound `b`, as a new vector.
  template <random_bit_source G>
  std::vector<std::uint64_t> operator()(std::vector<prefix_count> counts, std::uint64_t b,
                                        G& gen) const {
    std::vector<std::uint64_t> out;
    sample(counts, b, gen, out);
    return out;
  }
};

/// A local sampling policy: sample(counts, B, gen, out) appends to out at
/// most B of the distinct candidates in counts (which it may reorder),
/// drawing any randomness from gen.
template <class P>
concept sampling_policy = requires(const P& p, std::vector<prefix_count>& c, seeded_generator& g,
                                   std::vector<std::uint64_t>& out) {
  p.sample(c, std::uint64_t{1}, g, out);
};

// ---- client ------------------------------------------------------------------------------

namespace detail {

/// Sorts `counts` by candidate and adds up the counts of each candidate,
/// saturating at 2^64 - 1: the counts are the user's own data and only rank
/// its prefixes for the local sampling, so a client never fails (and never
/// withholds its vote, which the server would see) however often it typed.
inline void merge_prefix_counts(std::vector<prefix_count>& counts) {
  std::sort(counts.begin(), counts.end());
  std::size_t kept = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (kept > 0 && counts[kept - 1].first == counts[i].first) {
      std::uint64_t& c = counts[kept - 1].second;
      c = counts[i].second > std::numeric_limits<std::uint64_t>::max() - c
              ? std::numeric_limits<std::uint64_t>::max()
              : c + counts[i].second;
    } else {
      counts[kept++] = counts[i];
    }
  }
  counts.resize(kept);
}

/// Below this many entries the counts are merged only once, at the end.
inline constexpr std::size_t prefix_merge_floor = 4096;

/// The valid prefixes of `typed` at broadcast b, with their counts, sorted
/// by candidate and distinct, into `counts`. The counts are merged whenever
/// they double, so they never hold much more than twice the user's distinct
/// valid prefixes (at most the layer's candidates), however many words the
/// user typed.
template <typed_words Typed>
void valid_prefixes(const Typed& typed, const std::unordered_set<word>* vocabulary,
                    const prepared_broadcast& b, std::vector<prefix_count>& counts) {
  counts.clear();
  std::size_t merge_at = prefix_merge_floor;
  for (auto&& entry : typed) {
    const auto& [w, n] = entry;
    if (n == 0) continue;
    // The candidate first: one XXH3 of a short prefix, and most words have
    // none past the first layers; the vocabulary's string hash of the whole
    // word only for those that do (and never for an empty vocabulary).
    const auto c = b.candidate_of_word(w);
    if (!c || (vocabulary != nullptr && !vocabulary->empty() && vocabulary->contains(w))) continue;
    counts.emplace_back(*c, static_cast<std::uint64_t>(n));
    if (counts.size() >= merge_at) {
      merge_prefix_counts(counts);
      merge_at = std::max(prefix_merge_floor, 2 * counts.size());
    }
  }
  merge_prefix_counts(counts);
}

/// Buffers of one thread's responses, reused so that a simulated user
/// allocates nothing.
struct respond_scratch {
  std::vector<prefix_count> counts;
  std::vector<std::uint64_t> items;
};

/// The vote of a user with words `typed`: valid prefixes, local sampling
/// to at most B, gamma padding to exactly B, one subset-selection report
/// per item with gamma's slot dropped (ss null: each item reported as itself).
// The policy is taken by value: policies are small (privet's are empty), and
// GCC 12 at -O1 reports a const reference to an empty member as "may be used
// uninitialized" (an empty object has no bytes to initialise).
template <typed_words Typed, sampling_policy Sampling, random_bit_source G>
void respond(const Typed& typed, const std::unordered_set<word>* vocabulary,
             const prepared_broadcast& b, const parameters& p, const subset_selection* ss,
             Sampling sampling, G& gen, vote& out) {
  out.layer = b.message().layer;
  out.indices.clear();
  const std::uint64_t s = b.candidates();
  if (s == 0) return;
  thread_local respond_scratch scratch;
  valid_prefixes(typed, vocabulary, b, scratch.counts);
  scratch.items.clear();
  sampling.sample(scratch.counts, p.contributions, gen, scratch.items);
  if (scratch.items.size() > p.contributions) {
    throw protocol_error("privet: a TrieHH sampling policy kept " +
                         std::to_string(scratch.items.size()) +
                         " prefixes; allowed: at most B = " + std::to_string(p.contributions));
  }
  if (ss == nullptr) {
    out.indices.assign(scratch.items.begin(), scratch.items.end());
    return;
  }
  auto report = [&](std::uint64_t z) {
    const std::size_t first = out.indices.size();
    (*ss)(z, gen, out.indices);
    // A report holds distinct candidates, so gamma (index s) at most once.
    for (std::size_t i = first; i < out.indices.size(); ++i) {
      if (out.indices[i] == s) {
        out.indices[i] = out.indices.back();
        out.indices.pop_back();
        break;
      }
    }
  };
  for (std::uint64_t z : scratch.items) report(z);
  for (std::uint64_t i = scratch.items.size(); i < p.contributions; ++i) report(s);  // gamma
}

}  // namespace detail

/// One user's device: its typed words with how often each was typed, and
/// the known vocabulary (public). Never sends anything but votes.
template <sampling_policy Sampling = random_sampling>
class client {
 public:
  /// A device with words `typed` (the counts rank its prefixes for the
  /// local sampling), the shared known `vocabulary` (its words vote for
  /// nothing; null or empty: none known) and a sampling policy.
  client(user_data typed, std::shared_ptr<const std::unordered_set<word>> vocabulary,
         Sampling sampling = {})
      : typed_(std::move(typed)), vocabulary_(std::move(vocabulary)), sampling_(sampling) {}

  /// The valid prefixes of length layer + 1 with their counts, as candidate
  /// indices of the broadcast, sorted by candidate.
  [[nodiscard]] std::vector<prefix_count> valid_prefixes(const prepared_broadcast& b) const {
    std::vector<prefix_count> counts;
    detail::valid_prefixes(typed_, vocabulary_.get(), b, counts);
    return counts;
  }

  /// This client's vote for the layer, into `out` (its storage reused).
  template <random_bit_source G>
  void respond(const prepared_layer& l, G& gen, vote& out) const {
    detail::respond(typed_, vocabulary_.get(), l.broadcast(), l.params(), l.randomiser(), sampling_,
                    gen, out);
  }

  /// This client's vote for the layer.
  template <random_bit_source G>
  vote respond(const prepared_layer& l, G& gen) const {
    vote v{};
    respond(l, gen, v);
    return v;
  }

  /// The same from a broadcast and the parameters (sets the randomiser up
  /// for this one vote; a prepared_layer saves that for many).
  template <random_bit_source G>
  vote respond(const prepared_broadcast& b, const parameters& p, G& gen) const {
    p.validate();
    std::optional<subset_selection> ss;
    if (!std::isinf(p.epsilon) && b.candidates() > 0) ss.emplace(p.epsilon, b.candidates() + 1);
    vote v{};
    detail::respond(typed_, vocabulary_.get(), b, p, ss ? &*ss : nullptr, sampling_, gen, v);
    return v;
  }

  /// The same from the raw broadcast (builds its lookup tables).
  template <random_bit_source G>
  vote respond(const layer_broadcast& b, const parameters& p, G& gen) const {
    return respond(prepared_broadcast(b), p, gen);
  }

 private:
  user_data typed_;
  std::shared_ptr<const std::unordered_set<word>> vocabulary_;
  Sampling sampling_;
};

/// The vote of a user whose typed words `typed` are read once, as they come
/// (typed_words: a user_data, or a lazy range of (word, count) pairs over a
/// device's store): what a client holding those words sends. Memory: the
/// user's distinct valid prefixes (at most the layer's candidates) and B
/// reports, never the words themselves.
template <sampling_policy Sampling = random_sampling, typed_words Typed, random_bit_source G>
vote respond(const Typed& typed, const std::unordered_set<word>* vocabulary,
             const prepared_layer& l, G& gen, Sampling sampling = {}) {
  vote v{};
  detail::respond(typed, vocabulary, l.broadcast(), l.params(), l.randomiser(), sampling, gen, v);
  return v;
}

/// A vote as a dense count vector over the layer's `candidates` (for
/// secure aggregation, which sums fixed-length vectors). Throws
/// protocol_error for an index out of range.
inline std::vector<std::uint64_t> to_dense(const vote& v, std::uint64_t candidates) {
  std::vector<std::uint64_t> out(static_cast<std::size_t>(candidates), 0);
  for (std::uint64_t c : v.indices) {
    if (c >= candidates) {
      throw protocol_error("privet: TrieHH vote index " + std::to_string(c) + " is outside the " +
                           std::to_string(candidates) + " candidates");
    }
    ++out[static_cast<std::size_t>(c)];
  }
  return out;
}

// ---- aggregation -------------------------------------------------------------------------

/// An ephemeral sum of one layer's votes: it checks each vote as the server
/// would (layer, indices in range, at most B d of them) and keeps only the
/// running sum. Several sums can run in parallel (one per thread) and be
/// merged; the server takes them with receive_sum. Counts are 32-bit while
/// no count can exceed 2^32 - 1 (the indices received so far bound every
/// count), which halves the memory that random increments touch, and widen
/// to 64 bits exactly when that bound would pass.
class vote_sum {
 public:
  /// `max_indices`: B * d (B at epsilon = inf), see max_vote_indices.
  vote_sum(std::uint32_t layer, std::uint64_t candidates, std::uint64_t max_indices)
      : layer_(layer), candidates_(candidates), max_indices_(max_indices) {
    if (candidates > std::numeric_limits<std::size_t>::max() / sizeof(std::uint64_t)) {
      throw_invalid("candidates", candidates, "a count vector that fits in memory");
    }
    narrow_.assign(static_cast<std::size_t>(candidates), 0);
  }

  /// Adds a vote. Throws protocol_error (and ignores the vote) for another
  /// layer, an index out of range, or more than max_indices indices;
  /// overflow_error (ignoring it) if a count or the vote count would pass
  /// 2^64 - 1.
  void add(const vote& v) {
    if (v.layer != layer_) {
      throw protocol_error("privet: TrieHH vote for layer " + std::to_string(v.layer) +
                           " while layer " + std::to_string(layer_) + " is open");
    }
    if (v.indices.size() > max_indices_) {
      throw protocol_error("privet: TrieHH vote has " + std::to_string(v.indices.size()) +
                           " indices; allowed: at most B * d = " + std::to_string(max_indices_));
    }
    for (std::uint64_t c : v.indices) {
      if (c >= candidates_) {
        throw protocol_error("privet: TrieHH vote index " + std::to_string(c) + " is outside the " +
                             std::to_string(candidates_) + " candidates");
      }
    }
    check_votes(1);
    grow_bound(v.indices.size());
    if (wide_.empty()) {
      for (std::uint64_t c : v.indices) ++narrow_[static_cast<std::size_t>(c)];
    } else {
      for (std::uint64_t c : v.indices) ++wide_[static_cast<std::size_t>(c)];
    }
    ++votes_;
  }

  /// Adds `votes` votes summed elsewhere as a dense vector. Throws
  /// protocol_error (and ignores the sum) for a length other than the
  /// candidate count; overflow_error (ignoring it) if a count or the vote
  /// count would pass 2^64 - 1.
  void add_sum(const std::vector<std::uint64_t>& sum, std::uint64_t votes) {
    if (sum.size() != candidates_) {
      throw protocol_error("privet: TrieHH sum has " + std::to_string(sum.size()) +
                           " entries; the layer has " + std::to_string(candidates_) +
                           " candidates");
    }
    std::uint64_t top = 0;
    for (std::uint64_t x : sum) top = std::max(top, x);
    add_counts(sum, top, votes);
  }

  /// Adds another sum of the same layer. Throws protocol_error for another
  /// layer or candidate count, overflow_error as add_sum.
  void merge(const vote_sum& other) {
    if (other.layer_ != layer_ || other.candidates_ != candidates_) {
      throw protocol_error("privet: TrieHH sums of different layers (" +
                           std::to_string(other.layer_) + " and " + std::to_string(layer_) +
                           ") cannot be merged");
    }
    if (other.wide_.empty()) {
      add_counts(other.narrow_, other.bound_, other.votes_);
    } else {
      add_counts(other.wide_, other.bound_, other.votes_);
    }
  }

  /// An empty sum of the same layer and limits.
  [[nodiscard]] vote_sum empty_copy() const { return {layer_, candidates_, max_indices_}; }

  /// The layer summed.
  [[nodiscard]] std::uint32_t layer() const noexcept { return layer_; }
  /// The layer's candidate count (the length of counts()).
  [[nodiscard]] std::uint64_t candidates() const noexcept { return candidates_; }
  /// The votes summed so far (a merged or added sum counts its own).
  [[nodiscard]] std::uint64_t votes() const noexcept { return votes_; }
  /// Candidate c's count. Throws invalid_parameter naming `c` unless
  /// c < candidates().
  [[nodiscard]] std::uint64_t count(std::uint64_t c) const {
    if (c >= candidates_) throw_invalid("c", c, "< candidates = " + std::to_string(candidates_));
    return wide_.empty() ? narrow_[static_cast<std::size_t>(c)]
                         : wide_[static_cast<std::size_t>(c)];
  }
  /// Every candidate's count.
  [[nodiscard]] std::vector<std::uint64_t> counts() const {
    if (!wide_.empty()) return wide_;
    return {narrow_.begin(), narrow_.end()};
  }

 private:
  // Every count is at most bound_; widen before a 32-bit count could wrap.
  void grow_bound(std::uint64_t more) {
    if (more > std::numeric_limits<std::uint64_t>::max() - bound_) {
      throw overflow_error("privet: a TrieHH vote sum would exceed 2^64 - 1");
    }
    bound_ += more;
    if (wide_.empty() && bound_ > std::numeric_limits<std::uint32_t>::max()) {
      wide_.assign(narrow_.begin(), narrow_.end());
      narrow_ = {};
    }
  }
  // The vote count never wraps either (a sum handed in directly, outside a
  // server, can claim any number of votes).
  void check_votes(std::uint64_t more) const {
    if (more > std::numeric_limits<std::uint64_t>::max() - votes_) {
      throw overflow_error("privet: a TrieHH vote sum would count " + std::to_string(votes_) +
                           " + " + std::to_string(more) +
                           " votes; allowed: at most 2^64 - 1 in all");
    }
  }
  template <class Count>
  void add_counts(const std::vector<Count>& sum, std::uint64_t top, std::uint64_t votes) {
    check_votes(votes);
    grow_bound(top);
    if (wide_.empty()) {
      for (std::size_t i = 0; i < sum.size(); ++i) narrow_[i] += static_cast<std::uint32_t>(sum[i]);
    } else {
      for (std::size_t i = 0; i < sum.size(); ++i) wide_[i] += sum[i];
    }
    votes_ += votes;
  }

  std::uint32_t layer_;
  std::uint64_t candidates_;
  std::uint64_t max_indices_;
  std::uint64_t votes_ = 0;
  std::uint64_t bound_ = 0;
  std::vector<std::uint32_t> narrow_;
  std::vector<std::uint64_t> wide_;
};

/// The most indices an honest vote of a layer with `candidates` candidates
/// can hold: B reports of d candidates each (B at epsilon = inf).
inline std::uint64_t max_vote_indices(const parameters& p, std::uint64_t candidates) {
  p.validate();
  if (std::isinf(p.epsilon) || candidates == 0) return p.contributions;
  if (candidates == std::numeric_limits<std::uint64_t>::max()) {
    throw_invalid("candidates", candidates, "< 2^64 - 1");
  }
  const std::uint64_t d = subset_selection(p.epsilon, candidates + 1).d();
  return d > std::numeric_limits<std::uint64_t>::max() / p.contributions
             ? std::numeric_limits<std::uint64_t>::max()
             : d * p.contributions;
}

// ---- server ------------------------------------------------------------------------------

/// What one layer saw and kept.
struct layer_stats {
  std::uint32_t layer;       ///< i, 1-based
  std::uint64_t candidates;  ///< |Z_i|
  std::uint64_t votes;       ///< clients heard
  std::uint64_t threshold;   ///< tau_i
  std::uint64_t kept;        ///< |P_i| plus words found at this layer
  std::uint64_t words;       ///< words found at this layer
};

/// The server with an ephemeral sum of the votes (it sees each vote once
/// and keeps only the running sum).
class server {
 public:
  /// A server for one pass: the trie starts with P_0 = X.
  /// @param alphabet X without the end-of-word symbol, distinct symbols
  /// @param end_of_word the symbol that ends a word, not in `alphabet`
  /// @param p the run's parameters
  /// @throws privet::invalid_parameter as parameters::validate does, or for
  /// an empty alphabet, a repeated symbol or end_of_word in the alphabet
  server(word alphabet, char32_t end_of_word, parameters p)
      : p_((p.validate(), p)),
        trie_(std::vector<char32_t>(alphabet.begin(), alphabet.end()), end_of_word) {}

  /// Whether another layer can run (D layers not yet run, prefixes left).
  /// Layer i (1-based) extends the kept prefixes of length i, so its
  /// candidates have i + 1 symbols and it finds the words of i letters: D
  /// layers find words of up to D letters, as Algorithm 2's "for i = 1..D"
  /// with P_0 = X does.
  [[nodiscard]] bool done() const {
    return trie_.depth() > p_.max_depth || trie_.candidate_count() == 0;
  }

  /// The broadcast for the next layer.
  [[nodiscard]] layer_broadcast broadcast() const {
    if (done()) throw protocol_error("privet: TrieHH has no further layer to broadcast");
    layer_broadcast b{static_cast<std::uint32_t>(trie_.depth()), {}, {}};
    for (auto n : trie_.layer(trie_.depth() - 1)) b.prefixes.push_back(trie_.prefix(n));
    for (std::size_t i = 0; i < trie_.alphabet_size(); ++i) b.alphabet.push_back(trie_.symbol(i));
    return b;
  }

  /// An empty sum for the open layer, to fill outside the server (for
  /// instance one per thread of a simulation) and hand over with
  /// receive_sum.
  [[nodiscard]] vote_sum make_sum() const {
    if (done()) throw protocol_error("privet: TrieHH has no open layer to sum");
    const std::uint64_t s = trie_.candidate_count();
    return vote_sum(static_cast<std::uint32_t>(trie_.depth()), s, max_vote_indices(p_, s));
  }

  /// Adds a vote of the current layer. Throws protocol_error (and ignores
  /// the vote) for another layer, an index out of range, more indices than
  /// B reports can hold, or more votes than users per layer.
  void receive(const vote& v) {
    if (done()) throw protocol_error("privet: TrieHH received a vote after the last layer");
    if (v.layer != trie_.depth()) {
      throw protocol_error("privet: TrieHH vote for layer " + std::to_string(v.layer) +
                           " while layer " + std::to_string(trie_.depth()) + " is open");
    }
    if (received() == p_.users_per_layer) {
      throw protocol_error("privet: TrieHH layer already has its " +
                           std::to_string(p_.users_per_layer) + " votes");
    }
    open_sum().add(v);
  }

  /// Adds the sum of `votes` clients' votes computed elsewhere, e.g. by
  /// secure aggregation (crypto/secure_aggregation.hpp) over to_dense()
  /// vectors, so that the server never sees a single vote. Throws
  /// protocol_error (and ignores the sum) for a length other than the
  /// candidate count, or more votes than users per layer in all; the sum
  /// itself cannot be checked further.
  void receive_sum(const std::vector<std::uint64_t>& sum, std::uint64_t votes) {
    if (done()) throw protocol_error("privet: TrieHH received a sum after the last layer");
    check_room(votes);
    open_sum().add_sum(sum, votes);
  }

  /// Adds a sum kept by an ephemeral aggregator (make_sum), whose votes
  /// were checked one by one as they arrived. Throws protocol_error (and
  /// ignores the sum) for another layer or more votes than users per layer
  /// in all.
  void receive_sum(const vote_sum& sum) {
    if (done()) throw protocol_error("privet: TrieHH received a sum after the last layer");
    check_room(sum.votes());
    open_sum().merge(sum);
  }

  /// Closes the layer: keeps the candidates whose count reaches the
  /// eta_max-th largest count (and at least 1) and grows the trie.
  layer_stats close_layer() {
    if (done()) throw protocol_error("privet: TrieHH has no open layer to close");
    const std::uint64_t s = trie_.candidate_count();
    const std::vector<std::uint64_t> sum =
        sum_ ? sum_->counts() : std::vector<std::uint64_t>(static_cast<std::size_t>(s), 0);
    std::uint64_t tau = 0;
    if (p_.max_prefixes <= s) {
      std::vector<std::uint64_t> sorted = sum;
      const auto nth = sorted.begin() + static_cast<std::ptrdiff_t>(p_.max_prefixes - 1);
      std::nth_element(sorted.begin(), nth, sorted.end(), std::greater<>());
      tau = *nth;
    }
    tau = std::max<std::uint64_t>(tau, 1);
    std::vector<std::uint64_t> kept;
    for (std::uint64_t c = 0; c < s; ++c)
      if (sum[static_cast<std::size_t>(c)] >= tau) kept.push_back(c);
    const std::size_t words_before = trie_.words().size();
    layer_stats st{static_cast<std::uint32_t>(trie_.depth()), s, received(), tau, kept.size(), 0};
    trie_.extend(kept);
    st.words = trie_.words().size() - words_before;
    stats_.push_back(st);
    sum_.reset();
    return st;
  }

  /// The words discovered so far (without the end-of-word symbol).
  [[nodiscard]] std::vector<word> discovered() const { return trie_.words(); }
  /// One entry per closed layer, in order.
  [[nodiscard]] const std::vector<layer_stats>& stats() const noexcept { return stats_; }
  /// The run's parameters.
  [[nodiscard]] const parameters& params() const noexcept { return p_; }

 private:
  [[nodiscard]] std::uint64_t received() const noexcept { return sum_ ? sum_->votes() : 0; }
  void check_room(std::uint64_t votes) const {
    if (votes > p_.users_per_layer - received()) {
      throw protocol_error("privet: TrieHH sum of " + std::to_string(votes) +
                           " votes exceeds the layer's " + std::to_string(p_.users_per_layer) +
                           " users");
    }
  }
  vote_sum& open_sum() {
    if (!sum_) sum_.emplace(make_sum());
    return *sum_;
  }

  parameters p_;
  prefix_trie<char32_t> trie_;
  std::optional<vote_sum> sum_;  // the open layer's, once anything arrived
  std::vector<layer_stats> stats_;
};

// ---- the driver -----------------------------------------------------------------------------

/// What one pass of run() or run_distribution() found and saw.
struct pass_result {
  std::vector<word> discovered;     ///< words found in this pass
  std::vector<layer_stats> layers;  ///< one per layer the pass ran
  std::vector<std::vector<std::uint64_t>>
      groups;  ///< the users of each layer (users.size(): padding)
};

/// Users per block of a simulated layer: a block runs on one thread from
/// its own random stream, so results do not depend on the thread count.
inline constexpr std::size_t simulation_block = 256;

namespace detail {

/// simulate_layer without the check of `group`: an index >= users.size()
/// stands for a user with no words (run's padding), who still sends B
/// dummy reports.
template <sampling_policy Sampling>
void simulate_group(const prepared_layer& layer, const std::vector<user_data>& users,
                    std::span<const std::uint64_t> group,
                    const std::unordered_set<word>* vocabulary, const keyed_streams& streams,
                    std::uint64_t stream, vote_sum& sum, const Sampling& sampling) {
  static const user_data no_words;
  const std::size_t blocks = (group.size() + simulation_block - 1) / simulation_block;
  oneapi::tbb::enumerable_thread_specific<vote_sum> partial(sum.empty_copy());
  oneapi::tbb::parallel_for(
      oneapi::tbb::blocked_range<std::size_t>(0, blocks, 1),
      [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
        vote_sum& mine = partial.local();
        vote v{};
        for (std::size_t k = r.begin(); k != r.end(); ++k) {
          auto gen = streams.stream(stream, k);  // a keyed_stream: release-grade
          const std::size_t end = std::min(group.size(), (k + 1) * simulation_block);
          for (std::size_t i = k * simulation_block; i < end; ++i) {
            const user_data& typed =
                group[i] < users.size() ? users[static_cast<std::size_t>(group[i])] : no_words;
            respond(typed, vocabulary, layer.broadcast(), layer.params(), layer.randomiser(),
                    sampling, gen, v);
            mine.add(v);
          }
        }
      },
      oneapi::tbb::simple_partitioner());
  for (const vote_sum& p : partial) sum.merge(p);
}

}  // namespace detail

/// Simulates the clients of one layer: user group[i] (an index into
/// `users`) responds to `layer` as client would, and the votes are checked
/// and summed into `sum` (an ephemeral aggregator, server::make_sum). Users
/// run in blocks of simulation_block on TBB's threads; block k draws from
/// streams.stream(stream, k), so the sum is a function of the streams'
/// secret, whatever the number of threads. Use a `stream` no other layer of
/// the same secret uses. Cost: B subset-selection reports per user (B d
/// random draws each), on all cores.
/// @param layer the prepared layer the users respond to
/// @param users the population's typed words
/// @param group indices into `users` of the layer's clients
/// @param vocabulary the known words, which vote for nothing (may be null)
/// @param streams release-grade keyed streams (the clients' randomness)
/// @param stream the first address word of this layer's streams
/// @param sum the layer's sum, which the votes are added to
/// @param sampling the local sampling policy
/// @throws privet::invalid_parameter for an index of `group` outside
/// `users`, or a `sum` of another layer or candidate count
/// @throws privet::protocol_error if the sampling policy keeps more than B
/// prefixes or a vote does not fit `sum`'s limits
/// @throws privet::overflow_error as vote_sum::add
template <sampling_policy Sampling = random_sampling>
void simulate_layer(const prepared_layer& layer, const std::vector<user_data>& users,
                    std::span<const std::uint64_t> group,
                    const std::unordered_set<word>* vocabulary, const keyed_streams& streams,
                    std::uint64_t stream, vote_sum& sum, Sampling sampling = {}) {
  for (std::uint64_t u : group) {
    if (u >= users.size()) {
      throw_invalid("group[i]", u, "< users.size() = " + std::to_string(users.size()));
    }
  }
  if (sum.layer() != layer.broadcast().message().layer ||
      sum.candidates() != layer.broadcast().candidates()) {
    throw_invalid("sum.layer()", sum.layer(),
                  "the layer of the broadcast (" +
                      std::to_string(layer.broadcast().message().layer) +
                      ") with as many candidates");
  }
  detail::simulate_group(layer, users, group, vocabulary, streams, stream, sum, sampling);
}

namespace detail {
// The pass structure both simulation drivers share (run, run_distribution):
// each pass grows a fresh trie layer by layer, `one_layer(srv, layer, r)`
// feeding the layer's votes to srv, and the words a pass finds join the
// vocabulary of the later passes only.
template <class OneLayer>
std::vector<pass_result> run_passes(std::unordered_set<word>& vocabulary, const word& alphabet,
                                    char32_t end_of_word, const parameters& p, std::size_t passes,
                                    OneLayer&& one_layer) {
  std::vector<pass_result> out;
  for (std::size_t pass = 0; pass < passes; ++pass) {
    server srv(alphabet, end_of_word, p);
    pass_result r;
    while (!srv.done()) {
      const prepared_layer layer(srv.broadcast(), p);
      one_layer(srv, layer, r);
      r.layers.push_back(srv.close_layer());
    }
    for (auto& w : srv.discovered()) {
      if (vocabulary.insert(w).second) r.discovered.push_back(std::move(w));
    }
    out.push_back(std::move(r));
  }
  return out;
}
}  // namespace detail

/// Runs `passes` passes of the algorithm over disjoint groups of users: a
/// uniformly random order of all users is drawn once and each layer of each
/// pass takes the next N users, so no user joins two layers or two passes.
/// Words found by a pass join the known vocabulary of the later ones. The
/// users' own randomness comes from keyed streams under a secret drawn from
/// `gen` (simulate_layer), so layers run on all cores and the result is a
/// function of gen alone; gen must therefore be release grade (a
/// secure_bit_source: privet::secure_generator(), or in tests
/// testing::seeded_release_generator), as each client's own would be. The
/// number of users is data, so it never makes the run throw: when fewer
/// than N users remain for a layer (a run takes at most passes * D * N),
/// the layer is filled up with users who typed no words (they send B dummy
/// reports, as any user without a valid prefix does; their index in
/// pass_result::groups is users.size()). Every layer thus hears exactly N
/// clients, so the per-layer central guarantee of privacy_report, computed
/// for N B shuffled reports, holds whatever the data; only utility falls.
/// Throws invalid_parameter as server's constructor does or for passes = 0,
/// and protocol_error if the sampling policy keeps more than B prefixes.
template <sampling_policy Sampling = random_sampling, random_bit_source G>
std::vector<pass_result> run(const std::vector<user_data>& users,
                             std::unordered_set<word> vocabulary, const word& alphabet,
                             char32_t end_of_word, const parameters& p, std::size_t passes, G& gen,
                             Sampling sampling = {}) {
  PRIVET_REQUIRE_SECURE_GENERATOR(G);
  p.validate();
  validate_at_least<std::size_t>(passes, 1, "passes");
  // A uniform permutation (Fisher-Yates with unbiased draws).
  std::vector<std::uint64_t> order(users.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  for (std::size_t i = order.size(); i > 1; --i) {
    std::swap(order[i - 1], order[static_cast<std::size_t>(uniform_below(gen, i))]);
  }
  // The clients' randomisers run on streams under a secret from gen, so
  // gen must be as good as a client's own generator (release grade).
  const keyed_streams streams = streams_from(gen);
  std::size_t next = 0;
  return detail::run_passes(
      vocabulary, alphabet, end_of_word, p, passes,
      [&](server& srv, const prepared_layer& layer, pass_result& r) {
        // The next N users of the order, then padding users with no words.
        const std::size_t from = std::min<std::size_t>(next, order.size());
        const std::size_t to = static_cast<std::size_t>(
            std::min<std::uint64_t>(order.size() - from, p.users_per_layer) + from);
        std::vector<std::uint64_t> group(order.begin() + static_cast<std::ptrdiff_t>(from),
                                         order.begin() + static_cast<std::ptrdiff_t>(to));
        group.resize(static_cast<std::size_t>(p.users_per_layer), users.size());
        vote_sum sum = srv.make_sum();
        // The group's first position in the order names its streams: no two
        // layers of the run share one. The vocabulary grows only after the pass.
        detail::simulate_group(layer, users, std::span<const std::uint64_t>(group), &vocabulary,
                               streams, next, sum, sampling);
        srv.receive_sum(sum);
        next += p.users_per_layer;
        r.groups.push_back(std::move(group));
      });
}

// ---- the privacy report --------------------------------------------------------------------

/// The guarantees of a run's layers (report()): local ones per report and
/// per user, and the central ones that shuffling a layer's N B reports
/// gives (Feldman, McMillan & Talwar 2021). At epsilon = inf every
/// guarantee is empty: without noise there is none.
struct privacy_report {
  std::optional<pure_dp> local;  ///< per report (item level); empty: epsilon = inf
  /// A client's whole vote, its B reports of one layer together (user
  /// level): B eps by basic composition. Each user votes in one layer, so
  /// this is also its guarantee for the whole run. Empty: epsilon = inf.
  std::optional<pure_dp> local_per_user;
  std::uint64_t reports_per_layer;  ///< n = N * B
  /// Feldman, McMillan & Talwar 2021's numerical bound (FOCS, Theorem 3.2),
  /// which holds for every eps0-LDP randomiser, subset selection included.
  std::optional<approx_dp> central_numerical;
  /// FMT 2021's closed form (Theorem 3.1), where its range allows. Not FMT
  /// 2023's: its errata restricts that theorem to a class of randomisers
  /// subset selection with d >= 2 is not in (accounting/shuffle.hpp).
  std::optional<approx_dp> central_closed_form;
};

/// Item-level guarantees of one layer (and, by parallel composition over
/// disjoint users, of the whole run) at `delta`. central_closed_form is
/// empty where FMT 2021's Theorem 3.1 does not apply. Throws
/// invalid_parameter as parameters::validate does, for delta outside
/// (0, 1), or for N B beyond 2^64 - 1.
inline privacy_report report(const parameters& p, double delta) {
  p.validate();
  validate_delta_positive(delta);
  privacy_report r{std::nullopt, std::nullopt, 0, std::nullopt, std::nullopt};
  if (p.users_per_layer > std::numeric_limits<std::uint64_t>::max() / p.contributions) {
    throw_invalid("users_per_layer", p.users_per_layer, "with users_per_layer * B < 2^64");
  }
  r.reports_per_layer = p.users_per_layer * p.contributions;
  if (std::isinf(p.epsilon)) return r;
  r.local = pure_dp(p.epsilon);
  r.local_per_user =
      pure_dp(compose_basic(std::vector<approx_dp>(static_cast<std::size_t>(p.contributions),
                                                   approx_dp(p.epsilon, 0)))
                  .epsilon());
  // The randomiser is subset selection: only bounds that hold for every
  // eps0-LDP randomiser apply (accounting/shuffle.hpp says why).
  r.central_numerical =
      shuffle_amplification<subset_selection>(p.epsilon, r.reports_per_layer, delta);
  try {
    r.central_closed_form =
        shuffle_amplification_closed_form_any_ldp(p.epsilon, r.reports_per_layer, delta);
  } catch (const invalid_parameter&) {
    // Outside the closed form's stated range: there is no closed-form figure.
  }
  return r;
}

// ---- approximate k-anonymity (Sun et al. 2024, Lemma 1) --------------------------------------

/// P[Bin(k, p) + Bin(m, q) >= tau]: the first binomial summed over a window
/// of about 40 sqrt(k) terms around its mean, the mass outside it added whole
/// (a Hoeffding bound), so the result is never below the true tail; the
/// second's upper tail by the regularised incomplete beta function. Throws
/// invalid_parameter naming `p` or `q` unless it is in [0, 1] (Boost.Math
/// threw std::domain_error for them). k, m and tau never throw: any uint64
/// is read exactly (a run's threshold is data; one above 2^63 - 1 wrapped
/// to a negative count and gave 1), and the window is clipped to [0, k].
inline double vote_tail(std::uint64_t k, double p, std::uint64_t m, double q, std::uint64_t tau) {
  validate_probability(p, "p");
  validate_probability(q, "q");
  auto upper = [&](std::uint64_t t) {  // P[Bin(m, q) >= t]
    if (t == 0) return 1.0;
    if (t > m) return 0.0;
    return boost::math::ibeta(static_cast<double>(t),
                              static_cast<double>(m) - static_cast<double>(t) + 1, q);
  };
  if (k == 0) return upper(tau);
  const boost::math::binomial_distribution<double> first(static_cast<double>(k), p);
  // Only a window of the first binomial is summed; the mass outside it is at
  // most 2 exp(-2 w^2 / k) (Hoeffding) and is added whole, so the result is
  // never below the true tail.
  const double kd = static_cast<double>(k);
  const double w = std::ceil(std::sqrt(kd * 400.0)) + 1;  // 2 w^2 / k >= 800
  // Clipped in doubles before the conversion: kd may round up to 2^64, which
  // no uint64 holds.
  const double lo_d = std::max(0.0, std::floor(kd * p - w));
  const double hi_d = std::ceil(kd * p + w);
  const std::uint64_t lo = lo_d >= kd ? k : static_cast<std::uint64_t>(lo_d);
  const std::uint64_t hi = hi_d >= kd ? k : static_cast<std::uint64_t>(hi_d);
  double total = (lo > 0 || hi < k) ? 2 * std::exp(-2 * w * w / kd) : 0.0;
  for (std::uint64_t j = lo;; ++j) {
    const double pj = boost::math::pdf(first, static_cast<double>(j));
    // Unsigned: a tau beyond 2^63 - 1 must not wrap to a negative count.
    if (pj != 0) total += pj * upper(tau > j ? tau - j : 0);
    if (j == hi) break;  // not j <= hi: hi may be 2^64 - 1
  }
  return std::min(1.0, total);
}

namespace detail {

// The candidate count eta_max |X| + 1 and the reports per layer N B of the
// two functions below, which would wrap silently in 64 bits.
inline void check_layer_sizes(const parameters& p, std::uint64_t alphabet_size) {
  constexpr std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
  if (p.users_per_layer > top / p.contributions) {
    throw_invalid("users_per_layer", p.users_per_layer, "with users_per_layer * B < 2^64");
  }
  if (alphabet_size > (top - 1) / p.max_prefixes) {
    throw_invalid("alphabet_size", alphabet_size,
                  "with max_prefixes * alphabet_size + 1 < 2^64 (max_prefixes = " +
                      std::to_string(p.max_prefixes) + ")");
  }
}

// Lemma 1's k for subset selection over s candidates (gamma included) with
// N B reports: the largest k with P[Bin(k, p) + Bin(N B - k, q) >= tau] <=
// 1 - alpha, or nothing if k = 0 already fails.
inline std::optional<std::uint64_t> k_anonymity(const parameters& p, std::uint64_t s,
                                                std::uint64_t tau, double alpha) {
  const subset_selection ss(p.epsilon, s);
  const double pp = ss.p_true(), q = ss.p_other();
  const std::uint64_t n = p.users_per_layer * p.contributions;
  auto kept = [&](std::uint64_t k) { return vote_tail(k, pp, n - k, q, tau); };
  if (kept(0) > 1 - alpha) return std::nullopt;
  // Galloping from 0: k is usually small next to N B, and a tail at k costs
  // O(sqrt(k)) terms, so the bracket is found in O(log k) cheap steps
  // before the bisection.
  std::uint64_t lo = 0, hi = 1;  // kept(lo) <= 1 - alpha
  while (hi < n && kept(hi) <= 1 - alpha) {
    lo = hi;
    hi = hi > n / 2 ? n : 2 * hi;
  }
  if (hi >= n) {
    if (kept(n) <= 1 - alpha) return n;
    hi = n;
  }
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (kept(mid) <= 1 - alpha ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace detail

/// For one layer's subset selection over s = eta_max |X| + 1 candidates
/// (Sun et al. 2024, Lemma 1): a prefix contributed k times among the N B
/// reports gets f(k) = Bin(k, p) + Bin(N B - k, q) votes,
/// q = (d - p) / (s - 1).
/// Returns the largest k with P[f(k) >= tau] <= 1 - alpha: a prefix
/// contributed at most that many times is kept with probability at most
/// 1 - alpha, so kept prefixes are alpha-approximately (k + 1)-anonymous.
/// Returns nothing when even a prefix nobody contributed passes tau with
/// probability above 1 - alpha (the other users' reports alone reach the
/// threshold that often): no anonymity statement holds at this alpha, and
/// 0 would wrongly claim one for k = 0.
/// tau is a threshold, e.g. typical_threshold() (for a run's own layers,
/// use the overload below, which takes each layer's candidate count). Throws
/// invalid_parameter for epsilon = inf (no anonymity at all), alpha outside
/// (0, 1), or N B or eta_max |X| + 1 beyond 2^64 - 1.
inline std::optional<std::uint64_t> approximate_k_anonymity(const parameters& p,
                                                            std::uint64_t alphabet_size,
                                                            std::uint64_t tau, double alpha) {
  p.validate();
  if (std::isinf(p.epsilon)) throw_invalid("epsilon", p.epsilon, "finite (no noise, no anonymity)");
  if (!(alpha > 0 && alpha < 1)) throw_invalid("alpha", alpha, "(0, 1)");
  validate_at_least<std::uint64_t>(alphabet_size, 2, "alphabet_size");
  detail::check_layer_sizes(p, alphabet_size);
  return detail::k_anonymity(p, p.max_prefixes * alphabet_size + 1, tau, alpha);
}

/// The same for one closed layer of a run, with its own candidate count
/// (the randomiser's s is layer.candidates + 1, gamma included) and
/// threshold: a layer with fewer candidates than eta_max |X| has a smaller
/// d and so a different q, which the form above (s = eta_max |X| + 1)
/// does not see. A layer that keeps every candidate with a vote
/// (candidates <= eta_max) has threshold 1 and usually no figure: it
/// selects nothing, so keeping says nothing about who contributed. Throws
/// invalid_parameter as above, and for a layer without candidates.
inline std::optional<std::uint64_t> approximate_k_anonymity(const parameters& p,
                                                            const layer_stats& layer,
                                                            double alpha) {
  p.validate();
  if (std::isinf(p.epsilon)) throw_invalid("epsilon", p.epsilon, "finite (no noise, no anonymity)");
  if (!(alpha > 0 && alpha < 1)) throw_invalid("alpha", alpha, "(0, 1)");
  if (layer.candidates == 0 || layer.candidates == std::numeric_limits<std::uint64_t>::max()) {
    throw_invalid("layer.candidates", layer.candidates, "[1, 2^64 - 2]");
  }
  if (p.users_per_layer > std::numeric_limits<std::uint64_t>::max() / p.contributions) {
    throw_invalid("users_per_layer", p.users_per_layer, "with users_per_layer * B < 2^64");
  }
  return detail::k_anonymity(p, layer.candidates + 1, layer.threshold, alpha);
}

/// An estimate of a layer's threshold tau when no run is at hand: the
/// largest t with (s - 1) P[Bin(N B, q) >= t] >= eta_max, q = (d - p) /
/// (s - 1) the chance that one report of another item contains a given
/// candidate: the count that eta_max candidates are expected to reach from
/// other users' random reports alone. A run's thresholds are at least
/// about this high (true prefixes only add votes), so it is an estimate,
/// not a bound: pass a run's observed threshold to approximate_k_anonymity
/// for its own figure.
inline std::uint64_t typical_threshold(const parameters& p, std::uint64_t alphabet_size) {
  p.validate();
  if (std::isinf(p.epsilon)) throw_invalid("epsilon", p.epsilon, "finite");
  detail::check_layer_sizes(p, alphabet_size);
  const std::uint64_t s = p.max_prefixes * alphabet_size + 1;
  const subset_selection ss(p.epsilon, s);
  const std::uint64_t n = p.users_per_layer * p.contributions;
  // Before: the rate was (d - 2) / (s - 1), which is 0 for d <= 2 (eps = 10
  // with s below about 3 e^10) and made the threshold 0 and every
  // anonymity figure vacuous; a report contains a given other candidate
  // with probability q even when d = 1.
  const double r = ss.p_other();
  const boost::math::binomial_distribution<double> b(static_cast<double>(n), r);
  auto expected = [&](std::uint64_t x) {
    return static_cast<double>(s - 1) *
           (x == 0 ? 1.0
                   : boost::math::cdf(boost::math::complement(b, static_cast<double>(x - 1))));
  };
  // expected() does not increase with t, is s - 1 >= eta_max at 0 and 0 past
  // n: bisection, about log2(n) evaluations. (Before: a step at a time from
  // the mean, about 5 standard deviations of steps, so hours at N B = 2^60.)
  const auto m = static_cast<double>(p.max_prefixes);
  std::uint64_t lo = 0, hi = n + 1;  // expected(lo) >= m > expected(hi)
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (expected(mid) >= m ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace privet::triehh
