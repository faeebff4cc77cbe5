// Resource limits of the pageview reader (privet/io/pageview_reader.hpp)
// and the bounding it feeds (algorithms/pageview_histogram.hpp): 50 MB of
// one actor's rows (a million of them), generated on the fly, stream through
// the reader and the per-actor bound in memory that follows one line and k
// tuples; a 100 MB line is skipped in memory that holds max_line_bytes of
// it, or, in strict mode, refused at max_line_bytes by name, after reading
// only that much of it.
#include <privet/algorithms/pageview_histogram.hpp>
#include <privet/core/error.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/io/pageview_reader.hpp>

#include <doctest/doctest.h>
#include <support/generated_stream.hpp>
#include <support/memory.hpp>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <ranges>
#include <set>
#include <string>

namespace io = privet::io;
namespace pageview = privet::pageview;
using privet::test::generated_stream;
using privet::test::mebibyte;
using privet::test::peak_rss_probe;

namespace {

constexpr std::uint64_t fifty_mb = 50 * std::uint64_t{1000} * 1000;
constexpr std::uint64_t hundred_mb = 2 * fifty_mb;
const std::string head = "page_id\tpage_title\tproject\tcountry\tdate\tactor_signature\n";

/// The reader's rows as a single-pass input range, read one at a time.
class rows {
 public:
  explicit rows(io::pageview_reader& r) : reader_(&r) {}

  class iterator {
   public:
    using value_type = pageview::view;
    using difference_type = std::ptrdiff_t;
    iterator() = default;
    explicit iterator(io::pageview_reader* r) : reader_(r) { ++*this; }
    const pageview::view& operator*() const { return *current_; }
    iterator& operator++() {
      current_ = reader_->next();
      return *this;
    }
    void operator++(int) { ++*this; }
    friend bool operator==(const iterator& i, std::default_sentinel_t) {
      return !i.current_.has_value();
    }

   private:
    io::pageview_reader* reader_ = nullptr;
    std::optional<pageview::view> current_;
  };

  [[nodiscard]] iterator begin() const { return iterator(reader_); }
  [[nodiscard]] std::default_sentinel_t end() const { return {}; }

 private:
  io::pageview_reader* reader_;
};
static_assert(std::ranges::input_range<const rows&>);

}  // namespace

TEST_CASE("50 MB of one actor's rows stream through the reader and the bound of k tuples") {
  // 40 distinct pages, viewed over and over by one actor: about a million rows.
  std::string cycle;
  for (int page = 1; page <= 40; ++page) {
    cycle += std::to_string(1000 + page) + "\tTitle\ten.wikipedia\tFR\t2026-01-01\tsame-actor\n";
  }
  const std::uint64_t total = fifty_mb - (fifty_mb - head.size()) % cycle.size();
  generated_stream in(head, cycle, total);
  const peak_rss_probe probe;
  io::pageview_reader reader(in);
  privet::seeded_generator gen(12);
  const pageview::bound_per_actor bound(10);
  const pageview::tuple_counts counts = bound(rows(reader), gen);
  const std::size_t growth = probe.growth();

  CHECK(reader.rows() == (total - head.size()) / cycle.size() * 40);
  CHECK(in.produced() == total);
  // The bound: exactly k = 10 of the actor's 40 distinct tuples, each once.
  REQUIRE(counts.size() == 10);
  for (const auto& [tuple, c] : counts) {
    CHECK(c == 1);
    CHECK(tuple.page > 1000);
    CHECK(tuple.page <= 1040);
  }
  // Memory: one line, the actor's 10 kept tuples and the names. Limit 16
  // MiB against a 50 MB input; skipped under AddressSanitizer (shadow
  // memory and quarantine make resident sizes meaningless).
  MESSAGE("peak RSS growth bounding 50 MB of pageview rows: " << growth / 1024 << " KiB");
  if constexpr (!privet::test::address_sanitizer) CHECK(growth < 16 * mebibyte);
}

TEST_CASE("a 100 MB line is skipped in bounded memory, read to its end") {
  // The default (issue 22): the line is a malformed row, skipped and counted;
  // the rest of it is discarded unread into memory (a row after it is read
  // normally: io/pageview_reader_test.cpp).
  generated_stream in(head + "1\t", "x", hundred_mb);  // the second line never ends
  const peak_rss_probe probe;
  io::pageview_reader reader(in);
  CHECK_FALSE(reader.next().has_value());
  CHECK(reader.rows() == 0);
  CHECK(reader.skipped_rows() == 1);
  CHECK(reader.last_skip_reason() ==
        "privet: pageview line 2 is longer than max_line_bytes = 65536");
  CHECK(in.produced() == hundred_mb);
  const std::size_t growth = probe.growth();
  MESSAGE("peak RSS growth skipping a 100 MB line: " << growth / 1024 << " KiB");
  if constexpr (!privet::test::address_sanitizer) CHECK(growth < 16 * mebibyte);
}

TEST_CASE("strict mode refuses a 100 MB line at max_line_bytes, having read only that much") {
  generated_stream in(head + "1\t", "x", hundred_mb);  // the second line never ends
  const peak_rss_probe probe;
  io::pageview_reader reader(in, {}, {}, io::pageview_reader::default_max_line_bytes,
                             io::malformed_rows::strict);
  CHECK_THROWS_WITH_AS((void)reader.next(),
                       "privet: pageview line 2 is longer than max_line_bytes = 65536",
                       privet::serialization_error);
  // The default bound is 2^16 bytes; the stream hands out 64 KiB blocks.
  CHECK(in.produced() <= 3 * 65536);
  const std::size_t growth = probe.growth();
  MESSAGE("peak RSS growth refusing a 100 MB line: " << growth / 1024 << " KiB");
  if constexpr (!privet::test::address_sanitizer) CHECK(growth < 16 * mebibyte);

  // The boundary: a line of exactly max_line_bytes is read, one more byte is not.
  const std::string row = "7\tT\tp\tc\td\ta";  // 13 bytes
  std::string exact = row + std::string(64 - row.size(), 'a');
  REQUIRE(exact.size() == 64);
  generated_stream fits(head, exact + "\n", head.size() + 65);
  io::pageview_reader ok(fits, {}, {}, 64);
  const auto v = ok.next();
  REQUIRE(v.has_value());
  CHECK(v->tuple.page == 7);
  CHECK_FALSE(ok.next().has_value());
  generated_stream over(head, exact + "a\n", head.size() + 66);
  io::pageview_reader bad(over, {}, {}, 64, io::malformed_rows::strict);
  CHECK_THROWS_WITH_AS((void)bad.next(),
                       "privet: pageview line 2 is longer than max_line_bytes = 64",
                       privet::serialization_error);
}
