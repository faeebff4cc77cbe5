// privet/ml/mfcc.hpp — mel-frequency cepstral coefficients (Davis &
// Mermelstein 1980, "Comparison of parametric representations for
// monosyllabic word recognition in continuously spoken sentences"), with
// the mel scale of the HTK Book (Young et al., §5.4):
//
//   mel(f) = 2595 log10(1 + f / 700),   f(mel) = 700 (10^(mel / 2595) - 1).
//
// Why it is in the library and not in an example: MFCC sequences are the
// standard input of the speech models the ml layer trains (the LSTM of Sotto
// Voce: Shoemate et al. 2022, "Sotto Voce: Federated Speech Recognition with
// Differential Privacy Guarantees", arXiv:2207.07816), nothing below is
// specific to one data set, and it needs only KISS FFT, which privet::privet
// already links.
//
// The pipeline, for samples x[0..n) at sample rate fs (defaults in brackets):
//
// 1. Pre-emphasis of the whole signal: y[0] = x[0], y[i] = x[i] - a x[i-1]
//    (a = 0.97), before framing, so a frame does not depend on where the
//    previous one ended.
// 2. Frames of L = round(fs * frame_length_ms / 1000) samples (25 ms)
//    starting at sample round(t * fs * frame_shift_ms / 1000), t = 0, 1, ...
//    (10 ms; the shift may be fractional, e.g. 220.5 samples at 22.05 kHz,
//    and frames then start on the nearest sample, 100 frames a second on
//    average). Only frames that fit entirely in the signal are kept (Kaldi's
//    snip_edges = true): n < L gives no frame.
// 3. Hamming window w[i] = 0.54 - 0.46 cos(2 pi i / (L - 1)), i < L; no DC
//    removal.
// 4. Power spectrum P[k] = |X[k]|^2 (unnormalised) for k = 0..N/2 of the
//    N-point DFT X of the windowed frame zero-padded to N (the smallest
//    power of two >= L unless fft_size says otherwise; N even). Bin k is at
//    frequency k fs / N.
// 5. Filterbank: M triangular filters (26) whose M + 2 edge frequencies
//    f_0 < f_1 < ... < f_{M+1} are equally spaced in mel between low_hz (0)
//    and high_hz (0 = the Nyquist frequency fs / 2). Filter m = 0..M-1 has
//    lower edge f_m, centre f_{m+1}, upper edge f_{m+2}, and weight
//        (f - f_m) / (f_{m+1} - f_m)          for f_m     <  f <= f_{m+1}
//        (f_{m+2} - f) / (f_{m+2} - f_{m+1})  for f_{m+1} <  f <  f_{m+2}
//        0 elsewhere,
//    evaluated at the bin frequencies: triangles linear in Hz with peak 1
//    and no area normalisation (HTK's and librosa's `htk=True, norm=None`
//    convention). Adjacent filters therefore sum to exactly 1 at every bin
//    between the first and the last centre. E_m = sum_k w_m(k) P[k].
//    Every filter must reach at least one bin with a positive weight;
//    otherwise the constructor throws (too many filters for the resolution).
// 6. Log energies l_m = ln(max(E_m, log_floor)) (natural log; the floor,
//    1e-10, keeps digital silence finite for signals scaled to [-1, 1)).
// 7. DCT-II, orthonormal: c_j = sqrt((j == 0 ? 1 : 2) / M)
//    sum_m l_m cos(pi j (m + 1/2) / M), keeping c_0..c_{K-1} (K = 13).
//    Choice: c_0 is kept rather than replaced by the frame's log energy
//    (HTK's `_E`) or dropped in favour of c_1..c_13. c_0 = sqrt(M) times the
//    mean log filterbank energy, so it already carries loudness (what a
//    log-energy term would add) while staying one linear map of the same
//    log spectrum as the other coefficients; that keeps the feature an
//    orthonormal projection, which the tests check directly.
// 8. Optional cepstral mean normalisation (off): the per-coefficient mean
//    over the utterance's frames is subtracted, which removes a fixed
//    channel (microphone, synthesiser voice colour) from every frame.
//
// No liftering, no deltas, no dithering: the output is deterministic and a
// model that wants deltas computes them from the sequence.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/error.hpp>
#include <privet/core/validate.hpp>

#include <kissfft/kissfft.hh>
#include <xtensor/xtensor.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace privet::ml {

/// The HTK mel scale: 2595 log10(1 + hz / 700).
inline double hz_to_mel(double hz) {
  return 2595.0 * std::log10(1.0 + hz / 700.0);
}

/// The inverse of hz_to_mel: 700 (10^(mel / 2595) - 1).
inline double mel_to_hz(double mel) {
  return 700.0 * (std::pow(10.0, mel / 2595.0) - 1.0);
}

/// Parameters of mfcc (see the header comment for each step).
struct mfcc_options {
  double sample_rate = 16000;       ///< Hz
  double frame_length_ms = 25;      ///< window length
  double frame_shift_ms = 10;       ///< hop between frame starts
  double pre_emphasis = 0.97;       ///< a in y[i] = x[i] - a x[i-1]; in [0, 1)
  std::size_t filters = 26;         ///< M triangular mel filters
  double low_hz = 0;                ///< lower edge of the first filter
  double high_hz = 0;               ///< upper edge of the last filter; 0 = Nyquist
  std::size_t coefficients = 13;    ///< K: c_0..c_{K-1}, K <= M
  std::size_t fft_size = 0;         ///< N, even and >= the frame length; 0 = next power of two
  double log_floor = 1e-10;         ///< energies are floored here before the log
  bool mean_normalisation = false;  ///< subtract each coefficient's mean over the frames
};

/// M triangular filters on the bins 0..N/2 of an N-point DFT (step 5 of the
/// header comment). Weights are stored per filter for its nonzero bins only.
class mel_filterbank {
 public:
  /// `filters` triangular filters with edges equally spaced in mel between
  /// low_hz and high_hz, on the bins of an `fft_size`-point DFT at
  /// `sample_rate` Hz.
  /// @throws invalid_parameter naming `sample_rate` unless it is finite and
  ///   > 0, `filters` unless it is in [1, 4096] or when a filter contains no
  ///   DFT bin (too many filters for the resolution), `fft_size` unless it is
  ///   even and in [2, 2^24], `high_hz` unless it is in [0, sample_rate / 2],
  ///   or `low_hz` unless it is in [0, high_hz).
  mel_filterbank(std::size_t filters, std::size_t fft_size, double sample_rate, double low_hz,
                 double high_hz)
      : fft_size_(fft_size), sample_rate_(sample_rate) {
    validate_positive(sample_rate, "sample_rate");
    if (filters < 1 || filters > 4096) throw_invalid("filters", filters, "1 to 4096");
    if (fft_size < 2 || fft_size % 2 != 0 || fft_size > (std::size_t{1} << 24)) {
      throw_invalid("fft_size", fft_size, "even, 2 to 2^24");
    }
    const double nyquist = sample_rate / 2;
    validate_closed_range(high_hz, 0.0, nyquist, "high_hz");
    if (!(low_hz >= 0 && low_hz < high_hz)) {
      throw_invalid("low_hz", low_hz,
                    "[0, high_hz = " + privet::detail::format_value(high_hz) + ")");
    }
    const double mel_lo = hz_to_mel(low_hz), mel_hi = hz_to_mel(high_hz);
    edges_.resize(filters + 2);
    for (std::size_t i = 0; i < edges_.size(); ++i) {
      edges_[i] = mel_to_hz(mel_lo + (mel_hi - mel_lo) * static_cast<double>(i) /
                                         static_cast<double>(filters + 1));
    }
    // The formula's round trip may move the end points by an ulp.
    edges_.front() = low_hz;
    edges_.back() = high_hz;
    first_.resize(filters);
    weights_.resize(filters);
    const std::size_t bins = fft_size / 2 + 1;
    for (std::size_t m = 0; m < filters; ++m) {
      const double lo = edges_[m], c = edges_[m + 1], hi = edges_[m + 2];
      std::size_t k = static_cast<std::size_t>(std::floor(lo / bin_hz()));
      while (k < bins && bin_frequency(k) <= lo) ++k;
      first_[m] = k;
      for (; k < bins && bin_frequency(k) < hi; ++k) {
        const double f = bin_frequency(k);
        weights_[m].push_back(f <= c ? (f - lo) / (c - lo) : (hi - f) / (hi - c));
      }
      if (weights_[m].empty()) {
        throw_invalid("filters", filters,
                      "at most as many filters as the DFT resolves: filter " + std::to_string(m) +
                          " (" + privet::detail::format_value(lo) + " to " +
                          privet::detail::format_value(hi) + " Hz) contains no bin of the " +
                          std::to_string(fft_size) + "-point DFT (bin spacing " +
                          privet::detail::format_value(bin_hz()) + " Hz)");
      }
    }
  }

  /// M, the number of filters.
  [[nodiscard]] std::size_t size() const noexcept { return weights_.size(); }
  /// N, the DFT size.
  [[nodiscard]] std::size_t fft_size() const noexcept { return fft_size_; }
  /// Number of spectrum bins the filterbank reads: N / 2 + 1.
  [[nodiscard]] std::size_t bins() const noexcept { return fft_size_ / 2 + 1; }
  /// The frequency of bin k, k fs / N (k is not range-checked).
  [[nodiscard]] double bin_frequency(std::size_t k) const {
    return static_cast<double>(k) * sample_rate_ / static_cast<double>(fft_size_);
  }
  /// Edge frequency f_i, i = 0..M+1 (f_0 = low_hz, f_{M+1} = high_hz).
  /// Throws invalid_parameter naming `i` for i > M + 1.
  [[nodiscard]] double edge_hz(std::size_t i) const {
    if (i >= edges_.size()) {
      throw_invalid("i", i, "[0, size() + 1] = [0, " + std::to_string(edges_.size() - 1) + "]");
    }
    return edges_[i];
  }
  /// Filter m's lower edge f_m, centre f_{m+1} and upper edge f_{m+2}.
  /// Throws invalid_parameter naming `m` unless m < size().
  ///@{
  [[nodiscard]] double lower_hz(std::size_t m) const { return edges_[check_filter(m)]; }
  [[nodiscard]] double centre_hz(std::size_t m) const { return edges_[check_filter(m) + 1]; }
  [[nodiscard]] double upper_hz(std::size_t m) const { return edges_[check_filter(m) + 2]; }
  ///@}
  /// The first bin with a nonzero weight in filter m. Throws as lower_hz.
  [[nodiscard]] std::size_t first_bin(std::size_t m) const { return first_[check_filter(m)]; }
  /// Weights of bins first_bin(m), first_bin(m) + 1, ... (all > 0 except
  /// possibly none: the triangle is zero only at its edges, which are
  /// excluded). Throws as lower_hz.
  [[nodiscard]] std::span<const double> weights(std::size_t m) const {
    return weights_[check_filter(m)];
  }
  /// w_m(k) for any bin k (0 outside the triangle, k >= bins() included).
  /// Throws as lower_hz.
  [[nodiscard]] double weight(std::size_t m, std::size_t k) const {
    const std::size_t f = first_[check_filter(m)];
    return k >= f && k - f < weights_[m].size() ? weights_[m][k - f] : 0.0;
  }

  /// E_m = sum_k w_m(k) power[k] for every filter; power has bins() entries.
  /// Throws invalid_parameter naming `power.size()` unless it is bins(), or
  /// `energies.size()` unless it is size().
  template <real_number Real>
  void apply(std::span<const Real> power, std::span<Real> energies) const {
    if (power.size() != bins()) throw_invalid("power.size()", power.size(), std::to_string(bins()));
    if (energies.size() != size()) {
      throw_invalid("energies.size()", energies.size(), std::to_string(size()));
    }
    for (std::size_t m = 0; m < size(); ++m) {
      const Real* p = power.data() + first_[m];
      Real e = 0;
      for (std::size_t i = 0; i < weights_[m].size(); ++i)
        e += static_cast<Real>(weights_[m][i]) * p[i];
      energies[m] = e;
    }
  }

 private:
  [[nodiscard]] double bin_hz() const { return sample_rate_ / static_cast<double>(fft_size_); }

  // A filter index is the caller's: checked before m + 1 or m + 2 can pass
  // the end (or wrap) into another filter's edge. The constructor made
  // edges_ M + 2 long and first_, weights_ M long, so m < M is enough.
  [[nodiscard]] std::size_t check_filter(std::size_t m) const {
    if (m >= size()) throw_invalid("m", m, "[0, size()) = [0, " + std::to_string(size()) + ")");
    return m;
  }

  std::size_t fft_size_;
  double sample_rate_;
  std::vector<double> edges_;
  std::vector<std::size_t> first_;
  std::vector<std::vector<double>> weights_;
};

/// The orthonormal DCT-II as a K x M row-major matrix:
/// D[j][m] = sqrt((j == 0 ? 1 : 2) / M) cos(pi j (m + 1/2) / M).
template <real_number Real = double>
std::vector<Real> dct_ii_matrix(std::size_t rows, std::size_t size) {
  if (size < 1) throw_invalid("size", size, ">= 1");
  if (rows < 1 || rows > size) throw_invalid("rows", rows, "1 to size = " + std::to_string(size));
  std::vector<Real> d(rows * size);
  const double m = static_cast<double>(size);
  for (std::size_t j = 0; j < rows; ++j) {
    const double scale = std::sqrt((j == 0 ? 1.0 : 2.0) / m);
    for (std::size_t i = 0; i < size; ++i) {
      d[j * size + i] =
          static_cast<Real>(scale * std::cos(std::numbers::pi * static_cast<double>(j) *
                                             (static_cast<double>(i) + 0.5) / m));
    }
  }
  return d;
}

/// An MFCC extractor for one set of options (Davis & Mermelstein 1980, with
/// the HTK mel scale; the steps are the file comment's). Construction
/// validates the options and precomputes the window, filterbank, DCT and FFT
/// plan; the call operator is const and allocates its scratch per call, so
/// one extractor may serve several threads. A signal of n samples costs
/// O(n / shift (N log N + bins + M K)) for frames of N-point DFTs.
///
/// With an explicit fft_size whose half has a prime factor above 5 (e.g.
/// 14 or 22), KISS FFT's generic butterfly writes a scratch buffer inside
/// the plan, so each call then works on its own copy of the plan (O(N)
/// more per call, nothing per frame); the default power-of-two size shares
/// one plan.
///
/// @tparam Real the sample and coefficient type.
template <real_number Real = float>
class mfcc {
 public:
  /// An extractor for `options`.
  /// @throws invalid_parameter naming the first refused option:
  ///   `sample_rate`, `frame_length_ms`, `frame_shift_ms` or `log_floor`
  ///   unless finite and > 0; `pre_emphasis` outside [0, 1); `filters`
  ///   outside [1, 4096]; `coefficients` outside [1, filters]; `low_hz`
  ///   negative; `high_hz` outside [0, sample_rate / 2]; `fft_size` odd,
  ///   above 2^24 or below the frame length (0 picks a power of two);
  ///   `frame_length_ms` for a window outside 2 to 2^24 samples;
  ///   `frame_shift_ms` for a shift below one sample; and the filterbank's
  ///   refusals (mel_filterbank), `filters` when a filter holds no bin.
  explicit mfcc(const mfcc_options& options = {})
      : options_(validated(options)),
        length_(static_cast<std::size_t>(
            std::llround(options_.sample_rate * options_.frame_length_ms / 1000))),
        shift_(options_.sample_rate * options_.frame_shift_ms / 1000),
        fft_size_(options_.fft_size != 0 ? options_.fft_size : next_power_of_two(length_)),
        bank_(options_.filters, fft_size_, options_.sample_rate, options_.low_hz,
              options_.high_hz == 0 ? options_.sample_rate / 2 : options_.high_hz),
        dct_(dct_ii_matrix<Real>(options_.coefficients, options_.filters)),
        fft_(fft_size_ / 2, false) {
    window_.resize(length_);
    for (std::size_t i = 0; i < length_; ++i) {
      window_[i] =
          static_cast<Real>(0.54 - 0.46 * std::cos(2 * std::numbers::pi * static_cast<double>(i) /
                                                   static_cast<double>(length_ - 1)));
    }
  }

  /// The options it was built with (high_hz and fft_size as given, 0
  /// included).
  [[nodiscard]] const mfcc_options& options() const noexcept { return options_; }
  /// The mel filterbank of step 5.
  [[nodiscard]] const mel_filterbank& filterbank() const noexcept { return bank_; }
  /// The L Hamming window weights of step 3.
  [[nodiscard]] std::span<const Real> window() const noexcept { return window_; }
  /// K x M orthonormal DCT-II, row-major.
  [[nodiscard]] std::span<const Real> dct() const noexcept { return dct_; }
  /// L, the frame length in samples.
  [[nodiscard]] std::size_t frame_length() const noexcept { return length_; }
  /// N, the DFT size.
  [[nodiscard]] std::size_t fft_size() const noexcept { return fft_size_; }
  /// K, the coefficients per frame.
  [[nodiscard]] std::size_t coefficients() const noexcept { return options_.coefficients; }
  /// The first sample of frame t: round(t * fs * frame_shift_ms / 1000).
  [[nodiscard]] std::size_t frame_start(std::size_t t) const {
    return static_cast<std::size_t>(std::llround(static_cast<double>(t) * shift_));
  }
  /// Number of whole frames in `samples` samples.
  [[nodiscard]] std::size_t frame_count(std::size_t samples) const {
    if (samples < length_) return 0;
    auto t = static_cast<std::size_t>(static_cast<double>(samples - length_) / shift_) + 1;
    while (frame_start(t) + length_ <= samples) ++t;
    while (t > 0 && frame_start(t - 1) + length_ > samples) --t;
    return t;
  }

  /// The MFCC sequence of `samples` (scaled like [-1, 1) audio for the
  /// default log floor): frame_count(samples.size()) x coefficients (no
  /// rows for a signal shorter than one frame). Throws invalid_parameter
  /// naming `samples[i]` for the first non-finite sample.
  [[nodiscard]] xt::xtensor<Real, 2> operator()(std::span<const Real> samples) const {
    return compute(samples, true);
  }

  /// The log mel energies l_m (step 6, before the DCT): frame_count x
  /// filters. Mean normalisation does not apply to them. Throws as
  /// operator() does.
  [[nodiscard]] xt::xtensor<Real, 2> log_mel(std::span<const Real> samples) const {
    return compute(samples, false);
  }

 private:
  // A NaN or infinite sample would turn every frame that uses it into NaN
  // coefficients, so it is refused, naming its index. For float and double
  // the scan ORs a test of the exponent bits (all ones only for inf and
  // NaN): integer work with no dependency between samples, which compilers
  // vectorise; the index is searched for only when something is wrong.
  static void check_finite(std::span<const Real> samples) {
    bool bad = false;
    if constexpr (std::is_same_v<Real, float> || std::is_same_v<Real, double>) {
      using bits = std::conditional_t<std::is_same_v<Real, float>, std::uint32_t, std::uint64_t>;
      constexpr auto exponent =
          static_cast<bits>(std::is_same_v<Real, float> ? 0x7f800000ull : 0x7ff0000000000000ull);
      for (const Real x : samples) bad |= (std::bit_cast<bits>(x) & exponent) == exponent;
    } else {
      for (const Real x : samples) bad |= !std::isfinite(x);
    }
    if (!bad) return;
    for (std::size_t i = 0; i < samples.size(); ++i) {
      if (!std::isfinite(samples[i]))
        throw_invalid("samples[" + std::to_string(i) + "]", samples[i], "a finite number");
    }
  }

  xt::xtensor<Real, 2> compute(std::span<const Real> samples, bool cepstra) const {
    check_finite(samples);
    const std::size_t frames = frame_count(samples.size());
    const std::size_t m_count = options_.filters;
    const std::size_t k_out = cepstra ? options_.coefficients : m_count;
    xt::xtensor<Real, 2> out = xt::zeros<Real>({frames, k_out});
    if (frames == 0) return out;
    // Pre-emphasis over the samples the frames use.
    const std::size_t used = frame_start(frames - 1) + length_;
    std::vector<Real> y(used);
    const Real a = static_cast<Real>(options_.pre_emphasis);
    y[0] = samples[0];
    for (std::size_t i = 1; i < used; ++i) y[i] = samples[i] - a * samples[i - 1];

    // A plan with a generic butterfly keeps scratch inside it: this call's
    // own copy, so that concurrent calls do not share it.
    std::optional<kissfft<Real>> own;
    if (generic_butterfly_) own.emplace(fft_);
    const kissfft<Real>& plan = own ? *own : fft_;
    std::vector<Real> buf(fft_size_, Real(0));
    std::vector<std::complex<Real>> spec(fft_size_ / 2);
    std::vector<Real> power(bank_.bins()), logs(m_count);
    const Real floor = static_cast<Real>(options_.log_floor);
    const std::size_t half = fft_size_ / 2;
    for (std::size_t t = 0; t < frames; ++t) {
      const Real* x = y.data() + frame_start(t);
      for (std::size_t i = 0; i < length_; ++i) buf[i] = x[i] * window_[i];
      // KISS FFT's transform_real: an N-point real DFT through an N/2-point
      // complex one; spec[0] packs X[0] (real part) and X[N/2] (imaginary).
      plan.transform_real(buf.data(), spec.data());
      power[0] = spec[0].real() * spec[0].real();
      power[half] = spec[0].imag() * spec[0].imag();
      for (std::size_t k = 1; k < half; ++k) power[k] = std::norm(spec[k]);
      bank_.apply<Real>(power, logs);
      for (auto& e : logs) e = std::log(std::max(e, floor));
      if (!cepstra) {
        for (std::size_t m = 0; m < m_count; ++m) out(t, m) = logs[m];
        continue;
      }
      for (std::size_t j = 0; j < k_out; ++j) {
        const Real* d = dct_.data() + j * m_count;
        Real c = 0;
        for (std::size_t m = 0; m < m_count; ++m) c += d[m] * logs[m];
        out(t, j) = c;
      }
    }
    if (cepstra && options_.mean_normalisation) {
      for (std::size_t j = 0; j < k_out; ++j) {
        double mean = 0;
        for (std::size_t t = 0; t < frames; ++t) mean += static_cast<double>(out(t, j));
        mean /= static_cast<double>(frames);
        for (std::size_t t = 0; t < frames; ++t) out(t, j) -= static_cast<Real>(mean);
      }
    }
    return out;
  }

  // KISS FFT factors its size into 4, 2, 3 and 5 and runs any other prime
  // factor through its generic butterfly.
  static bool has_factor_above_5(std::size_t n) {
    for (const std::size_t f : {2u, 3u, 5u}) {
      while (n % f == 0) n /= f;
    }
    return n > 1;
  }

  static std::size_t next_power_of_two(std::size_t n) {
    std::size_t p = 2;
    while (p < n) p *= 2;
    return p;
  }

  static const mfcc_options& validated(const mfcc_options& o) {
    validate_positive(o.sample_rate, "sample_rate");
    validate_positive(o.frame_length_ms, "frame_length_ms");
    validate_positive(o.frame_shift_ms, "frame_shift_ms");
    if (!(o.pre_emphasis >= 0 && o.pre_emphasis < 1)) {
      throw_invalid("pre_emphasis", o.pre_emphasis, "[0, 1)");
    }
    if (o.filters < 1 || o.filters > 4096) throw_invalid("filters", o.filters, "1 to 4096");
    if (o.coefficients < 1 || o.coefficients > o.filters) {
      throw_invalid("coefficients", o.coefficients, "1 to filters = " + std::to_string(o.filters));
    }
    validate_non_negative(o.low_hz, "low_hz");
    if (o.high_hz != 0) validate_closed_range(o.high_hz, 0.0, o.sample_rate / 2, "high_hz");
    if (o.fft_size != 0 && (o.fft_size % 2 != 0 || o.fft_size > (std::size_t{1} << 24))) {
      throw_invalid("fft_size", o.fft_size, "0 (automatic) or even, up to 2^24");
    }
    validate_positive(o.log_floor, "log_floor");
    // The derived sizes, before anything is allocated from them.
    const double length = o.sample_rate * o.frame_length_ms / 1000;
    if (!(length >= 1.5 && length < 16777216.5)) {
      throw_invalid("frame_length_ms", o.frame_length_ms,
                    "a window of 2 to 2^24 samples at sample_rate = " +
                        privet::detail::format_value(o.sample_rate));
    }
    if (!(o.sample_rate * o.frame_shift_ms / 1000 >= 1)) {
      throw_invalid("frame_shift_ms", o.frame_shift_ms,
                    "a shift of at least one sample at sample_rate = " +
                        privet::detail::format_value(o.sample_rate));
    }
    if (o.fft_size != 0 && o.fft_size < static_cast<std::size_t>(std::llround(length))) {
      throw_invalid(
          "fft_size", o.fft_size,
          "0 or >= the frame length of " + std::to_string(std::llround(length)) + " samples");
    }
    return o;
  }

  mfcc_options options_;
  std::size_t length_;
  double shift_;
  std::size_t fft_size_;
  mel_filterbank bank_;
  std::vector<Real> dct_;
  std::vector<Real> window_;
  kissfft<Real> fft_;
  bool generic_butterfly_ = has_factor_above_5(fft_size_ / 2);
};

}  // namespace privet::ml
