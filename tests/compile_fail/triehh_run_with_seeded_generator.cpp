// expect: release noise needs a cryptographically secure generator
// triehh::run plays every client, and the clients' randomisers draw from
// keyed streams under a secret taken from run's generator: a seeded
// generator there would make every client's coins known to whoever knows the
// seed. It must not compile. With PRIVET_COMPILE_FAIL_FIXED the generator is
// the explicit test-only marker from <privet/core/testing.hpp> and it
// compiles.
#include <privet/algorithms/ldp_triehh.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>

#include <vector>

int main() {
#ifdef PRIVET_COMPILE_FAIL_FIXED
  privet::testing::seeded_release_generator gen(42);
#else
  privet::seeded_generator gen(42);
#endif
  const std::vector<privet::triehh::user_data> users;
  privet::triehh::parameters p;
  p.users_per_layer = 1;
  const auto passes = privet::triehh::run(users, {}, U"ab", U'$', p, 1, gen);
  return passes.size() == 1 ? 0 : 1;
}
