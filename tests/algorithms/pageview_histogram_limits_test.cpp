// Resource limits of the pageview histogram's contribution bounding
// (privet/algorithms/pageview_histogram.hpp): an actor with 10^7 views,
// read lazily, contributes exactly k distinct tuples, each once, in memory
// that follows actors x k, not the views.
#include <privet/algorithms/pageview_histogram.hpp>
#include <privet/core/detail/lazy_range.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>

#include <doctest/doctest.h>
#include <support/memory.hpp>

#include <cstdint>
#include <ranges>

namespace pageview = privet::pageview;
using privet::test::mebibyte;
using privet::test::peak_rss_probe;

TEST_CASE("an actor with 10^7 views, read lazily, contributes k tuples once each") {
  constexpr std::uint64_t views = 10'000'000;
  // Actor 1 views 5000 distinct pages over and over; every 1000th view is
  // actor 2's, who views pages 900000 + (0..2).
  const auto day = privet::detail::generated(views, [](std::uint64_t i) {
    if (i % 1000 == 999) {
      return pageview::view{2, {900'000 + i % 3, 0, 1}};
    }
    return pageview::view{1, {(i * 7) % 5000, 0, 0}};
  });
  const pageview::histogram<> h(pageview::parameters<privet::zcdp>{}, 2);  // k = 10
  privet::testing::seeded_release_generator gen(4);
  const peak_rss_probe probe;
  const pageview::tuple_counts counts = h.bounded_counts(day, gen);
  const std::size_t growth = probe.growth();

  // The bound: actor 1 keeps k = 10 of its 5000 tuples, actor 2 its 3; each once.
  REQUIRE(counts.size() == 13);
  std::size_t actor1 = 0, actor2 = 0;
  for (const auto& [tuple, c] : counts) {
    CHECK(c == 1);
    if (tuple.country == 0) {
      ++actor1;
      CHECK(tuple.page < 5000);
    } else {
      ++actor2;
      CHECK(tuple.page >= 900'000);
    }
  }
  CHECK(actor1 == 10);
  CHECK(actor2 == 3);
  // Memory: 2 actors x k kept tuples, not 10^7 views (240 MB as records).
  // Limit 16 MiB; skipped under AddressSanitizer, whose shadow memory and
  // quarantine make resident sizes meaningless.
  MESSAGE("peak RSS growth bounding an actor with 10^7 views: " << growth / 1024 << " KiB");
  if constexpr (!privet::test::address_sanitizer) CHECK(growth < 16 * mebibyte);
}
