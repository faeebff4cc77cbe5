// privet/crypto/detail/paillier_wire.hpp — the codecs behind Paillier
// serialisation: big-endian magnitudes of any Boost integer backend, a
// bounds-checked big-endian reader, key fingerprints (BLAKE2b), canonical
// decimal and base64url (RFC 4648 section 5, no padding) integers with a
// limit checked before any value beyond it is formed, and JSON parsing with
// nlohmann::json that keeps integers of any length exact and whose syntax
// errors name a byte offset and a field, never the text (private keys are
// read through it).
//
// nlohmann::json parses a number too long for 64 bits as a double (and one
// beyond 1e308 as an error), but python-paillier's json.dumps writes Python
// ints, of any length, as bare numbers. So a first pass quotes every bare
// integer of more than 18 digits; the readers accept a big integer as a
// decimal string or a bare number alike, so nothing else changes meaning.
#pragma once

#include <privet/core/detail/sodium.hpp>
#include <privet/core/error.hpp>
#include <privet/crypto/detail/montgomery.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace privet::detail {

// The minimal big-endian bytes of x >= 0 (none for 0).
template <class Int>
std::vector<std::uint8_t> be_bytes(const Int& x) {
  const std::size_t n = (bits_of(x) + 7) / 8;
  std::vector<std::uint8_t> out(n);
  const Int mask(std::numeric_limits<std::uint64_t>::max());
  Int rest = x;
  Int low;
  // Eight bytes per step: shifts of the whole number, 1/8 as many.
  std::size_t i = n;
  while (i > 0) {
    low = rest & mask;
    auto word = low.template convert_to<std::uint64_t>();
    rest >>= 64;
    for (int b = 0; b < 8 && i > 0; ++b, word >>= 8) out[--i] = static_cast<std::uint8_t>(word);
  }
  return out;
}

// The integer of big-endian bytes (the caller has bounded their number).
template <class Int>
Int from_be_bytes(std::span<const std::uint8_t> bytes) {
  Int x = 0u;
  std::size_t i = 0;
  const std::size_t head = bytes.size() % 8;
  std::uint64_t word = 0;
  for (; i < head; ++i) word = (word << 8) | bytes[i];
  x += word;
  while (i < bytes.size()) {
    word = 0;
    for (int b = 0; b < 8; ++b, ++i) word = (word << 8) | bytes[i];
    x <<= 64;
    x += word;  // the low 64 bits are zero after the shift
  }
  return x;
}

// The 16-byte BLAKE2b hash of n's big-endian bytes: binds a serialised
// ciphertext to its key without repeating n.
inline constexpr std::size_t fingerprint_bytes = 16;
using key_fingerprint = std::array<std::uint8_t, fingerprint_bytes>;

template <class Int>
key_fingerprint fingerprint_of(const Int& n) {
  ensure_sodium();
  const auto bytes = be_bytes(n);
  key_fingerprint out{};
  crypto_generichash(out.data(), out.size(), bytes.data(), bytes.size(), nullptr, 0);
  return out;
}

inline std::string hex_text(std::span<const std::uint8_t> bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s;
  for (auto b : bytes) {
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s;
}

// Big-endian writer: u8, u32, and integers as a u32 length and minimal bytes.
class paillier_writer {
 public:
  void u8(std::uint8_t v) { out_.push_back(v); }
  void u32(std::uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) out_.push_back(static_cast<std::uint8_t>(v >> s));
  }
  void bytes(std::span<const std::uint8_t> b) { out_.insert(out_.end(), b.begin(), b.end()); }
  // The u32 length prefix of a field of n bytes; a longer field would wrap
  // the prefix and desynchronise every reader, so it throws instead.
  void length(std::size_t n) {
    constexpr std::size_t limit = std::numeric_limits<std::uint32_t>::max();
    if (n > limit) {
      throw overflow_error("privet: an integer of " + std::to_string(n) +
                           " bytes does not fit its 32-bit length field; allowed: at most " +
                           std::to_string(limit) + " bytes");
    }
    u32(static_cast<std::uint32_t>(n));
  }
  template <class Int>
  void integer(const Int& x) {
    // The length is checked before be_bytes allocates the bytes.
    length((bits_of(x) + 7) / 8);
    bytes(be_bytes(x));
  }
  std::vector<std::uint8_t> take() { return std::move(out_); }

 private:
  std::vector<std::uint8_t> out_;
};

// Reader of the above: never reads past its input, and refuses an integer
// longer than its field allows before looking at its bytes.
class paillier_reader {
 public:
  paillier_reader(std::span<const std::uint8_t> in, std::string what)
      : in_(in), what_(std::move(what)) {}

  std::uint8_t u8() {
    need(1);
    return in_[pos_++];
  }
  std::uint32_t u32() {
    need(4);
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = (v << 8) | in_[pos_++];
    return v;
  }
  void bytes(std::span<std::uint8_t> out) {
    need(out.size());
    for (auto& b : out) b = in_[pos_++];
  }
  // A non-negative integer of at most max_bytes bytes, minimal (no leading
  // zero byte: one encoding per value).
  template <class Int>
  Int integer(const char* field, std::size_t max_bytes) {
    const std::uint32_t len = u32();
    if (len > max_bytes) {
      fail(std::string(field) + " is " + std::to_string(len) + " bytes long; allowed: at most " +
           std::to_string(max_bytes));
    }
    need(len);
    const auto b = in_.subspan(pos_, len);
    if (len > 0 && b[0] == 0) fail(std::string(field) + " has a leading zero byte (not minimal)");
    pos_ += len;
    return from_be_bytes<Int>(b);
  }
  [[nodiscard]] std::size_t remaining() const noexcept { return in_.size() - pos_; }
  void finish() const {
    if (remaining() != 0) fail(std::to_string(remaining()) + " trailing bytes");
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw serialization_error("privet: malformed Paillier " + what_ + ": " + why);
  }

 private:
  void need(std::size_t n) const {
    if (n > remaining()) {
      fail("truncated at byte " + std::to_string(pos_) + " (" + std::to_string(n) +
           " more needed, " + std::to_string(remaining()) + " left)");
    }
  }

  std::span<const std::uint8_t> in_;
  std::size_t pos_ = 0;
  std::string what_;
};

// Decimal digits of the largest value below 2^bits (an upper bound).
inline std::size_t decimal_digits_for_bits(std::size_t bits) {
  return bits * 30103 / 100000 + 1;
}

// A canonical decimal integer in [0, limit] ("0", or digits without a
// leading zero). `fail` receives the reason; it must throw.
template <class Int, class Fail>
Int parse_decimal(std::string_view s, const Int& limit, const Fail& fail) {
  if (s.empty()) fail("is an empty string; allowed: a decimal integer");
  if (s[0] == '-') fail("is negative; allowed: a non-negative decimal integer");
  for (char ch : s) {
    if (ch < '0' || ch > '9') fail("is not a decimal integer (only the digits 0-9 are allowed)");
  }
  if (s.size() > 1 && s[0] == '0') fail("has a leading zero (not canonical)");
  if (s.size() > decimal_digits_for_bits(bits_of(limit))) fail("is too large");
  Int x = 0;
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t take = std::min<std::size_t>(18, s.size() - i);
    std::uint64_t chunk = 0;
    std::uint64_t step = 1;
    for (std::size_t j = 0; j < take; ++j, ++i) {
      chunk = chunk * 10 + static_cast<std::uint64_t>(s[i] - '0');
      step *= 10;
    }
    // x step + chunk <= limit, decided without forming a larger number.
    if (Int(chunk) > limit || x > Int(limit - chunk) / Int(step)) fail("is too large");
    x = x * Int(step) + Int(chunk);
  }
  return x;
}

// base64url (RFC 4648 section 5) without padding, as python-paillier's
// int_to_base64 writes it.
inline std::string base64url_encode(std::span<const std::uint8_t> in) {
  static constexpr char alphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  std::size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    const std::uint32_t v =
        (std::uint32_t{in[i]} << 16) | (std::uint32_t{in[i + 1]} << 8) | in[i + 2];
    for (int s = 18; s >= 0; s -= 6) out += alphabet[(v >> s) & 63];
  }
  const std::size_t rest = in.size() - i;
  if (rest == 1) {
    const std::uint32_t v = std::uint32_t{in[i]} << 16;
    out += alphabet[(v >> 18) & 63];
    out += alphabet[(v >> 12) & 63];
  } else if (rest == 2) {
    const std::uint32_t v = (std::uint32_t{in[i]} << 16) | (std::uint32_t{in[i + 1]} << 8);
    out += alphabet[(v >> 18) & 63];
    out += alphabet[(v >> 12) & 63];
    out += alphabet[(v >> 6) & 63];
  }
  return out;
}

// The bytes of unpadded base64url text; unused trailing bits must be zero
// (one encoding per value). `fail` must throw.
template <class Fail>
std::vector<std::uint8_t> base64url_decode(std::string_view s, const Fail& fail) {
  auto value = [&](char c) -> std::uint32_t {
    if (c >= 'A' && c <= 'Z') return static_cast<std::uint32_t>(c - 'A');
    if (c >= 'a' && c <= 'z') return static_cast<std::uint32_t>(c - 'a' + 26);
    if (c >= '0' && c <= '9') return static_cast<std::uint32_t>(c - '0' + 52);
    if (c == '-') return 62;
    if (c == '_') return 63;
    fail("is not base64url (allowed: A-Z a-z 0-9 - _, no padding)");
    return 0;
  };
  if (s.size() % 4 == 1) fail("has a base64url length that no byte string has");
  std::vector<std::uint8_t> out;
  out.reserve(s.size() * 3 / 4);
  std::size_t i = 0;
  for (; i + 4 <= s.size(); i += 4) {
    const std::uint32_t v =
        (value(s[i]) << 18) | (value(s[i + 1]) << 12) | (value(s[i + 2]) << 6) | value(s[i + 3]);
    out.push_back(static_cast<std::uint8_t>(v >> 16));
    out.push_back(static_cast<std::uint8_t>(v >> 8));
    out.push_back(static_cast<std::uint8_t>(v));
  }
  const std::size_t rest = s.size() - i;
  if (rest == 2) {
    const std::uint32_t v = (value(s[i]) << 18) | (value(s[i + 1]) << 12);
    if ((v & 0xffff) != 0) fail("has non-zero unused bits (not canonical base64url)");
    out.push_back(static_cast<std::uint8_t>(v >> 16));
  } else if (rest == 3) {
    const std::uint32_t v = (value(s[i]) << 18) | (value(s[i + 1]) << 12) | (value(s[i + 2]) << 6);
    if ((v & 0xff) != 0) fail("has non-zero unused bits (not canonical base64url)");
    out.push_back(static_cast<std::uint8_t>(v >> 16));
    out.push_back(static_cast<std::uint8_t>(v >> 8));
  }
  return out;
}

// Deepest nesting of arrays and objects accepted in Paillier JSON.
inline constexpr std::size_t max_json_depth = 32;

// The text with every bare integer of more than 18 digits quoted (see the
// file comment), and where the quotes went (offsets in the result, in
// order), so that a position in it maps back to one in the input; throws
// serialization_error for nesting deeper than max_json_depth. Strings and
// malformed text pass through unchanged, for nlohmann::json to accept or
// reject.
struct quoted_json {
  std::string text;
  std::vector<std::size_t> inserted;  // offsets of the added quote characters

  // The input offset of offset `pos` of `text`.
  [[nodiscard]] std::size_t input_offset(std::size_t pos) const {
    const auto before = std::lower_bound(inserted.begin(), inserted.end(), pos) - inserted.begin();
    return pos - static_cast<std::size_t>(before);
  }
};

inline quoted_json quote_long_integers(std::string_view text, const std::string& what) {
  quoted_json q;
  std::string& out = q.text;
  out.reserve(text.size() + 8);
  bool in_string = false;
  std::size_t depth = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[i + 1];
        i += 2;
        continue;
      }
      if (c == '"') in_string = false;
      ++i;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_json_depth) {
        throw serialization_error("privet: malformed Paillier " + what +
                                  " JSON: nesting deeper than " + std::to_string(max_json_depth));
      }
    } else if (c == ']' || c == '}') {
      if (depth > 0) --depth;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      std::size_t j = i;
      while (j < text.size() &&
             (text[j] == '-' || text[j] == '+' || text[j] == '.' || text[j] == 'e' ||
              text[j] == 'E' || (text[j] >= '0' && text[j] <= '9'))) {
        ++j;
      }
      const std::string_view token = text.substr(i, j - i);
      const std::string_view digits = token[0] == '-' ? token.substr(1) : token;
      const bool integer =
          !digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos;
      if (integer && digits.size() > 18) {
        q.inserted.push_back(out.size());
        out += '"';
        out.append(token);
        q.inserted.push_back(out.size());
        out += '"';
      } else {
        out.append(token);
      }
      i = j;
      continue;
    }
    out += c;
    ++i;
  }
  return q;
}

// Where a SAX parse stands: the path of the value being read ("pub.n",
// "values[3][0]"), for error messages that name the field and never quote
// the text.
class json_path {
 public:
  void open_object() { frames_.push_back({false, {}, 0}); }
  void open_array() { frames_.push_back({true, {}, 0}); }
  void close() {
    if (!frames_.empty()) frames_.pop_back();
    next();
  }
  void key(const std::string& k) {
    if (!frames_.empty()) frames_.back().key = k;
  }
  // A value ended: the next one of an array has the next index.
  void next() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
  }
  [[nodiscard]] std::size_t depth() const noexcept { return frames_.size(); }
  [[nodiscard]] std::string text() const {
    std::string s;
    for (const auto& f : frames_) {
      if (f.array) {
        s += "[" + std::to_string(f.index) + "]";
      } else if (!f.key.empty()) {
        if (!s.empty()) s += '.';
        s += f.key;
      }
    }
    return s;
  }

 private:
  struct frame {
    bool array;
    std::string key;
    std::size_t index;
  };
  std::vector<frame> frames_;
};

// A syntax error as the byte offset in the input and the field it is in,
// without any of the text: the readers of private keys must not copy key
// material into an exception (nlohmann::json's own message ends with the
// last token read, which may be a prime in base64url).
[[noreturn]] inline void throw_json_syntax(const std::string& what, const quoted_json& q,
                                           std::size_t position, const json_path& path,
                                           const nlohmann::json::exception& e) {
  const std::size_t at = q.input_offset(position == 0 ? 0 : position - 1);
  const std::string field = path.text();
  throw serialization_error("privet: malformed Paillier " + what + " JSON: syntax error at byte " +
                            std::to_string(at) +
                            (field.empty() ? std::string() : " in \"" + field + "\"") +
                            " (nlohmann::json error " + std::to_string(e.id) + ")");
}

// nlohmann::json's SAX-to-DOM builder with the path tracked (see above).
class path_dom_sax {
 public:
  using json = nlohmann::json;
  path_dom_sax(json& root, std::string what, const quoted_json& q)
      : dom_(root, false), what_(std::move(what)), q_(q) {}

  bool null() { return value(dom_.null()); }
  bool boolean(bool v) { return value(dom_.boolean(v)); }
  bool number_integer(json::number_integer_t v) { return value(dom_.number_integer(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return value(dom_.number_unsigned(v)); }
  bool number_float(json::number_float_t v, const json::string_t& s) {
    return value(dom_.number_float(v, s));
  }
  bool string(json::string_t& v) { return value(dom_.string(v)); }
  bool binary(json::binary_t& v) { return value(dom_.binary(v)); }
  bool start_object(std::size_t n) {
    path_.open_object();
    return dom_.start_object(n);
  }
  bool key(json::string_t& k) {
    path_.key(k);
    return dom_.key(k);
  }
  bool end_object() {
    path_.close();
    return dom_.end_object();
  }
  bool start_array(std::size_t n) {
    path_.open_array();
    return dom_.start_array(n);
  }
  bool end_array() {
    path_.close();
    return dom_.end_array();
  }
  bool parse_error(std::size_t position, const std::string& /*last_token: input text*/,
                   const nlohmann::json::exception& e) {
    throw_json_syntax(what_, q_, position, path_, e);
  }

 private:
  bool value(bool ok) {
    path_.next();
    return ok;
  }
  nlohmann::detail::json_sax_dom_parser<json> dom_;
  json_path path_;
  std::string what_;
  const quoted_json& q_;
};

// The JSON document of a Paillier encoding. A syntax error gives its byte
// offset and field only (throw_json_syntax), for every reader alike.
inline nlohmann::json parse_json(std::string_view text, const std::string& what) {
  const quoted_json q = quote_long_integers(text, what);
  nlohmann::json root;
  path_dom_sax sax(root, what, q);
  nlohmann::json::sax_parse(q.text.begin(), q.text.end(), &sax);
  return root;
}

}  // namespace privet::detail
