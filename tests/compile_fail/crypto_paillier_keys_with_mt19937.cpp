// expect: keys, encryption randomisers, masks, shares and blinding values need a cryptographically
// secure generator Paillier key generation with std::mt19937_64 at its default seed: anyone can
// regenerate the key pair, so it must not compile. With PRIVET_COMPILE_FAIL_FIXED the OS-seeded
// CSPRNG is used and it compiles.
#include <privet/core/csprng.hpp>
#include <privet/crypto/paillier.hpp>

#include <boost/multiprecision/cpp_int.hpp>

#include <random>

int main(int argc, char**) {
  using Int = boost::multiprecision::cpp_int;
#ifdef PRIVET_COMPILE_FAIL_FIXED
  privet::csprng& gen = privet::secure_generator();
#else
  std::mt19937_64 gen;
#endif
  if (argc > 1) return 0;  // compiled, not run: key generation takes a while
  const auto kp = privet::paillier::generate_keypair<Int>(2048, gen);
  return kp.public_key.n() > 0 ? 0 : 1;
}
