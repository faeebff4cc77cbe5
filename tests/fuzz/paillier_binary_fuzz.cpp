// libFuzzer target: the binary Paillier deserialisers on arbitrary bytes. The
// input is read as a public key, a private key, a ciphertext and an encrypted
// number (the last two under a fixed 256-bit key); each read either succeeds,
// and then its encoding (written as is, paillier::already_randomised) is the
// input again (one encoding per value), or
// throws serialization_error. Anything else aborts.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/crypto/paillier_serialization.hpp>

#include <boost/multiprecision/cpp_int.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

namespace {

namespace paillier = privet::paillier;
using Int = boost::multiprecision::cpp_int;
using S = paillier::hex_scale<4>;

const paillier::public_key<Int>& fixed_key() {
  static const auto keys = [] {
    privet::testing::seeded_release_generator gen(2024);
    return paillier::generate_keypair<Int>(paillier::insecure_key_size{256}, gen);
  }();
  return keys.public_key;
}

template <class F>
void read(std::span<const std::uint8_t> in, F f) {
  try {
    const auto again = f(in);
    if (!(again.size() == in.size() && std::equal(again.begin(), again.end(), in.begin()))) {
      std::abort();
    }
  } catch (const privet::serialization_error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> in(data, size);
  const auto& key = fixed_key();
  read(in, [](auto b) {
    return paillier::serialize(
        paillier::deserialize<paillier::public_key<Int>>(b, paillier::allow_insecure));
  });
  read(in, [](auto b) {
    privet::testing::seeded_release_generator gen(7);
    return paillier::serialize(
        paillier::deserialize<paillier::private_key<Int>>(b, gen, paillier::allow_insecure));
  });
  read(in, [&](auto b) {
    return paillier::serialize(paillier::deserialize<paillier::ciphertext<Int>>(b, key),
                               paillier::already_randomised);
  });
  read(in, [&](auto b) {
    return paillier::serialize(paillier::deserialize<paillier::encrypted_number<Int, S>>(b, key),
                               paillier::already_randomised);
  });
  return 0;
}
