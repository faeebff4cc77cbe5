// tests/support/generated_stream.hpp — an input stream of a given length
// produced on the fly (a fixed head, then a filler pattern), so that a test
// can feed a reader 100 MB without holding 100 MB.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <istream>
#include <streambuf>
#include <string>
#include <vector>

namespace privet::test {

/// `head`, then `filler` repeated, `total` bytes in all (head cut if
/// total is shorter), one 64 KiB block at a time.
class generated_streambuf : public std::streambuf {
 public:
  generated_streambuf(std::string head, std::string filler, std::uint64_t total)
      : head_(std::move(head)), filler_(std::move(filler)), total_(total), block_(1 << 16) {}

  /// Bytes handed out so far.
  [[nodiscard]] std::uint64_t produced() const noexcept { return next_; }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    if (next_ >= total_) return traits_type::eof();
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(block_.size(), total_ - next_));
    for (std::size_t i = 0; i < n; ++i) block_[i] = byte_at(next_ + i);
    next_ += n;
    setg(block_.data(), block_.data(), block_.data() + n);
    return traits_type::to_int_type(*gptr());
  }

 private:
  [[nodiscard]] char byte_at(std::uint64_t at) const {
    if (at < head_.size()) return head_[static_cast<std::size_t>(at)];
    return filler_[static_cast<std::size_t>((at - head_.size()) % filler_.size())];
  }

  std::string head_;
  std::string filler_;
  std::uint64_t total_;
  std::uint64_t next_ = 0;
  std::vector<char> block_;
};

/// An std::istream over a generated_streambuf.
class generated_stream : public std::istream {
 public:
  generated_stream(std::string head, std::string filler, std::uint64_t total)
      : std::istream(nullptr), buf_(std::move(head), std::move(filler), total) {
    rdbuf(&buf_);
  }
  [[nodiscard]] std::uint64_t produced() const noexcept { return buf_.produced(); }

 private:
  generated_streambuf buf_;
};

}  // namespace privet::test
