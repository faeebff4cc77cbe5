// privet/core/pipeline_step.hpp — the base every pipeline step derives from.
//
// `a | b` is privet::operator|, and C++ looks an operator up in the
// namespaces associated with its operands' types: a class's own namespace
// and those of its base classes. A step declared in the user's namespace
// that derives from privet::pipeline_step therefore finds privet's `|`
// without `using privet::operator|;`. The transformation and measurement
// concepts (core/pipeline.hpp) require the base, so that every type that
// models them composes with `|` from any namespace.
#pragma once

namespace privet {

/// Empty base class of every transformation and measurement (privet's own
/// and the user's): it makes `privet` an associated namespace of the step,
/// so argument-dependent lookup finds privet's `operator|` for steps
/// declared in any namespace. It adds no data, no behaviour and, by the
/// empty-base optimisation, no size. A step that is an aggregate is
/// initialised with an empty first element for the base: `step{{}, 2.0}`.
struct pipeline_step {};

}  // namespace privet
