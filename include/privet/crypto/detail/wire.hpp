// privet/crypto/detail/wire.hpp — the little-endian byte writer and
// bounds-checked reader behind the protocols' message encodings (secure
// aggregation, secure comparison), and the message header they share. The
// reader never reads past its input and refuses a count whose entries
// cannot fit in the bytes left, so malformed input costs no allocation.
#pragma once

#include <privet/core/error.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace privet::detail {

class wire_writer {
 public:
  void u8(std::uint8_t v) { out_.push_back(v); }
  void u32(std::uint32_t v) { uint(v, 4); }
  void u64(std::uint64_t v) { uint(v, 8); }
  // The low `width` bytes of v (width in [1, 8]).
  void uint(std::uint64_t v, std::size_t width) {
    for (std::size_t i = 0; i < width; ++i, v >>= 8) out_.push_back(static_cast<std::uint8_t>(v));
  }
  void bytes(std::span<const std::uint8_t> b) { out_.insert(out_.end(), b.begin(), b.end()); }
  // A count is 4 bytes: a longer list cannot be encoded, and is not cut short.
  void count(std::size_t n) {
    if (n > UINT32_MAX) {
      throw serialization_error("privet: a list of " + std::to_string(n) +
                                " entries exceeds the encoding's limit of 2^32 - 1");
    }
    u32(static_cast<std::uint32_t>(n));
  }
  std::vector<std::uint8_t> take() { return std::move(out_); }

 private:
  std::vector<std::uint8_t> out_;
};

class wire_reader {
 public:
  wire_reader(std::span<const std::uint8_t> in, const char* what) : in_(in), what_(what) {}

  std::uint8_t u8() { return static_cast<std::uint8_t>(uint(1)); }
  std::uint32_t u32() { return static_cast<std::uint32_t>(uint(4)); }
  std::uint64_t u64() { return uint(8); }
  std::uint64_t uint(std::size_t width) {
    need(width);
    std::uint64_t v = 0;
    for (std::size_t i = width; i-- > 0;) v = (v << 8) | in_[pos_ + i];
    pos_ += width;
    return v;
  }
  void bytes(std::span<std::uint8_t> out) {
    need(out.size());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = in_[pos_ + i];
    pos_ += out.size();
  }
  // A count of entries of `entry_bytes` bytes each that must fit in what is left.
  std::size_t count(std::size_t entry_bytes) {
    const std::uint32_t n = u32();
    if (entry_bytes != 0 && n > remaining() / entry_bytes) {
      fail("a count of " + std::to_string(n) + " entries exceeds the " +
           std::to_string(remaining()) + " bytes left");
    }
    return n;
  }
  [[nodiscard]] std::size_t remaining() const noexcept { return in_.size() - pos_; }
  void finish() const {
    if (remaining() != 0) fail(std::to_string(remaining()) + " trailing bytes");
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw serialization_error(std::string("privet: malformed ") + what_ + ": " + why);
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
  const char* what_;
};

// Every protocol message opens with the same 10 bytes: the format version,
// the message type and the session (8 bytes LE), so a party can refuse a
// message of another version, type or session before reading its fields.
inline void write_message_header(wire_writer& w, std::uint8_t version, std::uint8_t type,
                                 std::uint64_t session) {
  w.u8(version);
  w.u8(type);
  w.u64(session);
}

// Reads the header of a message that must be of `type` (named `type_name`
// in the error) and returns its session.
inline std::uint64_t read_message_header(wire_reader& r, std::uint8_t version, std::uint8_t type,
                                         const char* type_name) {
  const std::uint8_t got_version = r.u8();
  if (got_version != version) {
    r.fail("format version " + std::to_string(got_version) + " (this build reads version " +
           std::to_string(version) + ")");
  }
  const std::uint8_t got = r.u8();
  if (got != type) {
    r.fail("message type " + std::to_string(got) + " where a " + type_name + " (type " +
           std::to_string(type) + ") was expected");
  }
  return r.u64();
}

// The type byte of an encoded message, checked to be in [1, max_type].
inline std::uint8_t peek_message_type(std::span<const std::uint8_t> bytes, const char* what,
                                      std::uint8_t version, std::uint8_t max_type) {
  wire_reader r(bytes, what);
  const std::uint8_t got_version = r.u8();
  if (got_version != version) r.fail("format version " + std::to_string(got_version));
  const std::uint8_t t = r.u8();
  if (t < 1 || t > max_type) r.fail("unknown message type " + std::to_string(t));
  return t;
}

}  // namespace privet::detail
