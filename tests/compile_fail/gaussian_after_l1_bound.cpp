// expect: this mechanism needs an L2 sensitivity bound
// A Gaussian mechanism after a sum whose rows are clipped in L1 only: the
// pipeline must not compile. With PRIVET_COMPILE_FAIL_FIXED the rows are
// clipped in L2 and it compiles.
#include <privet/core/pipeline.hpp>
#include <privet/core/transformations/clipped_sum.hpp>
#include <privet/mechanisms/gaussian.hpp>

#ifdef PRIVET_COMPILE_FAIL_FIXED
using norm = privet::l2_distance;
#else
using norm = privet::l1_distance;
#endif

int main() {
  auto pipeline =
      privet::clipped_sum<norm>(4, 1.0) | privet::gaussian_mechanism<>::from_scale(2.0, 4);
  return pipeline.guarantee(1).rho() > 0 ? 0 : 1;
}
