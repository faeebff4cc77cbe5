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
//
// python-paillier side by side (GMP only). phe itself cannot run where this
// is built (it is not packaged for Debian), so its algorithms are written
// here on the same mpz calls gmpy2 makes ("phe-equivalent"): decryption as
// phe/paillier.py's PaillierPrivateKey.raw_decrypt (powmod(c, p - 1, p^2)
// and powmod(c, q - 1, q^2) by GMP's variable-time mpz_powm, L, h_p, h_q,
// crt), encryption as PaillierPublicKey.raw_encrypt with its obfuscation
// ((n m + 1) r^n mod n^2, r^n by mpz_powm), addition as EncryptedNumber's
// _raw_add (a product modulo n^2). Python's interpreter overhead is left
// out, which favours phe. `decrypt_side_by_side` runs phe-equivalent and
// privet decryptions alternately in one loop on the same ciphertexts and
// reports both times and their ratio; `powm_half` compares the three
// exponentiations modulo p^2 with exponent p - 1 (mpz_powm, mpz_powm_sec and
// privet's pow_secret: OpenSSL's BN_mod_exp_mont_consttime under
// PRIVET_HAS_OPENSSL).
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
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
#include <cstdlib>
#include <ctime>
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
    privet::testing::seeded_release_generator gen(bits);
    it = cache.emplace(bits, paillier::generate_keypair<Int>(bits, gen)).first;
  }
  return it->second;
}

std::size_t bits_arg(const benchmark::State& state) {
  return static_cast<std::size_t>(state.range(0));
}

template <class Int>
void keygen(benchmark::State& state) {
  privet::testing::seeded_release_generator gen(7);
  for (auto _ : state) {
    benchmark::DoNotOptimize(paillier::generate_keypair<Int>(bits_arg(state), gen));
  }
}

template <class Int>
void encrypt_public(benchmark::State& state) {
  const auto& [pk, sk] = keys<Int>(bits_arg(state));
  privet::testing::seeded_release_generator gen(8);
  const Int m = privet::uniform_below(gen, pk.n());
  for (auto _ : state) benchmark::DoNotOptimize(pk.encrypt(m, gen));
}

template <class Int>
void encrypt_owner_crt(benchmark::State& state) {
  const auto& [pk, sk] = keys<Int>(bits_arg(state));
  privet::testing::seeded_release_generator gen(9);
  const Int m = privet::uniform_below(gen, pk.n());
  for (auto _ : state) benchmark::DoNotOptimize(sk.encrypt(m, gen));
}

template <class Int>
void encrypt_djn(benchmark::State& state) {
  const auto& [pk, sk] = keys<Int>(bits_arg(state));
  const auto djn = pk.with_mode(paillier::encryption_mode::djn);  // table built here
  privet::testing::seeded_release_generator gen(17);
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
  privet::testing::seeded_release_generator gen(18);
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
  privet::testing::seeded_release_generator gen(19);
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
  privet::testing::seeded_release_generator gen(10);
  const auto c = pk.encrypt(privet::uniform_below(gen, pk.n()), gen);
  for (auto _ : state) benchmark::DoNotOptimize(sk.decrypt_textbook(c));
}

template <class Int>
void decrypt_crt(benchmark::State& state) {
  const auto& [pk, sk] = keys<Int>(bits_arg(state));
  privet::testing::seeded_release_generator gen(11);
  const auto c = pk.encrypt(privet::uniform_below(gen, pk.n()), gen);
  for (auto _ : state) benchmark::DoNotOptimize(sk.decrypt(c));
}

template <class Int>
void add(benchmark::State& state) {
  const auto& [pk, sk] = keys<Int>(bits_arg(state));
  privet::testing::seeded_release_generator gen(12);
  const auto a = pk.encrypt(privet::uniform_below(gen, pk.n()), gen);
  const auto b = pk.encrypt(privet::uniform_below(gen, pk.n()), gen);
  for (auto _ : state) benchmark::DoNotOptimize(a + b);
}

template <class Int>
void scalar_multiply_64(benchmark::State& state) {
  const auto& [pk, sk] = keys<Int>(bits_arg(state));
  privet::testing::seeded_release_generator gen(13);
  const auto a = pk.encrypt(privet::uniform_below(gen, pk.n()), gen);
  const std::uint64_t k = gen() | (std::uint64_t{1} << 63);
  for (auto _ : state) benchmark::DoNotOptimize(a * k);
}

template <class Int>
void scalar_multiply_full(benchmark::State& state) {
  const auto& [pk, sk] = keys<Int>(bits_arg(state));
  privet::testing::seeded_release_generator gen(14);
  const auto a = pk.encrypt(privet::uniform_below(gen, pk.n()), gen);
  const Int k = privet::uniform_below(gen, pk.n());
  for (auto _ : state) benchmark::DoNotOptimize(a * k);
}

template <class Int>
void negate(benchmark::State& state) {
  const auto& [pk, sk] = keys<Int>(bits_arg(state));
  privet::testing::seeded_release_generator gen(15);
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
  privet::testing::seeded_release_generator gen(20);
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
  privet::testing::seeded_release_generator gen(21);
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
  privet::testing::seeded_release_generator gen(22);
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
  privet::testing::seeded_release_generator gen(16);
  const mp::cpp_int r = pk.random_r(gen);
  for (auto _ : state) {
    benchmark::DoNotOptimize(mp::cpp_int(mp::powm(r, pk.n(), pk.n_squared())));
  }
}

void powm_montgomery_cpp_int(benchmark::State& state) {
  const auto& [pk, sk] = keys<mp::cpp_int>(bits_arg(state));
  privet::testing::seeded_release_generator gen(16);
  const mp::cpp_int r = pk.random_r(gen);
  const privet::detail::modular<mp::cpp_int> mod(pk.n_squared());
  for (auto _ : state) benchmark::DoNotOptimize(mod.pow_secret(r, pk.n(), pk.bits()));
}

#ifdef PRIVET_HAS_GMP
void powm_gmp(benchmark::State& state) {
  const auto& [pk, sk] = keys<mp::mpz_int>(bits_arg(state));
  privet::testing::seeded_release_generator gen(16);
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
  privet::testing::seeded_release_generator gen(16);
  const mp::mpz_int r = pk.random_r(gen);
  mp::mpz_int out;
  for (auto _ : state) {
    mpz_powm_sec(out.backend().data(), r.backend().data(), pk.n().backend().data(),
                 pk.n_squared().backend().data());
    benchmark::DoNotOptimize(out);
  }
}

// python-paillier's private key and decryption on gmpy2's calls (see the
// file comment); p_inverse, hp, hq as PaillierPrivateKey.__init__ makes them.
class phe_equivalent_key {
 public:
  phe_equivalent_key(const mp::mpz_int& p, const mp::mpz_int& q)
      : p_(p), q_(q), psquare_(p * p), qsquare_(q * q) {
    mpz_invert(p_inverse_.backend().data(), p_.backend().data(), q_.backend().data());
    const mp::mpz_int g = p * q + 1;
    hp_ = h_function(g, p_, psquare_);
    hq_ = h_function(g, q_, qsquare_);
  }
  // raw_decrypt: mulmod(l_function(powmod(c, p-1, psquare), p), hp, p), the
  // same for q, then crt.
  [[nodiscard]] mp::mpz_int decrypt(const mp::mpz_int& c) const {
    const mp::mpz_int m_p = half(c, p_, psquare_, hp_);
    const mp::mpz_int mq = half(c, q_, qsquare_, hq_);
    // crt: u = mulmod(mq - mp, p_inverse, q); mp + u p
    mp::mpz_int u = mp::mpz_int(mq - m_p) * p_inverse_;
    mpz_mod(u.backend().data(), u.backend().data(), q_.backend().data());
    return m_p + u * p_;
  }

 private:
  static mp::mpz_int powmod(const mp::mpz_int& b, const mp::mpz_int& e, const mp::mpz_int& m) {
    mp::mpz_int r;
    mpz_powm(r.backend().data(), b.backend().data(), e.backend().data(), m.backend().data());
    return r;
  }
  static mp::mpz_int h_function(const mp::mpz_int& g, const mp::mpz_int& x,
                                const mp::mpz_int& xsquare) {
    const mp::mpz_int l = (powmod(g, x - 1, xsquare) - 1) / x;
    mp::mpz_int r;
    mpz_invert(r.backend().data(), l.backend().data(), x.backend().data());
    return r;
  }
  static mp::mpz_int half(const mp::mpz_int& c, const mp::mpz_int& x, const mp::mpz_int& xsquare,
                          const mp::mpz_int& h) {
    mp::mpz_int l = ((powmod(c, x - 1, xsquare) - 1) / x) * h;
    mpz_mod(l.backend().data(), l.backend().data(), x.backend().data());
    return l;
  }

  mp::mpz_int p_, q_, psquare_, qsquare_, p_inverse_, hp_, hq_;
};

// This thread's CPU time in microseconds: the one-core cost, without the
// time other processes hold the core (the machine is shared).
double thread_cpu_us() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) * 1e-3;
}

// phe-equivalent and privet CRT decryption alternately (the order swapped
// every iteration) on 16 ciphertexts; counters: microseconds of thread CPU
// time per decryption for each and phe_us / privet_us.
void decrypt_side_by_side(benchmark::State& state) {
  const auto& pair = keys<mp::mpz_int>(bits_arg(state));
  const auto& pk = pair.public_key;
  const auto& sk = pair.private_key;  // named, not a structured binding: the lambdas use it
  const phe_equivalent_key phe(sk.p(), sk.q());
  privet::testing::seeded_release_generator gen(23);
  std::vector<paillier::ciphertext<mp::mpz_int>> cs;
  for (int i = 0; i < 16; ++i) cs.push_back(pk.encrypt(privet::uniform_below(gen, pk.n()), gen));
  double phe_us = 0;
  double privet_us = 0;
  std::size_t i = 0;
  for (auto _ : state) {
    const auto& c = cs[i % cs.size()];
    mp::mpz_int a, b;
    const auto run_phe = [&] {
      const double t0 = thread_cpu_us();
      a = phe.decrypt(c.value());
      phe_us += thread_cpu_us() - t0;
    };
    const auto run_privet = [&] {
      const double t0 = thread_cpu_us();
      b = sk.decrypt(c);
      privet_us += thread_cpu_us() - t0;
    };
    if (i % 2 == 0) {
      run_phe();
      run_privet();
    } else {
      run_privet();
      run_phe();
    }
    if (a != b) {
      state.SkipWithError("phe-equivalent and privet decryptions differ");
      break;
    }
    ++i;
  }
  const auto n = static_cast<double>(std::max<std::size_t>(i, 1));
  state.counters["phe_us"] = phe_us / n;
  state.counters["privet_us"] = privet_us / n;
  state.counters["phe/privet"] = privet_us > 0 ? phe_us / privet_us : 0;
}

// phe-equivalent encryption: raw_encrypt's (n m + 1) mod n^2 times the
// obfuscator r^n mod n^2 (r = random below n, powmod = mpz_powm).
void phe_equivalent_encrypt(benchmark::State& state) {
  const auto& [pk, sk] = keys<mp::mpz_int>(bits_arg(state));
  privet::testing::seeded_release_generator gen(24);
  const mp::mpz_int m = privet::uniform_below(gen, pk.n());
  mp::mpz_int rn, c;
  for (auto _ : state) {
    const mp::mpz_int r = privet::uniform_below(gen, pk.n());
    mpz_powm(rn.backend().data(), r.backend().data(), pk.n().backend().data(),
             pk.n_squared().backend().data());
    c = (pk.n() * m + 1) * rn;
    mpz_mod(c.backend().data(), c.backend().data(), pk.n_squared().backend().data());
    benchmark::DoNotOptimize(c);
  }
}

// phe-equivalent addition: _raw_add's mulmod(e_a, e_b, nsquare).
void phe_equivalent_add(benchmark::State& state) {
  const auto& [pk, sk] = keys<mp::mpz_int>(bits_arg(state));
  privet::testing::seeded_release_generator gen(25);
  const auto a = pk.encrypt(privet::uniform_below(gen, pk.n()), gen);
  const auto b = pk.encrypt(privet::uniform_below(gen, pk.n()), gen);
  mp::mpz_int c;
  for (auto _ : state) {
    c = a.value() * b.value();
    mpz_mod(c.backend().data(), c.backend().data(), pk.n_squared().backend().data());
    benchmark::DoNotOptimize(c);
  }
}

// c^(p-1) mod p^2, the half of CRT decryption: range(1) = 0 mpz_powm
// (variable time, phe's), 1 mpz_powm_sec, 2 privet's pow_secret (OpenSSL's
// BN_mod_exp_mont_consttime under PRIVET_HAS_OPENSSL, else mpz_powm_sec).
void powm_half(benchmark::State& state) {
  const auto& [pk, sk] = keys<mp::mpz_int>(bits_arg(state));
  privet::testing::seeded_release_generator gen(26);
  const mp::mpz_int p2 = sk.p() * sk.p();
  const mp::mpz_int e = sk.p() - 1;
  const std::size_t k = privet::detail::bits_of(sk.p());
  const privet::detail::modular<mp::mpz_int> mod(p2);
  const mp::mpz_int base = privet::uniform_below(gen, p2);
  mp::mpz_int out;
  for (auto _ : state) {
    switch (state.range(1)) {
      case 0:
        mpz_powm(out.backend().data(), base.backend().data(), e.backend().data(),
                 p2.backend().data());
        break;
      case 1:
        mpz_powm_sec(out.backend().data(), base.backend().data(), e.backend().data(),
                     p2.backend().data());
        break;
      default:
        out = mod.pow_secret(base, e, k);
    }
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
BENCHMARK(decrypt_side_by_side)->Arg(2048)->Arg(3072)->Unit(benchmark::kMillisecond);
BENCHMARK(phe_equivalent_encrypt)->Arg(2048)->Arg(3072)->Unit(benchmark::kMillisecond);
BENCHMARK(phe_equivalent_add)->Arg(2048)->Arg(3072)->Unit(benchmark::kMicrosecond);
BENCHMARK(powm_half)->ArgsProduct({{2048, 3072}, {0, 1, 2}})->Unit(benchmark::kMicrosecond);
#endif

}  // namespace
