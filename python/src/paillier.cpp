// python/src/paillier.cpp — privet._privet.paillier: Paillier keys,
// ciphertexts and encrypted fixed-point numbers (crypto/paillier.hpp,
// paillier_batch.hpp, encrypted_number.hpp, fixed_point.hpp,
// paillier_serialization.hpp) on GMP integers, with Python ints of any size
// converted exactly in both directions.
//
// Encrypted reals: C++ carries the scale 16^D in the type; Python chooses D
// at run time. A number here is an encrypted_number of scale 16^0 (the
// "carrier": its ciphertext and public bound, with every bound check and
// message of the C++ type) plus D. Operations on two numbers first bring
// the coarser one to the finer scale by a product with 16^k (the bound
// scales alike, as upscale does); encoding, decoding and the JSON layouts,
// which do depend on the scale, go through a table of the 33 types
// hex_scale<0> ... hex_scale<32>.
//
// Randomness: privet::secure_generator() only (keys, encryption, every
// re-randomisation). The GIL is released around every exponentiation; batch
// calls run on TBB (all cores unless `threads` says otherwise).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <privet/core/csprng.hpp>
#include <privet/core/error.hpp>
#include <privet/core/parallel.hpp>
#include <privet/core/uniform.hpp>
#include <privet/core/validate.hpp>
#include <privet/crypto/detail/primes.hpp>
#include <privet/crypto/encrypted_number.hpp>
#include <privet/crypto/fixed_point.hpp>
#include <privet/crypto/paillier.hpp>
#include <privet/crypto/paillier_batch.hpp>
#include <privet/crypto/paillier_serialization.hpp>

#include <boost/multiprecision/gmp.hpp>
#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "bindings.hpp"

namespace py = pybind11;
namespace pp = privet::paillier;
using Int = boost::multiprecision::mpz_int;

// Python int <-> mpz_int, exactly: machine-sized values directly, larger
// ones through base 16 (linear time both ways). NumPy integers are accepted
// through __index__; floats are not integers here.
namespace pybind11::detail {
template <>
struct type_caster<Int> {
  PYBIND11_TYPE_CASTER(Int, const_name("int"));

  bool load(handle src, bool convert) {
    if (!src) return false;
    object owned;
    PyObject* obj = src.ptr();
    if (!PyLong_Check(obj)) {
      if (!convert || PyFloat_Check(obj) || !PyIndex_Check(obj)) return false;
      owned = reinterpret_steal<object>(PyNumber_Index(obj));
      if (!owned) {
        PyErr_Clear();
        return false;
      }
      obj = owned.ptr();
    }
    int overflow = 0;
    const long long small = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (overflow == 0) {
      if (small == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return false;
      }
      value = Int(small);
      return true;
    }
    const auto hex = reinterpret_steal<object>(PyNumber_ToBase(obj, 16));
    if (!hex) {
      PyErr_Clear();
      return false;
    }
    Py_ssize_t size = 0;
    const char* text = PyUnicode_AsUTF8AndSize(hex.ptr(), &size);
    if (text == nullptr) {
      PyErr_Clear();
      return false;
    }
    const bool negative = text[0] == '-';
    if (mpz_set_str(value.backend().data(), text + (negative ? 3 : 2), 16) != 0) return false;
    if (negative) value = -value;
    return true;
  }

  static handle cast(const Int& x, return_value_policy, handle) {
    const mpz_srcptr z = x.backend().data();
    if (mpz_fits_slong_p(z) != 0) return PyLong_FromLong(mpz_get_si(z));
    std::string text(mpz_sizeinbase(z, 16) + 2, '\0');
    mpz_get_str(text.data(), 16, z);
    return PyLong_FromString(text.c_str(), nullptr, 16);
  }
};
}  // namespace pybind11::detail

namespace {

using public_key = pp::public_key<Int>;
using private_key = pp::private_key<Int>;
using ciphertext = pp::ciphertext<Int>;
using unit_scale = pp::hex_scale<0>;
using carrier = pp::encrypted_number<Int, unit_scale>;
using unit_point = pp::fixed_point<Int, unit_scale>;

/// Largest number of hexadecimal digits D (scale 16^D) of an encrypted real.
constexpr unsigned max_digits = 32;
/// D of encrypt_number and of a float factor unless the caller says.
constexpr unsigned default_digits = 16;

privet::csprng& gen() {
  return privet::secure_generator();
}

// An encrypted real: the carrier and its scale 16^digits.
struct number {
  carrier x;
  unsigned digits;
};

template <unsigned D>
using typed = pp::encrypted_number<Int, pp::hex_scale<D>>;

template <unsigned D>
typed<D> to_typed(const carrier& x) {
  return privet::paillier::detail::number_access::make<Int, pp::hex_scale<D>, pp::runtime_key>(
      x.ciphertext(), x.bound_mantissa());
}
template <unsigned D>
carrier from_typed(const typed<D>& x) {
  return privet::paillier::detail::number_access::make<Int, unit_scale, pp::runtime_key>(
      x.ciphertext(), x.bound_mantissa());
}

// What depends on the scale 16^D, for each D in [0, max_digits].
struct scale_ops {
  Int (*encode)(double, pp::rounding);
  double (*decode)(const Int&);
  const Int& (*scale)();
  std::string (*to_json)(const carrier&, const public_key*, bool);
  carrier (*from_json)(std::string_view, const public_key&, const Int&);
  std::string (*list_to_json)(const public_key&, std::span<const carrier>, bool);
  std::vector<carrier> (*list_from_json)(std::string_view, const public_key&, const Int&);
};

template <unsigned D>
scale_ops make_ops() {
  using S = pp::hex_scale<D>;
  using point = pp::fixed_point<Int, S>;
  scale_ops ops{};
  ops.encode = [](double x, pp::rounding mode) { return point::encode(x, mode).mantissa(); };
  ops.decode = [](const Int& m) { return point::from_mantissa(m).decode(); };
  ops.scale = []() -> const Int& { return point::scale(); };
  ops.to_json = [](const carrier& x, const public_key* key, bool already) {
    const typed<D> t = to_typed<D>(x);
    if (already) return pp::to_json(t, pp::already_randomised);
    if (key != nullptr) return pp::to_json(t, *key, gen());
    return pp::to_json(t, gen());
  };
  ops.from_json = [](std::string_view text, const public_key& key, const Int& bound) {
    return from_typed<D>(pp::from_json<typed<D>>(text, key, point::from_mantissa(bound)));
  };
  ops.list_to_json = [](const public_key& key, std::span<const carrier> xs, bool already) {
    std::vector<typed<D>> ts;
    ts.reserve(xs.size());
    for (const carrier& x : xs) ts.push_back(to_typed<D>(x));
    const std::span<const typed<D>> view(ts);
    if (already) return pp::to_json(key, view, pp::already_randomised);
    return pp::to_json(key, view, gen());
  };
  ops.list_from_json = [](std::string_view text, const public_key& key, const Int& bound) {
    const auto ts = pp::from_json<std::vector<typed<D>>>(text, key, point::from_mantissa(bound));
    std::vector<carrier> out;
    out.reserve(ts.size());
    for (const auto& t : ts) out.push_back(from_typed<D>(t));
    return out;
  };
  return ops;
}

template <std::size_t... D>
std::array<scale_ops, sizeof...(D)> make_table(std::index_sequence<D...>) {
  return {make_ops<static_cast<unsigned>(D)>()...};
}

const scale_ops& ops_for(unsigned digits) {
  static const auto table = make_table(std::make_index_sequence<max_digits + 1>{});
  if (digits > max_digits) {
    privet::throw_invalid("digits", digits, "[0, " + std::to_string(max_digits) + "]");
  }
  return table[digits];
}

// The mantissa of a Python number (int exactly, float rounded by `mode`) at
// scale 16^digits.
Int mantissa_of(const py::handle& value, unsigned digits, pp::rounding mode) {
  const scale_ops& ops = ops_for(digits);
  if (PyLong_Check(value.ptr()) || (!PyFloat_Check(value.ptr()) && PyIndex_Check(value.ptr()))) {
    return Int(value.cast<Int>() * ops.scale());
  }
  const double x = value.cast<double>();
  return ops.encode(x, mode);
}

// The bound mantissa of a public bound given in real units: rounded up.
Int bound_mantissa(const py::handle& bound, unsigned digits) {
  if (PyFloat_Check(bound.ptr())) privet::validate_finite(bound.cast<double>(), "bound");
  Int b = mantissa_of(bound, digits, pp::rounding::up);
  if (b < 0) privet::throw_invalid("bound", py::str(bound).cast<std::string>(), ">= 0");
  return b;
}

carrier make_carrier(const ciphertext& c, const Int& bound) {
  return carrier(c, unit_point::from_mantissa(bound));
}

// x at the finer scale 16^to (to >= x.digits): times 16^(to - digits), the
// bound alike (overflow_error when it would pass (n-1)/2).
carrier rescaled(const number& x, unsigned to) {
  if (to == x.digits) return x.x;
  const Int factor = ops_for(to).scale() / ops_for(x.digits).scale();
  return x.x * factor;
}

number add_numbers(const number& a, const number& b, bool subtract) {
  const unsigned d = std::max(a.digits, b.digits);
  const carrier xa = rescaled(a, d);
  const carrier xb = rescaled(b, d);
  return number{subtract ? carrier(xa - xb) : carrier(xa + xb), d};
}

number add_plain(const number& a, const py::handle& k, bool subtract) {
  const Int m = mantissa_of(k, a.digits, pp::rounding::nearest_even);
  const unit_point point = unit_point::from_mantissa(m);
  return number{subtract ? carrier(a.x - point) : carrier(a.x + point), a.digits};
}

number multiply(const number& a, const py::handle& k, std::optional<unsigned> digits) {
  if (PyLong_Check(k.ptr()) || (!PyFloat_Check(k.ptr()) && PyIndex_Check(k.ptr()))) {
    const Int kk = k.cast<Int>();
    py::gil_scoped_release release;
    return number{a.x * kk, a.digits};
  }
  const unsigned dk = digits.value_or(std::min(default_digits, max_digits - a.digits));
  if (a.digits + dk > max_digits) {
    privet::throw_invalid("digits", a.digits + dk,
                          "a product scale 16^D with D <= " + std::to_string(max_digits) +
                              " (the number's D plus the factor's)");
  }
  const Int m = ops_for(dk).encode(k.cast<double>(), pp::rounding::nearest_even);
  py::gil_scoped_release release;
  return number{a.x * m, a.digits + dk};
}

pp::plaintext_band band_of(const std::string& band) {
  if (band == "privet") return pp::plaintext_band::privet;
  if (band == "python_paillier") return pp::plaintext_band::python_paillier;
  privet::throw_invalid("band", band, "\"privet\" or \"python_paillier\"");
}

pp::encryption_mode mode_of(const std::string& mode) {
  if (mode == "textbook") return pp::encryption_mode::textbook;
  if (mode == "djn") return pp::encryption_mode::djn;
  privet::throw_invalid("mode", mode, "\"textbook\" or \"djn\"");
}

std::string mode_name(pp::encryption_mode mode) {
  return mode == pp::encryption_mode::djn ? "djn" : "textbook";
}

pp::batch_options options_of(std::size_t threads) {
  pp::batch_options o;
  o.threads = threads;
  privet::validate_parallel_options(o);
  return o;
}

// Python ints (a list, tuple or NumPy integer array) as Ints, in order.
std::vector<Int> ints_of(const py::handle& values, const char* name) {
  std::vector<Int> out;
  if (py::isinstance<py::array>(values)) {
    const auto array = py::reinterpret_borrow<py::array>(values);
    const char kind = array.dtype().kind();
    if (kind != 'i' && kind != 'u' && kind != 'O') {
      throw py::type_error(std::string("privet: ") + name +
                           " must hold integers (a NumPy array of dtype kind 'i', 'u' or 'O')");
    }
  }
  const auto seq = py::reinterpret_borrow<py::iterable>(values);
  for (const auto& item : seq) {
    if (PyFloat_Check(item.ptr()) || PyBool_Check(item.ptr())) {
      throw py::type_error(std::string("privet: ") + name + "[" + std::to_string(out.size()) +
                           "] is not an integer");
    }
    out.push_back(item.cast<Int>());
  }
  return out;
}

std::vector<double> doubles_of(const py::handle& values) {
  std::vector<double> out;
  const auto seq = py::reinterpret_borrow<py::iterable>(values);
  for (const auto& item : seq) out.push_back(item.cast<double>());
  return out;
}

template <class T>
py::list to_list(std::vector<T>&& xs) {
  py::list out(xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i) out[i] = py::cast(std::move(xs[i]));
  return out;
}

// The items of `values`, each a bound T (TypeError naming the first that is
// not).
template <class T>
std::vector<T> items_of(const py::handle& values, const char* name, const char* type) {
  std::vector<T> out;
  for (const auto& item : py::reinterpret_borrow<py::iterable>(values)) {
    if (!py::isinstance<T>(item)) {
      throw py::type_error(std::string("privet: ") + name + "[" + std::to_string(out.size()) +
                           "] is not a privet.paillier." + type);
    }
    out.push_back(item.cast<const T&>());
  }
  return out;
}

std::vector<ciphertext> ciphertexts_of(const py::handle& values) {
  return items_of<ciphertext>(values, "ciphertexts", "Ciphertext");
}

std::vector<number> numbers_of(const py::handle& values) {
  return items_of<number>(values, "numbers", "EncryptedNumber");
}

// One scale for a list of numbers (the finest of them).
std::pair<std::vector<carrier>, unsigned> aligned(const std::vector<number>& xs) {
  unsigned d = 0;
  for (const number& x : xs) d = std::max(d, x.digits);
  std::vector<carrier> out;
  out.reserve(xs.size());
  for (const number& x : xs) out.push_back(rescaled(x, d));
  return {std::move(out), d};
}

// Enc(k) for a signed plaintext k with r = 1 (deterministic; its sum with a
// random ciphertext is as random as that one).
ciphertext plain_ciphertext(const public_key& key, const Int& k) {
  const Int m = pp::detail::encode_signed(*pp::detail::access::context(key), k, "k");
  return ciphertext(key, Int(1 + m * key.n()));
}

std::string key_repr(const public_key& k) {
  const std::string hex = k.n().str(0, std::ios_base::hex);
  return "<privet.paillier.PublicKey " + std::to_string(k.bits()) + " bits, mode " +
         mode_name(k.mode()) + ", n = 0x" + hex.substr(0, 10) + "...>";
}

}  // namespace

void privet::python::bind_paillier(py::module_& parent) {
  py::module_ m = parent.def_submodule(
      "paillier",
      "The Paillier cryptosystem (Paillier 1999) with Damgard-Jurik-Nielsen's short-exponent "
      "encryption, on GMP: keys, ciphertexts of integers, encrypted reals with a public bound, "
      "batches on every core and python-paillier's JSON layouts.");
  m.attr("default_key_bits") = pp::default_key_bits;
  m.attr("min_key_bits") = pp::min_key_bits;
  m.attr("min_insecure_key_bits") = pp::min_insecure_key_bits;
  m.attr("max_key_bits") = pp::max_key_bits;
  m.attr("max_peer_key_bits") = pp::max_peer_key_bits;
  m.attr("max_digits") = max_digits;
  m.attr("default_digits") = default_digits;

  py::class_<public_key> pk(m, "PublicKey",
                            "A Paillier public key (n, with g = n + 1) and its encryption mode "
                            "(\"textbook\": r^n, DCR only; \"djn\": h_N^a with a short a, ~40x "
                            "faster, a stronger assumption). Copies share the key data.");
  py::class_<private_key> sk(m, "PrivateKey",
                             "A Paillier private key (the primes p, q and the constants of CRT "
                             "decryption); decryption is constant time.");
  py::class_<ciphertext> ct(m, "Ciphertext",
                            "A Paillier ciphertext of an integer under one public key: + and - "
                            "(ciphertexts or ints), * by an int, negation. Arithmetic is modulo "
                            "n; decryption reads residues above (n-1)/2 as negative.");
  py::class_<number> num(m, "EncryptedNumber",
                         "An encrypted real at the scale 16^digits with a public bound on its "
                         "magnitude: operations propagate the bound and raise "
                         "RepresentationOverflow before a result could wrap.");

  pk.def(py::init([](const Int& n, bool insecure) {
           py::gil_scoped_release release;
           return insecure ? public_key(n, pp::allow_insecure) : public_key(n);
         }),
         py::arg("n"), py::kw_only(), py::arg("allow_insecure_key_size") = false,
         "The key with modulus n (odd, 2048 to 16384 bits; down to 128 with "
         "allow_insecure_key_size=True; no factor below 32768, no perfect power, not prime).")
      .def_property_readonly("n", &public_key::n, "The modulus n = p q.")
      .def_property_readonly(
          "g", [](const public_key& k) { return Int(k.n() + 1); }, "The generator g = n + 1.")
      .def_property_readonly("n_squared", &public_key::n_squared, "n^2, the ciphertext modulus.")
      .def_property_readonly("bits", &public_key::bits, "Bits of n.")
      .def_property_readonly(
          "max_signed", [](const public_key& k) { return k.max_signed(); },
          "(n - 1) / 2: signed plaintexts lie in [-max_signed, max_signed].")
      .def_property_readonly(
          "max_int",
          [](const public_key& k) { return k.max_signed(pp::plaintext_band::python_paillier); },
          "floor(n/3) - 1, python-paillier's max_int.")
      .def_property_readonly(
          "mode", [](const public_key& k) { return mode_name(k.mode()); },
          "\"textbook\" or \"djn\": how encryptions draw their randomisers.")
      .def(
          "with_mode",
          [](const public_key& k, const std::string& mode) {
            const auto md = mode_of(mode);
            py::gil_scoped_release release;
            return k.with_mode(md);
          },
          py::arg("mode"),
          "This key in `mode` (\"textbook\" or \"djn\"); \"djn\" builds its table now.")
      .def(
          "encrypt",
          [](const public_key& k, const Int& x, const std::string& band) {
            const auto b = band_of(band);
            py::gil_scoped_release release;
            return k.encrypt_signed(x, gen(), b);
          },
          py::arg("x"), py::arg("band") = "privet",
          "Enc(x) for a signed int x in [-(n-1)/2, (n-1)/2] (band \"privet\") or [-max_int, "
          "max_int] (band \"python_paillier\"); RepresentationOverflow outside it.")
      .def(
          "raw_encrypt",
          [](const public_key& k, const Int& plaintext, std::optional<Int> r) {
            py::gil_scoped_release release;
            return r ? k.encrypt_with(plaintext, *r) : k.encrypt(plaintext, gen());
          },
          py::arg("m"), py::arg("r") = py::none(),
          "Enc(m) for m in [0, n) (RepresentationOverflow outside): (1 + m n) r^n mod n^2 with "
          "the given r (in [1, n), coprime to n), else a fresh randomiser by the key's mode.")
      .def(
          "encrypt_batch",
          [](const public_key& k, const py::handle& values, std::size_t threads) {
            const std::vector<Int> xs = ints_of(values, "plaintexts");
            const auto options = options_of(threads);
            std::vector<ciphertext> out;
            {
              py::gil_scoped_release release;
              out = pp::encrypt_signed(k, std::span<const Int>(xs), gen(), options);
            }
            return to_list(std::move(out));
          },
          py::arg("values"), py::arg("threads") = 0,
          "Enc(x_i) for signed ints (a list or a NumPy integer array), in parallel on `threads` "
          "threads (0: every core); a list of Ciphertext.")
      .def(
          "encrypt_number",
          [](const public_key& k, const py::handle& x, const py::handle& bound, unsigned digits) {
            const Int mantissa = mantissa_of(x, digits, pp::rounding::nearest_even);
            const Int b = bound_mantissa(bound, digits);
            py::gil_scoped_release release;
            return number{pp::encrypt(k, unit_point::from_mantissa(mantissa),
                                      unit_point::from_mantissa(b), gen()),
                          digits};
          },
          py::arg("x"), py::arg("bound"), py::arg("digits") = default_digits,
          "Enc(x) for a real x (float or int) at the scale 16^digits (round(16^digits x), ties "
          "to even), with the public `bound` >= |x| (it travels in the clear: it must not "
          "depend on the data).")
      .def(
          "encrypt_numbers",
          [](const public_key& k, const py::handle& values, const py::handle& bound,
             unsigned digits, std::size_t threads) {
            const scale_ops& ops = ops_for(digits);
            const std::vector<double> xs = doubles_of(values);
            const Int b = bound_mantissa(bound, digits);
            const auto options = options_of(threads);
            std::vector<number> out;
            {
              py::gil_scoped_release release;
              std::vector<Int> mantissas;
              mantissas.reserve(xs.size());
              const unit_point bp = unit_point::from_mantissa(b);
              for (const double x : xs) {
                const unit_point p =
                    unit_point::from_mantissa(ops.encode(x, pp::rounding::nearest_even));
                (void)pp::detail::checked_mantissa_bound(k, p, bp);
                mantissas.push_back(p.mantissa());
              }
              auto cs = pp::encrypt_signed(k, std::span<const Int>(mantissas), gen(), options);
              out.reserve(cs.size());
              for (auto& c : cs) out.push_back(number{make_carrier(c, b), digits});
            }
            return to_list(std::move(out));
          },
          py::arg("values"), py::arg("bound"), py::arg("digits") = default_digits,
          py::arg("threads") = 0,
          "encrypt_number for every value (a list or NumPy array of reals), in parallel; a list "
          "of EncryptedNumber.")
      .def(
          "rerandomize",
          [](const public_key& k, const ciphertext& c) {
            py::gil_scoped_release release;
            return k.rerandomize(c, gen());
          },
          py::arg("c"), "c times a fresh encryption of 0 (by this key's mode): unlinkable.")
      .def(
          "to_json", [](const public_key& k) { return pp::to_json(k); },
          "python-paillier's basic layout {\"g\": ..., \"n\": ...} (decimal strings).")
      .def(
          "to_jwk", [](const public_key& k, std::string_view kid) { return pp::to_jwk(k, kid); },
          py::arg("kid") = "", "python-paillier's JWK layout (kty DAJ, alg PAI-GN1).")
      .def_static(
          "from_json",
          [](std::string_view text, bool insecure, std::size_t max_bits) {
            py::gil_scoped_release release;
            return pp::from_json<public_key>(text, insecure,
                                             privet::crypto::peer_key_limit{max_bits});
          },
          py::arg("text"), py::kw_only(), py::arg("allow_insecure_key_size") = false,
          py::arg("max_key_bits") = pp::max_peer_key_bits,
          "A public key from python-paillier's basic or JWK layout; SerializationError for "
          "anything else.")
      .def("__eq__", [](const public_key& a, const public_key& b) { return a == b; })
      .def("__hash__", [](const public_key& k) { return py::hash(py::cast(k.n())); })
      .def("__repr__", &key_repr);

  sk.def_static(
        "from_primes",
        [](const Int& p, const Int& q, bool insecure) {
          py::gil_scoped_release release;
          return insecure ? private_key::from_primes(p, q, gen(), pp::allow_insecure)
                          : private_key::from_primes(p, q, gen());
        },
        py::arg("p"), py::arg("q"), py::kw_only(), py::arg("allow_insecure_key_size") = false,
        "The key of n = p q; InvalidParameter unless p, q are distinct primes of equal length "
        "(64 Miller-Rabin rounds), far apart, with n of an allowed size.")
      .def_property_readonly("public_key", &private_key::public_key, "The matching public key.")
      .def_property_readonly("p", &private_key::p, "The prime p (secret).")
      .def_property_readonly("q", &private_key::q, "The prime q (secret).")
      .def(
          "decrypt",
          [](const private_key& k, const ciphertext& c, const std::string& band) {
            const auto b = band_of(band);
            py::gil_scoped_release release;
            return k.decrypt_signed(c, b);
          },
          py::arg("c"), py::arg("band") = "privet",
          "The signed plaintext of c (CRT, constant time); in band \"python_paillier\" "
          "RepresentationOverflow for python-paillier's overflow band.")
      .def(
          "raw_decrypt",
          [](const private_key& k, const ciphertext& c) {
            py::gil_scoped_release release;
            return k.decrypt(c);
          },
          py::arg("c"), "The plaintext of c in [0, n).")
      .def(
          "decrypt_batch",
          [](const private_key& k, const py::handle& values, std::size_t threads) {
            const std::vector<ciphertext> cs = ciphertexts_of(values);
            const auto options = options_of(threads);
            std::vector<Int> out;
            {
              py::gil_scoped_release release;
              out = pp::decrypt_signed(k, std::span<const ciphertext>(cs), options);
            }
            return to_list(std::move(out));
          },
          py::arg("ciphertexts"), py::arg("threads") = 0,
          "The signed plaintexts of a list of Ciphertext, in parallel; a list of int.")
      .def(
          "decrypt_number",
          [](const private_key& k, const number& x) {
            py::gil_scoped_release release;
            return ops_for(x.digits).decode(pp::decrypt(k, x.x).mantissa());
          },
          py::arg("x"),
          "The real value of x (the double nearest to mantissa / 16^digits); ProtocolError when "
          "the decrypted mantissa exceeds x's bound.")
      .def(
          "decrypt_numbers",
          [](const private_key& k, const py::handle& values, std::size_t threads) {
            const std::vector<number> xs = numbers_of(values);
            const auto options = options_of(threads);
            py::array_t<double> out(static_cast<py::ssize_t>(xs.size()));
            double* data = out.mutable_data();
            {
              py::gil_scoped_release release;
              privet::parallel_for_index(xs.size(), options, [&](std::size_t i) {
                data[i] = ops_for(xs[i].digits).decode(pp::decrypt(k, xs[i].x).mantissa());
              });
            }
            return out;
          },
          py::arg("numbers"), py::arg("threads") = 0,
          "decrypt_number for every EncryptedNumber, in parallel; a NumPy float64 array.")
      .def(
          "to_jwk", [](const private_key& k, std::string_view kid) { return pp::to_jwk(k, kid); },
          py::arg("kid") = "",
          "python-paillier's JWK private key (p, q and the public JWK); secret.")
      .def_static(
          "from_json",
          [](std::string_view text, bool insecure) {
            py::gil_scoped_release release;
            return insecure ? pp::from_json<private_key>(text, pp::allow_insecure)
                            : pp::from_json<private_key>(text);
          },
          py::arg("text"), py::kw_only(), py::arg("allow_insecure_key_size") = false,
          "A private key from python-paillier's JWK layout ({p, q} or {lambda, mu}); "
          "SerializationError for anything else.")
      .def("__eq__",
           [](const private_key& a, const private_key& b) {
             return a.public_key() == b.public_key() && a.p() == b.p();
           })
      .def("__hash__", [](const private_key& k) { return py::hash(py::cast(k.public_key().n())); })
      .def("__repr__", [](const private_key& k) {
        return "<privet.paillier.PrivateKey of " + key_repr(k.public_key()) + ">";
      });

  ct.def(py::init([](const public_key& key, const Int& value) { return ciphertext(key, value); }),
         py::arg("public_key"), py::arg("value"),
         "A received ciphertext value under `public_key` (in [1, n^2), coprime to n).")
      .def_property_readonly("value", &ciphertext::value, "The element of Z*_{n^2}.")
      .def_property_readonly("public_key", &ciphertext::key, "The key (textbook mode).")
      .def("__add__", [](const ciphertext& a, const ciphertext& b) { return a + b; })
      .def("__add__",
           [](const ciphertext& a, const Int& k) { return a + plain_ciphertext(a.key(), k); })
      .def("__radd__",
           [](const ciphertext& a, const Int& k) { return a + plain_ciphertext(a.key(), k); })
      .def("__sub__", [](const ciphertext& a, const ciphertext& b) { return a - b; })
      .def("__sub__",
           [](const ciphertext& a, const Int& k) { return a + plain_ciphertext(a.key(), Int(-k)); })
      .def("__rsub__",
           [](const ciphertext& a, const Int& k) { return plain_ciphertext(a.key(), k) - a; })
      .def("__mul__",
           [](const ciphertext& a, const Int& k) {
             py::gil_scoped_release release;
             return a * k;
           })
      .def("__rmul__",
           [](const ciphertext& a, const Int& k) {
             py::gil_scoped_release release;
             return a * k;
           })
      .def("__neg__", [](const ciphertext& a) { return -a; })
      .def("__eq__", [](const ciphertext& a, const ciphertext& b) { return a == b; })
      .def("__hash__", [](const ciphertext& a) { return py::hash(py::cast(a.value())); })
      .def(
          "to_json",
          [](const ciphertext& c, const public_key* key, bool already) {
            py::gil_scoped_release release;
            if (already) return pp::to_json(c, pp::already_randomised);
            if (key != nullptr) return pp::to_json(c, *key, gen());
            return pp::to_json(c, gen());
          },
          py::kw_only(), py::arg("key") = nullptr, py::arg("already_randomised") = false,
          "{\"e\": 0, \"v\": \"...\"} (python-paillier's encrypted integer), re-randomised "
          "first by `key` (its mode; default the ciphertext's own key) unless "
          "already_randomised=True (only for a fresh encryption).")
      .def_static(
          "from_json",
          [](std::string_view text, const public_key& key) {
            return pp::from_json<ciphertext>(text, key);
          },
          py::arg("text"), py::arg("public_key"),
          "A ciphertext from {\"v\": ..., \"e\": 0} under `public_key`; SerializationError "
          "for anything else.")
      .def("__repr__", [](const ciphertext& c) {
        return "<privet.paillier.Ciphertext under a " + std::to_string(c.key().bits()) +
               "-bit key>";
      });

  num.def_property_readonly(
         "digits", [](const number& x) { return x.digits; }, "D of the scale 16^D.")
      .def_property_readonly(
          "exponent", [](const number& x) { return -static_cast<int>(x.digits); },
          "-digits: python-paillier's exponent (value = mantissa * 16^exponent).")
      .def_property_readonly(
          "bound_mantissa", [](const number& x) { return x.x.bound_mantissa(); },
          "The public bound on |mantissa|.")
      .def_property_readonly(
          "bound", [](const number& x) { return ops_for(x.digits).decode(x.x.bound_mantissa()); },
          "The public bound on |x| in real units.")
      .def_property_readonly(
          "ciphertext", [](const number& x) { return x.x.ciphertext(); },
          "The Paillier ciphertext of the mantissa.")
      .def_property_readonly(
          "public_key", [](const number& x) { return x.x.key(); }, "The key (textbook mode).")
      .def_static(
          "from_ciphertext",
          [](const ciphertext& c, const Int& bound_mantissa, unsigned digits) {
            (void)ops_for(digits);
            return number{make_carrier(c, bound_mantissa), digits};
          },
          py::arg("ciphertext"), py::arg("bound_mantissa"), py::arg("digits"),
          "Wraps a ciphertext of a mantissa at scale 16^digits with its public bound.")
      .def("__add__", [](const number& a, const number& b) { return add_numbers(a, b, false); })
      .def("__add__", [](const number& a, const py::int_& k) { return add_plain(a, k, false); })
      .def("__add__", [](const number& a, const py::float_& k) { return add_plain(a, k, false); })
      .def("__radd__", [](const number& a, const py::int_& k) { return add_plain(a, k, false); })
      .def("__radd__", [](const number& a, const py::float_& k) { return add_plain(a, k, false); })
      .def("__sub__", [](const number& a, const number& b) { return add_numbers(a, b, true); })
      .def("__sub__", [](const number& a, const py::int_& k) { return add_plain(a, k, true); })
      .def("__sub__", [](const number& a, const py::float_& k) { return add_plain(a, k, true); })
      .def("__rsub__",
           [](const number& a, const py::int_& k) {
             return add_plain(number{-a.x, a.digits}, k, false);
           })
      .def("__rsub__",
           [](const number& a, const py::float_& k) {
             return add_plain(number{-a.x, a.digits}, k, false);
           })
      .def("__neg__",
           [](const number& a) {
             return number{-a.x, a.digits};
           })
      .def("__mul__",
           [](const number& a, const py::int_& k) { return multiply(a, k, std::nullopt); })
      .def("__mul__",
           [](const number& a, const py::float_& k) { return multiply(a, k, std::nullopt); })
      .def("__rmul__",
           [](const number& a, const py::int_& k) { return multiply(a, k, std::nullopt); })
      .def("__rmul__",
           [](const number& a, const py::float_& k) { return multiply(a, k, std::nullopt); })
      .def(
          "multiply",
          [](const number& a, const py::handle& k, std::optional<unsigned> digits) {
            return multiply(a, k, digits);
          },
          py::arg("k"), py::arg("digits") = py::none(),
          "Enc(k x): an int k keeps the scale; a float k is encoded at 16^digits (default "
          "min(16, 32 - self.digits)) and the result has scale 16^(self.digits + digits).")
      .def(
          "rescale",
          [](const number& a, unsigned digits) {
            if (digits < a.digits) {
              privet::throw_invalid("digits", digits,
                                    ">= the number's digits = " + std::to_string(a.digits) +
                                        " (a coarser scale would round, which a ciphertext "
                                        "cannot)");
            }
            return number{rescaled(a, digits), digits};
          },
          py::arg("digits"), "The same value at the finer scale 16^digits (bound scaled alike).")
      .def(
          "rerandomize",
          [](const number& a, const public_key* key) {
            py::gil_scoped_release release;
            return number{pp::rerandomize(key != nullptr ? *key : a.x.key(), a.x, gen()), a.digits};
          },
          py::arg("key") = nullptr, "The same value with fresh randomness.")
      .def(
          "to_json",
          [](const number& x, const public_key* key, bool already) {
            const scale_ops& ops = ops_for(x.digits);
            py::gil_scoped_release release;
            return ops.to_json(x.x, key, already);
          },
          py::kw_only(), py::arg("key") = nullptr, py::arg("already_randomised") = false,
          "{\"e\": -digits, \"v\": \"...\"} (python-paillier's command-line layout), "
          "re-randomised first unless already_randomised=True. The bound is not written.")
      .def_static(
          "from_json",
          [](std::string_view text, const public_key& key, const py::handle& bound,
             unsigned digits) {
            const scale_ops& ops = ops_for(digits);
            const Int b = bound_mantissa(bound, digits);
            py::gil_scoped_release release;
            return number{ops.from_json(text, key, b), digits};
          },
          py::arg("text"), py::arg("public_key"), py::arg("bound"),
          py::arg("digits") = default_digits,
          "A number from {\"v\", \"e\"} with e >= -digits, moved to scale 16^digits, carrying "
          "the public `bound` the protocol guarantees; SerializationError for anything else.")
      .def("__repr__", [](const number& x) {
        return "<privet.paillier.EncryptedNumber at scale 16^" + std::to_string(x.digits) + ">";
      });

  m.def(
      "generate_keypair",
      [](std::size_t bits, const std::string& mode, bool insecure) {
        const auto md = mode_of(mode);
        py::gil_scoped_release release;
        pp::keypair<Int> kp = insecure
                                  ? pp::generate_keypair<Int>(pp::insecure_key_size{bits}, gen())
                                  : pp::generate_keypair<Int>(bits, gen());
        public_key pub = kp.public_key.with_mode(md);
        return std::make_pair(std::move(pub), std::move(kp.private_key));
      },
      py::arg("bits") = pp::default_key_bits, py::arg("mode") = "textbook", py::kw_only(),
      py::arg("allow_insecure_key_size") = false,
      "A new key pair (public, private) with n of exactly `bits` bits (even, >= 2048; down to "
      "128 only with allow_insecure_key_size=True), primes from the OS CSPRNG; the public key in "
      "`mode` (\"textbook\" or \"djn\").");
  m.def(
      "numbers_to_json",
      [](const public_key& key, const py::handle& values, bool already) {
        const auto [xs, d] = aligned(numbers_of(values));
        const scale_ops& ops = ops_for(d);
        py::gil_scoped_release release;
        return ops.list_to_json(key, std::span<const carrier>(xs), already);
      },
      py::arg("public_key"), py::arg("numbers"), py::kw_only(),
      py::arg("already_randomised") = false,
      "python-paillier's list layout {\"public_key\": {g, n}, \"values\": [[c, e], ...]}, "
      "every ciphertext re-randomised by `public_key` (its mode) unless already_randomised.");
  m.def(
      "numbers_from_json",
      [](std::string_view text, const public_key& key, const py::handle& bound, unsigned digits) {
        const scale_ops& ops = ops_for(digits);
        const Int b = bound_mantissa(bound, digits);
        std::vector<carrier> xs;
        {
          py::gil_scoped_release release;
          xs = ops.list_from_json(text, key, b);
        }
        py::list out(xs.size());
        for (std::size_t i = 0; i < xs.size(); ++i) out[i] = py::cast(number{xs[i], digits});
        return out;
      },
      py::arg("text"), py::arg("public_key"), py::arg("bound"), py::arg("digits") = default_digits,
      "The list layout read under `public_key` (its \"public_key\" must be that key), every "
      "number at scale 16^digits with the public `bound`.");
  m.def(
      "encode",
      [](const py::handle& x, unsigned digits) {
        return mantissa_of(x, digits, pp::rounding::nearest_even);
      },
      py::arg("x"), py::arg("digits") = default_digits,
      "privet's fixed-point mantissa round(16^digits x), ties to even, exact.");
  m.def(
      "decode",
      [](const Int& mantissa, unsigned digits) { return ops_for(digits).decode(mantissa); },
      py::arg("mantissa"), py::arg("digits") = default_digits,
      "The double nearest to mantissa / 16^digits.");
  m.def(
      "random_below",
      [](const Int& bound) {
        py::gil_scoped_release release;
        return privet::uniform_below(gen(), bound);
      },
      py::arg("bound"), "A uniform integer in [0, bound) from the OS CSPRNG.");
  m.def(
      "random_prime",
      [](std::size_t bits) {
        if (bits > pp::max_key_bits) {
          privet::throw_invalid("bits", bits, "[16, " + std::to_string(pp::max_key_bits) + "]");
        }
        py::gil_scoped_release release;
        return privet::detail::random_prime<Int>(bits, gen());
      },
      py::arg("bits"),
      "A random probable prime of exactly `bits` bits (error <= 2^-128), from the OS CSPRNG.");
  m.def(
      "is_probable_prime",
      [](const Int& n, unsigned rounds) {
        py::gil_scoped_release release;
        return privet::detail::is_probable_prime(n, gen(), rounds);
      },
      py::arg("n"), py::arg("rounds") = 64,
      "Miller-Rabin with `rounds` random bases from the OS CSPRNG.");
}
