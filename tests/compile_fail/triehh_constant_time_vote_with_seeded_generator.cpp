// expect: release noise needs a cryptographically secure generator
// A constant-time client's vote is a release in local DP: its sampling
// priorities and its subset-selection reports come from the generator it is
// given, so a seeded generator would make the vote's randomness known to
// whoever knows the seed. Every respond and respond_constant_time overload
// reaches constant_time_client::respond, which requires a secure generator.
// It must not compile. With PRIVET_COMPILE_FAIL_FIXED the generator is the
// explicit test-only marker from <privet/core/testing.hpp> and it compiles.
#include <privet/algorithms/triehh_constant_time.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>

#include <limits>

int main() {
#ifdef PRIVET_COMPILE_FAIL_FIXED
  privet::testing::seeded_release_generator gen(42);
#else
  privet::seeded_generator gen(42);
#endif
  privet::triehh::parameters p;
  p.epsilon = std::numeric_limits<double>::infinity();
  p.contributions = 1;
  const privet::triehh::prepared_layer prepared(
      privet::triehh::layer_broadcast{1, {U"a", U"b"}, U"ab$"}, p);
  const privet::triehh::constant_time_layer layer(prepared, nullptr, {4, 0});
  const privet::triehh::user_data user;
  const auto v = privet::triehh::respond_constant_time(user, layer, gen);
  return v.layer == 1 ? 0 : 1;
}
