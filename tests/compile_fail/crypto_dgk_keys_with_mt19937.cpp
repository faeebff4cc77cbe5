// expect: keys, encryption randomisers, masks, shares and blinding values need a cryptographically
// secure generator DGK key generation with std::mt19937: a key pair anyone can regenerate. It must
// not compile. With PRIVET_COMPILE_FAIL_FIXED the OS-seeded CSPRNG is used and it compiles.
#include <privet/core/csprng.hpp>
#include <privet/crypto/dgk.hpp>

#include <boost/multiprecision/cpp_int.hpp>

#include <random>

int main(int argc, char**) {
  using Int = boost::multiprecision::cpp_int;
#ifdef PRIVET_COMPILE_FAIL_FIXED
  privet::csprng& gen = privet::secure_generator();
#else
  std::mt19937 gen;
#endif
  if (argc > 1) return 0;  // compiled, not run
  const auto params = privet::dgk::key_parameters::for_comparison(32, 2048);
  const auto kp = privet::dgk::generate_keypair<Int>(params, gen);
  return kp.public_key.n() > 0 ? 0 : 1;
}
