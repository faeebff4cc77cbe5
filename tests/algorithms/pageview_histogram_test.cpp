// The pageview histogram: bounding against adversarial actors, a released
// key set that depends only on public data, per-page noise independent of
// how pages are split (the distributed-run property), the guarantee from
// the privacy maps, and the spurious rate against its formula.
#include <privet/algorithms/pageview_histogram.hpp>
#include <privet/algorithms/release_utility.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <vector>

namespace pv = privet::pageview;

namespace {

pv::page_counts public_views(std::uint64_t pages, std::int64_t views) {
  pv::page_counts out;
  for (std::uint64_t p = 0; p < pages; ++p) out.add({p, static_cast<std::uint32_t>(p % 3)}, views);
  return out;
}

}  // namespace

TEST_CASE("no actor contributes more than k tuples, each once") {
  // Adversarial actors: actor 1 views 1000 distinct tuples 5 times each;
  // actor 2 views one tuple 10^4 times; actor 3 views 4 tuples.
  std::vector<pv::view> views;
  for (int rep = 0; rep < 5; ++rep)
    for (std::uint64_t p = 0; p < 1000; ++p) views.push_back({1, {p, 0, 7}});
  for (int i = 0; i < 10'000; ++i) views.push_back({2, {5, 0, 7}});
  for (std::uint64_t p = 0; p < 4; ++p) views.push_back({3, {p, 1, 2}});
  privet::testing::seeded_release_generator gen(11);
  const pv::histogram<> h(pv::parameters<>{}, 200);
  const auto counts = h.bounded_counts(views, gen);
  std::int64_t total = 0;
  for (const auto& [key, c] : counts.sorted_by_key()) {
    CHECK(c >= 1);
    total += c;
  }
  // k = 10 from actor 1, 1 from actor 2, 4 from actor 3.
  CHECK(total == 15);
  CHECK(counts[pv::tuple_key{5, 0, 7}] <= 2);
  for (std::uint64_t p = 0; p < 4; ++p) CHECK(counts[pv::tuple_key{p, 1, 2}] == 1);

  // Client-side bounding counts rows as given, with the same stability.
  const pv::histogram<pv::client_bounded> trusted(pv::parameters<>{}, 200);
  const auto raw = trusted.bounded_counts(views, gen);
  CHECK(raw[pv::tuple_key{5, 0, 7}] == 10'000 + 5);
  CHECK(trusted.guarantee() == h.guarantee());
}

TEST_CASE("the released key set depends only on public data") {
  // With no suppression every candidate x country cell is released, for any
  // private data; the candidates come from public counts >= t only.
  pv::parameters<> p;
  p.release_threshold = std::numeric_limits<std::int64_t>::min();
  const pv::histogram<> h(p, 5);
  auto pub = public_views(20, 200);
  pub.add({100, 0}, 149);  // below t = 150: not a candidate
  std::vector<pv::view> a{{1, {3, 0, 1}}, {2, {3, 0, 1}}}, b{{9, {100, 0, 4}}};
  privet::testing::seeded_release_generator gen(5);
  const auto streams = privet::testing::seeded_keyed_streams(1);
  const auto ra = h(a, pub, streams, gen);
  const auto rb = h(b, pub, streams, gen);
  REQUIRE(ra.size() == 20 * 5);
  REQUIRE(rb.size() == ra.size());
  for (std::size_t i = 0; i < ra.size(); ++i) CHECK(ra[i].first == rb[i].first);
  // Same keys, same noise: only the true counts differ (cell <3, 0, 1>).
  for (std::size_t i = 0; i < ra.size(); ++i) {
    const auto& t = ra[i].first;
    const std::int64_t diff = t == pv::tuple_key{3, 0, 1} ? 2 : 0;
    CHECK(ra[i].second - rb[i].second == diff);
  }
}

TEST_CASE("each page's noise depends only on the page and the secret") {
  // A distributed run gives each rank a subset of the pages; the union of
  // their releases must equal the single-process release.
  pv::parameters<> p;
  p.release_threshold = -1000;
  const pv::histogram<> h(p, 30);
  const auto pub = public_views(40, 1000);
  pv::tuple_counts counts;
  for (std::uint64_t page = 0; page < 40; ++page)
    counts.add({page, static_cast<std::uint32_t>(page % 3), 2}, 50);
  const auto streams = privet::testing::seeded_keyed_streams(99);
  const auto all = h.release(counts, pub, streams);
  const auto pages = pv::candidate_pages(pub, p.candidate_threshold);
  std::vector<pv::page_key> odd, even;
  for (std::size_t i = 0; i < pages.size(); ++i) (i % 2 ? odd : even).push_back(pages[i]);
  std::reverse(odd.begin(), odd.end());
  auto split = h.release_pages(counts, odd, streams);
  const auto rest = h.release_pages(counts, even, streams);
  split.insert(split.end(), rest.begin(), rest.end());
  std::sort(split.begin(), split.end());
  CHECK(split == all);
  // Another secret gives other noise.
  CHECK(h.release(counts, pub, privet::testing::seeded_keyed_streams(100)) != all);
}

TEST_CASE("the guarantee comes from the privacy maps") {
  // Default: rho = 0.015 with L2 sensitivity sqrt(10): sigma^2 = 10 / 0.03.
  const pv::histogram<> h(pv::parameters<>{}, 250);
  CHECK(h.guarantee().rho() <= 0.015);
  CHECK(h.guarantee().rho() >= 0.015 * (1 - 1e-12));
  CHECK(h.mechanism().distribution().sigma2() == doctest::Approx(1000.0 / 3).epsilon(1e-12));
  // Two actors: the bounding's stability is {2k cells, 2 per cell}, whose
  // L2 bound sqrt(2k) * 2 gives rho = 0.12; this is an upper bound (group
  // privacy gives 4 rho = 0.06, since the L1 of 2k forces fewer cells at 2).
  CHECK(h.guarantee(2).rho() == doctest::Approx(0.12).epsilon(1e-12));
  // Pure DP option: discrete Laplace with L1 sensitivity k = 10.
  using laplace_histogram =
      pv::histogram<pv::bound_per_actor, privet::discrete_laplace_mechanism<std::int64_t>>;
  pv::parameters<privet::pure_dp> pp;
  const laplace_histogram l(pp, 250);
  CHECK(l.guarantee().epsilon() <= 1.0);
  CHECK(l.guarantee().epsilon() >= 1.0 * (1 - 1e-12));
}

TEST_CASE("zero cells are published at the rate of the noise's tail") {
  // 300 candidate pages x 100 countries, all true counts 0, tau = 20: each
  // cell is published independently with p = P[Z >= 20], Z the discrete
  // Gaussian with sigma^2 = 1000 / 3 (p from its pmf). The count is checked
  // against p within 4.9 binomial standard deviations (two-sided false-alarm
  // rate 1e-6, fixed secret).
  pv::parameters<> params;
  params.release_threshold = 20;
  const pv::histogram<> h(params, 100);
  const auto pub = public_views(300, 500);
  const auto released =
      h.release(pv::tuple_counts{}, pub, privet::testing::seeded_keyed_streams(3));
  double p = 0;
  for (std::int64_t x = 20; x < 1000; ++x) p += h.mechanism().distribution().pmf(x);
  const double n = 300 * 100;
  const double sd = std::sqrt(n * p * (1 - p));
  CAPTURE(p);
  CHECK(std::fabs(static_cast<double>(released.size()) - n * p) <= 4.9 * sd);
  const auto u = privet::utility(pv::tuple_counts{}, released);
  CHECK(u.spurious == released.size());
  CHECK(u.spurious_rate() == 1.0);
  CHECK(std::isnan(u.drop_rate()));
}

TEST_CASE("bad pageview parameters throw, naming them") {
  using privet::invalid_parameter;
  pv::parameters<> p;
  p.k = 0;
  CHECK_THROWS_WITH_AS(pv::histogram<>(p, 10), "privet: max_keys = 0 is invalid; allowed: >= 1",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(pv::histogram<pv::client_bounded>(p, 10),
                       "privet: k = 0 is invalid; allowed: >= 1", invalid_parameter);
  CHECK_THROWS_WITH_AS(pv::histogram<>(pv::parameters<>{}, 0),
                       "privet: countries = 0 is invalid; allowed: [1, 65536]", invalid_parameter);
  CHECK_THROWS_AS(pv::histogram<>(pv::parameters<>{}, 65537), invalid_parameter);
}

TEST_CASE("pageview messages for the country count and the stability overflow") {
  CHECK_THROWS_WITH_AS(pv::histogram<>(pv::parameters<>{}, 65537),
                       "privet: countries = 65537 is invalid; allowed: [1, 65536]",
                       privet::invalid_parameter);
  const pv::client_bounded b(std::uint64_t{1} << 33);
  CHECK(b.stability(std::uint64_t{1} << 30).partitions == std::uint64_t{1} << 63);
  CHECK_THROWS_WITH_AS((void)b.stability(std::uint64_t{1} << 31),
                       "privet: client_bounded stability d_in * k overflows 64 bits",
                       privet::overflow_error);
}

// Issue 22: a view's country is data. A view of a country outside the list
// is never released (like a view of a non-candidate page) and never makes
// the release throw: D and D + {that view} both release, and identically
// when the noise streams are the same (the extra cell is outside the
// released domain).
TEST_CASE("a view of a country outside the list is not released and never throws") {
  const pv::histogram<> h(pv::parameters<>{}, 5);
  const auto pub = public_views(20, 200);
  std::vector<pv::view> views;
  for (std::uint64_t a = 0; a < 300; ++a) views.push_back({a, {3, 0, 1}});
  auto neighbour = views;
  neighbour.push_back({1000, {3, 0, 5}});  // country 5 of 0..4, a new actor
  neighbour.push_back({1001, {3, 0, 65535}});
  const auto streams = privet::testing::seeded_keyed_streams(1);
  std::vector<pv::release_row> a, b;
  CHECK_NOTHROW(a = h(views, pub, streams));
  CHECK_NOTHROW(b = h(neighbour, pub, streams));
  CHECK(a == b);
  // The 300 views of (page 3, country 1) pass tau = 90 (sigma 18.3: a false
  // alarm below 1e-30), and no released cell names country 5.
  bool found = false;
  for (const auto& [t, c] : b) {
    CHECK(t.country < 5);
    found = found || (t.page == 3 && t.country == 1);
  }
  CHECK(found);
}
