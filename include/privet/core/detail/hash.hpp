// privet/core/detail/hash.hpp — a full-avalanche 64-bit mix (murmur3's
// finaliser). std::hash is the identity on integers, which open-addressing
// tables with power-of-two sizes (tsl::robin_map) cannot use: they would see
// only the low bits.
#pragma once

#include <cstdint>

namespace privet::detail {

constexpr std::uint64_t mix64(std::uint64_t k) noexcept {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  k ^= k >> 33;
  return k;
}

}  // namespace privet::detail
