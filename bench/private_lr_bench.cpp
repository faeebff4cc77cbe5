// The private spam filter's protocol (algorithms/private_logistic_regression.hpp):
// one online training block of K emails at d features, the three round trips
// of Alice and Bob plus Bob's update, against the same block trained in the
// clear by reference_model; and one private evaluation (Carol). Synthetic
// emails with `active` distinct features each, labels from a fixed rule.
//
// Arguments: key bits, d, K, active features per email, threads. Keys of
// 2048 bits are the library's minimum (Paillier in the DJN mode, DGK with
// 224-bit subgroup primes); 256 bits are insecure and only for comparing with
// the paper's timings and for the test suite's smoke run. The counter
// `emails/s` is the block's emails over its wall time; `ratio` is private over
// plaintext time per block.
#include <privet/algorithms/private_logistic_regression.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform.hpp>

#include <benchmark/benchmark.h>
#include <boost/multiprecision/cpp_int.hpp>
#ifdef PRIVET_HAS_GMP
#include <boost/multiprecision/gmp.hpp>
#endif

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

namespace {

namespace lr = privet::private_lr;
namespace paillier = privet::paillier;
namespace dgk = privet::dgk;

#ifdef PRIVET_HAS_GMP
using Int = boost::multiprecision::mpz_int;
#else
using Int = boost::multiprecision::cpp_int;
#endif

lr::parameters params(std::uint32_t d, std::size_t k, std::size_t threads) {
  lr::parameters p;
  p.dimension = d;
  p.block_size = k;
  p.learning_rate = 0.5;
  p.l2 = 1e-4;
  p.max_weight = 8;
  p.max_active = d;
  p.max_update_emails = 4096;
  p.threads = paillier::batch_options{threads};
  p.mode = paillier::encryption_mode::djn;
  return p;
}

struct party_keys {
  paillier::keypair<Int> paillier_keys;
  dgk::keypair<Int> comparison_keys;
};

const party_keys& keys(std::size_t bits, std::size_t l) {
  static std::map<std::pair<std::size_t, std::size_t>, party_keys> cache;
  const auto key = std::make_pair(bits, l);
  auto it = cache.find(key);
  if (it == cache.end()) {
    privet::testing::seeded_release_generator gen(bits + l);
    auto pk = paillier::generate_keypair<Int>(paillier::insecure_key_size{bits}, gen);
    auto dk =
        bits >= dgk::min_key_bits
            ? dgk::generate_keypair<Int>(dgk::key_parameters::for_comparison(l, bits), gen)
            : dgk::generate_keypair<Int>(dgk::key_parameters{bits, 40, dgk::plaintext_prime_for(l)},
                                         dgk::allow_insecure, gen);
    it = cache.emplace(key, party_keys{std::move(pk), std::move(dk)}).first;
  }
  return it->second;
}

privet::ml::sparse_binary_batch emails(std::uint32_t d, std::size_t count, std::size_t active,
                                       std::uint64_t seed) {
  privet::testing::seeded_release_generator gen(seed);
  privet::ml::sparse_binary_batch b;
  b.dimension = d;
  for (std::size_t i = 0; i < count; ++i) {
    std::vector<std::uint8_t> seen(d, 0);
    std::vector<std::uint32_t> x;
    while (x.size() < active) {
      const auto j = static_cast<std::uint32_t>(privet::uniform_below(gen, std::uint64_t{d}));
      if (seen[j] == 0) {
        seen[j] = 1;
        x.push_back(j);
      }
    }
    std::size_t votes = 0;
    for (auto j : x) votes += j % 2;
    b.features.push_back(std::move(x));
    b.y.push_back(2 * votes > active ? 1 : -1);
  }
  return b;
}

void block(benchmark::State& state) {
  const auto bits = static_cast<std::size_t>(state.range(0));
  const auto d = static_cast<std::uint32_t>(state.range(1));
  const auto k = static_cast<std::size_t>(state.range(2));
  const auto active = static_cast<std::size_t>(state.range(3));
  const auto threads = static_cast<std::size_t>(state.range(4));
  const auto p = params(d, k, threads);
  const auto& ks = keys(bits, lr::comparison_bits<Int>(p));
  lr::bob<Int> bob(ks.paillier_keys.private_key, ks.comparison_keys.private_key, p);
  lr::alice<Int> alice(ks.paillier_keys.public_key, ks.comparison_keys.public_key, p, 0);
  lr::reference_model<Int> ref(p);
  const auto data = emails(d, k, active, 3);
  privet::testing::seeded_release_generator gen(4);
  double plain_seconds = 0;
  for (auto _ : state) {
    const auto w = bob.publish(gen);
    auto server = bob.serve(alice.user());
    const auto m = alice.margins(w, data, gen);
    const auto b = server.bits(m, gen);
    const auto t = alice.tests(b, gen);
    const auto pr = server.products(t, gen);
    bob.receive(alice.gradient(pr, gen));
    bob.update();
    state.PauseTiming();
    const auto start = std::chrono::steady_clock::now();
    ref.train_block(data);
    plain_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    state.ResumeTiming();
  }
  state.counters["emails/s"] =
      benchmark::Counter(static_cast<double>(k * state.iterations()), benchmark::Counter::kIsRate);
  state.counters["plain_ms"] = 1e3 * plain_seconds / static_cast<double>(state.iterations());
}

void evaluation(benchmark::State& state) {
  const auto bits = static_cast<std::size_t>(state.range(0));
  const auto d = static_cast<std::uint32_t>(state.range(1));
  const auto active = static_cast<std::size_t>(state.range(2));
  const auto p = params(d, 2, 1);
  const auto& ks = keys(bits, lr::comparison_bits<Int>(p));
  lr::bob<Int> bob(ks.paillier_keys.private_key, ks.comparison_keys.private_key, p);
  privet::testing::seeded_release_generator gen(5);
  const auto w = bob.publish(gen);
  const auto data = emails(d, 1, active, 6);
  std::uint64_t session = 0;
  for (auto _ : state) {
    lr::carol<Int> carol(ks.paillier_keys.public_key, ks.comparison_keys.public_key, p, session);
    auto eval = bob.evaluate(session++);
    const auto q = carol.query(w, data.features[0], gen);
    const auto b = eval.bits(q, gen);
    const auto t = carol.tests(b, gen);
    benchmark::DoNotOptimize(carol.result(eval.respond(t)));
  }
}

}  // namespace

// The smoke run (256-bit keys) first; the measured sizes after it.
BENCHMARK(block)
    ->ArgNames({"bits", "d", "K", "active", "threads"})
    ->Args({256, 1000, 10, 50, 1})
    ->Args({2048, 10000, 100, 400, 1})
    ->Args({2048, 10000, 100, 400, 2})
    ->Args({1024, 10000, 100, 400, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);
BENCHMARK(evaluation)
    ->ArgNames({"bits", "d", "active"})
    ->Args({256, 1000, 50})
    ->Args({2048, 10000, 400})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
