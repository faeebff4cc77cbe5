// privet/algorithms/algorithms.hpp — every published system built on privet.
#pragma once

#include <privet/algorithms/dpne.hpp>
#include <privet/algorithms/dpsu.hpp>
#include <privet/algorithms/federated_dpsgd.hpp>
#include <privet/algorithms/ldp_triehh.hpp>
#include <privet/algorithms/pageview_histogram.hpp>
#include <privet/algorithms/release_utility.hpp>
#include <privet/algorithms/triehh_constant_time.hpp>
