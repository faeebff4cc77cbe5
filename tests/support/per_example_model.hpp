// tests/support/per_example_model.hpp — a model seen only through the
// differentiable_model interface (per-example gradients and losses), so
// that clipping and DP-SGD take their generic paths instead of the model's
// own clipped sum.
#pragma once

#include <xtensor/xtensor.hpp>

#include <cstddef>
#include <span>

namespace privet::test {

template <class Inner>
struct per_example_only {
  using real_type = double;
  using batch_type = typename Inner::batch_type;
  Inner inner;
  std::size_t parameter_count() const { return inner.parameter_count(); }
  std::span<const double> parameters() const { return inner.parameters(); }
  std::span<double> parameters() { return inner.parameters(); }
  xt::xtensor<double, 2> per_example_gradients(const batch_type& b) const {
    return inner.per_example_gradients(b);
  }
  xt::xtensor<double, 1> losses(const batch_type& b) const { return inner.losses(b); }
};

}  // namespace privet::test
