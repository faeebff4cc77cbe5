// Paillier fixed-point encoding and packing at 2048 bits, on cpp_int and
// (with PRIVET_HAS_GMP) GMP: encode + encrypt of a vector of 64 doubles
// (public-key textbook encryption), decrypt + decode of it (CRT), and the
// same 64 values packed into one plaintext (slots for |x| <= 1 at scale 10^6
// summed over 1000 vectors: 31-bit slots, 66 per 2048-bit plaintext) —
// encryption and decryption per value, packed against one ciphertext per
// value. The counter `per_value` is the time per value.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform.hpp>
#include <privet/crypto/encrypted_number.hpp>
#include <privet/crypto/paillier_packing.hpp>

#include <benchmark/benchmark.h>
#include <boost/multiprecision/cpp_int.hpp>
#ifdef PRIVET_HAS_GMP
#include <boost/multiprecision/gmp.hpp>
#endif

#include <cstddef>
#include <map>
#include <span>
#include <vector>

namespace {

namespace mp = boost::multiprecision;
namespace paillier = privet::paillier;
using S = paillier::decimal_scale<6>;
constexpr std::size_t values_per_vector = 64;
constexpr std::size_t key_bits = 2048;

template <class Int>
const paillier::keypair<Int>& keys() {
  static const auto kp = [] {
    privet::testing::seeded_release_generator gen(key_bits);
    return paillier::generate_keypair<Int>(key_bits, gen);
  }();
  return kp;
}

std::vector<double> data() {
  privet::testing::seeded_release_generator gen(3);
  std::vector<double> xs;
  for (std::size_t i = 0; i < values_per_vector; ++i) {
    xs.push_back(2 * privet::uniform_real(gen) - 1);
  }
  return xs;
}

void per_value(benchmark::State& state) {
  state.counters["per_value"] = benchmark::Counter(
      static_cast<double>(values_per_vector),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * values_per_vector));
}

template <class Int>
void encode_encrypt(benchmark::State& state) {
  using fp = paillier::fixed_point<Int, S>;
  const auto& pk = keys<Int>().public_key;
  const auto xs = data();
  const fp bound = fp::encode(1.0);
  privet::testing::seeded_release_generator gen(4);
  for (auto _ : state) {
    std::vector<paillier::encrypted_number<Int, S>> out;
    out.reserve(xs.size());
    for (double x : xs) out.push_back(paillier::encrypt(pk, fp::encode(x), bound, gen));
    benchmark::DoNotOptimize(out.data());
  }
  per_value(state);
}

template <class Int>
void decrypt_decode(benchmark::State& state) {
  using fp = paillier::fixed_point<Int, S>;
  const auto& [pk, sk] = keys<Int>();
  const auto xs = data();
  privet::testing::seeded_release_generator gen(5);
  std::vector<paillier::encrypted_number<Int, S>> cs;
  for (double x : xs) cs.push_back(paillier::encrypt(pk, fp::encode(x), fp::encode(1.0), gen));
  for (auto _ : state) {
    double total = 0;
    for (const auto& c : cs) total += paillier::decrypt(sk, c).decode();
    benchmark::DoNotOptimize(total);
  }
  per_value(state);
}

template <class Int>
paillier::packing<Int, S> layout() {
  using fp = paillier::fixed_point<Int, S>;
  return paillier::packing<Int, S>(keys<Int>().public_key, fp::encode(1.0), 1000);
}

template <class Int>
void pack_encrypt(benchmark::State& state) {
  using fp = paillier::fixed_point<Int, S>;
  const auto packer = layout<Int>();
  std::vector<fp> values;
  for (double x : data()) values.push_back(fp::encode(x));
  privet::testing::seeded_release_generator gen(6);
  for (auto _ : state) {
    benchmark::DoNotOptimize(packer.pack(std::span<const fp>(values), gen));
  }
  per_value(state);
  state.counters["slots"] = static_cast<double>(packer.slots());
}

template <class Int>
void unpack_decrypt(benchmark::State& state) {
  using fp = paillier::fixed_point<Int, S>;
  const auto packer = layout<Int>();
  const auto& sk = keys<Int>().private_key;
  std::vector<fp> values;
  for (double x : data()) values.push_back(fp::encode(x));
  privet::testing::seeded_release_generator gen(7);
  const auto packed = packer.pack(std::span<const fp>(values), gen);
  for (auto _ : state) {
    double total = 0;
    for (const auto& v : paillier::unpack(sk, packed)) total += v.decode();
    benchmark::DoNotOptimize(total);
  }
  per_value(state);
}

}  // namespace

BENCHMARK_TEMPLATE(encode_encrypt, mp::cpp_int)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(decrypt_decode, mp::cpp_int)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(pack_encrypt, mp::cpp_int)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(unpack_decrypt, mp::cpp_int)->Unit(benchmark::kMillisecond);
#ifdef PRIVET_HAS_GMP
BENCHMARK_TEMPLATE(encode_encrypt, mp::mpz_int)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(decrypt_decode, mp::mpz_int)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(pack_encrypt, mp::mpz_int)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(unpack_decrypt, mp::mpz_int)->Unit(benchmark::kMillisecond);
#endif
