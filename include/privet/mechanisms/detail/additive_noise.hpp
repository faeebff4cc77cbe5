// privet/mechanisms/detail/additive_noise.hpp — what every additive-noise
// mechanism shares: scalar and vector application, the data rule for a
// vector of the wrong length, and the release-generator check. The derived
// mechanism supplies `perturb(x, gen)` for one coordinate (any value of Real:
// it maps NaN and infinities itself, see mechanisms/detail/grid.hpp) and
// `dimension()`.
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
#include <privet/core/pipeline_step.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/noise.hpp>

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <ranges>
#include <span>
#include <string>
#include <vector>

namespace privet::detail {

template <class Derived, class Real>
class additive_noise : public pipeline_step {
 public:
  /// x + noise, for a mechanism of dimension 1.
  template <random_bit_source G>
  Real operator()(Real x, G& gen) const {
    require_release_generator<G>();
    if (self().dimension() != 1) {
      throw_invalid("dimension", self().dimension(),
                    "1 for a scalar input (pass a vector of that size)");
    }
    return checked(x, gen);
  }

  /// Independent noise on each of the `dimension` coordinates. The input's
  /// length is data (a vector built from records may come out short or
  /// long), so it never throws: a longer input is cut to its first
  /// `dimension` entries and a shorter one padded with zeros, a map of the
  /// input alone, applied before the noise (see docs/data_rule.md). Inputs
  /// that a transformation such as clipped_sum built always have the
  /// declared length.
  template <std::ranges::input_range R, random_bit_source G>
  requires std::convertible_to<std::ranges::range_value_t<R>, Real> std::vector<Real>
  operator()(const R& xs, G& gen) const {
    require_release_generator<G>();
    const std::size_t d = self().dimension();
    std::vector<Real> out;
    out.reserve(d);
    for (const auto& x : xs) {
      if (out.size() == d) break;
      out.push_back(checked(static_cast<Real>(x), gen));
    }
    while (out.size() < d) out.push_back(checked(Real(0), gen));
    return out;
  }

  /// Coordinates per block (and per keyed stream) of the parallel operator().
  static constexpr std::size_t noise_block = 4096;

  /// Independent noise on each coordinate, drawn on options.threads threads
  /// from keyed streams under a secret drawn from gen (see the file
  /// comment). An input of the wrong length is cut or zero-padded to
  /// `dimension` as in the one-thread operator(); invalid_parameter for
  /// options.threads above max_parallel_threads.
  template <random_bit_source G>
  std::vector<Real> operator()(std::span<const Real> xs, G& gen,
                               const parallel_options& options) const {
    require_release_generator<G>();
    validate_parallel_options(options);
    const std::size_t d = self().dimension();
    const auto streams = streams_from(gen);
    std::vector<Real> out(d);
    const std::size_t blocks = (d + noise_block - 1) / noise_block;
    parallel_for_index(blocks, options, [&](std::size_t k) {
      auto stream = streams.stream(k);
      const std::size_t end = std::min(d, (k + 1) * noise_block);
      for (std::size_t i = k * noise_block; i < end; ++i) {
        out[i] = self().perturb(i < xs.size() ? xs[i] : Real(0), stream);
      }
    });
    return out;
  }

 private:
  const Derived& self() const { return static_cast<const Derived&>(*this); }

  // secure_noise releases; simulation_only_noise says in its name that it
  // does not, and takes any generator.
  template <class G>
  static constexpr void require_release_generator() {
    if constexpr (!std::same_as<typename Derived::noise_type, simulation_only_noise>) {
      PRIVET_REQUIRE_SECURE_GENERATOR(G);
    }
  }

  template <class G>
  Real checked(Real x, G& gen) const {
    return self().perturb(x, gen);
  }
};

}  // namespace privet::detail
