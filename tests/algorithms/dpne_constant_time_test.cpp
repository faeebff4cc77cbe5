// DPNE and its baselines with constant_time_noise (issue 36): the spent
// guarantee is the exact steps' composition raised by (1 + e^eps) TV, TV =
// sum over the levels of 2^64 tau_k, checked against a second computation of
// TV in long double from the samplers' own bounds; the target is met; the
// releases are valid as in dpne_test; and every level's noise draws the same
// number of CSPRNG words whatever the weight. dpne_statistical_test checks
// the constant-time extraction's output law.
#include <privet/algorithms/dpne.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/mechanisms/constant_time_noise.hpp>

#include <doctest/doctest.h>
#include <support/counting_generator.hpp>
#include <support/dpne_text.hpp>
#include <support/errors.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace dpne = privet::dpne;
namespace dpsu = privet::dpsu;
using ct = privet::constant_time_noise;
using privet::ngram_table;
using privet::test::rejected_parameter;
using ct_noise = dpsu::fixed_point_noise<dpsu::update_norm::l2, ct>;

using privet::test::counting_release_generator;

namespace {

// The shared corpus (tests/support/dpne_text.hpp).
using text = privet::test::dpne_text;
inline text sample_text() {
  return privet::test::dpne_sample_text();
}

// The pass probabilities' share of TV: Delta_0 (2^-48 eta + 2^-70) at each
// level k >= 2 (dpne.hpp's file comment), for exact noise too.
long double pass_tv(const dpne::parameters& p) {
  return static_cast<long double>(p.max_length - 1) * static_cast<long double>(p.max_ngrams) *
         (std::ldexp(static_cast<long double>(p.eta), -48) + 0x1p-70L);
}

// TV = sum_k 2^64 tau_k in long double, tau_k of the constant-time sampler
// at sigma_k in the fixed point's units (built here from the sigmas alone),
// plus, for DPNE (not the baselines, which draw no spurious grams), the
// spurious count's 2^-98 at each level k >= 2.
long double levels_tv(const std::vector<double>& sigmas, bool spurious = true) {
  long double tv = spurious ? static_cast<long double>(sigmas.size() - 1) * 0x1p-98L : 0;
  for (double s : sigmas) {
    const ct_noise n(s);
    const privet::constant_time_discrete_gaussian sampler(
        std::ldexp(s, static_cast<int>(n.scale_bits())));
    tv += 0x1p64L * sampler.total_variation_bound();
  }
  return tv;
}

}  // namespace

static_assert(std::is_same_v<dpne::extractor<ct>::guarantee_type, privet::within_tv<privet::zcdp>>);

TEST_CASE("constant-time DPNE spends the exact steps' guarantee raised by (1 + e^eps) TV") {
  dpne::parameters p;
  p.max_length = 6;
  const dpne::extractor<ct> x(p);
  const dpne::extractor<privet::secure_noise> exact(p);
  const auto& pr = x.privacy();
  REQUIRE(pr.sigmas.size() == 6);
  // The halves are (delta - share) / 2, the share tiny against delta.
  const double half = x.threshold_delta();
  CHECK(exact.threshold_delta() < 5e-8);
  CHECK(exact.threshold_delta() > half);
  CHECK(half < 5e-8);
  CHECK(half > 5e-8 * (1 - 1e-3));
  for (std::size_t k = 0; k < 6; ++k) {
    CHECK(pr.sigmas[k] >= exact.privacy().sigmas[k]);
    CHECK(pr.sigmas[k] <= exact.privacy().sigmas[k] * (1 + 1e-6));
  }
  // The exact steps' (eps, 2 half), by zCDP composition and Corollary 13.
  std::vector<privet::zcdp> steps;
  for (double s : pr.sigmas) steps.push_back(ct_noise(s).guarantee().base());
  const privet::approx_dp e = privet::compose_basic(
      {privet::to_approx_dp(privet::compose(steps), half), privet::approx_dp(0, half)});
  CHECK(pr.spent.epsilon() == e.epsilon());
  const long double tv = levels_tv(pr.sigmas) + pass_tv(p);
  CHECK(static_cast<long double>(pr.total_variation) >= tv * (1 - 1e-15L));
  CHECK(static_cast<long double>(pr.total_variation) <= tv * (1 + 1e-15L));
  // Exact noise pays for the pass probabilities alone.
  CHECK(static_cast<long double>(exact.privacy().total_variation) >= pass_tv(p) * (1 - 1e-15L));
  CHECK(static_cast<long double>(exact.privacy().total_variation) <= pass_tv(p) * (1 + 1e-15L));
  {
    // Its spent delta: both halves, plus (1 + e^eps) times that distance.
    const privet::approx_dp es = exact.privacy().spent;
    const long double want_exact =
        2.0L * exact.threshold_delta() +
        (1 + std::exp(static_cast<long double>(es.epsilon()))) * pass_tv(p);
    CHECK(static_cast<long double>(es.delta()) >= want_exact * (1 - 1e-12L));
    CHECK(static_cast<long double>(es.delta()) <= want_exact * (1 + 1e-12L));
    CHECK(es.delta() <= p.delta);
    // A delta that cannot hold it, about 2 (1 + e^4) 5 100 2^-48 0.01 =
    // 2e-12, is refused by name.
    dpne::parameters small = p;
    small.delta = 1e-13;
    CHECK(rejected_parameter([&] { dpne::extractor<privet::secure_noise>{small}; }) == "delta");
  }
  const long double want = static_cast<long double>(e.delta()) +
                           (1 + std::exp(static_cast<long double>(e.epsilon()))) * tv;
  CHECK(static_cast<long double>(pr.spent.delta()) >= want * (1 - 1e-15L));
  CHECK(static_cast<long double>(pr.spent.delta()) <= want * (1 + 1e-15L));
  // The target is met.
  CHECK(pr.spent.epsilon() <= p.epsilon);
  CHECK(pr.spent.epsilon() >= p.epsilon * (1 - 1e-6));
  CHECK(pr.spent.delta() <= p.delta);
  CHECK(pr.method.find("constant-time") != std::string::npos);
  // A delta that cannot hold the samplers' share, about 2 (1 + e^4) 6 2^64
  // tau = 6e-14, is refused by name.
  dpne::parameters tiny = p;
  tiny.delta = 1e-14;
  CHECK(rejected_parameter([&] { dpne::extractor<ct>{tiny}; }) == "delta");
}

TEST_CASE("constant-time DPNE releases are valid, the phrases whole and nothing private") {
  text t = sample_text();
  dpne::parameters p = privet::test::dpne_sample_parameters();
  privet::testing::seeded_release_generator gen(2);
  const auto r = dpne::extract<ct>(t.corpus, t.vocabulary, p, gen);
  REQUIRE(r.levels().size() == 6);
  CHECK(r.released(1).size() > 10);
  for (std::size_t k = 2; k <= 6; ++k) {
    const auto prev = r.released(k - 1);
    const std::set<ngram_table::id> in_prev(prev.begin(), prev.end());
    INFO("k = " << k);
    privet::test::check_released_in_candidates(r, k, in_prev);
  }
  std::set<std::string> all;
  for (std::size_t k = 1; k <= r.max_length(); ++k)
    for (auto g : r.released(k)) all.insert(r.grams().text(g));
  CHECK(all.count("the quick brown fox jumps over") == 1);
  CHECK(all.count("a stitch in time saves nine") == 1);
  for (const auto& g : all) CHECK(g.find("private") == std::string::npos);
}

TEST_CASE("constant-time baselines: DPSU-all, DPSU-even and DPSU-single meet the target") {
  text t = sample_text();
  ngram_table table = t.vocabulary;
  const dpne::ngram_index index(t.corpus, table, 5);
  dpne::parameters p;
  p.max_length = 5;
  privet::testing::seeded_release_generator gen(8);
  const auto all = dpne::dpsu_all<ct>(t.corpus, index, p, gen);
  const auto even = dpne::dpsu_even<ct>(t.corpus, index, p, gen);
  const auto single = dpne::dpsu_single<ct>(t.corpus, index, p, 3, gen);
  for (const auto* r : {&all, &even, &single}) {
    CHECK(r->privacy().spent.epsilon() <= 4);
    CHECK(r->privacy().spent.epsilon() >= 4 * (1 - 1e-6));
    CHECK(r->privacy().spent.delta() <= 1e-7);
    CHECK(r->privacy().spent.delta() > 1e-7 * (1 - 1e-3));
    CHECK(r->privacy().total_variation > 0);
  }
  // DPSU-even noises T = 5 histograms, DPSU-all one: TV = sum of 2^64 tau.
  const long double even_tv = levels_tv(even.privacy().sigmas, false);
  CHECK(static_cast<long double>(even.privacy().total_variation) >= even_tv * (1 - 1e-15L));
  CHECK(static_cast<long double>(even.privacy().total_variation) <= even_tv * (1 + 1e-15L));
  // DPSU-all reports the sampler's rounded-up sigma, not the one it was
  // built from, so its tau is recomputed only to 1e-3.
  const long double all_tv = levels_tv(all.privacy().sigmas, false);
  CHECK(static_cast<long double>(all.privacy().total_variation) >= all_tv * (1 - 1e-3L));
  CHECK(static_cast<long double>(all.privacy().total_variation) <= all_tv * (1 + 1e-3L));
  CHECK(all.total() > 0);
  CHECK(even.total() > 0);
  CHECK(single.released(3).size() > 0);
}

TEST_CASE("constant-time level noise draws the same CSPRNG words whatever the weight") {
  const dpne::extractor<ct> x(dpne::parameters{});
  for (double s : x.privacy().sigmas) {
    const ct_noise n(s);
    const privet::constant_time_discrete_gaussian sampler(
        std::ldexp(s, static_cast<int>(n.scale_bits())));
    const std::int64_t tau = n.to_units(2.5 * s);
    counting_release_generator gen(31);
    std::set<std::uint64_t> words;
    for (std::int64_t w : {std::int64_t{0}, tau - 1, tau, tau + 1, std::int64_t{1} << 40,
                           std::numeric_limits<std::int64_t>::max()}) {
      for (int i = 0; i < 50; ++i) {
        const std::uint64_t before = gen.calls();
        (void)n.passes(w, tau, gen);
        words.insert(gen.calls() - before);
      }
    }
    CHECK(words.size() == 1);
    CHECK(*words.begin() == static_cast<std::uint64_t>(sampler.words_per_sample()));
  }
}

TEST_CASE(
    "a constant-time level draws the same CSPRNG words whatever passes and whatever is spurious") {
  // One level (dpne::detail::constant_time_level) on V_k = 40 x 50 grams in
  // one middle, with the same seed on two supports of the same size: one
  // whose weights are far below the threshold, one of other grams whose
  // weights are far above it. What passes differs completely, and so do the
  // spurious grams (the support's members are dropped from the same Poisson
  // sample of V_k), but nothing draws a word because of a coin or a
  // membership, so the words drawn are the same, seed by seed.
  struct middle {
    std::vector<privet::dpne::gram_id> left, right;
  };
  std::vector<middle> middles(1);
  for (privet::dpne::gram_id g = 0; g < 40; ++g) middles[0].left.push_back(g);
  for (privet::dpne::gram_id g = 0; g < 50; ++g) middles[0].right.push_back(100 + g);
  const std::vector<std::uint64_t> cumulative = {40 * 50};
  const ct_noise noise(1.0);
  const std::int64_t tau = noise.to_units(2.0);
  const double rate = -std::log1p(-noise.pass_probability(0, tau));  // p about 0.023
  // 320 grams: 8 right words for each left word, from `first` on.
  const auto support_with = [&](std::int64_t weight, privet::dpne::gram_id first) {
    std::vector<std::pair<std::uint64_t, std::int64_t>> s;
    for (privet::dpne::gram_id x = 0; x < 40; ++x) {
      for (privet::dpne::gram_id z = 0; z < 8; ++z) {
        s.emplace_back(privet::dpne::detail::pack(x, 100 + first + z), weight);
      }
    }
    return s;  // sorted by key
  };
  const auto low = support_with(0, 0), high = support_with(noise.to_units(1e6), 30);
  std::uint64_t differ = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    counting_release_generator g1(seed), g2(seed);
    dpne::level_report r1, r2;
    const auto out1 =
        dpne::detail::constant_time_level(low, noise, tau, rate, middles, cumulative, 2000, r1, g1);
    const auto out2 = dpne::detail::constant_time_level(high, noise, tau, rate, middles, cumulative,
                                                        2000, r2, g2);
    CAPTURE(seed);
    CHECK(g1.calls() == g2.calls());
    CHECK(r1.spurious_constant_time);
    // All of the high support passes; the low one seldom does.
    CHECK(out2.size() == high.size() + r2.spurious);
    CHECK(out1.size() < low.size() / 10 + r1.spurious);
    CHECK(std::is_sorted(out1.begin(), out1.end()));
    CHECK(std::is_sorted(out2.begin(), out2.end()));
    differ += r1.spurious != r2.spurious;
  }
  // The same Poisson sample (about 46 of 2000 at p = 0.023) loses other
  // members to the two supports, so the spurious counts differ.
  CHECK(differ > 10);
}
