// privet/core/detail/int128.hpp — 128-bit integers (a GCC/Clang extension) for
// exact products of 64-bit values in the samplers.
#pragma once

namespace privet::detail {
__extension__ using uint128 = unsigned __int128;
__extension__ using int128 = __int128;
}  // namespace privet::detail
