// Unit tests of the examples' support headers: the plot's tick algorithm,
// its CSV output, the command line's strict value parsing, and the file
// writer (output_files.hpp: same_file, whole-or-nothing outputs, secrets).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "support/command_line.hpp"
#include "support/output_files.hpp"
#include "support/svg_plot.hpp"

#include <sys/resource.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
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

// ---- output_files.hpp (issue 33) ------------------------------------------------------

namespace {

// A fresh scratch directory under the build's working directory.
std::filesystem::path scratch(const std::string& name) {
  const auto dir = std::filesystem::current_path() / ("support_test_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::string contents(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::size_t temporaries(const std::filesystem::path& dir) {
  std::size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.size() > 4 && name.front() == '.' && name.ends_with(".tmp")) ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("same_file: one inode through links and spellings; new files by directory and name") {
  const auto dir = scratch("same_file");
  { std::ofstream(dir / "a.txt") << "a"; }
  std::filesystem::create_symlink(dir / "a.txt", dir / "sym.txt");
  std::filesystem::create_hard_link(dir / "a.txt", dir / "hard.txt");
  std::filesystem::create_directories(dir / "sub");
  const std::string a = (dir / "a.txt").string();
  CHECK(ex::same_file(a, (dir / "sym.txt").string()));
  CHECK(ex::same_file(a, (dir / "hard.txt").string()));
  CHECK(ex::same_file(a, (dir / "sub" / ".." / "a.txt").string()));
  CHECK_FALSE(ex::same_file(a, (dir / "b.txt").string()));
  // Not yet existing: the same directory and name, however spelled.
  CHECK(ex::same_file((dir / "new.txt").string(), (dir / "sub" / ".." / "new.txt").string()));
  CHECK_FALSE(ex::same_file((dir / "new.txt").string(), (dir / "sub" / "new.txt").string()));
  CHECK_FALSE(ex::same_file((dir / "no_dir" / "x").string(), (dir / "no_dir" / "x").string()));
}

TEST_CASE("output_file: the target appears whole at commit, the old file stays until then") {
  const auto dir = scratch("output_file");
  const auto target = dir / "out.txt";
  { std::ofstream(target) << "old"; }
  std::filesystem::permissions(
      target, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  {
    ex::output_file out(target.string());
    out.write("new ");
    out.write(std::string(3u << 20, 'x'));  // past the 1 MiB buffer
    CHECK(contents(target) == "old");
    CHECK(temporaries(dir) == 1);
    out.commit();
  }
  CHECK(contents(target) == "new " + std::string(3u << 20, 'x'));
  CHECK(temporaries(dir) == 0);
  // A replaced file keeps its permissions.
  CHECK((std::filesystem::status(target).permissions() & std::filesystem::perms::all) ==
        (std::filesystem::perms::owner_read | std::filesystem::perms::owner_write));
  // Abandoned (an exception before commit): the old file stays, no temporary.
  try {
    ex::output_file out(target.string());
    out.write("partial");
    throw std::runtime_error("fails half-way");
  } catch (const std::runtime_error&) {
  }
  CHECK(contents(target) == "new " + std::string(3u << 20, 'x'));
  CHECK(temporaries(dir) == 0);
  // Through a symlink: the file it points to is replaced, the link stays.
  std::filesystem::create_symlink(target, dir / "link.txt");
  ex::write_file((dir / "link.txt").string(), "via link");
  CHECK(std::filesystem::is_symlink(dir / "link.txt"));
  CHECK(contents(target) == "via link");
  CHECK(temporaries(dir) == 0);
  // A directory that does not exist: refused, naming the path.
  CHECK_THROWS_WITH_AS(ex::output_file((dir / "none" / "x.txt").string()),
                       doctest::Contains("cannot write"), std::runtime_error);
}

// Hidden files left in `dir` by output_set: temporaries and kept old files.
std::size_t leftovers(const std::filesystem::path& dir) {
  std::size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.front() == '.' && (name.ends_with(".tmp") || name.ends_with(".old"))) ++n;
  }
  return n;
}

TEST_CASE("output_set: every file appears, or every target stays as it was") {
  const auto dir = scratch("output_set");
  const auto a = dir / "a.svg", b = dir / "a.csv", c = dir / "c.csv";
  { std::ofstream(a) << "old a"; }
  { std::ofstream(b) << "old b"; }
  {
    ex::output_set files;
    files.write(a.string(), "new a");
    files.write(c.string(), "new c");
    files.write(b.string(), "new b");
    CHECK(contents(a) == "old a");
    CHECK(!std::filesystem::exists(c));
    files.commit();
  }
  CHECK(contents(a) == "new a");
  CHECK(contents(b) == "new b");
  CHECK(contents(c) == "new c");
  CHECK(leftovers(dir) == 0);

  // The last rename fails (its target has become a directory): the files
  // already renamed are put back, the one that did not exist is gone.
  std::filesystem::remove(b);
  std::filesystem::create_directory(b);
  { std::ofstream(b / "inside") << "x"; }
  std::filesystem::remove(c);
  {
    ex::output_set files;
    files.write(a.string(), "newer a");
    files.write(c.string(), "newer c");
    files.write(b.string(), "newer b");
    CHECK_THROWS_WITH_AS(files.commit(), doctest::Contains("put back as they were"),
                         std::runtime_error);
  }
  CHECK(contents(a) == "new a");
  CHECK(!std::filesystem::exists(c));
  CHECK(std::filesystem::is_directory(b));
  CHECK(leftovers(dir) == 0);

  // A write that fails (past a file-size limit, as a full disk would) before
  // any rename: nothing changes.
  std::filesystem::remove_all(b);
  { std::ofstream(b) << "old b"; }
  rlimit old{};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &old) == 0);
  rlimit small = old;
  small.rlim_cur = 4096;
  {
    ex::output_set files;
    files.write(a.string(), "small a");
    files.write(b.string(), std::string(8192, 'b'));
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
    CHECK_THROWS_AS(files.commit(), std::runtime_error);
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &old) == 0);
  }
  CHECK(contents(a) == "new a");
  CHECK(contents(b) == "old b");
  CHECK(leftovers(dir) == 0);
}

TEST_CASE("write_new_secret: a new file of mode 0600, never over an existing one") {
  const auto dir = scratch("secret");
  const auto path = (dir / "s.hex").string();
  REQUIRE(ex::write_new_secret(path, "abc\n"));
  CHECK(contents(path) == "abc\n");
  CHECK((std::filesystem::status(path).permissions() & std::filesystem::perms::all) ==
        (std::filesystem::perms::owner_read | std::filesystem::perms::owner_write));
  CHECK_FALSE(ex::write_new_secret(path, "other\n"));
  CHECK(contents(path) == "abc\n");
}

TEST_CASE("the command line refuses an output that is an input or another output") {
  const auto dir = scratch("cli_files");
  const std::string in = (dir / "in.csv").string();
  { std::ofstream(in) << "x"; }
  auto refusal = [&](std::vector<std::string> args) {
    std::string input, svg, other;
    ex::command_line cli("t", "test");
    cli.input_file("--in", input, "input");
    cli.output_file("--svg", svg, "plot", "", ex::with_csv_beside);
    cli.output_file("--out", other, "other");
    args.insert(args.begin(), "t");
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());
    return cli.parse(static_cast<int>(argv.size()), argv.data());
  };
  const std::string svg = (dir / "in.svg").string(), out = (dir / "out.txt").string();
  CHECK_FALSE(refusal({"--in", in, "--svg", (dir / "p.svg").string(), "--out", out}).has_value());
  CHECK(refusal({"--in", in, "--svg", svg}) == 2);  // its CSV is the input
  CHECK(refusal({"--in", in, "--out", in}) == 2);
  CHECK(refusal({"--svg", (dir / "p.svg").string(), "--out", (dir / "p.csv").string()}) == 2);
  CHECK(refusal({"--out", (dir / "q.txt").string(), "--svg", (dir / "q.txt").string()}) == 2);
}
