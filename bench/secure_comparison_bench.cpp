// Secure comparison: the DGK cryptosystem and the DGK comparison protocol at
// the recommended sizes — n of 2048 bits with t = 224-bit subgroup primes,
// and 3072 bits with t = 256 (twice the security level each), u = 67 (the
// smallest prime above 64 + 2) — on the cpp_int backend and, when built with
// PRIVET_HAS_GMP, the GMP backend.
//
// Reported: key generation; one encryption, zero test and full decryption;
// one whole comparison of two l-bit integers (l = 32 and 64: the server
// encrypts its bits, the client computes the l + 1 blinded tests, the server
// zero-tests them and sends its share, the client reads the result) with
// the messages through their binary encoding, and its three steps apart;
// and one comparison of additive shares modulo a 2048-bit N (the spam
// filter's case: one more message, the masked share). The counter `bytes`
// is the traffic of one comparison, both directions. The reference row is
// one GMP modular exponentiation with a full-length exponent modulo n.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform.hpp>
#include <privet/crypto/dgk.hpp>
#include <privet/crypto/secure_comparison.hpp>

#include <benchmark/benchmark.h>
#include <boost/multiprecision/cpp_int.hpp>
#ifdef PRIVET_HAS_GMP
#include <boost/multiprecision/gmp.hpp>
#endif

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace {

namespace mp = boost::multiprecision;
namespace dgk = privet::dgk;
namespace cmp = privet::comparison;

constexpr std::size_t max_l = 64;

dgk::key_parameters sizes(std::size_t bits) {
  return dgk::key_parameters::for_comparison(max_l, bits);
}

// One key pair per (backend, size), made once.
template <class Int>
const dgk::keypair<Int>& keys(std::size_t bits) {
  static std::map<std::size_t, dgk::keypair<Int>> cache;
  auto it = cache.find(bits);
  if (it == cache.end()) {
    privet::testing::seeded_release_generator gen(bits);
    it = cache.emplace(bits, dgk::generate_keypair<Int>(sizes(bits), gen)).first;
  }
  return it->second;
}

std::size_t bits_arg(const benchmark::State& state) {
  return static_cast<std::size_t>(state.range(0));
}
std::size_t l_arg(const benchmark::State& state) {
  return static_cast<std::size_t>(state.range(1));
}

std::uint64_t input_below(privet::testing::seeded_release_generator& gen, std::size_t l) {
  const std::uint64_t w = privet::random_u64(gen);
  return l == 64 ? w : w & ((std::uint64_t{1} << l) - 1);
}

template <class Int>
void keygen(benchmark::State& state) {
  privet::testing::seeded_release_generator gen(7);
  for (auto _ : state)
    benchmark::DoNotOptimize(dgk::generate_keypair<Int>(sizes(bits_arg(state)), gen));
}

template <class Int>
void encrypt(benchmark::State& state) {
  const auto& k = keys<Int>(bits_arg(state));
  privet::testing::seeded_release_generator gen(8);
  (void)k.public_key.encrypt(1, gen);  // builds the fixed-base tables
  std::uint64_t m = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(k.public_key.encrypt(m, gen));
    m = (m + 1) % 67;
  }
}

template <class Int>
void zero_test(benchmark::State& state) {
  const auto& k = keys<Int>(bits_arg(state));
  privet::testing::seeded_release_generator gen(9);
  const auto c = k.public_key.encrypt(5, gen);
  for (auto _ : state) benchmark::DoNotOptimize(k.private_key.is_zero(c));
}

template <class Int>
void decrypt(benchmark::State& state) {
  const auto& k = keys<Int>(bits_arg(state));
  privet::testing::seeded_release_generator gen(10);
  const auto c = k.public_key.encrypt(41, gen);
  (void)k.private_key.decrypt(c);  // builds the table
  for (auto _ : state) benchmark::DoNotOptimize(k.private_key.decrypt(c));
}

template <class Int>
void comparison(benchmark::State& state) {
  const auto& k = keys<Int>(bits_arg(state));
  const std::size_t l = l_arg(state);
  privet::testing::seeded_release_generator gen(11), cg(12), sg(13);
  (void)k.public_key.encrypt(1, gen);
  const cmp::parameters params{l, cmp::output_party::client, 0};
  std::size_t traffic = 0;
  for (auto _ : state) {
    const std::uint64_t x = input_below(gen, l), y = input_below(gen, l);
    cmp::server<Int> server(k.private_key, params);
    cmp::client<Int> client(k.public_key, params);
    const auto m1 = cmp::serialize(server.encrypt_input(y, sg));
    const auto m2 =
        cmp::serialize(client.evaluate(cmp::deserialize<cmp::encrypted_bits<Int>>(m1), x, cg));
    const auto m3 = cmp::serialize(server.respond(cmp::deserialize<cmp::blinded_tests<Int>>(m2)));
    const bool out = client.result(cmp::deserialize<cmp::output_share>(m3));
    if (out != (x > y)) state.SkipWithError("wrong comparison result");
    traffic = m1.size() + m2.size() + m3.size();
  }
  state.counters["bytes"] = static_cast<double>(traffic);
}

// The three steps apart (the set-up of each outside the timing).
template <class Int>
void server_bits(benchmark::State& state) {
  const auto& k = keys<Int>(bits_arg(state));
  const std::size_t l = l_arg(state);
  privet::testing::seeded_release_generator gen(14), sg(15);
  (void)k.public_key.encrypt(1, gen);
  const cmp::parameters params{l, cmp::output_party::client, 0};
  for (auto _ : state) {
    cmp::server<Int> server(k.private_key, params);
    benchmark::DoNotOptimize(server.encrypt_input(input_below(gen, l), sg));
  }
}

template <class Int>
void client_tests(benchmark::State& state) {
  const auto& k = keys<Int>(bits_arg(state));
  const std::size_t l = l_arg(state);
  privet::testing::seeded_release_generator gen(16), cg(17), sg(18);
  (void)k.public_key.encrypt(1, gen);
  const cmp::parameters params{l, cmp::output_party::client, 0};
  cmp::server<Int> server(k.private_key, params);
  const auto bits_msg = server.encrypt_input(input_below(gen, l), sg);
  for (auto _ : state) {
    cmp::client<Int> client(k.public_key, params);
    benchmark::DoNotOptimize(client.evaluate(bits_msg, input_below(gen, l), cg));
  }
}

template <class Int>
void server_finish(benchmark::State& state) {
  const auto& k = keys<Int>(bits_arg(state));
  const std::size_t l = l_arg(state);
  privet::testing::seeded_release_generator gen(19), cg(20), sg(21);
  (void)k.public_key.encrypt(1, gen);
  const cmp::parameters params{l, cmp::output_party::client, 0};
  cmp::server<Int> first(k.private_key, params);
  cmp::client<Int> client(k.public_key, params);
  const auto tests =
      client.evaluate(first.encrypt_input(input_below(gen, l), sg), input_below(gen, l), cg);
  for (auto _ : state) {
    state.PauseTiming();
    cmp::server<Int> server(k.private_key, params);
    (void)server.encrypt_input(0, sg);  // to reach the last step
    state.ResumeTiming();
    benchmark::DoNotOptimize(server.respond(tests));
  }
}

template <class Int>
void share_comparison(benchmark::State& state) {
  const auto& k = keys<Int>(bits_arg(state));
  const std::size_t l = l_arg(state);
  privet::testing::seeded_release_generator gen(22), cg(23), sg(24);
  (void)k.public_key.encrypt(1, gen);
  const Int n = (Int(1) << 2047) + 1;
  const cmp::share_parameters<Int> params{n, l, 80, cmp::output_party::client, 0};
  const Int bound = Int(1) << static_cast<unsigned>(l);
  std::size_t traffic = 0;
  for (auto _ : state) {
    const Int v = privet::uniform_below(gen, Int(2 * bound - 1)) - (bound - 1);
    const Int r = privet::uniform_below(gen, n);
    Int s = (r - v) % n;
    if (s < 0) s += n;
    cmp::share_server<Int> server(k.private_key, params);
    cmp::share_client<Int> client(k.public_key, params);
    const auto m0 = cmp::serialize(client.mask(r, cg));
    const auto m1 =
        cmp::serialize(server.receive(cmp::deserialize<cmp::masked_share<Int>>(m0), s, sg));
    const auto m2 =
        cmp::serialize(client.evaluate(cmp::deserialize<cmp::encrypted_bits<Int>>(m1), cg));
    const auto m3 = cmp::serialize(server.respond(cmp::deserialize<cmp::blinded_tests<Int>>(m2)));
    const bool out = client.result(cmp::deserialize<cmp::output_share>(m3));
    if (out != (v > 0)) state.SkipWithError("wrong comparison result");
    traffic = m0.size() + m1.size() + m2.size() + m3.size();
  }
  state.counters["bytes"] = static_cast<double>(traffic);
}

#ifdef PRIVET_HAS_GMP
// One mpz_powm with an exponent of n's length modulo n.
void gmp_powm(benchmark::State& state) {
  privet::testing::seeded_release_generator gen(25);
  const auto& k = keys<mp::mpz_int>(bits_arg(state));
  const mp::mpz_int base = privet::uniform_below(gen, k.public_key.n());
  const mp::mpz_int exp = privet::uniform_below(gen, k.public_key.n());
  mp::mpz_int r;
  for (auto _ : state) {
    mpz_powm(r.backend().data(), base.backend().data(), exp.backend().data(),
             k.public_key.n().backend().data());
    benchmark::DoNotOptimize(r);
  }
}
#endif

template <class Int>
void register_all(const char* backend) {
  const std::string b = backend;
  for (long bits : {2048L, 3072L}) {
    benchmark::RegisterBenchmark(("dgk/keygen/" + b).c_str(), keygen<Int>)
        ->Arg(bits)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("dgk/encrypt/" + b).c_str(), encrypt<Int>)
        ->Arg(bits)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("dgk/zero_test/" + b).c_str(), zero_test<Int>)
        ->Arg(bits)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("dgk/decrypt/" + b).c_str(), decrypt<Int>)
        ->Arg(bits)
        ->Unit(benchmark::kMicrosecond);
    for (long l : {32L, 64L}) {
      benchmark::RegisterBenchmark(("comparison/" + b).c_str(), comparison<Int>)
          ->Args({bits, l})
          ->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark(("comparison/server_bits/" + b).c_str(), server_bits<Int>)
          ->Args({bits, l})
          ->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark(("comparison/client_tests/" + b).c_str(), client_tests<Int>)
          ->Args({bits, l})
          ->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark(("comparison/server_finish/" + b).c_str(), server_finish<Int>)
          ->Args({bits, l})
          ->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark(("comparison/shares/" + b).c_str(), share_comparison<Int>)
          ->Args({bits, l})
          ->Unit(benchmark::kMillisecond);
    }
  }
}

const bool registered = [] {
  register_all<mp::cpp_int>("cpp_int");
#ifdef PRIVET_HAS_GMP
  register_all<mp::mpz_int>("gmp");
  for (long bits : {2048L, 3072L}) {
    benchmark::RegisterBenchmark("reference/gmp_powm", gmp_powm)
        ->Arg(bits)
        ->Unit(benchmark::kMicrosecond);
  }
#endif
  return true;
}();

}  // namespace
