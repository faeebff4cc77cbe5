// The ML layer's matrix product: the BLAS path (when built with privet::blas)
// and the loop fallback agree with a naive triple loop for every transpose
// combination, with strided blocks and with beta != 0.
#include <privet/ml/detail/linalg.hpp>

#include <doctest/doctest.h>

#include <random>
#include <vector>

namespace {
using privet::ml::detail::block;
using privet::ml::detail::const_block;

template <class Real>
Real entry(const std::vector<Real>& v, std::size_t ld, bool trans, std::size_t i, std::size_t j) {
  return trans ? v[j * ld + i] : v[i * ld + j];
}
}  // namespace

TEST_CASE_TEMPLATE("gemm and gemm_reference match the definition", Real, float, double,
                   long double) {
  std::mt19937 gen(3);
  std::uniform_real_distribution<double> u(-1, 1);
  const std::size_t m = 7, n = 5, k = 9;
  for (int ta = 0; ta < 2; ++ta) {
    for (int tb = 0; tb < 2; ++tb) {
      for (std::size_t pad : {std::size_t{0}, std::size_t{2}}) {
        const std::size_t a_rows = ta ? k : m, a_cols = ta ? m : k;
        const std::size_t b_rows = tb ? n : k, b_cols = tb ? k : n;
        const std::size_t lda = a_cols + pad, ldb = b_cols + pad, ldc = n + pad;
        std::vector<Real> a(a_rows * lda), b(b_rows * ldb), c0(m * ldc);
        for (auto& v : a) v = static_cast<Real>(u(gen));
        for (auto& v : b) v = static_cast<Real>(u(gen));
        for (auto& v : c0) v = static_cast<Real>(u(gen));
        const Real alpha = Real(0.75), beta = Real(-0.5);
        auto c1 = c0, c2 = c0;
        privet::ml::detail::gemm<Real>(ta, tb, alpha,
                                       const_block<Real>{a.data(), a_rows, a_cols, lda},
                                       const_block<Real>{b.data(), b_rows, b_cols, ldb}, beta,
                                       block<Real>{c1.data(), m, n, ldc});
        privet::ml::detail::gemm_reference<Real>(ta, tb, alpha,
                                                 const_block<Real>{a.data(), a_rows, a_cols, lda},
                                                 const_block<Real>{b.data(), b_rows, b_cols, ldb},
                                                 beta, block<Real>{c2.data(), m, n, ldc});
        for (std::size_t i = 0; i < m; ++i) {
          for (std::size_t j = 0; j < n; ++j) {
            long double s = 0;
            for (std::size_t p = 0; p < k; ++p)
              s += static_cast<long double>(entry(a, lda, ta, i, p)) * entry(b, ldb, tb, p, j);
            const long double want = alpha * s + beta * static_cast<long double>(c0[i * ldc + j]);
            const double tol = sizeof(Real) == sizeof(float) ? 1e-5 : 1e-12;
            CHECK(static_cast<double>(c1[i * ldc + j]) ==
                  doctest::Approx(static_cast<double>(want)).epsilon(tol));
            CHECK(static_cast<double>(c2[i * ldc + j]) ==
                  doctest::Approx(static_cast<double>(want)).epsilon(tol));
          }
          // Padding between rows is never written.
          for (std::size_t j = n; j < ldc; ++j) {
            CHECK(c1[i * ldc + j] == c0[i * ldc + j]);
            CHECK(c2[i * ldc + j] == c0[i * ldc + j]);
          }
        }
      }
    }
  }
}

TEST_CASE("gemm reports whether this build multiplies through BLAS") {
#if defined(PRIVET_HAS_BLAS)
  CHECK(privet::ml::detail::gemm_uses_blas<double>);
  CHECK(privet::ml::detail::gemm_uses_blas<float>);
#else
  CHECK_FALSE(privet::ml::detail::gemm_uses_blas<double>);
#endif
  CHECK_FALSE(privet::ml::detail::gemm_uses_blas<long double>);
}
