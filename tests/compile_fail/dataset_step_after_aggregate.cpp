// expect: this step expects a dataset
// Contribution bounding after a count: a dataset transformation cannot
// follow an aggregate. With PRIVET_COMPILE_FAIL_FIXED the order is right.
#include <privet/core/pipeline.hpp>
#include <privet/core/transformations/clamp.hpp>
#include <privet/core/transformations/count.hpp>

int main() {
#ifdef PRIVET_COMPILE_FAIL_FIXED
  auto t = privet::clamp(0.0, 1.0) | privet::count{};
#else
  auto t = privet::count{} | privet::clamp(0.0, 1.0);
#endif
  return t.stability(1) > 0 ? 0 : 1;
}
