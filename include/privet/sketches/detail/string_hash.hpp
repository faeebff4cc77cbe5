// privet/sketches/detail/string_hash.hpp — XXH3-64 (Y. Collet, xxHash 0.8,
// https://github.com/Cyan4973/xxHash) as the hash of string keys in hash
// tables: sparse_histogram's table and ngram_table's word map.
//
// Why XXH3: on words and n-grams (5 to 60 bytes) it hashes faster than
// libstdc++'s std::hash<std::string_view> (a Murmur2-style loop) and than
// SipHash-2-4, and its 64 bits are fully mixed, high bits included, which
// sparse_histogram's table needs (bench/README.md, sketches_bench
// string_hash/*). It is used unseeded (seed 0, the default secret), so a
// string's hash, hence a table's layout, is the same on every platform and
// every run; no output of privet depends on that layout anyway (histograms
// report in key order). Like std::hash it is no defence against an
// adversary who picks colliding keys to slow a table down (hash flooding);
// the count-min sketch, whose error bound needs keys independent of the hash,
// keys SipHash instead.
//
// xxHash is used header-only (XXH_INLINE_ALL): every function is a static
// inline one in this translation unit, so nothing is linked and the
// compiler specialises the short-input paths. Including <xxhash.h> before
// or after this header, inlined or not, still works: the inlined copy's
// names carry their own prefix.
#pragma once

#if !defined(XXH_INLINE_ALL)
#define XXH_INLINE_ALL
#define PRIVET_DETAIL_DEFINED_XXH_INLINE_ALL
#endif
#include <xxhash.h>
#if defined(PRIVET_DETAIL_DEFINED_XXH_INLINE_ALL)
#undef XXH_INLINE_ALL
#undef PRIVET_DETAIL_DEFINED_XXH_INLINE_ALL
#endif

#include <cstddef>
#include <string_view>

namespace privet::detail {

/// XXH3-64 of a string's bytes; transparent, so a table of std::string is
/// searched with a std::string_view without a copy.
struct xxh3_string_hash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept {
    return static_cast<std::size_t>(XXH3_64bits(s.data(), s.size()));
  }
};

}  // namespace privet::detail
