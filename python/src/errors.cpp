// python/src/errors.cpp — privet's exception hierarchy as Python classes.
// Every privet error is a ValueError (bad parameters and malformed input are
// value problems in Python's vocabulary), so code written against
// dp_accounting or python-paillier that catches ValueError keeps working;
// the C++ message arrives unchanged.
#include <pybind11/pybind11.h>

#include <privet/core/error.hpp>

#include "bindings.hpp"

namespace py = pybind11;

void privet::python::bind_errors(py::module_& m) {
  // pybind11 tries translators last-registered first, and each catches its
  // type by reference: register the base first so that subclasses win.
  auto base = py::register_exception<privet::error>(m, "Error", PyExc_ValueError);
  base.doc() = "Base of every exception privet raises (a ValueError).";
  py::register_exception<privet::invalid_parameter>(m, "InvalidParameter", base).doc() =
      "A parameter is outside its allowed range; the message names it, its value and the range.";
  py::register_exception<privet::budget_exhausted>(m, "BudgetExhausted", base).doc() =
      "A privacy budget (an odometer's or a filter's) would be exceeded.";
  py::register_exception<privet::overflow_error>(m, "RepresentationOverflow", base).doc() =
      "A value does not fit its representation (a count, a fixed-point encoding, a Paillier "
      "plaintext); privet never wraps.";
  py::register_exception<privet::serialization_error>(m, "SerializationError", base).doc() =
      "Serialised data (a key, a ciphertext, JSON) is malformed.";
  py::register_exception<privet::protocol_error>(m, "ProtocolError", base).doc() =
      "A protocol party received a message it must not accept.";
}
