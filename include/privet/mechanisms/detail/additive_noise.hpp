// privet/mechanisms/detail/additive_noise.hpp — what every additive-noise
// mechanism shares: scalar and vector application with the dimension check,
// and input validation. The derived mechanism supplies `perturb(x, gen)` for
// one finite coordinate and `dimension()`.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/validate.hpp>

#include <cmath>
#include <ranges>
#include <string>
#include <vector>

namespace privet::detail {

template <class Derived, class Real>
class additive_noise {
 public:
  /// x + noise, for a mechanism of dimension 1.
  template <random_bit_source G>
  Real operator()(Real x, G& gen) const {
    if (self().dimension() != 1) {
      throw_invalid("dimension", self().dimension(),
                    "1 for a scalar input (pass a vector of that size)");
    }
    return checked(x, gen);
  }

  /// Independent noise on each coordinate; the input must have `dimension` entries.
  template <std::ranges::input_range R, random_bit_source G>
  requires std::convertible_to<std::ranges::range_value_t<R>, Real> std::vector<Real>
  operator()(const R& xs, G& gen) const {
    std::vector<Real> out;
    for (const auto& x : xs) out.push_back(checked(static_cast<Real>(x), gen));
    if (out.size() != self().dimension()) {
      throw_invalid("input size", out.size(),
                    "== dimension = " + std::to_string(self().dimension()));
    }
    return out;
  }

 private:
  const Derived& self() const { return static_cast<const Derived&>(*this); }

  template <class G>
  Real checked(Real x, G& gen) const {
    if (!std::isfinite(static_cast<double>(x))) {
      throw_invalid("x", static_cast<double>(x), "a finite number");
    }
    return self().perturb(x, gen);
  }
};

}  // namespace privet::detail
