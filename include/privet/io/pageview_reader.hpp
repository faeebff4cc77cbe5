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
// case an unknown one makes the row malformed rather than a new cell. The
// actor signature is hashed to 64 bits with BLAKE2b (actor_signature_hash;
// a collision merges two actors, which only tightens their joint bound): a
// writer of rows whose actor ids are already such hashes writes the text
// they came from, never the id (hashing it again would give other actors,
// and another release for the same secret).
//
// A malformed data row (wrong column count, a blank line, a page_id that is
// not a decimal integer below 2^64, an empty field, a name missing from a
// fixed list, a 65537th country, a line over max_line_bytes) is skipped and
// counted in skipped_rows() by default: the reader feeds a DP release, and
// an exception caused by one row would be an output without noise (whether
// the day is released would depend on that row). A skipped row leaves the
// name lists as they were; with fixed lists, which a release should use
// (interned ids depend on the order of the rows), whether a row is skipped
// depends on that row alone, so neighbouring inputs give neighbouring rows
// (docs/data_rule.md). skipped_rows() and last_skip_reason() describe the
// raw data: do not release them. With malformed_rows::strict a malformed row
// throws serialization_error naming the line and the problem instead (for
// checking a file). A missing header, or one without the four needed
// columns, is a format error and always throws. The newline that ends the
// last row is not a blank line: a blank line is an empty line between two
// newlines, wherever it stands.
//
// The separator is the header's: a tab if the header holds one, else a comma.
// Tab-separated fields are literal, as in Wikimedia's dumps: no quoting, so
// a title that begins with or holds '"' ("Heroes"_(David_Bowie_album),
// "Weird_Al"_Yankovic) is a title. Comma-separated fields keep RFC 4180
// quoting: a field that begins with '"' runs to its closing quote ("" inside
// is a quote), so a CSV title with commas is quoted.
#pragma once

#include <privet/algorithms/pageview_histogram.hpp>
#include <privet/core/detail/sodium.hpp>
#include <privet/core/error.hpp>
#include <privet/core/validate.hpp>
#include <privet/sketches/detail/string_hash.hpp>

#include <tsl/robin_map.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <functional>
#include <istream>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace privet::io {

/// The 64-bit actor id pageview_reader gives the signature `text`: the
/// first 8 bytes of its BLAKE2b digest, little-endian.
inline std::uint64_t actor_signature_hash(std::string_view text) {
  detail::ensure_sodium();
  unsigned char h[8];
  crypto_generichash(h, sizeof h, reinterpret_cast<const unsigned char*>(text.data()), text.size(),
                     nullptr, 0);
  std::uint64_t out = 0;
  for (int i = 7; i >= 0; --i) out = (out << 8) | h[i];
  return out;
}

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
    if (auto it = ids_.find(name); it != ids_.end()) return it->second;
    if (fixed_) return std::nullopt;
    return insert(std::string(name));
  }
  /// The index of `name`, or nothing; never adds.
  [[nodiscard]] std::optional<std::uint32_t> find(std::string_view name) const {
    if (auto it = ids_.find(name); it != ids_.end()) return it->second;
    return std::nullopt;
  }
  /// Whether the list is fixed (built from a list of names) rather than
  /// grown by find_or_add().
  [[nodiscard]] bool fixed() const noexcept { return fixed_; }
  /// The names, indexed by their ids.
  [[nodiscard]] const std::vector<std::string>& names() const noexcept { return names_; }
  /// The number of names (ids are [0, size())).
  [[nodiscard]] std::size_t size() const noexcept { return names_.size(); }

 private:
  std::uint32_t insert(const std::string& n) {
    const auto id = static_cast<std::uint32_t>(names_.size());
    ids_.emplace(n, id);
    names_.push_back(n);
    return id;
  }

  bool fixed_ = false;
  // Looked up by string_view (a transparent hash): no string per row.
  tsl::robin_map<std::string, std::uint32_t, detail::histogram_hash<std::string>, std::equal_to<>>
      ids_;
  std::vector<std::string> names_;
};

/// What pageview_reader does with a malformed data row.
enum class malformed_rows {
  skip,   ///< count it in skipped_rows() and read on: the default, for a DP release
  strict  ///< throw serialization_error naming the line: for checking a file
};

/// A streaming reader of page-view rows (Wikimedia's columns page_id,
/// project, country, actor_signature, in the header's order, tab- or
/// comma-separated; see the file comment): each well-formed row becomes a
/// pageview::view (actor hash, page, project and country ids), the input of
/// the pageview histogram. Rows are read one at a time through a 64 KiB
/// buffer, so memory is O(max_line_bytes) plus the name lists, whatever the
/// file's size; each row costs O(its length) plus one BLAKE2b hash of its
/// actor unless cached. Malformed data rows are skipped and counted by
/// default (a row must not make a DP release throw), or throw with
/// malformed_rows::strict. The reader holds a reference to the stream,
/// which must outlive it.
class pageview_reader {
 public:
  /// The default longest line: 64 KiB.
  static constexpr std::size_t default_max_line_bytes = 1 << 16;

  /// Reads the header line. Throws invalid_parameter naming max_line_bytes
  /// (>= 16), or serialization_error if there is no header line, it is
  /// longer than max_line_bytes, or it lacks one of the four columns the
  /// histogram needs (page_id, project, country, actor_signature).
  explicit pageview_reader(std::istream& in, name_index projects = {}, name_index countries = {},
                           std::size_t max_line_bytes = default_max_line_bytes,
                           malformed_rows on_malformed = malformed_rows::skip)
      : in_(in),
        projects_(std::move(projects)),
        countries_(std::move(countries)),
        max_line_(validate_at_least<std::size_t>(max_line_bytes, 16, "max_line_bytes")),
        strict_(on_malformed == malformed_rows::strict),
        buf_(2 * chunk_bytes) {
    detail::ensure_sodium();
    // The header is a format, not a row of data: a bad one always throws.
    const line_status header = next_line(true);
    if (header == line_status::end) {
      throw serialization_error("privet: pageview data is empty: no header line");
    }
    if (header == line_status::too_long) throw serialization_error(message(too_long_text()));
    sep_ = line_.find('\t') != std::string_view::npos ? '\t' : ',';
    std::vector<std::string_view> fields;
    if (!split(line_, fields)) throw serialization_error(message(problem_));
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

  /// The next well-formed row, or nothing at the end. A malformed row
  /// (a blank line included) is skipped and counted, or, with
  /// malformed_rows::strict, throws serialization_error naming its line.
  std::optional<pageview::view> next() {
    for (;;) {
      const line_status s = next_line(strict_);
      if (s == line_status::end) return std::nullopt;
      std::optional<pageview::view> v;
      if (s == line_status::too_long) {
        problem_ = too_long_text();
      } else {
        v = parse();
      }
      if (v) {
        ++rows_;
        return v;
      }
      if (strict_) throw serialization_error(message(problem_));
      ++skipped_;
      last_skip_ = message(problem_);
    }
  }

  /// Calls f(view) for every remaining well-formed row; returns their number.
  template <class F>
  std::uint64_t for_each(F&& f) {
    std::uint64_t n = 0;
    while (auto v = next()) {
      f(*v);
      ++n;
    }
    return n;
  }

  /// The project names, indexed by the ids the rows carry.
  [[nodiscard]] const name_index& projects() const noexcept { return projects_; }
  /// The country names, indexed by the ids the rows carry.
  [[nodiscard]] const name_index& countries() const noexcept { return countries_; }
  /// Well-formed rows returned so far.
  [[nodiscard]] std::uint64_t rows() const noexcept { return rows_; }
  /// Malformed data rows skipped so far. A diagnostic of the raw data, like
  /// the histograms' out_of_domain(): do not release it.
  [[nodiscard]] std::uint64_t skipped_rows() const noexcept { return skipped_; }
  /// Why the last skipped row was skipped, as strict mode's message (empty
  /// if none was). Holds raw data: do not release it.
  [[nodiscard]] const std::string& last_skip_reason() const noexcept { return last_skip_; }
  /// The number of the last line read, 1-based (the header is line 1).
  [[nodiscard]] std::uint64_t line() const noexcept { return line_no_; }
  /// Bytes of the stream consumed so far (the header and the rows returned
  /// or skipped; read-ahead not included): progress through a file.
  [[nodiscard]] std::uint64_t bytes() const noexcept { return read_ - (end_ - pos_); }

 private:
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  enum class line_status { read, too_long, end };

  // Reads one line into line_ (a view into the buffer, without its newline
  // or a final '\r'). A line over max_line_bytes is not kept: with
  // stop_at_limit the read stops there (strict mode throws at once, having
  // read at most max_line_bytes + 2 chunks of it); otherwise the rest of it
  // is discarded up to its newline, a chunk at a time, so the next row is
  // read normally. The stream is read in chunks of 64 KiB and rows are found
  // with memchr, instead of one stream call per byte.
  line_status next_line(bool stop_at_limit) {
    line_ = {};
    for (;;) {
      const std::size_t have = end_ - pos_;
      const char* start = buf_.data() + pos_;
      const void* nl = have > max_line_ ? std::memchr(start, '\n', max_line_ + 1)
                                        : std::memchr(start, '\n', have);
      if (nl != nullptr) {
        const auto len = static_cast<std::size_t>(static_cast<const char*>(nl) - start);
        pos_ += len + 1;
        ++line_no_;
        line_ = std::string_view(start, len);
        if (!line_.empty() && line_.back() == '\r') line_.remove_suffix(1);
        return line_status::read;
      }
      if (have > max_line_) {
        ++line_no_;
        if (!stop_at_limit) skip_rest_of_line();
        return line_status::too_long;
      }
      if (eof_) {
        if (have == 0) return line_status::end;
        // The last line, without a newline.
        pos_ = end_;
        ++line_no_;
        line_ = std::string_view(start, have);
        if (line_.back() == '\r') line_.remove_suffix(1);
        return line_status::read;
      }
      refill();
    }
  }

  // Moves the unread bytes to the front and reads up to one chunk after them.
  void refill() {
    if (pos_ > 0) {
      std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
      end_ -= pos_;
      pos_ = 0;
    }
    // The buffer grows (up to max_line_bytes + 1 + a chunk) only for lines
    // that need it: a large max_line_bytes costs memory only if used.
    if (buf_.size() - end_ < chunk_bytes) {
      // max_line_bytes + 1 + a chunk, saturating (max_line_bytes may be SIZE_MAX).
      constexpr std::size_t top = std::numeric_limits<std::size_t>::max();
      const std::size_t limit =
          max_line_ < top - 1 - chunk_bytes ? max_line_ + 1 + chunk_bytes : top;
      buf_.resize(std::min(limit, std::max(2 * buf_.size(), end_ + chunk_bytes)));
    }
    const std::size_t room = std::min(chunk_bytes, buf_.size() - end_);
    std::size_t got = 0;
    if (in_.good()) {
      in_.read(buf_.data() + end_, static_cast<std::streamsize>(room));
      got = static_cast<std::size_t>(in_.gcount());
    }
    end_ += got;
    read_ += got;
    if (got == 0) eof_ = true;
  }

  // Discards the current (too long) line up to and including its newline.
  void skip_rest_of_line() {
    for (;;) {
      const void* nl = std::memchr(buf_.data() + pos_, '\n', end_ - pos_);
      if (nl != nullptr) {
        pos_ = static_cast<std::size_t>(static_cast<const char*>(nl) - buf_.data()) + 1;
        return;
      }
      pos_ = end_ = 0;
      if (eof_) return;
      refill();
      if (eof_) return;
    }
  }

  // The row in line_, or nothing with problem_ saying why. Names are added
  // to the lists only once the whole row is known to be well formed.
  std::optional<pageview::view> parse() {
    if (line_.empty())
      return bad("is blank; the header has " + std::to_string(columns_) + " fields");
    if (!split(line_, fields_)) return std::nullopt;
    if (fields_.size() != columns_) {
      return bad("has " + std::to_string(fields_.size()) + " fields; the header has " +
                 std::to_string(columns_));
    }
    pageview::view v{};
    const std::string_view page = fields_[page_col_];
    const auto [end, ec] = std::from_chars(page.data(), page.data() + page.size(), v.tuple.page);
    if (page.empty() || ec != std::errc() || end != page.data() + page.size()) {
      return bad("has page_id '" + std::string(page) +
                 "'; allowed: a decimal integer in [0, 2^64)");
    }
    const std::string_view project = fields_[project_col_];
    if (project.empty()) return bad("has an empty project");
    const auto project_id = projects_.find(project);
    if (!project_id && projects_.fixed()) return not_listed("project", project);
    const std::string_view country = fields_[country_col_];
    if (country.empty()) return bad("has an empty country");
    const auto country_id = countries_.find(country);
    if (!country_id && countries_.fixed()) return not_listed("country", country);
    if ((country_id ? *country_id : countries_.size()) > 0xFFFF) {
      return bad("has more than 65536 distinct countries");
    }
    const std::string_view actor = fields_[actor_col_];
    if (actor.empty()) return bad("has an empty actor_signature");

    v.tuple.project = project_id ? *project_id : *projects_.find_or_add(project);
    v.tuple.country =
        static_cast<std::uint16_t>(country_id ? *country_id : *countries_.find_or_add(country));
    v.actor = actor_hash(actor);
    return v;
  }

  // BLAKE2b of the signature, to 64 bits. An actor's rows come close
  // together in a day's log, and BLAKE2b is most of the cost of a row, so
  // the last signatures seen (up to 31 bytes long) are remembered in a
  // direct-mapped cache of 4096 entries placed by XXH3: a hit returns the
  // same value BLAKE2b would.
  std::uint64_t actor_hash(std::string_view actor) {
    cached_actor* slot = nullptr;
    if (actor.size() < sizeof(cached_actor::text)) {
      if (actors_.empty()) actors_.resize(actor_cache_size);
      slot = &actors_[detail::xxh3_string_hash{}(actor) & (actor_cache_size - 1)];
      if (slot->size == actor.size() && std::memcmp(slot->text, actor.data(), actor.size()) == 0) {
        return slot->hash;
      }
    }
    const std::uint64_t out = actor_signature_hash(actor);
    if (slot != nullptr) {
      std::memcpy(slot->text, actor.data(), actor.size());
      slot->size = static_cast<std::uint8_t>(actor.size());
      slot->hash = out;
    }
    return out;
  }

  // Splits on the separator into out. With commas, a field starting with
  // '"' runs to its closing quote ("" inside is a quote) and is given without
  // the quotes; false, with problem_ set, for a malformed quoted field. With
  // tabs every field is literal, quotes included.
  bool split(std::string_view s, std::vector<std::string_view>& out) {
    out.clear();
    unquoted_.clear();
    unquoted_.reserve(s.size());  // views into unquoted_ must not move
    const bool quoting = sep_ == ',';
    std::size_t i = 0;
    for (;;) {
      if (quoting && i < s.size() && s[i] == '"') {
        const std::size_t start = unquoted_.size();
        ++i;
        for (;;) {
          if (i >= s.size()) return bad_field("has an unterminated quoted field");
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
        if (i < s.size() && s[i] != sep_) return bad_field("has text after a closing quote");
      } else {
        const std::size_t end = s.find(sep_, i);
        const std::size_t stop = end == std::string_view::npos ? s.size() : end;
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
    return true;
  }

  bool bad_field(std::string what) {
    problem_ = std::move(what);
    return false;
  }
  std::optional<pageview::view> bad(std::string what) {
    problem_ = std::move(what);
    return std::nullopt;
  }
  std::optional<pageview::view> not_listed(const char* what, std::string_view name) {
    return bad(std::string("has ") + what + " '" + std::string(name) +
               "', which is not in the given list");
  }
  [[nodiscard]] std::string too_long_text() const {
    return "is longer than max_line_bytes = " + std::to_string(max_line_);
  }
  [[nodiscard]] std::string message(const std::string& what) const {
    return "privet: pageview line " + std::to_string(line_no_) + " " + what;
  }

  std::istream& in_;
  name_index projects_;
  name_index countries_;
  std::size_t max_line_;
  bool strict_;
  static constexpr std::size_t chunk_bytes = std::size_t{1} << 16;
  std::vector<char> buf_;
  std::size_t pos_ = 0, end_ = 0;  // unread bytes: buf_[pos_, end_)
  bool eof_ = false;
  std::uint64_t read_ = 0;  // bytes taken from the stream
  struct cached_actor {
    char text[31];
    std::uint8_t size = 0xFF;  // no signature is 255 bytes long here: empty
    std::uint64_t hash = 0;
  };
  static constexpr std::size_t actor_cache_size = 4096;
  std::vector<cached_actor> actors_;
  std::string_view line_;
  std::string unquoted_;
  std::vector<std::string_view> fields_;
  std::string problem_;
  std::string last_skip_;
  char sep_ = '\t';
  std::size_t columns_ = 0;
  std::size_t page_col_ = npos, project_col_ = npos, country_col_ = npos, actor_col_ = npos;
  std::uint64_t line_no_ = 0;
  std::uint64_t rows_ = 0;
  std::uint64_t skipped_ = 0;
};

}  // namespace privet::io
