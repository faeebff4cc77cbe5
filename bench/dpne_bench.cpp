// DPSU / DPNE: the per-user pass (bounding to Delta_0 distinct n-grams per
// user and summing the L2-normalised weights into the histogram) in n-gram
// occurrences per second on one core, a DPSU release with exact and with
// constant-time noise, a whole extraction, and the samplers and thresholds
// it calls.
#include <privet/algorithms/dpne.hpp>
#include <privet/core/csprng.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform_subset.hpp>
#include <privet/mechanisms/binomial.hpp>
#include <privet/mechanisms/constant_time_binomial.hpp>
#include <privet/mechanisms/tail_threshold.hpp>

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace {

namespace dpne = privet::dpne;

// Users' n-gram keys as DPNE's level pass sees them: 64-bit (prefix, word)
// keys, Zipf-distributed (rank r with weight 1 / r) over 10^6 grams, with
// repeats inside a user, `per_user` occurrences each.
std::vector<std::vector<std::uint64_t>> zipf_users(std::size_t users, std::size_t per_user) {
  privet::testing::seeded_release_generator gen(1);
  const double h = std::log(1e6) + 0.5772;  // the harmonic number H_(10^6)
  std::vector<std::vector<std::uint64_t>> out(users);
  for (auto& u : out) {
    u.reserve(per_user);
    for (std::size_t i = 0; i < per_user; ++i) {
      // Inverse of the continuous approximation r = exp(U H).
      const double r = std::exp(privet::uniform_real(gen) * h);
      const auto rank = static_cast<std::uint64_t>(r);
      u.push_back((rank * 0x9e3779b97f4a7c15ull) ^ (rank << 32));
    }
  }
  return out;
}

// Bounding (Delta_0 distinct keys per user, bound_keys' bottom-k) plus the
// weighted histogram, one thread: occurrences per second per core.
void dpne_level_pass(benchmark::State& state) {
  const auto per_user = static_cast<std::size_t>(state.range(0));
  const auto delta0 = static_cast<std::uint64_t>(state.range(1));
  const auto users = zipf_users(200'000 / per_user * 10, per_user);
  std::uint64_t occurrences = 0;
  for (const auto& u : users) occurrences += u.size();
  std::uint64_t salt = 1;
  for (auto _ : state) {
    const auto h = privet::dpsu::accumulate<std::uint64_t>(
        privet::dpsu::weighted_gaussian{}, users.size(),
        [&](std::size_t i, std::vector<std::uint64_t>& out) {
          out.insert(out.end(), users[i].begin(), users[i].end());
        },
        delta0, privet::dpsu::update_context{18, 0}, ++salt, 1);
    benchmark::DoNotOptimize(h.size());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(occurrences) * state.iterations());
  state.counters["users"] = static_cast<double>(users.size());
}
BENCHMARK(dpne_level_pass)
    ->Args({20, 100})
    ->Args({50, 100})
    ->Args({200, 100})
    ->Args({50, 10})
    ->Unit(benchmark::kMillisecond);

// A synthetic corpus with shared phrases: users write sentences that are
// either one of 2000 phrases of 8 words (Zipf popularity) or 8 random
// words of a 20 000-word vocabulary.
struct synthetic {
  privet::ngram_table vocabulary;
  dpne::corpus corpus;
};

synthetic make_corpus(std::size_t users) {
  synthetic s;
  privet::testing::seeded_release_generator gen(2);
  std::vector<privet::ngram_table::id> words;
  for (int w = 0; w < 20'000; ++w) words.push_back(s.vocabulary.word("w" + std::to_string(w)));
  std::vector<std::vector<privet::ngram_table::id>> phrases(2000);
  for (auto& p : phrases)
    for (int i = 0; i < 8; ++i) p.push_back(words[privet::uniform_below(gen, 2000)]);
  const double h = std::log(2000.0) + 0.5772;
  std::vector<privet::ngram_table::id> sentence;
  for (std::size_t u = 0; u < users; ++u) {
    s.corpus.add_user();
    for (int j = 0; j < 4; ++j) {
      if (privet::uniform_below(gen, 2) == 0) {
        const auto rank = static_cast<std::size_t>(std::exp(privet::uniform_real(gen) * h)) - 1;
        s.corpus.add_sequence(phrases[std::min<std::size_t>(rank, 1999)]);
      } else {
        sentence.clear();
        for (int i = 0; i < 8; ++i)
          sentence.push_back(words[privet::uniform_below(gen, words.size())]);
        s.corpus.add_sequence(sentence);
      }
    }
  }
  return s;
}

// The whole extraction (T = 6, noise from the CSPRNG: the exact samplers,
// or the constant-time ones with the spurious grams drawn in constant time,
// the default), one thread: tokens per second.
template <class Noise>
void dpne_extract(benchmark::State& state) {
  const auto s = make_corpus(static_cast<std::size_t>(state.range(0)));
  dpne::parameters p;
  p.max_length = 6;
  p.threads = 1;
  std::size_t released = 0;
  std::uint64_t spurious = 0;
  for (auto _ : state) {
    const auto r = dpne::extract<Noise>(s.corpus, s.vocabulary, p, privet::secure_generator());
    released = r.total();
    spurious = 0;
    for (const auto& l : r.levels()) spurious += l.spurious;
    benchmark::DoNotOptimize(released);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(s.corpus.tokens()) * state.iterations());
  state.counters["released"] = static_cast<double>(released);
  state.counters["spurious"] = static_cast<double>(spurious);
}
BENCHMARK_TEMPLATE(dpne_extract, privet::secure_noise)
    ->Arg(20'000)
    ->Arg(100'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(dpne_extract, privet::constant_time_noise)
    ->Arg(20'000)
    ->Arg(100'000)
    ->Unit(benchmark::kMillisecond);

// A DPSU release (eps = 4, delta = 1e-7, Delta_0 = 100, one thread) on
// 20 000 Zipf users of 20 occurrences each: the user pass, then one noise
// draw per item with a weight (127 127 of them), from the exact
// samplers (secure_noise) or the constant-time ones (constant_time_noise,
// issue 36). Items per second are noised items; run with
// --benchmark_enable_random_interleaving to alternate the two.
template <class Policy, class Noise>
void dpsu_release(benchmark::State& state) {
  const auto users = zipf_users(static_cast<std::size_t>(state.range(0)), 20);
  const privet::dpsu::set_union<Policy, Noise> su(privet::dpsu::parameters{4, 1e-7, 100, 1});
  std::size_t support = 0, released = 0;
  for (auto _ : state) {
    const auto r = su(users, privet::secure_generator());
    support = r.support;
    released = r.items.size();
    benchmark::DoNotOptimize(released);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(support) * state.iterations());
  state.counters["noised"] = static_cast<double>(support);
  state.counters["released"] = static_cast<double>(released);
}
BENCHMARK_TEMPLATE(dpsu_release, privet::dpsu::weighted_gaussian, privet::secure_noise)
    ->Arg(20'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(dpsu_release, privet::dpsu::weighted_gaussian, privet::constant_time_noise)
    ->Arg(20'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(dpsu_release, privet::dpsu::weighted_laplace, privet::secure_noise)
    ->Arg(20'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(dpsu_release, privet::dpsu::weighted_laplace, privet::constant_time_noise)
    ->Arg(20'000)
    ->Unit(benchmark::kMillisecond);

// The exact binomial count of spurious grams: mean n p = 10, 1000.
void binomial_sample(benchmark::State& state) {
  const auto d = privet::binomial_distribution::from_probability(
      100'000'000, static_cast<double>(state.range(0)) * 1e-8);
  auto& gen = privet::secure_generator();
  for (auto _ : state) benchmark::DoNotOptimize(d(gen));
  state.SetItemsProcessed(state.iterations());
  state.counters["mean"] = d.mean();
}
BENCHMARK(binomial_sample)->Arg(10)->Arg(1000);

// The same counts in constant time (a scanned table of about 24 sqrt(mean)
// thresholds).
void ct_binomial_sample(benchmark::State& state) {
  const privet::constant_time_binomial d(100'000'000,
                                         -std::log1p(-static_cast<double>(state.range(0)) * 1e-8));
  auto& gen = privet::secure_generator();
  for (auto _ : state) benchmark::DoNotOptimize(d(gen));
  state.SetItemsProcessed(state.iterations());
  state.counters["entries"] = static_cast<double>(d.entries());
}
BENCHMARK(ct_binomial_sample)->Arg(10)->Arg(1000);

// A Poisson sample of 10^5 elements at mean 100: the exact count then
// uniform_subset, against constant_time_poisson_sample.
void poisson_population_exact(benchmark::State& state) {
  const privet::binomial_distribution count(100'000, 1e-3);
  auto& gen = privet::secure_generator();
  for (auto _ : state) {
    const auto members = privet::uniform_subset(gen, 100'000, count(gen));
    benchmark::DoNotOptimize(members.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(poisson_population_exact);

void poisson_population_ct(benchmark::State& state) {
  const privet::constant_time_poisson_sample sample(100'000, 1e-3);
  std::vector<std::uint64_t> out(sample.capacity());
  auto& gen = privet::secure_generator();
  for (auto _ : state) benchmark::DoNotOptimize(sample(gen, out.data()));
  state.SetItemsProcessed(state.iterations());
  state.counters["capacity"] = static_cast<double>(sample.capacity());
}
BENCHMARK(poisson_population_ct);

void geometric_sample(benchmark::State& state) {
  const privet::geometric_distribution g(1e-5);
  auto& gen = privet::secure_generator();
  for (auto _ : state) benchmark::DoNotOptimize(g(gen));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(geometric_sample);

// rho_1 for Delta_0 items (one safe tail inversion per t).
void set_union_threshold(benchmark::State& state) {
  const auto items = static_cast<std::uint64_t>(state.range(0));
  for (auto _ : state)
    benchmark::DoNotOptimize(privet::set_union_gaussian_threshold(items, 4.2, 5e-8));
}
BENCHMARK(set_union_threshold)->Arg(100)->Arg(900)->Unit(benchmark::kMicrosecond);

void discrete_gaussian_tail(benchmark::State& state) {
  const privet::discrete_gaussian_distribution d(1.3e6);
  std::int64_t k = 3'000'000;
  for (auto _ : state) benchmark::DoNotOptimize(privet::discrete_gaussian_upper_tail(d, ++k));
}
BENCHMARK(discrete_gaussian_tail);

// The certified bounds DPNE's levels draw their spurious grams against:
// Euler-Maclaurin at DPSU's grid (sigma about 10^6 units, range 0) and the
// term-by-term sum below sigma = 2048 (range 1: sigma = 1000, k = 2.3 sigma).
void discrete_gaussian_tail_bounds(benchmark::State& state) {
  const bool direct = state.range(0) == 1;
  const privet::discrete_gaussian_distribution d(direct ? 1000.0 : 1.3e6);
  std::int64_t k = direct ? 2300 : 3'000'000;
  for (auto _ : state) {
    benchmark::DoNotOptimize(privet::discrete_gaussian_upper_tail_bounds(d, k));
    k ^= 1;
  }
}
BENCHMARK(discrete_gaussian_tail_bounds)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// 1 - e^-rate in 128-bit fixed point (exp_neg_bounds), at p about 0.01.
void success_probability_bounds(benchmark::State& state) {
  double rate = 0.01005;
  for (auto _ : state) {
    benchmark::DoNotOptimize(privet::success_probability_bounds(rate));
    rate = std::nextafter(rate, 1.0);
  }
}
BENCHMARK(success_probability_bounds)->Unit(benchmark::kMicrosecond);

}  // namespace
