// expect: release noise needs a cryptographically secure generator
// A quick-start style pipeline (clamp, bounded sum, secure Laplace noise) run
// with std::mt19937: its state is a default seed anyone can replay, so the
// noise cancels between two runs on neighbouring data. It must not compile.
// With PRIVET_COMPILE_FAIL_FIXED the OS-seeded CSPRNG is used and it compiles.
#include <privet/core/csprng.hpp>
#include <privet/core/pipeline.hpp>
#include <privet/core/transformations/bounded_sum.hpp>
#include <privet/core/transformations/clamp.hpp>
#include <privet/mechanisms/laplace.hpp>

#include <random>
#include <vector>

int main() {
  auto sum = privet::clamp(0.0, 1.0) | privet::bounded_sum(0.0, 1.0, 100);
  auto total =
      sum | privet::laplace_mechanism<>::from_guarantee(privet::pure_dp(1.0), sum.stability(1));
#ifdef PRIVET_COMPILE_FAIL_FIXED
  privet::csprng& gen = privet::secure_generator();
#else
  std::mt19937_64 gen;
#endif
  const std::vector<double> data{0.5, 1.0};
  return total(data, gen) > 1e300 ? 1 : 0;
}
