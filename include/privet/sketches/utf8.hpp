// privet/sketches/utf8.hpp — strict UTF-8 decoding and encoding (RFC 3629):
// overlong forms, surrogates (U+D800..U+DFFF), code points above U+10FFFF and
// truncated sequences are invalid. Text from users is untrusted, so what
// happens to invalid input is the caller's explicit choice: an error naming
// the byte offset, or U+FFFD in place of each maximal invalid subpart (the
// Unicode Standard's recommended practice, Section 3.9), never silent loss.
#pragma once

#include <privet/core/error.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace privet {

/// What decoding does with bytes that are not valid UTF-8.
enum class invalid_utf8 {
  throw_error,  ///< throw invalid_parameter naming the byte offset
  replace,      ///< decode each maximal invalid subpart as U+FFFD
};

/// U+FFFD, what invalid_utf8::replace decodes each maximal invalid subpart as.
inline constexpr char32_t replacement_character = U'\uFFFD';

namespace detail {

/// Decodes one code point at text[pos]; returns its length in bytes, or 0
/// when the bytes there are not valid UTF-8, with `bad` set to the length of
/// the maximal invalid subpart (at least 1).
inline std::size_t utf8_next(std::string_view text, std::size_t pos, char32_t& out,
                             std::size_t& bad) noexcept {
  const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(text[i]); };
  const std::uint8_t b0 = byte(pos);
  if (b0 < 0x80) {
    out = b0;
    return 1;
  }
  std::size_t len = 0;
  char32_t cp = 0;
  // The second byte's allowed range excludes overlong forms, surrogates and
  // values above U+10FFFF (RFC 3629, Section 4).
  std::uint8_t lo = 0x80, hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2;
    cp = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3;
    cp = b0 & 0x0F;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4;
    cp = b0 & 0x07;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    bad = 1;
    return 0;
  }
  for (std::size_t i = 1; i < len; ++i) {
    if (pos + i >= text.size()) {
      bad = i;
      return 0;
    }
    const std::uint8_t b = byte(pos + i);
    const std::uint8_t min = i == 1 ? lo : 0x80, max = i == 1 ? hi : 0xBF;
    if (b < min || b > max) {
      bad = i;
      return 0;
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  out = cp;
  return len;
}

}  // namespace detail

/// Calls f(code_point, byte_offset) for each code point of `text`.
template <class F>
void for_each_code_point(std::string_view text, F&& f,
                         invalid_utf8 policy = invalid_utf8::throw_error) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    char32_t cp = 0;
    std::size_t bad = 0;
    const std::size_t len = detail::utf8_next(text, pos, cp, bad);
    if (len == 0) {
      if (policy == invalid_utf8::throw_error) {
        throw invalid_parameter(
            "text", "privet: text is not valid UTF-8 at byte " + std::to_string(pos) +
                        "; allowed: UTF-8 without overlong forms, surrogates or code points above "
                        "U+10FFFF (or decode with invalid_utf8::replace)");
      }
      f(replacement_character, pos);
      pos += bad;
      continue;
    }
    f(cp, pos);
    pos += len;
  }
}

/// The code points of `text`.
inline std::u32string utf8_decode(std::string_view text,
                                  invalid_utf8 policy = invalid_utf8::throw_error) {
  std::u32string out;
  out.reserve(text.size());
  for_each_code_point(
      text, [&](char32_t cp, std::size_t) { out.push_back(cp); }, policy);
  return out;
}

/// Appends the UTF-8 encoding of `cp`; throws invalid_parameter for a
/// surrogate or a value above U+10FFFF.
inline void utf8_append(std::string& out, char32_t cp) {
  if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
    throw invalid_parameter("code point", "privet: code point " +
                                              std::to_string(static_cast<std::uint32_t>(cp)) +
                                              " is invalid; allowed: U+0000..U+10FFFF except "
                                              "surrogates");
  }
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

/// The UTF-8 encoding of `text`.
inline std::string utf8_encode(std::u32string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char32_t cp : text) utf8_append(out, cp);
  return out;
}

}  // namespace privet
