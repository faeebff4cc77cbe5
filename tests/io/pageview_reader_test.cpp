// The pageview reader: Wikimedia's column layout in TSV and CSV, interning,
// fixed lists; a malformed row skipped and counted (the default, issue 22:
// the reader feeds a DP release), or an error naming its line in strict mode.
#include <privet/algorithms/pageview_histogram.hpp>
#include <privet/core/testing.hpp>
#include <privet/io/pageview_reader.hpp>

#include <sodium.h>

#include <doctest/doctest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {
std::vector<privet::pageview::view> read_all(privet::io::pageview_reader& r) {
  std::vector<privet::pageview::view> out;
  r.for_each([&](const privet::pageview::view& v) { out.push_back(v); });
  return out;
}
}  // namespace

TEST_CASE("TSV and CSV rows in Wikimedia's layout") {
  std::istringstream tsv(
      "page_id\tpage_title\tproject\tcountry\tdate\tactor_signature\n"
      "12\tBern\tde.wikipedia\tCH\t2026-11-22\tabc\n"
      "7\tParis\tfr.wikipedia\tFR\t2026-11-22\txyz\r\n"
      "12\tBern\tde.wikipedia\tDE\t2026-11-22\tabc\n");
  privet::io::pageview_reader r(tsv);
  const auto rows = read_all(r);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].tuple == privet::pageview::tuple_key{12, 0, 0});
  CHECK(rows[1].tuple == privet::pageview::tuple_key{7, 1, 1});
  CHECK(rows[2].tuple == privet::pageview::tuple_key{12, 0, 2});
  CHECK(rows[0].actor == rows[2].actor);
  CHECK(rows[0].actor != rows[1].actor);
  CHECK(r.projects().names() == std::vector<std::string>{"de.wikipedia", "fr.wikipedia"});
  CHECK(r.countries().names() == std::vector<std::string>{"CH", "FR", "DE"});

  // CSV, columns in another order, a quoted title with a comma and a quote.
  std::istringstream csv(
      "actor_signature,country,project,page_id,page_title\n"
      "abc,CH,de.wikipedia,12,\"Bern, \"\"the city\"\"\"\n");
  privet::io::pageview_reader c(csv, privet::io::name_index({"en.wikipedia", "de.wikipedia"}));
  const auto crow = read_all(c);
  REQUIRE(crow.size() == 1);
  CHECK(crow[0].tuple == privet::pageview::tuple_key{12, 1, 0});
  CHECK(crow[0].actor == rows[0].actor);
}

TEST_CASE("tab-separated fields are literal: a title with quotes is a title (issue 33)") {
  // Real Wikipedia titles that begin with or hold '"'; Wikimedia's TSV
  // dumps do not quote fields, so none of these rows is malformed.
  const std::string text =
      "page_id\tpage_title\tproject\tcountry\tdate\tactor_signature\n"
      "11\t\"Heroes\"_(David_Bowie_album)\ten.wikipedia\tUS\t2026-11-22\tabc\n"
      "12\t\"Weird_Al\"_Yankovic\ten.wikipedia\tCH\t2026-11-22\tabc\n"
      "13\tSay_\"Cheese\"\tde.wikipedia\tCH\t2026-11-22\t\"q\n"
      "14\t\"\ten.wikipedia\tUS\t2026-11-22\tabc\n";
  for (const auto mode : {privet::io::malformed_rows::skip, privet::io::malformed_rows::strict}) {
    std::istringstream in(text);
    privet::io::pageview_reader r(in, privet::io::name_index({"en.wikipedia", "de.wikipedia"}),
                                  privet::io::name_index({"US", "CH"}),
                                  privet::io::pageview_reader::default_max_line_bytes, mode);
    const auto rows = read_all(r);
    CHECK(r.skipped_rows() == 0);
    REQUIRE(rows.size() == 4);
    CHECK(rows[0].tuple == privet::pageview::tuple_key{11, 0, 0});
    CHECK(rows[1].tuple == privet::pageview::tuple_key{12, 0, 1});
    CHECK(rows[2].tuple == privet::pageview::tuple_key{13, 1, 1});
    CHECK(rows[3].tuple == privet::pageview::tuple_key{14, 0, 0});
    // The actor column is literal too: '"q' is its own signature.
    CHECK(rows[2].actor == privet::io::actor_signature_hash("\"q"));
    CHECK(rows[0].actor == rows[1].actor);
  }
  // The same title in CSV must be quoted, as RFC 4180 says, and reads the same.
  std::istringstream csv(
      "page_id,page_title,project,country,date,actor_signature\n"
      "11,\"\"\"Heroes\"\"_(David_Bowie_album)\",en.wikipedia,US,2026-11-22,abc\n");
  privet::io::pageview_reader c(csv, privet::io::name_index({"en.wikipedia"}),
                                privet::io::name_index({"US"}));
  const auto crows = read_all(c);
  CHECK(c.skipped_rows() == 0);
  REQUIRE(crows.size() == 1);
  CHECK(crows[0].tuple == privet::pageview::tuple_key{11, 0, 0});
}

TEST_CASE("actor_signature_hash is the reader's actor id, cached or not") {
  // Signatures shorter than 31 bytes go through the reader's cache, longer
  // ones do not; both must give actor_signature_hash's value, which a writer
  // of generated days relies on (examples/support/pageview_generator.hpp).
  const std::string long_sig(40, 'z');
  std::istringstream in(
      "page_id\tproject\tcountry\tactor_signature\n1\tp\tCH\t3f866d755562e61a\n"
      "1\tp\tCH\t" +
      long_sig + "\n1\tp\tCH\t3f866d755562e61a\n");
  privet::io::pageview_reader r(in);
  const auto rows = read_all(r);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].actor == privet::io::actor_signature_hash("3f866d755562e61a"));
  CHECK(rows[1].actor == privet::io::actor_signature_hash(long_sig));
  CHECK(rows[2].actor == rows[0].actor);
  // A second method: BLAKE2b with an 8-byte digest, read little-endian.
  unsigned char h[8];
  crypto_generichash(h, sizeof h, reinterpret_cast<const unsigned char*>("abc"), 3, nullptr, 0);
  std::uint64_t expected = 0;
  for (int i = 7; i >= 0; --i) expected = (expected << 8) | h[i];
  CHECK(privet::io::actor_signature_hash("abc") == expected);
  CHECK(privet::io::actor_signature_hash("abc") != privet::io::actor_signature_hash("abd"));
}

TEST_CASE(
    "with malformed_rows::strict a malformed row throws serialization_error naming the line") {
  using privet::serialization_error;
  auto fails = [](const std::string& text, const std::string& message) {
    std::istringstream in(text);
    CAPTURE(text);
    CHECK_THROWS_WITH_AS(
        [&] {
          privet::io::pageview_reader r(in, {}, privet::io::name_index({"CH"}), 64,
                                        privet::io::malformed_rows::strict);
          while (r.next()) {
          }
        }(),
        message.c_str(), serialization_error);
  };
  const std::string head = "page_id\tproject\tcountry\tactor_signature\n";
  // A missing or incomplete header is a format error in either mode.
  for (const auto mode : {privet::io::malformed_rows::skip, privet::io::malformed_rows::strict}) {
    std::istringstream empty(""), no_actor("page_id\tproject\tcountry\n1\tp\tCH\n"),
        long_header(std::string(100, 'h') + "\n");
    CHECK_THROWS_WITH_AS(privet::io::pageview_reader(empty, {}, {}, 64, mode),
                         "privet: pageview data is empty: no header line", serialization_error);
    CHECK_THROWS_WITH_AS(privet::io::pageview_reader(no_actor, {}, {}, 64, mode),
                         "privet: pageview header (line 1) has no 'actor_signature' column",
                         serialization_error);
    CHECK_THROWS_WITH_AS(privet::io::pageview_reader(long_header, {}, {}, 64, mode),
                         "privet: pageview line 1 is longer than max_line_bytes = 64",
                         serialization_error);
  }
  fails("", "privet: pageview data is empty: no header line");
  fails("page_id\tproject\tcountry\n",
        "privet: pageview header (line 1) has no 'actor_signature' column");
  fails(head + "1\tp\tCH\n", "privet: pageview line 2 has 3 fields; the header has 4");
  fails(head + "x1\tp\tCH\ta\n",
        "privet: pageview line 2 has page_id 'x1'; allowed: a decimal integer in [0, 2^64)");
  fails(head + "18446744073709551616\tp\tCH\ta\n",
        "privet: pageview line 2 has page_id '18446744073709551616'; allowed: a decimal integer "
        "in [0, 2^64)");
  fails(head + "1\tp\tZZ\ta\n",
        "privet: pageview line 2 has country 'ZZ', which is not in the given list");
  fails(head + "1\t\tCH\ta\n", "privet: pageview line 2 has an empty project");
  fails(head + "1\tp\tCH\t\n", "privet: pageview line 2 has an empty actor_signature");
  // Quoting is CSV's (RFC 4180); tab-separated fields are literal.
  fails("page_id,project,country,actor_signature\n1,p,CH,a\n1,\"p,CH,a\n",
        "privet: pageview line 3 has an unterminated quoted field");
  fails(head + "1\tp\tCH\t" + std::string(100, 'a') + "\n",
        "privet: pageview line 2 is longer than max_line_bytes = 64");
  // A blank line is a malformed row like any other, inside the data or after
  // its last row, with or without a carriage return.
  fails(head + "1\tp\tCH\ta\n\n1\tp\tCH\ta\n",
        "privet: pageview line 3 is blank; the header has 4 fields");
  fails(head + "1\tp\tCH\ta\n\n", "privet: pageview line 3 is blank; the header has 4 fields");
  fails(head + "\r\n1\tp\tCH\ta\n", "privet: pageview line 2 is blank; the header has 4 fields");
}

TEST_CASE("the newline ending the last row is not a blank line; its absence is fine too") {
  const std::string head = "page_id\tproject\tcountry\tactor_signature\n";
  for (const std::string& text :
       {head + "1\tp\tCH\ta\n2\tp\tCH\ta\n", head + "1\tp\tCH\ta\n2\tp\tCH\ta",
        head + "1\tp\tCH\ta\r\n2\tp\tCH\ta\r\n"}) {
    CAPTURE(text);
    std::istringstream in(text);
    privet::io::pageview_reader r(in);
    CHECK(read_all(r).size() == 2);
    CHECK(r.rows() == 2);
    CHECK(r.line() == 3);
  }
  std::istringstream only_header(head);
  privet::io::pageview_reader r(only_header);
  CHECK_FALSE(r.next().has_value());
}

TEST_CASE("a fixed name list with a repeated name is refused, naming both positions") {
  CHECK_THROWS_WITH_AS(privet::io::name_index({"a", "b", "c", "b"}),
                       "privet: names[3] = 'b' is invalid; allowed: distinct names ('b' is also "
                       "names[1])",
                       privet::invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::io::name_index({"en.wikipedia", "en.wikipedia"}),
                       "privet: names[1] = 'en.wikipedia' is invalid; allowed: distinct names "
                       "('en.wikipedia' is also names[0])",
                       privet::invalid_parameter);
  const privet::io::name_index ok({"a", "b", "c"});
  CHECK(ok.size() == 3);
  CHECK(ok.names() == std::vector<std::string>{"a", "b", "c"});
}

TEST_CASE("pageview reader: the remaining refusals name the line or the parameter") {
  using privet::serialization_error;
  const std::string head = "page_id\tproject\tcountry\tactor_signature\n";
  {
    std::istringstream in(head);
    CHECK_THROWS_WITH_AS(privet::io::pageview_reader(in, {}, {}, 15),
                         "privet: max_line_bytes = 15 is invalid; allowed: >= 16",
                         privet::invalid_parameter);
  }
  auto fails = [](const std::string& text, const std::string& message,
                  privet::io::name_index projects = {}) {
    std::istringstream in(text);
    CAPTURE(text);
    CHECK_THROWS_WITH_AS(
        [&] {
          privet::io::pageview_reader r(in, projects, {},
                                        privet::io::pageview_reader::default_max_line_bytes,
                                        privet::io::malformed_rows::strict);
          while (r.next()) {
          }
        }(),
        message.c_str(), serialization_error);
  };
  fails("page_id,project,country,actor_signature\n1,\"p\"x,CH,a\n",
        "privet: pageview line 2 has text after a closing quote");
  fails(head + "1\tp\t\ta\n", "privet: pageview line 2 has an empty country");
  fails(head + "1\tde.wikipedia\tCH\ta\n",
        "privet: pageview line 2 has project 'de.wikipedia', which is not in the given list",
        privet::io::name_index({"en.wikipedia"}));
  // Country ids are 16 bits: the 65537th distinct country is refused.
  std::string many = head;
  for (int i = 0; i <= 0x10000; ++i) many += "1\tp\tc" + std::to_string(i) + "\ta\n";
  fails(many, "privet: pageview line 65538 has more than 65536 distinct countries");
}

namespace {
// Every kind of malformed row, against the fixed lists {p, q} x {CH, US},
// max_line_bytes = 64, with strict mode's message for it at line 3.
const std::vector<std::pair<std::string, std::string>>& malformed_rows_kinds() {
  static const std::vector<std::pair<std::string, std::string>> kinds = {
      {"\n", "is blank; the header has 4 fields"},
      {"\r\n", "is blank; the header has 4 fields"},
      {"5\tp\tCH\n", "has 3 fields; the header has 4"},
      {"5\tp\tCH\ta\tb\n", "has 5 fields; the header has 4"},
      {"x5\tp\tCH\ta\n", "has page_id 'x5'; allowed: a decimal integer in [0, 2^64)"},
      {"18446744073709551616\tp\tCH\ta\n",
       "has page_id '18446744073709551616'; allowed: a decimal integer in [0, 2^64)"},
      {"\tp\tCH\ta\n", "has page_id ''; allowed: a decimal integer in [0, 2^64)"},
      {"5\t\tCH\ta\n", "has an empty project"},
      {"5\tp\t\ta\n", "has an empty country"},
      {"5\tp\tCH\t\n", "has an empty actor_signature"},
      {"5\tzz\tCH\ta\n", "has project 'zz', which is not in the given list"},
      {"5\tp\tZZ\ta\n", "has country 'ZZ', which is not in the given list"},
      // Tab-separated fields are literal: a quote is part of the name.
      {"5\t\"p\tCH\ta\n", "has project '\"p', which is not in the given list"},
      {"5\t\"p\"x\tCH\ta\n", "has project '\"p\"x', which is not in the given list"},
      {"5\tp\tCH\t" + std::string(100, 'a') + "\n", "is longer than max_line_bytes = 64"},
  };
  return kinds;
}

const std::string pv_head = "page_id\tproject\tcountry\tactor_signature\n";
// Three actors' rows; line 3 is where a malformed row goes.
const std::string pv_first = "1\tp\tCH\ta\n";
const std::string pv_rest = "1\tq\tUS\tb\n2\tp\tUS\tc\n1\tp\tCH\tc\n";

bool same_views(const std::vector<privet::pageview::view>& a,
                const std::vector<privet::pageview::view>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].actor != b[i].actor || !(a[i].tuple == b[i].tuple)) return false;
  return true;
}

privet::io::pageview_reader fixed_reader(std::istream& in) {
  return privet::io::pageview_reader(in, privet::io::name_index({"p", "q"}),
                                     privet::io::name_index({"CH", "US"}), 64);
}
}  // namespace

TEST_CASE("by default a malformed row is skipped and counted, and strict mode names it") {
  std::istringstream clean_in(pv_head + pv_first + pv_rest);
  auto clean_reader = fixed_reader(clean_in);
  const auto clean = read_all(clean_reader);
  REQUIRE(clean.size() == 4);
  CHECK(clean_reader.skipped_rows() == 0);
  CHECK(clean_reader.last_skip_reason().empty());
  for (const auto& [row, problem] : malformed_rows_kinds()) {
    const std::string text = pv_head + pv_first + row + pv_rest;
    CAPTURE(text);
    std::istringstream in(text);
    auto r = fixed_reader(in);
    std::vector<privet::pageview::view> got;
    CHECK_NOTHROW(got = read_all(r));
    CHECK(same_views(got, clean));
    CHECK(r.rows() == 4);
    CHECK(r.skipped_rows() == 1);
    CHECK(r.last_skip_reason() == "privet: pageview line 3 " + problem);
    CHECK(r.line() == 6);  // the rows after it keep their line numbers

    std::istringstream strict_in(text);
    privet::io::pageview_reader strict(strict_in, privet::io::name_index({"p", "q"}),
                                       privet::io::name_index({"CH", "US"}), 64,
                                       privet::io::malformed_rows::strict);
    CHECK(strict.next().has_value());
    CHECK_THROWS_WITH_AS((void)strict.next(), ("privet: pageview line 3 " + problem).c_str(),
                         privet::serialization_error);
  }
  // Several in a row, and at the very end without a newline.
  std::istringstream many(pv_head + "\n\nx\tp\tCH\ta\n" + pv_first + "5\tp\tCH");
  auto r = fixed_reader(many);
  CHECK(read_all(r).size() == 1);
  CHECK(r.skipped_rows() == 4);
  CHECK(r.last_skip_reason() == "privet: pageview line 6 has 3 fields; the header has 4");
}

TEST_CASE("a skipped row leaves the interned name lists as they were") {
  // Each row below is malformed after its project or country would be new:
  // neither is added, so the ids of the rows that follow do not move.
  const std::string head = "page_id\tproject\tcountry\tactor_signature\n";
  std::istringstream in(head + "1\tnew\tXX\t\n" + "x\tnew\tXX\ta\n" + "1\tp\tCH\ta\n");
  privet::io::pageview_reader r(in);
  const auto rows = read_all(r);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].tuple == privet::pageview::tuple_key{1, 0, 0});
  CHECK(r.projects().names() == std::vector<std::string>{"p"});
  CHECK(r.countries().names() == std::vector<std::string>{"CH"});
  CHECK(r.skipped_rows() == 2);

  // The 65537th distinct country is skipped, not added; known ones still read.
  std::string text = head;
  for (int i = 0; i < 0x10000; ++i) text += "1\tp\tc" + std::to_string(i) + "\ta\n";
  text += "1\tp\tone-too-many\ta\n2\tp\tc7\ta\n";
  std::istringstream wide(text);
  privet::io::pageview_reader w(wide);
  const auto all = read_all(w);
  REQUIRE(all.size() == 0x10001);
  CHECK(all.back().tuple == privet::pageview::tuple_key{2, 0, 7});
  CHECK(w.countries().size() == 0x10000);
  CHECK(w.skipped_rows() == 1);
  CHECK(w.last_skip_reason() ==
        "privet: pageview line 65538 has more than 65536 distinct countries");
}

TEST_CASE("a day with a malformed row and the same day without it both release, identically") {
  // The neighbouring pair of issue 22 at the reader: D and D plus one
  // malformed row. Before, D released and D plus the row threw, which told
  // them apart with certainty. Now both release the same histogram (same
  // keyed streams): the skipped row contributes nothing, like an absent one.
  namespace pv = privet::pageview;
  pv::parameters<> p;
  p.k = 2;
  p.candidate_threshold = 1;
  p.release_threshold = -1000000;  // every candidate cell is released, so nothing hides
  const pv::histogram<> h(p, 2);
  auto release = [&](const std::string& text) {
    std::istringstream in(text);
    auto r = fixed_reader(in);
    const auto views = read_all(r);
    pv::page_counts pub;
    for (const auto& v : views) pub.add(v.tuple.page_of());
    return h(views, pub, privet::testing::seeded_keyed_streams(22));
  };
  const auto d = release(pv_head + pv_first + pv_rest);
  REQUIRE(d.size() == 3 * 2);  // pages (1, p), (1, q), (2, p) x two countries
  for (const auto& kind : malformed_rows_kinds()) {
    const std::string& row = kind.first;  // not a binding: CAPTURE's lambda (clang 14)
    CAPTURE(row);
    std::vector<pv::release_row> neighbour;
    CHECK_NOTHROW(neighbour = release(pv_head + pv_first + row + pv_rest));
    CHECK(neighbour == d);
  }
  // And against a well-formed neighbour (one more actor), both release the
  // same cells: which cells can be released does not depend on the row.
  const auto more = release(pv_head + pv_first + pv_rest + "1\tp\tCH\td\n");
  REQUIRE(more.size() == d.size());
  for (std::size_t i = 0; i < d.size(); ++i) CHECK(more[i].first == d[i].first);
}

TEST_CASE("the actor hash is BLAKE2b of the signature, cached or not") {
  // 9000 distinct signatures (more than the 4096-entry cache, so entries
  // are evicted), short ones and ones past the cache's 31 bytes, each on
  // three rows spread over the file, and rows split across the reader's
  // 64 KiB chunks. Expected: libsodium's BLAKE2b to 8 bytes, little-endian.
  const auto blake = [](const std::string& s) {
    unsigned char h[8];
    crypto_generichash(h, sizeof h, reinterpret_cast<const unsigned char*>(s.data()), s.size(),
                       nullptr, 0);
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | h[i];
    return v;
  };
  const auto signature = [](int i) {
    return (i % 3 == 0 ? std::string(40, 'x') : std::string()) + "actor-" + std::to_string(i);
  };
  std::string text = "page_id\tproject\tcountry\tactor_signature\n";
  std::vector<std::string> order;
  for (int rep = 0; rep < 3; ++rep) {
    for (int i = 0; i < 9000; ++i) {
      const int a = (i * 7919 + rep * 13) % 9000;
      text += std::to_string(i) + "\tp\tCH\t" + signature(a) + "\n";
      order.push_back(signature(a));
    }
  }
  std::istringstream in(text);
  privet::io::pageview_reader r(in);
  const auto rows = read_all(r);
  REQUIRE(rows.size() == order.size());
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) wrong += rows[i].actor != blake(order[i]);
  CHECK(wrong == 0);
  CHECK(r.bytes() == text.size());
}
