// privet/io/pageview_reader.hpp — a streaming reader for page-view rows in
// Wikimedia's column layout, tab- or comma-separated:
//
//   page_id  page_title  project  country  date  actor_signature
//
// with a header line naming those columns (in any order; other columns are
// ignored). Rows are read one line at a time, so a day of hundreds of
// millions of rows never sits in memory as text. Projects and countries are
// interned to dense indices in order of first appearance, or looked up in
// lists fixed beforehand (the public project and country lists), in which
// case an unknown one is an error rather than a new cell. The actor
// signature is hashed to 64 bits with BLAKE2b (a collision merges two
// actors, which only tightens their joint bound).
//
// A malformed row (wrong column count, a blank line, a page_id that is not a
// decimal integer below 2^64, an empty field, a line over max_line_bytes)
// throws serialization_error naming the line and the problem; nothing is
// skipped silently. The newline that ends the last row is not a blank line:
// a blank line is an empty line between two newlines, wherever it stands.
// Fields are not quoted: the layout has no embedded separators except in
// page_title, which is read only to be skipped, so a CSV title with commas
// must be quoted with "..." (doubled quotes inside), as RFC 4180 says.
#pragma once

#include <privet/algorithms/pageview_histogram.hpp>
#include <privet/core/detail/sodium.hpp>
#include <privet/core/error.hpp>
#include <privet/core/validate.hpp>

#include <charconv>
#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace privet::io {

/// Dense indices for names, in order of first appearance (or fixed).
class name_index {
 public:
  name_index() = default;
  /// A fixed list: unknown names are rejected. Throws invalid_parameter
  /// naming `names` if a name repeats (it would hold an id no row can reach).
  explicit name_index(const std::vector<std::string>& names) : fixed_(true) {
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (const auto it = ids_.find(names[i]); it != ids_.end()) {
        throw invalid_parameter("names", "privet: names[" + std::to_string(i) + "] = '" + names[i] +
                                             "' is invalid; allowed: distinct names ('" + names[i] +
                                             "' is also names[" + std::to_string(it->second) +
                                             "])");
      }
      insert(names[i]);
    }
  }

  /// The index of `name`, adding it unless the list is fixed; nothing if
  /// the list is fixed and does not hold it.
  std::optional<std::uint32_t> find_or_add(std::string_view name) {
    if (auto it = ids_.find(std::string(name)); it != ids_.end()) return it->second;
    if (fixed_) return std::nullopt;
    return insert(std::string(name));
  }
  [[nodiscard]] const std::vector<std::string>& names() const noexcept { return names_; }
  [[nodiscard]] std::size_t size() const noexcept { return names_.size(); }

 private:
  std::uint32_t insert(const std::string& n) {
    const auto id = static_cast<std::uint32_t>(names_.size());
    ids_.emplace(n, id);
    names_.push_back(n);
    return id;
  }

  bool fixed_ = false;
  std::unordered_map<std::string, std::uint32_t> ids_;
  std::vector<std::string> names_;
};

class pageview_reader {
 public:
  static constexpr std::size_t default_max_line_bytes = 1 << 16;

  /// Reads the header line. Throws serialization_error if it lacks one of
  /// the four columns the histogram needs (page_id, project, country,
  /// actor_signature).
  explicit pageview_reader(std::istream& in, name_index projects = {}, name_index countries = {},
                           std::size_t max_line_bytes = default_max_line_bytes)
      : in_(in),
        projects_(std::move(projects)),
        countries_(std::move(countries)),
        max_line_(validate_at_least<std::size_t>(max_line_bytes, 16, "max_line_bytes")) {
    detail::ensure_sodium();
    if (!next_line()) throw serialization_error("privet: pageview data is empty: no header line");
    sep_ = line_.find('\t') != std::string::npos ? '\t' : ',';
    const auto fields = split(line_);
    for (std::size_t i = 0; i < fields.size(); ++i) {
      const std::string_view f = fields[i];
      if (f == "page_id") page_col_ = i;
      if (f == "project") project_col_ = i;
      if (f == "country") country_col_ = i;
      if (f == "actor_signature") actor_col_ = i;
    }
    columns_ = fields.size();
    for (auto [col, name] :
         {std::pair{page_col_, "page_id"}, std::pair{project_col_, "project"},
          std::pair{country_col_, "country"}, std::pair{actor_col_, "actor_signature"}}) {
      if (col == npos) {
        throw serialization_error(std::string("privet: pageview header (line 1) has no '") + name +
                                  "' column");
      }
    }
  }

  /// The next row, or nothing at the end. Throws serialization_error for a
  /// malformed row (a blank line included), naming its line.
  std::optional<pageview::view> next() {
    if (next_line()) {
      if (line_.empty()) fail("is blank; the header has " + std::to_string(columns_) + " fields");
      const auto fields = split(line_);
      if (fields.size() != columns_) {
        fail("has " + std::to_string(fields.size()) + " fields; the header has " +
             std::to_string(columns_));
      }
      pageview::view v{};
      const std::string_view page = fields[page_col_];
      const auto [end, ec] = std::from_chars(page.data(), page.data() + page.size(), v.tuple.page);
      if (page.empty() || ec != std::errc() || end != page.data() + page.size()) {
        fail("has page_id '" + std::string(page) + "'; allowed: a decimal integer in [0, 2^64)");
      }
      v.tuple.project = intern(projects_, fields[project_col_], "project");
      const std::uint32_t c = intern(countries_, fields[country_col_], "country");
      if (c > 0xFFFF) fail("has more than 65536 distinct countries");
      v.tuple.country = static_cast<std::uint16_t>(c);
      const std::string_view actor = fields[actor_col_];
      if (actor.empty()) fail("has an empty actor_signature");
      unsigned char h[8];
      crypto_generichash(h, sizeof h, reinterpret_cast<const unsigned char*>(actor.data()),
                         actor.size(), nullptr, 0);
      for (int i = 7; i >= 0; --i) v.actor = (v.actor << 8) | h[i];
      ++rows_;
      return v;
    }
    return std::nullopt;
  }

  /// Calls f(view) for every remaining row; returns the number of rows.
  template <class F>
  std::uint64_t for_each(F&& f) {
    std::uint64_t n = 0;
    while (auto v = next()) {
      f(*v);
      ++n;
    }
    return n;
  }

  [[nodiscard]] const name_index& projects() const noexcept { return projects_; }
  [[nodiscard]] const name_index& countries() const noexcept { return countries_; }
  [[nodiscard]] std::uint64_t rows() const noexcept { return rows_; }
  [[nodiscard]] std::uint64_t line() const noexcept { return line_no_; }

 private:
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  bool next_line() {
    line_.clear();
    if (!in_.good()) return false;
    char ch;
    bool any = false;
    while (in_.get(ch)) {
      any = true;
      if (ch == '\n') break;
      if (line_.size() >= max_line_) {
        ++line_no_;
        fail("is longer than max_line_bytes = " + std::to_string(max_line_));
      }
      line_.push_back(ch);
    }
    if (!any) return false;
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();
    ++line_no_;
    return true;
  }

  // Splits on the separator; a field starting with '"' runs to its closing
  // quote ("" inside is a quote) and is returned without the quotes.
  std::vector<std::string_view> split(const std::string& s) {
    std::vector<std::string_view> out;
    unquoted_.clear();
    unquoted_.reserve(s.size());
    std::size_t i = 0;
    for (;;) {
      if (i < s.size() && s[i] == '"') {
        const std::size_t start = unquoted_.size();
        ++i;
        for (;;) {
          if (i >= s.size()) fail("has an unterminated quoted field");
          if (s[i] == '"') {
            if (i + 1 < s.size() && s[i + 1] == '"') {
              unquoted_.push_back('"');
              i += 2;
              continue;
            }
            ++i;
            break;
          }
          unquoted_.push_back(s[i++]);
        }
        out.emplace_back(unquoted_.data() + start, unquoted_.size() - start);
        if (i < s.size() && s[i] != sep_) fail("has text after a closing quote");
      } else {
        const std::size_t end = s.find(sep_, i);
        const std::size_t stop = end == std::string::npos ? s.size() : end;
        out.emplace_back(s.data() + i, stop - i);
        i = stop;
      }
      if (i >= s.size()) break;
      ++i;  // the separator
      if (i == s.size()) {
        out.emplace_back();  // a trailing empty field
        break;
      }
    }
    return out;
  }

  std::uint32_t intern(name_index& index, std::string_view name, const char* what) {
    if (name.empty()) fail(std::string("has an empty ") + what);
    if (auto id = index.find_or_add(name)) return *id;
    fail(std::string("has ") + what + " '" + std::string(name) +
         "', which is not in the given list");
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw serialization_error("privet: pageview line " + std::to_string(line_no_) + " " + what);
  }

  std::istream& in_;
  name_index projects_;
  name_index countries_;
  std::size_t max_line_;
  std::string line_;
  std::string unquoted_;
  char sep_ = '\t';
  std::size_t columns_ = 0;
  std::size_t page_col_ = npos, project_col_ = npos, country_col_ = npos, actor_col_ = npos;
  std::uint64_t line_no_ = 0;
  std::uint64_t rows_ = 0;
};

}  // namespace privet::io
