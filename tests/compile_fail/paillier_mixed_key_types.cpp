// expect: ciphertexts under two different key types .* cannot be combined
// Adding ciphertexts of two keys whose key types differ must not compile
// (with the default key type the mix is caught at run time instead). With
// PRIVET_COMPILE_FAIL_FIXED both ciphertexts are under Alice's key.
#include <privet/core/testing.hpp>
#include <privet/crypto/paillier.hpp>

#include <boost/multiprecision/cpp_int.hpp>

namespace paillier = privet::paillier;
using boost::multiprecision::cpp_int;

struct alice_key {};
struct bob_key {};

int main() {
  privet::testing::seeded_release_generator gen(1);
  const auto alice =
      paillier::generate_keypair<cpp_int, alice_key>(paillier::insecure_key_size{256}, gen);
  const auto a = alice.public_key.encrypt(cpp_int(1), gen);
#ifdef PRIVET_COMPILE_FAIL_FIXED
  const auto b = alice.public_key.encrypt(cpp_int(2), gen);
#else
  const auto bob =
      paillier::generate_keypair<cpp_int, bob_key>(paillier::insecure_key_size{256}, gen);
  const auto b = bob.public_key.encrypt(cpp_int(2), gen);
#endif
  (void)(a + b);
  return 0;
}
