// privet/core/core.hpp — everything in the core layer.
#pragma once

#include <privet/core/analytic_gaussian.hpp>
#include <privet/core/concepts.hpp>
#include <privet/core/csprng.hpp>
#include <privet/core/error.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/keyed_streams.hpp>
#include <privet/core/metric.hpp>
#include <privet/core/pipeline.hpp>
#include <privet/core/seeded_generator.hpp>
#include <privet/core/transformations/bounded_sum.hpp>
#include <privet/core/transformations/clamp.hpp>
#include <privet/core/transformations/clipped_sum.hpp>
#include <privet/core/transformations/count.hpp>
#include <privet/core/transformations/metric_cast.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/uniform_subset.hpp>
#include <privet/core/validate.hpp>
