// privet/algorithms/triehh_constant_time.hpp — an LDP TrieHH client whose
// work does not depend on the words it holds (issue 36).
//
// In local DP the server is the adversary, and it sees when each vote
// arrives. The client of ldp_triehh.hpp reports in constant time once it
// has its items (subset selection), but the step before, forming its valid
// prefixes, takes time that follows its data: a loop over its typed words,
// hash-table probes that stop early, a sort and a merge over the prefixes
// it found, and a local sampling that copies them all when there are at
// most B. A vote that comes back fast says the user has few or no valid
// prefixes: exactly what the randomiser is there to hide.
//
// constant_time_client does the same step with work fixed by public bounds
// (client_bounds, the same for every client of a run) and the layer:
// - When the device's store is loaded (not when a broadcast arrives), the
//   client keeps its first W typed words, each as L symbols (0 past its
//   end) and its length capped at L, with its count; fewer words are padded
//   with empty slots of count 0. Words past the W-th are dropped, a
//   data-independent truncation that costs utility only: the randomiser's
//   guarantee holds whatever the items. A vote then reads this same memory
//   in the same order for every user.
// - A word's known-vocabulary test and its prefix's lookup are scans of
//   every key of the vocabulary and of the layer's prefixes, compared by
//   masks: 128-bit XXH3 keys of a fixed-length buffer (L symbols and the
//   capped length; the layer's `layer` symbols), whose time does not depend
//   on the symbols. No memory address depends on the word. L is more than
//   the longest vocabulary word, so a word of L symbols or more is never
//   known. The layer picks seeds under which no two keys of a table are
//   equal; a word whose key equals a key of a table it is not in (for a
//   random hash, probability at most (|vocabulary| + |prefixes|) 2^-128 per
//   word) would be taken as known or vote for that prefix's candidate, a
//   local change of the user's items that the randomiser's guarantee
//   covers. The next symbol is found by a scan of the alphabet.
// - The W slots (candidate or "none", count) are sorted by Batcher's network
//   (detail::ct_sort_records), equal candidates merged by a pass of masks
//   (counts added saturating at 2^64 - 1, as valid_prefixes does), and the
//   local sampling is another sort: greedy_sampling by (count descending,
//   candidate), random_sampling by a 63-bit random priority per slot (W
//   words of the generator whatever the data), the empty slots last. The
//   first B slots, the empty ones replaced by gamma by masks, are the items,
//   and every one of the B is reported by the constant-time subset
//   selection. Gamma's slots are dropped from the vote afterwards by a
//   compaction without branches (the vote's length shows how many). At
//   epsilon = +inf (no randomiser) the items themselves are the vote.
// A vote costs W (|vocabulary| + |prefixes| + |X|) comparisons, two sorts
// of W records (O(W log^2 W) exchanges) and B subset-selection reports.
// The vote is that of ldp_triehh.hpp's client holding the first W words:
// the same items for greedy_sampling (in the same order), the same law for
// random_sampling (a uniform B-subset of the distinct valid prefixes, in a
// random order instead of uniform_subset's; priorities that tie,
// probability at most W^2 2^-64, keep the smaller candidate), and the same
// reports.
//
// What the time still depends on: W, L, the layer (its prefixes, alphabet
// and B) and the vocabulary, all public. respond_constant_time pads a
// user_data and votes in one call, for simulations; its padding reads the
// user's words.
#pragma once

#include <privet/algorithms/ldp_triehh.hpp>
#include <privet/core/concepts.hpp>
#include <privet/core/error.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/detail/constant_time.hpp>
#include <privet/mechanisms/detail/ct_local.hpp>

#include <xxhash.h>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

namespace privet::triehh {

/// The public bounds of a constant-time client, the same for every client
/// of a run, since its work (and so its time) follows them.
struct client_bounds {
  /// W: the typed words kept, the first W of a user's list (fewer are
  /// padded); in [1, 2^24].
  std::size_t words = 1024;
  /// L: the symbols kept of each word, in [2, 2^16]. A layer needs L above
  /// the longest vocabulary word and its prefixes' length; 0 gives a layer
  /// least_word_length(), which serves every layer of a run (a client needs
  /// L itself: build it from least_word_length()). W (L + 1) at most 2^28.
  std::size_t word_length = 0;

  /// Equal when both W and L are.
  friend bool operator==(const client_bounds&, const client_bounds&) = default;
};

/// The least L that serves every layer of a run: one more than the longest
/// vocabulary word (so a word of L symbols or more is never known) and at
/// least max_depth + 1 (a candidate is a prefix and one more symbol).
inline std::size_t least_word_length(const std::unordered_set<word>* vocabulary,
                                     const parameters& p) {
  std::size_t longest = 0;
  if (vocabulary != nullptr) {
    for (const word& w : *vocabulary) longest = std::max(longest, w.size());
  }
  return std::max(longest + 1, p.max_depth + 1);
}

namespace detail {

/// Throws invalid_parameter naming `bounds.words` or `bounds.word_length`
/// outside [1, 2^24] and [least, 2^16].
inline void check_bounds(const client_bounds& b, std::size_t given_length, std::size_t least,
                         const std::string& why) {
  constexpr std::size_t most = std::size_t{1} << 16;
  if (b.words < 1 || b.words > (std::size_t{1} << 24)) {
    throw_invalid("bounds.words", b.words, "[1, 16777216]");
  }
  if (least > most) {
    throw_invalid("bounds.word_length", given_length,
                  "at most 65536, which must exceed the longest vocabulary word (" +
                      std::to_string(least - 1) + " symbols)");
  }
  if (b.word_length < least || b.word_length > most) {
    throw_invalid("bounds.word_length", given_length,
                  "[" + std::to_string(least) + ", 65536]" + why);
  }
  if (b.words * (b.word_length + 1) > (std::size_t{1} << 28)) {
    throw_invalid("bounds",
                  "(" + std::to_string(b.words) + ", " + std::to_string(b.word_length) + ")",
                  "W (L + 1) at most 2^28 symbols (1 GiB a client)");
  }
}

}  // namespace detail

/// The local sampling policies that have a constant-time form here.
template <class P>
concept constant_time_sampling =
    std::same_as<P, greedy_sampling> || std::same_as<P, random_sampling>;

class constant_time_layer;

/// A device's words padded to the run's bounds, once, when its store is
/// loaded: W slots of L symbols (0 past a word's end) and the word's length
/// capped at L, and each word's count (0 for padding). A vote then reads
/// this same memory, in the same order, whatever the user typed; building
/// it reads the user's words and takes time that follows them, so a device
/// builds it before a broadcast arrives, not in answer to one.
class constant_time_client {
 public:
  /// The first W of `typed`, each word's first L symbols (L as the run's
  /// layers take it: least_word_length(vocabulary, p) for their default).
  /// Throws invalid_parameter naming `bounds.words`, `bounds.word_length` or
  /// `bounds` outside their ranges (client_bounds).
  constant_time_client(const user_data& typed, client_bounds bounds) : bounds_(bounds) {
    detail::check_bounds(bounds_, bounds_.word_length, 2, " (least_word_length(vocabulary, p))");
    const std::size_t w = bounds_.words, l = bounds_.word_length;
    symbols_.assign(w * (l + 1), 0);
    counts_.assign(w, 0);
    for (std::size_t i = 0; i < w && i < typed.size(); ++i) {
      const word& x = typed[i].first;
      std::uint32_t* slot = symbols_.data() + i * (l + 1);
      const std::size_t kept = std::min(x.size(), l);
      std::copy(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(kept), slot);
      slot[l] = static_cast<std::uint32_t>(kept);
      counts_[i] = typed[i].second;
    }
  }

  /// This client's vote for the layer, into `out` (its storage reused), in
  /// work fixed by the layer and the bounds (see the file comment); throws
  /// invalid_parameter naming `bounds` when the layer's differ. Scratch of
  /// 11 W words a thread is kept between votes (thread_local, never shrunk).
  template <constant_time_sampling Sampling = random_sampling, random_bit_source G>
  void respond(const constant_time_layer& l, G& gen, vote& out, Sampling sampling = {}) const;

  /// The same, as a new vote.
  template <constant_time_sampling Sampling = random_sampling, random_bit_source G>
  vote respond(const constant_time_layer& l, G& gen, Sampling sampling = {}) const {
    vote v{};
    respond(l, gen, v, sampling);
    return v;
  }

  /// W and L.
  [[nodiscard]] client_bounds bounds() const noexcept { return bounds_; }

 private:
  client_bounds bounds_;
  std::vector<std::uint32_t> symbols_;  // W slots of L symbols and the capped length
  std::vector<std::uint64_t> counts_;
};

/// A layer prepared for constant-time clients: the prepared layer, its
/// prefixes and the known vocabulary as sorted keys, and the bounds. Built
/// once per device and layer (every client of a simulation can share one);
/// its construction takes time that follows these public inputs only.
class constant_time_layer {
 public:
  /// The layer for clients of bounds `bounds` (word_length 0: the least,
  /// least_word_length(vocabulary, layer.params())). Throws
  /// invalid_parameter naming `bounds.words` or `bounds.word_length`
  /// outside their ranges (client_bounds; L at least one more than the
  /// longest vocabulary word and than this layer's prefixes).
  constant_time_layer(prepared_layer layer, const std::unordered_set<word>* vocabulary,
                      client_bounds bounds = {})
      : layer_(std::move(layer)), words_(bounds.words) {
    const layer_broadcast& b = layer_.broadcast().message();
    prefix_length_ = b.layer;
    std::size_t longest = 0;
    if (vocabulary != nullptr) {
      for (const word& w : *vocabulary) longest = std::max(longest, w.size());
    }
    const std::size_t given = bounds.word_length;
    if (given == 0) bounds.word_length = least_word_length(vocabulary, layer_.params());
    detail::check_bounds(
        bounds, given, std::max(longest + 1, prefix_length_ + 1),
        std::string(" (one more than the longest vocabulary word and than the layer's prefixes") +
            (given == 0 ? "; 0 gave least_word_length(vocabulary, params) = " +
                              std::to_string(bounds.word_length) + ", below layer + 1"
                        : "") +
            ")");
    length_ = bounds.word_length;
    alphabet_.assign(b.alphabet.begin(), b.alphabet.end());
    // The prefixes' 128-bit keys, in candidate order, under a seed for
    // which no two are equal (the first, but for a 2^-128 chance).
    const std::size_t np = b.prefixes.size();
    for (prefix_seed_ = 0;; ++prefix_seed_) {
      prefix_keys_ = keys(np, [&](std::size_t i) { return prefix_key(b.prefixes[i].data()); });
      if (prefix_keys_.distinct()) break;
    }
    // The vocabulary's keys (the words themselves are not kept).
    if (vocabulary != nullptr && !vocabulary->empty()) {
      std::vector<const word*> words;
      words.reserve(vocabulary->size());
      for (const word& w : *vocabulary) words.push_back(&w);
      std::vector<std::uint32_t> buffer(length_ + 1);
      for (vocabulary_seed_ = 0;; ++vocabulary_seed_) {
        vocabulary_keys_ = keys(words.size(), [&](std::size_t i) {
          std::fill(buffer.begin(), buffer.end(), 0u);
          std::copy(words[i]->begin(), words[i]->end(), buffer.begin());
          buffer[length_] = static_cast<std::uint32_t>(words[i]->size());
          return word_key(buffer.data());
        });
        if (vocabulary_keys_.distinct()) break;
      }
    }
  }

  /// The prepared layer (its broadcast, parameters and randomiser).
  [[nodiscard]] const prepared_layer& layer() const noexcept { return layer_; }
  /// W and L as used.
  [[nodiscard]] client_bounds bounds() const noexcept { return {words_, length_}; }

 private:
  friend class constant_time_client;

  // 128-bit keys as two arrays of halves, scanned whole (a scan of
  // comparisons by masks reads the same memory whatever it looks for).
  struct key_table {
    std::vector<std::uint64_t> hi, lo;
    [[nodiscard]] bool distinct() const {
      std::vector<std::pair<std::uint64_t, std::uint64_t>> k(hi.size());
      for (std::size_t i = 0; i < k.size(); ++i) k[i] = {hi[i], lo[i]};
      std::sort(k.begin(), k.end());
      return std::adjacent_find(k.begin(), k.end()) == k.end();
    }
    // For each of n keys: hit[i] and at[i] (detail::ct_find_all).
    void find_all(const std::uint64_t* kh, const std::uint64_t* kl, std::size_t n,
                  std::uint64_t* hit, std::uint64_t* at) const noexcept {
      privet::detail::ct_find_all(hi.data(), lo.data(), hi.size(), kh, kl, n, hit, at);
    }
  };
  template <class Key>
  static key_table keys(std::size_t n, Key&& key) {
    key_table t;
    t.hi.resize(n);
    t.lo.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      const XXH128_hash_t k = key(i);
      t.hi[i] = k.high64;
      t.lo[i] = k.low64;
    }
    return t;
  }
  // A fixed number of bytes for each table, so XXH3's work is the same for
  // every input of it.
  XXH128_hash_t prefix_key(const void* symbols) const noexcept {
    return XXH3_128bits_withSeed(symbols, prefix_length_ * sizeof(char32_t), prefix_seed_);
  }
  XXH128_hash_t word_key(const std::uint32_t* buffer) const noexcept {
    return XXH3_128bits_withSeed(buffer, (length_ + 1) * sizeof(std::uint32_t), vocabulary_seed_);
  }

  prepared_layer layer_;
  std::size_t words_ = 0;
  std::size_t length_ = 0;
  std::size_t prefix_length_ = 0;
  std::vector<char32_t> alphabet_;
  std::uint64_t prefix_seed_ = 0;
  key_table prefix_keys_;  // prefix i's key at i
  std::uint64_t vocabulary_seed_ = 0;
  key_table vocabulary_keys_;
};

/// The work of a vote (see the file comment).
template <constant_time_sampling Sampling, random_bit_source G>
void constant_time_client::respond(const constant_time_layer& l, G& gen, vote& out,
                                   Sampling) const {
  // A device's vote is a release: its sampling priorities and reports need
  // a generator nobody else can predict.
  PRIVET_REQUIRE_SECURE_GENERATOR(G);
  using namespace privet::detail;
  if (!(l.bounds() == bounds_)) {
    throw_invalid(
        "bounds",
        "(" + std::to_string(bounds_.words) + ", " + std::to_string(bounds_.word_length) + ")",
        "the layer's (" + std::to_string(l.words_) + ", " + std::to_string(l.length_) + ")");
  }
  const prepared_broadcast& b = l.layer_.broadcast();
  const parameters& p = l.layer_.params();
  out.layer = b.message().layer;
  out.indices.clear();
  const std::uint64_t s = b.candidates();
  if (s == 0) return;
  constexpr std::size_t fields = 3;  // sort key, second key, candidate (or none)
  constexpr std::uint64_t none = ~std::uint64_t{0};
  const std::size_t w_slots = l.words_, length = l.length_, plen = l.prefix_length_;
  const std::uint64_t n_symbols = l.alphabet_.size();
  thread_local std::vector<std::uint64_t> slots;
  slots.assign(w_slots * fields, 0);

  // The slots' keys, then one scan of each table for all of them.
  thread_local std::vector<std::uint64_t> keys;  // prefix hi, lo; word hi, lo; then results
  keys.assign(8 * w_slots, 0);
  std::uint64_t* const ph = keys.data();
  std::uint64_t* const pl = ph + w_slots;
  std::uint64_t* const wh = pl + w_slots;
  std::uint64_t* const wl = wh + w_slots;
  std::uint64_t* const p_hit = wl + w_slots;
  std::uint64_t* const p_at = p_hit + w_slots;
  std::uint64_t* const w_hit = p_at + w_slots;
  std::uint64_t* const w_at = w_hit + w_slots;
  const std::uint32_t* padded = symbols_.data();
  for (std::size_t i = 0; i < w_slots; ++i, padded += length + 1) {
    const XXH128_hash_t pk = l.prefix_key(padded), wk = l.word_key(padded);
    ph[i] = pk.high64;
    pl[i] = pk.low64;
    wh[i] = wk.high64;
    wl[i] = wk.low64;
  }
  l.prefix_keys_.find_all(ph, pl, w_slots, p_hit, p_at);
  l.vocabulary_keys_.find_all(wh, wl, w_slots, w_hit, w_at);

  padded = symbols_.data();
  const char32_t eow = l.alphabet_.back();
  for (std::size_t i = 0; i < w_slots; ++i, padded += length + 1) {
    const std::uint64_t size = padded[length];               // min(|w|, L)
    const std::uint64_t longer = ct_is_zero(size ^ length);  // |w| >= L: no vocabulary word
    const std::uint64_t known = w_hit[i] & (longer ^ 1);
    // The word has the whole prefix, and the prefix's key is the layer's.
    const std::uint64_t found = p_hit[i] & (ct_lt(size, plen) ^ 1);
    // The next symbol (the end-of-word symbol after the last), by a scan.
    const std::uint64_t next =
        ct_select(ct_mask(ct_lt(plen, size)), padded[plen], static_cast<std::uint64_t>(eow));
    std::uint64_t symbol = 0, has_symbol = 0;
    for (std::uint64_t k = 0; k < n_symbols; ++k) {
      const std::uint64_t hit = ct_is_zero(static_cast<std::uint64_t>(l.alphabet_[k]) ^ next);
      symbol |= k & ct_mask(hit);
      has_symbol |= hit;
    }
    const std::uint64_t candidate = p_at[i] * n_symbols + symbol;
    const std::uint64_t count = counts_[i];
    const std::uint64_t valid = (ct_is_zero(count) ^ 1) & found & has_symbol & (known ^ 1);
    std::uint64_t* r = slots.data() + i * fields;
    r[0] = ct_select(ct_mask(valid), candidate, none);
    r[1] = count;
    r[2] = 0;
  }

  // Merge equal candidates: sorted by candidate, each run's counts added
  // into its first slot from the back, the others emptied.
  ct_sort_records<fields, 1>(slots.data(), w_slots);
  for (std::size_t i = w_slots - 1; i > 0; --i) {
    std::uint64_t* cur = slots.data() + i * fields;
    std::uint64_t* prev = cur - fields;
    const std::uint64_t same = ct_is_zero(cur[0] ^ prev[0]) & (ct_is_zero(~cur[0]) ^ 1);
    const std::uint64_t add = cur[1] & ct_mask(same);
    const std::uint64_t sum = prev[1] + add;
    prev[1] = ct_select(ct_mask(ct_lt(sum, prev[1])), none, sum);
    cur[0] = ct_select(ct_mask(same), none, cur[0]);
  }
  // The local sampling's order, empty slots last: (count descending,
  // candidate) for greedy; a random 63-bit priority (then the candidate)
  // for random.
  for (std::size_t i = 0; i < w_slots; ++i) {
    std::uint64_t* r = slots.data() + i * fields;
    const std::uint64_t candidate = r[0];
    const std::uint64_t used = ct_is_zero(~candidate) ^ 1;
    std::uint64_t first = 0;
    if constexpr (std::same_as<Sampling, greedy_sampling>) {
      first = ~r[1];  // counts >= 1, so at most 2^64 - 2
    } else {
      first = random_u64(gen) >> 1;
    }
    r[0] = ct_select(ct_mask(used), first, none);
    r[1] = candidate;
    r[2] = candidate;
  }
  ct_sort_records<fields, 2>(slots.data(), w_slots);

  // The first B slots are the items, empty ones gamma (index s).
  const std::uint64_t b_items = p.contributions;
  const subset_selection* ss = l.layer_.randomiser();
  if (ss == nullptr) {  // epsilon = inf: no randomiser; the vote shows the items
                        // themselves, so this branches on them freely
    for (std::uint64_t j = 0; j < b_items && j < w_slots; ++j) {
      const std::uint64_t item = slots[static_cast<std::size_t>(j) * fields + 2];
      if (item != none) out.indices.push_back(item);  // what the vote shows
    }
    return;
  }
  for (std::uint64_t j = 0; j < b_items; ++j) {
    std::uint64_t item = s;
    if (j < w_slots) {  // public
      const std::uint64_t c = slots[static_cast<std::size_t>(j) * fields + 2];
      item = ct_select(ct_mask(ct_is_zero(~c)), s, c);
    }
    (*ss)(item, gen, out.indices);
  }
  // Gamma, which each report holds at most once, leaves the vote by a
  // compaction whose writes advance by masks, without a branch. Its write
  // addresses follow where gamma was, a function of the B reports (which
  // their guarantee covers, as the vote does), not of the words.
  std::size_t kept = 0;
  for (std::size_t i = 0; i < out.indices.size(); ++i) {
    const std::uint64_t c = out.indices[i];
    out.indices[kept] = c;
    kept += static_cast<std::size_t>(ct_is_zero(c ^ s) ^ 1);
  }
  out.indices.resize(kept);
}

/// The vote of a user with words `typed` for layer `l`: the client padded
/// to the layer's bounds, then its vote. The padding reads the user's words
/// and takes time that follows them: a device keeps a constant_time_client.
template <constant_time_sampling Sampling = random_sampling, random_bit_source G>
void respond_constant_time(const user_data& typed, const constant_time_layer& l, G& gen, vote& out,
                           Sampling sampling = {}) {
  constant_time_client(typed, l.bounds()).respond(l, gen, out, sampling);
}

/// The same, as a new vote.
template <constant_time_sampling Sampling = random_sampling, random_bit_source G>
vote respond_constant_time(const user_data& typed, const constant_time_layer& l, G& gen,
                           Sampling sampling = {}) {
  vote v{};
  respond_constant_time(typed, l, gen, v, sampling);
  return v;
}

}  // namespace privet::triehh
