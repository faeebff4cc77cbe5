// expect: encrypted numbers of different scales cannot be added
// A product of two values of scale C has scale C^2; adding it to a value of
// scale C must not compile. With PRIVET_COMPILE_FAIL_FIXED the value of
// scale C is upscaled to C^2 first.
#include <privet/core/testing.hpp>
#include <privet/crypto/encrypted_number.hpp>

#include <boost/multiprecision/cpp_int.hpp>

namespace paillier = privet::paillier;
using boost::multiprecision::cpp_int;
using scale = paillier::hex_scale<4>;
using fp = paillier::fixed_point<cpp_int, scale>;

int main() {
  privet::testing::seeded_release_generator gen(1);
  const auto keys = paillier::generate_keypair<cpp_int>(paillier::insecure_key_size{256}, gen);
  const auto x = paillier::encrypt(keys.public_key, fp::encode(1.5), fp::encode(2.0), gen);
  const auto squared = x * fp::encode(1.5);  // scale 16^8
#ifdef PRIVET_COMPILE_FAIL_FIXED
  const auto total = squared + paillier::upscale<paillier::product_scale_t<scale, scale>>(x);
#else
  const auto total = squared + x;
#endif
  return paillier::decrypt(keys.private_key, total).decode() == 4.5 ? 0 : 1;
}
