// libFuzzer target: the pageview reader on arbitrary bytes. The header may
// throw serialization_error; after it, a reader in the default mode
// (malformed_rows::skip) never throws and every line is either a row or a
// skipped row, while a strict reader may throw serialization_error (any
// other exception, a crash, a sanitizer report or a hang is a bug). Bit 0 of
// the first byte picks fixed project and country lists or interning, bit 1
// strict or skip.
#include <privet/io/pageview_reader.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::istringstream in(text);
  const bool fixed = size > 0 && (data[0] & 1) != 0;
  const bool strict = size > 0 && (data[0] & 2) != 0;
  const auto mode = strict ? privet::io::malformed_rows::strict : privet::io::malformed_rows::skip;
  std::optional<privet::io::pageview_reader> reader;
  try {
    if (fixed) {
      reader.emplace(in, privet::io::name_index({"en.wikipedia", "p"}),
                     privet::io::name_index({"CH", "US"}), 256, mode);
    } else {
      reader.emplace(in, privet::io::name_index{}, privet::io::name_index{}, 256, mode);
    }
  } catch (const privet::serialization_error&) {
    return 0;  // no usable header: a format error in either mode
  }
  try {
    std::uint64_t rows = 0;
    while (auto v = reader->next()) rows += v->tuple.country + 1;
    (void)rows;
    // Every line after the header was read or skipped.
    if (reader->line() != 1 + reader->rows() + reader->skipped_rows()) std::abort();
  } catch (const privet::serialization_error&) {
    if (!strict) std::abort();  // a data row made a skipping reader throw
  }
  return 0;
}
