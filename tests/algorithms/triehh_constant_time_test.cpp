// The constant-time TrieHH client: without noise it keeps exactly the items
// the ordinary client keeps (greedy: the same items in the same order;
// random: a B-subset of the same valid prefixes, all of them when there are
// at most B), on users with vocabulary words, short and long words, symbols
// outside the alphabet, repeated prefixes, zero and saturating counts; it
// reads the first W words; it draws the same CSPRNG words whatever the
// user holds; bad bounds throw by name.
#include <privet/algorithms/triehh_constant_time.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform.hpp>

#include <doctest/doctest.h>
#include <support/counting_generator.hpp>
#include <support/errors.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

namespace th = privet::triehh;
using privet::test::counting_release_generator;

namespace {

const th::word letters = U"abcdef";  // 'f' is not in the broadcast's alphabet

// Layer `layer` over {a..e} with end-of-word '$': every prefix of that
// length except those starting with "e" (so some words have no candidate).
th::layer_broadcast make_broadcast(std::uint32_t layer) {
  th::layer_broadcast b{layer, {}, U"abcde$"};
  std::vector<th::word> all{th::word{}};
  for (std::uint32_t i = 0; i < layer; ++i) {
    std::vector<th::word> next;
    for (const auto& w : all) {
      for (char32_t c : th::word(U"abcde")) next.push_back(w + c);
    }
    all = std::move(next);
  }
  for (const auto& w : all) {
    if (w.front() != U'e') b.prefixes.push_back(w);
  }
  return b;
}

// A user of up to `max_words` words of length 0..7 over {a..f}, counts
// 0..3 (now and then 2^64 - 1), some repeated, some from the vocabulary.
th::user_data make_user(privet::testing::seeded_release_generator& gen, std::size_t max_words,
                        const std::vector<th::word>& known) {
  th::user_data u;
  const std::uint64_t n = privet::uniform_below(gen, max_words + 1);
  for (std::uint64_t i = 0; i < n; ++i) {
    th::word w;
    const std::uint64_t pick = privet::uniform_below(gen, 10);
    if (pick == 0 && !known.empty()) {
      w = known[privet::uniform_below(gen, known.size())];
    } else if (pick == 1 && !u.empty()) {
      w = u[privet::uniform_below(gen, u.size())].first;
    } else {
      const std::uint64_t len = privet::uniform_below(gen, 8);
      for (std::uint64_t j = 0; j < len; ++j) {
        // Mostly a..c, so that prefixes repeat.
        w.push_back(letters[privet::uniform_below(gen, 20) < 17 ? privet::uniform_below(gen, 3)
                                                                : privet::uniform_below(gen, 6)]);
      }
    }
    std::uint64_t count = privet::uniform_below(gen, 4);
    if (privet::uniform_below(gen, 50) == 0) count = std::numeric_limits<std::uint64_t>::max();
    u.emplace_back(w, count);
  }
  return u;
}

const std::vector<th::word> known_words{U"ab", U"abc", U"ba", U"cab", U"aaaaaa", U"b"};

std::unordered_set<th::word> vocabulary() {
  return {known_words.begin(), known_words.end()};
}

th::parameters no_noise(std::uint64_t b) {
  th::parameters p;
  p.epsilon = std::numeric_limits<double>::infinity();
  p.contributions = b;
  return p;
}

}  // namespace

TEST_CASE("without noise the constant-time client keeps the ordinary client's items") {
  const auto vocab = std::make_shared<const std::unordered_set<th::word>>(vocabulary());
  privet::testing::seeded_release_generator data(11);
  for (std::uint32_t layer : {1u, 2u, 3u}) {
    for (std::uint64_t b : {1u, 3u, 40u}) {
      CAPTURE(layer);
      CAPTURE(b);
      const th::prepared_layer prepared(make_broadcast(layer), no_noise(b));
      const th::constant_time_layer ct(prepared, vocab.get(), {24, 0});
      CHECK(ct.bounds().word_length == 16);  // max_depth + 1 (the longest vocabulary word is 6)
      for (int trial = 0; trial < 300; ++trial) {
        const th::user_data u = make_user(data, 24, known_words);
        th::client<th::greedy_sampling> greedy(u, vocab);
        th::client<th::random_sampling> random(u, vocab);
        privet::testing::seeded_release_generator g1(trial), g2(trial);
        const th::vote expected = greedy.respond(prepared, g1);
        const th::vote got = th::respond_constant_time(u, ct, g2, th::greedy_sampling{});
        CHECK(got.layer == expected.layer);
        CHECK(got.indices == expected.indices);
        // random: a B-subset of the valid prefixes, all of them when at most B.
        const auto valid = greedy.valid_prefixes(prepared.broadcast());
        std::set<std::uint64_t> all;
        for (const auto& [c, n] : valid) all.insert(c);
        const th::vote r = th::respond_constant_time(u, ct, g2, th::random_sampling{});
        const std::set<std::uint64_t> kept(r.indices.begin(), r.indices.end());
        CHECK(kept.size() == r.indices.size());
        CHECK(kept.size() == std::min<std::size_t>(b, all.size()));
        CHECK(std::includes(all.begin(), all.end(), kept.begin(), kept.end()));
        const th::vote ordinary = random.respond(prepared, g1);
        CHECK(ordinary.indices.size() == r.indices.size());
      }
    }
  }
}

TEST_CASE("the constant-time client reads the first W words and L symbols") {
  const th::prepared_layer prepared(make_broadcast(2), no_noise(100));
  const th::constant_time_layer ct(prepared, nullptr, {5, 0});
  CHECK(ct.bounds().words == 5);
  CHECK(ct.bounds().word_length == 16);  // max_depth + 1 without a vocabulary
  th::user_data u;
  for (const th::word w : {U"aa", U"ab", U"ac", U"ad", U"ba", U"bb", U"bc"}) u.emplace_back(w, 1);
  // A long word still votes for its first three symbols.
  u[1].first = U"abcdefabcdef";
  privet::testing::seeded_release_generator gen(3);
  const th::vote got = th::respond_constant_time(u, ct, gen, th::greedy_sampling{});
  const th::user_data first_five(u.begin(), u.begin() + 5);
  const th::vote expected =
      th::client<th::greedy_sampling>(first_five, nullptr).respond(prepared, gen);
  CHECK(got.indices == expected.indices);
  CHECK(got.indices.size() == 5);
  // The ordinary client, reading every word, has seven.
  CHECK(th::client<th::greedy_sampling>(u, nullptr).respond(prepared, gen).indices.size() == 7);

  // A word as long as L is past every vocabulary word (L is one more than
  // the longest), so it is never known.
  const std::unordered_set<th::word> vocab{U"ab"};
  const th::constant_time_layer with_vocab(prepared, &vocab, {4, 3});
  th::user_data v{{U"ab", 2}, {U"abb", 1}, {U"abbbbbbbbbbb", 1}, {U"ba", 1}};
  const th::vote got_v = th::respond_constant_time(v, with_vocab, gen, th::greedy_sampling{});
  const th::vote expected_v = th::client<th::greedy_sampling>(
                                  v, std::make_shared<const std::unordered_set<th::word>>(vocab))
                                  .respond(prepared, gen);
  CHECK(got_v.indices == expected_v.indices);
  CHECK(got_v.indices.size() == 2);  // "abb" (twice, merged) and "ba"; "ab" is known

  // Symbols past a word's end read as 0, which an alphabet may hold: a word
  // shorter than the prefix still has no candidate.
  th::layer_broadcast zero{2, {th::word{U'a', U'\0'}, U"aa"}, th::word{U'a', U'\0', U'$'}};
  const th::prepared_layer with_zero(zero, no_noise(5));
  const th::constant_time_layer ct_zero(with_zero, nullptr, {4, 0});
  const th::user_data short_words{{U"a", 1}, {U"aa", 1}};
  const th::vote got_z =
      th::respond_constant_time(short_words, ct_zero, gen, th::greedy_sampling{});
  CHECK(got_z.indices ==
        th::client<th::greedy_sampling>(short_words, nullptr).respond(with_zero, gen).indices);
  CHECK(got_z.indices.size() == 1);
}

TEST_CASE("the constant-time client draws the same CSPRNG words whatever the user holds") {
  const auto vocab = std::make_shared<const std::unordered_set<th::word>>(vocabulary());
  th::parameters p;
  p.epsilon = 2;
  p.contributions = 4;
  const th::prepared_layer prepared(make_broadcast(2), p);
  const th::constant_time_layer ct(prepared, vocab.get(), {16, 0});
  privet::testing::seeded_release_generator data(5);
  std::vector<th::user_data> users{{}, {{U"aaa", 1}}, {{U"ab", 5}}};
  for (int i = 0; i < 40; ++i) users.push_back(make_user(data, 30, known_words));
  for (const bool greedy : {true, false}) {
    std::set<std::uint64_t> words;
    for (const auto& u : users) {
      counting_release_generator gen(7);
      const th::vote v = greedy ? th::respond_constant_time(u, ct, gen, th::greedy_sampling{})
                                : th::respond_constant_time(u, ct, gen, th::random_sampling{});
      words.insert(gen.calls());
      for (const std::uint64_t c : v.indices) CHECK(c < prepared.broadcast().candidates());
    }
    CAPTURE(greedy);
    CHECK(words.size() == 1);
  }
}

TEST_CASE("constant-time client bounds are checked by name") {
  const std::unordered_set<th::word> vocab{U"abcdefgh"};
  const th::prepared_layer prepared(make_broadcast(2), no_noise(3));
  CHECK_THROWS_WITH_AS(th::constant_time_layer(prepared, nullptr, {0, 0}),
                       doctest::Contains("bounds.words"), privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(th::constant_time_layer(prepared, nullptr, {(1u << 24) + 1, 0}),
                       doctest::Contains("bounds.words"), privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(th::constant_time_layer(prepared, &vocab, {8, 8}),
                       doctest::Contains("bounds.word_length"), privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(th::constant_time_layer(prepared, nullptr, {8, 2}),
                       doctest::Contains("bounds.word_length"), privet::invalid_parameter);
  CHECK_NOTHROW(th::constant_time_layer(prepared, &vocab, {8, 9}));
  CHECK_THROWS_WITH_AS(th::constant_time_layer(prepared, nullptr, {1u << 24, 16}),
                       doctest::Contains("bounds = (16777216, 16)"), privet::invalid_parameter);
  const std::unordered_set<th::word> huge{th::word(70000, U'a')};
  CHECK_THROWS_WITH_AS(th::constant_time_layer(prepared, &huge, {8, 0}),
                       doctest::Contains("longest vocabulary word (70000 symbols)"),
                       privet::invalid_parameter);
  const th::user_data u{{U"abc", 1}};
  CHECK_THROWS_WITH_AS(th::constant_time_client(u, {0, 4}), doctest::Contains("bounds.words"),
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(th::constant_time_client(u, {4, 1}), doctest::Contains("bounds.word_length"),
                       privet::invalid_parameter);
  // A client padded to other bounds than the layer's is refused by name.
  const th::constant_time_layer layer(prepared, nullptr, {8, 4});
  const th::constant_time_client other(u, {8, 5});
  privet::testing::seeded_release_generator gen(1);
  CHECK_THROWS_WITH_AS(other.respond(layer, gen), doctest::Contains("bounds"),
                       privet::invalid_parameter);
  CHECK(th::constant_time_client(u, {8, 4}).respond(layer, gen).indices.size() == 1);
}

TEST_CASE("the constant-time client matches the ordinary one on random shapes") {
  // Differential: random alphabets (with U'\0', the end-of-word symbol
  // inside words, symbols outside the alphabet), layers 0 to 3 with a random
  // part of the prefixes, vocabularies with the empty word, W below and above
  // the user's words, B below and above W, L minimal or larger, counts up to
  // 2^64 - 1, with and without noise. Greedy: the same vote as
  // triehh::client holding the first W words (without noise in the same
  // order; with noise the same multiset for the same seed, the reports
  // being drawn in the same order). Random, without noise: a B-subset of the
  // same valid prefixes.
  privet::testing::seeded_release_generator g(12345);
  auto below = [&g](std::uint64_t n) { return privet::uniform_below(g, n); };
  const th::word pool{U'\0', U'a', U'b', U'$', 0xFFFFFFFFu, 0x80000000u, U'c'};
  std::size_t runs = 0;
  for (int it = 0; it < 1500; ++it) {
    th::word shuffled = pool;
    for (std::size_t i = shuffled.size(); i > 1; --i)
      std::swap(shuffled[i - 1], shuffled[below(i)]);
    const th::word alpha = shuffled.substr(0, 2 + below(4));
    const auto layer = static_cast<std::uint32_t>(below(4));
    std::vector<th::word> all{th::word{}};
    for (std::uint32_t i = 0; i < layer; ++i) {
      std::vector<th::word> next;
      for (const auto& w : all) {
        for (char32_t c : alpha) next.push_back(w + c);
      }
      all = std::move(next);
    }
    th::layer_broadcast b{layer, {}, alpha};
    for (const auto& w : all) {
      if (below(3) != 0) b.prefixes.push_back(w);
    }
    auto random_word = [&](std::size_t longest) {
      th::word w;
      const std::uint64_t len = below(longest + 1);
      for (std::uint64_t j = 0; j < len; ++j) {
        w.push_back(below(4) != 0 ? alpha[below(alpha.size())] : pool[below(pool.size())]);
      }
      return w;
    };
    std::unordered_set<th::word> vocab;
    const std::uint64_t nv = below(6);
    for (std::uint64_t i = 0; i < nv; ++i) vocab.insert(random_word(5));
    const bool use_vocab = below(4) != 0;
    th::parameters p;
    p.epsilon = below(3) != 0 ? std::numeric_limits<double>::infinity()
                              : 1.0 + static_cast<double>(below(5));
    p.contributions = 1 + below(80);
    p.max_depth = 1 + below(5);
    const std::size_t w_slots = 1 + below(70);
    const th::prepared_layer prepared(b, p);
    std::size_t longest = 0;
    if (use_vocab) {
      for (const auto& w : vocab) longest = std::max(longest, w.size());
    }
    const std::size_t least = std::max<std::size_t>({longest + 1, layer + std::size_t{1}, 2});
    const std::size_t length = below(2) != 0 ? 0 : least + below(3);
    const std::size_t auto_length = std::max(longest + 1, p.max_depth + std::size_t{1});
    if (length == 0 && auto_length < layer + std::size_t{1}) {
      CHECK_THROWS_WITH_AS(
          th::constant_time_layer(prepared, use_vocab ? &vocab : nullptr, {w_slots, length}),
          doctest::Contains("bounds.word_length = 0"), privet::invalid_parameter);
      continue;
    }
    const th::constant_time_layer ct(prepared, use_vocab ? &vocab : nullptr, {w_slots, length});
    th::user_data u;
    const std::uint64_t nw = below(90);
    for (std::uint64_t i = 0; i < nw; ++i) {
      th::word w;
      const std::uint64_t pick = below(10);
      if (pick == 0 && !vocab.empty()) {
        auto at = vocab.begin();
        std::advance(at, static_cast<std::ptrdiff_t>(below(vocab.size())));
        w = *at;
      } else if (pick == 1 && !u.empty()) {
        w = u[below(u.size())].first;
      } else if (pick == 2 && !b.prefixes.empty()) {
        w = b.prefixes[below(b.prefixes.size())] + random_word(3);
      } else {
        w = random_word(ct.bounds().word_length + 2);
      }
      std::uint64_t count = below(4);
      const std::uint64_t extreme = below(20);
      if (extreme == 0) count = ~std::uint64_t{0};
      if (extreme == 1) count = ~std::uint64_t{0} - 1;
      if (extreme == 2) count = std::uint64_t{1} << 63;
      u.emplace_back(w, count);
    }
    const th::user_data first(u.begin(), u.begin() + static_cast<std::ptrdiff_t>(
                                                         std::min<std::size_t>(u.size(), w_slots)));
    const auto shared =
        use_vocab ? std::make_shared<const std::unordered_set<th::word>>(vocab) : nullptr;
    const th::client<th::greedy_sampling> greedy(first, shared);
    privet::testing::seeded_release_generator g1(it), g2(it);
    const th::vote expected = greedy.respond(prepared, g1);
    const th::vote got = th::respond_constant_time(u, ct, g2, th::greedy_sampling{});
    CAPTURE(it);
    CHECK(got.layer == expected.layer);
    if (std::isinf(p.epsilon)) {
      CHECK(got.indices == expected.indices);
      std::set<std::uint64_t> valid;
      for (const auto& [c, n] : greedy.valid_prefixes(prepared.broadcast())) valid.insert(c);
      const th::vote r = th::respond_constant_time(u, ct, g2, th::random_sampling{});
      const std::set<std::uint64_t> kept(r.indices.begin(), r.indices.end());
      CHECK(kept.size() == r.indices.size());
      CHECK(kept.size() == std::min<std::size_t>(p.contributions, valid.size()));
      CHECK(std::includes(valid.begin(), valid.end(), kept.begin(), kept.end()));
    } else {
      auto a = got.indices, e = expected.indices;
      std::sort(a.begin(), a.end());
      std::sort(e.begin(), e.end());
      CHECK(a == e);
    }
    ++runs;
  }
  CHECK(runs > 1000);
}
