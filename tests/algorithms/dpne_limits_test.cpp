// Resource limits of DPNE (privet/algorithms/dpne.hpp): a user who wrote
// one sequence of 4 x 10^6 words contributes at most Delta_0 k-grams per
// length, and the extraction needs, beyond the corpus it is given, the
// array of released-gram ids per token and a bounded buffer: the user's
// words and k-grams are streamed into the bounding, never copied whole.
#include <privet/algorithms/dpne.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/sketches/ngrams.hpp>

#include <doctest/doctest.h>
#include <support/memory.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace dpne = privet::dpne;
using privet::ngram_table;
using privet::test::mebibyte;
using privet::test::peak_rss_probe;

TEST_CASE("a user with a sequence of 4 x 10^6 words keeps Delta_0 grams per length") {
  constexpr std::size_t long_words = 4'000'000;
  constexpr std::size_t common_users = 60;
  ngram_table vocabulary;
  std::vector<ngram_table::id> sentence;
  for (int i = 0; i < 6; ++i) sentence.push_back(vocabulary.word("w" + std::to_string(i)));
  dpne::corpus corpus;
  // 60 users write the same six-word sentence (so its words and grams are
  // released); one user writes 4 x 10^6 of those words in a pseudo-random
  // order (every 2-gram and 3-gram of them occurs).
  for (std::size_t u = 0; u < common_users; ++u) {
    corpus.add_user();
    corpus.add_sequence(sentence);
  }
  corpus.add_user();
  {
    std::vector<ngram_table::id> text(long_words);
    std::uint64_t x = 1;
    for (auto& t : text) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      t = sentence[(x >> 33) % 6];
    }
    corpus.add_sequence(text);
  }

  dpne::parameters p;
  p.epsilon = 8;
  p.delta = 1e-6;
  p.max_length = 3;
  p.max_ngrams = 20;  // Delta_0
  privet::testing::seeded_release_generator gen(9);
  const peak_rss_probe probe;
  const dpne::extraction out = dpne::extract(corpus, vocabulary, p, gen);
  const std::size_t growth = probe.growth();

  const auto& levels = out.levels();
  REQUIRE(levels.size() == 3);
  // Words: the six, all released (60 users each).
  CHECK(levels[0].support == 6);
  CHECK(levels[0].occurrences == long_words + 6 * common_users);
  REQUIRE(out.released(1).size() == 6);
  // 2-grams: the long user has all 36 pairs and keeps Delta_0 = 20 of them;
  // the others add the sentence's 5. Every pair of released words is valid,
  // so every adjacent pair counts as an occurrence.
  CHECK(levels[1].support >= 20);
  CHECK(levels[1].support <= 25);
  CHECK(levels[1].occurrences == (long_words - 1) + 5 * common_users);
  // 3-grams: at most the long user's 20 and the sentence's 4.
  CHECK(levels[2].support <= 24);
  CHECK(out.released(2).size() >= 5);  // the sentence's pairs, held by 61 users

  // Memory beyond the corpus (16 MB of word ids, built before measuring):
  // the released-gram id of every token (another 16 MB) and the bounding's
  // buffer (buffered_records records), not the long user's grams (4 x 10^6
  // keys and records, about 100 MB). Limit 48 MiB; skipped under
  // AddressSanitizer, whose shadow memory and quarantine make resident
  // sizes meaningless.
  MESSAGE("peak RSS growth of DPNE with a 4 x 10^6-word user: " << growth / 1024 << " KiB");
  if constexpr (!privet::test::address_sanitizer) CHECK(growth < 48 * mebibyte);
}
