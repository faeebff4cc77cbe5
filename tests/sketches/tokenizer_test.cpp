// The word tokenizer's options on ASCII and non-ASCII text, and its
// handling of invalid UTF-8.
#include <privet/sketches/tokenizer.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

using words = std::vector<std::string>;

TEST_CASE("words are runs of Unicode letters and digits, lowercased") {
  const privet::word_tokenizer tok;
  CHECK(tok("Hello, World! It's 2024.") == words{"hello", "world", "it's", "2024"});
  CHECK(tok("Ça va? Größe, naïve CAFÉ") == words{"ça", "va", "größe", "naïve", "café"});
  CHECK(tok("ΑΘΗΝΑ москва") == words{"αθηνα", "москва"});
  CHECK(tok("日本語のテキスト") == words{"日本語のテキスト"});  // no spaces: one run
  CHECK(tok("  rock'n'roll  'quoted' don’t ") == words{"rock'n'roll", "quoted", "don’t"});
  CHECK(tok("").empty());
  CHECK(tok("... --- !!!").empty());
}

TEST_CASE("tokenizer options change what a word is") {
  const privet::word_tokenizer keep_case({.lowercase = false});
  CHECK(keep_case("Größe MP3") == words{"Größe", "MP3"});
  const privet::word_tokenizer no_digits({.digits = false});
  CHECK(no_digits("mp3 player 2024") == words{"mp", "player"});
  const privet::word_tokenizer no_apostrophes({.apostrophes = false});
  CHECK(no_apostrophes("don't") == words{"don", "t"});
  const privet::word_tokenizer lenient({.on_invalid = privet::invalid_utf8::replace});
  CHECK(lenient("good\xFF"
                "bad") == words{"good", "bad"});  // U+FFFD separates
  CHECK_THROWS_WITH_AS(static_cast<void>(privet::word_tokenizer{}("good\xFF"
                                                                  "bad")),
                       "privet: text is not valid UTF-8 at byte 4; allowed: UTF-8 without overlong "
                       "forms, surrogates or code points above U+10FFFF (or decode with "
                       "invalid_utf8::replace)",
                       privet::invalid_parameter);
}

// Issue 22, finding 9: combining marks were separators or dropped, and a
// soft hyphen or a zero-width joiner split a word. Every literal below is
// spelled with escapes, so the test reads the same whatever an editor
// normalises.
TEST_CASE("combining marks stay inside words: decomposed Latin, Hindi, Tamil") {
  const privet::word_tokenizer tok;
  // Decomposed "café" (e + U+0301) and "naïve" (i + U+0308): one word each,
  // the mark kept (not "cafe", not "nai" and "ve"); text is not normalised,
  // so the decomposed spelling stays decomposed.
  CHECK(tok("cafe\u0301 nai\u0308ve") == words{"cafe\u0301", "nai\u0308ve"});
  CHECK(tok("CAFE\u0301") == words{"cafe\u0301"});  // lowercased around the mark
  // Hindi "हिन्दी": ह, vowel sign ि (Mc), न, virama ् (Mn), द, vowel sign ी (Mc).
  const std::string hindi = "\u0939\u093F\u0928\u094D\u0926\u0940";
  CHECK(tok(hindi) == words{hindi});
  CHECK(tok("\u092E\u0948\u0902 " + hindi + " \u092C\u094B\u0932\u0924\u093E") ==
        words{"\u092E\u0948\u0902", hindi, "\u092C\u094B\u0932\u0924\u093E"});  // मैं हिन्दी बोलता
  // Tamil "தமிழ்": த, ம, vowel sign ி (Mc), ழ, and the final virama ் (Mn).
  const std::string tamil = "\u0BA4\u0BAE\u0BBF\u0BB4\u0BCD";
  CHECK(tok(tamil + ", " + tamil) == words{tamil, tamil});
  // Several marks in a row, and an enclosing mark (Me).
  CHECK(tok("a\u0301\u0302\u0303b x\u20DD") == words{"a\u0301\u0302\u0303b", "x\u20DD"});
  // A mark with no word character before it belongs to the separator (UAX
  // #29 WB4 attaches it to the space or punctuation before it).
  CHECK(tok("\u0301start end \u0301 . \u0308x") == words{"start", "end", "x"});
  // Marks after a digit stay when digits are word characters, and belong
  // to the separator when they are not.
  CHECK(tok("1\u0301") == words{"1\u0301"});
  const privet::word_tokenizer no_digits({.digits = false});
  CHECK(no_digits("a1\u0301b") == words{"a", "b"});
}

TEST_CASE("ZWJ and ZWNJ join word characters; a soft hyphen never splits and is dropped") {
  const privet::word_tokenizer tok;
  // Devanagari क्‍ष (KA, virama, ZWJ, SSA): a half form, one word, ZWJ kept.
  CHECK(tok("\u0915\u094D\u200D\u0937") == words{"\u0915\u094D\u200D\u0937"});
  // Persian "می‌خواهم" with its ZWNJ: one word, ZWNJ kept.
  const std::string persian = "\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645";
  CHECK(tok(persian) == words{persian});
  // A joiner that joins nothing (at the end or start of a word, next to a
  // space or another joiner) separates, as an apostrophe does.
  CHECK(tok("ab\u200D cd \u200Cef gh\u200D\u200Dij") == words{"ab", "cd", "ef", "gh", "ij"});
  // Soft hyphen: "co-operate" with U+00AD is "cooperate", wherever it is.
  CHECK(tok("co\u00ADop\u00ADer\u00ADate") == words{"cooperate"});
  CHECK(tok("\u00ADword\u00AD \u00AD") == words{"word"});
  CHECK(tok("don\u00AD't") == words{"don't"});
  const privet::word_tokenizer keep_case({.lowercase = false});
  CHECK(keep_case("Na\u00ADi\u0308ve") == words{"Nai\u0308ve"});
}

TEST_CASE("emoji are separators, each sequence as a whole, never glued to a word") {
  // Emoji are neither letters nor digits, so they separate words; the
  // parts of an emoji sequence (ZWJ, skin-tone modifier, U+FE0F) go with
  // it rather than joining or extending the words around it.
  const privet::word_tokenizer tok;
  // A ZWJ family: man, ZWJ, woman, ZWJ, girl.
  const std::string family = "\U0001F468\u200D\U0001F469\u200D\U0001F467";
  CHECK(tok("our" + family + "family") == words{"our", "family"});
  CHECK(tok("a\u200D" + family + "\u200Db") == words{"a", "b"});
  // A waving hand with a skin-tone modifier (U+1F3FD, category Sk).
  CHECK(tok("hi\U0001F44B\U0001F3FDthere") == words{"hi", "there"});
  // A heart with the emoji variation selector U+FE0F (category Mn): the
  // selector follows the heart, not the word before it.
  CHECK(tok("I\u2764\uFE0Fprivacy") == words{"i", "privacy"});
  CHECK(tok("love \u2764\uFE0F") == words{"love"});
  // A flag (two regional indicators) between words.
  CHECK(tok("vive\U0001F1EB\U0001F1F7la") == words{"vive", "la"});
  // A keycap is a digit with U+FE0F and U+20E3: a digit word, kept intact.
  CHECK(tok("press 1\uFE0F\u20E3 now") == words{"press", "1\uFE0F\u20E3", "now"});
}

TEST_CASE("the combining-mark table is Unicode 14.0's Mn, Mc and Me") {
  // Known answers from Python 3.11's unicodedata (Unicode 14.0.0), the
  // source the table was generated from (tokenizer.hpp): the number of
  // mark code points, their sum and their sum of squares mod 2^64.
  std::uint64_t count = 0, sum = 0, squares = 0;
  for (char32_t cp = 0; cp < 0x110000; ++cp) {
    if (!privet::detail::is_combining_mark(cp)) continue;
    ++count;
    sum += cp;
    squares += std::uint64_t{cp} * cp;
  }
  CHECK(count == 2408);
  CHECK(sum == 309510979);
  CHECK(squares == 209965726856391);
  // The ranges are sorted, disjoint and not adjacent (else one range).
  const auto& table = privet::detail::combining_marks;
  CHECK(std::size(table) == 299);
  for (std::size_t i = 0; i < std::size(table); ++i) {
    CHECK(table[i].first <= table[i].last);
    if (i > 0) CHECK(table[i - 1].last + 1 < table[i].first);
  }
  // Categories of single code points, from the same source.
  for (const char32_t mark :
       {U'\u0300', U'\u0301', U'\u036F', U'\u0488', U'\u093F', U'\u094D', U'\u0BBF', U'\u0BCD',
        U'\u20E3', U'\uFE0F', U'\U000E0100', U'\U000E01EF'}) {
    CHECK(privet::detail::is_combining_mark(mark));
  }
  for (const char32_t other : {U'A', U'\u00AD', U'\u02FF', U'\u0370', U'\u0939', U'\u200C',
                               U'\u200D', U'\U0001F3FD', U'\U0001F468', U'\U0010FFFF'}) {
    CHECK_FALSE(privet::detail::is_combining_mark(other));
  }
}
