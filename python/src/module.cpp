// python/src/module.cpp — the extension module privet._privet. The package
// privet (python/privet) re-exports its submodules under Pythonic names.
#include <pybind11/pybind11.h>

#include <privet/version.hpp>

#include "bindings.hpp"

PYBIND11_MODULE(_privet, m) {
  m.doc() = "privet's C++ core (header-only, compiled into this module); import privet instead";
  m.attr("__version__") = privet::version_string;
  privet::python::bind_errors(m);
  privet::python::bind_paillier(m);
}
