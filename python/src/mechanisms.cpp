// python/src/mechanisms.cpp — privet.mechanisms: the Laplace, Gaussian,
// discrete Laplace and discrete Gaussian mechanisms on scalars, lists and
// NumPy arrays, their guarantees (privet::pure_dp, approx_dp, zcdp and
// within_tv<pure_dp>, within_tv<zcdp> as Python classes), and
// privet.testing, the same mechanisms driven by a seeded generator for
// reproducible tests.
//
// Noise timing: every mechanism holds the C++ mechanism with the C++
// default, constant_time_noise (mechanisms/constant_time_noise.hpp), unless
// the caller names the exact, variable-time samplers with noise="secure"
// (secure_noise). With constant-time noise guarantee() returns the
// within_tv guarantee the C++ privacy map gives (PureDpWithinTv,
// ZcdpWithinTv), with exact noise the plain one (PureDp, Zcdp); a variable-
// time release path exists only where the caller names it.
//
// Noise: the public release path takes no generator; it draws from
// privet::secure_generator() (the calling thread's CSPRNG). An array's noise
// is drawn on every core from keyed streams under a secret drawn from that
// generator (core/parallel.hpp), with the GIL released: the continuous
// mechanisms through their own parallel operator(), the integer ones through
// the same scheme here (blocks of 4096 values, block k from stream k), so
// the noise is a function of the generator's state alone, whatever the
// thread count. privet.testing passes a seeded_release_generator instead and
// keeps the GIL (one generator object may be shared by Python threads).
//
// Data never raises: inputs are converted as the C++ mechanisms read them
// (NaN as 0 and +-inf as the largest finite values for the continuous ones,
// integers saturated at the int64 range for the integer ones); only a value
// of the wrong kind (a string, a complex number, a float given to an integer
// mechanism) is a TypeError, as it would not compile in C++.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <privet/accounting/zcdp.hpp>
#include <privet/core/csprng.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/keyed_streams.hpp>
#include <privet/core/parallel.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/constant_time_noise.hpp>
#include <privet/mechanisms/gaussian.hpp>
#include <privet/mechanisms/integer_noise.hpp>
#include <privet/mechanisms/laplace.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "bindings.hpp"

namespace py = pybind11;

namespace {

using privet::approx_dp;
using privet::pure_dp;
using privet::zcdp;

using privet::within_tv;

// ---- the mechanisms, with the sensitivity their guarantee() reports for ----
// Each holds the C++ mechanism with constant_time_noise (alternative 0, the
// default) or secure_noise (alternative 1, named by noise="secure").

using laplace_var = std::variant<privet::laplace_mechanism<double, privet::constant_time_noise>,
                                 privet::laplace_mechanism<double, privet::secure_noise>>;
using gaussian_var = std::variant<privet::gaussian_mechanism<double, privet::constant_time_noise>,
                                  privet::gaussian_mechanism<double, privet::secure_noise>>;
using discrete_laplace_var =
    std::variant<privet::discrete_laplace_mechanism<std::int64_t, privet::constant_time_noise>,
                 privet::discrete_laplace_mechanism<std::int64_t, privet::secure_noise>>;
using discrete_gaussian_var =
    std::variant<privet::discrete_gaussian_mechanism<std::int64_t, privet::constant_time_noise>,
                 privet::discrete_gaussian_mechanism<std::int64_t, privet::secure_noise>>;

struct laplace_py {
  laplace_var m;
  double l1_sensitivity;
};
struct gaussian_py {
  gaussian_var m;
  double l2_sensitivity;
};
struct discrete_laplace_py {
  discrete_laplace_var m;
  double l1_sensitivity;
};
struct discrete_gaussian_py {
  discrete_gaussian_var m;
  double l2_sensitivity;
};

// The `noise` keyword: which samplers a mechanism draws from.
enum class noise_kind { constant_time, secure };

noise_kind parse_noise(const py::object& noise) {
  if (py::isinstance<py::str>(noise)) {
    const auto s = noise.cast<std::string>();
    if (s == "constant_time") return noise_kind::constant_time;
    if (s == "secure") return noise_kind::secure;
  }
  privet::throw_invalid("noise", std::string(py::repr(noise)),
                        "\"constant_time\" (the default) or \"secure\"");
}

template <class Variant>
const char* noise_name(const Variant& v) {
  return v.index() == 0 ? "constant_time" : "secure";
}

// The mechanism make(type_identity<M>) builds, as the alternative `noise`
// names.
template <class Variant, class Make>
Variant make_mechanism(noise_kind noise, Make&& make) {
  using ct = std::variant_alternative_t<0, Variant>;
  using exact = std::variant_alternative_t<1, Variant>;
  if (noise == noise_kind::secure) {
    return Variant(std::in_place_index<1>, make(std::type_identity<exact>{}));
  }
  return Variant(std::in_place_index<0>, make(std::type_identity<ct>{}));
}

// ", noise='secure'" in a repr for the exact samplers (the default is left out).
template <class Variant>
std::string noise_repr(const Variant& v) {
  return v.index() == 0 ? std::string() : std::string(", noise='secure'");
}

std::size_t checked_dimension(std::int64_t dimension) {
  return static_cast<std::size_t>(
      privet::validate_at_least<std::int64_t>(dimension, 1, "dimension"));
}

// A Python int as a uint64 parameter: the C++ message for a value outside it.
std::uint64_t checked_u64(const py::int_& value, const char* name) {
  const unsigned long long v = PyLong_AsUnsignedLongLong(value.ptr());
  if (v == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();
    privet::throw_invalid(name, std::string(py::repr(value)), "[1, 2^64 - 1]");
  }
  return v;
}

// ---- reading inputs --------------------------------------------------------

bool is_sequence_input(py::handle x) {
  return py::isinstance<py::list>(x) || py::isinstance<py::tuple>(x);
}

// Whether x is released as an array: an ndarray, a list or tuple, or any
// other array-like (a pandas Series, a memoryview: anything NumPy reads
// through __array__, __array_interface__ or the buffer protocol), but not a
// NumPy scalar, which has __array__ too and is released as a scalar.
bool is_array_input(py::handle x) {
  if (py::isinstance<py::array>(x) || is_sequence_input(x)) return true;
  // Leaked on purpose: a static py::object would be released after the
  // interpreter has shut down.
  static const auto* numpy_generic = new py::object(py::module_::import("numpy").attr("generic"));
  if (py::isinstance(x, *numpy_generic) || PyBytes_Check(x.ptr()) || PyUnicode_Check(x.ptr())) {
    return false;
  }
  return py::hasattr(x, "__array__") || py::hasattr(x, "__array_interface__") ||
         PyObject_CheckBuffer(x.ptr()) != 0;
}

[[noreturn]] void wrong_kind(const char* what, py::handle x) {
  throw py::type_error(std::string("privet: ") + what + "; got " +
                       std::string(py::str(py::type::handle_of(x).attr("__name__"))));
}

// A real scalar as the continuous mechanisms read it; an int beyond the
// double range is +-inf, which they read as the largest finite value.
double real_scalar(py::handle x) {
  if (PyComplex_Check(x.ptr()) || PyUnicode_Check(x.ptr()) || PyBytes_Check(x.ptr())) {
    wrong_kind("the Laplace and Gaussian mechanisms take real numbers", x);
  }
  if (PyLong_Check(x.ptr())) {
    const double v = PyLong_AsDouble(x.ptr());
    if (v == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      return py::int_(py::reinterpret_borrow<py::object>(x)) < py::int_(0)
                 ? -std::numeric_limits<double>::infinity()
                 : std::numeric_limits<double>::infinity();
    }
    return v;
  }
  PyObject* f = PyNumber_Float(x.ptr());
  if (f == nullptr) {
    PyErr_Clear();
    wrong_kind("the Laplace and Gaussian mechanisms take real numbers", x);
  }
  const double v = PyFloat_AS_DOUBLE(f);
  Py_DECREF(f);
  return v;
}

// An integer scalar (anything with __index__: int, bool, numpy integers),
// saturated at the int64 range as the integer mechanisms saturate outputs.
std::int64_t integer_scalar(py::handle x) {
  if (!PyIndex_Check(x.ptr())) {
    wrong_kind("the discrete mechanisms take integers (int or a NumPy integer dtype)", x);
  }
  PyObject* i = PyNumber_Index(x.ptr());
  if (i == nullptr) {
    PyErr_Clear();
    wrong_kind("the discrete mechanisms take integers (int or a NumPy integer dtype)", x);
  }
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(i, &overflow);
  Py_DECREF(i);
  if (overflow > 0) return std::numeric_limits<std::int64_t>::max();
  if (overflow < 0) return std::numeric_limits<std::int64_t>::min();
  return v;
}

char dtype_kind(const py::array& a) {
  return a.dtype().kind();
}

// An array (or nested list) of reals as a C-contiguous float64 array.
py::array_t<double> real_array(py::handle x) {
  py::array a = py::isinstance<py::array>(x)
                    ? py::reinterpret_borrow<py::array>(x)
                    : py::array(py::module_::import("numpy").attr("asarray")(x));
  const char kind = dtype_kind(a);
  if (kind == 'O') {
    // Python objects (ints beyond int64, say): one scalar at a time.
    py::array_t<double> out(std::vector<py::ssize_t>(a.shape(), a.shape() + a.ndim()));
    const py::object flat = a.attr("ravel")();
    double* p = out.mutable_data();
    py::ssize_t k = 0;
    for (py::handle v : flat) p[k++] = real_scalar(v);
    return out;
  }
  if (kind != 'f' && kind != 'i' && kind != 'u' && kind != 'b') {
    throw py::type_error(
        "privet: the Laplace and Gaussian mechanisms take real numbers; got an "
        "array of dtype " +
        std::string(py::str(a.dtype())));
  }
  return py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(a);
}

// An array (or nested list) of integers as a C-contiguous int64 array,
// saturated at its range.
py::array_t<std::int64_t> integer_array(py::handle x) {
  py::array a = py::isinstance<py::array>(x)
                    ? py::reinterpret_borrow<py::array>(x)
                    : py::array(py::module_::import("numpy").attr("asarray")(x));
  const char kind = dtype_kind(a);
  const std::vector<py::ssize_t> shape(a.shape(), a.shape() + a.ndim());
  if (kind == 'O') {
    py::array_t<std::int64_t> out(shape);
    const py::object flat = a.attr("ravel")();
    std::int64_t* p = out.mutable_data();
    py::ssize_t k = 0;
    for (py::handle v : flat) p[k++] = integer_scalar(v);
    return out;
  }
  if (kind == 'u' && a.itemsize() == 8) {
    // NumPy's cast would wrap values above 2^63 - 1: saturate instead.
    const auto u = py::array_t<std::uint64_t, py::array::c_style | py::array::forcecast>::ensure(a);
    py::array_t<std::int64_t> out(shape);
    const std::uint64_t* in = u.data();
    std::int64_t* p = out.mutable_data();
    constexpr auto top = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    for (py::ssize_t k = 0; k < u.size(); ++k) {
      p[k] = static_cast<std::int64_t>(std::min(in[k], top));
    }
    return out;
  }
  if (kind != 'i' && kind != 'u' && kind != 'b') {
    throw py::type_error("privet: the discrete mechanisms take integers; got an array of dtype " +
                         std::string(py::str(a.dtype())) +
                         " (round it first, e.g. numpy.rint(x).astype(numpy.int64))");
  }
  return py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>::ensure(a);
}

// The array result in the input's form: a list for a list or tuple.
py::object as_input_form(py::handle x, py::array result) {
  if (is_sequence_input(x)) return result.attr("tolist")();
  return result;
}

// ---- releasing -------------------------------------------------------------

// The GIL is released around the noise unless the generator is one shared
// Python object (privet.testing's).
template <bool ReleaseGil, class F>
void without_gil(F&& f) {
  if constexpr (ReleaseGil) {
    py::gil_scoped_release release;
    f();
  } else {
    f();
  }
}

// Laplace and Gaussian: one value of `dimension` coordinates. An array of
// that many values keeps its shape; any other length is cut or zero-padded
// to `dimension` (the C++ data rule) and comes back one-dimensional.
template <bool ReleaseGil, class Mechanism, class G>
py::object release_real(const Mechanism& m, py::handle x, G& gen) {
  if (!is_array_input(x)) {
    const double v = real_scalar(x);
    double out = 0;
    without_gil<ReleaseGil>([&] { out = m(v, gen); });
    return py::float_(out);
  }
  const py::array_t<double> in = real_array(x);
  const std::span<const double> values(in.data(), static_cast<std::size_t>(in.size()));
  std::vector<double> out;
  without_gil<ReleaseGil>([&] { out = m(values, gen, privet::parallel_options{}); });
  std::vector<py::ssize_t> shape{static_cast<py::ssize_t>(out.size())};
  if (static_cast<std::size_t>(in.size()) == out.size()) {
    shape.assign(in.shape(), in.shape() + in.ndim());
  }
  py::array_t<double> result(shape);
  std::copy(out.begin(), out.end(), result.mutable_data());
  return as_input_form(x, std::move(result));
}

// Values per keyed stream in the integer mechanisms' parallel release, as
// the continuous mechanisms' noise_block.
constexpr std::size_t integer_noise_block = 4096;

// Discrete Laplace and Gaussian: each integer gets its own sample; the
// array's shape is kept.
template <bool ReleaseGil, class Mechanism, class G>
py::object release_integer(const Mechanism& m, py::handle x, G& gen) {
  if (!is_array_input(x)) {
    const std::int64_t v = integer_scalar(x);
    std::int64_t out = 0;
    without_gil<ReleaseGil>([&] { out = m(v, gen); });
    return py::int_(out);
  }
  const py::array_t<std::int64_t> in = integer_array(x);
  py::array_t<std::int64_t> result(std::vector<py::ssize_t>(in.shape(), in.shape() + in.ndim()));
  const std::int64_t* src = in.data();
  std::int64_t* dst = result.mutable_data();
  const auto n = static_cast<std::size_t>(in.size());
  without_gil<ReleaseGil>([&] {
    const auto streams = privet::streams_from(gen);
    const std::size_t blocks = (n + integer_noise_block - 1) / integer_noise_block;
    privet::parallel_for_index(blocks, privet::parallel_options{}, [&](std::size_t k) {
      auto stream = streams.stream(k);
      const std::size_t end = std::min(n, (k + 1) * integer_noise_block);
      for (std::size_t i = k * integer_noise_block; i < end; ++i) dst[i] = m(src[i], stream);
    });
  });
  return as_input_form(x, std::move(result));
}

template <bool ReleaseGil, class G>
py::object release(const laplace_py& w, py::handle x, G& gen) {
  return std::visit([&](const auto& m) { return release_real<ReleaseGil>(m, x, gen); }, w.m);
}
template <bool ReleaseGil, class G>
py::object release(const gaussian_py& w, py::handle x, G& gen) {
  return std::visit([&](const auto& m) { return release_real<ReleaseGil>(m, x, gen); }, w.m);
}
template <bool ReleaseGil, class G>
py::object release(const discrete_laplace_py& w, py::handle x, G& gen) {
  return std::visit([&](const auto& m) { return release_integer<ReleaseGil>(m, x, gen); }, w.m);
}
template <bool ReleaseGil, class G>
py::object release(const discrete_gaussian_py& w, py::handle x, G& gen) {
  return std::visit([&](const auto& m) { return release_integer<ReleaseGil>(m, x, gen); }, w.m);
}

std::string repr_double(double v) {
  return std::string(py::repr(py::float_(v)));
}

// ---- docstrings shared by the four classes ---------------------------------

constexpr const char* release_doc =
    "Adds fresh noise from the operating system's CSPRNG (privet's secure_generator) to x and\n"
    "returns the result (noise drawn by the constant-time samplers, or by the exact ones with\n"
    "noise=\"secure\"): a float or int for a scalar, a list for a list or tuple, a NumPy array\n"
    "for an array. Arrays are processed on every core with the GIL released. Never raises for\n"
    "any value of the right kind; a wrong kind (a string, a complex number, a float for a\n"
    "discrete mechanism) is a TypeError.";

template <class W>
void bind_release(py::class_<W>& c) {
  c.def(
       "release",
       [](const W& w, const py::object& x) {
         return release<true>(w, x, privet::secure_generator());
       },
       py::arg("x"), release_doc)
      .def(
          "__call__",
          [](const W& w, const py::object& x) {
            return release<true>(w, x, privet::secure_generator());
          },
          py::arg("x"), "Same as release(x).");
}

// Adds method `name` to a bound type that does not define it itself (the
// type may come from another submodule, see bind_guarantees).
template <class F, class... Extra>
void add_method(py::handle type, const char* name, F&& f, const Extra&... extra) {
  if (type.attr("__dict__").contains(name)) return;
  type.attr(name) = py::cpp_function(std::forward<F>(f), py::name(name), py::is_method(type),
                                     py::sibling(py::getattr(type, name, py::none())), extra...);
}

// The bound class for guarantee G: this module's own, or the one another
// submodule registered first (privet.accounting binds the same C++ types
// as its events, and pybind11 refuses a second registration; when it runs
// first, the mechanisms return its classes). Either way the class gets the
// methods below that it lacks.
template <class G, class Define>
py::handle guarantee_class(py::module_& m, const char* name, Define&& define) {
  if (const auto* info = py::detail::get_type_info(typeid(G))) {
    py::handle type(reinterpret_cast<PyObject*>(info->type));
    m.attr(name) = type;
    return type;
  }
  py::class_<G> c(m, name);
  define(c);
  c.def(
      "__eq__", [](const G& a, const G& b) { return a == b; }, py::is_operator(),
      "Exact comparison of the parameters.");
  return c;
}

// within_tv<Base> as `name`: its base (a `base_name`), its distance, the
// base's parameter `param` (read by param_of) beside them, hash and repr.
template <class Base, class Param>
py::handle within_tv_class(py::module_& m, const char* name, const char* base_name,
                           const char* param, Param param_of, const char* doc) {
  using G = within_tv<Base>;
  const std::string type(name), base_type(base_name), param_name(param);
  return guarantee_class<G>(m, name, [&](py::class_<G>& c) {
    c.doc() = doc;
    c.def(py::init<Base, double>(), py::arg("base"), py::arg("total_variation"),
          "Raises InvalidParameter unless total_variation is in [0, 1].")
        .def_property_readonly(
            "base", [](const G& g) { return g.base(); },
            ("The " + base_type + " guarantee of the exact mechanism this one approximates.")
                .c_str())
        .def_property_readonly("total_variation", &G::total_variation,
                               "The distance tau to that mechanism's output law, for every input.")
        .def_property_readonly(param, param_of, ("base." + param_name + ".").c_str())
        .def("__hash__",
             [type, param_of](const G& g) {
               return py::hash(py::make_tuple(type, param_of(g), g.total_variation()));
             })
        .def("__repr__", [type, base_type, param_name, param_of](const G& g) {
          return type + "(" + base_type + "(" + param_name + "=" + repr_double(param_of(g)) +
                 "), total_variation=" + repr_double(g.total_variation()) + ")";
        });
  });
}

void bind_guarantees(py::module_& m) {
  const py::handle pure = guarantee_class<pure_dp>(m, "PureDp", [](py::class_<pure_dp>& c) {
    c.doc() =
        "Pure differential privacy (privet::pure_dp): for all neighbours and events, "
        "P[M(x) in S] <= e^epsilon P[M(x') in S].";
    c.def(py::init<double>(), py::arg("epsilon"),
          "Raises InvalidParameter unless epsilon is finite and >= 0.")
        .def_property_readonly("epsilon", &pure_dp::epsilon,
                               "The privacy loss bound epsilon (>= 0).")
        .def("__hash__",
             [](const pure_dp& g) { return py::hash(py::make_tuple("PureDp", g.epsilon())); })
        .def("__repr__",
             [](const pure_dp& g) { return "PureDp(epsilon=" + repr_double(g.epsilon()) + ")"; });
  });
  const py::handle approx = guarantee_class<approx_dp>(m, "ApproxDp", [](py::class_<approx_dp>& c) {
    c.doc() =
        "Approximate differential privacy (privet::approx_dp): "
        "P[M(x) in S] <= e^epsilon P[M(x') in S] + delta.";
    c.def(py::init<double, double>(), py::arg("epsilon"), py::arg("delta"),
          "Raises InvalidParameter unless epsilon is finite and >= 0 and delta is in [0, 1].")
        .def_property_readonly("epsilon", &approx_dp::epsilon,
                               "The multiplicative bound epsilon (>= 0).")
        .def_property_readonly("delta", &approx_dp::delta, "The additive slack delta, in [0, 1].")
        .def("__hash__",
             [](const approx_dp& g) {
               return py::hash(py::make_tuple("ApproxDp", g.epsilon(), g.delta()));
             })
        .def("__repr__", [](const approx_dp& g) {
          return "ApproxDp(epsilon=" + repr_double(g.epsilon()) +
                 ", delta=" + repr_double(g.delta()) + ")";
        });
  });
  const py::handle z = guarantee_class<zcdp>(m, "Zcdp", [](py::class_<zcdp>& c) {
    c.doc() =
        "Zero-concentrated differential privacy (privet::zcdp; Bun & Steinke 2016): "
        "D_alpha(M(x) || M(x')) <= rho * alpha for every order alpha > 1.";
    c.def(py::init<double>(), py::arg("rho"),
          "Raises InvalidParameter unless rho is finite and >= 0.")
        .def_property_readonly("rho", &zcdp::rho, "The zCDP parameter rho (>= 0).")
        .def("__hash__", [](const zcdp& g) { return py::hash(py::make_tuple("Zcdp", g.rho())); })
        .def("__repr__", [](const zcdp& g) { return "Zcdp(rho=" + repr_double(g.rho()) + ")"; });
  });

  const py::handle pure_tv = within_tv_class<pure_dp>(
      m, "PureDpWithinTv", "PureDp", "epsilon",
      [](const within_tv<pure_dp>& g) { return g.epsilon(); },
      "Pure DP up to a sampler's total variation (privet::within_tv<pure_dp>): for every\n"
      "input the output law is within total variation `total_variation` of that of a\n"
      "mechanism satisfying `base`. What a mechanism with constant-time noise reports.\n"
      "Compose with privet.accounting.compose_basic (epsilons add, distances add) or an\n"
      "accountant; to_approx_dp() gives (eps, (1 + e^eps) total_variation).");
  const py::handle z_tv = within_tv_class<zcdp>(
      m, "ZcdpWithinTv", "Zcdp", "rho", [](const within_tv<zcdp>& g) { return g.rho(); },
      "zCDP up to a sampler's total variation (privet::within_tv<zcdp>): for every input\n"
      "the output law is within total variation `total_variation` of that of a mechanism\n"
      "satisfying `base`. What a mechanism with constant-time noise reports. Compose with\n"
      "privet.accounting.compose_zcdp (rhos add, distances add) or an accountant;\n"
      "to_approx_dp(delta) sets (1 + e^eps) total_variation aside within delta.");

  const char* str_doc = "privet::to_string: the parameters and the guarantee's name.";
  add_method(
      pure, "__str__", [](const pure_dp& g) { return privet::to_string(g); }, str_doc);
  add_method(
      approx, "__str__", [](const approx_dp& g) { return privet::to_string(g); }, str_doc);
  add_method(
      z, "__str__", [](const zcdp& g) { return privet::to_string(g); }, str_doc);
  add_method(
      pure, "to_approx_dp", [](const pure_dp& g) { return privet::to_approx_dp(g); },
      "eps-DP is (eps, 0)-DP.");
  add_method(
      pure, "to_zcdp", [](const pure_dp& g) { return privet::to_zcdp(g); },
      "eps-DP implies (eps^2 / 2)-zCDP (Bun & Steinke 2016, Proposition 1.4).");
  add_method(
      z, "to_approx_dp", [](const zcdp& g, double delta) { return privet::to_approx_dp(g, delta); },
      py::arg("delta"),
      "(eps, delta)-DP by Canonne, Kamath & Steinke (2020, Corollary 13), eps rounded up "
      "(privet's accounting layer). delta in (0, 1).");
  add_method(
      pure_tv, "__str__", [](const within_tv<pure_dp>& g) { return privet::to_string(g); },
      str_doc);
  add_method(
      z_tv, "__str__", [](const within_tv<zcdp>& g) { return privet::to_string(g); }, str_doc);
  add_method(
      pure_tv, "to_approx_dp", [](const within_tv<pure_dp>& g) { return privet::to_approx_dp(g); },
      "(eps, (1 + e^eps) total_variation)-DP, delta rounded up and capped at 1 "
      "(privet::add_total_variation).");
  add_method(
      z_tv, "to_approx_dp",
      [](const within_tv<zcdp>& g, double delta) { return privet::to_approx_dp(g, delta); },
      py::arg("delta"),
      "(eps, delta)-DP: eps is the base's (Canonne, Kamath & Steinke 2020, Corollary 13) at\n"
      "delta minus a share set aside for the sampler, the share (at least 4 total_variation and\n"
      "2^-48 delta) doubled until (1 + e^eps) total_variation fits in it (privet's accounting\n"
      "layer). delta in (0, 1) and above the share, else InvalidParameter.");
}

// The stored sensitivity unless another is asked for.
double sensitivity_or(std::optional<double> asked, double stored) {
  return asked ? *asked : stored;
}

// What every mechanism's class docstring says about the two kinds of noise.
std::string class_doc(const char* body) {
  return std::string(body) +
         "noise=\"constant_time\" (the default) draws from privet's constant-time sampler\n"
         "(constant_time_noise: the same random words and branches whatever the sample, within\n"
         "total variation below 2^-100 per coordinate of the exact law), and guarantee() "
         "qualifies\n"
         "the exact guarantee by that distance; noise=\"secure\" names the exact samplers\n"
         "(secure_noise), whose running time depends on the noise (Jin et al. 2022).";
}

constexpr const char* noise_arg_doc =
    " noise: \"constant_time\" (default) or \"secure\" (the exact, variable-time samplers); "
    "anything else raises InvalidParameter.";

std::string with_noise_doc(const char* doc) {
  return std::string(doc) + noise_arg_doc;
}

void bind_laplace(py::module_& m) {
  py::class_<laplace_py> c(
      m, "Laplace",
      class_doc(
          "The Laplace mechanism (privet::laplace_mechanism<double>; Dwork, McSherry, Nissim &\n"
          "Smith 2006): Lap(scale) noise on each of `dimension` coordinates of a query whose L1\n"
          "sensitivity is l1_sensitivity, epsilon-DP. The noise is a discrete Laplace sample on a\n"
          "power-of-two grid of about scale / 2^40 and the input is rounded to that grid first\n"
          "(Mironov 2012), which the guarantee accounts for. NaN inputs are read as 0 and +-inf "
          "as\n"
          "the largest finite doubles; outputs beyond the double range saturate.\n")
          .c_str());
  c.def(py::init([](double epsilon, double l1_sensitivity, std::int64_t dimension,
                    const py::object& noise) {
          const pure_dp target(epsilon);
          const std::size_t d = checked_dimension(dimension);
          return laplace_py{make_mechanism<laplace_var>(parse_noise(noise),
                                                        [&](auto t) {
                                                          using M = typename decltype(t)::type;
                                                          return M::from_guarantee(
                                                              target, l1_sensitivity, d);
                                                        }),
                            l1_sensitivity};
        }),
        py::arg("epsilon"), py::kw_only(), py::arg("l1_sensitivity"), py::arg("dimension") = 1,
        py::arg("noise") = "constant_time",
        with_noise_doc(
            "The least noise (up to one grid step) whose guarantee for inputs l1_sensitivity "
            "apart has base epsilon-DP (laplace_mechanism::from_guarantee). epsilon must be at "
            "least about dimension * 2^-52 (each coordinate's rounding to the grid costs one "
            "step).")
            .c_str())
      .def_static(
          "from_scale",
          [](double scale, double l1_sensitivity, std::int64_t dimension, const py::object& noise) {
            const std::size_t d = checked_dimension(dimension);
            laplace_py w{make_mechanism<laplace_var>(parse_noise(noise),
                                                     [&](auto t) {
                                                       using M = typename decltype(t)::type;
                                                       return M::from_scale(scale, d);
                                                     }),
                         l1_sensitivity};
            // Validates the sensitivity.
            std::visit([&](const auto& x) { (void)x.guarantee(l1_sensitivity); }, w.m);
            return w;
          },
          py::arg("scale"), py::kw_only(), py::arg("l1_sensitivity"), py::arg("dimension") = 1,
          py::arg("noise") = "constant_time",
          with_noise_doc("Lap(scale) noise (laplace_mechanism::from_scale); scale finite and > 0.")
              .c_str())
      .def_property_readonly(
          "scale",
          [](const laplace_py& w) {
            return std::visit([](const auto& x) { return x.scale(); }, w.m);
          },
          "The noise scale b, a whole number of grid steps.")
      .def_property_readonly(
          "granularity",
          [](const laplace_py& w) {
            return std::visit([](const auto& x) { return x.granularity(); }, w.m);
          },
          "The output grid g (a power of two).")
      .def_property_readonly(
          "dimension",
          [](const laplace_py& w) {
            return std::visit([](const auto& x) { return x.dimension(); }, w.m);
          },
          "The number of coordinates each release noises.")
      .def_property_readonly(
          "variance",
          [](const laplace_py& w) {
            return std::visit([](const auto& x) { return x.variance(); }, w.m);
          },
          "Each coordinate's noise variance, 2 scale^2 (the exact law's).")
      .def_property_readonly(
          "l1_sensitivity", [](const laplace_py& w) { return w.l1_sensitivity; },
          "The L1 sensitivity guarantee() reports for.")
      .def_property_readonly(
          "noise", [](const laplace_py& w) { return noise_name(w.m); },
          "\"constant_time\" or \"secure\": the samplers the noise comes from.")
      .def_property_readonly(
          "sampler_total_variation",
          [](const laplace_py& w) {
            return std::visit([](const auto& x) { return x.sampler_total_variation(); }, w.m);
          },
          "The total variation between one release's law and the exact mechanism's: dimension\n"
          "times the constant-time sampler's bound (rounded up), 0 with noise=\"secure\".")
      .def(
          "guarantee",
          [](const laplace_py& w, std::optional<double> l1_sensitivity) {
            const double d = sensitivity_or(l1_sensitivity, w.l1_sensitivity);
            return std::visit([&](const auto& x) { return py::cast(x.guarantee(d)); }, w.m);
          },
          py::arg("l1_sensitivity") = py::none(),
          "The guarantee for inputs at L1 distance l1_sensitivity (default: the mechanism's), "
          "from\n"
          "privet's privacy map (the grid's rounding included, rounded up): PureDpWithinTv with\n"
          "constant-time noise, PureDp with noise=\"secure\".")
      .def("__repr__", [](const laplace_py& w) {
        return std::visit(
            [&](const auto& x) {
              return "Laplace.from_scale(" + repr_double(x.scale()) +
                     ", l1_sensitivity=" + repr_double(w.l1_sensitivity) +
                     ", dimension=" + std::to_string(x.dimension()) + noise_repr(w.m) + ")";
            },
            w.m);
      });
  bind_release(c);
}

void bind_gaussian(py::module_& m) {
  py::class_<gaussian_py> c(
      m, "Gaussian",
      class_doc(
          "The Gaussian mechanism (privet::gaussian_mechanism<double>): N(0, sigma^2) noise on "
          "each\n"
          "of `dimension` coordinates of a query whose L2 sensitivity is l2_sensitivity,\n"
          "(l2^2 / (2 sigma^2))-zCDP (Bun & Steinke 2016). The noise is a discrete Gaussian "
          "sample\n"
          "(Canonne, Kamath & Steinke 2020) on a power-of-two grid of about sigma / 2^30, the "
          "input\n"
          "rounded to it first; the guarantee accounts for the rounding. NaN inputs are read as 0\n"
          "and +-inf as the largest finite doubles; outputs beyond the double range "
          "saturate.\n")
          .c_str());
  c.def(py::init([](double l2_sensitivity, std::optional<double> rho, std::optional<double> epsilon,
                    std::optional<double> delta, std::int64_t dimension, const py::object& noise) {
          const bool by_rho = rho && !epsilon && !delta;
          const bool by_approx = !rho && epsilon && delta;
          if (!by_rho && !by_approx) {
            throw py::type_error(
                "privet: Gaussian takes either rho= (zCDP) or both epsilon= and delta= "
                "(approximate DP)");
          }
          if (by_rho) {
            const zcdp target(*rho);
            const std::size_t d = checked_dimension(dimension);
            return gaussian_py{make_mechanism<gaussian_var>(parse_noise(noise),
                                                            [&](auto t) {
                                                              using M = typename decltype(t)::type;
                                                              return M::from_guarantee(
                                                                  target, l2_sensitivity, d);
                                                            }),
                               l2_sensitivity};
          }
          const approx_dp target(*epsilon, *delta);
          const std::size_t d = checked_dimension(dimension);
          return gaussian_py{make_mechanism<gaussian_var>(parse_noise(noise),
                                                          [&](auto t) {
                                                            using M = typename decltype(t)::type;
                                                            return M::from_guarantee(
                                                                target, l2_sensitivity, d);
                                                          }),
                             l2_sensitivity};
        }),
        py::kw_only(), py::arg("l2_sensitivity"), py::arg("rho") = py::none(),
        py::arg("epsilon") = py::none(), py::arg("delta") = py::none(), py::arg("dimension") = 1,
        py::arg("noise") = "constant_time",
        with_noise_doc(
            "The least noise meeting a target for inputs l2_sensitivity apart "
            "(gaussian_mechanism::from_guarantee): rho= for a base of rho-zCDP, or epsilon= and "
            "delta= for (epsilon, delta)-DP by approx_guarantee (the discrete counterpart of the "
            "analytic Gaussian mechanism of Balle & Wang 2018 in one dimension, the zCDP "
            "conversion of Canonne, Kamath & Steinke 2020 in more; with constant-time noise the "
            "sampler's share of delta is set aside).")
            .c_str())
      .def_static(
          "from_sigma",
          [](double sigma, double l2_sensitivity, std::int64_t dimension, const py::object& noise) {
            const std::size_t d = checked_dimension(dimension);
            gaussian_py w{make_mechanism<gaussian_var>(parse_noise(noise),
                                                       [&](auto t) {
                                                         using M = typename decltype(t)::type;
                                                         return M::from_scale(sigma, d);
                                                       }),
                          l2_sensitivity};
            // Validates the sensitivity.
            std::visit([&](const auto& x) { (void)x.guarantee(l2_sensitivity); }, w.m);
            return w;
          },
          py::arg("sigma"), py::kw_only(), py::arg("l2_sensitivity"), py::arg("dimension") = 1,
          py::arg("noise") = "constant_time",
          with_noise_doc(
              "N(0, sigma^2) noise (gaussian_mechanism::from_scale; sigma is rounded up to whole "
              "grid steps, by less than 2^-30 relative); sigma finite and > 0.")
              .c_str())
      .def_property_readonly(
          "sigma",
          [](const gaussian_py& w) {
            return std::visit([](const auto& x) { return x.sigma(); }, w.m);
          },
          "The noise standard deviation, a whole number of grid steps.")
      .def_property_readonly(
          "granularity",
          [](const gaussian_py& w) {
            return std::visit([](const auto& x) { return x.granularity(); }, w.m);
          },
          "The output grid g (a power of two).")
      .def_property_readonly(
          "dimension",
          [](const gaussian_py& w) {
            return std::visit([](const auto& x) { return x.dimension(); }, w.m);
          },
          "The number of coordinates each release noises.")
      .def_property_readonly(
          "variance",
          [](const gaussian_py& w) {
            return std::visit([](const auto& x) { return x.variance(); }, w.m);
          },
          "sigma^2 (the discrete noise's variance is slightly below).")
      .def_property_readonly(
          "l2_sensitivity", [](const gaussian_py& w) { return w.l2_sensitivity; },
          "The L2 sensitivity guarantee() reports for.")
      .def_property_readonly(
          "noise", [](const gaussian_py& w) { return noise_name(w.m); },
          "\"constant_time\" or \"secure\": the samplers the noise comes from.")
      .def_property_readonly(
          "sampler_total_variation",
          [](const gaussian_py& w) {
            return std::visit([](const auto& x) { return x.sampler_total_variation(); }, w.m);
          },
          "The total variation between one release's law and the exact mechanism's: dimension\n"
          "times the constant-time sampler's bound (rounded up), 0 with noise=\"secure\".")
      .def(
          "guarantee",
          [](const gaussian_py& w, std::optional<double> l2_sensitivity) {
            const double d = sensitivity_or(l2_sensitivity, w.l2_sensitivity);
            return std::visit([&](const auto& x) { return py::cast(x.guarantee(d)); }, w.m);
          },
          py::arg("l2_sensitivity") = py::none(),
          "The guarantee for inputs at L2 distance l2_sensitivity (default: the mechanism's), "
          "from\n"
          "privet's privacy map (the grid's rounding included, rounded up): ZcdpWithinTv with\n"
          "constant-time noise, Zcdp with noise=\"secure\".")
      .def(
          "approx_guarantee",
          [](const gaussian_py& w, double delta, std::optional<double> l2_sensitivity) {
            const double d = sensitivity_or(l2_sensitivity, w.l2_sensitivity);
            return std::visit([&](const auto& x) { return x.approx_guarantee(d, delta); }, w.m);
          },
          py::arg("delta"), py::arg("l2_sensitivity") = py::none(),
          "The smallest sound ApproxDp at delta in (0, 1) (gaussian_mechanism::approx_guarantee:\n"
          "the discrete Gaussian's exact bound in one dimension, the zCDP conversion in more; "
          "with\n"
          "constant-time noise, epsilon at delta minus the sampler's share (1 + e^eps) tau).")
      .def("__repr__", [](const gaussian_py& w) {
        return std::visit(
            [&](const auto& x) {
              return "Gaussian.from_sigma(" + repr_double(x.sigma()) +
                     ", l2_sensitivity=" + repr_double(w.l2_sensitivity) +
                     ", dimension=" + std::to_string(x.dimension()) + noise_repr(w.m) + ")";
            },
            w.m);
      });
  bind_release(c);
}

void bind_discrete_laplace(py::module_& m) {
  py::class_<discrete_laplace_py> c(
      m, "DiscreteLaplace",
      class_doc(
          "Discrete Laplace noise on integers (privet::discrete_laplace_mechanism<int64_t>; the\n"
          "two-sided geometric of Ghosh, Roughgarden & Sundararajan 2009): P[k] proportional to\n"
          "exp(-|k| / scale), (L1 / scale)-DP for a query of L1 sensitivity l1_sensitivity. Each\n"
          "integer of an array gets its own sample; value + noise saturates at the int64 range "
          "(ints\n"
          "beyond it are read at its limits). The exact sampler is Canonne, Kamath & Steinke's\n"
          "(2020); the constant-time one takes scales up to about 2^63 / 89 "
          "(1.0e17).\n")
          .c_str());
  c.def(py::init([](double epsilon, double l1_sensitivity, const py::object& noise) {
          const pure_dp target(epsilon);
          return discrete_laplace_py{make_mechanism<discrete_laplace_var>(
                                         parse_noise(noise),
                                         [&](auto t) {
                                           using M = typename decltype(t)::type;
                                           return M::from_guarantee(target, l1_sensitivity);
                                         }),
                                     l1_sensitivity};
        }),
        py::arg("epsilon"), py::kw_only(), py::arg("l1_sensitivity"),
        py::arg("noise") = "constant_time",
        with_noise_doc("The least scale (to one ulp) with l1_sensitivity / scale <= epsilon "
                       "(discrete_laplace_mechanism::from_guarantee).")
            .c_str())
      .def_static(
          "from_scale",
          [](double scale, double l1_sensitivity, const py::object& noise) {
            discrete_laplace_py w{
                make_mechanism<discrete_laplace_var>(parse_noise(noise),
                                                     [&](auto t) {
                                                       using M = typename decltype(t)::type;
                                                       return M::from_scale(scale);
                                                     }),
                l1_sensitivity};
            // Validates the sensitivity.
            std::visit([&](const auto& x) { (void)x.guarantee(l1_sensitivity); }, w.m);
            return w;
          },
          py::arg("scale"), py::kw_only(), py::arg("l1_sensitivity"),
          py::arg("noise") = "constant_time",
          with_noise_doc("Scale t as a double, taken at its exact binary value (every double in "
                         "[2^-11, 2^64); up to about 2^63 / 89 with constant-time noise).")
              .c_str())
      .def_property_readonly(
          "scale",
          [](const discrete_laplace_py& w) {
            return std::visit([](const auto& x) { return x.distribution().scale(); }, w.m);
          },
          "The scale t, rounded to the nearest double.")
      .def_property_readonly(
          "scale_num",
          [](const discrete_laplace_py& w) {
            return std::visit([](const auto& x) { return x.distribution().scale_num(); }, w.m);
          },
          "The numerator of t = scale_num / scale_den exactly, in lowest terms.")
      .def_property_readonly(
          "scale_den",
          [](const discrete_laplace_py& w) {
            return std::visit([](const auto& x) { return x.distribution().scale_den(); }, w.m);
          },
          "The denominator of t.")
      .def_property_readonly(
          "variance",
          [](const discrete_laplace_py& w) {
            return std::visit([](const auto& x) { return x.distribution().variance(); }, w.m);
          },
          "The noise variance, 1 / (2 sinh^2(1 / (2 t))) (the exact law's).")
      .def_property_readonly(
          "l1_sensitivity", [](const discrete_laplace_py& w) { return w.l1_sensitivity; },
          "The L1 sensitivity guarantee() reports for.")
      .def_property_readonly(
          "noise", [](const discrete_laplace_py& w) { return noise_name(w.m); },
          "\"constant_time\" or \"secure\": the samplers the noise comes from.")
      .def_property_readonly(
          "sampler_total_variation",
          [](const discrete_laplace_py& w) {
            return std::visit([](const auto& x) { return x.sampler_total_variation(); }, w.m);
          },
          "The total variation between one sample's law and the exact discrete Laplace: the\n"
          "constant-time sampler's bound 2 (B + 1) 2^-128, 0 with noise=\"secure\".")
      .def(
          "guarantee",
          [](const discrete_laplace_py& w, std::optional<double> l1_sensitivity) {
            const double d = sensitivity_or(l1_sensitivity, w.l1_sensitivity);
            return std::visit([&](const auto& x) { return py::cast(x.guarantee(d)); }, w.m);
          },
          py::arg("l1_sensitivity") = py::none(),
          "eps = l1_sensitivity * scale_den / scale_num, rounded up: PureDpWithinTv with\n"
          "constant-time noise, PureDp with noise=\"secure\".")
      .def("__repr__", [](const discrete_laplace_py& w) {
        return std::visit(
            [&](const auto& x) {
              return "DiscreteLaplace.from_scale(" + repr_double(x.distribution().scale()) +
                     ", l1_sensitivity=" + repr_double(w.l1_sensitivity) + noise_repr(w.m) + ")";
            },
            w.m);
      });
  bind_release(c);
}

void bind_discrete_gaussian(py::module_& m) {
  py::class_<discrete_gaussian_py> c(
      m, "DiscreteGaussian",
      class_doc(
          "Discrete Gaussian noise on integers (privet::discrete_gaussian_mechanism<int64_t>;\n"
          "Canonne, Kamath & Steinke 2020): P[k] proportional to exp(-k^2 / (2 sigma^2)),\n"
          "(l2^2 / (2 sigma^2))-zCDP for a query of L2 sensitivity l2_sensitivity (their Theorem "
          "14).\n"
          "Each integer of an array gets its own sample; value + noise saturates at the int64 "
          "range\n"
          "(ints beyond it are read at its limits).\n")
          .c_str());
  c.def(py::init([](double rho, double l2_sensitivity, const py::object& noise) {
          const zcdp target(rho);
          return discrete_gaussian_py{make_mechanism<discrete_gaussian_var>(
                                          parse_noise(noise),
                                          [&](auto t) {
                                            using M = typename decltype(t)::type;
                                            return M::from_guarantee(target, l2_sensitivity);
                                          }),
                                      l2_sensitivity};
        }),
        py::arg("rho"), py::kw_only(), py::arg("l2_sensitivity"),
        py::arg("noise") = "constant_time",
        with_noise_doc("The least noise (to about 2^-50 relative) whose base guarantee is "
                       "rho-zCDP: sigma^2 = l2^2 / (2 rho), rounded up "
                       "(discrete_gaussian_mechanism::from_guarantee).")
            .c_str())
      .def_static(
          "from_sigma",
          [](double sigma, double l2_sensitivity, const py::object& noise) {
            discrete_gaussian_py w{
                make_mechanism<discrete_gaussian_var>(parse_noise(noise),
                                                      [&](auto t) {
                                                        using M = typename decltype(t)::type;
                                                        return M::from_scale(sigma);
                                                      }),
                l2_sensitivity};
            // Validates the sensitivity.
            std::visit([&](const auto& x) { (void)x.guarantee(l2_sensitivity); }, w.m);
            return w;
          },
          py::arg("sigma"), py::kw_only(), py::arg("l2_sensitivity"),
          py::arg("noise") = "constant_time",
          with_noise_doc("sigma as a double (sigma^2 exact when it fits, else rounded up); sigma "
                         "finite, > 0 and up to about 3.6e9.")
              .c_str())
      .def_static(
          "from_sigma2",
          [](const py::int_& num, const py::int_& den, double l2_sensitivity,
             const py::object& noise) {
            const std::uint64_t a = checked_u64(num, "sigma2_num");
            const std::uint64_t b = checked_u64(den, "sigma2_den");
            discrete_gaussian_py w{
                make_mechanism<discrete_gaussian_var>(parse_noise(noise),
                                                      [&](auto t) {
                                                        using M = typename decltype(t)::type;
                                                        return M::from_sigma2(a, b);
                                                      }),
                l2_sensitivity};
            // Validates the sensitivity.
            std::visit([&](const auto& x) { (void)x.guarantee(l2_sensitivity); }, w.m);
            return w;
          },
          py::arg("sigma2_num"), py::arg("sigma2_den"), py::kw_only(), py::arg("l2_sensitivity"),
          py::arg("noise") = "constant_time",
          with_noise_doc("sigma^2 = sigma2_num / sigma2_den exactly "
                         "(discrete_gaussian_mechanism::from_sigma2).")
              .c_str())
      .def_property_readonly(
          "sigma",
          [](const discrete_gaussian_py& w) {
            return std::visit([](const auto& x) { return x.distribution().sigma(); }, w.m);
          },
          "sqrt(sigma2), rounded.")
      .def_property_readonly(
          "sigma2",
          [](const discrete_gaussian_py& w) {
            return std::visit([](const auto& x) { return x.distribution().sigma2(); }, w.m);
          },
          "sigma^2, rounded to the nearest double.")
      .def_property_readonly(
          "sigma2_num",
          [](const discrete_gaussian_py& w) {
            return std::visit([](const auto& x) { return x.distribution().sigma2_num(); }, w.m);
          },
          "The numerator of sigma^2 = sigma2_num / sigma2_den exactly, in lowest terms.")
      .def_property_readonly(
          "sigma2_den",
          [](const discrete_gaussian_py& w) {
            return std::visit([](const auto& x) { return x.distribution().sigma2_den(); }, w.m);
          },
          "The denominator of sigma^2.")
      .def_property_readonly(
          "variance",
          [](const discrete_gaussian_py& w) {
            return std::visit([](const auto& x) { return x.distribution().variance(); }, w.m);
          },
          "E[k^2], slightly below sigma^2 (Canonne, Kamath & Steinke 2020, Proposition 19).")
      .def_property_readonly(
          "l2_sensitivity", [](const discrete_gaussian_py& w) { return w.l2_sensitivity; },
          "The L2 sensitivity guarantee() reports for.")
      .def_property_readonly(
          "noise", [](const discrete_gaussian_py& w) { return noise_name(w.m); },
          "\"constant_time\" or \"secure\": the samplers the noise comes from.")
      .def_property_readonly(
          "sampler_total_variation",
          [](const discrete_gaussian_py& w) {
            return std::visit([](const auto& x) { return x.sampler_total_variation(); }, w.m);
          },
          "The total variation between one sample's law and the exact discrete Gaussian: the\n"
          "constant-time sampler's bound (for a table, sigma up to about 307, (M + 1) 2^-128\n"
          "with M = ceil(sqrt(178) sigma)), 0 with noise=\"secure\".")
      .def(
          "guarantee",
          [](const discrete_gaussian_py& w, std::optional<double> l2_sensitivity) {
            const double d = sensitivity_or(l2_sensitivity, w.l2_sensitivity);
            return std::visit([&](const auto& x) { return py::cast(x.guarantee(d)); }, w.m);
          },
          py::arg("l2_sensitivity") = py::none(),
          "rho = l2^2 sigma2_den / (2 sigma2_num), rounded up: ZcdpWithinTv with constant-time\n"
          "noise, Zcdp with noise=\"secure\".")
      .def(
          "approx_guarantee",
          [](const discrete_gaussian_py& w, double delta, std::optional<double> l2_sensitivity) {
            const double d = sensitivity_or(l2_sensitivity, w.l2_sensitivity);
            return std::visit(
                [&](const auto& x) { return privet::to_approx_dp(x.guarantee(d), delta); }, w.m);
          },
          py::arg("delta"), py::arg("l2_sensitivity") = py::none(),
          "guarantee() converted to ApproxDp at delta in (0, 1) by Canonne, Kamath & Steinke\n"
          "(2020, Corollary 13), privet's accounting layer (with constant-time noise, at delta\n"
          "minus the sampler's share, as ZcdpWithinTv.to_approx_dp).")
      .def("__repr__", [](const discrete_gaussian_py& w) {
        return std::visit(
            [&](const auto& x) {
              return "DiscreteGaussian.from_sigma2(" +
                     std::to_string(x.distribution().sigma2_num()) + ", " +
                     std::to_string(x.distribution().sigma2_den()) +
                     ", l2_sensitivity=" + repr_double(w.l2_sensitivity) + noise_repr(w.m) + ")";
            },
            w.m);
      });
  bind_release(c);
}

// privet::testing::seeded_release_generator, shared by the Python object.
struct seeded_generator_py {
  privet::testing::seeded_release_generator gen;
};

template <class W>
void bind_seeded_release(py::module_& m) {
  m.def(
      "release",
      [](const W& w, const py::object& x, seeded_generator_py& g) {
        return release<false>(w, x, g.gen);
      },
      py::arg("mechanism"), py::arg("x"), py::arg("generator"),
      "mechanism.release(x) with the noise drawn from `generator` (its state advances), so that a\n"
      "test can replay it. Arrays are noised on every core from keyed streams under a secret\n"
      "drawn from the generator: the result does not depend on the thread count.");
}

}  // namespace

void privet::python::bind_mechanisms(py::module_& m) {
  bind_guarantees(m);
  bind_laplace(m);
  bind_gaussian(m);
  bind_discrete_laplace(m);
  bind_discrete_gaussian(m);
}

void privet::python::bind_testing(py::module_& m) {
  py::class_<seeded_generator_py>(
      m, "SeededReleaseGenerator",
      "privet::testing::seeded_release_generator: a ChaCha20 generator from a 64-bit seed that "
      "the\n"
      "release paths accept. Tests only: whoever knows the seed knows the noise.")
      .def(py::init([](const py::int_& seed, const py::int_& stream) {
             const unsigned long long s = PyLong_AsUnsignedLongLong(seed.ptr());
             if (s == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
               PyErr_Clear();
               privet::throw_invalid("seed", std::string(py::repr(seed)), "[0, 2^64 - 1]");
             }
             const unsigned long long t = PyLong_AsUnsignedLongLong(stream.ptr());
             if (t == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
               PyErr_Clear();
               privet::throw_invalid("stream", std::string(py::repr(stream)), "[0, 2^64 - 1]");
             }
             return seeded_generator_py{privet::testing::seeded_release_generator(s, t)};
           }),
           py::arg("seed"), py::arg("stream") = 0,
           "The stream `stream` of the generator seeded with `seed` (both in [0, 2^64 - 1]).")
      .def(
          "next_u64", [](seeded_generator_py& g) { return g.gen(); },
          "The next 64-bit word (advances the generator).");
  bind_seeded_release<laplace_py>(m);
  bind_seeded_release<gaussian_py>(m);
  bind_seeded_release<discrete_laplace_py>(m);
  bind_seeded_release<discrete_gaussian_py>(m);
}
