// examples/support/command_line.hpp — the examples' shared command line, on
// CLI11 (Debian libcli11-dev, header-only). Every option is declared with its
// default and its allowed values, which --help lists; a value outside them is
// refused before any work starts, with one line on stderr naming the option,
// the value given and what is allowed, and exit code 2:
//
//   ngram_extraction: --length: 100000 is out of range; allowed: 1 to 20
//
// Values are parsed strictly (a count is decimal digits only, so "-5" is
// refused instead of wrapping to 2^64 - 5, and "4294967297" is refused
// instead of being truncated to an unsigned int), files are checked for what
// they must be (a directory given as a file is refused), and thread counts
// are bounded, so that no example reaches std::thread with an absurd count.
// Outputs never destroy what the user owns: parse() refuses an output (or a
// file an output option also writes, such as the CSV beside a plot) that is
// the same file as an input, the secret or another output of the run, or
// that lies in a directory the program cannot write, before any work; the
// examples then write every file through support/output_files.hpp (a
// temporary file renamed over the target), and a secret file readable by
// group or others is refused.
// CLI11 itself is included only by command_line.cpp, compiled once into the
// privet_examples_cli library (CLI11 costs seconds of compile time per
// translation unit); examples link that library.
//
// Use:
//   ex::command_line cli("ngram_extraction", "What the program does.");
//   cli.count("--length", o.length, "n-gram length T", 1, 20);
//   cli.real("--epsilon", o.epsilon, "privacy budget", ex::positive);
//   cli.threads("--threads", o.threads);
//   cli.input_file("--sample", o.sample, "embedded sample");
//   cli.output_file("--svg", o.svg, "plot", "", ex::with_csv_beside);
//   cli.flag("--quick", o.quick, "a small run");
//   if (auto exit_code = cli.parse(argc, argv)) return *exit_code;
#pragma once

#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace privet::examples {

/// An interval of real numbers, for command_line::real(); its text is what
/// an error message and --help print as "allowed".
struct real_interval {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool lo_open = true, hi_open = true;

  [[nodiscard]] bool contains(double v) const {
    return (lo_open ? v > lo : v >= lo) && (hi_open ? v < hi : v <= hi);
  }
  [[nodiscard]] std::string text() const;
};

inline constexpr real_interval positive{0, std::numeric_limits<double>::infinity(), true, true};
inline constexpr real_interval any_real{};
/// (0, 1): a probability that is neither impossible nor certain.
inline constexpr real_interval open_unit{0, 1, true, true};
/// (0, 1]
inline constexpr real_interval unit_fraction{0, 1, true, false};

namespace cli_detail {

/// Shortest round-trip-free text for a default: 1e-07 as 1e-07, 0.3 as 0.3.
inline std::string number(double v) {
  if (std::isinf(v)) return v > 0 ? "infinity" : "-infinity";
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

inline std::string quoted(const std::string& s) {
  return "'" + s + "'";
}

/// A whole number in [lo, hi] from decimal digits only; else the reason.
inline std::string parse_whole(const std::string& s, std::uintmax_t lo, std::uintmax_t hi,
                               const std::string& allowed, std::uintmax_t& out) {
  if (s.empty()) return "an empty value is not a whole number; allowed: " + allowed;
  if (s[0] == '-' && s.size() > 1 && s.find_first_not_of("0123456789", 1) == std::string::npos)
    return s + " is negative; allowed: " + allowed;
  if (s.find_first_not_of("0123456789") != std::string::npos)
    return quoted(s) + " is not a whole number; allowed: " + allowed;
  errno = 0;
  const std::uintmax_t v = std::strtoumax(s.c_str(), nullptr, 10);
  if (errno == ERANGE || v < lo || v > hi) return s + " is out of range; allowed: " + allowed;
  out = v;
  return {};
}

/// A finite real number in `range`; else the reason.
inline std::string parse_real(const std::string& s, const real_interval& range, double& out) {
  const std::string allowed = range.text();
  if (s.empty()) return "an empty value is not a number; allowed: " + allowed;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || std::isspace(static_cast<unsigned char>(s[0])))
    return quoted(s) + " is not a number; allowed: " + allowed;
  if (!std::isfinite(v) || errno == ERANGE)
    return s + " is not a finite number; allowed: " + allowed;
  if (!range.contains(v)) return s + " is out of range; allowed: " + allowed;
  out = v;
  return {};
}

inline std::string range_text(std::uintmax_t lo, std::uintmax_t hi) {
  if (hi == std::numeric_limits<std::uintmax_t>::max()) return std::to_string(lo) + " or more";
  return std::to_string(lo) + " to " + std::to_string(hi);
}

}  // namespace cli_detail

inline std::string real_interval::text() const {
  if (std::isinf(lo) && std::isinf(hi)) return "any finite number";
  if (std::isinf(hi)) return std::string(lo_open ? "> " : ">= ") + cli_detail::number(lo);
  if (std::isinf(lo)) return std::string(hi_open ? "< " : "<= ") + cli_detail::number(hi);
  return std::string(lo_open ? "(" : "[") + cli_detail::number(lo) + ", " + cli_detail::number(hi) +
         (hi_open ? ")" : "]");
}

class command_line {
 public:
  /// The largest thread count an example accepts: far above any machine it
  /// runs on, far below what makes std::thread fail.
  static constexpr unsigned max_threads = 1024;

  command_line(std::string program, std::string description);
  ~command_line();
  command_line(const command_line&) = delete;
  command_line& operator=(const command_line&) = delete;

  /// A whole number in [lo, hi], written in decimal digits.
  template <std::unsigned_integral T>
  void count(const std::string& name, T& value, const std::string& help,
             std::type_identity_t<T> lo = 0,
             std::type_identity_t<T> hi = std::numeric_limits<T>::max()) {
    add_whole(name, help, std::to_string(value), cli_detail::range_text(lo, hi), lo, hi,
              [&value](std::uintmax_t v) { value = static_cast<T>(v); });
  }
  /// The same for a count whose default depends on other options
  /// (`default_text` says how); left empty unless given.
  template <std::unsigned_integral T>
  void count(const std::string& name, std::optional<T>& value, const std::string& help,
             std::type_identity_t<T> lo, std::type_identity_t<T> hi,
             const std::string& default_text) {
    add_whole(name, help, default_text, cli_detail::range_text(lo, hi), lo, hi,
              [&value](std::uintmax_t v) { value = static_cast<T>(v); });
  }

  /// A finite real number in `range`.
  void real(const std::string& name, double& value, const std::string& help,
            const real_interval& range) {
    add_real(name, help, cli_detail::number(value), range, [&value](double v) { value = v; });
  }
  void real(const std::string& name, std::optional<double>& value, const std::string& help,
            const real_interval& range, const std::string& default_text) {
    add_real(name, help, default_text, range, [&value](double v) { value = v; });
  }

  /// A thread count: 0 (every core) or 1 to max_threads.
  void threads(const std::string& name, unsigned& value,
               const std::string& help = "worker threads") {
    add_whole(name, help, value == 0 ? "0 (every core)" : std::to_string(value),
              "0 (every core) or 1 to " + std::to_string(max_threads), 0, max_threads,
              [&value](std::uintmax_t v) { value = static_cast<unsigned>(v); });
  }

  enum class path_kind { input_file, input_directory, output_file, output_directory, secret_file };
  /// Other files an output option also writes, from its value (e.g. the CSV
  /// beside a plot): checked like the option's own file.
  using derived_paths = std::function<std::vector<std::string>(const std::string&)>;
  /// An existing, readable regular file.
  template <class Path>
  void input_file(const std::string& name, Path& value, const std::string& help,
                  const std::string& default_text = "") {
    add_path(name, help, path_kind::input_file, value, default_text);
  }
  /// An existing directory.
  template <class Path>
  void input_directory(const std::string& name, Path& value, const std::string& help,
                       const std::string& default_text = "") {
    add_path(name, help, path_kind::input_directory, value, default_text);
  }
  /// A file to write: not a directory, in a writable directory that
  /// exists, and not the same file (support/output_files.hpp: same_file) as
  /// an input, the secret or another output of the run, nor are the files
  /// `also` says it writes beside it. Checked by parse() for the value
  /// given or the default, before any work.
  template <class Path>
  void output_file(const std::string& name, Path& value, const std::string& help,
                   const std::string& default_text = "", derived_paths also = {}) {
    add_path(name, help, path_kind::output_file, value, default_text);
    set_derived(name, std::move(also));
  }
  /// A secret to read: an existing regular file that only its owner can
  /// read or write (else refused with the `chmod 600` that fixes it).
  template <class Path>
  void secret_file(const std::string& name, Path& value, const std::string& help,
                   const std::string& default_text = "") {
    add_path(name, help, path_kind::secret_file, value, default_text);
  }
  /// A file the program writes under a fixed name, named by no option (e.g.
  /// a plot in the working directory): checked as an output, under the
  /// label `label`, when `path()` (called after the options are read) is
  /// not empty.
  void fixed_output(const std::string& label, std::function<std::string()> path,
                    derived_paths also = {});
  /// A directory to create or reuse: not an existing non-directory.
  template <class Path>
  void output_directory(const std::string& name, Path& value, const std::string& help,
                        const std::string& default_text = "") {
    add_path(name, help, path_kind::output_directory, value, default_text);
  }

  /// One of `allowed`, spelled exactly.
  void choice(const std::string& name, std::string& value, const std::string& help,
              const std::vector<std::string>& allowed);

  /// Free text checked by `why_not` (the reason a value is refused, ending
  /// in "; allowed: ..."; empty to accept), shown in --help as `type_name`.
  void text(const std::string& name, std::string& value, const std::string& help,
            std::function<std::string(const std::string&)> why_not,
            const std::string& type_name = "TEXT");

  /// A switch, off unless given.
  void flag(const std::string& name, bool& value, const std::string& help) {
    flag(
        name, [&value] { value = true; }, help);
  }
  /// A switch that runs `f` when given.
  void flag(const std::string& name, std::function<void()> f, const std::string& help);

  /// Parses the command line: nullopt to go on; otherwise the program's exit
  /// code: 0 after printing --help to stdout, 2 after printing one line on
  /// stderr for a refused command line.
  [[nodiscard]] std::optional<int> parse(int argc, const char* const* argv);
  /// After the values are read, every output (given or by default, and the
  /// files derived from it) is refused if its directory is not writable or
  /// if it is the same file as an input, the secret or another output.
  [[nodiscard]] std::optional<int> parse(int argc, char** argv) {
    return parse(argc, const_cast<const char* const*>(argv));
  }

  /// Whether the command line gave option `name` (e.g. "--sample").
  [[nodiscard]] bool given(const std::string& name) const;

  /// The --help text.
  [[nodiscard]] std::string help() const;

  /// Prints a refusal found after parsing (a combination of options, say)
  /// in the same one-line form; returns the exit code, 2.
  int refuse(const std::string& message) const;

  /// Why `path` is not a `kind` path (empty if it is one).
  [[nodiscard]] static std::string check_path(path_kind kind, const std::string& path);

 private:
  void add_whole(const std::string& name, const std::string& help, const std::string& default_text,
                 const std::string& allowed, std::uintmax_t lo, std::uintmax_t hi,
                 std::function<void(std::uintmax_t)> set);
  void add_real(const std::string& name, const std::string& help, const std::string& default_text,
                const real_interval& range, std::function<void(double)> set);
  void add_path(const std::string& name, const std::string& help, path_kind kind,
                const std::string& default_text, std::function<void(const std::string&)> set,
                std::function<std::string()> get);
  // default_text, when given, replaces the value's own text in --help.
  void add_path(const std::string& name, const std::string& help, path_kind kind,
                std::string& value, const std::string& default_text) {
    add_path(
        name, help, kind, default_text.empty() ? value : default_text,
        [&value](const std::string& v) { value = v; }, [&value] { return value; });
  }
  void add_path(const std::string& name, const std::string& help, path_kind kind,
                std::filesystem::path& value, const std::string& default_text) {
    add_path(
        name, help, kind, default_text.empty() ? value.string() : default_text,
        [&value](const std::string& v) { value = v; }, [&value] { return value.string(); });
  }
  void set_derived(const std::string& name, derived_paths also);
  // The first output that is unwritable or the same file as another path of
  // the run, as a refusal message; empty if none.
  [[nodiscard]] std::string check_files() const;

  struct impl;  // the CLI11 application, in command_line.cpp
  std::string program_;
  std::unique_ptr<impl> impl_;
};

}  // namespace privet::examples
