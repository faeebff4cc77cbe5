// UTF-8 decoding and encoding: round trips, and RFC 3629's invalid forms
// with both policies (an error naming the offset, or U+FFFD per maximal
// invalid subpart as the Unicode Standard, Section 3.9, recommends).
#include <privet/sketches/utf8.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

TEST_CASE("UTF-8 round trips every kind of code point") {
  const std::u32string cps = {U'a', U'é', U'€', U'😀', U'\u0000', U'\U0010FFFF'};
  const std::string bytes = privet::utf8_encode(cps);
  CHECK(bytes.size() == 1 + 2 + 3 + 4 + 1 + 4);
  CHECK(privet::utf8_decode(bytes) == cps);
  CHECK_THROWS_WITH_AS(privet::utf8_encode(std::u32string{char32_t{0xD800}}),
                       "privet: code point 55296 is invalid; allowed: U+0000..U+10FFFF except "
                       "surrogates",
                       privet::invalid_parameter);
}

TEST_CASE("invalid UTF-8 is an error naming the offset, or U+FFFD per maximal subpart") {
  struct bad_case {
    std::string bytes;
    std::size_t offset;
    std::u32string replaced;
  };
  const std::u32string r{privet::replacement_character};
  for (const bad_case& c : std::vector<bad_case>{
           {"a\xC0\xAF", 1, U"a" + r + r},                  // overlong '/': C0 is never valid
           {"\xE0\x80\xAF", 0, r + r + r},                  // overlong 3-byte form
           {"x\xED\xA0\x80y", 1, U"x" + r + r + r + U"y"},  // a surrogate
           {"\xF4\x90\x80\x80", 0, r + r + r + r},          // above U+10FFFF
           {"ok\xE2\x82", 2, U"ok" + r},                    // truncated euro sign: one subpart
           {"\x80", 0, r},                                  // lone continuation byte
       }) {
    const std::string& bytes = c.bytes;
    const std::size_t offset = c.offset;
    const std::u32string& replaced = c.replaced;
    CAPTURE(offset);
    CHECK_THROWS_WITH_AS(privet::utf8_decode(bytes),
                         ("privet: text is not valid UTF-8 at byte " + std::to_string(offset) +
                          "; allowed: UTF-8 without overlong forms, surrogates or code points "
                          "above U+10FFFF (or decode with invalid_utf8::replace)")
                             .c_str(),
                         privet::invalid_parameter);
    CHECK(privet::utf8_decode(bytes, privet::invalid_utf8::replace) == replaced);
  }
}
