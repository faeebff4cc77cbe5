// MFCC extraction (privet/ml/mfcc.hpp) and WAVE decoding (privet/io/wav.hpp):
// the feature front end of the federated speech example. Frames per second
// at espeak-ng's 22.05 kHz (N = 1024) and at 16 kHz (N = 512), float and
// double, over utterance lengths from 0.25 s to 8 s (cost linear in the
// number of frames); and WAVE bytes decoded per second.
#include <privet/io/wav.hpp>
#include <privet/ml/mfcc.hpp>

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <numbers>
#include <sstream>
#include <vector>

namespace {

template <class Real>
std::vector<Real> test_signal(std::size_t n, double fs) {
  std::vector<Real> x(n);
  std::uint64_t s = 7;
  for (std::size_t i = 0; i < n; ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    const double t = static_cast<double>(i) / fs;
    x[i] = static_cast<Real>(0.4 * std::sin(2 * std::numbers::pi * 300 * t) +
                             0.1 * (static_cast<double>(s >> 11) / 9007199254740992.0 - 0.5));
  }
  return x;
}

// state.range(0): utterance length in ms; range(1): sample rate in Hz.
template <class Real>
void mfcc_frames(benchmark::State& state) {
  const double fs = static_cast<double>(state.range(1));
  const auto x = test_signal<Real>(
      static_cast<std::size_t>(fs * static_cast<double>(state.range(0)) / 1000), fs);
  const privet::ml::mfcc<Real> f({.sample_rate = fs});
  std::size_t frames = 0;
  for (auto _ : state) {
    auto c = f(x);
    frames += c.shape()[0];
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["frames/s"] =
      benchmark::Counter(static_cast<double>(frames), benchmark::Counter::kIsRate);
  state.counters["fft"] = static_cast<double>(f.fft_size());
  state.SetComplexityN(static_cast<benchmark::IterationCount>(f.frame_count(x.size())));
}

// One second of 16-bit mono at 22.05 kHz, decoded from memory.
void wav_read(benchmark::State& state) {
  privet::io::wav_data w;
  w.sample_rate = 22050;
  for (float v : test_signal<float>(22050, 22050))
    w.samples.push_back(static_cast<std::int32_t>(v * 32767));
  std::ostringstream out;
  privet::io::write_wav(out, w);
  const std::string bytes = out.str();
  for (auto _ : state) {
    std::istringstream in(bytes);
    auto r = privet::io::read_wav(in);
    benchmark::DoNotOptimize(r.samples.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes.size()));
}

}  // namespace

BENCHMARK_TEMPLATE(mfcc_frames, float)
    ->ArgsProduct({{250, 1000, 4000, 8000}, {22050}})
    ->Complexity(benchmark::oN)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(mfcc_frames, float)->Args({1000, 16000})->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(mfcc_frames, double)
    ->Args({1000, 22050})
    ->Args({1000, 16000})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(wav_read)->Unit(benchmark::kMicrosecond);
