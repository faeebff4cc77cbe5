// A downstream program built by a plain Makefile from `pkg-config --cflags
// --libs privet` (or privet-gmp): Paillier from the crypto layer and a
// Shamir round trip, with noise and keys from privet's CSPRNG.
#include <privet/core/csprng.hpp>
#include <privet/crypto/paillier.hpp>
#include <privet/crypto/shamir.hpp>

#include <cstdio>
#include <vector>

int main() {
  auto& gen = privet::secure_generator();
  // 512 bits keep the cpp_int build (privet.pc, no GMP) fast; a test key only.
  const auto keys =
      privet::paillier::generate_keypair(privet::paillier::insecure_key_size{512}, gen);
  const auto sum = keys.public_key.encrypt(1200, gen) + keys.public_key.encrypt(34, gen);
  const auto total = keys.private_key.decrypt(sum);

  using privet::shamir::gf61;
  const std::vector<gf61> secret = {gf61(42)};
  const auto shares = privet::shamir::split<gf61>(secret, 2, 3, gen);
  const std::vector<privet::shamir::share<gf61>> two(shares.begin(), shares.begin() + 2);
  const bool shamir_ok = privet::shamir::reconstruct<gf61>(two, 2) == secret;

  std::printf("privet crypto consumer: Dec(Enc(1200) + Enc(34)) = %s, Shamir %s\n",
              total.str().c_str(), shamir_ok ? "ok" : "FAILED");
  return total == 1234 && shamir_ok ? 0 : 1;
}
