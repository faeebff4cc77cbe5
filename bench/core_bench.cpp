// Core layer: the generators every sampler draws from.
#include <privet/core/csprng.hpp>
#include <privet/core/detail/ct_word.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/uniform.hpp>

#include <benchmark/benchmark.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace {

// The secure generator seeds itself; the others take a fixed seed.
template <class G>
G make_generator() {
  if constexpr (std::is_default_constructible_v<G>) {
    return G{};
  } else {
    return G(1);
  }
}

template <class G>
void words(benchmark::State& state) {
  G gen = make_generator<G>();
  for (auto _ : state) benchmark::DoNotOptimize(gen());
  state.SetBytesProcessed(state.iterations() * 8);
  state.SetItemsProcessed(state.iterations());
}

template <class G>
void uniform_below_draws(benchmark::State& state) {
  G gen = make_generator<G>();
  const auto n = static_cast<std::uint64_t>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(privet::uniform_below(gen, n));
  state.SetItemsProcessed(state.iterations());
}

template <class G>
void uniform_real_draws(benchmark::State& state) {
  G gen = make_generator<G>();
  for (auto _ : state) benchmark::DoNotOptimize(privet::uniform_real(gen));
  state.SetItemsProcessed(state.iterations());
}

void csprng_fill(benchmark::State& state) {
  privet::csprng gen;
  std::vector<std::byte> buf(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    gen.fill(buf);
    benchmark::DoNotOptimize(buf.data());
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

// int128 sums rounded to double, as DP-SGD's exact gradient sum does after
// a flush: the runtime library's conversion (branches on the size) against
// ct_round_to_double (the same instructions for every value), over 4096
// sums of 50 to 126 bits.
template <bool ConstantTime>
void int128_to_double(benchmark::State& state) {
  using privet::detail::int128;
  using privet::detail::uint128;
  privet::seeded_generator gen(3);
  std::vector<int128> v(4096);
  for (auto& x : v) {
    const auto bits = 50 + static_cast<unsigned>(gen() % 77);
    x = static_cast<int128>(((static_cast<uint128>(gen()) << 64) | gen()) >> (128 - bits));
    if ((gen() & 1) != 0) x = -x;
  }
  for (auto _ : state) {
    double total = 0;
    for (const int128 x : v) {
      total += ConstantTime ? privet::detail::ct_round_to_double(x) : static_cast<double>(x);
    }
    benchmark::DoNotOptimize(total);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(v.size()));
}

}  // namespace

BENCHMARK(int128_to_double<false>)->Name("int128_to_double/runtime");
BENCHMARK(int128_to_double<true>)->Name("int128_to_double/ct_round_to_double");
BENCHMARK(words<privet::csprng>)->Name("csprng/words");
BENCHMARK(words<privet::seeded_generator>)->Name("seeded_generator/words");
BENCHMARK(words<std::mt19937_64>)->Name("std::mt19937_64/words (reference, not secure)");
BENCHMARK(uniform_below_draws<privet::csprng>)
    ->Name("csprng/uniform_below")
    ->Arg(6)
    ->Arg(1'000'003);
BENCHMARK(uniform_below_draws<privet::seeded_generator>)
    ->Name("seeded_generator/uniform_below")
    ->Arg(6)
    ->Arg(1'000'003);
BENCHMARK(uniform_real_draws<privet::csprng>)->Name("csprng/uniform_real");
BENCHMARK(csprng_fill)->Name("csprng/fill")->Arg(64)->Arg(4096)->Arg(1 << 20);
