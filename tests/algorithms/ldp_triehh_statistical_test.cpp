// LDP TrieHH's client votes have the subset selection's distribution after
// the fast paths (indexed broadcast, prepared layer, batched Floyd draws,
// gamma's slot dropped in place): a user whose only valid prefix is z, with
// B = 2, sends report(z) and report(gamma) over the 30 candidates and
// gamma; candidate z appears with probability p + q per vote, every other
// one with 2q, and gamma never. Each of the 31 checks is a 5.5-sd normal
// band (false alarm about 3.8e-8 each, 1.2e-6 for the file); the seed is
// fixed, so a build always passes or always fails.
#include <privet/algorithms/ldp_triehh.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>

#include <doctest/doctest.h>
#include <support/statistics.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

namespace th = privet::triehh;

TEST_CASE("a vote includes each candidate with the subset selection's probabilities") {
  th::parameters p;
  p.epsilon = 1;
  p.contributions = 2;
  p.users_per_layer = 1;
  p.max_prefixes = 5;
  th::server srv(U"abcde", U'$', p);
  const th::prepared_layer layer(srv.broadcast(), p);
  const std::uint64_t s = layer.broadcast().candidates();
  REQUIRE(s == 30);
  const privet::subset_selection& ss = *layer.randomiser();
  REQUIRE(ss.s() == 31);
  const double pt = ss.p_true(), q = ss.p_other();
  const std::uint64_t z = 0 * 6 + 1;  // "ab"
  const th::client<> user({{U"ab", 1}}, nullptr);
  REQUIRE(user.valid_prefixes(layer.broadcast()) == std::vector<th::prefix_count>{{z, 1}});

  constexpr int votes = 20'000;
  privet::testing::seeded_release_generator gen(31);
  std::vector<std::uint64_t> hits(s, 0);
  double total = 0;
  th::vote v{};
  for (int i = 0; i < votes; ++i) {
    user.respond(layer, gen, v);
    for (std::uint64_t c : v.indices) {
      REQUIRE(c < s);  // never gamma
      ++hits[c];
    }
    total += static_cast<double>(v.indices.size());
  }
  const double n = votes;
  for (std::uint64_t c = 0; c < s; ++c) {
    CAPTURE(c);
    const double a = c == z ? pt : q;  // from report(z)
    const double var = a * (1 - a) + q * (1 - q);
    CHECK(privet::test::within_sd(static_cast<double>(hits[c]), n * (a + q), std::sqrt(n * var)));
  }
  // d per report, less gamma's slot: q in report(z), p in report(gamma).
  const double d = static_cast<double>(ss.d());
  CHECK(privet::test::within_sd(total, n * (2 * d - q - pt),
                                std::sqrt(n * (q * (1 - q) + pt * (1 - pt)))));
  // The bands are tight enough to see a vote that kept gamma's slot as an
  // extra candidate (one more index per vote on average than reported).
  CHECK_FALSE(privet::test::within_sd(total + n * pt, n * (2 * d - q - pt),
                                      std::sqrt(n * (q * (1 - q) + pt * (1 - pt)))));
}
