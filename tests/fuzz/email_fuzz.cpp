// libFuzzer target: the email reader and header parser on arbitrary bytes.
// The first byte picks the prefix kept (1 to 4096 bytes, so the cut lands
// anywhere, inside the header too); the rest is the message. Every input
// must either read or throw serialization_error (any other exception, a
// crash, a sanitizer report or a hang is a bug), and a message that reads
// must satisfy the reader's invariants: the kept bytes are the input's
// prefix, kept + cut = size, and every header view lies inside the header.
#include <privet/io/email.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t max_bytes = 1 + std::size_t{data[0]} * 16;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  std::istringstream in(text);
  try {
    const privet::io::email_message m = privet::io::read_email(in, max_bytes);
    if (m.raw.size() > max_bytes || m.raw != std::string_view(text).substr(0, m.raw.size()))
      std::abort();
    if (m.raw.size() + m.truncated_bytes != text.size() || m.original_bytes != text.size())
      std::abort();
    if (m.body_offset > m.raw.size()) std::abort();
    const privet::io::email_header h = m.header();
    if (h.fields.empty() || h.body_offset != m.body_offset) std::abort();
    const std::string_view header = m.header_text();
    auto inside = [&](std::string_view v) {
      return std::less_equal<>()(header.data(), v.data()) &&
             std::less_equal<>()(v.data() + v.size(), header.data() + header.size());
    };
    for (const auto& f : h.fields) {
      if (f.name.empty() || !inside(f.name) || !inside(f.value)) std::abort();
      if (f.value.find('\0') != std::string_view::npos) std::abort();
    }
    (void)h.find("subject");
  } catch (const privet::serialization_error&) {
  }
  try {
    (void)privet::io::parse_email_header(text, (data[0] & 1) != 0);
  } catch (const privet::serialization_error&) {
  }
  return 0;
}
