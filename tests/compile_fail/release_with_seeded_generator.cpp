// expect: release noise needs a cryptographically secure generator
// Randomised response (a release path without a simulation-only variant) fed
// by privet::seeded_generator: whoever knows the seed knows every answer's
// coin. It must not compile. With PRIVET_COMPILE_FAIL_FIXED the generator is
// the explicit test-only marker from <privet/core/testing.hpp> and it
// compiles.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/mechanisms/randomized_response.hpp>

int main() {
#ifdef PRIVET_COMPILE_FAIL_FIXED
  privet::testing::seeded_release_generator gen(42);
#else
  privet::seeded_generator gen(42);
#endif
  const privet::randomized_response rr(1.0, 4);
  return rr(2, gen) < 4 ? 0 : 1;
}
