// Resource limits and counter boundaries of LDP TrieHH
// (privet/algorithms/ldp_triehh.hpp): a user who typed 10^7 words, read
// lazily, sends exactly the B prefixes the sampling policy keeps, in memory
// that follows the layer's candidates and not the words; a user's count of
// one prefix and the server's vote sums are checked at 2^64 - 1 (and the
// 32-bit vote counts widen exactly at 2^32), never wrapped.
#include <privet/algorithms/ldp_triehh.hpp>
#include <privet/core/detail/lazy_range.hpp>
#include <privet/core/error.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>

#include <doctest/doctest.h>
#include <support/memory.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <ranges>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace triehh = privet::triehh;
using privet::test::mebibyte;
using privet::test::peak_rss_probe;

namespace {

constexpr std::uint64_t max64 = std::numeric_limits<std::uint64_t>::max();
const triehh::word alphabet = U"abcdefghijklmnopqrstuvwxyz";

triehh::parameters exact_params(std::uint64_t b) {
  triehh::parameters p;
  p.epsilon = std::numeric_limits<double>::infinity();  // each item reported as itself
  p.contributions = b;
  p.users_per_layer = 1;
  p.max_depth = 3;
  return p;
}

// Word i of the lazy stream: three letters (17 576 distinct words, 676
// distinct first-layer candidates), typed 1 + i mod 7 times.
std::pair<triehh::word, std::uint64_t> typed_word(std::uint64_t i) {
  triehh::word w(3, U'a');
  w[0] = static_cast<char32_t>(U'a' + i % 26);
  w[1] = static_cast<char32_t>(U'a' + (i / 26) % 26);
  w[2] = static_cast<char32_t>(U'a' + (i / 676) % 26);
  return {w, 1 + i % 7};
}

}  // namespace

TEST_CASE("a user with 10^7 typed words, read lazily, sends its B prefixes in bounded memory") {
  // 10^6 under AddressSanitizer (support/memory.hpp).
  constexpr std::uint64_t words = privet::test::huge_input(10'000'000);
  constexpr std::uint64_t b = 8;
  const auto p = exact_params(b);
  const triehh::server srv(alphabet, U'$', p);
  const triehh::prepared_layer layer(srv.broadcast(), p);
  REQUIRE(layer.broadcast().candidates() == 26 * 27);
  const auto typed = privet::detail::generated(words, typed_word);

  // The expected vote, counted independently: each candidate's total, the
  // B largest (ties: smaller candidate), as greedy_sampling's rule says.
  std::vector<std::uint64_t> totals(26 * 27, 0);
  for (std::uint64_t i = 0; i < words; ++i) {
    const auto [w, n] = typed_word(i);
    totals[*layer.broadcast().candidate_of_word(w)] += n;
  }
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranked;
  for (std::uint64_t c = 0; c < totals.size(); ++c) {
    if (totals[c] > 0) ranked.emplace_back(c, totals[c]);
  }
  REQUIRE(ranked.size() == 676);
  std::sort(ranked.begin(), ranked.end(), [](const auto& x, const auto& y) {
    return x.second != y.second ? x.second > y.second : x.first < y.first;
  });
  std::vector<std::uint64_t> expected;
  for (std::size_t i = 0; i < b; ++i) expected.push_back(ranked[i].first);

  privet::testing::seeded_release_generator gen(3);
  const peak_rss_probe probe;
  const triehh::vote v = triehh::respond(typed, nullptr, layer, gen, triehh::greedy_sampling{});
  const std::size_t growth = probe.growth();
  CHECK(v.layer == 1);
  CHECK(v.indices == expected);

  // Memory: the user's distinct valid prefixes (676 here, at most the 702
  // candidates), never one entry per typed word (10^7 of 16 bytes). Limit
  // 64 MiB; skipped under AddressSanitizer, whose shadow memory and
  // quarantine make resident sizes meaningless.
  MESSAGE("peak RSS growth for a user with 10^7 typed words: " << growth / 1024 << " KiB");
  if constexpr (!privet::test::address_sanitizer) CHECK(growth < 64 * mebibyte);

  // Random sampling keeps B distinct valid prefixes (of the first 10^5 words).
  const triehh::vote r =
      triehh::respond(privet::detail::generated(100'000, typed_word), nullptr, layer, gen);
  REQUIRE(r.indices.size() == b);
  const std::set<std::uint64_t> distinct(r.indices.begin(), r.indices.end());
  CHECK(distinct.size() == b);
  for (std::uint64_t c : r.indices) CHECK(totals.at(c) > 0);
}

// Issue 22: a user's counts are its data; one past 2^64 - 1 saturates there
// (the counts only rank the user's prefixes), so the client always votes.
TEST_CASE("a user's count of one prefix: 2^64 - 1 fits, more saturates") {
  const auto p = exact_params(4);
  const triehh::server srv(alphabet, U'$', p);
  const triehh::prepared_broadcast b(srv.broadcast());
  const std::uint64_t ab = *b.candidate_of_word(U"ab");
  // "ab" and "abc" share the first-layer candidate (a, b).
  const triehh::client<> fits(triehh::user_data{{U"ab", max64 - 1}, {U"abc", 1}}, nullptr);
  CHECK(fits.valid_prefixes(b) == std::vector<triehh::prefix_count>{{ab, max64}});
  const triehh::client<> over(triehh::user_data{{U"ab", max64}, {U"abc", 1}}, nullptr);
  CHECK(over.valid_prefixes(b) == std::vector<triehh::prefix_count>{{ab, max64}});
  const triehh::client<> far(triehh::user_data{{U"ab", max64}, {U"abc", max64}}, nullptr);
  CHECK(far.valid_prefixes(b) == std::vector<triehh::prefix_count>{{ab, max64}});

  // The same boundary when the counts are merged on the way (more entries
  // than the 4096 held before a merge): 4096 x 2^52 is exactly 2^64.
  triehh::user_data many(4096, {U"ab", std::uint64_t{1} << 52});
  many.back().second -= 1;
  const triehh::client<> merged(many, nullptr);
  CHECK(merged.valid_prefixes(b) == std::vector<triehh::prefix_count>{{ab, max64}});
  many.back().second += 1;
  const triehh::client<> merged_over(many, nullptr);
  CHECK(merged_over.valid_prefixes(b) == std::vector<triehh::prefix_count>{{ab, max64}});
}

TEST_CASE("vote sums: counts widen at 2^32, counts and the vote count stop at 2^64 - 1") {
  constexpr std::uint64_t max32 = std::numeric_limits<std::uint32_t>::max();
  triehh::vote_sum s(1, 2, 4);
  // 2^32 - 1 in 32-bit counts, then one more vote: 2^32, not 0.
  s.add_sum({max32, 0}, 1);
  CHECK(s.count(0) == max32);
  s.add(triehh::vote{1, {0}});
  CHECK(s.count(0) == max32 + 1);
  CHECK(s.votes() == 2);

  // A count at exactly 2^64 - 1 fits; the next index throws and changes nothing.
  s.add_sum({max64 - max32 - 1, 0}, 1);
  CHECK(s.count(0) == max64);
  CHECK_THROWS_WITH_AS(s.add(triehh::vote{1, {0}}),
                       "privet: a TrieHH vote sum would exceed 2^64 - 1", privet::overflow_error);
  CHECK(s.count(0) == max64);
  CHECK(s.count(1) == 0);
  CHECK(s.votes() == 3);

  // The vote count: 2^64 - 1 votes fit, one more throws (a sum handed in
  // directly, outside a server that checks users_per_layer).
  triehh::vote_sum t(1, 2, 4);
  t.add_sum({0, 0}, max64 - 1);
  t.add(triehh::vote{1, {}});
  CHECK(t.votes() == max64);
  const std::string message =
      "privet: a TrieHH vote sum would count 18446744073709551615 + 1 votes; allowed: at most "
      "2^64 - 1 in all";
  CHECK_THROWS_WITH_AS(t.add_sum({0, 0}, 1), message.c_str(), privet::overflow_error);
  CHECK_THROWS_WITH_AS(t.add(triehh::vote{1, {1}}), message.c_str(), privet::overflow_error);
  triehh::vote_sum one(1, 2, 4);
  one.add(triehh::vote{1, {1}});
  CHECK_THROWS_WITH_AS(t.merge(one), message.c_str(), privet::overflow_error);
  CHECK(t.votes() == max64);
  CHECK(t.count(1) == 0);
}
