// expect: keys, encryption randomisers, masks, shares and blinding values need a cryptographically
// secure generator The private spam filter's Bob encrypting his weights with randomisers from
// std::mt19937_64: Alice, knowing the default seed, decrypts the model. It
// must not compile. With PRIVET_COMPILE_FAIL_FIXED the OS-seeded CSPRNG is
// used and it compiles.
#include <privet/algorithms/private_logistic_regression.hpp>
#include <privet/core/csprng.hpp>

#include <boost/multiprecision/cpp_int.hpp>

#include <optional>
#include <random>

int main(int argc, char**) {
  using Int = boost::multiprecision::cpp_int;
#ifdef PRIVET_COMPILE_FAIL_FIXED
  privet::csprng& gen = privet::secure_generator();
#else
  std::mt19937_64 gen;
#endif
  if (argc > 1) return 0;  // compiled, not run
  auto& secure = privet::secure_generator();
  auto paillier_keys = privet::paillier::generate_keypair<Int>(2048, secure);
  auto dgk_keys = privet::dgk::generate_keypair<Int>(
      privet::dgk::key_parameters::for_comparison(32, 2048), secure);
  privet::private_lr::parameters p;
  privet::private_lr::bob<Int> bob(paillier_keys.private_key, dgk_keys.private_key, p);
  const auto message = bob.publish(gen);
  return message.weights.empty() ? 1 : 0;
}
