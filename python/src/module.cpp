// python/src/module.cpp — the extension module privet._privet. The package
// privet (python/privet) re-exports its submodules under Pythonic names.
#include <pybind11/pybind11.h>

#include <privet/version.hpp>

#include "bindings.hpp"

PYBIND11_MODULE(_privet, m) {
  m.doc() = "privet's C++ core (header-only, compiled into this module); import privet instead";
  m.attr("__version__") = privet::version_string;
  privet::python::bind_errors(m);
  privet::python::bind_accounting(m);
  // After bind_accounting when both are present: accounting registers
  // privet::pure_dp, approx_dp and zcdp as its event classes without checking
  // whether they are bound already; bind_mechanisms checks and reuses them.
  auto mechanisms = m.def_submodule(
      "mechanisms",
      "Laplace, Gaussian, discrete Laplace and discrete Gaussian noise from the OS CSPRNG, "
      "constant-time by default (guarantees within a total variation), exact with "
      "noise=\"secure\"");
  privet::python::bind_mechanisms(mechanisms);
  auto testing = m.def_submodule(
      "testing", "The mechanisms driven by a seeded generator: for tests, never for releases");
  privet::python::bind_testing(testing);
  privet::python::bind_paillier(m);
}
