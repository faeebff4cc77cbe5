// The pageview reader: Wikimedia's column layout in TSV and CSV, interning,
// fixed lists, and an error naming the line for every malformed row.
#include <privet/io/pageview_reader.hpp>

#include <doctest/doctest.h>

#include <sstream>
#include <string>

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

TEST_CASE("malformed pageview data throws serialization_error naming the line") {
  using privet::serialization_error;
  auto fails = [](const std::string& text, const std::string& message) {
    std::istringstream in(text);
    CAPTURE(text);
    CHECK_THROWS_WITH_AS(
        [&] {
          privet::io::pageview_reader r(in, {}, privet::io::name_index({"CH"}), 64);
          while (r.next()) {
          }
        }(),
        message.c_str(), serialization_error);
  };
  const std::string head = "page_id\tproject\tcountry\tactor_signature\n";
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
  fails(head + "1\tp\tCH\ta\n1\t\"p\tCH\ta\n",
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
          privet::io::pageview_reader r(in, projects);
          while (r.next()) {
          }
        }(),
        message.c_str(), serialization_error);
  };
  fails(head + "1\t\"p\"x\tCH\ta\n", "privet: pageview line 2 has text after a closing quote");
  fails(head + "1\tp\t\ta\n", "privet: pageview line 2 has an empty country");
  fails(head + "1\tde.wikipedia\tCH\ta\n",
        "privet: pageview line 2 has project 'de.wikipedia', which is not in the given list",
        privet::io::name_index({"en.wikipedia"}));
  // Country ids are 16 bits: the 65537th distinct country is refused.
  std::string many = head;
  for (int i = 0; i <= 0x10000; ++i) many += "1\tp\tc" + std::to_string(i) + "\ta\n";
  fails(many, "privet: pageview line 65538 has more than 65536 distinct countries");
}
