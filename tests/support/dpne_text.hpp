// tests/support/dpne_text.hpp — the DPNE tests' corpus: a vocabulary and a
// corpus built from users' sentences (words split on spaces), and the
// 3000-user sample whose every level has support, zero entries and spurious
// draws.
#pragma once

#include <privet/algorithms/dpne.hpp>

#include <doctest/doctest.h>

#include <set>

#include <sstream>
#include <string>
#include <vector>

namespace privet::test {

/// A vocabulary and a corpus from users' sentences.
struct dpne_text {
  ngram_table vocabulary;
  dpne::corpus corpus;
  void user(const std::vector<std::string>& sentences) {
    corpus.add_user();
    for (const auto& s : sentences) {
      std::vector<ngram_table::id> ids;
      std::istringstream in(s);
      for (std::string w; in >> w;) ids.push_back(vocabulary.word(w));
      corpus.add_sequence(ids);
    }
  }
};

/// 3000 users: two common phrases, one rarer, and a private tail per user.
inline dpne_text dpne_sample_text() {
  dpne_text t;
  const std::vector<std::string> phrases{"the quick brown fox jumps over the lazy dog",
                                         "a stitch in time saves nine", "the lazy cat sleeps",
                                         "over the moon and back again"};
  for (int u = 0; u < 3000; ++u) {
    std::vector<std::string> s;
    if (u % 2 == 0) s.push_back(phrases[0]);
    if (u % 3 == 0) s.push_back(phrases[1]);
    if (u % 25 == 0) s.push_back(phrases[2]);
    if (u % 7 == 0) s.push_back(phrases[3]);
    s.push_back("private" + std::to_string(u) + " the quick fox word" + std::to_string(u % 50));
    t.user(s);
  }
  return t;
}

/// The sample's release settings: n-grams up to 6 words, at most 20 per
/// length, eta = 0.05 (the other parameters dpne's defaults).
inline dpne::parameters dpne_sample_parameters() {
  dpne::parameters p;
  p.max_length = 6;
  p.max_ngrams = 20;
  p.eta = 0.05;
  return p;
}

/// Checks that every released k-gram of `r` is in V_k: of length k, with its
/// prefix and suffix among `previous`, the released (k - 1)-grams.
inline void check_released_in_candidates(const dpne::extraction& r, std::size_t k,
                                         const std::set<ngram_table::id>& previous) {
  for (auto g : r.released(k)) {
    CHECK(r.grams().length(g) == k);
    CHECK(previous.count(r.grams().prefix(g)) == 1);
    const auto suffix = r.grams().suffix(g);
    REQUIRE(suffix.has_value());
    CHECK(previous.count(*suffix) == 1);
  }
}

}  // namespace privet::test
