// examples/support/command_line.cpp — command_line on CLI11, compiled once
// for every example (see command_line.hpp).
#include "command_line.hpp"

#include "output_files.hpp"

#include <sys/stat.h>

#include <CLI/CLI.hpp>

#include <fstream>
#include <map>

namespace privet::examples {

namespace {

std::string described(const std::string& help, const std::string& default_text,
                      const std::string& allowed) {
  std::string s = help;
  if (!default_text.empty()) s += " [default: " + default_text + "]";
  if (!allowed.empty()) s += " [allowed: " + allowed + "]";
  return s;
}

// A CLI11 validator from a function that returns the reason a value is
// refused (empty: accepted); CLI11 prefixes the option's name.
CLI::Validator refusing(std::function<std::string(const std::string&)> why) {
  return CLI::Validator([why = std::move(why)](std::string& v) { return why(v); }, "");
}

}  // namespace

struct command_line::impl {
  explicit impl(std::string description, std::string program)
      : app(std::move(description), std::move(program)) {}
  CLI::App app;
  // Every file option, in declaration order, with its current value.
  struct file_option {
    std::string name;
    path_kind kind;
    std::function<std::string()> get;
    derived_paths also;
  };
  std::vector<file_option> files;
};

command_line::command_line(std::string program, std::string description)
    : program_(std::move(program)),
      impl_(std::make_unique<impl>(std::move(description), program_)) {
  impl_->app.set_help_flag("-h,--help", "print this help (every option and its default) and exit");
  impl_->app.get_formatter()->column_width(30);
}

command_line::~command_line() = default;

void command_line::add_whole(const std::string& name, const std::string& help,
                             const std::string& default_text, const std::string& allowed,
                             std::uintmax_t lo, std::uintmax_t hi,
                             std::function<void(std::uintmax_t)> set) {
  auto* opt = impl_->app.add_option_function<std::string>(
      name,
      [lo, hi, allowed, set = std::move(set)](const std::string& v) {
        std::uintmax_t n = 0;
        cli_detail::parse_whole(v, lo, hi, allowed, n);  // the validator accepted it
        set(n);
      },
      described(help, default_text, allowed));
  opt->type_name("N");
  opt->check(refusing([lo, hi, allowed](const std::string& v) {
    std::uintmax_t n = 0;
    return cli_detail::parse_whole(v, lo, hi, allowed, n);
  }));
}

void command_line::add_real(const std::string& name, const std::string& help,
                            const std::string& default_text, const real_interval& range,
                            std::function<void(double)> set) {
  auto* opt = impl_->app.add_option_function<std::string>(
      name,
      [range, set = std::move(set)](const std::string& v) {
        double x = 0;
        cli_detail::parse_real(v, range, x);
        set(x);
      },
      described(help, default_text, range.text()));
  opt->type_name("X");
  opt->check(refusing([range](const std::string& v) {
    double x = 0;
    return cli_detail::parse_real(v, range, x);
  }));
}

void command_line::add_path(const std::string& name, const std::string& help, path_kind kind,
                            const std::string& default_text,
                            std::function<void(const std::string&)> set,
                            std::function<std::string()> get) {
  impl_->files.push_back({name, kind, std::move(get), {}});
  auto* opt = impl_->app.add_option_function<std::string>(
      name, std::move(set), described(help, default_text.empty() ? "none" : default_text, ""));
  const bool dir = kind == path_kind::input_directory || kind == path_kind::output_directory;
  opt->type_name(dir ? "DIR" : "FILE");
  opt->check(refusing([kind](const std::string& v) { return check_path(kind, v); }));
}

void command_line::choice(const std::string& name, std::string& value, const std::string& help,
                          const std::vector<std::string>& allowed) {
  std::string list, names;
  for (std::size_t i = 0; i < allowed.size(); ++i) {
    list += (i == 0 ? "" : i + 1 == allowed.size() ? " or " : ", ") + allowed[i];
    names += (i == 0 ? "" : "|") + allowed[i];
  }
  auto* opt = impl_->app.add_option_function<std::string>(
      name, [&value](const std::string& v) { value = v; }, described(help, value, list));
  opt->type_name(names);
  opt->check(refusing([allowed, list](const std::string& v) -> std::string {
    for (const auto& a : allowed)
      if (v == a) return {};
    return cli_detail::quoted(v) + " is not allowed; allowed: " + list;
  }));
}

void command_line::text(const std::string& name, std::string& value, const std::string& help,
                        std::function<std::string(const std::string&)> why_not,
                        const std::string& type_name) {
  auto* opt = impl_->app.add_option_function<std::string>(
      name, [&value](const std::string& v) { value = v; },
      described(help, value.empty() ? "none" : value, ""));
  opt->type_name(type_name);
  opt->check(refusing(std::move(why_not)));
}

void command_line::flag(const std::string& name, std::function<void()> f, const std::string& help) {
  impl_->app.add_flag_callback(name, std::move(f), help + " [default: off]");
}

std::optional<int> command_line::parse(int argc, const char* const* argv) {
  try {
    impl_->app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::fputs(help().c_str(), stdout);
    return 0;
  } catch (const CLI::ExtrasError&) {
    // CLI11 lists every unexpected argument; name the first, as for a value.
    const auto extras = impl_->app.remaining();
    const std::string first = extras.empty() ? std::string("?") : extras.front();
    return refuse(first + ": not an option of " + program_ + "; allowed: the options --help lists");
  } catch (const CLI::ParseError& e) {
    return refuse(e.what());
  }
  if (const std::string why = check_files(); !why.empty()) return refuse(why);
  return std::nullopt;
}

void command_line::set_derived(const std::string& name, derived_paths also) {
  for (auto& f : impl_->files)
    if (f.name == name) f.also = std::move(also);
}

void command_line::fixed_output(const std::string& label, std::function<std::string()> path,
                                derived_paths also) {
  impl_->files.push_back({label, path_kind::output_file, std::move(path), std::move(also)});
}

std::string command_line::check_files() const {
  // Every path of the run: (option, value, what it is, the option's value
  // when the path is derived from it).
  struct entry {
    std::string option, path, from;
    bool output;
  };
  std::vector<entry> paths;
  for (const auto& f : impl_->files) {
    const std::string v = f.get();
    if (v.empty() || f.kind == path_kind::input_directory) continue;
    if (f.kind == path_kind::output_directory) {
      // A directory to fill (a cache): writable if it exists, else its
      // parent must be, where it will be created (a missing parent is
      // created too, and fails later with its own message).
      std::error_code ec;
      const bool exists = std::filesystem::is_directory(v, ec);
      std::string where = exists ? v : std::filesystem::path(v).parent_path().string();
      if (where.empty()) where = ".";
      if (exists || std::filesystem::is_directory(where, ec)) {
        if (const std::string why = why_not_writable_directory(where); !why.empty()) {
          return f.name + ": " + cli_detail::quoted(v) +
                 (exists ? " is not writable (" + why + ")"
                         : " cannot be created in " + cli_detail::quoted(where) +
                               ", which is not writable (" + why + ")") +
                 "; allowed: a directory the program can write";
        }
      }
      continue;
    }
    const bool output = f.kind == path_kind::output_file;
    paths.push_back({f.name, v, {}, output});
    if (output && f.also)
      for (const auto& d : f.also(v)) paths.push_back({f.name, d, v, true});
  }
  const auto shown = [](const entry& e) {
    return e.from.empty() ? cli_detail::quoted(e.path)
                          : cli_detail::quoted(e.from) + " (which also writes " +
                                cli_detail::quoted(e.path) + ")";
  };
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const entry& out = paths[i];
    if (!out.output) continue;
    if (const std::string why = why_not_writable(out.path); !why.empty())
      return out.option + ": " + why + "; allowed: a file in a writable directory";
    for (std::size_t j = 0; j < paths.size(); ++j) {
      const entry& other = paths[j];
      // An output against every input, and against the outputs before it
      // (each pair once).
      if (j == i || (other.output && j > i) || !same_file(out.path, other.path)) continue;
      const std::string what = other.output ? "another output of this run"
                               : other.option.find("secret") != std::string::npos
                                   ? "the secret"
                                   : "an input of this run";
      std::string same = other.option == out.option && other.from.empty() != out.from.empty()
                             ? "the option's own file"
                             : other.option + " " + cli_detail::quoted(other.path);
      return out.option + ": " + shown(out) + " is the same file as " + same + ", " + what +
             "; allowed: a file that is not an input, the secret or another output of this run";
    }
  }
  return {};
}

bool command_line::given(const std::string& name) const {
  return impl_->app.count(name) > 0;
}

std::string command_line::help() const {
  return impl_->app.help();
}

int command_line::refuse(const std::string& message) const {
  std::string line = message;
  for (char& c : line)
    if (c == '\n' || c == '\r') c = ' ';
  std::fprintf(stderr, "%s: %s (see --help)\n", program_.c_str(), line.c_str());
  return 2;
}

std::string command_line::check_path(path_kind kind, const std::string& v) {
  namespace fs = std::filesystem;
  const std::string q = cli_detail::quoted(v);
  std::error_code ec;
  const auto st = fs::status(v, ec);
  switch (kind) {
    case path_kind::input_file:
      if (v.empty()) return "an empty path; allowed: a readable file";
      if (!fs::exists(st)) return q + " does not exist; allowed: a readable file";
      if (fs::is_directory(st)) return q + " is a directory; allowed: a readable file";
      if (!fs::is_regular_file(st)) return q + " is not a regular file; allowed: a readable file";
      if (!std::ifstream(v)) return q + " cannot be read; allowed: a readable file";
      return {};
    case path_kind::secret_file: {
      const std::string allowed =
          "allowed: a regular file that only its owner can read (chmod 600 " + v + ")";
      if (v.empty()) return "an empty path; allowed: a readable file";
      if (!fs::exists(st)) return q + " does not exist; allowed: a readable file";
      if (!fs::is_regular_file(st)) return q + " is not a regular file; " + allowed;
      struct stat s {};
      if (::stat(v.c_str(), &s) != 0) return q + " cannot be read; " + allowed;
      if ((s.st_mode & 077) != 0) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(s.st_mode & 07777));
        return q + " has mode " + mode + ", open to group or others; " + allowed;
      }
      return {};
    }
    case path_kind::input_directory:
      if (v.empty()) return "an empty path; allowed: an existing directory";
      if (!fs::exists(st)) return q + " does not exist; allowed: an existing directory";
      if (!fs::is_directory(st)) return q + " is not a directory; allowed: an existing directory";
      return {};
    case path_kind::output_file: {
      if (v.empty()) return "an empty path; allowed: a file to write";
      if (fs::is_directory(st)) return q + " is a directory; allowed: a file to write";
      const fs::path parent = fs::path(v).parent_path();
      if (!parent.empty() && !fs::is_directory(parent, ec)) {
        return q + " is in " + cli_detail::quoted(parent.string()) +
               ", which is not a directory; allowed: a file in an existing directory";
      }
      return {};
    }
    case path_kind::output_directory:
      if (v.empty()) return "an empty path; allowed: a directory";
      if (fs::exists(st) && !fs::is_directory(st))
        return q + " exists and is not a directory; allowed: a directory";
      return {};
  }
  return {};
}

}  // namespace privet::examples
