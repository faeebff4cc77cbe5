// MFCCs: the HTK mel scale, the filterbank's edges, bins and weights, the
// partition of unity of adjacent triangles, the orthonormal DCT-II, a pure
// tone landing in its filter, the framing rule (fractional shifts), and the
// whole pipeline against an independent computation with a naive DFT in
// plain double loops.
#include <privet/ml/mfcc.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <thread>
#include <vector>

namespace {

using privet::ml::mel_filterbank;
using privet::ml::mfcc;
using privet::ml::mfcc_options;

// A deterministic test signal: two tones, a chirp and a pseudo-random
// component from a 64-bit LCG (Knuth's MMIX constants), amplitude < 1.
std::vector<double> synthetic(std::size_t n, double fs) {
  std::vector<double> x(n);
  std::uint64_t s = 12345;
  for (std::size_t i = 0; i < n; ++i) {
    const double t = static_cast<double>(i) / fs;
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    const double noise = static_cast<double>(s >> 11) / 9007199254740992.0 - 0.5;
    x[i] = 0.3 * std::sin(2 * std::numbers::pi * 440 * t) +
           0.2 * std::sin(2 * std::numbers::pi * 2300 * t + 0.4) +
           0.2 * std::sin(2 * std::numbers::pi * (200 + 3000 * t) * t) + 0.05 * noise;
  }
  return x;
}

// The header's pipeline written out from its definition, step by step,
// with a naive O(N^2) DFT and the filterbank computed here from the edge
// formula (nothing shared with the implementation but the mel formula).
std::vector<std::vector<double>> reference_mfcc(const std::vector<double>& x, double fs,
                                                std::size_t length, double shift, std::size_t n,
                                                std::size_t filters, std::size_t keep,
                                                bool cepstra = true) {
  std::vector<double> y(x.size());
  y[0] = x[0];
  for (std::size_t i = 1; i < x.size(); ++i) y[i] = x[i] - 0.97 * x[i - 1];
  const double mel_hi = 2595 * std::log10(1 + (fs / 2) / 700);
  std::vector<double> edge(filters + 2);
  for (std::size_t i = 0; i < edge.size(); ++i) {
    const double m = mel_hi * static_cast<double>(i) / static_cast<double>(filters + 1);
    edge[i] = 700 * (std::pow(10, m / 2595) - 1);
  }
  std::vector<std::vector<double>> out;
  for (std::size_t t = 0;; ++t) {
    const auto start = static_cast<std::size_t>(std::llround(static_cast<double>(t) * shift));
    if (start + length > x.size()) break;
    std::vector<double> power(n / 2 + 1);
    for (std::size_t k = 0; k <= n / 2; ++k) {
      double re = 0, im = 0;
      for (std::size_t i = 0; i < length; ++i) {
        const double w = 0.54 - 0.46 * std::cos(2 * std::numbers::pi * static_cast<double>(i) /
                                                static_cast<double>(length - 1));
        const double angle =
            -2 * std::numbers::pi * static_cast<double>(k * i % n) / static_cast<double>(n);
        re += y[start + i] * w * std::cos(angle);
        im += y[start + i] * w * std::sin(angle);
      }
      power[k] = re * re + im * im;
    }
    std::vector<double> logs(filters);
    for (std::size_t m = 0; m < filters; ++m) {
      double e = 0;
      for (std::size_t k = 0; k <= n / 2; ++k) {
        const double f = static_cast<double>(k) * fs / static_cast<double>(n);
        if (f > edge[m] && f <= edge[m + 1])
          e += power[k] * (f - edge[m]) / (edge[m + 1] - edge[m]);
        if (f > edge[m + 1] && f < edge[m + 2])
          e += power[k] * (edge[m + 2] - f) / (edge[m + 2] - edge[m + 1]);
      }
      logs[m] = std::log(std::max(e, 1e-10));
    }
    if (!cepstra) {
      out.push_back(logs);
      continue;
    }
    std::vector<double> c(keep);
    for (std::size_t j = 0; j < keep; ++j) {
      for (std::size_t m = 0; m < filters; ++m) {
        c[j] += logs[m] * std::cos(std::numbers::pi * static_cast<double>(j) *
                                   (static_cast<double>(m) + 0.5) / static_cast<double>(filters));
      }
      c[j] *= std::sqrt((j == 0 ? 1.0 : 2.0) / static_cast<double>(filters));
    }
    out.push_back(c);
  }
  return out;
}

template <class Real>
std::vector<Real> as(const std::vector<double>& x) {
  return std::vector<Real>(x.begin(), x.end());
}

}  // namespace

TEST_CASE("the HTK mel scale") {
  // 2595 log10(2) = 781.17283874803..., and 1000 Hz is about 1000 mel
  // (values from Python's math module on the same formula).
  CHECK(privet::ml::hz_to_mel(0) == 0);
  CHECK(privet::ml::hz_to_mel(700) == doctest::Approx(781.1728387480312).epsilon(1e-14));
  CHECK(privet::ml::hz_to_mel(1000) == doctest::Approx(999.9855371396244).epsilon(1e-14));
  for (double f : {20.0, 300.0, 4000.0, 11025.0})
    CHECK(privet::ml::mel_to_hz(privet::ml::hz_to_mel(f)) == doctest::Approx(f).epsilon(1e-12));
}

TEST_CASE("filterbank edges, bins and weights at 16 kHz, N = 512, 26 filters") {
  // Expected values: Python's math module on the header's definitions
  // (edges f_i = mel^-1(i mel(8000) / 27); bins at k * 31.25 Hz strictly
  // inside (f_m, f_{m+2})).
  const mel_filterbank fb(26, 512, 16000, 0, 8000);
  REQUIRE(fb.size() == 26);
  CHECK(fb.bins() == 257);
  CHECK(fb.edge_hz(0) == 0);
  CHECK(fb.edge_hz(1) == doctest::Approx(68.47927398669893).epsilon(1e-12));
  CHECK(fb.edge_hz(2) == doctest::Approx(143.65770649589132).epsilon(1e-12));
  CHECK(fb.edge_hz(14) == doctest::Approx(1885.685534569948).epsilon(1e-12));
  CHECK(fb.edge_hz(26) == doctest::Approx(7224.742027727618).epsilon(1e-12));
  CHECK(fb.edge_hz(27) == 8000);
  CHECK(fb.lower_hz(1) == fb.edge_hz(1));
  CHECK(fb.centre_hz(1) == fb.edge_hz(2));
  CHECK(fb.upper_hz(1) == fb.edge_hz(3));

  // Filter 0: bins 1..4 (31.25 to 125 Hz), peak between bins 2 and 3.
  CHECK(fb.first_bin(0) == 1);
  REQUIRE(fb.weights(0).size() == 4);
  CHECK(fb.weights(0)[0] == doctest::Approx(0.45634245488744296).epsilon(1e-12));
  CHECK(fb.weights(0)[1] == doctest::Approx(0.9126849097748859).epsilon(1e-12));
  CHECK(fb.weights(0)[2] == doctest::Approx(0.6638567050435494).epsilon(1e-12));
  CHECK(fb.first_bin(1) == 3);
  CHECK(fb.weights(1).size() == 5);
  CHECK(fb.weights(1)[0] == doctest::Approx(0.3361432949564506).epsilon(1e-12));
  CHECK(fb.first_bin(12) == 47);
  CHECK(fb.weights(12).size() == 14);
  CHECK(fb.weights(12)[1] == doctest::Approx(0.260169170768706).epsilon(1e-12));
  CHECK(fb.first_bin(25) == 209);
  // Python's edge 27 comes out as 8000.000000000002 and would admit the
  // Nyquist bin; the implementation pins f_{M+1} to high_hz exactly, so the
  // filter stops at bin 255 (the Nyquist bin would have weight 0).
  CHECK(fb.weights(25).size() == 47);
  CHECK(fb.weights(25)[0] == doctest::Approx(0.017959608203361663).epsilon(1e-12));
  // 1000 Hz (bin 32) lies between the centres of filters 8 and 9.
  CHECK(fb.weight(8, 32) == doctest::Approx(0.5048372366618835).epsilon(1e-12));
  CHECK(fb.weight(9, 32) == doctest::Approx(0.4951627633381165).epsilon(1e-12));
  CHECK(fb.weight(7, 32) == 0);
  CHECK(fb.weight(10, 32) == 0);
}

TEST_CASE("adjacent triangles sum to one between the first and last centres") {
  struct setting {
    double fs;
    std::size_t n, m;
    double lo;
  };
  for (const setting& st : {setting{16000.0, 512, 26, 0.0}, setting{22050.0, 1024, 40, 20.0},
                            setting{8000.0, 256, 23, 100.0}}) {
    const double fs = st.fs, lo = st.lo;
    CAPTURE(fs);
    const mel_filterbank fb(st.m, st.n, fs, lo, fs / 2);
    for (std::size_t k = 0; k < fb.bins(); ++k) {
      const double f = fb.bin_frequency(k);
      double sum = 0;
      std::size_t nonzero = 0;
      for (std::size_t j = 0; j < fb.size(); ++j) {
        const double w = fb.weight(j, k);
        CHECK(w >= 0);
        CHECK(w <= 1);
        sum += w;
        nonzero += w > 0;
      }
      if (f >= fb.centre_hz(0) && f <= fb.centre_hz(fb.size() - 1)) {
        CHECK(sum == doctest::Approx(1).epsilon(1e-12));
        CHECK(nonzero <= 2);
      } else if (f <= lo || f >= fs / 2) {
        CHECK(sum == 0);
      } else {
        CHECK(sum < 1);  // a single rising or falling edge
      }
    }
    // Every filter reaches at least one bin, and only inside its edges.
    for (std::size_t j = 0; j < fb.size(); ++j) {
      CHECK(!fb.weights(j).empty());
      CHECK(fb.bin_frequency(fb.first_bin(j)) > fb.lower_hz(j));
      CHECK(fb.bin_frequency(fb.first_bin(j) + fb.weights(j).size() - 1) < fb.upper_hz(j));
    }
  }
}

TEST_CASE("the DCT-II matrix is orthonormal") {
  for (std::size_t m : {1u, 13u, 26u, 40u}) {
    const auto d = privet::ml::dct_ii_matrix<double>(m, m);
    for (std::size_t i = 0; i < m; ++i) {
      for (std::size_t j = 0; j < m; ++j) {
        double row = 0, col = 0;
        for (std::size_t k = 0; k < m; ++k) {
          row += d[i * m + k] * d[j * m + k];
          col += d[k * m + i] * d[k * m + j];
        }
        CHECK(row == doctest::Approx(i == j ? 1.0 : 0.0).epsilon(1e-12).scale(1));
        CHECK(col == doctest::Approx(i == j ? 1.0 : 0.0).epsilon(1e-12).scale(1));
      }
    }
  }
  const auto d = privet::ml::dct_ii_matrix<double>(13, 26);
  CHECK(d.size() == 13 * 26);
  CHECK(d[0] == doctest::Approx(1 / std::sqrt(26.0)));
  CHECK(d[1 * 26 + 0] == doctest::Approx(std::sqrt(2 / 26.0) * std::cos(std::numbers::pi / 52)));
  CHECK(d[12 * 26 + 25] ==
        doctest::Approx(std::sqrt(2 / 26.0) * std::cos(std::numbers::pi * 12 * 25.5 / 26)));
  CHECK_THROWS_WITH_AS(privet::ml::dct_ii_matrix<double>(27, 26),
                       "privet: rows = 27 is invalid; allowed: 1 to size = 26",
                       privet::invalid_parameter);
}

TEST_CASE("a pure tone puts its energy in the filter whose centre it sits on") {
  const mfcc<double> f({.sample_rate = 16000, .fft_size = 512});
  const auto& fb = f.filterbank();
  for (std::size_t target : {3u, 8u, 12u, 20u}) {
    CAPTURE(target);
    // The bin nearest the filter's centre, and a tone exactly on it.
    const auto k = static_cast<std::size_t>(std::lround(fb.centre_hz(target) / 31.25));
    std::size_t best = 0;
    for (std::size_t m = 1; m < fb.size(); ++m)
      if (fb.weight(m, k) > fb.weight(best, k)) best = m;
    REQUIRE(best == target);
    std::vector<double> x(8000);
    for (std::size_t i = 0; i < x.size(); ++i)
      x[i] = 0.5 * std::sin(2 * std::numbers::pi * static_cast<double>(k) * 31.25 *
                            static_cast<double>(i) / 16000);
    const auto logs = f.log_mel(x);
    REQUIRE(logs.shape()[0] == 48);  // (8000 - 400) / 160 + 1
    for (std::size_t t = 0; t < logs.shape()[0]; ++t) {
      std::size_t top = 0;
      for (std::size_t m = 1; m < fb.size(); ++m)
        if (logs(t, m) > logs(t, top)) top = m;
      CHECK(top == target);
      // Filters that do not overlap the tone's main lobe (+-2 bins) and
      // are not its neighbours get at least 30 dB less (Hamming side lobes
      // are 43 dB down; pre-emphasis lifts high filters by up to 6 dB).
      for (std::size_t m = 0; m < fb.size(); ++m) {
        if (m + 2 > target && m < target + 2) continue;
        CHECK(logs(t, target) - logs(t, m) > 3 * std::log(10.0));
      }
    }
  }
}

TEST_CASE("MFCCs match a naive double-loop computation") {
  SUBCASE("16 kHz, 26 filters, N = 512, integer shift") {
    const auto x = synthetic(1700, 16000);
    const auto ref = reference_mfcc(x, 16000, 400, 160, 512, 26, 13);
    REQUIRE(ref.size() == 9);  // frames at 0, 160, ..., 1280; 1440 + 400 > 1700
    const mfcc<double> fd({.sample_rate = 16000});
    const mfcc<float> ff({.sample_rate = 16000});
    const auto cd = fd(x);
    const auto xf = as<float>(x);
    const auto cf = ff(xf);
    REQUIRE(cd.shape()[0] == 9);
    REQUIRE(cd.shape()[1] == 13);
    REQUIRE(cf.shape()[0] == 9);
    for (std::size_t t = 0; t < 9; ++t) {
      for (std::size_t j = 0; j < 13; ++j) {
        CAPTURE(t);
        CAPTURE(j);
        CHECK(cd(t, j) == doctest::Approx(ref[t][j]).epsilon(1e-9).scale(1));
        CHECK(cf(t, j) == doctest::Approx(ref[t][j]).epsilon(2e-4).scale(1));
      }
    }
    const auto logs = fd.log_mel(x);
    const auto ref_logs = reference_mfcc(x, 16000, 400, 160, 512, 26, 13, false);
    for (std::size_t m = 0; m < 26; ++m)
      CHECK(logs(3, m) == doctest::Approx(ref_logs[3][m]).epsilon(1e-9).scale(1));
  }
  SUBCASE("22.05 kHz (espeak-ng's rate), 40 filters, fractional shift of 220.5 samples") {
    const auto x = synthetic(1500, 22050);
    const mfcc<double> f({.sample_rate = 22050, .filters = 40});
    CHECK(f.frame_length() == 551);  // round(551.25)
    CHECK(f.fft_size() == 1024);
    CHECK(f.frame_start(1) == 221);  // 220.5 rounds away from zero
    CHECK(f.frame_start(2) == 441);
    CHECK(f.frame_start(3) == 662);
    CHECK(f.frame_count(1500) == 5);  // frame 4 at 882 ends at 1433; frame 5 at 1103 would not fit
    const auto ref = reference_mfcc(x, 22050, 551, 220.5, 1024, 40, 13);
    const auto c = f(x);
    REQUIRE(ref.size() == 5);
    REQUIRE(c.shape()[0] == 5);
    for (std::size_t t = 0; t < 5; ++t)
      for (std::size_t j = 0; j < 13; ++j)
        CHECK(c(t, j) == doctest::Approx(ref[t][j]).epsilon(1e-9).scale(1));
  }
}

TEST_CASE("framing: whole frames only, silence at the floor, mean normalisation") {
  const mfcc<double> f({.sample_rate = 16000});
  CHECK(f.frame_length() == 400);
  CHECK(f.fft_size() == 512);
  CHECK(f.frame_count(0) == 0);
  CHECK(f.frame_count(399) == 0);
  CHECK(f.frame_count(400) == 1);
  CHECK(f.frame_count(559) == 1);
  CHECK(f.frame_count(560) == 2);
  CHECK(f.frame_count(16000) == 98);  // (16000 - 400) / 160 + 1
  CHECK(f(std::vector<double>(399, 0.1)).shape()[0] == 0);
  CHECK(f(std::vector<double>(399, 0.1)).shape()[1] == 13);

  // Digital silence: every log energy is ln(1e-10), so c_0 = sqrt(26)
  // ln(1e-10) = -117.40926320884495 and the other coefficients vanish.
  const auto s = f(std::vector<double>(1000, 0.0));
  REQUIRE(s.shape()[0] == 4);
  CHECK(s(2, 0) == doctest::Approx(-117.40926320884495).epsilon(1e-12));
  for (std::size_t j = 1; j < 13; ++j) CHECK(std::abs(s(2, j)) < 1e-9);

  const auto x = synthetic(4000, 16000);
  const auto plain = f(x);
  const mfcc<double> g({.sample_rate = 16000, .mean_normalisation = true});
  const auto norm = g(x);
  const std::size_t frames = plain.shape()[0];
  REQUIRE(frames == 23);
  for (std::size_t j = 0; j < 13; ++j) {
    double mean = 0, sum_norm = 0;
    for (std::size_t t = 0; t < frames; ++t) mean += plain(t, j), sum_norm += norm(t, j);
    mean /= static_cast<double>(frames);
    CHECK(std::abs(sum_norm) < 1e-9);
    CHECK(norm(5, j) == doctest::Approx(plain(5, j) - mean).epsilon(1e-12).scale(1));
  }
}

TEST_CASE("invalid MFCC options name the parameter and the allowed range") {
  const auto fails = [](const mfcc_options& o, const char* message) {
    CHECK_THROWS_WITH_AS(mfcc<float>{o}, message, privet::invalid_parameter);
  };
  fails({.sample_rate = 0}, "privet: sample_rate = 0 is invalid; allowed: finite and > 0");
  fails({.frame_length_ms = -25},
        "privet: frame_length_ms = -25 is invalid; allowed: finite and > 0");
  fails({.frame_length_ms = 0.05},
        "privet: frame_length_ms = 0.05 is invalid; allowed: a window of 2 to 2^24 samples at "
        "sample_rate = 16000");
  fails({.frame_shift_ms = 0.01},
        "privet: frame_shift_ms = 0.01 is invalid; allowed: a shift of at least one sample at "
        "sample_rate = 16000");
  fails({.pre_emphasis = 1}, "privet: pre_emphasis = 1 is invalid; allowed: [0, 1)");
  fails({.filters = 0}, "privet: filters = 0 is invalid; allowed: 1 to 4096");
  fails({.filters = 12}, "privet: coefficients = 13 is invalid; allowed: 1 to filters = 12");
  fails({.high_hz = 9000}, "privet: high_hz = 9000 is invalid; allowed: [0, 8000]");
  fails({.low_hz = 5000, .high_hz = 4000},
        "privet: low_hz = 5000 is invalid; allowed: [0, high_hz = 4000)");
  fails({.fft_size = 511},
        "privet: fft_size = 511 is invalid; allowed: 0 (automatic) or even, up to 2^24");
  fails({.fft_size = 256},
        "privet: fft_size = 256 is invalid; allowed: 0 or >= the frame length of 400 samples");
  fails({.log_floor = 0}, "privet: log_floor = 0 is invalid; allowed: finite and > 0");
  fails({.filters = 120},
        "privet: filters = 120 is invalid; allowed: at most as many filters as the DFT resolves: "
        "filter 0 (0 to 29.77275710565237 Hz) contains no bin of the 512-point DFT (bin spacing "
        "31.25 Hz)");
}

TEST_CASE("the filterbank, the DCT and the remaining MFCC options name what they refuse") {
  using privet::invalid_parameter;
  CHECK_THROWS_WITH_AS(mel_filterbank(26, 512, 0, 0, 8000),
                       "privet: sample_rate = 0 is invalid; allowed: finite and > 0",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(mel_filterbank(0, 512, 16000, 0, 8000),
                       "privet: filters = 0 is invalid; allowed: 1 to 4096", invalid_parameter);
  CHECK_THROWS_WITH_AS(mel_filterbank(26, 511, 16000, 0, 8000),
                       "privet: fft_size = 511 is invalid; allowed: even, 2 to 2^24",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(mel_filterbank(26, 512, 16000, 0, 9000),
                       "privet: high_hz = 9000 is invalid; allowed: [0, 8000]", invalid_parameter);
  CHECK_THROWS_WITH_AS(mel_filterbank(26, 512, 16000, -1, 8000),
                       "privet: low_hz = -1 is invalid; allowed: [0, high_hz = 8000)",
                       invalid_parameter);
  const mel_filterbank bank(26, 512, 16000, 0, 8000);
  std::vector<double> power(3), energies(26), few(3);
  std::vector<double> full(bank.bins());
  CHECK_THROWS_WITH_AS(bank.apply<double>(power, energies),
                       "privet: power.size() = 3 is invalid; allowed: 257", invalid_parameter);
  CHECK_THROWS_WITH_AS(bank.apply<double>(full, few),
                       "privet: energies.size() = 3 is invalid; allowed: 26", invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::ml::dct_ii_matrix<double>(1, 0),
                       "privet: size = 0 is invalid; allowed: >= 1", invalid_parameter);
  CHECK_THROWS_WITH_AS(privet::ml::dct_ii_matrix<double>(0, 26),
                       "privet: rows = 0 is invalid; allowed: 1 to size = 26", invalid_parameter);
  const auto fails = [](const mfcc_options& o, const char* message) {
    CHECK_THROWS_WITH_AS(mfcc<float>{o}, message, invalid_parameter);
  };
  fails({.frame_shift_ms = 0}, "privet: frame_shift_ms = 0 is invalid; allowed: finite and > 0");
  fails({.pre_emphasis = -0.5}, "privet: pre_emphasis = -0.5 is invalid; allowed: [0, 1)");
  fails({.filters = 5000}, "privet: filters = 5000 is invalid; allowed: 1 to 4096");
  fails({.coefficients = 0}, "privet: coefficients = 0 is invalid; allowed: 1 to filters = 26");
  fails({.low_hz = -1}, "privet: low_hz = -1 is invalid; allowed: finite and >= 0");
  fails({.fft_size = std::size_t{1} << 25},
        "privet: fft_size = 33554432 is invalid; allowed: 0 (automatic) or even, up to 2^24");
}

TEST_CASE("filterbank accessors name the filter or edge index past the end") {
  // Before: std::out_of_range from vector::at where the index passed the
  // vectors' ends, but lower_hz(26), lower_hz(27) and centre_hz(26) read
  // edges of no filter without an error, and centre_hz(2^64 - 1) wrapped
  // to m + 1 = 0 and returned low_hz.
  using privet::invalid_parameter;
  const mel_filterbank bank(26, 512, 16000, 0, 8000);
  const std::size_t top = std::numeric_limits<std::size_t>::max();
  const char* past = "privet: m = 26 is invalid; allowed: [0, size()) = [0, 26)";
  CHECK_THROWS_WITH_AS((void)bank.lower_hz(26), past, invalid_parameter);
  CHECK_THROWS_WITH_AS((void)bank.centre_hz(26), past, invalid_parameter);
  CHECK_THROWS_WITH_AS((void)bank.upper_hz(26), past, invalid_parameter);
  CHECK_THROWS_WITH_AS((void)bank.first_bin(26), past, invalid_parameter);
  CHECK_THROWS_WITH_AS((void)bank.weights(26), past, invalid_parameter);
  CHECK_THROWS_WITH_AS((void)bank.weight(26, 0), past, invalid_parameter);
  CHECK_THROWS_WITH_AS((void)bank.lower_hz(27),
                       "privet: m = 27 is invalid; allowed: [0, size()) = [0, 26)",
                       invalid_parameter);
  CHECK_THROWS_WITH_AS(
      (void)bank.centre_hz(top),
      "privet: m = 18446744073709551615 is invalid; allowed: [0, size()) = [0, 26)",
      invalid_parameter);
  CHECK_THROWS_WITH_AS(
      (void)bank.upper_hz(top - 1),
      "privet: m = 18446744073709551614 is invalid; allowed: [0, size()) = [0, 26)",
      invalid_parameter);
  CHECK_THROWS_WITH_AS((void)bank.edge_hz(28),
                       "privet: i = 28 is invalid; allowed: [0, size() + 1] = [0, 27]",
                       invalid_parameter);
  // The last filter and edge are in range; a bin past the spectrum is 0.
  CHECK(bank.upper_hz(25) == 8000);
  CHECK(bank.edge_hz(27) == 8000);
  CHECK(bank.lower_hz(25) == bank.edge_hz(25));
  CHECK(bank.weight(25, top) == 0);
}
TEST_CASE("a NaN or infinite sample is refused, naming its index and value") {
  using privet::invalid_parameter;
  const mfcc<float> f({.sample_rate = 16000});
  std::vector<float> x(1000, 0.25f);
  x[700] = std::numeric_limits<float>::quiet_NaN();
  CHECK_THROWS_WITH_AS((void)f(x),
                       "privet: samples[700] = nan is invalid; allowed: a finite number",
                       invalid_parameter);
  x[700] = 0;
  x[999] = -std::numeric_limits<float>::infinity();  // past the last whole frame: still refused
  CHECK_THROWS_WITH_AS((void)f.log_mel(x),
                       "privet: samples[999] = -inf is invalid; allowed: a finite number",
                       invalid_parameter);
  x[999] = 0;
  x[3] = std::numeric_limits<float>::infinity();
  x[5] = std::numeric_limits<float>::quiet_NaN();  // the first is named
  CHECK_THROWS_WITH_AS((void)f(x), "privet: samples[3] = inf is invalid; allowed: a finite number",
                       invalid_parameter);
  // The largest finite samples pass (x - x is 0 for them).
  x[3] = std::numeric_limits<float>::max();
  x[5] = -std::numeric_limits<float>::max();
  CHECK_NOTHROW((void)f(x));
}

TEST_CASE("one extractor serves several threads at an FFT size with a factor above 5") {
  // N / 2 = 1001 = 7 11 13: every butterfly of KISS FFT's plan is the
  // generic one, whose scratch buffer lives in the plan. Four threads call
  // one extractor at once; each result must equal the single-threaded one
  // bit for bit (before each call took its own plan, they overwrote each
  // other's butterflies).
  mfcc_options o;
  o.fft_size = 2002;
  o.frame_length_ms = 100;  // 1600 samples at 16 kHz
  o.frame_shift_ms = 10;
  const mfcc<double> extract(o);
  std::vector<double> signal(16000);
  for (std::size_t i = 0; i < signal.size(); ++i) {
    const double t = static_cast<double>(i) / 16000;
    signal[i] =
        std::sin(2 * std::numbers::pi * 440 * t) + 0.3 * std::sin(2 * std::numbers::pi * 3170 * t);
  }
  const auto want = extract(signal);
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (std::size_t k = 0; k < mismatches.size(); ++k) {
    threads.emplace_back([&, k] {
      for (int rep = 0; rep < 6; ++rep) {
        const auto got = extract(signal);
        if (!(got == want)) ++mismatches[k];
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const int m : mismatches) CHECK(m == 0);
}
