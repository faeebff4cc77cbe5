// expect: does not convert to the histogram's key type without narrowing
// Issue 22, finding 5: an int64 key added to a sparse_histogram of int32
// keys was narrowed (2^32 + 3 counted as 3). It must not compile. With
// PRIVET_COMPILE_FAIL_FIXED the histogram's key type is as wide as the key.
#include <privet/sketches/sparse_histogram.hpp>

#include <cstdint>

#ifdef PRIVET_COMPILE_FAIL_FIXED
using key = std::int64_t;
#else
using key = std::int32_t;
#endif

int main() {
  privet::sparse_histogram<key> h;
  const std::int64_t wide = (std::int64_t{1} << 32) + 3;
  h.add(wide);
  return h[wide] == 1 ? 0 : 1;
}
