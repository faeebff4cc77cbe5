// privet/privet.hpp — every part of privet that needs no optional dependency.
#pragma once

#include <privet/accounting/accounting.hpp>
#include <privet/algorithms/algorithms.hpp>
#include <privet/core/core.hpp>
#include <privet/fwd.hpp>
#include <privet/mechanisms/mechanisms.hpp>
#include <privet/ml/ml.hpp>
#include <privet/sketches/sketches.hpp>
#include <privet/version.hpp>
