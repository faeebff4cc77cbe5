// LDP TrieHH: without noise it is the exact heavy-hitter trie (checked
// against a naive reference over strings); user groups never repeat; the
// server refuses malformed votes; the privacy report comes from the
// accounting layer; the k-anonymity tail is an exact convolution; the fast
// paths (indexed broadcast, prepared layer, 32-bit vote sums, simulated
// layers on TBB) give exactly what the plain ones give.
#include <privet/algorithms/ldp_triehh.hpp>
#include <privet/algorithms/triehh_simulation.hpp>
#include <privet/core/keyed_streams.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/crypto/secure_aggregation.hpp>

#include <doctest/doctest.h>
#include <support/errors.hpp>

#include <oneapi/tbb/task_arena.h>

#include <boost/math/distributions/binomial.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace th = privet::triehh;

namespace {

const th::word alphabet = U"abcde";
constexpr char32_t eow = U'$';

// Users typing words over {a..e}: a Zipf-ish mix of 12 words plus rare ones.
std::vector<th::user_data> make_users(std::size_t n, std::uint64_t seed) {
  const std::vector<th::word> common{U"abc",  U"bad",  U"cab",  U"dead", U"bead", U"ace",
                                     U"deed", U"cede", U"babe", U"dab",  U"bed",  U"ebb"};
  privet::testing::seeded_release_generator gen(seed);
  std::vector<th::user_data> users(n);
  for (auto& u : users) {
    const std::uint64_t words = 1 + privet::uniform_below(gen, 4);
    for (std::uint64_t i = 0; i < words; ++i) {
      const std::uint64_t r = privet::uniform_below(gen, 100);
      th::word w;
      if (r < 90) {
        w = common[static_cast<std::size_t>(r * r / 700)];
      } else {
        for (int j = 0; j < 4; ++j) w.push_back(alphabet[privet::uniform_below(gen, 5)]);
      }
      u.emplace_back(w, 1 + privet::uniform_below(gen, 3));
    }
  }
  return users;
}

// The exact trie by brute force over strings: each layer, every user of the
// layer's group votes once for each distinct valid prefix (B large enough),
// keep counts >= max(eta-th largest, 1).
std::set<th::word> reference_trie(const std::vector<th::user_data>& users,
                                  const std::vector<std::vector<std::uint64_t>>& groups,
                                  const std::set<th::word>& vocabulary, std::size_t eta,
                                  std::size_t depth) {
  std::set<th::word> open;
  for (char32_t c : alphabet) open.insert(th::word(1, c));
  std::set<th::word> found;
  th::word full_alphabet = alphabet + eow;
  for (std::size_t layer = 1; layer <= depth && !open.empty(); ++layer) {
    std::map<th::word, std::uint64_t> votes;
    for (std::uint64_t u : groups[layer - 1]) {
      std::set<th::word> mine;
      for (const auto& [w, n] : users[u]) {
        if (vocabulary.count(w)) continue;
        const th::word full = w + eow;
        if (full.size() < layer + 1) continue;
        const th::word pre = full.substr(0, layer + 1);
        if (open.count(pre.substr(0, layer))) mine.insert(pre);
      }
      for (const auto& pre : mine) ++votes[pre];
    }
    std::vector<std::uint64_t> counts;
    for (const auto& [pre, c] : votes) counts.push_back(c);
    const std::size_t candidates = open.size() * full_alphabet.size();
    counts.resize(std::max(counts.size(), candidates), 0);
    std::sort(counts.rbegin(), counts.rend());
    const std::uint64_t tau =
        std::max<std::uint64_t>(eta <= counts.size() ? counts[eta - 1] : 0, 1);
    std::set<th::word> next;
    for (const auto& [pre, c] : votes) {
      if (c < tau) continue;
      if (pre.back() == eow) {
        found.insert(pre.substr(0, pre.size() - 1));
      } else {
        next.insert(pre);
      }
    }
    open = std::move(next);
  }
  return found;
}

}  // namespace

TEST_CASE("without noise, discovery is the exact heavy-hitter trie") {
  const auto users = make_users(3000, 1);
  th::parameters p;
  p.epsilon = std::numeric_limits<double>::infinity();
  p.contributions = 10;  // above any user's distinct prefixes: no sampling
  p.users_per_layer = 500;
  p.max_prefixes = 6;
  p.max_depth = 6;
  privet::testing::seeded_release_generator gen(2);
  const std::unordered_set<th::word> vocabulary{U"abc"};
  const auto passes = th::run(users, vocabulary, alphabet, eow, p, 1, gen, th::greedy_sampling{});
  REQUIRE(passes.size() == 1);
  const auto& r = passes[0];
  const std::set<th::word> got(r.discovered.begin(), r.discovered.end());
  const auto expected = reference_trie(users, r.groups, {U"abc"}, 6, 6);
  CHECK(got == expected);
  CHECK_FALSE(got.empty());
  CHECK_FALSE(got.count(U"abc"));  // known words are never rediscovered
  CHECK(got.count(U"bad"));
}

TEST_CASE("no user joins two layers or two passes") {
  const auto users = make_users(4000, 3);
  th::parameters p;
  p.epsilon = 4;
  p.contributions = 3;
  p.users_per_layer = 300;
  p.max_prefixes = 8;
  p.max_depth = 5;
  privet::testing::seeded_release_generator gen(4);
  const auto passes = th::run(users, {}, alphabet, eow, p, 2, gen);
  std::set<std::uint64_t> seen;
  std::size_t total = 0;
  for (const auto& pass : passes) {
    for (const auto& g : pass.groups) {
      CHECK(g.size() == 300);
      total += g.size();
      seen.insert(g.begin(), g.end());
    }
  }
  CHECK(seen.size() == total);
  // A second pass never reports a word the first found.
  for (const auto& w : passes[1].discovered) {
    CHECK(std::find(passes[0].discovered.begin(), passes[0].discovered.end(), w) ==
          passes[0].discovered.end());
  }
  // Too few users for 3 passes is data (issue 22): the last layers are padded
  // with users who typed nothing, each layer still hears N clients.
  const auto three = th::run(users, {}, alphabet, eow, p, 3, gen);
  for (const auto& pass : three) {
    for (const auto& g : pass.groups) CHECK(g.size() == 300);
  }
}

TEST_CASE("the samplers keep B prefixes: the most frequent, or uniformly") {
  privet::testing::seeded_release_generator gen(5);
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> counts{
      {10, 1}, {11, 7}, {12, 3}, {13, 7}, {14, 2}};
  CHECK(th::greedy_sampling{}(counts, 3, gen) == std::vector<std::uint64_t>{11, 13, 12});
  // Random sampling: each of the 5 prefixes kept with probability 2/5 over
  // 20000 draws, within 4.9 binomial sd (false alarm 1e-6 per prefix).
  std::map<std::uint64_t, int> kept;
  for (int i = 0; i < 20'000; ++i)
    for (auto c : th::random_sampling{}(counts, 2, gen)) ++kept[c];
  const double sd = std::sqrt(20'000 * 0.4 * 0.6);
  for (const auto& [c, n] : kept) CHECK(std::fabs(n - 8000.0) <= 4.9 * sd);
  CHECK(th::random_sampling{}(counts, 9, gen).size() == 5);
}

TEST_CASE("the server refuses malformed votes and keeps its state") {
  th::parameters p;
  p.epsilon = 2;
  p.contributions = 2;
  p.users_per_layer = 2;
  p.max_prefixes = 3;
  p.max_depth = 3;
  th::server srv(alphabet, eow, p);
  const auto b = srv.broadcast();
  CHECK(b.layer == 1);
  CHECK(b.prefixes.size() == 5);
  CHECK(b.alphabet == alphabet + eow);
  const std::uint64_t s = 5 * 6;
  const std::uint64_t d = privet::subset_selection(2, s + 1).d();
  using privet::protocol_error;
  CHECK_THROWS_AS(srv.receive(th::vote{2, {}}), protocol_error);
  CHECK_THROWS_AS(srv.receive(th::vote{1, {s}}), protocol_error);
  CHECK_THROWS_AS(srv.receive(th::vote{1, std::vector<std::uint64_t>(2 * d + 1, 0)}),
                  protocol_error);
  srv.receive(th::vote{1, {0, 1}});
  srv.receive(th::vote{1, {1}});
  CHECK_THROWS_AS(srv.receive(th::vote{1, {2}}), protocol_error);  // a third user
  const auto st = srv.close_layer();
  CHECK(st.votes == 2);
  CHECK(st.threshold == 1);  // the 3rd largest count is 0; at least 1
  CHECK(st.kept == 2);
  CHECK(srv.broadcast().prefixes == std::vector<th::word>{U"aa", U"ab"});
}

TEST_CASE("the privacy report comes from the accounting layer") {
  th::parameters p;  // eps = 10, B = 60
  p.users_per_layer = 1'000'000;
  const auto r = th::report(p, 1e-10);
  REQUIRE(r.local);
  CHECK(r.local->epsilon() == 10);
  // A client's 60 reports of its layer together: 60 x 10 by basic
  // composition (rounded up, so never below the exact sum).
  REQUIRE(r.local_per_user);
  CHECK(r.local_per_user->epsilon() >= 600);
  CHECK(r.local_per_user->epsilon() == doctest::Approx(600).epsilon(1e-12));
  CHECK(r.reports_per_layer == 60'000'000);
  REQUIRE(r.central_numerical);
  CHECK(*r.central_numerical == privet::shuffle_amplification(10, 60'000'000, 1e-10));
  // Subset selection is outside FMT 2023's class: both figures are FMT
  // 2021's, which hold for every eps0-LDP randomiser. The stronger-clone
  // bound, which would be smaller, must not be what is reported.
  static_assert(!privet::in_stronger_clone_class_v<privet::subset_selection>);
  CHECK(
      r.central_numerical->epsilon() >
      privet::shuffle_amplification<privet::randomized_response>(10, 60'000'000, 1e-10).epsilon());
  REQUIRE(r.central_closed_form);  // eps0 = 10 <= ln(6e7 / (16 ln 4e10)) = 11.9
  CHECK(*r.central_closed_form ==
        privet::shuffle_amplification_closed_form_any_ldp(10, 60'000'000, 1e-10));
  CHECK(r.central_numerical->epsilon() <= r.central_closed_form->epsilon());
  p.epsilon = std::numeric_limits<double>::infinity();
  const auto none = th::report(p, 1e-10);
  CHECK_FALSE(none.local);
  CHECK_FALSE(none.local_per_user);
  CHECK_FALSE(none.central_numerical);
}

TEST_CASE("the k-anonymity tail is the exact convolution of two binomials") {
  // Against a direct double sum for small sizes.
  const double p = 0.3, q = 0.01;
  for (std::uint64_t k : {0u, 1u, 5u, 20u}) {
    for (std::uint64_t tau : {1u, 3u, 8u}) {
      const std::uint64_t m = 200;
      double direct = 0;
      const boost::math::binomial_distribution<double> a(static_cast<double>(k), p),
          b(static_cast<double>(m), q);
      for (std::uint64_t i = 0; i <= k; ++i)
        for (std::uint64_t j = 0; j <= m; ++j)
          if (i + j >= tau) direct += boost::math::pdf(a, i) * boost::math::pdf(b, j);
      CAPTURE(k);
      CAPTURE(tau);
      CHECK(th::vote_tail(k, p, m, q, tau) == doctest::Approx(direct).epsilon(1e-10));
    }
  }
  // The anonymity level grows with the threshold and with alpha.
  th::parameters par;
  par.epsilon = 10;
  par.contributions = 60;
  par.users_per_layer = 20'000;
  par.max_prefixes = 10'000;  // s = 10^6 + 1 candidates, d = 46 as in the paper
  const std::uint64_t tau = th::typical_threshold(par, 100);
  CHECK(tau > 0);
  const auto o1 = th::approximate_k_anonymity(par, 100, tau, 0.9);
  const auto o2 = th::approximate_k_anonymity(par, 100, tau + 20, 0.9);
  // At the typical threshold an uncontributed prefix passes with
  // probability about eta_max / (s - 1) = 1 %: alpha = 0.98 leaves room,
  // alpha = 0.995 none.
  const auto o3 = th::approximate_k_anonymity(par, 100, tau, 0.98);
  CHECK_FALSE(th::approximate_k_anonymity(par, 100, tau, 0.995));
  REQUIRE(o1);
  REQUIRE(o2);
  REQUIRE(o3);
  const std::uint64_t k1 = *o1;
  CHECK(k1 > 0);
  CHECK(*o2 >= k1);
  CHECK(*o3 <= k1);
  // At the returned k the kept probability is <= 1 - alpha, one more is above.
  const privet::subset_selection ss(10, 10'000 * 100 + 1);
  const std::uint64_t n = 20'000 * 60;
  CHECK(th::vote_tail(k1, ss.p_true(), n - k1, ss.p_other(), tau) <= 0.1);
  CHECK(th::vote_tail(k1 + 1, ss.p_true(), n - k1 - 1, ss.p_other(), tau) > 0.1);
  // A threshold the other users' reports alone reach with probability
  // above 1 - alpha allows no statement at all (before: 0, which claimed
  // that an uncontributed prefix is kept with probability <= 1 - alpha).
  CHECK(th::vote_tail(0, ss.p_true(), n, ss.p_other(), 1) > 0.1);
  CHECK_FALSE(th::approximate_k_anonymity(par, 100, 1, 0.9));
  CHECK_THROWS_AS(th::approximate_k_anonymity(par, 100, tau, 1.0), privet::invalid_parameter);
}

TEST_CASE("vote_tail names p or q outside [0, 1]; any threshold is read without wrapping") {
  // Before: Boost.Math's std::domain_error (or rounding_error for NaN q),
  // nothing for p outside [0, 1] with k = 0, and a tau above 2^63 - 1 cast
  // to a negative count, whose tail is 1.
  using privet::invalid_parameter;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_WITH_AS((void)th::vote_tail(0, 0.5, 10, -0.1, 3),
                       "privet: q = -0.1 is invalid; allowed: [0, 1]", invalid_parameter);
  CHECK_THROWS_WITH_AS((void)th::vote_tail(0, 0.5, 10, 1.1, 3),
                       "privet: q = 1.1 is invalid; allowed: [0, 1]", invalid_parameter);
  CHECK_THROWS_WITH_AS((void)th::vote_tail(0, 0.5, 10, nan, 3),
                       "privet: q = nan is invalid; allowed: [0, 1]", invalid_parameter);
  CHECK_THROWS_WITH_AS((void)th::vote_tail(5, -0.1, 10, 0.5, 3),
                       "privet: p = -0.1 is invalid; allowed: [0, 1]", invalid_parameter);
  CHECK_THROWS_WITH_AS((void)th::vote_tail(5, nan, 10, 0.5, 3),
                       "privet: p = nan is invalid; allowed: [0, 1]", invalid_parameter);
  CHECK_THROWS_WITH_AS((void)th::vote_tail(0, 1.5, 10, 0.5, 3),
                       "privet: p = 1.5 is invalid; allowed: [0, 1]", invalid_parameter);
  // The ends of [0, 1] are probabilities: P[Bin(5, 1) + Bin(10, 0) >= 3] = 1.
  CHECK(th::vote_tail(5, 1, 10, 0, 3) == 1);
  CHECK(th::vote_tail(5, 0, 10, 0, 1) == 0);

  // Thresholds beyond 2^63 - 1 (a run's layer threshold is data): no k + m
  // reports reach them.
  const std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
  CHECK(th::vote_tail(0, 0.3, 1000, 0.3, (std::uint64_t{1} << 63) + 5) == 0);
  CHECK(th::vote_tail(10, 0.3, 1000, 0.3, top) == 0);
  CHECK(th::vote_tail(0, 0.3, 1000, 0.3, 1001) == 0);
  CHECK(th::vote_tail(0, 0.3, 10, 0.5, 10) == doctest::Approx(std::pow(0.5, 10)));
  // So a threshold nobody reaches keeps no prefix: every k is anonymous.
  th::parameters par;
  par.users_per_layer = 100;
  par.contributions = 10;
  th::layer_stats layer{1, 30, 100, (std::uint64_t{1} << 63) + 5, 0, 0};
  const auto k = th::approximate_k_anonymity(par, layer, 0.5);
  REQUIRE(k);
  CHECK(*k == 1000);
  CHECK(th::approximate_k_anonymity(par, 30, top, 0.5) == std::optional<std::uint64_t>(1000));
}

TEST_CASE("bad TrieHH parameters throw, naming them") {
  th::parameters p;
  p.epsilon = 0;
  CHECK_THROWS_WITH_AS(p.validate(), "privet: epsilon = 0 is invalid; allowed: (0, +inf]",
                       privet::invalid_parameter);
  p = {};
  p.contributions = 0;
  CHECK_THROWS_WITH_AS(p.validate(), "privet: contributions = 0 is invalid; allowed: >= 1",
                       privet::invalid_parameter);
  p = {};
  p.max_depth = 0;
  CHECK_THROWS_AS(th::server(alphabet, eow, p), privet::invalid_parameter);
}

TEST_CASE("a layer aggregated by secure aggregation equals the ephemeral sum") {
  // 12 clients' votes of layer 1 go through Bonawitz et al.'s protocol as
  // dense vectors mod 2^32 (threshold 7, two clients drop out after sending
  // their masked input); the server then sees only the sum. The trie it
  // grows equals the one grown from the same surviving votes one by one.
  th::parameters p;
  p.epsilon = 3;
  p.contributions = 2;
  p.users_per_layer = 12;
  p.max_prefixes = 4;
  p.max_depth = 4;
  const auto users = make_users(12, 9);
  th::server plain(alphabet, eow, p), secure(alphabet, eow, p);
  const th::prepared_broadcast b(plain.broadcast());
  const std::uint64_t s = b.candidates();
  privet::testing::seeded_release_generator gen(10);
  std::vector<th::vote> votes;
  for (const auto& u : users) votes.push_back(th::client<>(u, nullptr).respond(b, p, gen));

  privet::secagg::parameters sp;
  sp.clients = 12;
  sp.threshold = 7;
  sp.length = s;
  sp.modulus = privet::secagg::ring::power_of_two(32);
  sp.session = 5;
  privet::secagg::server agg(sp);
  std::vector<privet::secagg::client> clients;
  std::vector<privet::testing::seeded_release_generator> gens;
  for (std::uint32_t id = 1; id <= 12; ++id) {
    clients.emplace_back(sp, id);
    gens.emplace_back(77, id);
  }
  for (std::uint32_t id = 1; id <= 12; ++id)
    agg.receive(clients[id - 1].advertise_keys(gens[id - 1]));
  const auto roster = agg.finish_advertise_keys();
  for (std::uint32_t id = 1; id <= 12; ++id)
    agg.receive(clients[id - 1].share_keys(roster, gens[id - 1]));
  for (const auto& inbox : agg.finish_share_keys()) {
    agg.receive(clients[inbox.recipient - 1].mask_input(
        inbox, th::to_dense(votes[inbox.recipient - 1], s)));
  }
  const auto survivors = agg.finish_masked_input_collection();
  const std::set<std::uint32_t> dropped{3, 8};  // gone before unmasking
  for (auto id : survivors.clients)
    if (!dropped.contains(id)) agg.receive(clients[id - 1].unmask(survivors));
  const auto sum = agg.finish_unmasking();  // over all 12 masked inputs

  secure.receive_sum(sum, 12);
  for (const auto& v : votes) plain.receive(v);
  const auto a = plain.close_layer(), c = secure.close_layer();
  CHECK(a.threshold == c.threshold);
  CHECK(a.kept == c.kept);
  CHECK(plain.broadcast().prefixes == secure.broadcast().prefixes);
  // A sum of the wrong length or too many votes is refused.
  CHECK_THROWS_AS(secure.receive_sum(std::vector<std::uint64_t>(3), 1), privet::protocol_error);
  CHECK_THROWS_AS(secure.receive_sum(std::vector<std::uint64_t>(static_cast<std::size_t>(
                                         secure.broadcast().prefixes.size() * 6)),
                                     13),
                  privet::protocol_error);
}

TEST_CASE("a prepared broadcast finds the candidates the strings name") {
  const th::layer_broadcast msg{2, {U"ab", U"ba", U"ee", U"cd"}, alphabet + eow};
  const th::prepared_broadcast b(msg);
  CHECK(b.candidates() == 4 * 6);
  // Every word over {a..e} of length 0 to 4, and some with a foreign symbol.
  std::vector<th::word> words{U"", U"z", U"az", U"abz", U"zbc", U"ab$"};
  std::vector<th::word> layer{U""};
  for (int len = 1; len <= 4; ++len) {
    std::vector<th::word> longer;
    for (const auto& w : layer)
      for (char32_t c : alphabet) longer.push_back(w + c);
    words.insert(words.end(), longer.begin(), longer.end());
    layer = std::move(longer);
  }
  const th::word full = alphabet + eow;
  std::size_t found = 0;
  for (const auto& w : words) {
    std::optional<std::uint64_t> expected;
    if (w.size() >= 2) {
      const auto pos = std::find(msg.prefixes.begin(), msg.prefixes.end(), w.substr(0, 2));
      const char32_t next = w.size() > 2 ? w[2] : eow;
      const auto sym = full.find(next);
      if (pos != msg.prefixes.end() && sym != th::word::npos) {
        expected = static_cast<std::uint64_t>(pos - msg.prefixes.begin()) * 6 + sym;
      }
    }
    CAPTURE(std::string(w.begin(), w.end()));
    CHECK(b.candidate_of_word(w) == expected);
    if (w.size() >= 2) {
      const th::word prefix = w.size() > 2 ? w.substr(0, 3) : w + eow;
      CHECK(b.candidate(prefix) == expected);
    }
    found += expected.has_value();
  }
  CHECK(found > 100);
  CHECK_FALSE(b.candidate(U"ab"));  // wrong length
  using privet::protocol_error;
  CHECK_THROWS_WITH_AS(th::prepared_broadcast({2, {U"ab", U"abc"}, alphabet + eow}),
                       "privet: TrieHH broadcast prefix 1 has the wrong length or repeats",
                       protocol_error);
  CHECK_THROWS_WITH_AS(th::prepared_broadcast({2, {U"ab", U"ab"}, alphabet + eow}),
                       "privet: TrieHH broadcast prefix 1 has the wrong length or repeats",
                       protocol_error);
  CHECK_THROWS_WITH_AS(th::prepared_broadcast({1, {U"a"}, U"abca$"}),
                       "privet: TrieHH broadcast alphabet repeats a symbol", protocol_error);
  CHECK_THROWS_WITH_AS(th::prepared_broadcast({1, {U"a"}, U"$"}),
                       "privet: a TrieHH broadcast needs an alphabet of >= 2 symbols",
                       protocol_error);
}

TEST_CASE("vote sums equal dense sums and widen before a 32-bit count could wrap") {
  th::vote_sum sum(1, 4, 5);
  sum.add({1, {0, 2, 2, 3}});
  sum.add({1, {}});
  sum.add({1, {3}});
  CHECK(sum.votes() == 3);
  CHECK(sum.counts() == std::vector<std::uint64_t>{1, 0, 2, 2});
  using privet::protocol_error;
  CHECK_THROWS_WITH_AS(sum.add({2, {0}}), "privet: TrieHH vote for layer 2 while layer 1 is open",
                       protocol_error);
  CHECK_THROWS_WITH_AS(sum.add({1, {0, 4}}),
                       "privet: TrieHH vote index 4 is outside the 4 candidates", protocol_error);
  CHECK_THROWS_WITH_AS(sum.add({1, {0, 0, 0, 0, 0, 0}}),
                       "privet: TrieHH vote has 6 indices; allowed: at most B * d = 5",
                       protocol_error);
  CHECK_THROWS_WITH_AS(sum.add_sum({1, 2}, 1),
                       "privet: TrieHH sum has 2 entries; the layer has 4 candidates",
                       protocol_error);
  CHECK(sum.votes() == 3);  // refused votes left no trace
  CHECK(sum.counts() == std::vector<std::uint64_t>{1, 0, 2, 2});

  th::vote_sum other = sum.empty_copy();
  other.add({1, {1, 1}});
  sum.merge(other);
  CHECK(sum.votes() == 4);
  CHECK(sum.counts() == std::vector<std::uint64_t>{1, 2, 2, 2});
  CHECK_THROWS_AS(sum.merge(th::vote_sum(2, 4, 5)), protocol_error);

  // 2^32 - 1 votes for candidate 0 summed elsewhere, then two more: the
  // count is 2^32 + 1, not a wrapped 1.
  constexpr std::uint64_t top = std::numeric_limits<std::uint32_t>::max();
  th::vote_sum big(1, 2, 5);
  big.add_sum({top, 7}, 1000);
  CHECK(big.count(0) == top);
  big.add({1, {0, 0, 1}});
  CHECK(big.count(0) == top + 2);
  CHECK(big.count(1) == 8);
  CHECK(big.counts() == std::vector<std::uint64_t>{top + 2, 8});
  CHECK(big.votes() == 1001);
  th::vote_sum narrow(1, 2, 5);
  narrow.add({1, {1}});
  narrow.merge(big);
  CHECK(narrow.counts() == std::vector<std::uint64_t>{top + 2, 9});
}

TEST_CASE("a prepared layer votes as the per-call randomiser does, and never for gamma") {
  const auto users = make_users(40, 11);
  th::parameters p;
  p.epsilon = 2;
  p.contributions = 3;
  p.users_per_layer = 40;
  p.max_prefixes = 4;
  th::server srv(alphabet, eow, p);
  const th::prepared_layer layer(srv.broadcast(), p);
  const std::uint64_t s = layer.broadcast().candidates();
  REQUIRE(layer.randomiser() != nullptr);
  const std::uint64_t d = layer.randomiser()->d();
  CHECK(d == privet::subset_selection(2, s + 1).d());
  privet::testing::seeded_release_generator a(12), b(12);
  th::vote v{};
  for (const auto& u : users) {
    const th::client<> c(u, nullptr);
    c.respond(layer, a, v);
    const th::vote w = c.respond(layer.broadcast(), p, b);
    CHECK(v.layer == 1);
    CHECK(v.indices == w.indices);
    // B reports of d candidates, gamma's slot dropped from those that hold it.
    CHECK(v.indices.size() <= p.contributions * d);
    CHECK(v.indices.size() >= p.contributions * (d - 1));
    CHECK(std::all_of(v.indices.begin(), v.indices.end(), [&](auto i) { return i < s; }));
    srv.receive(v);
  }
  CHECK(srv.close_layer().votes == 40);
  // Without noise a vote is the sampled prefixes themselves.
  p.epsilon = std::numeric_limits<double>::infinity();
  th::server exact(alphabet, eow, p);
  const th::prepared_layer plain(exact.broadcast(), p);
  CHECK(plain.randomiser() == nullptr);
  const th::client<th::greedy_sampling> c(
      {{U"bad", 2}, {U"babe", 5}, {U"cab", 1}, {U"ebb", 1}, {U"abc", 0}}, nullptr);
  const auto prefixes = c.valid_prefixes(plain.broadcast());
  // "ba" twice (2 + 5), "ca", "eb"; a word typed 0 times is no prefix.
  CHECK(prefixes == std::vector<th::prefix_count>{{1 * 6 + 0, 7}, {2 * 6 + 0, 1}, {4 * 6 + 1, 1}});
  CHECK(c.respond(plain, a).indices == std::vector<std::uint64_t>{6, 12, 25});
}

TEST_CASE("a simulated layer is the clients' votes, whatever the number of threads") {
  const auto users = make_users(700, 13);
  th::parameters p;
  p.epsilon = 3;
  p.contributions = 2;
  p.users_per_layer = 600;
  p.max_prefixes = 5;
  th::server srv(alphabet, eow, p);
  const th::prepared_layer layer(srv.broadcast(), p);
  std::vector<std::uint64_t> group;
  for (std::uint64_t u = 0; u < 600; ++u) group.push_back((u * 7) % 700);
  const std::unordered_set<th::word> vocabulary{U"bad", U"cab"};
  const auto streams = privet::testing::seeded_keyed_streams(14);

  th::vote_sum many = srv.make_sum(), one = srv.make_sum(), by_hand = srv.make_sum();
  th::simulate_layer(layer, users, group, &vocabulary, streams, 9, many);
  oneapi::tbb::task_arena single(1);
  single.execute([&] { th::simulate_layer(layer, users, group, &vocabulary, streams, 9, one); });
  auto shared = std::make_shared<const std::unordered_set<th::word>>(vocabulary);
  for (std::size_t k = 0; k * th::simulation_block < group.size(); ++k) {
    auto gen = streams.stream(9, k);
    for (std::size_t i = k * th::simulation_block;
         i < std::min(group.size(), (k + 1) * th::simulation_block); ++i) {
      by_hand.add(th::client<>(users[group[i]], shared).respond(layer, gen));
    }
  }
  CHECK(many.votes() == 600);
  CHECK(many.counts() == one.counts());
  CHECK(many.counts() == by_hand.counts());
  th::vote_sum other_streams = srv.make_sum();
  th::simulate_layer(layer, users, group, &vocabulary, streams, 10, other_streams);
  CHECK(other_streams.counts() != many.counts());
  srv.receive_sum(many);
  CHECK_THROWS_AS(srv.receive_sum(one), privet::protocol_error);  // 1200 votes > N = 600
  CHECK(srv.close_layer().votes == 600);
  th::vote_sum next_layer = srv.make_sum();
  CHECK(privet::test::rejected_parameter([&] {
          th::simulate_layer(layer, users, group, nullptr, streams, 0, next_layer);
        }) == "sum.layer()");
  group.push_back(700);  // no such user
  th::vote_sum fresh = one.empty_copy();
  CHECK(privet::test::rejected_parameter([&] {
          th::simulate_layer(layer, users, group, nullptr, streams, 0, fresh);
        }) == "group[i]");
}

TEST_CASE("a run depends on the seed only, not on the number of threads") {
  const auto users = make_users(3000, 15);
  th::parameters p;
  p.epsilon = 4;
  p.contributions = 2;
  p.users_per_layer = 500;
  p.max_prefixes = 6;
  p.max_depth = 5;
  auto once = [&] {
    privet::testing::seeded_release_generator gen(16);
    return th::run(users, {U"abc"}, alphabet, eow, p, 1, gen);
  };
  const auto many = once();
  std::vector<th::pass_result> one;
  oneapi::tbb::task_arena(1).execute([&] { one = once(); });
  REQUIRE(many.size() == 1);
  REQUIRE(one.size() == 1);
  CHECK(many[0].discovered == one[0].discovered);
  CHECK(many[0].groups == one[0].groups);
  REQUIRE(many[0].layers.size() == one[0].layers.size());
  for (std::size_t i = 0; i < many[0].layers.size(); ++i) {
    CHECK(many[0].layers[i].threshold == one[0].layers[i].threshold);
    CHECK(many[0].layers[i].kept == one[0].layers[i].kept);
    CHECK(many[0].layers[i].votes == 500);
  }
  CHECK_FALSE(many[0].discovered.empty());
}

namespace {
// A sampling policy that breaks its contract: B + 1 items.
struct greedy_sampling {
  template <class G>
  void sample(std::vector<th::prefix_count>&, std::uint64_t b, G&,
              std::vector<std::uint64_t>& out) const {
    for (std::uint64_t i = 0; i <= b; ++i) out.push_back(0);
  }
};
}  // namespace

TEST_CASE("TrieHH messages name the parameter or the message and what is allowed") {
  using privet::invalid_parameter;
  using privet::protocol_error;
  th::parameters q;
  q.users_per_layer = 0;
  CHECK_THROWS_WITH_AS(q.validate(), "privet: users_per_layer = 0 is invalid; allowed: >= 1",
                       invalid_parameter);
  q = {};
  q.max_prefixes = 0;
  CHECK_THROWS_WITH_AS(q.validate(), "privet: max_prefixes = 0 is invalid; allowed: >= 1",
                       invalid_parameter);
  q = {};
  q.max_depth = 0;
  CHECK_THROWS_WITH_AS(th::server(alphabet, eow, q),
                       "privet: max_depth = 0 is invalid; allowed: >= 1", invalid_parameter);

  th::parameters p;
  p.epsilon = 2;
  p.contributions = 2;
  p.users_per_layer = 2;
  p.max_prefixes = 3;
  p.max_depth = 1;  // one layer
  th::server srv(alphabet, eow, p);
  const th::prepared_layer layer(srv.broadcast(), p);
  privet::testing::seeded_release_generator gen(5);
  const th::user_data typed{{U"ab", 1}};
  CHECK_THROWS_WITH_AS((void)th::respond(typed, nullptr, layer, gen, greedy_sampling{}),
                       "privet: a TrieHH sampling policy kept 3 prefixes; allowed: at most B = 2",
                       protocol_error);
  CHECK_THROWS_WITH_AS((void)th::to_dense(th::vote{1, {30}}, 30),
                       "privet: TrieHH vote index 30 is outside the 30 candidates", protocol_error);
  CHECK_THROWS_WITH_AS(th::vote_sum(1, std::uint64_t{1} << 62, 5),
                       "privet: candidates = 4611686018427387904 is invalid; allowed: a count "
                       "vector that fits in memory",
                       invalid_parameter);
  th::vote_sum sum(1, 4, 5);
  CHECK_THROWS_WITH_AS(sum.merge(th::vote_sum(2, 4, 5)),
                       "privet: TrieHH sums of different layers (2 and 1) cannot be merged",
                       protocol_error);
  CHECK_THROWS_WITH_AS((void)sum.count(4), "privet: c = 4 is invalid; allowed: < candidates = 4",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((void)th::max_vote_indices(p, std::numeric_limits<std::uint64_t>::max()),
                       "privet: candidates = 18446744073709551615 is invalid; allowed: < 2^64 - 1",
                       invalid_parameter);

  // The server's own refusals.
  CHECK_THROWS_WITH_AS(srv.receive(th::vote{2, {}}),
                       "privet: TrieHH vote for layer 2 while layer 1 is open", protocol_error);
  srv.receive(th::vote{1, {0}});
  srv.receive(th::vote{1, {1}});
  CHECK_THROWS_WITH_AS(srv.receive(th::vote{1, {2}}),
                       "privet: TrieHH layer already has its 2 votes", protocol_error);
  CHECK_THROWS_WITH_AS(srv.receive_sum(std::vector<std::uint64_t>(30), 1),
                       "privet: TrieHH sum of 1 votes exceeds the layer's 2 users", protocol_error);
  (void)srv.close_layer();
  REQUIRE(srv.done());
  CHECK_THROWS_WITH_AS((void)srv.broadcast(), "privet: TrieHH has no further layer to broadcast",
                       protocol_error);
  CHECK_THROWS_WITH_AS((void)srv.make_sum(), "privet: TrieHH has no open layer to sum",
                       protocol_error);
  CHECK_THROWS_WITH_AS(srv.receive(th::vote{2, {}}),
                       "privet: TrieHH received a vote after the last layer", protocol_error);
  CHECK_THROWS_WITH_AS(srv.receive_sum(std::vector<std::uint64_t>(30), 1),
                       "privet: TrieHH received a sum after the last layer", protocol_error);
  CHECK_THROWS_WITH_AS(srv.receive_sum(sum), "privet: TrieHH received a sum after the last layer",
                       protocol_error);
  CHECK_THROWS_WITH_AS((void)srv.close_layer(), "privet: TrieHH has no open layer to close",
                       protocol_error);

  // The simulation and the driver.
  const std::vector<th::user_data> users(3, typed);
  const privet::keyed_streams streams(privet::keyed_streams::key_type{});
  th::vote_sum other(2, 30, 5);
  const std::uint64_t group[] = {0, 1};
  CHECK_THROWS_WITH_AS(th::simulate_layer(layer, users, group, nullptr, streams, 0, other),
                       "privet: sum.layer() = 2 is invalid; allowed: the layer of the broadcast "
                       "(1) with as many candidates",
                       invalid_parameter);
  const std::uint64_t past[] = {0, 3};
  th::vote_sum fresh(1, 30, 5);
  CHECK_THROWS_WITH_AS(th::simulate_layer(layer, users, past, nullptr, streams, 0, fresh),
                       "privet: group[i] = 3 is invalid; allowed: < users.size() = 3",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((void)th::run(users, {}, alphabet, eow, p, 0, gen),
                       "privet: passes = 0 is invalid; allowed: >= 1", invalid_parameter);
  // Fewer users than passes * max_depth * N is data, not an error (issue
  // 22): the last layers are padded with users who typed nothing.
  std::vector<th::pass_result> short_run;
  CHECK_NOTHROW(short_run = th::run(users, {}, alphabet, eow, p, 1, gen));
  for (const auto& g : short_run.front().groups) CHECK(g.size() == p.users_per_layer);

  // The privacy and anonymity figures.
  CHECK_THROWS_WITH_AS((void)th::report(p, 0), "privet: delta = 0 is invalid; allowed: (0, 1)",
                       invalid_parameter);
  th::parameters wide;
  wide.users_per_layer = std::uint64_t{1} << 33;
  wide.contributions = std::uint64_t{1} << 31;
  const char* reports =
      "privet: users_per_layer = 8589934592 is invalid; allowed: with users_per_layer * B < 2^64";
  CHECK_THROWS_WITH_AS((void)th::report(wide, 1e-10), reports, invalid_parameter);
  th::parameters inf;
  inf.epsilon = std::numeric_limits<double>::infinity();
  CHECK_THROWS_WITH_AS((void)th::approximate_k_anonymity(inf, 100, 10, 0.9),
                       "privet: epsilon = inf is invalid; allowed: finite (no noise, no anonymity)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((void)th::approximate_k_anonymity(th::parameters{}, 100, 10, 1.0),
                       "privet: alpha = 1 is invalid; allowed: (0, 1)", invalid_parameter);
  CHECK_THROWS_WITH_AS((void)th::approximate_k_anonymity(th::parameters{}, 1, 10, 0.9),
                       "privet: alphabet_size = 1 is invalid; allowed: >= 2", invalid_parameter);
  CHECK_THROWS_WITH_AS((void)th::typical_threshold(inf, 100),
                       "privet: epsilon = inf is invalid; allowed: finite", invalid_parameter);
}

TEST_CASE("k-anonymity and the typical threshold refuse sizes that wrap 64 bits") {
  // Before: N B and eta_max |X| + 1 were multiplied unchecked, so N = 2^33
  // users of B = 2^31 items made N B = 0 reports and both functions
  // returned 0 instead of refusing.
  using privet::invalid_parameter;
  th::parameters wide;
  wide.users_per_layer = std::uint64_t{1} << 33;
  wide.contributions = std::uint64_t{1} << 31;
  const char* reports =
      "privet: users_per_layer = 8589934592 is invalid; allowed: with users_per_layer * B < 2^64";
  CHECK_THROWS_WITH_AS((void)th::approximate_k_anonymity(wide, 100, 10, 0.9), reports,
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((void)th::typical_threshold(wide, 100), reports, invalid_parameter);
  th::parameters many;
  many.max_prefixes = std::uint64_t{1} << 62;
  const char* candidates =
      "privet: alphabet_size = 4 is invalid; allowed: with max_prefixes * alphabet_size + 1 < "
      "2^64 (max_prefixes = 4611686018427387904)";
  CHECK_THROWS_WITH_AS((void)th::approximate_k_anonymity(many, 4, 10, 0.9), candidates,
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((void)th::typical_threshold(many, 4), candidates, invalid_parameter);
}

// Issue 22: the number of users is data. Neighbouring datasets of N D - 1
// and N D users (one short of filling every layer, and exactly filling
// them), and a dataset of no users at all, all run: every layer hears N
// clients (padding users send B dummy reports), so the central guarantee
// computed for N B reports per layer holds for each.
TEST_CASE("run pads short layers with users who typed nothing, never throws") {
  th::parameters p;
  p.epsilon = 4;
  p.contributions = 2;
  p.users_per_layer = 50;
  p.max_prefixes = 5;
  p.max_depth = 3;
  const th::word letters = U"abc";
  const th::user_data typed{{U"ab", 3}, {U"cab", 1}};
  for (const std::size_t n : {std::size_t{0}, std::size_t{149}, std::size_t{150}}) {
    const std::vector<th::user_data> users(n, typed);
    privet::testing::seeded_release_generator gen(17);
    std::vector<th::pass_result> out;
    CHECK_NOTHROW(out = th::run(users, {}, letters, U'$', p, 1, gen));
    REQUIRE(out.size() == 1);
    std::set<std::uint64_t> seen;
    std::size_t padding = 0;
    for (std::size_t i = 0; i < out[0].layers.size(); ++i) {
      CHECK(out[0].layers[i].votes == p.users_per_layer);
      CHECK(out[0].groups[i].size() == p.users_per_layer);
      for (const auto u : out[0].groups[i]) {
        if (u == n) {
          ++padding;
        } else {
          CHECK(u < n);
          CHECK(seen.insert(u).second);  // no user joins two layers
        }
      }
    }
    // Users are used before any padding: a layer is padded only once they ran out.
    CHECK(seen.size() == std::min<std::size_t>(n, out[0].layers.size() * p.users_per_layer));
    CHECK(padding == out[0].layers.size() * p.users_per_layer - seen.size());
  }
}

// ---- issue 25: depth, the distribution path, coverage, anonymity ---------------------------

namespace {

// `n` users who each typed `w` once.
std::vector<th::user_data> everyone_types(const th::word& w, std::size_t n) {
  return std::vector<th::user_data>(n, th::user_data{{w, 1}});
}

th::parameters exact_parameters(std::size_t depth) {
  th::parameters p;
  p.epsilon = std::numeric_limits<double>::infinity();
  p.contributions = 1;
  p.users_per_layer = 10;
  p.max_prefixes = 3;
  p.max_depth = depth;
  return p;
}

}  // namespace

// Before: max_depth = D ran D - 1 layers (D - 1 letters at most) and
// max_depth = 1 ran none, against Algorithm 2's "for i = 1..D" with P_0 = X
// (Sun et al. 2024).
TEST_CASE("max_depth = D runs D layers of N users and finds words of D letters") {
  for (const std::size_t depth : {std::size_t{1}, std::size_t{2}, std::size_t{5}}) {
    CAPTURE(depth);
    const auto p = exact_parameters(depth);
    const th::word word = th::word(U"badce").substr(0, depth);
    const auto users = everyone_types(word, depth * 10);
    privet::testing::seeded_release_generator gen(30);
    const auto r = th::run(users, {}, alphabet, eow, p, 1, gen);
    REQUIRE(r.size() == 1);
    CHECK(r[0].discovered == std::vector<th::word>{word});
    CHECK(r[0].layers.size() == depth);
    REQUIRE(r[0].groups.size() == depth);
    std::set<std::uint64_t> seen;
    for (const auto& g : r[0].groups) {
      CHECK(g.size() == 10);
      for (auto u : g) CHECK(u < users.size());  // D N users: no padding needed
      seen.insert(g.begin(), g.end());
    }
    CHECK(seen.size() == depth * 10);
    // A word one letter longer than D layers can spell is never found.
    const auto longer = everyone_types(th::word(U"badcee").substr(0, depth + 1), depth * 10);
    CHECK(th::run(longer, {}, alphabet, eow, p, 1, gen)[0].discovered.empty());
    // The server broadcasts exactly D layers.
    th::server srv(alphabet, eow, p);
    std::size_t layers = 0;
    for (; !srv.done(); ++layers) {
      const auto b = srv.broadcast();
      CHECK(b.layer == layers + 1);
      srv.receive(th::vote{b.layer, {*th::prepared_broadcast(b).candidate_of_word(word)}});
      (void)srv.close_layer();
    }
    CHECK(layers == depth);
    CHECK(srv.discovered() == std::vector<th::word>{word});
  }
  // max_depth = 1: the one-letter words, and nothing longer.
  std::vector<th::user_data> users = everyone_types(U"a", 4);
  users.push_back({{U"c", 2}, {U"cab", 1}});
  users.push_back({{U"d", 1}});
  privet::testing::seeded_release_generator gen(31);
  auto p = exact_parameters(1);
  p.users_per_layer = 6;
  p.contributions = 2;
  const auto r = th::run(users, {}, alphabet, eow, p, 1, gen);
  const std::set<th::word> got(r[0].discovered.begin(), r[0].discovered.end());
  CHECK(got == std::set<th::word>{U"a", U"c", U"d"});
}

TEST_CASE("the local step of the distribution path is each client's") {
  // Without binding (B = 4 above any user's 4 words), a_c is the number of
  // the group's users with valid prefix c, counted here from the strings.
  const auto users = make_users(300, 20);
  th::parameters p;
  p.epsilon = 2;
  p.contributions = 4;
  p.users_per_layer = 300;
  p.max_prefixes = 5;
  th::server srv(alphabet, eow, p);
  const th::prepared_layer layer(srv.broadcast(), p);
  const std::unordered_set<th::word> vocabulary{U"bad"};
  auto source = [&](std::uint64_t i) -> const th::user_data& { return users[i]; };
  const auto streams = privet::testing::seeded_keyed_streams(21);
  const auto items = th::sampled_items(layer, source, 300, 0, 300, &vocabulary, streams, 0);
  std::vector<std::uint64_t> expected(30, 0);
  for (const auto& u : users) {
    std::set<std::uint64_t> mine;
    for (const auto& [w, n] : u) {
      if (vocabulary.count(w) || w.size() < 1) continue;
      const th::word pre = w.size() > 1 ? w.substr(0, 2) : w + eow;
      mine.insert(static_cast<std::uint64_t>(alphabet.find(pre[0])) * 6 +
                  (pre[1] == eow ? 5 : alphabet.find(pre[1])));
    }
    for (auto c : mine) ++expected[c];
  }
  CHECK(items == expected);
  // Users past the population type nothing; a window past it is all gamma.
  CHECK(th::sampled_items(layer, source, 300, 300, 50, &vocabulary, streams, 0) ==
        std::vector<std::uint64_t>(30, 0));
  // A binding B with greedy sampling keeps each user's most typed prefix.
  th::parameters one = p;
  one.contributions = 1;
  const th::prepared_layer narrow(srv.broadcast(), one);
  const auto top = th::sampled_items(narrow, source, 300, 0, 300, &vocabulary, streams, 0,
                                     th::greedy_sampling{});
  std::uint64_t total = 0;
  for (auto a : top) total += a;
  std::uint64_t voters = 0;
  for (const auto& u : users) {
    const th::client<th::greedy_sampling> c(
        u, std::make_shared<const std::unordered_set<th::word>>(vocabulary));
    const auto v = c.valid_prefixes(narrow.broadcast());
    voters += v.empty() ? 0 : 1;
  }
  CHECK(total == voters);
}

// The exact per-user path (run every client, sum the votes) and the
// distribution path (the same local step, then Bin(a_c, p) + Bin(N B - a_c,
// q) per candidate) give each candidate's count the same law. 1500 layers
// each way at N = 100, B = 4, 30 candidates, eps = 2 (d = 4). Checks: every
// candidate's mean by a two-sample z test at |z| <= 4.9 with the exact
// variance (false alarm 9.6e-7 each, 2.9e-5 for 30), and the whole law of
// three candidates (most held, least held, held by nobody) by a two-sample
// Kolmogorov-Smirnov test at level 1e-6 (asymptotic critical value,
// conservative for integer counts). Power: q computed over s instead of
// s + 1 candidates shifts a mean by 400 (d - p) / (29 * 30) = 1.6 votes, z
// about 7.
TEST_CASE("the exact and distribution paths agree in distribution") {
  const auto users = make_users(100, 22);
  th::parameters p;
  p.epsilon = 2;
  p.contributions = 4;
  p.users_per_layer = 100;
  p.max_prefixes = 5;
  th::server srv(alphabet, eow, p);
  const th::prepared_layer layer(srv.broadcast(), p);
  REQUIRE(layer.randomiser() != nullptr);
  REQUIRE(layer.randomiser()->d() == 4);
  std::vector<std::uint64_t> group(100);
  for (std::uint64_t u = 0; u < 100; ++u) group[u] = u;
  auto source = [&](std::uint64_t i) -> const th::user_data& { return users[i]; };
  const auto streams = privet::testing::seeded_keyed_streams(23);
  const auto items = th::sampled_items(layer, source, 100, 0, 100, nullptr, streams, 0);

  constexpr std::size_t reps = 1500;
  std::vector<std::vector<std::uint64_t>> exact(30), dist(30);
  privet::seeded_generator gen(24);
  for (std::size_t r = 0; r < reps; ++r) {
    th::vote_sum sum = srv.make_sum();
    th::simulate_layer(layer, users, group, nullptr, streams, 1 + r, sum);
    const auto a = sum.counts();
    const auto b = th::sample_vote_counts(layer, items, 100, gen);
    for (std::size_t c = 0; c < 30; ++c) {
      exact[c].push_back(a[c]);
      dist[c].push_back(b[c]);
    }
  }
  const double pp = layer.randomiser()->p_true(), q = layer.randomiser()->p_other();
  const double n = 400;
  for (std::size_t c = 0; c < 30; ++c) {
    const double a = static_cast<double>(items[c]);
    const double var = a * pp * (1 - pp) + (n - a) * q * (1 - q);
    double m1 = 0, m2 = 0;
    for (std::size_t r = 0; r < reps; ++r) {
      m1 += static_cast<double>(exact[c][r]);
      m2 += static_cast<double>(dist[c][r]);
    }
    m1 /= reps;
    m2 /= reps;
    CAPTURE(c);
    CHECK(std::fabs(m1 - m2) <= 4.9 * std::sqrt(2 * var / reps));
    CHECK(std::fabs(m2 - (a * pp + (n - a) * q)) <= 4.9 * std::sqrt(var / reps));
  }
  const auto most =
      static_cast<std::size_t>(std::max_element(items.begin(), items.end()) - items.begin());
  std::size_t least = most, nobody = 30;
  for (std::size_t c = 0; c < 30; ++c) {
    if (items[c] > 0 && items[c] < items[least]) least = c;
    if (items[c] == 0 && nobody == 30) nobody = c;
  }
  REQUIRE(nobody < 30);
  REQUIRE(items[most] > 20);
  const double critical = std::sqrt(-0.5 * std::log(1e-6 / 2)) * std::sqrt(2.0 / reps);
  for (const std::size_t c : {most, least, nobody}) {
    auto x = exact[c], y = dist[c];
    std::sort(x.begin(), x.end());
    std::sort(y.begin(), y.end());
    double ks = 0;
    for (std::uint64_t v = 0; v <= 400; ++v) {
      const auto fx = static_cast<double>(std::upper_bound(x.begin(), x.end(), v) - x.begin());
      const auto fy = static_cast<double>(std::upper_bound(y.begin(), y.end(), v) - y.begin());
      ks = std::max(ks, std::fabs(fx - fy) / reps);
    }
    CAPTURE(c);
    CHECK(ks <= critical);
  }
}

// Without noise both paths are deterministic given the groups (greedy
// sampling, even with a binding B = 1): the distribution driver, fed run's
// groups in order, grows the same trie.
TEST_CASE("run_distribution grows run's trie when there is no noise") {
  const auto users = make_users(3000, 25);
  for (const std::uint64_t b : {std::uint64_t{1}, std::uint64_t{10}}) {
    th::parameters p;
    p.epsilon = std::numeric_limits<double>::infinity();
    p.contributions = b;
    p.users_per_layer = 400;
    p.max_prefixes = 6;
    p.max_depth = 6;
    privet::testing::seeded_release_generator gen(26);
    const std::unordered_set<th::word> vocabulary{U"abc"};
    const auto exact = th::run(users, vocabulary, alphabet, eow, p, 2, gen, th::greedy_sampling{});
    std::vector<std::uint64_t> order;
    for (const auto& pass : exact)
      for (const auto& g : pass.groups) order.insert(order.end(), g.begin(), g.end());
    const th::user_data none;
    auto source = [&](std::uint64_t i) -> const th::user_data& {
      return order[i] < users.size() ? users[order[i]] : none;
    };
    privet::seeded_generator sim(27);
    const auto dist = th::run_distribution(source, order.size(), vocabulary, alphabet, eow, p, 2,
                                           sim, th::greedy_sampling{});
    REQUIRE(dist.size() == 2);
    CAPTURE(b);
    for (std::size_t k = 0; k < 2; ++k) {
      CHECK(dist[k].discovered == exact[k].discovered);
      REQUIRE(dist[k].layers.size() == exact[k].layers.size());
      for (std::size_t i = 0; i < dist[k].layers.size(); ++i) {
        CHECK(dist[k].layers[i].threshold == exact[k].layers[i].threshold);
        CHECK(dist[k].layers[i].kept == exact[k].layers[i].kept);
        CHECK(dist[k].layers[i].votes == 400);
      }
    }
    CHECK_FALSE(exact[0].discovered.empty());
  }
}

TEST_CASE("the distribution path finds the words the exact path finds at eps = 10") {
  // The paper's epsilon over a small population: both paths find the
  // commonest words (each typed by about a fifth of the users or more).
  const auto users = make_users(6000, 28);
  th::parameters p;
  p.epsilon = 10;
  p.contributions = 4;
  p.users_per_layer = 1000;
  p.max_prefixes = 8;
  p.max_depth = 5;
  auto source = [&](std::uint64_t i) -> const th::user_data& { return users[i]; };
  privet::seeded_generator sim(29);
  const auto dist = th::run_distribution(source, users.size(), {}, alphabet, eow, p, 1, sim);
  privet::testing::seeded_release_generator gen(29);
  const auto exact = th::run(users, {}, alphabet, eow, p, 1, gen);
  const auto a = th::discovered_words(dist), b = th::discovered_words(exact);
  for (const th::word w : {U"abc", U"bad", U"cab"}) {
    CHECK(a.contains(w));
    CHECK(b.contains(w));
  }
}

TEST_CASE("coverage counts discovered target contributions of held-out users") {
  // Targets {ab, cab, dd}; discovered {ab, dd, xyz} (xyz is no target).
  // Held out: ab 2 + cab 1 + cab 3 + dd 1 = 7 target contributions, of
  // which ab 2 + dd 1 = 3 discovered; abc (known) and zz (no target) do
  // not count.
  const std::unordered_set<th::word> targets{U"ab", U"cab", U"dd"};
  const std::unordered_set<th::word> discovered{U"ab", U"dd", U"xyz"};
  const std::vector<th::user_data> held_out{
      {{U"ab", 2}, {U"cab", 1}, {U"abc", 5}}, {{U"dd", 1}, {U"cab", 3}, {U"zz", 4}}, {}};
  const auto c = th::coverage(discovered, targets, held_out);
  CHECK(c.discovered == 3);
  CHECK(c.target == 7);
  CHECK(c.value() == doctest::Approx(3.0 / 7));
  CHECK(th::coverage({}, targets, held_out).value() == 0);
  CHECK(th::coverage(discovered, {}, held_out).value() == 0);  // no target: 0, not NaN
  // Counts are data: sums saturate, never wrap.
  constexpr std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
  const std::vector<th::user_data> heavy{{{U"ab", top}}, {{U"ab", 5}, {U"dd", 1}}};
  const auto h = th::coverage(discovered, targets, heavy);
  CHECK(h.target == top);
  CHECK(h.discovered == top);
}

TEST_CASE("the typical threshold uses q, so anonymity is not vacuous when d is small") {
  // The old example's scale: eta_max = 300, |X| = 27, N = 4000, B = 4,
  // eps = 10: s = 8101 and d = 1, so the old rate (d - 2) / (s - 1) was 0
  // and the threshold 0. The threshold is the largest t with (s - 1)
  // P[Bin(N B, q) >= t] >= eta_max, checked against boost directly.
  th::parameters old;
  old.epsilon = 10;
  old.contributions = 4;
  old.users_per_layer = 4000;
  old.max_prefixes = 300;
  const privet::subset_selection ss(10, 300 * 27 + 1);
  REQUIRE(ss.d() == 1);
  const std::uint64_t tau = th::typical_threshold(old, 27);
  const boost::math::binomial_distribution<double> noise(16000, ss.p_other());
  auto expected = [&](std::uint64_t t) {
    return 8100 * boost::math::cdf(boost::math::complement(noise, static_cast<double>(t - 1)));
  };
  CHECK(tau > 0);
  CHECK(expected(tau) >= 300);
  CHECK(expected(tau + 1) < 300);
  // There, the other users' reports alone pass tau with probability above
  // 5 %: no alpha = 0.95 statement holds, and nothing is returned.
  CHECK(th::vote_tail(0, ss.p_true(), 16000, ss.p_other(), tau) > 0.05);
  CHECK_FALSE(th::approximate_k_anonymity(old, 27, tau, 0.95));
  // At the paper's scale (N = 10^6, B = 60, eta_max = 10^4, eps = 10) it holds
  // for prefixes contributed a few times.
  th::parameters paper;
  paper.users_per_layer = 1'000'000;
  const std::uint64_t t = th::typical_threshold(paper, 27);
  const auto k = th::approximate_k_anonymity(paper, 27, t, 0.95);
  REQUIRE(k);
  CHECK(*k >= 1);
  MESSAGE("paper scale: typical threshold " << t << ", alpha = 0.95: k = " << *k);
}

TEST_CASE("the typical threshold is found by bisection, at any number of reports") {
  // N B = 2^60 reports: the threshold sits millions of standard steps above
  // the mean, which the old step-by-step search walked one at a time.
  // Checked against boost directly, as above.
  th::parameters big;
  big.users_per_layer = std::uint64_t{1} << 40;
  big.contributions = std::uint64_t{1} << 20;
  const std::uint64_t s = big.max_prefixes * 27 + 1;
  const privet::subset_selection ss(big.epsilon, s);
  const std::uint64_t tau = th::typical_threshold(big, 27);
  const boost::math::binomial_distribution<double> noise(0x1p60, ss.p_other());
  auto expected = [&](std::uint64_t t) {
    return static_cast<double>(s - 1) *
           boost::math::cdf(boost::math::complement(noise, static_cast<double>(t - 1)));
  };
  CHECK(static_cast<double>(tau) > 0x1p60 * ss.p_other());
  CHECK(expected(tau) >= static_cast<double>(big.max_prefixes));
  CHECK(expected(tau + 1) < static_cast<double>(big.max_prefixes));
}

TEST_CASE("the distribution path names its parameters when it refuses them") {
  th::parameters p;
  p.epsilon = 2;
  p.contributions = 2;
  p.users_per_layer = 3;
  p.max_prefixes = 3;
  th::server srv(alphabet, eow, p);
  const th::prepared_layer layer(srv.broadcast(), p);
  privet::seeded_generator gen(1);
  using privet::invalid_parameter;
  CHECK_THROWS_WITH_AS(
      (void)th::sample_vote_counts(layer, std::vector<std::uint64_t>(29, 0), 3, gen),
      "privet: items.size() = 29 is invalid; allowed: the layer's candidate count 30",
      invalid_parameter);
  std::vector<std::uint64_t> items(30, 0);
  items[0] = 4;
  items[7] = 3;
  CHECK_THROWS_WITH_AS((void)th::sample_vote_counts(layer, items, 3, gen),
                       "privet: items = 7 is invalid; allowed: a total of at most users * B = 6 "
                       "reports",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(
      (void)th::sample_vote_counts(layer, items, std::numeric_limits<std::uint64_t>::max(), gen),
      "privet: users = 18446744073709551615 is invalid; allowed: with users * B < 2^64 (B = 2)",
      invalid_parameter);
  items[7] = 2;
  CHECK(th::sample_vote_counts(layer, items, 3, gen).size() == 30);
  const std::vector<th::user_data> users(2);
  auto source = [&](std::uint64_t i) -> const th::user_data& { return users[i]; };
  CHECK_THROWS_WITH_AS((void)th::run_distribution(source, 2, {}, alphabet, eow, p, 0, gen),
                       "privet: passes = 0 is invalid; allowed: >= 1", invalid_parameter);
}

TEST_CASE("a closed layer's anonymity uses its own candidate count") {
  th::parameters p;  // eps = 10, B = 60, eta_max = 10^4
  p.users_per_layer = 1'000'000;
  const std::uint64_t tau = th::typical_threshold(p, 27);
  // A layer with the full eta_max |X| candidates: the same as the form in
  // the alphabet size.
  const th::layer_stats full{3, 270'000, 1'000'000, tau, 10'000, 0};
  CHECK(th::approximate_k_anonymity(p, full, 0.95) ==
        th::approximate_k_anonymity(p, 27, tau, 0.95));
  // 15 000 candidates: d = 1, so q = (1 - p) / (s - 1) and the noise mean
  // is N B q, about 1620 votes, not 2780: the same tau protects more
  // there, and the full-size form would be wrong for it.
  const th::layer_stats small{9, 15'000, 1'000'000, tau, 10'000, 0};
  const auto k = th::approximate_k_anonymity(p, small, 0.95);
  REQUIRE(k);
  const privet::subset_selection ss(10, 15'001);
  REQUIRE(ss.d() == 1);
  CHECK(th::vote_tail(*k, ss.p_true(), 60'000'000 - *k, ss.p_other(), tau) <= 0.05);
  CHECK(th::vote_tail(*k + 1, ss.p_true(), 60'000'000 - *k - 1, ss.p_other(), tau) > 0.05);
  // A layer that keeps every candidate with a vote: no statement.
  const th::layer_stats all{12, 5'000, 1'000'000, 1, 5'000, 0};
  CHECK_FALSE(th::approximate_k_anonymity(p, all, 0.95));
  CHECK_THROWS_WITH_AS(
      (void)th::approximate_k_anonymity(p, th::layer_stats{1, 0, 1, 1, 0, 0}, 0.95),
      "privet: layer.candidates = 0 is invalid; allowed: [1, 2^64 - 2]", privet::invalid_parameter);
}
