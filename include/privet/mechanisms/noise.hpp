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
// Every finite input of the value type is accepted with the same exactness
// (mechanisms/detail/grid.hpp): the release is a fixed function of the exact
// integer round(x / g) + noise, rounded back to the value type and
// saturated at its largest finite magnitude, so huge inputs come back
// unchanged or saturated, never as an exception. Non-finite inputs are data
// too and never throw: +-inf is read as the type's max / lowest and NaN,
// which is no point of the input space, as 0, before the noise is added.
//
// simulation_only_noise uses textbook floating-point sampling: fast, but its
// low bits reveal the input, so it is for simulations and benchmarks only.
#pragma once

#include <concepts>

namespace privet {

/// Release-grade noise: exact integer samplers on a power-of-two grid.
struct secure_noise {};

/// Floating-point inverse-CDF noise. Not for release: the low-order bits of
/// its outputs leak the input (Mironov 2012).
struct simulation_only_noise {};

template <class N>
concept noise_policy = std::same_as<N, secure_noise> || std::same_as<N, simulation_only_noise>;

}  // namespace privet
