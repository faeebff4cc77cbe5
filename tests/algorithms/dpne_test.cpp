// DPNE (Kim et al. 2021): the sigma_k schedules, rho_1 and rho_k against
// independent computations; |V_k| against brute-force enumeration; the
// validity of every release under both pruning rules; the spurious draws;
// the sampled |V_k|; determinism across threads; the baselines' budgets;
// the documented errors.
#include <privet/algorithms/dpne.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>

#include <doctest/doctest.h>
#include <support/dpne_text.hpp>
#include <support/errors.hpp>
#include <support/gaussian_reference.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace dpne = privet::dpne;
using privet::ngram_table;
using privet::test::rejected_parameter;

namespace {

using privet::test::reference::analytic_sigma;
using privet::test::reference::quantile;
using privet::test::reference::rho_gauss;
using privet::test::reference::zcdp_sigma;

// The shared corpus (tests/support/dpne_text.hpp).
using text = privet::test::dpne_text;
inline text sample_text() {
  return privet::test::dpne_sample_text();
}

std::string words(const dpne::extraction& r, ngram_table::id g) {
  return r.grams().text(g);
}

std::set<std::string> released_text(const dpne::extraction& r) {
  std::set<std::string> out;
  for (std::size_t k = 1; k <= r.max_length(); ++k)
    for (auto g : r.released(k)) out.insert(words(r, g));
  return out;
}

}  // namespace

TEST_CASE("corpus: users own consecutive sequences, possibly none") {
  dpne::corpus c;
  const std::vector<ngram_table::id> a{1, 2, 3}, b{4}, e{};
  c.add_user();
  c.add_sequence(a);
  c.add_sequence(b);
  c.add_user();  // no text
  c.add_user();
  c.add_sequence(e);
  c.add_sequence(a);
  CHECK(c.users() == 3);
  CHECK(c.sequences() == 4);
  CHECK(c.tokens() == 7);
  CHECK(c.first_sequence(0) == 0);
  CHECK(c.end_sequence(0) == 2);
  CHECK(c.first_sequence(1) == 2);
  CHECK(c.end_sequence(1) == 2);
  CHECK(c.first_sequence(2) == 2);
  CHECK(c.end_sequence(2) == 4);
  std::vector<std::pair<std::size_t, std::size_t>> seen;
  c.for_each_sequence(2, [&](std::size_t b0, std::size_t e0) { seen.emplace_back(b0, e0); });
  CHECK(seen == std::vector<std::pair<std::size_t, std::size_t>>{{4, 4}, {4, 7}});
  CHECK(c.sequence(1).size() == 1);
  CHECK(c.sequence(1)[0] == 4);
}

TEST_CASE("sigma_k: equal and geometric schedules match an independent computation") {
  text t = sample_text();
  for (double c : {1.0, 0.8}) {
    dpne::parameters p;
    p.epsilon = 4;
    p.delta = 1e-7;
    p.max_length = 5;
    p.decay = c;
    privet::testing::seeded_release_generator gen(1);
    const auto secure = dpne::extract(t.corpus, t.vocabulary, p, gen);
    const auto sim = dpne::extract<privet::simulation_only_noise>(t.corpus, t.vocabulary, p, gen);
    // The noise's half of delta: delta / 2 less a share for the total
    // variation (the pass probabilities', and the constant-time samplers'),
    // tiny against delta.
    const double secure_half = dpne::extractor<>(p).threshold_delta();
    const double sim_half = dpne::extractor<privet::simulation_only_noise>(p).threshold_delta();
    for (const double half : {secure_half, sim_half}) {
      CHECK(half < 5e-8);
      CHECK(half > 5e-8 * (1 - 1e-3));
    }
    for (const auto& [r, star, tol] : {std::tuple{&secure, zcdp_sigma(4, secure_half), 1e-5L},
                                       std::tuple{&sim, analytic_sigma(4, sim_half), 1e-9L}}) {
      // sigma_1 = sigma* sqrt(sum_k c^(-2(k-1))), sigma_k = sigma_1 c^(k-1):
      // then sum_k 1 / sigma_k^2 = 1 / sigma*^2 (Theorem 2.1).
      long double weight = 0;
      for (int k = 0; k < 5; ++k) weight += std::pow(static_cast<long double>(c), -2.0L * k);
      const auto& sig = r->privacy().sigmas;
      REQUIRE(sig.size() == 5);
      for (int k = 0; k < 5; ++k) {
        const long double want =
            star * std::sqrt(weight) * std::pow(static_cast<long double>(c), k);
        INFO("c = " << c << ", k = " << k + 1);
        CHECK(std::fabs(sig[static_cast<std::size_t>(k)] - want) <= tol * want);
      }
      long double inv = 0;
      for (double s : sig) inv += 1 / (static_cast<long double>(s) * s);
      CHECK(inv <= 1 / (star * star) * (1 + tol));
      // The spent guarantee, from the samplers' maps, meets the target.
      CHECK(r->privacy().spent.epsilon() <= 4);
      CHECK(r->privacy().spent.epsilon() >= 4 * (1 - 1e-6));
      CHECK(r->privacy().spent.delta() <= 1e-7 * (1 + 1e-12));
    }
  }
}

TEST_CASE("rho_1 and rho_k match independent computations; releases are valid") {
  text t = sample_text();
  dpne::parameters p = privet::test::dpne_sample_parameters();
  privet::testing::seeded_release_generator gen(2);
  // The exact samplers: the constant-time default sets the samplers' share
  // of delta aside first (dpne_constant_time_test.cpp).
  const auto r = dpne::extract<privet::secure_noise>(t.corpus, t.vocabulary, p, gen);
  const auto& levels = r.levels();
  REQUIRE(levels.size() == 6);
  // rho_1 = max_t 1/sqrt(t) + sigma_1 Phi^-1((1 - delta/2)^(1/t)) at the
  // sampler's sigma.
  const long double rho1 = rho_gauss(20, levels[0].sigma_sampled,
                                     dpne::extractor<privet::secure_noise>(p).threshold_delta());
  CHECK(levels[0].threshold >= rho1);
  CHECK(levels[0].threshold <= rho1 * (1 + 1e-8L));
  CHECK(levels[0].sigma_sampled >= levels[0].sigma);
  CHECK(levels[0].sigma_sampled <= levels[0].sigma * (1 + 1e-12));
  CHECK(r.released(1).size() > 10);
  for (std::size_t k = 2; k <= 6; ++k) {
    const auto& l = levels[k - 1];
    const auto prev = r.released(k - 1);
    INFO("k = " << k);
    REQUIRE(!prev.empty());
    // rho_k = sigma_k Phi^-1(1 - eta min(1, |S_{k-1}| / |V_k|)).
    const long double share = std::min(1.0L, static_cast<long double>(prev.size()) / l.candidates);
    const long double rho = l.sigma_sampled * quantile(0.05L * share);
    CHECK(l.threshold >= rho * (1 - 1e-9L) - 1e-12L);
    CHECK(l.threshold <= rho + 1e-8L * (1 + std::fabs(rho)));
    CHECK(l.pass_probability == doctest::Approx(static_cast<double>(0.05L * share)).epsilon(1e-4));
    // The spurious grams' probability is certified within the tolerance the
    // plan pays for (a few times 2^-52 of it, far inside 2^-48 eta).
    CHECK(l.pass_probability_error > 0);
    CHECK(l.pass_probability_error <= dpne::detail::pass_probability_tolerance(p.eta));
    CHECK(l.pass_probability_error <= 0x1p-49 * l.pass_probability);
    // |V_k| by brute force: x.w for x in S_1, w in S_{k-1}, valid when x.y in
    // S_{k-1} (y = w without its last word).
    const std::set<ngram_table::id> in_prev(prev.begin(), prev.end());
    std::uint64_t brute = 0;
    for (auto x : r.released(1)) {
      for (auto w : prev) {
        auto ws = r.grams().words_of(w);
        ngram_table::id g = x;
        bool ok = true;
        for (std::size_t j = 0; ok && j + 1 < ws.size(); ++j) {
          const auto next = r.grams().find_extension(g, ws[j]);
          ok = next.has_value();
          if (ok) g = *next;
        }
        brute += ok && in_prev.count(g) == 1;
      }
    }
    CHECK(l.candidates_exact == brute);
    CHECK(l.candidates == static_cast<double>(brute));
    // Every released k-gram is in V_k: prefix and suffix in S_{k-1}.
    privet::test::check_released_in_candidates(r, k, in_prev);
    CHECK(l.released == r.released(k).size());
    CHECK(l.spurious_trials == l.candidates_exact - l.support);
  }
  // The common phrases come out whole.
  const auto all = released_text(r);
  CHECK(all.count("the quick brown fox jumps over") == 1);
  CHECK(all.count("a stitch in time saves nine") == 1);
  // Nothing private: a word of one user has weight <= 1.
  for (const auto& g : all) CHECK(g.find("private") == std::string::npos);
}

TEST_CASE(
    "certify_pass: the pass probability within tolerance, the threshold raised only if needed") {
  using noise_type =
      privet::dpsu::fixed_point_noise<privet::dpsu::update_norm::l2, privet::secure_noise>;
  for (double sigma : {0.7, 3.0, 40.0}) {
    const noise_type noise(sigma);
    const std::int64_t tau = noise.to_units(2.3 * sigma);  // p about 0.01
    const double tol = dpne::detail::pass_probability_tolerance(0.01);
    const auto c = dpne::detail::certify_pass(noise, tau, tol);
    INFO("sigma = " << sigma);
    CHECK(c.tau == tau);
    CHECK(c.probability == noise.pass_probability(0, tau));
    CHECK(c.rate == -std::log1p(-c.probability));
    CHECK(c.error > 0);
    CHECK(c.error <= tol);
    // The bound covers the exact tail and the sampler's 1 - e^-rate.
    const auto exact = noise.pass_probability_bounds(0, tau);
    const auto used = privet::success_probability_bounds(c.rate);
    CHECK(static_cast<long double>(c.error) >= used.upper - exact.lower);
    CHECK(static_cast<long double>(c.error) >= exact.upper - used.lower);
    // A tolerance below what the bounds can certify at tau: the threshold
    // goes up (by max(1, |tau|) a step) until they can, and p falls with it.
    const double tight = 1e-4 * c.error;
    const auto raised = dpne::detail::certify_pass(noise, tau, tight);
    CHECK(raised.tau > tau);
    CHECK(raised.error <= tight);
    CHECK(raised.probability < c.probability);
    // The rule's steps double a positive threshold: tau 2^i.
    CHECK(raised.tau % tau == 0);
    CHECK(std::has_single_bit(static_cast<std::uint64_t>(raised.tau / tau)));
  }
  // A threshold below the noise's median (p near 1) still ends within tolerance.
  const noise_type noise(3.0);
  const auto low = dpne::detail::certify_pass(noise, noise.to_units(-20.0), 1e-20);
  CHECK(low.error <= 1e-20);
  CHECK(low.probability < 1);
}

TEST_CASE("spurious grams: drawn from V_k outside the support, and only those are unwritten") {
  text t = sample_text();
  dpne::parameters p;
  p.max_length = 5;
  p.max_ngrams = 1000;  // no user is cut, so the support is every valid gram written
  p.eta = 0.3;          // many spurious draws
  privet::testing::seeded_release_generator gen(3);
  const auto r = dpne::extract(t.corpus, t.vocabulary, p, gen);
  ngram_table truth = t.vocabulary;
  dpne::ngram_index index(t.corpus, truth, 5);
  std::uint64_t drawn = 0, unwritten = 0;
  for (std::size_t k = 2; k <= 5; ++k) {
    drawn += r.levels()[k - 1].spurious;
    for (auto g : r.released(k)) {
      const auto ws = r.vocabulary_words(g);
      ngram_table::id x = ws[0];
      bool written = true;
      for (std::size_t j = 1; written && j < ws.size(); ++j) {
        const auto next = truth.find_extension(x, ws[j]);
        written = next.has_value();
        if (written) x = *next;
      }
      unwritten += !written;
    }
  }
  CHECK(drawn > 0);
  CHECK(unwritten == drawn);
}

// The release's order must not tell a spurious gram from a written one:
// S_k was once the passing support in key order followed by the spurious
// grams in key order, so the descent between them marked the split.
template <class Noise>
void check_key_order() {
  text t = sample_text();
  dpne::parameters p;
  p.max_length = 5;
  p.max_ngrams = 1000;
  p.eta = 0.3;
  std::uint64_t spurious = 0, written = 0;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    privet::testing::seeded_release_generator gen(seed);
    const auto r = dpne::extract<Noise>(t.corpus, t.vocabulary, p, gen);
    for (std::size_t k = 2; k <= 5; ++k) {
      const auto& level = r.levels()[k - 1];
      CHECK(level.spurious_constant_time == std::same_as<Noise, privet::constant_time_noise>);
      spurious += level.spurious;
      written += level.released - level.spurious;
      const auto s = r.released(k);
      for (std::size_t i = 1; i < s.size(); ++i) {
        const auto key = [&](ngram_table::id g) {
          return std::pair{r.grams().prefix(g), r.grams().last_word(g)};
        };
        CHECK(key(s[i - 1]) < key(s[i]));
      }
    }
  }
  // Both kinds were released, so a split would have shown.
  CHECK(spurious > 10);
  CHECK(written > 10);
}

TEST_CASE("S_k is released in key order, whichever of its grams are spurious") {
  check_key_order<privet::constant_time_noise>();
  check_key_order<privet::secure_noise>();
  check_key_order<privet::simulation_only_noise>();
}

TEST_CASE("single-side pruning: V_k = S_{k-1} x S_1") {
  text t = sample_text();
  dpne::parameters p;
  p.max_length = 4;
  p.prune = dpne::pruning::single_side;
  privet::testing::seeded_release_generator gen(4);
  const auto r = dpne::extract(t.corpus, t.vocabulary, p, gen);
  const auto singles = r.released(1);
  const std::set<ngram_table::id> words_1(singles.begin(), singles.end());
  for (std::size_t k = 2; k <= 4; ++k) {
    const auto prev = r.released(k - 1);
    const std::set<ngram_table::id> in_prev(prev.begin(), prev.end());
    CHECK(r.levels()[k - 1].candidates_exact == prev.size() * singles.size());
    for (auto g : r.released(k)) {
      CHECK(in_prev.count(r.grams().prefix(g)) == 1);
      CHECK(words_1.count(r.grams().last_word(g)) == 1);
    }
  }
}

TEST_CASE("sampled |V_k|: the paper's estimate agrees with the count") {
  text t = sample_text();
  dpne::parameters p;
  p.max_length = 4;
  p.count = dpne::candidate_count::sampled;
  p.sample_fraction = 1;
  privet::testing::seeded_release_generator gen(5);
  const auto r = dpne::extract(t.corpus, t.vocabulary, p, gen);
  for (std::size_t k = 2; k <= 4; ++k) {
    const auto& l = r.levels()[k - 1];
    const double pairs =
        static_cast<double>(r.released(1).size()) * static_cast<double>(r.released(k - 1).size());
    if (pairs == 0) continue;
    CHECK(l.candidate_samples == static_cast<std::uint64_t>(pairs));
    // valid / draws is a binomial proportion around exact / pairs: 5.5 sd
    // (false alarm about 4e-8 each).
    const double q = static_cast<double>(l.candidates_exact) / pairs;
    const double sd = std::sqrt(q * (1 - q) / pairs) * pairs;
    CHECK(std::fabs(l.candidates - static_cast<double>(l.candidates_exact)) <= 5.5 * sd + 1e-9);
  }
}

TEST_CASE("a seeded extraction repeats, whatever the number of threads") {
  text t = sample_text();
  dpne::parameters p;
  p.max_length = 5;
  auto run = [&](unsigned threads) {
    p.threads = threads;
    privet::testing::seeded_release_generator gen(6);
    return released_text(dpne::extract(t.corpus, t.vocabulary, p, gen));
  };
  const auto one = run(1);
  CHECK(one.size() > 20);
  CHECK(run(2) == one);
  CHECK(run(4) == one);
}

TEST_CASE("one user alone releases nothing: its contribution is bounded") {
  text t;
  std::vector<std::string> lots;
  for (int i = 0; i < 500; ++i) lots.push_back("same words again and again " + std::to_string(i));
  t.user(lots);
  dpne::parameters p;
  p.max_length = 3;
  privet::testing::seeded_release_generator gen(7);
  const auto r = dpne::extract(t.corpus, t.vocabulary, p, gen);
  CHECK(r.total() == 0);
  // 504 distinct words, of which the user keeps Delta_0 = 100.
  CHECK(t.vocabulary.size() == 504);
  CHECK(r.levels()[0].support == 100);
}

TEST_CASE("baselines: DPSU-all, DPSU-even and DPSU-single spend the target") {
  text t = sample_text();
  ngram_table table = t.vocabulary;
  const dpne::ngram_index index(t.corpus, table, 5);
  dpne::parameters p;
  p.max_length = 5;
  privet::testing::seeded_release_generator gen(8);
  const auto all = dpne::dpsu_all(t.corpus, index, p, gen);
  const auto even = dpne::dpsu_even(t.corpus, index, p, gen);
  const auto single = dpne::dpsu_single(t.corpus, index, p, 3, gen);
  for (const auto* r : {&all, &even, &single}) {
    CHECK(r->privacy().spent.epsilon() <= 4);
    CHECK(r->privacy().spent.epsilon() >= 4 * (1 - 1e-6));
    CHECK(r->privacy().spent.delta() <= 1e-7 * (1 + 1e-12));
  }
  // DPSU-even: sigma* sqrt(T) on each length, thresholds at delta / (2 T).
  const long double star = zcdp_sigma(4, 5e-8);
  for (double s : even.privacy().sigmas) CHECK(std::fabs(s - star * std::sqrt(5.0L)) <= 1e-5L * s);
  for (const auto& l : even.levels()) {
    CHECK(l.threshold >= rho_gauss(100, l.sigma_sampled, 1e-8 * (1 - 1e-15)));
  }
  // DPSU-all keeps T Delta_0 = 500 grams per user.
  CHECK(all.levels()[0].threshold >= rho_gauss(500, all.levels()[0].sigma_sampled, 5e-8));
  CHECK(single.released(3).size() > 0);
  for (std::size_t k : {1u, 2u, 4u, 5u}) CHECK(single.released(k).empty());
  // Every baseline release is a written gram (ids of the index's table).
  for (std::size_t k = 1; k <= 5; ++k)
    for (auto g : all.released(k)) CHECK(table.length(g) == k);
  CHECK(all.total() > 0);
  CHECK(even.total() > 0);
}

TEST_CASE("errors name the parameter") {
  text t = sample_text();
  auto run = [&](dpne::parameters p) {
    privet::testing::seeded_release_generator gen(9);
    (void)dpne::extract(t.corpus, t.vocabulary, p, gen);
  };
  auto with = [](auto set) {
    dpne::parameters p;
    set(p);
    return p;
  };
  CHECK(rejected_parameter([&] { run(with([](auto& p) { p.epsilon = 0; })); }) == "epsilon");
  CHECK(rejected_parameter([&] { run(with([](auto& p) { p.delta = 1; })); }) == "delta");
  CHECK(rejected_parameter([&] { run(with([](auto& p) { p.max_length = 0; })); }) == "max_length");
  CHECK(rejected_parameter([&] { run(with([](auto& p) { p.max_length = 65; })); }) == "max_length");
  CHECK(rejected_parameter([&] { run(with([](auto& p) { p.max_ngrams = 0; })); }) == "max_ngrams");
  CHECK(rejected_parameter([&] { run(with([](auto& p) { p.eta = 1; })); }) == "eta");
  CHECK(rejected_parameter([&] { run(with([](auto& p) { p.decay = 0; })); }) == "decay");
  CHECK(rejected_parameter([&] { run(with([](auto& p) { p.decay = 1.5; })); }) == "decay");
  CHECK(rejected_parameter([&] { run(with([](auto& p) { p.sample_fraction = 0; })); }) ==
        "sample_fraction");
  CHECK(rejected_parameter([&] { run(with([](auto& p) { p.threads = 0; })); }) == "threads");

  dpne::corpus empty;
  const std::vector<ngram_table::id> some{0};
  CHECK(rejected_parameter([&] { empty.add_sequence(some); }) == "corpus");
  // A token that is not a word of the vocabulary is data, not refused: "a
  // token that is not a word ends its sentence" below.
  ngram_table table = t.vocabulary;
  const dpne::ngram_index short_index(t.corpus, table, 3);
  dpne::parameters p;
  p.max_length = 4;
  privet::testing::seeded_release_generator gen(2);
  CHECK(rejected_parameter([&] { (void)dpne::dpsu_all(t.corpus, short_index, p, gen); }) ==
        "max_length");
  text small;
  small.user({"a b"});
  CHECK(rejected_parameter([&] { (void)dpne::dpsu_even(small.corpus, short_index, p, gen); }) ==
        "index");
  p.max_length = 3;
  CHECK(rejected_parameter([&] { (void)dpne::dpsu_single(t.corpus, short_index, p, 0, gen); }) ==
        "length");
  CHECK(rejected_parameter([&] { (void)dpne::dpsu_single(t.corpus, short_index, p, 4, gen); }) ==
        "length");
  CHECK(rejected_parameter([&] { (void)short_index.at(0, 0); }) == "k");
  CHECK(rejected_parameter([&] { (void)short_index.at(1, t.corpus.tokens()); }) == "i");
  const auto r = dpne::dpsu_single(t.corpus, short_index, p, 2, gen);
  CHECK(rejected_parameter([&] { (void)r.released(0); }) == "k");
  try {
    run(with([](auto& p2) { p2.eta = 2; }));
    FAIL("expected invalid_parameter");
  } catch (const privet::invalid_parameter& e) {
    CHECK(std::string(e.what()) == "privet: eta = 2 is invalid; allowed: (0, 1)");
  }
}

TEST_CASE("DPNE messages name the parameter, its value and the allowed range") {
  using privet::invalid_parameter;
  const auto fails = [](auto set, const char* message) {
    dpne::parameters p;
    set(p);
    CHECK_THROWS_WITH_AS(p.validate(), message, invalid_parameter);
  };
  fails([](auto& p) { p.epsilon = 0; }, "privet: epsilon = 0 is invalid; allowed: finite and > 0");
  fails([](auto& p) { p.delta = 1; }, "privet: delta = 1 is invalid; allowed: (0, 1)");
  fails([](auto& p) { p.max_length = 0; }, "privet: max_length = 0 is invalid; allowed: >= 1");
  fails([](auto& p) { p.max_length = 65; }, "privet: max_length = 65 is invalid; allowed: [1, 64]");
  fails([](auto& p) { p.max_ngrams = 0; }, "privet: max_ngrams = 0 is invalid; allowed: >= 1");
  fails([](auto& p) { p.eta = 1; }, "privet: eta = 1 is invalid; allowed: (0, 1)");
  fails([](auto& p) { p.decay = 1.5; }, "privet: decay = 1.5 is invalid; allowed: (0, 1]");
  fails([](auto& p) { p.sample_fraction = 0; },
        "privet: sample_fraction = 0 is invalid; allowed: (0, 1]");
  fails([](auto& p) { p.threads = 0; }, "privet: threads = 0 is invalid; allowed: >= 1");
  // The extractor validates before calibrating.
  dpne::parameters bad;
  bad.eta = 0;
  CHECK_THROWS_WITH_AS(dpne::extractor<>{bad}, "privet: eta = 0 is invalid; allowed: (0, 1)",
                       invalid_parameter);

  dpne::corpus empty;
  const std::vector<ngram_table::id> some{0};
  CHECK_THROWS_WITH_AS(
      empty.add_sequence(some),
      "privet: corpus = no user is invalid; allowed: add_user() before add_sequence()",
      invalid_parameter);
  text small;
  small.user({"a b c"});
  ngram_table table = small.vocabulary;
  CHECK_THROWS_WITH_AS(dpne::ngram_index(small.corpus, table, 0),
                       "privet: max_length = 0 is invalid; allowed: >= 1", invalid_parameter);
  const dpne::ngram_index index(small.corpus, table, 2);
  CHECK_THROWS_WITH_AS((void)index.at(0, 0), "privet: k = 0 is invalid; allowed: [1, 2]",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((void)index.at(1, 3),
                       "privet: i = 3 is invalid; allowed: < 3 (the corpus's tokens)",
                       invalid_parameter);

  privet::testing::seeded_release_generator gen(4);
  dpne::parameters p;
  p.max_length = 2;
  text longer;
  longer.user({"a b c d"});
  CHECK_THROWS_WITH_AS((void)dpne::dpsu_all(longer.corpus, index, p, gen),
                       "privet: index = 3 is invalid; allowed: an index of this corpus (4 tokens)",
                       invalid_parameter);
  p.max_length = 3;
  CHECK_THROWS_WITH_AS((void)dpne::dpsu_even(small.corpus, index, p, gen),
                       "privet: max_length = 3 is invalid; allowed: <= the index's max_length = 2",
                       invalid_parameter);
  p.max_length = 2;
  CHECK_THROWS_WITH_AS((void)dpne::dpsu_single(small.corpus, index, p, 0, gen),
                       "privet: length = 0 is invalid; allowed: [1, max_length = 2]",
                       invalid_parameter);
  auto huge = p;
  huge.max_ngrams = std::uint64_t{1} << 63;
  CHECK_THROWS_WITH_AS((void)dpne::dpsu_all(small.corpus, index, huge, gen),
                       "privet: max_ngrams = 9223372036854775808 is invalid; allowed: T "
                       "max_ngrams < 2^64",
                       invalid_parameter);
  const auto r = dpne::dpsu_single<privet::simulation_only_noise>(small.corpus, index, p, 1, gen);
  REQUIRE(r.max_length() == 2);
  CHECK_THROWS_WITH_AS((void)r.released(3), "privet: k = 3 is invalid; allowed: [1, 2]",
                       invalid_parameter);
}

TEST_CASE("an index of another corpus with as many tokens is refused, naming what differs") {
  using privet::invalid_parameter;
  text small;
  small.user({"a b c"});  // words a = 0, b = 1, c = 2
  ngram_table table = small.vocabulary;
  const dpne::ngram_index index(small.corpus, table, 2);
  dpne::parameters p;
  p.max_length = 2;
  privet::testing::seeded_release_generator gen(5);
  // The same three tokens count, another word at token 1.
  dpne::corpus swapped;
  swapped.add_user();
  const std::vector<ngram_table::id> acb{0, 2, 1};
  swapped.add_sequence(acb);
  CHECK_THROWS_WITH_AS((void)dpne::dpsu_all(swapped, index, p, gen),
                       "privet: index = an index of another corpus is invalid; allowed: an index "
                       "of this corpus (token 1 is word 2 in the corpus but word 1 in the index)",
                       invalid_parameter);
  // The same words, split into two sequences (and two users).
  dpne::corpus split;
  split.add_user();
  const std::vector<ngram_table::id> ab{0, 1}, c{2};
  split.add_sequence(ab);
  split.add_user();
  split.add_sequence(c);
  CHECK_THROWS_WITH_AS(
      (void)dpne::dpsu_even(split, index, p, gen),
      "privet: index = an index of another corpus is invalid; allowed: an index "
      "of this corpus (token 1 ends a sequence in the corpus but not in the index)",
      invalid_parameter);
  const dpne::ngram_index split_index(split, table, 2);
  CHECK_THROWS_WITH_AS(
      (void)dpne::dpsu_single(small.corpus, split_index, p, 1, gen),
      "privet: index = an index of another corpus is invalid; allowed: an index "
      "of this corpus (token 1 ends a sequence in the index but not in the corpus)",
      invalid_parameter);
  // Its own corpus passes, whatever the users: the index does not record them.
  dpne::corpus regrouped;
  regrouped.add_user();
  regrouped.add_user();
  const std::vector<ngram_table::id> abc{0, 1, 2};
  regrouped.add_sequence(abc);
  CHECK_NOTHROW((void)dpne::dpsu_single(regrouped, index, p, 1, gen));
}

TEST_CASE("corpus accessors name the user or sequence past the end and the range") {
  using privet::invalid_parameter;
  dpne::corpus c;
  CHECK_THROWS_WITH_AS((void)c.first_sequence(0),
                       "privet: u = 0 is invalid; allowed: [0, users()) = [0, 0)",
                       invalid_parameter);
  c.add_user();
  const std::vector<ngram_table::id> a{1, 2};
  c.add_sequence(a);
  c.add_user();
  CHECK_THROWS_WITH_AS((void)c.first_sequence(2),
                       "privet: u = 2 is invalid; allowed: [0, users()) = [0, 2)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((void)c.end_sequence(2),
                       "privet: u = 2 is invalid; allowed: [0, users()) = [0, 2)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(c.for_each_sequence(5, [](std::size_t, std::size_t) {}),
                       "privet: u = 5 is invalid; allowed: [0, users()) = [0, 2)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((void)c.sequence_begin(1),
                       "privet: s = 1 is invalid; allowed: [0, sequences()) = [0, 1)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((void)c.sequence_end(1),
                       "privet: s = 1 is invalid; allowed: [0, sequences()) = [0, 1)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS((void)c.sequence(7),
                       "privet: s = 7 is invalid; allowed: [0, sequences()) = [0, 1)",
                       invalid_parameter);
  CHECK(c.end_sequence(1) == 1);
  CHECK(c.sequence(0).size() == 2);
}

TEST_CASE("ngram_index::user_ngrams refuses a length range outside the index before reading") {
  // It read ids_ at row k - 1 for every k in [shortest, longest] unchecked:
  // shortest = 0 read before the array, longest above max_length() after it.
  using privet::invalid_parameter;
  text small;
  small.user({"a b c"});
  ngram_table table = small.vocabulary;
  const dpne::ngram_index index(small.corpus, table, 2);
  std::vector<ngram_table::id> out;
  CHECK_THROWS_WITH_AS(index.user_ngrams(small.corpus, 0, 0, 1, out),
                       "privet: shortest = 0 is invalid; allowed: [1, max_length() = 2]",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(index.user_ngrams(small.corpus, 0, 1, 3, out),
                       "privet: longest = 3 is invalid; allowed: [shortest = 1, max_length() = 2]",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(index.user_ngrams(small.corpus, 0, 2, 1, out),
                       "privet: longest = 1 is invalid; allowed: [shortest = 2, max_length() = 2]",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(index.user_ngrams(small.corpus, 0, 3, 3, out),
                       "privet: shortest = 3 is invalid; allowed: [1, max_length() = 2]",
                       invalid_parameter);
  // A corpus with more tokens than the index read would run past each row.
  text longer;
  longer.user({"a b c d"});
  CHECK_THROWS_WITH_AS(index.user_ngrams(longer.corpus, 0, 1, 2, out),
                       "privet: text = 4 is invalid; allowed: the corpus the index was built "
                       "from (3 tokens)",
                       invalid_parameter);
  CHECK(out.empty());  // refused before anything was appended
  index.user_ngrams(small.corpus, 0, 2, 2, out);
  std::set<std::string> got;
  for (const auto g : out) got.insert(table.text(g));
  CHECK(got == std::set<std::string>{"a b", "b c"});
}

TEST_CASE("a default-constructed extraction names what it lacks instead of reading null") {
  using privet::invalid_parameter;
  const dpne::extraction e;
  CHECK(e.max_length() == 0);
  CHECK(e.total() == 0);
  CHECK(e.levels().empty());
  const char* message =
      "privet: extraction = default-constructed is invalid; allowed: an extraction made by "
      "extract, extractor, dpsu_all, dpsu_even or dpsu_single (it has no gram table)";
  CHECK_THROWS_WITH_AS((void)e.grams(), message, invalid_parameter);
  CHECK_THROWS_WITH_AS((void)e.released(1), message, invalid_parameter);
  CHECK_THROWS_WITH_AS((void)e.vocabulary_words(0), message, invalid_parameter);
  // Assigned a release, it is one.
  text small;
  small.user({"a b c"});
  dpne::parameters p;
  p.max_length = 2;
  privet::testing::seeded_release_generator gen(3);
  dpne::extraction r;
  r = dpne::extract(small.corpus, small.vocabulary, p, gen);
  CHECK(r.max_length() == 2);
  CHECK_NOTHROW((void)r.grams());
  CHECK_NOTHROW((void)r.released(2));
}
namespace {

constexpr ngram_table::id not_a_word = ~ngram_table::id{0} - 1;  // far beyond any vocabulary

// sample_text's users, with a token that is not a word inside the first
// phrase ("the quick brown fox <t> jumps over the lazy dog"), or that phrase
// split into two sentences at the same place. Built afresh, not copied: a
// copied ngram_table's spellings point into the table it was copied from.
text with_boundaries(bool split, ngram_table::id token) {
  text t;
  auto add = [&](const std::string& s) {
    std::vector<ngram_table::id> ids;
    std::istringstream in(s);
    for (std::string w; in >> w;) ids.push_back(w == "<t>" ? token : t.vocabulary.word(w));
    t.corpus.add_sequence(ids);
  };
  const std::vector<std::string> phrases{"a stitch in time saves nine", "the lazy cat sleeps",
                                         "over the moon and back again"};
  for (int u = 0; u < 3000; ++u) {
    t.corpus.add_user();
    if (u % 2 == 0) {
      if (split) {
        add("the quick brown fox");
        add("jumps over the lazy dog");
      } else {
        add("the quick brown fox <t> jumps over the lazy dog");
      }
    }
    if (u % 3 == 0) add(phrases[0]);
    if (u % 25 == 0) add(phrases[1]);
    if (u % 7 == 0) add(phrases[2]);
    add("private" + std::to_string(u) + " the quick fox word" + std::to_string(u % 50));
  }
  return t;
}

std::vector<std::vector<std::string>> released_by_length(const dpne::extraction& r) {
  std::vector<std::vector<std::string>> out(r.max_length());
  for (std::size_t k = 1; k <= r.max_length(); ++k)
    for (auto g : r.released(k)) out[k - 1].push_back(words(r, g));
  return out;
}

}  // namespace

TEST_CASE("a token that is not a word ends its sentence: DPNE releases as at a sentence end") {
  // Known answer of the rule (corpus, dpne.hpp): the corpus with the token
  // and the corpus split there release the same sets with the same seed,
  // for a token beyond the vocabulary, the largest id, and the id of a
  // 2-gram of the vocabulary (a gram, not a word).
  dpne::parameters p;
  p.max_length = 5;
  p.max_ngrams = 20;
  const text split = with_boundaries(true, 0);
  privet::testing::seeded_release_generator g0(31);
  const auto expected = dpne::extract(split.corpus, split.vocabulary, p, g0);
  REQUIRE(released_text(expected).count("the quick brown fox") == 1);
  REQUIRE(released_text(expected).count("jumps over the lazy dog") == 1);
  ngram_table with_gram = split.vocabulary;
  const auto gram = with_gram.extend(*with_gram.find_word("fox"), *with_gram.find_word("jumps"));
  for (const auto token : {not_a_word, ~ngram_table::id{0},
                           static_cast<ngram_table::id>(split.vocabulary.size()), gram}) {
    CAPTURE(token);
    const text t = with_boundaries(false, token);
    const ngram_table& vocabulary = token == gram ? with_gram : t.vocabulary;
    privet::testing::seeded_release_generator gen(31);
    dpne::extraction got;
    CHECK_NOTHROW(got = dpne::extract(t.corpus, vocabulary, p, gen));
    CHECK(released_by_length(got) == released_by_length(expected));
    // Nothing crosses the token: "fox jumps" is in no release.
    for (const auto& g : released_text(got)) CHECK(g.find("fox jumps") == std::string::npos);
    CHECK(got.levels()[0].occurrences == expected.levels()[0].occurrences);
  }
}

TEST_CASE("a token that is not a word ends its sentence in ngram_index and the baselines") {
  text small;
  small.user({"a b c d"});  // a = 0, b = 1, c = 2, d = 3
  dpne::corpus with_token;
  with_token.add_user();
  const std::vector<ngram_table::id> tokens{0, 1, not_a_word, 2, 3};
  with_token.add_sequence(tokens);
  ngram_table table = small.vocabulary;
  const dpne::ngram_index index(with_token, table, 3);
  CHECK(index.at(1, 2) == dpne::ngram_index::none);
  CHECK(index.at(2, 1) == dpne::ngram_index::none);  // b <token> is not formed
  CHECK(index.at(3, 0) == dpne::ngram_index::none);
  CHECK(table.text(index.at(2, 0)) == "a b");
  CHECK(table.text(index.at(2, 3)) == "c d");
  std::vector<ngram_table::id> grams;
  index.user_ngrams(with_token, 0, 1, 3, grams);
  std::set<std::string> got;
  for (const auto g : grams) got.insert(table.text(g));
  CHECK(got == std::set<std::string>{"a", "b", "c", "d", "a b", "c d"});

  // The baselines accept the index of this corpus and release from it.
  dpne::parameters p;
  p.max_length = 3;
  privet::testing::seeded_release_generator gen(6);
  CHECK_NOTHROW((void)dpne::dpsu_all(with_token, index, p, gen));
  CHECK_NOTHROW((void)dpne::dpsu_even(with_token, index, p, gen));
  CHECK_NOTHROW((void)dpne::dpsu_single(with_token, index, p, 2, gen));
  // An index that read a word where this corpus has a non-word, and the
  // other way round, is still another corpus's.
  ngram_table plain_table = small.vocabulary;
  dpne::corpus plain;
  plain.add_user();
  const std::vector<ngram_table::id> five{0, 1, 2, 3, 0};
  plain.add_sequence(five);
  const dpne::ngram_index plain_index(plain, plain_table, 3);
  CHECK_THROWS_WITH_AS((void)dpne::dpsu_all(with_token, plain_index, p, gen),
                       "privet: index = an index of another corpus is invalid; allowed: an index "
                       "of this corpus (token 2 is word 4294967294 in the corpus but word 2 in "
                       "the index)",
                       privet::invalid_parameter);
  ngram_table table2 = small.vocabulary;
  const dpne::ngram_index token_index(with_token, table2, 3);
  CHECK_THROWS_WITH_AS((void)dpne::dpsu_all(plain, token_index, p, gen),
                       "privet: index = an index of another corpus is invalid; allowed: an index "
                       "of this corpus (token 2 is word 2 in the corpus but not a word in the "
                       "index)",
                       privet::invalid_parameter);
}

TEST_CASE("neighbours with tokens that are not words both release, DPNE and the baselines") {
  // Issue 22: D released and D plus a user with such a token threw. D and
  // its user-level neighbours (a user added whose text holds tokens that are
  // not words, and a user's text given such a token) all release now.
  const text base = sample_text();
  const auto n = static_cast<ngram_table::id>(base.vocabulary.size());
  auto run_all = [](const text& t) {
    dpne::parameters p;
    p.max_length = 4;
    p.max_ngrams = 20;
    privet::testing::seeded_release_generator gen(8);
    (void)dpne::extract(t.corpus, t.vocabulary, p, gen);
    ngram_table table = t.vocabulary;
    const dpne::ngram_index index(t.corpus, table, 4);
    (void)dpne::dpsu_all(t.corpus, index, p, gen);
    (void)dpne::dpsu_even(t.corpus, index, p, gen);
    (void)dpne::dpsu_single(t.corpus, index, p, 2, gen);
  };
  CHECK_NOTHROW(run_all(base));
  text added = base;
  added.corpus.add_user();
  const std::vector<ngram_table::id> odd{n, 0, ~ngram_table::id{0}, 1, 2, n + 7, not_a_word};
  added.corpus.add_sequence(odd);
  const std::vector<ngram_table::id> only_odd{n, n};
  added.corpus.add_sequence(only_odd);
  CHECK_NOTHROW(run_all(added));
  // The same users with the first user's text replaced by one with such tokens.
  text replaced;
  replaced.vocabulary = base.vocabulary;
  for (std::size_t u = 0; u < base.corpus.users(); ++u) {
    replaced.corpus.add_user();
    if (u == 0) {
      replaced.corpus.add_sequence(odd);
      continue;
    }
    for (std::size_t q = base.corpus.first_sequence(u); q < base.corpus.end_sequence(u); ++q)
      replaced.corpus.add_sequence(base.corpus.sequence(q));
  }
  CHECK_NOTHROW(run_all(replaced));
  // A vocabulary that holds none of the corpus's words releases nothing.
  text foreign = base;
  foreign.vocabulary = ngram_table{};
  foreign.vocabulary.word("only");
  dpne::parameters p;
  privet::testing::seeded_release_generator gen(1);
  dpne::extraction r;
  CHECK_NOTHROW(r = dpne::extract(foreign.corpus, foreign.vocabulary, p, gen));
  CHECK(r.released(2).empty());
}
