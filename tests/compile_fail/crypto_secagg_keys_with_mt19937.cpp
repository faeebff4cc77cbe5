// expect: keys, encryption randomisers, masks, shares and blinding values need a cryptographically
// secure generator A secure aggregation client's key pairs and self-mask seed from std::mt19937_64:
// the server replays them and unmasks every input. It must not compile. With
// PRIVET_COMPILE_FAIL_FIXED the OS-seeded CSPRNG is used and it compiles.
#include <privet/core/csprng.hpp>
#include <privet/crypto/secure_aggregation.hpp>

#include <random>

int main() {
#ifdef PRIVET_COMPILE_FAIL_FIXED
  privet::csprng& gen = privet::secure_generator();
#else
  std::mt19937_64 gen;
#endif
  privet::secagg::parameters p;
  p.clients = 3;
  p.threshold = 2;
  p.length = 4;
  p.modulus = privet::secagg::ring::power_of_two(32);
  privet::secagg::client client(p, 1);
  const auto advert = client.advertise_keys(gen);
  return advert.sender == 1 ? 0 : 1;
}
