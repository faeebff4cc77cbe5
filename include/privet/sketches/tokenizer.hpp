// privet/sketches/tokenizer.hpp — a UTF-8-aware word tokenizer for the text
// systems (LDP TrieHH's typed words, DPNE's n-grams).
//
// A word is a maximal run of letters and (optionally) digits, where
// "letter" is Unicode's alphabetic property as glibc's C.UTF-8 locale
// classifies it (iswalpha), so "naïve", "Größe" and "日本語" are words, not
// split at their non-ASCII letters. Normalisation options:
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
#include <clocale>
#include <cstddef>
#include <cwctype>
#include <string>
#include <string_view>
#include <vector>

namespace privet {

struct tokenizer_options {
  bool lowercase = true;
  bool digits = true;
  bool apostrophes = true;
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

}  // namespace detail

class word_tokenizer {
 public:
  explicit word_tokenizer(tokenizer_options options = {})
      : options_(options), ctype_(detail::unicode_ctype()) {}

  /// Calls f(std::string_view word) for each word of `text`, in order; the
  /// view is valid only during the call (no allocation per word).
  template <class F>
  void for_each(std::string_view text, F&& f) const {
    std::string word;
    char32_t pending_apostrophe = 0;
    auto flush = [&] {
      if (!word.empty()) f(std::string_view(word));
      word.clear();
      pending_apostrophe = 0;
    };
    for_each_code_point(
        text,
        [&](char32_t cp, std::size_t) {
          if (is_word_char(cp)) {
            if (pending_apostrophe != 0) utf8_append(word, pending_apostrophe);
            pending_apostrophe = 0;
            utf8_append(word, options_.lowercase ? lower(cp) : cp);
          } else if (options_.apostrophes && (cp == U'\'' || cp == U'\u2019') && !word.empty() &&
                     pending_apostrophe == 0) {
            pending_apostrophe = cp;  // kept only if a word character follows
          } else {
            flush();
          }
        },
        options_.on_invalid);
    flush();
  }

  /// The words of `text`, UTF-8 encoded.
  [[nodiscard]] std::vector<std::string> operator()(std::string_view text) const {
    std::vector<std::string> out;
    for_each(text, [&](std::string_view w) { out.emplace_back(w); });
    return out;
  }

  [[nodiscard]] const tokenizer_options& options() const noexcept { return options_; }

 private:
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
