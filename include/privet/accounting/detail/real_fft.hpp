// privet/accounting/detail/real_fft.hpp — a real-input FFT of power-of-two
// length n through one complex radix-2 FFT of length n / 2, with a
// componentwise error bound that the PLD's composition relies on.
//
// Why privet's own: the PLD needs a rigorous bound on every transform's
// round-off, and the bound below follows the code line by line (a library's
// mixed-radix kernels, SIMD paths and twiddle recurrences would each need
// their own analysis). It has no dependency and is about twice as fast as
// KISS FFT's complex transform on real data of the same length.
//
// Error bound (componentwise, in the style of Higham, "Accuracy and
// Stability of Numerical Algorithms", 2nd ed., section 24.1, whose Theorem
// 24.2 bounds the 2-norm instead). Let u be the unit roundoff.
//
// Twiddles: w_j = e^{-2 pi i j / n} is computed from cos and sin of an angle
// in [0, pi/4] (the rest of the circle by exact symmetries). The angle
// (2 pi / n) j carries a relative error <= 2.1 u, so an absolute error <=
// 1.7 u, and glibc's cos and sin are within 1 ulp: |w^_j - w_j| <= mu =
// sqrt(2) (1.7 + 1) u < 4 u.
//
// One radix-2 stage computes y = a + w b and y' = a - w b from computed a,
// b. The complex product rounds within sqrt(2) gamma_2 |w^ b| (Higham, Lemma
// 3.5), the sum within u |y|; with |w^| <= 1 + mu the new error is at most
// eta (|a| + |b|), eta = mu + 2 sqrt(2) u + 2 u + O(u^2) < 9 u; privet uses
// eta = 12 u. A value after s stages is a partial DFT over a set A of the
// inputs, so |a| <= ||x_A||_1; the sets of a and b are disjoint, so by
// induction the error after s stages is at most ((1 + eta)^s - 1) ||x_A||_1,
// and every output of an m-point transform is within
// ((1 + eta)^{log2 m} - 1) ||x||_1 of the exact one.
//
// Real forward (n = 2 m): z_j = x_{2j} + i x_{2j+1} (||z||_1 <= ||x||_1),
// Z = DFT_m(z), then E_k = (Z_k + conj Z_{m-k}) / 2, O_k = (Z_k - conj
// Z_{m-k}) / (2i) are the DFTs of the even and odd samples and X_k = E_k +
// w_k O_k. Each of E_k, O_k inherits at most the error bound of Z, the
// combination adds at most 4 eta ||x||_1: every output X_k is within
// forward_error(n) ||x||_1 of the exact DFT, forward_error(n) =
// 2 ((1 + eta)^{log2 m} - 1) + 4 eta.
//
// Real inverse: the exact inverse of a computed spectrum P, x_j = (1/n)
// sum_k P_k w^{-jk}, has no entry larger than ||P||_1 / n (the 1-norm over
// all n frequencies), so an error e in the spectrum moves the outputs by at
// most ||e||_1 in the 1-norm. The computed inverse forms Z_k = E_k + i O_k
// with |Z_k| <= |P_k| + |P_{m-k}| (so ||Z||_1 <= ||P||_1) within 4 eta
// (|P_k| + |P_{m-k}|), transforms it (each output within ((1 + eta)^{log2 m}
// - 1) ||P||_1 (1 + 4 eta)), and scales by 1 / m, which is exact; each pair
// x_{2j}, x_{2j+1} is the real and imaginary part of one output, so
// |e_{2j}| + |e_{2j+1}| <= sqrt(2) |e_j|. The outputs' 1-norm error is at
// most inverse_error(n) ||P||_1, inverse_error(n) = sqrt(2) (1 + 4 eta)
// ((1 + eta)^{log2 m} - 1 + 4 eta).
#pragma once

#include <cmath>
#include <complex>
#include <cstddef>
#include <limits>
#include <numbers>
#include <vector>

namespace privet::detail {

class real_fft {
 public:
  static constexpr double eta = 12 * (std::numeric_limits<double>::epsilon() / 2);

  /// Plans a transform of length n, a power of two >= 8.
  explicit real_fft(std::size_t n) : n_(n), m_(n / 2), w_(n / 2) {
    // w_j for j in [0, n / 8] from the octant, the rest by symmetry.
    const double step = 2 * std::numbers::pi / static_cast<double>(n);
    const std::size_t eighth = n / 8, quarter = n / 4;
    std::vector<double> c(eighth + 1), s(eighth + 1);
    for (std::size_t j = 0; j <= eighth; ++j) {
      const double a = step * static_cast<double>(j);
      c[j] = std::cos(a);
      s[j] = std::sin(a);
    }
    for (std::size_t j = 0; j < m_; ++j) {
      double cj, sj;  // cos and sin of 2 pi j / n
      if (j <= eighth) {
        cj = c[j], sj = s[j];
      } else if (j <= quarter) {
        cj = s[quarter - j], sj = c[quarter - j];
      } else if (j <= quarter + eighth) {
        cj = -s[j - quarter], sj = c[j - quarter];
      } else {
        cj = -c[m_ - j], sj = s[m_ - j];
      }
      w_[j] = {cj, -sj};
    }
    for (std::size_t r = m_; r > 1; r /= 2) ++stages_;
  }

  [[nodiscard]] std::size_t size() const noexcept { return n_; }

  /// e^{-2 pi i j / n} for any j (reduced mod n).
  [[nodiscard]] std::complex<double> twiddle(std::size_t j) const noexcept {
    if (j >= n_) j %= n_;  // callers mostly pass reduced indices: no division
    return j < m_ ? w_[j] : -w_[j - m_];
  }

  /// Error per output of forward(), per unit of ||x||_1.
  [[nodiscard]] double forward_error() const noexcept {
    return 2 * std::expm1(static_cast<double>(stages_) * std::log1p(eta)) + 4 * eta;
  }
  /// 1-norm error of inverse()'s outputs, per unit of the spectrum's 1-norm
  /// over all n frequencies.
  [[nodiscard]] double inverse_error() const noexcept {
    return std::numbers::sqrt2 * (1 + 4 * eta) *
           (std::expm1(static_cast<double>(stages_) * std::log1p(eta)) + 4 * eta);
  }

  /// X_k = sum_j x_j e^{-2 pi i jk / n} for k in [0, n / 2]; x has n values.
  void forward(const double* x, std::complex<double>* out) const {
    std::vector<std::complex<double>> z(m_);
    for (std::size_t j = 0; j < m_; ++j) z[j] = {x[2 * j], x[2 * j + 1]};
    transform(z.data());
    out[0] = {z[0].real() + z[0].imag(), 0};
    out[m_] = {z[0].real() - z[0].imag(), 0};
    for (std::size_t k = 1; k < m_; ++k) {
      const double ar = z[k].real(), ai = z[k].imag();
      const double br = z[m_ - k].real(), bi = -z[m_ - k].imag();  // conj Z_{m-k}
      const double er = 0.5 * (ar + br), ei = 0.5 * (ai + bi);
      // O = (Z - conj Z') / (2i) = ((ai - bi) - i (ar - br)) / 2
      const double orr = 0.5 * (ai - bi), oi = -0.5 * (ar - br);
      const double wr = w_[k].real(), wi = w_[k].imag();
      out[k] = {er + (wr * orr - wi * oi), ei + (wr * oi + wi * orr)};
    }
  }

  /// x_j = (1 / n) sum_k P_k e^{2 pi i jk / n} over all n frequencies, from
  /// P_k for k in [0, n / 2] (the rest is conj P_{n-k}); writes n values.
  void inverse(const std::complex<double>* p, double* x) const {
    std::vector<std::complex<double>> z(m_);
    for (std::size_t k = 0; k < m_; ++k) {
      const double ar = p[k].real(), ai = p[k].imag();
      const double br = p[m_ - k].real(), bi = -p[m_ - k].imag();  // conj P_{m-k}
      const double er = 0.5 * (ar + br), ei = 0.5 * (ai + bi);
      const double dr = 0.5 * (ar - br), di = 0.5 * (ai - bi);
      // O = (P - conj P') conj(w_k) / 2; Z = E + i O. Transformed forwards
      // after conjugation (the inverse DFT is conj DFT conj).
      const double wr = w_[k].real(), wi = -w_[k].imag();
      const double orr = dr * wr - di * wi, oi = dr * wi + di * wr;
      z[k] = {er - oi, -(ei + orr)};
    }
    transform(z.data());
    const double scale = 1 / static_cast<double>(m_);
    for (std::size_t j = 0; j < m_; ++j) {
      x[2 * j] = z[j].real() * scale;
      x[2 * j + 1] = -z[j].imag() * scale;
    }
  }

 private:
  /// In-place forward complex DFT of length m_ (radix 2, decimation in time).
  void transform(std::complex<double>* a) const {
    const std::size_t m = m_;
    for (std::size_t i = 1, j = 0; i < m; ++i) {
      std::size_t bit = m >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
      if (i < j) std::swap(a[i], a[j]);
    }
    auto* d = reinterpret_cast<double*>(a);
    // The stages run in fused pairs (len = 2q, then 4q) for fewer passes over
    // memory; the arithmetic is exactly that of the two radix-2 stages (the
    // second stage's twiddle w_{4q}^{j+q} is -i w_{4q}^j, and the product by
    // -i is exact), so the error bound is unchanged.
    std::size_t len = 2;
    if (stages_ % 2 == 1) {
      for (std::size_t i = 0; i < m; i += 2) {
        double* p = d + 2 * i;
        const double ur = p[0], ui = p[1], vr = p[2], vi = p[3];
        p[0] = ur + vr, p[1] = ui + vi, p[2] = ur - vr, p[3] = ui - vi;
      }
      len = 4;
    }
    for (; len * 2 <= m; len *= 4) {
      const std::size_t q = len / 2;
      const std::size_t s1 = 2 * (m / len), s2 = m / len;  // w_{2q}^j = w_n^{j s1}
      for (std::size_t i = 0; i < m; i += 4 * q) {
        for (std::size_t j = 0; j < q; ++j) {
          const double w1r = w_[j * s1].real(), w1i = w_[j * s1].imag();
          const double w2r = w_[j * s2].real(), w2i = w_[j * s2].imag();
          double* p0 = d + 2 * (i + j);
          double* p1 = p0 + 2 * q;
          double* p2 = p0 + 4 * q;
          double* p3 = p0 + 6 * q;
          // Stage len = 2q: (p0, p1) and (p2, p3) with w1.
          double tr = p1[0] * w1r - p1[1] * w1i, ti = p1[0] * w1i + p1[1] * w1r;
          const double a0r = p0[0] + tr, a0i = p0[1] + ti;
          const double a1r = p0[0] - tr, a1i = p0[1] - ti;
          tr = p3[0] * w1r - p3[1] * w1i, ti = p3[0] * w1i + p3[1] * w1r;
          const double a2r = p2[0] + tr, a2i = p2[1] + ti;
          const double a3r = p2[0] - tr, a3i = p2[1] - ti;
          // Stage len = 4q: (a0, a2) with w2, (a1, a3) with -i w2.
          const double br = a2r * w2r - a2i * w2i, bi = a2r * w2i + a2i * w2r;
          const double cr = a3r * w2i + a3i * w2r, ci = -(a3r * w2r - a3i * w2i);
          p0[0] = a0r + br, p0[1] = a0i + bi;
          p2[0] = a0r - br, p2[1] = a0i - bi;
          p1[0] = a1r + cr, p1[1] = a1i + ci;
          p3[0] = a1r - cr, p3[1] = a1i - ci;
        }
      }
    }
  }

  std::size_t n_, m_;
  std::vector<std::complex<double>> w_;  // w_n^j, j in [0, n / 2)
  std::size_t stages_ = 0;
};

}  // namespace privet::detail
