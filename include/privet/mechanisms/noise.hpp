// privet/mechanisms/noise.hpp — noise policies for the real-valued mechanisms.
//
// secure_noise (the default) follows Mironov (2012, "On significance of the
// least significant bits for differential privacy") and the fix used by
// Google's and OpenDP's libraries: the input is rounded to a power-of-two
// grid g chosen from the noise scale, and an exact integer sample (Canonne,
// Kamath & Steinke 2020) times g is added, so every output lies on the grid
// and the output's set of possible values does not depend on the input. The
// rounding can move neighbouring inputs one grid step further apart; the
// mechanisms' privacy maps add that step, so the reported guarantee covers it.
//
// simulation_only_noise uses textbook floating-point sampling: fast, but its
// low bits reveal the input, so it is for simulations and benchmarks only.
#pragma once

#include <cmath>
#include <concepts>

namespace privet {

/// Release-grade noise: exact integer samplers on a power-of-two grid.
struct secure_noise {};

/// Floating-point inverse-CDF noise. Not for release: the low-order bits of
/// its outputs leak the input (Mironov 2012).
struct simulation_only_noise {};

template <class N>
concept noise_policy = std::same_as<N, secure_noise> || std::same_as<N, simulation_only_noise>;

namespace detail {
/// The power of two g with scale / g in [2^bits, 2^(bits+1)).
inline double grid_for(double scale, int bits) {
  return std::ldexp(1.0, std::ilogb(scale) - bits);
}
}  // namespace detail

}  // namespace privet
