// Readers of what other parties send, on their worst-case inputs (issue 32,
// item 4): each benchmark times one read (or refusal) and reports the peak
// memory allocated during it, `peak_MB`, counted by this executable's own
// operator new and GMP allocation functions (live bytes by
// malloc_usable_size; the high-water mark above the level before the read).
// 2048-bit Paillier and DGK keys on the GMP backend unless the name says
// cpp_int. The inputs:
//  - paillier_list_bad_last: 1000 encrypted numbers at the top of the JSON
//    exponent band, the last one's ciphertext 0 (was: 1000 rescalings of up
//    to 2044 squarings before the refusal);
//  - paillier_list_band/N: N valid numbers at the top of the band (64
//    squarings each);
//  - paillier_list_entries/N: N valid numbers of 9 bytes each (["1",-8]):
//    memory per entry;
//  - paillier_list_embedded_key: a list whose "public_key" is a 16384-bit
//    odd composite (was: a primality test before the comparison);
//  - paillier_private_lambda_crafted/m: a {lambda, mu} key whose q = p mod 8
//    times the odd primes up to 127 (every base up to 129 gave +-1 to the
//    former fixed bases), lambda = m lcm(p - 1, q - 1) (m = 1: solved
//    directly; m = 5: by random bases);
//  - paillier_private_prime_square: {lambda, mu} under n = P^2;
//  - paillier_private_honest/bits: an honest JWK private key (p, q), 2048,
//    4096 and 16384 bits (the latter from bench/paillier_16384_primes.inc);
//  - dgk_key_16384_t8173: a DGK public key of 16384 bits with t = 8173;
//  - comparison_bits_1byte: a 10 MB encrypted-bits message of 1-byte
//    elements; comparison_bits_max: the largest valid one at 2048 bits
//    (65520 elements of 256 bytes);
//  - modulus_checks/bits: trial division and the perfect-power test of a
//    public key's n (what public_key(n) adds to its base-2 test);
//    modulus_checks_forced_roots/bits: every exact root taken, the cost of
//    an n crafted to pass every residue test.
#include <privet/core/testing.hpp>
#include <privet/core/uniform.hpp>
#include <privet/crypto/detail/modulus_checks.hpp>
#include <privet/crypto/detail/primes.hpp>
#include <privet/crypto/dgk.hpp>
#include <privet/crypto/paillier.hpp>
#include <privet/crypto/paillier_serialization.hpp>
#include <privet/crypto/secure_comparison.hpp>

#include <benchmark/benchmark.h>
#include <boost/multiprecision/cpp_int.hpp>
#ifdef PRIVET_HAS_GMP
#include <boost/multiprecision/gmp.hpp>
#endif
#include <malloc.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <new>
#include <string>
#include <vector>

#include "paillier_16384_primes.inc"

// ---- allocation accounting ------------------------------------------------------

namespace {

std::atomic<std::size_t> live_bytes{0};
std::atomic<std::size_t> peak_bytes{0};

void note_alloc(void* p) {
  if (p == nullptr) return;
  const std::size_t now = live_bytes.fetch_add(malloc_usable_size(p)) + malloc_usable_size(p);
  std::size_t peak = peak_bytes.load();
  while (now > peak && !peak_bytes.compare_exchange_weak(peak, now)) {
  }
}
void note_free(void* p) {
  if (p != nullptr) live_bytes.fetch_sub(malloc_usable_size(p));
}
void* counted_malloc(std::size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  note_alloc(p);
  return p;
}

#ifdef PRIVET_HAS_GMP
void* gmp_alloc(std::size_t n) {
  return counted_malloc(n);
}
void* gmp_realloc(void* p, std::size_t, std::size_t n) {
  note_free(p);
  void* q = std::realloc(p, n);
  if (q == nullptr) std::abort();
  note_alloc(q);
  return q;
}
void gmp_free(void* p, std::size_t) {
  note_free(p);
  std::free(p);
}
const bool gmp_hooked = [] {
  mp_set_memory_functions(gmp_alloc, gmp_realloc, gmp_free);
  return true;
}();
#endif

// Peak bytes above the level at construction, as a benchmark counter.
class peak_meter {
 public:
  peak_meter() : base_(live_bytes.load()) { peak_bytes.store(base_); }
  [[nodiscard]] double megabytes() const {
    return static_cast<double>(peak_bytes.load() - base_) / (1024.0 * 1024.0);
  }

 private:
  std::size_t base_;
};

}  // namespace

void* operator new(std::size_t n) {
  return counted_malloc(n);
}
void* operator new[](std::size_t n) {
  return counted_malloc(n);
}
void* operator new(std::size_t n, std::align_val_t a) {
  void* p = std::aligned_alloc(static_cast<std::size_t>(a), (n + static_cast<std::size_t>(a) - 1) &
                                                                ~(static_cast<std::size_t>(a) - 1));
  if (p == nullptr) throw std::bad_alloc();
  note_alloc(p);
  return p;
}
void* operator new[](std::size_t n, std::align_val_t a) {
  return operator new(n, a);
}
void operator delete(void* p) noexcept {
  note_free(p);
  std::free(p);
}
void operator delete[](void* p) noexcept {
  operator delete(p);
}
void operator delete(void* p, std::size_t) noexcept {
  operator delete(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  operator delete(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  operator delete(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  operator delete(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  operator delete(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  operator delete(p);
}

// ---- inputs ---------------------------------------------------------------------

namespace {

namespace mp = boost::multiprecision;
namespace paillier = privet::paillier;
namespace dgk = privet::dgk;
namespace cmp = privet::comparison;
#ifdef PRIVET_HAS_GMP
using Big = mp::mpz_int;
#else
using Big = mp::cpp_int;
#endif
using S = paillier::hex_scale<8>;

template <class Int>
const paillier::keypair<Int>& paillier_keys(std::size_t bits) {
  static std::map<std::size_t, paillier::keypair<Int>> cache;
  auto it = cache.find(bits);
  if (it == cache.end()) {
    privet::testing::seeded_release_generator gen(bits);
    it = cache.emplace(bits, paillier::generate_keypair<Int>(bits, gen)).first;
  }
  return it->second;
}

template <class Int>
std::string b64(const Int& x) {
  return privet::detail::base64url_encode(privet::detail::be_bytes(x));
}

// Runs `read` once per iteration; counts refusals and reports peak memory.
template <class F>
void measure(benchmark::State& state, F read) {
  double peak = 0;
  std::size_t refused = 0;
  std::string why;
  for (auto _ : state) {
    const peak_meter meter;
    try {
      read();
    } catch (const privet::serialization_error& e) {
      ++refused;
      why = e.what();
    }
    peak = std::max(peak, meter.megabytes());
  }
  // The refusal, cut to its first words after the reader's prefix.
  if (const auto colon = why.find(": ", why.find("malformed")); colon != std::string::npos) {
    why = why.substr(colon + 2);
  }
  state.SetLabel(why.substr(0, 60));
  state.counters["peak_MB"] = peak;
  state.counters["refused"] =
      static_cast<double>(refused) / static_cast<double>(state.iterations());
}

template <class Int>
std::string list_text(const paillier::public_key<Int>& pk, std::size_t n, const std::string& c,
                      std::int64_t e, bool bad_last) {
  std::string s = R"({"public_key":)" + paillier::to_json(pk) + R"(,"values":[)";
  for (std::size_t i = 0; i < n; ++i) {
    if (i != 0) s += ',';
    s += "[\"" + (bad_last && i + 1 == n ? std::string("0") : c) + "\"," + std::to_string(e) + "]";
  }
  return s + "]}";
}

template <class Int>
void paillier_list_bad_last(benchmark::State& state) {
  const auto& pk = paillier_keys<Int>(2048).public_key;
  const auto top = paillier::max_json_exponent_shift - static_cast<std::int64_t>(S::digits);
  const std::string text = list_text(pk, 1000, "2", top, true);
  const auto bound = paillier::fixed_point<Int, S>::from_mantissa(Int(1));
  measure(state, [&] {
    benchmark::DoNotOptimize(
        paillier::from_json<std::vector<paillier::encrypted_number<Int, S>>>(text, pk, bound));
  });
  state.counters["input_KB"] = static_cast<double>(text.size()) / 1024.0;
}

template <class Int>
void paillier_list_band(benchmark::State& state) {
  const auto& pk = paillier_keys<Int>(2048).public_key;
  const auto top = paillier::max_json_exponent_shift - static_cast<std::int64_t>(S::digits);
  const std::string text = list_text(pk, static_cast<std::size_t>(state.range(0)), "2", top, false);
  const auto bound = paillier::fixed_point<Int, S>::from_mantissa(Int(1));
  measure(state, [&] {
    benchmark::DoNotOptimize(
        paillier::from_json<std::vector<paillier::encrypted_number<Int, S>>>(text, pk, bound));
  });
  state.counters["input_KB"] = static_cast<double>(text.size()) / 1024.0;
}

template <class Int>
void paillier_list_entries(benchmark::State& state) {
  const auto& pk = paillier_keys<Int>(2048).public_key;
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::string text = list_text(pk, n, "1", -static_cast<std::int64_t>(S::digits), false);
  const auto bound = paillier::fixed_point<Int, S>::from_mantissa(Int(1));
  measure(state, [&] {
    benchmark::DoNotOptimize(
        paillier::from_json<std::vector<paillier::encrypted_number<Int, S>>>(text, pk, bound));
  });
  state.counters["input_MB"] = static_cast<double>(text.size()) / (1024.0 * 1024.0);
  state.counters["sizeof_number"] = sizeof(paillier::encrypted_number<Int, S>);
}

void paillier_list_embedded_key(benchmark::State& state) {
  const auto& pk = paillier_keys<Big>(2048).public_key;
  const Big big = (Big(1) << 16383) + 24693;
  const std::string text = R"({"public_key":{"n":")" + big.str() + R"("},"values":[]})";
  const auto bound = paillier::fixed_point<Big, S>::from_mantissa(Big(1));
  measure(state, [&] {
    benchmark::DoNotOptimize(
        paillier::from_json<std::vector<paillier::encrypted_number<Big, S>>>(text, pk, bound));
  });
}

Big next_prime_from(Big x, const Big& step, privet::testing::seeded_release_generator& gen) {
  while (!privet::detail::is_probable_prime(x, gen, 20)) x += step;
  return x;
}

std::string lambda_jwk(const Big& n, const Big& lambda) {
  const Big mu = paillier::detail::inverse_public(Big(lambda % n), n);
  return R"({"kty":"DAJ","key_ops":["decrypt"],"lambda":")" + b64(lambda) + R"(","mu":")" +
         b64(mu) + R"(","pub":{"kty":"DAJ","alg":"PAI-GN1","n":")" + b64(n) + "\"}}";
}

// q = p mod 8 times the odd primes up to 127, so that (a|p) = (a|q) for
// every a <= 129: the former fixed bases 2..129 all gave +-1 and the reader
// refused a valid key after 128 exponentiations. p = 7 mod 12 (so 3 divides
// both (p - 1) / 2 and (q - 1) / 2), p != 1 mod 5: lambda(n) itself is solved
// directly ("lambda(n)"), and 5 lambda(n) (below n, dividing no phi(n) / g)
// goes to the random bases ("5 lambda(n)").
void paillier_private_lambda_crafted(benchmark::State& state) {
  privet::testing::seeded_release_generator gen(32);
  Big m = 8;
  for (unsigned l = 3; l <= 127; l += 2) {
    if (privet::detail::is_word_prime(l)) m *= l;
  }
  Big p = privet::random_bits<Big>(gen, 1024);
  mp::bit_set(p, 1023);
  mp::bit_set(p, 1022);
  p += 7 - p % 12;
  while (p % 5 == 1 || !privet::detail::is_probable_prime(p, gen, 20)) p += 12;
  const Big k = privet::random_bits<Big>(gen, 800);
  const Big q = next_prime_from(Big(p + k * m), m, gen);
  const Big carmichael = mp::lcm(Big(p - 1), Big(q - 1));
  const std::string text = lambda_jwk(p * q, Big(carmichael * state.range(0)));
  measure(state, [&] {
    benchmark::DoNotOptimize(paillier::from_json<paillier::private_key<Big>>(text, gen));
  });
}

void paillier_private_prime_square(benchmark::State& state) {
  privet::testing::seeded_release_generator gen(33);
  const Big p = privet::detail::random_prime<Big>(1024, gen);
  const std::string text = lambda_jwk(p * p, Big(p - 1));
  measure(state, [&] {
    benchmark::DoNotOptimize(paillier::from_json<paillier::private_key<Big>>(text, gen));
  });
}

void paillier_private_honest(benchmark::State& state) {
  privet::testing::seeded_release_generator gen(34);
  const auto bits = static_cast<std::size_t>(state.range(0));
  const std::string text = [&] {
    if (bits == 16384) {  // the JWK as to_jwk writes it, without from_primes' 64 rounds
      const Big p(bench_prime_p);
      const Big q(bench_prime_q);
      return R"({"key_ops":["decrypt"],"kty":"DAJ","p":")" + b64(p) + R"(","pub":{"alg":)" +
             R"("PAI-GN1","key_ops":["encrypt"],"kty":"DAJ","n":")" + b64(Big(p * q)) +
             R"("},"q":")" + b64(q) + "\"}";
    }
    return paillier::to_jwk(paillier_keys<Big>(bits).private_key);
  }();
  measure(state, [&] {
    benchmark::DoNotOptimize(paillier::from_json<paillier::private_key<Big>>(text, gen));
  });
}

void dgk_key_16384_t8173(benchmark::State& state) {
  privet::detail::wire_writer w;
  w.u8(1);
  w.u8(1);
  w.u32(16384);
  w.u32(8173);
  w.u32(3);
  dgk::detail::write_fixed(w, Big((Big(1) << 16383) + 24693), 2048);
  dgk::detail::write_fixed(w, Big(2), 2048);
  dgk::detail::write_fixed(w, Big(7), 2048);
  const auto bytes = w.take();
  measure(state, [&] { benchmark::DoNotOptimize(dgk::deserialize_public_key<Big>(bytes)); });
}

std::vector<std::uint8_t> bits_message(std::uint32_t width, std::uint32_t count) {
  privet::detail::wire_writer w;
  w.u8(1);
  w.u8(2);
  w.u64(1);
  w.u32(width);
  w.u32(count);
  auto b = w.take();
  b.resize(b.size() + static_cast<std::size_t>(width) * count, 0x5a);
  return b;
}

void comparison_bits_1byte(benchmark::State& state) {
  const auto bytes = bits_message(1, 10'000'000 - 20);
  measure(state,
          [&] { benchmark::DoNotOptimize(cmp::deserialize<cmp::encrypted_bits<Big>>(bytes)); });
  state.counters["input_MB"] = static_cast<double>(bytes.size()) / (1024.0 * 1024.0);
}

void comparison_bits_max(benchmark::State& state) {
  const auto bytes = bits_message(256, cmp::max_message_elements);
  measure(state,
          [&] { benchmark::DoNotOptimize(cmp::deserialize<cmp::encrypted_bits<Big>>(bytes)); });
  state.counters["input_MB"] = static_cast<double>(bytes.size()) / (1024.0 * 1024.0);
}

template <class Int>
void modulus_checks(benchmark::State& state) {
  const auto bits = static_cast<std::size_t>(state.range(0));
  privet::testing::seeded_release_generator gen(35);
  Int n;
  do {
    n = privet::random_bits<Int>(gen, bits);
    mp::bit_set(n, static_cast<unsigned>(bits - 1));
    mp::bit_set(n, 0);
  } while (privet::detail::small_factor_of(n) != 0);
  for (auto _ : state) privet::detail::check_modulus_form(n);
}

// The perfect-power test's worst case: an n crafted to pass every residue
// test forces the exact root for every prime k < bits / 15; here every root
// is taken, as for such an n.
template <class Int>
void modulus_checks_forced_roots(benchmark::State& state) {
  const auto bits = static_cast<std::size_t>(state.range(0));
  privet::testing::seeded_release_generator gen(36);
  Int n = privet::random_bits<Int>(gen, bits);
  mp::bit_set(n, static_cast<unsigned>(bits - 1));
  mp::bit_set(n, 0);
  for (auto _ : state) {
    for (unsigned k = 2; k <= bits / 15; ++k) {
      if (!privet::detail::is_word_prime(k)) continue;
      benchmark::DoNotOptimize(mp::pow(privet::detail::integer_root(n, k), k) == n);
    }
  }
}

}  // namespace

BENCHMARK(modulus_checks_forced_roots<Big>)->Arg(2048)->Arg(16384)->Unit(benchmark::kMillisecond);
BENCHMARK(modulus_checks_forced_roots<mp::cpp_int>)
    ->Arg(2048)
    ->Arg(16384)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(paillier_list_bad_last<Big>)->Unit(benchmark::kMillisecond);
BENCHMARK(paillier_list_bad_last<mp::cpp_int>)->Unit(benchmark::kMillisecond);
BENCHMARK(paillier_list_band<Big>)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(paillier_list_band<mp::cpp_int>)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(paillier_list_entries<Big>)
    ->Arg(10000)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK(paillier_list_entries<mp::cpp_int>)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK(paillier_list_embedded_key)->Unit(benchmark::kMillisecond);
BENCHMARK(paillier_private_lambda_crafted)->Arg(1)->Arg(5)->Unit(benchmark::kMillisecond);
BENCHMARK(paillier_private_prime_square)->Unit(benchmark::kMillisecond);
BENCHMARK(paillier_private_honest)
    ->Arg(2048)
    ->Arg(4096)
    ->Arg(16384)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK(dgk_key_16384_t8173)->Unit(benchmark::kMillisecond);
BENCHMARK(comparison_bits_1byte)->Unit(benchmark::kMillisecond);
BENCHMARK(comparison_bits_max)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(modulus_checks<Big>)->Arg(2048)->Arg(4096)->Arg(16384)->Unit(benchmark::kMicrosecond);
BENCHMARK(modulus_checks<mp::cpp_int>)
    ->Arg(2048)
    ->Arg(4096)
    ->Arg(16384)
    ->Unit(benchmark::kMicrosecond);
