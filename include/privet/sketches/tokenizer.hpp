// privet/sketches/tokenizer.hpp — a UTF-8-aware word tokenizer for the text
// systems (LDP TrieHH's typed words, DPNE's n-grams).
//
// A word is a maximal run of letters and (optionally) digits, where
// "letter" is Unicode's alphabetic property as glibc's C.UTF-8 locale
// classifies it (iswalpha), so "naïve", "Größe" and "日本語" are words, not
// split at their non-ASCII letters. Inside a word it also keeps what the
// Unicode word-boundary rules never break a word at (UAX #29, rule WB4:
// Extend, Format and ZWJ characters attach to the character before them):
//   combining marks  general categories Mn, Mc and Me (table below), which
//                    extend the character before them: a decomposed "café"
//                    (e + U+0301), Hindi "हिन्दी" (vowel signs and virama),
//                    Tamil "தமிழ்" (its final virama), a keycap "1️⃣" (digit,
//                    U+FE0F, U+20E3). A mark with no word character before it
//                    (after a space, an emoji, or at the start) belongs to the
//                    separator, as WB4 attaches it to the character before;
//   ZWJ, ZWNJ        U+200D and U+200C between two word characters (Indic
//                    half forms, Persian "می‌خواهم"), kept in the output;
//                    elsewhere they separate, like an apostrophe;
//   soft hyphen      U+00AD never splits a word and is dropped from the
//                    output ("co\u00ADoperate" -> "cooperate"): it only marks
//                    where a line may break.
// Emoji are not word characters (neither letters nor digits), so an emoji
// sequence (a ZWJ family, a skin-tone modifier, a U+FE0F variation selector)
// separates words as a whole, and none of its parts attaches to a
// neighbouring word. Text is not normalised: a precomposed and a decomposed
// "café" are two different words (NFC would need the Unicode decomposition
// tables). Normalisation options:
//   lowercase     simple (one-to-one) Unicode lowercase mapping (towlower),
//                 so "Größe" -> "größe"; full case folding (ß -> ss) is not
//                 applied;
//   digits        digits count as word characters ("mp3", "2024"); off, they
//                 separate words;
//   apostrophes   an apostrophe (U+0027 or U+2019) between two word
//                 characters stays inside the word ("don't"); elsewhere it
//                 separates.
// Scripts written without spaces (Chinese, Japanese) come out as one word per
// run; segmenting them needs a dictionary, which is out of scope.
// Invalid UTF-8 is an error naming the byte offset, or, with
// invalid_utf8::replace, U+FFFD, which separates words.
#pragma once

#include <privet/core/error.hpp>
#include <privet/sketches/utf8.hpp>

#include <locale.h>
#include <wctype.h>
#include <algorithm>
#include <clocale>
#include <cstddef>
#include <cwctype>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace privet {

/// How word_tokenizer normalises and splits (see the file comment).
struct tokenizer_options {
  /// Map each letter to its simple Unicode lowercase (no full case folding).
  bool lowercase = true;
  /// Digits are word characters; false makes them separators.
  bool digits = true;
  /// Keep an apostrophe (U+0027 or U+2019) between two word characters.
  bool apostrophes = true;
  /// What to do with invalid UTF-8: throw, or read U+FFFD (a separator).
  invalid_utf8 on_invalid = invalid_utf8::throw_error;
};

namespace detail {

/// glibc's C.UTF-8 character classes, opened once per process and never
/// installed as the global locale (which would change the program's
/// behaviour elsewhere).
inline locale_t unicode_ctype() {
  static const locale_t loc = [] {
    locale_t l = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
    if (l == static_cast<locale_t>(nullptr)) {
      throw error(
          "privet: the C.UTF-8 locale is not available; the tokenizer needs it for Unicode "
          "letter classes (Debian: package libc-bin)");
    }
    return l;
  }();
  return loc;
}

/// The code points of general category Mn, Mc or Me (Unicode 14.0, the
/// version of glibc 2.36's C.UTF-8 and of Python 3.11's unicodedata), as
/// sorted, disjoint, non-adjacent closed ranges: 299 ranges, 2408 code
/// points. Generated with Python 3:
///   import unicodedata
///   r = []
///   for c in range(0x110000):
///       if unicodedata.category(chr(c)) in ("Mn", "Mc", "Me"):
///           if r and r[-1][1] == c - 1: r[-1][1] = c
///           else: r.append([c, c])
///   print(", ".join("{0x%04X, 0x%04X}" % tuple(x) for x in r))
/// (tests/sketches/tokenizer_test.cpp checks the count and a checksum of the
/// code points against the same source).
struct code_point_range {
  char32_t first;
  char32_t last;
};
inline constexpr code_point_range combining_marks[] = {
    {0x0300, 0x036F},   {0x0483, 0x0489},   {0x0591, 0x05BD},   {0x05BF, 0x05BF},
    {0x05C1, 0x05C2},   {0x05C4, 0x05C5},   {0x05C7, 0x05C7},   {0x0610, 0x061A},
    {0x064B, 0x065F},   {0x0670, 0x0670},   {0x06D6, 0x06DC},   {0x06DF, 0x06E4},
    {0x06E7, 0x06E8},   {0x06EA, 0x06ED},   {0x0711, 0x0711},   {0x0730, 0x074A},
    {0x07A6, 0x07B0},   {0x07EB, 0x07F3},   {0x07FD, 0x07FD},   {0x0816, 0x0819},
    {0x081B, 0x0823},   {0x0825, 0x0827},   {0x0829, 0x082D},   {0x0859, 0x085B},
    {0x0898, 0x089F},   {0x08CA, 0x08E1},   {0x08E3, 0x0903},   {0x093A, 0x093C},
    {0x093E, 0x094F},   {0x0951, 0x0957},   {0x0962, 0x0963},   {0x0981, 0x0983},
    {0x09BC, 0x09BC},   {0x09BE, 0x09C4},   {0x09C7, 0x09C8},   {0x09CB, 0x09CD},
    {0x09D7, 0x09D7},   {0x09E2, 0x09E3},   {0x09FE, 0x09FE},   {0x0A01, 0x0A03},
    {0x0A3C, 0x0A3C},   {0x0A3E, 0x0A42},   {0x0A47, 0x0A48},   {0x0A4B, 0x0A4D},
    {0x0A51, 0x0A51},   {0x0A70, 0x0A71},   {0x0A75, 0x0A75},   {0x0A81, 0x0A83},
    {0x0ABC, 0x0ABC},   {0x0ABE, 0x0AC5},   {0x0AC7, 0x0AC9},   {0x0ACB, 0x0ACD},
    {0x0AE2, 0x0AE3},   {0x0AFA, 0x0AFF},   {0x0B01, 0x0B03},   {0x0B3C, 0x0B3C},
    {0x0B3E, 0x0B44},   {0x0B47, 0x0B48},   {0x0B4B, 0x0B4D},   {0x0B55, 0x0B57},
    {0x0B62, 0x0B63},   {0x0B82, 0x0B82},   {0x0BBE, 0x0BC2},   {0x0BC6, 0x0BC8},
    {0x0BCA, 0x0BCD},   {0x0BD7, 0x0BD7},   {0x0C00, 0x0C04},   {0x0C3C, 0x0C3C},
    {0x0C3E, 0x0C44},   {0x0C46, 0x0C48},   {0x0C4A, 0x0C4D},   {0x0C55, 0x0C56},
    {0x0C62, 0x0C63},   {0x0C81, 0x0C83},   {0x0CBC, 0x0CBC},   {0x0CBE, 0x0CC4},
    {0x0CC6, 0x0CC8},   {0x0CCA, 0x0CCD},   {0x0CD5, 0x0CD6},   {0x0CE2, 0x0CE3},
    {0x0D00, 0x0D03},   {0x0D3B, 0x0D3C},   {0x0D3E, 0x0D44},   {0x0D46, 0x0D48},
    {0x0D4A, 0x0D4D},   {0x0D57, 0x0D57},   {0x0D62, 0x0D63},   {0x0D81, 0x0D83},
    {0x0DCA, 0x0DCA},   {0x0DCF, 0x0DD4},   {0x0DD6, 0x0DD6},   {0x0DD8, 0x0DDF},
    {0x0DF2, 0x0DF3},   {0x0E31, 0x0E31},   {0x0E34, 0x0E3A},   {0x0E47, 0x0E4E},
    {0x0EB1, 0x0EB1},   {0x0EB4, 0x0EBC},   {0x0EC8, 0x0ECD},   {0x0F18, 0x0F19},
    {0x0F35, 0x0F35},   {0x0F37, 0x0F37},   {0x0F39, 0x0F39},   {0x0F3E, 0x0F3F},
    {0x0F71, 0x0F84},   {0x0F86, 0x0F87},   {0x0F8D, 0x0F97},   {0x0F99, 0x0FBC},
    {0x0FC6, 0x0FC6},   {0x102B, 0x103E},   {0x1056, 0x1059},   {0x105E, 0x1060},
    {0x1062, 0x1064},   {0x1067, 0x106D},   {0x1071, 0x1074},   {0x1082, 0x108D},
    {0x108F, 0x108F},   {0x109A, 0x109D},   {0x135D, 0x135F},   {0x1712, 0x1715},
    {0x1732, 0x1734},   {0x1752, 0x1753},   {0x1772, 0x1773},   {0x17B4, 0x17D3},
    {0x17DD, 0x17DD},   {0x180B, 0x180D},   {0x180F, 0x180F},   {0x1885, 0x1886},
    {0x18A9, 0x18A9},   {0x1920, 0x192B},   {0x1930, 0x193B},   {0x1A17, 0x1A1B},
    {0x1A55, 0x1A5E},   {0x1A60, 0x1A7C},   {0x1A7F, 0x1A7F},   {0x1AB0, 0x1ACE},
    {0x1B00, 0x1B04},   {0x1B34, 0x1B44},   {0x1B6B, 0x1B73},   {0x1B80, 0x1B82},
    {0x1BA1, 0x1BAD},   {0x1BE6, 0x1BF3},   {0x1C24, 0x1C37},   {0x1CD0, 0x1CD2},
    {0x1CD4, 0x1CE8},   {0x1CED, 0x1CED},   {0x1CF4, 0x1CF4},   {0x1CF7, 0x1CF9},
    {0x1DC0, 0x1DFF},   {0x20D0, 0x20F0},   {0x2CEF, 0x2CF1},   {0x2D7F, 0x2D7F},
    {0x2DE0, 0x2DFF},   {0x302A, 0x302F},   {0x3099, 0x309A},   {0xA66F, 0xA672},
    {0xA674, 0xA67D},   {0xA69E, 0xA69F},   {0xA6F0, 0xA6F1},   {0xA802, 0xA802},
    {0xA806, 0xA806},   {0xA80B, 0xA80B},   {0xA823, 0xA827},   {0xA82C, 0xA82C},
    {0xA880, 0xA881},   {0xA8B4, 0xA8C5},   {0xA8E0, 0xA8F1},   {0xA8FF, 0xA8FF},
    {0xA926, 0xA92D},   {0xA947, 0xA953},   {0xA980, 0xA983},   {0xA9B3, 0xA9C0},
    {0xA9E5, 0xA9E5},   {0xAA29, 0xAA36},   {0xAA43, 0xAA43},   {0xAA4C, 0xAA4D},
    {0xAA7B, 0xAA7D},   {0xAAB0, 0xAAB0},   {0xAAB2, 0xAAB4},   {0xAAB7, 0xAAB8},
    {0xAABE, 0xAABF},   {0xAAC1, 0xAAC1},   {0xAAEB, 0xAAEF},   {0xAAF5, 0xAAF6},
    {0xABE3, 0xABEA},   {0xABEC, 0xABED},   {0xFB1E, 0xFB1E},   {0xFE00, 0xFE0F},
    {0xFE20, 0xFE2F},   {0x101FD, 0x101FD}, {0x102E0, 0x102E0}, {0x10376, 0x1037A},
    {0x10A01, 0x10A03}, {0x10A05, 0x10A06}, {0x10A0C, 0x10A0F}, {0x10A38, 0x10A3A},
    {0x10A3F, 0x10A3F}, {0x10AE5, 0x10AE6}, {0x10D24, 0x10D27}, {0x10EAB, 0x10EAC},
    {0x10F46, 0x10F50}, {0x10F82, 0x10F85}, {0x11000, 0x11002}, {0x11038, 0x11046},
    {0x11070, 0x11070}, {0x11073, 0x11074}, {0x1107F, 0x11082}, {0x110B0, 0x110BA},
    {0x110C2, 0x110C2}, {0x11100, 0x11102}, {0x11127, 0x11134}, {0x11145, 0x11146},
    {0x11173, 0x11173}, {0x11180, 0x11182}, {0x111B3, 0x111C0}, {0x111C9, 0x111CC},
    {0x111CE, 0x111CF}, {0x1122C, 0x11237}, {0x1123E, 0x1123E}, {0x112DF, 0x112EA},
    {0x11300, 0x11303}, {0x1133B, 0x1133C}, {0x1133E, 0x11344}, {0x11347, 0x11348},
    {0x1134B, 0x1134D}, {0x11357, 0x11357}, {0x11362, 0x11363}, {0x11366, 0x1136C},
    {0x11370, 0x11374}, {0x11435, 0x11446}, {0x1145E, 0x1145E}, {0x114B0, 0x114C3},
    {0x115AF, 0x115B5}, {0x115B8, 0x115C0}, {0x115DC, 0x115DD}, {0x11630, 0x11640},
    {0x116AB, 0x116B7}, {0x1171D, 0x1172B}, {0x1182C, 0x1183A}, {0x11930, 0x11935},
    {0x11937, 0x11938}, {0x1193B, 0x1193E}, {0x11940, 0x11940}, {0x11942, 0x11943},
    {0x119D1, 0x119D7}, {0x119DA, 0x119E0}, {0x119E4, 0x119E4}, {0x11A01, 0x11A0A},
    {0x11A33, 0x11A39}, {0x11A3B, 0x11A3E}, {0x11A47, 0x11A47}, {0x11A51, 0x11A5B},
    {0x11A8A, 0x11A99}, {0x11C2F, 0x11C36}, {0x11C38, 0x11C3F}, {0x11C92, 0x11CA7},
    {0x11CA9, 0x11CB6}, {0x11D31, 0x11D36}, {0x11D3A, 0x11D3A}, {0x11D3C, 0x11D3D},
    {0x11D3F, 0x11D45}, {0x11D47, 0x11D47}, {0x11D8A, 0x11D8E}, {0x11D90, 0x11D91},
    {0x11D93, 0x11D97}, {0x11EF3, 0x11EF6}, {0x16AF0, 0x16AF4}, {0x16B30, 0x16B36},
    {0x16F4F, 0x16F4F}, {0x16F51, 0x16F87}, {0x16F8F, 0x16F92}, {0x16FE4, 0x16FE4},
    {0x16FF0, 0x16FF1}, {0x1BC9D, 0x1BC9E}, {0x1CF00, 0x1CF2D}, {0x1CF30, 0x1CF46},
    {0x1D165, 0x1D169}, {0x1D16D, 0x1D172}, {0x1D17B, 0x1D182}, {0x1D185, 0x1D18B},
    {0x1D1AA, 0x1D1AD}, {0x1D242, 0x1D244}, {0x1DA00, 0x1DA36}, {0x1DA3B, 0x1DA6C},
    {0x1DA75, 0x1DA75}, {0x1DA84, 0x1DA84}, {0x1DA9B, 0x1DA9F}, {0x1DAA1, 0x1DAAF},
    {0x1E000, 0x1E006}, {0x1E008, 0x1E018}, {0x1E01B, 0x1E021}, {0x1E023, 0x1E024},
    {0x1E026, 0x1E02A}, {0x1E130, 0x1E136}, {0x1E2AE, 0x1E2AE}, {0x1E2EC, 0x1E2EF},
    {0x1E8D0, 0x1E8D6}, {0x1E944, 0x1E94A}, {0xE0100, 0xE01EF}};

/// Whether `cp` is a combining mark (Mn, Mc or Me).
inline bool is_combining_mark(char32_t cp) noexcept {
  if (cp < combining_marks[0].first) return false;  // U+0300: ASCII and Latin-1 have none
  const auto after =
      std::upper_bound(std::begin(combining_marks), std::end(combining_marks), cp,
                       [](char32_t c, const code_point_range& r) { return c < r.first; });
  return cp <= std::prev(after)->last;
}

inline constexpr char32_t zero_width_joiner = U'\u200D';
inline constexpr char32_t zero_width_non_joiner = U'\u200C';
inline constexpr char32_t soft_hyphen = U'\u00AD';

}  // namespace detail

/// A UTF-8 word tokenizer for the text systems (LDP TrieHH, DPNE): a word
/// is a maximal run of Unicode letters (and digits, by option) with the
/// combining marks, joiners and apostrophes the file comment lists, so
/// non-ASCII words are never split at their non-ASCII letters. Linear in
/// the text's length. Letter classes and lowercase mapping come from
/// glibc's C.UTF-8 locale, opened privately (the global locale is never
/// changed). Thread-safe: every member is const.
class word_tokenizer {
 public:
  /// A tokenizer with `options`. Throws privet::error when the C.UTF-8
  /// locale is not available on the system.
  explicit word_tokenizer(tokenizer_options options = {})
      : options_(options), ctype_(detail::unicode_ctype()) {}

  /// Calls f(std::string_view word) for each word of `text`, in order; the
  /// view is valid only during the call (no allocation per word). With
  /// invalid_utf8::throw_error, throws invalid_parameter naming `text` (and
  /// the byte offset) at the first invalid byte, after f has seen the words
  /// before it.
  template <class F>
  void for_each(std::string_view text, F&& f) const {
    std::string word;
    // An apostrophe, ZWJ or ZWNJ after a word character: kept only if a
    // word character follows.
    char32_t pending = 0;
    auto flush = [&] {
      if (!word.empty()) f(std::string_view(word));
      word.clear();
      pending = 0;
    };
    for_each_code_point(
        text,
        [&](char32_t cp, std::size_t) {
          if (cp == detail::soft_hyphen) return;  // invisible, never splits (header comment)
          if (detail::is_combining_mark(cp)) {
            // A mark extends the character before it: a word character's
            // stays in the word, any other's is part of the separator.
            if (!word.empty() && pending == 0) {
              utf8_append(word, cp);
            } else {
              flush();
            }
          } else if (is_word_char(cp)) {
            if (pending != 0) utf8_append(word, pending);
            pending = 0;
            utf8_append(word, options_.lowercase ? lower(cp) : cp);
          } else if (!word.empty() && pending == 0 && is_joiner(cp)) {
            pending = cp;
          } else {
            flush();
          }
        },
        options_.on_invalid);
    flush();
  }

  /// The words of `text`, UTF-8 encoded. Throws as for_each() does.
  [[nodiscard]] std::vector<std::string> operator()(std::string_view text) const {
    std::vector<std::string> out;
    for_each(text, [&](std::string_view w) { out.emplace_back(w); });
    return out;
  }

  /// The options it was built with.
  [[nodiscard]] const tokenizer_options& options() const noexcept { return options_; }

 private:
  // What may join two word characters: ZWJ and ZWNJ, and apostrophes when
  // the option keeps them.
  bool is_joiner(char32_t cp) const noexcept {
    if (cp == detail::zero_width_joiner || cp == detail::zero_width_non_joiner) return true;
    return options_.apostrophes && (cp == U'\'' || cp == U'\u2019');
  }
  bool is_word_char(char32_t cp) const {
    const auto w = static_cast<wint_t>(cp);
    if (iswalpha_l(w, ctype_)) return true;
    return options_.digits && iswdigit_l(w, ctype_);
  }
  char32_t lower(char32_t cp) const {
    return static_cast<char32_t>(towlower_l(static_cast<wint_t>(cp), ctype_));
  }

  tokenizer_options options_;
  locale_t ctype_;
};

}  // namespace privet
