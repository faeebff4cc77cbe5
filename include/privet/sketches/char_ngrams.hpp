// privet/sketches/char_ngrams.hpp — the private spam filter's features
// (Pathak, Sharifi & Raj 2011, "Privacy Preserving Spam Filtering",
// arXiv:1102.4021): the overlapping 4-byte windows of the first 35 KB of an
// email, each read as a 32-bit number (one of the 2^32 possible 4-grams) and
// reduced modulo the feature space size d, kept as a binary present/absent
// set.
//
// Windows are of bytes, not code points: emails are byte streams whose
// encodings vary, and the paper hashes raw 4-grams. A window's number is
// little-endian (b0 + 2^8 b1 + 2^16 b2 + 2^24 b3) on every platform, so
// features do not depend on the machine. The reduction uses Lemire's
// division-free remainder (Lemire, Kaser & Kurz 2019, "Faster remainder by
// direct computation"), and duplicates are removed with a bitmap over the
// feature space, so an email costs O(bytes + d / 64), never a sort.
#pragma once

#include <privet/core/detail/int128.hpp>
#include <privet/core/validate.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace privet {

/// The spam filter's default prefix: the first 35 KB (35 x 1024 bytes).
inline constexpr std::size_t spam_filter_prefix_bytes = 35 * 1024;

/// The distinct features (ascending) of the overlapping 4-byte windows of
/// the first `max_bytes` bytes of `text`, each window modulo d. Texts
/// shorter than 4 bytes have no window and no feature. Throws
/// invalid_parameter unless 1 <= d <= 2^26 (the bitmap is d / 8 bytes).
inline std::vector<std::uint32_t> char4gram_features(
    std::string_view text, std::uint32_t d, std::size_t max_bytes = spam_filter_prefix_bytes) {
  if (d < 1 || d > (std::uint32_t{1} << 26)) throw_invalid("d", d, "[1, 2^26]");
  const std::size_t n = text.size() < max_bytes ? text.size() : max_bytes;
  std::vector<std::uint32_t> out;
  if (n < 4) return out;
  thread_local std::vector<std::uint64_t> seen;
  const std::size_t words = (d + 63) / 64;
  if (seen.size() < words) seen.resize(words);
  // a mod d = ((M a mod 2^64) d) / 2^64 with M = ceil(2^64 / d), exact for
  // 32-bit a and d (Lemire et al. 2019, Theorem 1).
  const std::uint64_t m = ~std::uint64_t{0} / d + 1;
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  // The window before the first, whose lowest byte is shifted out at once.
  std::uint32_t window = static_cast<std::uint32_t>(p[0]) << 8 |
                         static_cast<std::uint32_t>(p[1]) << 16 |
                         static_cast<std::uint32_t>(p[2]) << 24;
  for (std::size_t i = 3; i < n; ++i) {
    // Slide: drop the oldest byte (lowest), add the new one as the highest.
    window = (window >> 8) | static_cast<std::uint32_t>(p[i]) << 24;
    const auto f =
        d == 1 ? 0u
               : static_cast<std::uint32_t>((static_cast<detail::uint128>(m * window) * d) >> 64);
    seen[f >> 6] |= std::uint64_t{1} << (f & 63);
  }
  out.reserve(n - 3 < d ? n - 3 : d);
  for (std::size_t w = 0; w < words; ++w) {
    for (std::uint64_t bits = seen[w]; bits != 0; bits &= bits - 1) {
      out.push_back(
          static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(__builtin_ctzll(bits))));
    }
    seen[w] = 0;
  }
  return out;
}

}  // namespace privet
