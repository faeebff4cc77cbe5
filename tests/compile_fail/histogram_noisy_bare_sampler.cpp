// expect: release noise needs a cryptographically secure generator
// A histogram released with a bare exact sampler (not a mechanism) and
// std::mt19937_64: the sampler does not check its generator, so noisy() must.
// With PRIVET_COMPILE_FAIL_FIXED the OS-seeded CSPRNG is used and it compiles.
#include <privet/core/csprng.hpp>
#include <privet/mechanisms/discrete_laplace.hpp>
#include <privet/sketches/sparse_histogram.hpp>

#include <cstdint>
#include <random>

int main() {
  privet::sparse_histogram<std::uint64_t, std::int64_t> h;
  h.add(std::uint64_t{7});
#ifdef PRIVET_COMPILE_FAIL_FIXED
  privet::csprng& gen = privet::secure_generator();
#else
  std::mt19937_64 gen;
#endif
  const auto released = h.noisy(privet::discrete_laplace_distribution(2.0), gen);
  return released.size() > 1 ? 1 : 0;
}
