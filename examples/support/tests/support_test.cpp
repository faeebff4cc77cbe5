// Unit tests of the examples' support headers: the plot's tick algorithm,
// its CSV output, and the command line's strict value parsing.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "support/command_line.hpp"
#include "support/svg_plot.hpp"

#include <cmath>
#include <string>
#include <vector>

namespace ex = privet::examples;

namespace {

// True when v is 1, 2 or 5 times a power of ten (or 0).
bool round_number(double v) {
  if (v == 0) return true;
  const double a = std::abs(v);
  const double p = std::pow(10.0, std::floor(std::log10(a) + 1e-12));
  const double m = a / p;
  return std::abs(m - 1) < 1e-9 || std::abs(m - 2) < 1e-9 || std::abs(m - 5) < 1e-9 ||
         std::abs(m - 10) < 1e-9;
}

}  // namespace

TEST_CASE("linear ticks: a 1-2-5 step, covering the data") {
  // The example: ticks 8.81 / 13.6 / 18.3 for data in about [4, 28].
  struct range {
    double lo, hi;
  };
  for (const range r : {range{4.0, 27.6}, range{0.5, 1.0}, range{-3.2, 7.9}, range{1290, 4400},
                        range{0.0012, 0.0049}, range{1, 9}, range{5, 5}}) {
    CAPTURE(r.lo);
    CAPTURE(r.hi);
    const ex::axis_ticks t = ex::linear_ticks(r.lo, r.hi);
    REQUIRE(t.values.size() >= 2);
    CHECK(t.values.size() <= 11);
    const double step = t.values[1] - t.values[0];
    CHECK(round_number(step));
    for (std::size_t i = 0; i < t.values.size(); ++i) {
      CHECK(std::abs(t.values[i] / step - std::round(t.values[i] / step)) < 1e-6);
      if (i > 0) CHECK(std::abs(t.values[i] - t.values[i - 1] - step) < step * 1e-9);
    }
    CHECK(t.lo <= std::min(r.lo, r.hi));
    CHECK(t.hi >= std::max(r.lo, r.hi));
    CHECK(t.lo == t.values.front());
    CHECK(t.hi == t.values.back());
  }
  // Known answer, worked by hand: [4, 27.6] over about 5 intervals is a
  // raw step of 4.72, rounded up to 5; the ticks run 0, 5, ..., 30.
  const ex::axis_ticks t = ex::linear_ticks(4, 27.6);
  CHECK(t.values == std::vector<double>{0, 5, 10, 15, 20, 25, 30});
}

TEST_CASE("linear ticks on a fixed range stay inside it") {
  const ex::axis_ticks t = ex::linear_ticks(0.5, 1.0, 5, true);
  CHECK(t.lo == 0.5);
  CHECK(t.hi == 1.0);
  REQUIRE(t.values.size() == 6);  // 0.5, 0.6, ..., 1.0
  CHECK(t.values.front() == doctest::Approx(0.5));
  CHECK(t.values.back() == doctest::Approx(1.0));
}

TEST_CASE("log ticks: powers of ten, with 2 and 5 over short spans") {
  const ex::axis_ticks wide = ex::log_ticks(3, 2.4e5);
  CHECK(wide.values == std::vector<double>{1, 10, 100, 1e3, 1e4, 1e5, 1e6});
  CHECK(wide.lo == 0);
  CHECK(wide.hi == 6);
  const ex::axis_ticks narrow = ex::log_ticks(30, 900);
  CHECK(narrow.values == std::vector<double>{20, 50, 100, 200, 500, 1000});
  for (const double v : ex::log_ticks(1e-3, 1e15).values) CHECK(round_number(v));
  CHECK(ex::log_ticks(1e-3, 1e15).values.size() <= 10);
}

TEST_CASE("tick labels are plain for moderate numbers, powers of ten beyond") {
  CHECK(ex::tick_label(0) == "0");
  CHECK(ex::tick_label(0.05) == "0.05");
  CHECK(ex::tick_label(5000) == "5000");
  CHECK(ex::tick_label(-20) == "-20");
  CHECK(ex::tick_label(1e6) == "10⁶");
  CHECK(ex::tick_label(2e5) == "2·10⁵");
  CHECK(ex::tick_label(1e-4) == "10⁻⁴");
}

TEST_CASE("the plot draws a marker per point, a legend that fits, and its CSV") {
  ex::svg_plot p("t", "x", "y");
  const std::string long_name = "GreedySampling, one pass over the data, no pruning";
  p.add({long_name, {1, 2, 3}, {4, 5, 6}, true, "#000"});
  const std::string svg = p.render();
  std::size_t markers = 0;
  for (std::size_t at = 0; (at = svg.find("<circle", at)) != std::string::npos; ++at) ++markers;
  CHECK(markers == 3 + 1);  // three points and the legend's sample
  CHECK(svg.find(long_name) != std::string::npos);
  // The legend's text starts at L + plot width + 44 = 684; the canvas must
  // hold 7 px per character after it.
  const auto w_at = svg.find("width='") + 7;
  const double width = std::stod(svg.substr(w_at));
  CHECK(width >= 684 + 7.0 * static_cast<double>(long_name.size()));
  CHECK(p.data().render() == "series,x,y\n\"" + long_name + "\",1,4\n\"" + long_name +
                                 "\",2,5\n\"" + long_name + "\",3,6\n");
  CHECK(ex::csv_beside("out/plot.svg") == "out/plot.csv");
  CHECK(ex::csv_beside("plot.svg", "table3") == "plot_table3.csv");
  CHECK(ex::csv_table::number(0.1) == "0.1");
  CHECK(ex::csv_table::number(1e-7) == "1e-07");
  CHECK(ex::csv_table::number(10) == "10");
  CHECK(ex::csv_table::number(-2.5) == "-2.5");
}

TEST_CASE("whole numbers: digits only, in range, no wrap") {
  std::uintmax_t v = 7;
  CHECK(ex::cli_detail::parse_whole("12", 1, 20, "1 to 20", v).empty());
  CHECK(v == 12);
  CHECK(ex::cli_detail::parse_whole("-5", 1, 20, "1 to 20", v) ==
        "-5 is negative; allowed: 1 to 20");
  CHECK(ex::cli_detail::parse_whole("abc", 1, 20, "1 to 20", v) ==
        "'abc' is not a whole number; allowed: 1 to 20");
  CHECK(ex::cli_detail::parse_whole("21", 1, 20, "1 to 20", v) ==
        "21 is out of range; allowed: 1 to 20");
  CHECK(!ex::cli_detail::parse_whole("99999999999999999999999", 0, UINTMAX_MAX, "x", v).empty());
  CHECK(!ex::cli_detail::parse_whole("+3", 0, 10, "x", v).empty());
  CHECK(!ex::cli_detail::parse_whole("", 0, 10, "x", v).empty());
  CHECK(v == 12);  // refusals leave the value alone
}

TEST_CASE("real numbers: finite, in the interval") {
  double x = 0;
  CHECK(ex::cli_detail::parse_real("1e-7", ex::open_unit, x).empty());
  CHECK(x == 1e-7);
  CHECK(ex::cli_detail::parse_real("1", ex::open_unit, x) == "1 is out of range; allowed: (0, 1)");
  CHECK(ex::cli_detail::parse_real("nan", ex::positive, x) ==
        "nan is not a finite number; allowed: > 0");
  CHECK(ex::cli_detail::parse_real("2x", ex::positive, x) == "'2x' is not a number; allowed: > 0");
  CHECK(ex::cli_detail::parse_real(" 2", ex::positive, x) == "' 2' is not a number; allowed: > 0");
  CHECK(ex::unit_fraction.text() == "(0, 1]");
  CHECK(ex::any_real.text() == "any finite number");
}
