// privet/mechanisms/noise.hpp — noise policies for the real-valued mechanisms.
//
// Every release-grade policy follows Mironov (2012, "On significance of the
// least significant bits for differential privacy") and the fix used by
// Google's and OpenDP's libraries: the input is rounded to a power-of-two
// grid g chosen from the noise scale, and an integer noise sample times g is
// added, so every output lies on the grid and the output's set of possible
// values does not depend on the input. The rounding can move neighbouring
// inputs one grid step further apart; the mechanisms' privacy maps add that
// step, so the reported guarantee covers it.
//
// Every finite input of the value type is accepted with the same exactness
// (mechanisms/detail/grid.hpp): the release is a fixed function of the exact
// integer round(x / g) + noise, rounded back to the value type and
// saturated at its largest finite magnitude, so huge inputs come back
// unchanged or saturated, never as an exception. Non-finite inputs are data
// too and never throw: +-inf is read as the type's max / lowest and NaN,
// which is no point of the input space, as 0, before the noise is added.
//
// constant_time_noise (the default of every mechanism and algorithm) draws
// the integer noise with samplers whose work does not depend on the noise
// they return (mechanisms/constant_time_noise.hpp): the same CSPRNG words,
// loop trip counts and branches for every sample, so timing a release
// reveals nothing about its noise (Jin, McMurtry, Rubinstein & Ohrimenko
// 2022, "Are We There Yet? Timing and Floating-Point Attacks on Differential
// Privacy Systems", IEEE S&P). Such a sampler cannot be exact for these
// laws; it is within total variation below 2^-100 of the exact law per
// coordinate, so the mechanisms report their guarantee as within_tv<G>
// (core/guarantee.hpp) of the exact mechanism's G, which the accounting
// layer turns into delta: (eps, (1 + e^eps) tau) for a pure-DP base.
//
// secure_noise draws the same grid noise from the exact samplers of Canonne,
// Kamath & Steinke (2020): the stated law exactly and a plain G (pure_dp,
// zcdp), but variable time, which is what Jin et al. attack: a draw that
// stops early shows the noise is small (a zero in about 25 % of discrete
// Laplace draws at scale 1). Choose it where nobody can time a release
// (simulations, offline audits, a trusted batch job whose timing is not
// observable) or where a guarantee without a total variation term is
// required; docs/security_model.md states the trade.
//
// simulation_only_noise uses textbook floating-point sampling: fast, but its
// low bits reveal the input, so it is for simulations and benchmarks only.
#pragma once

#include <concepts>

namespace privet {

/// Exact integer samplers on the power-of-two grid: the exact law and a
/// guarantee without a total variation term, but a sampling time that
/// depends on the noise (see the file comment for when to choose it).
struct secure_noise {};

/// The default: secure_noise's grid with samplers whose time does not depend
/// on the noise; guarantees are within_tv of secure_noise's.
struct constant_time_noise {};

/// Floating-point inverse-CDF noise. Not for release: the low-order bits of
/// its outputs leak the input (Mironov 2012).
struct simulation_only_noise {};

template <class N>
concept noise_policy = std::same_as<N, secure_noise> || std::same_as<N, simulation_only_noise>;

/// The policies the additive-noise mechanisms (laplace_mechanism,
/// gaussian_mechanism and the integer mechanisms) take: noise_policy and
/// constant_time_noise. DP-SGD (ml/dpsgd.hpp) takes them too: its odometer
/// records each step's total variation. So do DPSU and DPNE
/// (algorithms/dpsu.hpp, algorithms/dpne.hpp): their guarantees add the
/// samplers' total variation for a fixed bound of 2^64 noised items.
template <class N>
concept mechanism_noise_policy = noise_policy<N> || std::same_as<N, constant_time_noise>;

/// The policies that release on the power-of-two grid with exact integer
/// arithmetic (secure_noise and constant_time_noise).
template <class N>
concept grid_noise = std::same_as<N, secure_noise> || std::same_as<N, constant_time_noise>;

}  // namespace privet
