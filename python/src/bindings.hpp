// python/src/bindings.hpp — what each translation unit of the extension
// module privet._privet registers. One file per submodule so that they
// compile in parallel; module.cpp calls them in order.
#pragma once

#include <pybind11/pybind11.h>

namespace privet::python {

/// privet's exceptions as Python classes (privet.Error and its subclasses),
/// with the C++ message unchanged. Registered first: the other submodules'
/// functions rely on the translators.
void bind_errors(pybind11::module_& m);

/// privet.accounting: privacy events, the RDP / PLD / PRV accountants, the
/// odometer and noise calibration (accounting.cpp).
void bind_accounting(pybind11::module_& m);

/// privet.mechanisms: the Laplace, Gaussian, discrete Laplace and discrete
/// Gaussian mechanisms (constant-time noise by default, the exact samplers
/// by name) and their guarantees (PureDp, ApproxDp, Zcdp, PureDpWithinTv,
/// ZcdpWithinTv). After bind_accounting, whose accountants take the
/// within-TV classes bound here.
void bind_mechanisms(pybind11::module_& m);

/// privet.testing: the mechanisms driven by a seeded generator, for tests
/// only. After bind_mechanisms.
void bind_testing(pybind11::module_& m);

/// privet.paillier (keys, ciphertexts, encrypted reals, batches, JSON).
void bind_paillier(pybind11::module_& m);

}  // namespace privet::python
