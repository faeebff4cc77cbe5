// privet/mechanisms/detail/additive_noise.hpp — what every additive-noise
// mechanism shares: scalar and vector application with the dimension check,
// and input validation. The derived mechanism supplies `perturb(x, gen)` for
// one finite coordinate and `dimension()`.
//
// Parallel vectors: a long vector's noise can be drawn on several threads
// (`operator()(xs, gen, parallel_options)`). The coordinates are cut into
// blocks of `noise_block` and block k draws from stream k of keyed streams
// whose secret comes from gen (core/parallel.hpp), so the noise is a
// function of gen's state alone, whatever the thread count; it is not the
// sequence the one-thread operator() draws from gen directly. With a CSPRNG
// as gen the streams are ChaCha20 under BLAKE2b-derived keys, so the noise
// stays release grade.
#pragma once

#include <privet/core/concepts.hpp>
#include <privet/core/parallel.hpp>
#include <privet/core/validate.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <ranges>
#include <span>
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

  /// Coordinates per block (and per keyed stream) of the parallel operator().
  static constexpr std::size_t noise_block = 4096;

  /// Independent noise on each coordinate, drawn on options.threads threads
  /// from keyed streams under a secret drawn from gen (see the file
  /// comment). Every input is checked before any noise is drawn. Same
  /// errors as the one-thread operator(), and invalid_parameter for
  /// options.threads above max_parallel_threads.
  template <random_bit_source G>
  std::vector<Real> operator()(std::span<const Real> xs, G& gen,
                               const parallel_options& options) const {
    validate_parallel_options(options);
    if (xs.size() != self().dimension()) {
      throw_invalid("input size", xs.size(),
                    "== dimension = " + std::to_string(self().dimension()));
    }
    for (const Real x : xs) {
      if (!std::isfinite(static_cast<double>(x))) {
        throw_invalid("x", static_cast<double>(x), "a finite number");
      }
    }
    const keyed_streams streams = streams_from(gen);
    std::vector<Real> out(xs.size());
    const std::size_t blocks = (xs.size() + noise_block - 1) / noise_block;
    parallel_for_index(blocks, options, [&](std::size_t k) {
      auto stream = streams.stream(k);
      const std::size_t end = std::min(xs.size(), (k + 1) * noise_block);
      for (std::size_t i = k * noise_block; i < end; ++i) out[i] = self().perturb(xs[i], stream);
    });
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
