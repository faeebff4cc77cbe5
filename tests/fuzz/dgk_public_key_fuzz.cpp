// libFuzzer target: the DGK public-key decoder (crypto/dgk.hpp) on arbitrary
// bytes, as a comparison client reads the key a server sends. Each decode
// (secure sizes, and with allow_insecure) either succeeds, and then the key
// re-encodes to the input (one encoding per key) and the secure decode
// accepts only keys the insecure one accepts too, or throws
// serialization_error. A decoded key of at most 512 bits (so that a run
// stays short) is then used as a client would: encryptions, homomorphic
// sums, negation, scalar products and re-randomisation must stay in Z*_n
// and under that key, whatever its g and h. Anything else aborts.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/crypto/dgk.hpp>

#include <boost/multiprecision/cpp_int.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <span>
#include <vector>

namespace {

namespace dgk = privet::dgk;
using Int = boost::multiprecision::cpp_int;

void check(bool ok) {
  if (!ok) std::abort();
}

template <class F>
std::optional<dgk::public_key<Int>> decode(std::span<const std::uint8_t> in, F f) {
  try {
    auto key = f(in);
    const auto again = dgk::serialize(key);
    check(again.size() == in.size() && std::equal(again.begin(), again.end(), in.begin()));
    return key;
  } catch (const privet::serialization_error&) {
    return std::nullopt;
  }
}

void in_group(const dgk::public_key<Int>& key, const dgk::ciphertext<Int>& c) {
  check(c.value() >= 1 && c.value() < key.n() &&
        boost::multiprecision::gcd(c.value(), key.n()) == 1);
  check(c.key() == key);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> in(data, size);
  const auto secure = decode(in, [](auto b) { return dgk::deserialize_public_key<Int>(b); });
  const auto key =
      decode(in, [](auto b) { return dgk::deserialize_public_key<Int>(b, dgk::allow_insecure); });
  check(!secure || (key && *secure == *key && !secure->insecure()));
  if (!key || key->bits() > 512) return 0;

  privet::testing::seeded_release_generator gen(size);
  const std::uint32_t u = key->plaintext_modulus();
  const auto a = key->encrypt(1, gen);
  const auto b = key->encrypt(u - 1, gen);
  in_group(*key, a);
  in_group(*key, b);
  in_group(*key, a + b);
  in_group(*key, -a);
  in_group(*key, a - b);
  in_group(*key, a * Int(u + 2));
  in_group(*key, b * -3);
  in_group(*key, a.plus(u - 1));
  in_group(*key, key->rerandomize(b, gen));
  try {
    (void)key->encrypt(u, gen);
    std::abort();  // m = u is outside the plaintext space
  } catch (const privet::overflow_error&) {
  }
  return 0;
}
