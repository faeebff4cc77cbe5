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
// respond_constant_time does the same step with work fixed by public
// bounds (client_bounds) and the layer:
// - It reads exactly W typed words (the first W of the user's list; fewer
//   are padded with empty slots, and words past the W-th are not read, a
//   data-independent truncation that only costs utility: the randomiser's
//   guarantee holds for any items) and exactly L symbols of each (a word's
//   symbols past its end read as 0 by masks).
// - A word's known-vocabulary test and its prefix's lookup are binary
//   searches of ceil(log2 n) masked steps (detail::ct_contains,
//   ct_upper_bound) over sorted 64-bit keys: XXH3 of a fixed-length buffer
//   (L symbols and the length; the layer's `layer` symbols), whose time
//   does not depend on the symbols. The found prefix is compared with the
//   word symbol by symbol, so a lookup is exact; the vocabulary test is
//   exact but for a non-vocabulary word whose key equals a vocabulary
//   word's (for a random hash, probability |vocabulary| 2^-64 per word;
//   such a word would not vote, which costs utility only). The seeds are
//   chosen when the layer is prepared so that no two keys of the same table
//   are equal. The next symbol is found by a scan of the alphabet.
// - The W slots (candidate or "none", count) are sorted by Batcher's network
//   (detail::ct_sort_records), equal candidates merged by a pass of masks
//   (counts added saturating at 2^64 - 1, as valid_prefixes does), and the
//   local sampling is another sort: greedy_sampling by (count descending,
//   candidate), random_sampling by a 63-bit random priority per slot (W
//   words of the generator whatever the data), the empty slots last. The
//   first B slots, the empty ones replaced by gamma by masks, are the items,
//   and every one of the B is reported by the constant-time subset
//   selection. Gamma's slot is dropped from the vote afterwards (the vote
//   shows it anyway).
// The result is the vote of ldp_triehh.hpp's client holding the first W
// words: the same items for greedy_sampling (in the same order), the same
// law for random_sampling (a uniform B-subset of the distinct valid
// prefixes, in a random order instead of uniform_subset's; priorities that
// tie, probability at most W^2 2^-64, keep the smaller candidate), and the
// same reports.
//
// What the time still depends on: W, L, the layer (its prefixes, alphabet
// and B) and the vocabulary, all public; the memory addresses read (the
// searches' probes, the word's storage and which of its cache lines a
// clamped index reads), a cache channel outside the timing model
// (docs/security_model.md). The words are read from a user_data (a vector)
// by a clamped index, so the number of words the user has is not a loop
// bound either.
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

/// The public bounds of a constant-time client: the same for every client
/// of a layer, since its work (and so its time) follows them.
struct client_bounds {
  /// W: the typed words read, the first W of a user's list (fewer are
  /// padded); in [1, 2^24].
  std::size_t words = 1024;
  /// L: the symbols read of each word; 0 picks the least that works, one
  /// more than the longest vocabulary word and at least layer + 1. Else in
  /// [that least, 2^16].
  std::size_t word_length = 0;
};

/// The local sampling policies that have a constant-time form here.
template <class P>
concept constant_time_sampling =
    std::same_as<P, greedy_sampling> || std::same_as<P, random_sampling>;

/// A layer prepared for constant-time clients: the prepared layer, its
/// prefixes and the known vocabulary as sorted keys, and the bounds. Built
/// once per device and layer (every client of a simulation can share one);
/// its construction takes time that follows these public inputs only.
class constant_time_layer {
 public:
  /// Throws invalid_parameter naming `bounds.words` or
  /// `bounds.word_length` outside their ranges (client_bounds).
  constant_time_layer(prepared_layer layer, const std::unordered_set<word>* vocabulary,
                      client_bounds bounds = {})
      : layer_(std::move(layer)), words_(bounds.words) {
    if (words_ < 1 || words_ > (std::size_t{1} << 24)) {
      throw_invalid("bounds.words", bounds.words, "[1, 16777216]");
    }
    const layer_broadcast& b = layer_.broadcast().message();
    prefix_length_ = b.layer;
    std::size_t longest = 0;
    if (vocabulary != nullptr) {
      for (const word& w : *vocabulary) longest = std::max(longest, w.size());
    }
    const std::size_t least = std::max(longest + 1, prefix_length_ + 1);
    length_ = bounds.word_length == 0 ? least : bounds.word_length;
    if (length_ < least || length_ > (std::size_t{1} << 16)) {
      throw_invalid("bounds.word_length", bounds.word_length,
                    "0 or [" + std::to_string(least) +
                        ", 65536] (one more than the longest vocabulary word, at least layer + 1)");
    }
    alphabet_.assign(b.alphabet.begin(), b.alphabet.end());
    // The prefixes' keys, sorted, with the prefix each stands for; a seed
    // under which no two are equal (the first, but for a 2^-64 chance).
    const std::size_t np = b.prefixes.size();
    std::vector<std::pair<std::uint64_t, std::uint64_t>> keyed(np);
    for (prefix_seed_ = 0;; ++prefix_seed_) {
      for (std::size_t i = 0; i < np; ++i) keyed[i] = {prefix_key(b.prefixes[i].data()), i};
      std::sort(keyed.begin(), keyed.end());
      if (distinct(keyed)) break;
    }
    prefix_keys_.resize(np);
    prefix_index_.resize(np);
    flat_.resize(np * prefix_length_);
    for (std::size_t r = 0; r < np; ++r) {
      prefix_keys_[r] = keyed[r].first;
      prefix_index_[r] = keyed[r].second;
      const word& pre = b.prefixes[static_cast<std::size_t>(keyed[r].second)];
      std::copy(pre.begin(), pre.end(),
                flat_.begin() + static_cast<std::ptrdiff_t>(r * prefix_length_));
    }
    // The vocabulary's keys, sorted (the words themselves are not kept).
    if (vocabulary != nullptr && !vocabulary->empty()) {
      std::vector<std::uint32_t> buffer(length_ + 1);
      std::vector<std::pair<std::uint64_t, std::uint64_t>> vk;
      vk.reserve(vocabulary->size());
      for (vocabulary_seed_ = 0;; ++vocabulary_seed_) {
        vk.clear();
        for (const word& w : *vocabulary) {
          std::fill(buffer.begin(), buffer.end(), 0u);
          std::copy(w.begin(), w.end(), buffer.begin());
          buffer[length_] = static_cast<std::uint32_t>(w.size());
          vk.emplace_back(word_key(buffer.data()), 0);
        }
        std::sort(vk.begin(), vk.end());
        if (distinct(vk)) break;
      }
      vocabulary_keys_.reserve(vk.size());
      for (const auto& k : vk) vocabulary_keys_.push_back(k.first);
    }
  }

  /// The prepared layer (its broadcast, parameters and randomiser).
  [[nodiscard]] const prepared_layer& layer() const noexcept { return layer_; }
  /// W and L as used.
  [[nodiscard]] client_bounds bounds() const noexcept { return {words_, length_}; }

  /// The vote of a user with words `typed`, into `out`: see
  /// respond_constant_time.
  template <constant_time_sampling Sampling, random_bit_source G>
  void respond(const user_data& typed, G& gen, vote& out, Sampling) const {
    using namespace privet::detail;
    const prepared_broadcast& b = layer_.broadcast();
    const parameters& p = layer_.params();
    out.layer = b.message().layer;
    out.indices.clear();
    const std::uint64_t s = b.candidates();
    if (s == 0) return;
    constexpr std::size_t fields = 3;  // sort key, second key, candidate (or none)
    constexpr std::uint64_t none = ~std::uint64_t{0};
    const std::size_t w_slots = words_, length = length_, plen = prefix_length_;
    const std::uint64_t n_symbols = alphabet_.size();
    thread_local std::vector<std::uint64_t> slots;
    thread_local std::vector<std::uint32_t> buffer;
    slots.assign(w_slots * fields, 0);
    buffer.assign(length + 1, 0);

    // The words, by a clamped index: entry min(i, n - 1), or an empty entry
    // when the user has none, every slot read the same way.
    static const std::pair<word, std::uint64_t> empty_entry{};
    const std::uint64_t n = typed.size();
    const std::uint64_t no_words = ct_is_zero(n);
    const auto base = reinterpret_cast<const std::pair<word, std::uint64_t>*>(
        ct_select(ct_mask(no_words), reinterpret_cast<std::uintptr_t>(&empty_entry),
                  reinterpret_cast<std::uintptr_t>(typed.data())));
    const std::uint64_t last = n - (no_words ^ 1);
    const char32_t eow = alphabet_.back();
    for (std::size_t i = 0; i < w_slots; ++i) {
      const std::uint64_t real = ct_lt(i, n);
      const auto& entry = base[ct_select(ct_mask(real), i, last)];
      const std::u32string& w = entry.first;
      const std::uint64_t size = w.size();
      const char32_t* data = w.data();  // data[size] is the terminator
      // L symbols; past the end 0 (the read is of data[min(j, size)]).
      for (std::size_t j = 0; j < length; ++j) {
        const std::uint64_t inside = ct_lt(j, size);
        const std::uint64_t at = ct_select(ct_mask(inside), j, size);
        buffer[j] =
            static_cast<std::uint32_t>(static_cast<std::uint64_t>(data[at]) & ct_mask(inside));
      }
      const std::uint64_t longer = ct_lt(size, length) ^ 1;  // size >= L: no vocabulary word
      buffer[length] = static_cast<std::uint32_t>(ct_select(ct_mask(longer), length, size));
      std::uint64_t known = 0;
      if (!vocabulary_keys_.empty()) {  // public
        known =
            ct_contains(vocabulary_keys_.data(), vocabulary_keys_.size(), word_key(buffer.data())) &
            (longer ^ 1);
      }
      // The prefix: its key's place among the sorted keys, then the symbols.
      const std::uint64_t key = prefix_key(buffer.data());
      const std::size_t np = prefix_keys_.size();
      const std::size_t at = ct_upper_bound(prefix_keys_.data(), np, key);
      const std::uint64_t some = ct_is_zero(at) ^ 1;
      const auto probe = static_cast<std::size_t>(ct_select(ct_mask(some), at - 1, 0));
      std::uint64_t found = some & ct_is_zero(prefix_keys_[probe] ^ key);
      const char32_t* stored = flat_.data() + probe * plen;
      for (std::size_t j = 0; j < plen; ++j) {
        found &= ct_is_zero(static_cast<std::uint64_t>(stored[j]) ^ buffer[j]);
      }
      found &= ct_lt(size, plen) ^ 1;  // the word has the whole prefix
      // The next symbol (the end-of-word symbol after the last), by a scan.
      const std::uint64_t next =
          ct_select(ct_mask(ct_lt(plen, size)), buffer[plen], static_cast<std::uint64_t>(eow));
      std::uint64_t symbol = 0, has_symbol = 0;
      for (std::uint64_t k = 0; k < n_symbols; ++k) {
        const std::uint64_t hit = ct_is_zero(static_cast<std::uint64_t>(alphabet_[k]) ^ next);
        symbol |= k & ct_mask(hit);
        has_symbol |= hit;
      }
      const std::uint64_t candidate = prefix_index_[probe] * n_symbols + symbol;
      const std::uint64_t count = entry.second & ct_mask(real);
      const std::uint64_t valid = real & (ct_is_zero(count) ^ 1) & found & has_symbol & (known ^ 1);
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
    const subset_selection* ss = layer_.randomiser();
    if (ss == nullptr) {  // epsilon = inf: the items themselves, no gamma (public)
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
    // Gamma, which each report holds at most once, leaves the vote (the vote
    // shows where it was: this branches on the released indices only).
    std::erase(out.indices, s);
  }

 private:
  static bool distinct(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& sorted) {
    for (std::size_t i = 1; i < sorted.size(); ++i) {
      if (sorted[i].first == sorted[i - 1].first) return false;
    }
    return true;
  }
  // A fixed number of bytes for each table, so XXH3's work is the same for
  // every input of it.
  std::uint64_t prefix_key(const void* symbols) const noexcept {
    return XXH3_64bits_withSeed(symbols, prefix_length_ * sizeof(char32_t), prefix_seed_);
  }
  std::uint64_t word_key(const std::uint32_t* buffer) const noexcept {
    return XXH3_64bits_withSeed(buffer, (length_ + 1) * sizeof(std::uint32_t), vocabulary_seed_);
  }

  prepared_layer layer_;
  std::size_t words_ = 0;
  std::size_t length_ = 0;
  std::size_t prefix_length_ = 0;
  std::vector<char32_t> alphabet_;
  std::uint64_t prefix_seed_ = 0;
  std::vector<std::uint64_t> prefix_keys_;
  std::vector<std::uint64_t> prefix_index_;
  std::vector<char32_t> flat_;  // the prefixes in key order, prefix_length_ each
  std::uint64_t vocabulary_seed_ = 0;
  std::vector<std::uint64_t> vocabulary_keys_;
};

/// The vote of a user with words `typed` for layer `l`, into `out` (its
/// storage reused), in work fixed by the layer and its bounds (see the file
/// comment): what client<Sampling> holding the first W words sends.
template <constant_time_sampling Sampling = random_sampling, random_bit_source G>
void respond_constant_time(const user_data& typed, const constant_time_layer& l, G& gen, vote& out,
                           Sampling sampling = {}) {
  l.respond(typed, gen, out, sampling);
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
