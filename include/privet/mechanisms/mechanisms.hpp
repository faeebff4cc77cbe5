// privet/mechanisms/mechanisms.hpp — everything in the mechanisms layer.
#pragma once

#include <privet/mechanisms/bernoulli.hpp>
#include <privet/mechanisms/binomial.hpp>
#include <privet/mechanisms/constant_time_binomial.hpp>
#include <privet/mechanisms/constant_time_noise.hpp>
#include <privet/mechanisms/discrete_gaussian.hpp>
#include <privet/mechanisms/discrete_laplace.hpp>
#include <privet/mechanisms/exponential.hpp>
#include <privet/mechanisms/gaussian.hpp>
#include <privet/mechanisms/integer_noise.hpp>
#include <privet/mechanisms/laplace.hpp>
#include <privet/mechanisms/noise.hpp>
#include <privet/mechanisms/partition_selection.hpp>
#include <privet/mechanisms/randomized_response.hpp>
#include <privet/mechanisms/sparse_vector.hpp>
#include <privet/mechanisms/subset_selection.hpp>
#include <privet/mechanisms/tail_threshold.hpp>
