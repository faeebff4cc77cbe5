// libFuzzer target: the JSON Paillier readers (python-paillier's layouts) on
// arbitrary text. The input is read as a public key (basic or JWK), a JWK
// private key, a ciphertext, an encrypted number and a list of encrypted
// numbers (the last three under a fixed 256-bit key); each read either
// succeeds, and then what it wrote back (ciphertexts as they are,
// paillier::already_randomised) reads as the same value, or throws
// serialization_error. Anything else aborts.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/crypto/paillier_serialization.hpp>

#include <boost/multiprecision/cpp_int.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string_view>
#include <vector>

namespace {

namespace paillier = privet::paillier;
using Int = boost::multiprecision::cpp_int;
using S = paillier::hex_scale<4>;
using number = paillier::encrypted_number<Int, S>;

const paillier::public_key<Int>& fixed_key() {
  static const auto keys = [] {
    privet::testing::seeded_release_generator gen(2024);
    return paillier::generate_keypair<Int>(paillier::insecure_key_size{256}, gen);
  }();
  return keys.public_key;
}

void check(bool ok) {
  if (!ok) std::abort();
}

template <class F>
void read(F f) {
  try {
    f();
  } catch (const privet::serialization_error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto& key = fixed_key();
  const auto bound = paillier::fixed_point<Int, S>::from_mantissa(key.max_signed());
  read([&] {
    const auto pk = paillier::from_json<paillier::public_key<Int>>(text, paillier::allow_insecure);
    check(paillier::from_json<paillier::public_key<Int>>(paillier::to_json(pk),
                                                         paillier::allow_insecure) == pk);
    check(paillier::from_json<paillier::public_key<Int>>(paillier::to_jwk(pk),
                                                         paillier::allow_insecure) == pk);
  });
  read([&] {
    privet::testing::seeded_release_generator gen(7);
    const auto sk =
        paillier::from_json<paillier::private_key<Int>>(text, gen, paillier::allow_insecure);
    const auto again = paillier::from_json<paillier::private_key<Int>>(paillier::to_jwk(sk), gen,
                                                                       paillier::allow_insecure);
    check(again.public_key() == sk.public_key() && again.lambda() == sk.lambda());
  });
  read([&] {
    const auto c = paillier::from_json<paillier::ciphertext<Int>>(text, key);
    check(paillier::from_json<paillier::ciphertext<Int>>(
              paillier::to_json(c, paillier::already_randomised), key) == c);
  });
  read([&] {
    const auto x = paillier::from_json<number>(text, key, bound);
    check(
        paillier::from_json<number>(paillier::to_json(x, paillier::already_randomised), key, bound)
            .ciphertext() == x.ciphertext());
  });
  read([&] {
    const auto xs = paillier::from_json<std::vector<number>>(text, key, bound);
    const auto again = paillier::from_json<std::vector<number>>(
        paillier::to_json(key, std::span<const number>(xs), paillier::already_randomised), key,
        bound);
    check(again.size() == xs.size());
    for (std::size_t i = 0; i < xs.size(); ++i) check(again[i].ciphertext() == xs[i].ciphertext());
  });
  return 0;
}
