// privet/ml/detail/linalg.hpp — the matrix products of the ML layer:
// C = alpha op(A) op(B) + beta C on row-major blocks given by pointer and
// leading dimension, so models multiply slices of their flat parameter
// vector without copying them.
//
// With PRIVET_HAS_BLAS (the optional privet::blas target) float and double
// products go through xtensor-blas's GEMM (xt::blas::gemm on adaptors of the
// blocks, the routine xt::linalg::dot runs on); otherwise, and for other real
// types, through the plain loops of gemm_reference, ordered so that the
// innermost loop runs over contiguous memory.
#pragma once

#include <privet/core/concepts.hpp>

#include <cstddef>
#include <type_traits>

#if defined(PRIVET_HAS_BLAS)
#include <xtensor-blas/xblas.hpp>
#include <xtensor/xadapt.hpp>
#endif

namespace privet::ml::detail {

/// A read-only row-major block: rows x cols with leading dimension ld >= cols.
template <class Real>
struct const_block {
  const Real* data;
  std::size_t rows, cols, ld;
};

/// A writable row-major block.
template <class Real>
struct block {
  Real* data;
  std::size_t rows, cols, ld;
};

/// C = alpha op(A) op(B) + beta C by loops (op = transpose when the flag is
/// set); shapes must agree (checked by the callers, which own the shapes).
template <real_number Real>
void gemm_reference(bool trans_a, bool trans_b, Real alpha, const_block<Real> a,
                    const_block<Real> b, Real beta, block<Real> c) {
  const std::size_t m = c.rows, n = c.cols;
  const std::size_t k = trans_a ? a.rows : a.cols;
  for (std::size_t i = 0; i < m; ++i) {
    Real* ci = c.data + i * c.ld;
    if (beta == Real(0)) {
      for (std::size_t j = 0; j < n; ++j) ci[j] = Real(0);
    } else if (beta != Real(1)) {
      for (std::size_t j = 0; j < n; ++j) ci[j] *= beta;
    }
  }
  if (!trans_a && !trans_b) {
    for (std::size_t i = 0; i < m; ++i) {
      Real* ci = c.data + i * c.ld;
      const Real* ai = a.data + i * a.ld;
      for (std::size_t p = 0; p < k; ++p) {
        const Real s = alpha * ai[p];
        const Real* bp = b.data + p * b.ld;
        for (std::size_t j = 0; j < n; ++j) ci[j] += s * bp[j];
      }
    }
  } else if (!trans_a && trans_b) {
    // Both operands' rows are contiguous: each entry is one dot product.
    for (std::size_t i = 0; i < m; ++i) {
      Real* ci = c.data + i * c.ld;
      const Real* ai = a.data + i * a.ld;
      for (std::size_t j = 0; j < n; ++j) {
        const Real* bj = b.data + j * b.ld;
        Real s = 0;
        for (std::size_t p = 0; p < k; ++p) s += ai[p] * bj[p];
        ci[j] += alpha * s;
      }
    }
  } else if (trans_a && !trans_b) {
    for (std::size_t p = 0; p < k; ++p) {
      const Real* ap = a.data + p * a.ld;
      const Real* bp = b.data + p * b.ld;
      for (std::size_t i = 0; i < m; ++i) {
        const Real s = alpha * ap[i];
        Real* ci = c.data + i * c.ld;
        for (std::size_t j = 0; j < n; ++j) ci[j] += s * bp[j];
      }
    }
  } else {
    for (std::size_t i = 0; i < m; ++i) {
      Real* ci = c.data + i * c.ld;
      for (std::size_t j = 0; j < n; ++j) {
        Real s = 0;
        for (std::size_t p = 0; p < k; ++p) s += a.data[p * a.ld + i] * b.data[j * b.ld + p];
        ci[j] += alpha * s;
      }
    }
  }
}

/// Whether gemm uses BLAS for Real in this build.
template <class Real>
inline constexpr bool gemm_uses_blas =
#if defined(PRIVET_HAS_BLAS)
    std::is_same_v<Real, float> || std::is_same_v<Real, double>;
#else
    false;
#endif

/// C = alpha op(A) op(B) + beta C.
template <real_number Real>
void gemm(bool trans_a, bool trans_b, Real alpha, const_block<Real> a, const_block<Real> b,
          Real beta, block<Real> c) {
  if (c.rows == 0 || c.cols == 0) return;
#if defined(PRIVET_HAS_BLAS)
  if constexpr (gemm_uses_blas<Real>) {
    const std::size_t k = trans_a ? a.rows : a.cols;
    if (k != 0 && a.ld == a.cols && b.ld == b.cols && c.ld == c.cols) {
      // Adaptors over the caller's memory: no copy, and GEMM writes C in place.
      auto av = xt::adapt(a.data, a.rows * a.cols, xt::no_ownership(),
                          std::array<std::size_t, 2>{a.rows, a.cols});
      auto bv = xt::adapt(b.data, b.rows * b.cols, xt::no_ownership(),
                          std::array<std::size_t, 2>{b.rows, b.cols});
      auto cv = xt::adapt(c.data, c.rows * c.cols, xt::no_ownership(),
                          std::array<std::size_t, 2>{c.rows, c.cols});
      xt::blas::gemm(av, bv, cv, trans_a, trans_b, alpha, beta);
      return;
    }
  }
#endif
  gemm_reference(trans_a, trans_b, alpha, a, b, beta, c);
}

}  // namespace privet::ml::detail
