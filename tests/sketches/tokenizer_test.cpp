// The word tokenizer's options on ASCII and non-ASCII text, and its
// handling of invalid UTF-8.
#include <privet/sketches/tokenizer.hpp>

#include <doctest/doctest.h>

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
