// expect: keys, encryption randomisers, masks, shares and blinding values need a cryptographically
// secure generator The comparison client's blinding (the multiplicative masks and the shuffle that
// hide x from the key owner) from a seeded generator: the key owner replays them. It must not
// compile. With PRIVET_COMPILE_FAIL_FIXED the generator is the test-only marker and it compiles.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/crypto/secure_comparison.hpp>

#include <boost/multiprecision/cpp_int.hpp>

int main(int argc, char**) {
  using Int = boost::multiprecision::cpp_int;
#ifdef PRIVET_COMPILE_FAIL_FIXED
  privet::testing::seeded_release_generator gen(3);
#else
  privet::seeded_generator gen(3);
#endif
  if (argc > 1) return 0;  // compiled, not run
  const auto kp = privet::dgk::generate_keypair<Int>(
      privet::dgk::key_parameters::for_comparison(8, 2048), privet::secure_generator());
  privet::comparison::parameters p;
  p.bits = 8;
  privet::comparison::server<Int> server(kp.private_key, p);
  privet::comparison::client<Int> client(kp.public_key, p);
  const auto bits = server.encrypt_input(Int(5), privet::secure_generator());
  const auto tests = client.evaluate(bits, Int(7), gen);
  return tests.tests.empty() ? 1 : 0;
}
