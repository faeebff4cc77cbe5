// expect: keys, encryption randomisers, masks, shares and blinding values need a cryptographically
// secure generator Paillier encryption with privet::seeded_generator: whoever knows the seed
// re-derives the randomiser and so the plaintext. It must not compile. With
// PRIVET_COMPILE_FAIL_FIXED the generator is the explicit test-only marker
// from <privet/core/testing.hpp> and it compiles.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/crypto/paillier.hpp>

#include <boost/multiprecision/cpp_int.hpp>

int main() {
  using Int = boost::multiprecision::cpp_int;
#ifdef PRIVET_COMPILE_FAIL_FIXED
  privet::testing::seeded_release_generator gen(42);
#else
  privet::seeded_generator gen(42);
#endif
  const auto kp = privet::paillier::generate_keypair<Int>(privet::paillier::insecure_key_size{256},
                                                          privet::secure_generator());
  const auto c = kp.public_key.encrypt(Int(42), gen);
  return kp.private_key.decrypt(c) == 42 ? 0 : 1;
}
