// Crypto layer: Paillier at 2048 and 3072 bits on the cpp_int backend (our
// constant-time Montgomery code) and, when built with PRIVET_HAS_GMP, the GMP
// backend (mpz_powm_sec for secret exponents, mpz_powm for public ones).
//
// Reported per operation: key generation, encryption (textbook: (1 + m n)
// r^n mod n^2 with r drawn and checked; DJN: h_N^a from the fixed-base table
// with a 2 kappa-bit a; pooled: a randomiser precomputed by a
// randomizer_pool, so only the product is online; owner: r^n through the
// CRT), the DJN set-up (h_N and its table) and a pool fill, decryption
// (textbook and CRT), addition, multiplication by a 64-bit and by a
// full-size scalar, negation, and batch throughput (encryption in both
// modes, CRT decryption, a dense dot product) on 1 and 2 threads, in wall
// time. References of the same size — one modular exponentiation with an
// exponent of n's length modulo n^2, the core of textbook encryption — by
// GMP's mpz_powm and mpz_powm_sec, Boost's generic powm on cpp_int and
// privet's Montgomery code, so that each Paillier operation reads as a
// multiple of one raw exponentiation.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/uniform.hpp>
#include <privet/crypto/detail/montgomery.hpp>
#include <privet/crypto/paillier.hpp>
#include <privet/crypto/paillier_batch.hpp>

#include <benchmark/benchmark.h>
#include <boost/multiprecision/cpp_int.hpp>
#ifdef PRIVET_HAS_GMP
#include <boost/multiprecision/gmp.hpp>
#endif

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <utility>
#include <vector>

namespace {

namespace mp = boost::multiprecision;
namespace paillier = privet::paillier;

// One key pair per (backend, size), made once: the same seed for both
// backends gives the same primes.
template <class Int>
const paillier::keypair<Int>& keys(std::size_t bits) {
  static std::map<std::size_t, paillier::keypair<Int>> cache;
  auto it = cache.find(bits);
  if (it == cache.end()) {
    privet::seeded_generator gen(bits);
    it = cache.emplace(bits, paillier::generate_keypair<Int>(bits, gen)).first;
  }
  return it->second;
}

std::size_t bits_arg(const benchmark::State& state) {
  return static_cast<std::size_t>(state.range(0));
}

template <class Int>
void keygen(benchmark::State& state) {
  privet::seeded_generator gen(7);
  for (auto _ : state) {
    benchmark::DoNotOptimize(paillier::generate_keypair<Int>(bits_arg(state), gen));
  }
}

template <class Int>
void encrypt_public(benchmark::State& state) {
  const auto& [pk, sk] = keys<Int>(bits_arg(state));
  privet::seeded_generator gen(8);
  const Int m = privet::uniform_below(gen, pk.n());
  for (auto _ : state) benchmark::DoNotOptimize(pk.encrypt(m, gen));
}

template <class Int>
void encrypt_owner_crt(benchmark::State& state) {
  const auto& [pk, sk] = keys<Int>(bits_arg(state));
  privet::seeded_generator gen(9);
  const Int m = privet::uniform_below(gen, pk.n());
  for (auto _ : state) benchmark::DoNotOptimize(sk.encrypt(m, gen));
}

template <class Int>
void encrypt_djn(benchmark::State& state) {
  const auto& [pk, sk] = keys<Int>(bits_arg(state));
  const auto djn = pk.with_mode(paillier::encryption_mode::djn);  // table built here
  privet::seeded_generator gen(17);
  const Int m = privet::uniform_below(gen, pk.n());
  for (auto _ : state) benchmark::DoNotOptimize(djn.encrypt(m, gen));
}

// Encryption with a randomiser from a pool filled ahead of time (refilled,
// untimed, when empty): the online cost of pooled encryption, one product
// modulo n^2 whatever kind of randomiser the pool holds. The pool holds DJN
// randomisers only to keep the untimed refills short.
template <class Int>
void encrypt_pooled(benchmark::State& state) {
  const auto& [pk, sk] = keys<Int>(bits_arg(state));
  auto pool = std::make_shared<paillier::randomizer_pool<Int>>(
      pk.with_mode(paillier::encryption_mode::djn));
  const auto pooled = pk.with_pool(pool);
  privet::seeded_generator gen(18);
  const Int m = privet::uniform_below(gen, pk.n());
  for (auto _ : state) {
    if (pool->size() == 0) {
      state.PauseTiming();
      pool->fill(250, gen);
      state.ResumeTiming();
    }
    benchmark::DoNotOptimize(pooled.encrypt(m, gen));
  }
}

// h_N from n and its fixed-base table: paid once per modulus.
template <class Int>
void djn_setup(benchmark::State& state) {
  const auto& [pk, sk] = keys<Int>(bits_arg(state));
  for (auto _ : state) {
    const paillier::public_key<Int> fresh(pk.n());
    benchmark::DoNotOptimize(fresh.with_mode(paillier::encryption_mode::djn));
  }
}

// Filling a pool with 64 textbook randomisers on range(1) threads.
template <class Int>
void pool_fill(benchmark::State& state) {
  const auto& [pk, sk] = keys<Int>(bits_arg(state));
  const paillier::batch_options options{static_cast<std::size_t>(state.range(1))};
  privet::seeded_generator gen(19);
  for (auto _ : state) {
    paillier::randomizer_pool<Int> pool(pk);
    pool.fill(64, gen, options);
    benchmark::DoNotOptimize(pool.size());
  }
  state.SetItemsProcessed(state.iterations() * 64);
}

template <class Int>
void decrypt_textbook(benchmark::State& state) {
  const auto& [pk, sk] = keys<Int>(bits_arg(state));
  privet::seeded_generator gen(10);
  const auto c = pk.encrypt(privet::uniform_below(gen, pk.n()), gen);
  for (auto _ : state) benchmark::DoNotOptimize(sk.decrypt_textbook(c));
}

template <class Int>
void decrypt_crt(benchmark::State& state) {
  const auto& [pk, sk] = keys<Int>(bits_arg(state));
  privet::seeded_generator gen(11);
  const auto c = pk.encrypt(privet::uniform_below(gen, pk.n()), gen);
  for (auto _ : state) benchmark::DoNotOptimize(sk.decrypt(c));
}

template <class Int>
void add(benchmark::State& state) {
  const auto& [pk, sk] = keys<Int>(bits_arg(state));
  privet::seeded_generator gen(12);
  const auto a = pk.encrypt(privet::uniform_below(gen, pk.n()), gen);
  const auto b = pk.encrypt(privet::uniform_below(gen, pk.n()), gen);
  for (auto _ : state) benchmark::DoNotOptimize(a + b);
}

template <class Int>
void scalar_multiply_64(benchmark::State& state) {
  const auto& [pk, sk] = keys<Int>(bits_arg(state));
  privet::seeded_generator gen(13);
  const auto a = pk.encrypt(privet::uniform_below(gen, pk.n()), gen);
  const std::uint64_t k = gen() | (std::uint64_t{1} << 63);
  for (auto _ : state) benchmark::DoNotOptimize(a * k);
}

template <class Int>
void scalar_multiply_full(benchmark::State& state) {
  const auto& [pk, sk] = keys<Int>(bits_arg(state));
  privet::seeded_generator gen(14);
  const auto a = pk.encrypt(privet::uniform_below(gen, pk.n()), gen);
  const Int k = privet::uniform_below(gen, pk.n());
  for (auto _ : state) benchmark::DoNotOptimize(a * k);
}

template <class Int>
void negate(benchmark::State& state) {
  const auto& [pk, sk] = keys<Int>(bits_arg(state));
  privet::seeded_generator gen(15);
  const auto a = pk.encrypt(privet::uniform_below(gen, pk.n()), gen);
  for (auto _ : state) benchmark::DoNotOptimize(-a);
}

// Batches of 64 on range(1) threads, in wall time: the speed-up is the
// ratio of the 2-thread and 1-thread items per second.
constexpr std::size_t batch_size = 64;

template <class Int>
void batch_encrypt(benchmark::State& state, paillier::encryption_mode mode) {
  const auto& [pk, sk] = keys<Int>(bits_arg(state));
  const auto key = pk.with_mode(mode);
  const paillier::batch_options options{static_cast<std::size_t>(state.range(1))};
  privet::seeded_generator gen(20);
  std::vector<Int> ms;
  for (std::size_t i = 0; i < batch_size; ++i) ms.push_back(privet::uniform_below(gen, pk.n()));
  for (auto _ : state) benchmark::DoNotOptimize(paillier::encrypt(key, ms, gen, options));
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(batch_size));
}

template <class Int>
void batch_encrypt_textbook(benchmark::State& state) {
  batch_encrypt<Int>(state, paillier::encryption_mode::textbook);
}
template <class Int>
void batch_encrypt_djn(benchmark::State& state) {
  batch_encrypt<Int>(state, paillier::encryption_mode::djn);
}

template <class Int>
void batch_decrypt(benchmark::State& state) {
  const auto& [pk, sk] = keys<Int>(bits_arg(state));
  const paillier::batch_options options{static_cast<std::size_t>(state.range(1))};
  privet::seeded_generator gen(21);
  std::vector<Int> ms;
  for (std::size_t i = 0; i < batch_size; ++i) ms.push_back(privet::uniform_below(gen, pk.n()));
  const auto cs = paillier::encrypt(pk.with_mode(paillier::encryption_mode::djn), ms, gen);
  for (auto _ : state) benchmark::DoNotOptimize(paillier::decrypt(sk, cs, options));
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(batch_size));
}

// A dense dot product of 64 ciphertexts with 64-bit weights.
template <class Int>
void batch_dot(benchmark::State& state) {
  const auto& [pk, sk] = keys<Int>(bits_arg(state));
  const paillier::batch_options options{static_cast<std::size_t>(state.range(1))};
  privet::seeded_generator gen(22);
  std::vector<Int> ms;
  std::vector<std::int64_t> ws;
  for (std::size_t i = 0; i < batch_size; ++i) {
    ms.push_back(privet::uniform_below(gen, pk.n()));
    ws.push_back(static_cast<std::int64_t>(gen() >> 1));
  }
  const auto cs = paillier::encrypt(pk.with_mode(paillier::encryption_mode::djn), ms, gen);
  const std::span<const paillier::ciphertext<Int>> view(cs);
  for (auto _ : state) {
    benchmark::DoNotOptimize(paillier::dot(view, std::span<const std::int64_t>(ws), options));
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(batch_size));
}

// r^n mod n^2 for a random r: the exponentiation inside public encryption.
void powm_boost_cpp_int(benchmark::State& state) {
  const auto& [pk, sk] = keys<mp::cpp_int>(bits_arg(state));
  privet::seeded_generator gen(16);
  const mp::cpp_int r = pk.random_r(gen);
  for (auto _ : state) {
    benchmark::DoNotOptimize(mp::cpp_int(mp::powm(r, pk.n(), pk.n_squared())));
  }
}

void powm_montgomery_cpp_int(benchmark::State& state) {
  const auto& [pk, sk] = keys<mp::cpp_int>(bits_arg(state));
  privet::seeded_generator gen(16);
  const mp::cpp_int r = pk.random_r(gen);
  const privet::detail::modular<mp::cpp_int> mod(pk.n_squared());
  for (auto _ : state) benchmark::DoNotOptimize(mod.pow_secret(r, pk.n(), pk.bits()));
}

#ifdef PRIVET_HAS_GMP
void powm_gmp(benchmark::State& state) {
  const auto& [pk, sk] = keys<mp::mpz_int>(bits_arg(state));
  privet::seeded_generator gen(16);
  const mp::mpz_int r = pk.random_r(gen);
  mp::mpz_int out;
  for (auto _ : state) {
    mpz_powm(out.backend().data(), r.backend().data(), pk.n().backend().data(),
             pk.n_squared().backend().data());
    benchmark::DoNotOptimize(out);
  }
}

void powm_sec_gmp(benchmark::State& state) {
  const auto& [pk, sk] = keys<mp::mpz_int>(bits_arg(state));
  privet::seeded_generator gen(16);
  const mp::mpz_int r = pk.random_r(gen);
  mp::mpz_int out;
  for (auto _ : state) {
    mpz_powm_sec(out.backend().data(), r.backend().data(), pk.n().backend().data(),
                 pk.n_squared().backend().data());
    benchmark::DoNotOptimize(out);
  }
}
#endif

using mp::cpp_int;

#define PRIVET_PAILLIER_BENCH(fn, Int) \
  BENCHMARK_TEMPLATE(fn, Int)->Arg(2048)->Arg(3072)->Unit(benchmark::kMillisecond)
// (bits, threads), wall time: threads are what is measured.
#define PRIVET_BATCH_BENCH(fn, Int)         \
  BENCHMARK_TEMPLATE(fn, Int)               \
      ->ArgsProduct({{2048, 3072}, {1, 2}}) \
      ->UseRealTime()                       \
      ->Unit(benchmark::kMillisecond)

PRIVET_PAILLIER_BENCH(keygen, cpp_int)->Iterations(10);
PRIVET_PAILLIER_BENCH(encrypt_public, cpp_int);
PRIVET_PAILLIER_BENCH(encrypt_djn, cpp_int);
PRIVET_PAILLIER_BENCH(encrypt_pooled, cpp_int)->Iterations(1000);
PRIVET_PAILLIER_BENCH(encrypt_owner_crt, cpp_int);
PRIVET_PAILLIER_BENCH(djn_setup, cpp_int)->Iterations(3);
PRIVET_PAILLIER_BENCH(decrypt_textbook, cpp_int);
PRIVET_PAILLIER_BENCH(decrypt_crt, cpp_int);
PRIVET_PAILLIER_BENCH(add, cpp_int);
PRIVET_PAILLIER_BENCH(scalar_multiply_64, cpp_int);
PRIVET_PAILLIER_BENCH(scalar_multiply_full, cpp_int);
PRIVET_PAILLIER_BENCH(negate, cpp_int);
PRIVET_BATCH_BENCH(pool_fill, cpp_int);
PRIVET_BATCH_BENCH(batch_encrypt_textbook, cpp_int);
PRIVET_BATCH_BENCH(batch_encrypt_djn, cpp_int);
PRIVET_BATCH_BENCH(batch_decrypt, cpp_int);
PRIVET_BATCH_BENCH(batch_dot, cpp_int);
BENCHMARK(powm_boost_cpp_int)->Arg(2048)->Arg(3072)->Unit(benchmark::kMillisecond);
BENCHMARK(powm_montgomery_cpp_int)->Arg(2048)->Arg(3072)->Unit(benchmark::kMillisecond);

#ifdef PRIVET_HAS_GMP
using mp::mpz_int;
PRIVET_PAILLIER_BENCH(keygen, mpz_int)->Iterations(10);
PRIVET_PAILLIER_BENCH(encrypt_public, mpz_int);
PRIVET_PAILLIER_BENCH(encrypt_djn, mpz_int);
PRIVET_PAILLIER_BENCH(encrypt_pooled, mpz_int)->Iterations(1000);
PRIVET_PAILLIER_BENCH(encrypt_owner_crt, mpz_int);
PRIVET_PAILLIER_BENCH(djn_setup, mpz_int)->Iterations(3);
PRIVET_PAILLIER_BENCH(decrypt_textbook, mpz_int);
PRIVET_PAILLIER_BENCH(decrypt_crt, mpz_int);
PRIVET_PAILLIER_BENCH(add, mpz_int);
PRIVET_PAILLIER_BENCH(scalar_multiply_64, mpz_int);
PRIVET_PAILLIER_BENCH(scalar_multiply_full, mpz_int);
PRIVET_PAILLIER_BENCH(negate, mpz_int);
PRIVET_BATCH_BENCH(pool_fill, mpz_int);
PRIVET_BATCH_BENCH(batch_encrypt_textbook, mpz_int);
PRIVET_BATCH_BENCH(batch_encrypt_djn, mpz_int);
PRIVET_BATCH_BENCH(batch_decrypt, mpz_int);
PRIVET_BATCH_BENCH(batch_dot, mpz_int);
BENCHMARK(powm_gmp)->Arg(2048)->Arg(3072)->Unit(benchmark::kMillisecond);
BENCHMARK(powm_sec_gmp)->Arg(2048)->Arg(3072)->Unit(benchmark::kMillisecond);
#endif

}  // namespace
