// python/src/accounting.cpp — privet.accounting: privacy events, the RDP,
// PLD and PRV accountants, the odometer and noise calibration.
//
// Every accountant here is a privacy_odometer (accounting/odometer.hpp) with
// one accountant switched on, so repeated events merge into one entry and an
// answer the accountant cannot give is reported with the odometer's reason
// (privet::invalid_parameter, i.e. privet.InvalidParameter in Python).
// Composite events (self-composed, composed) are flattened into a list of
// (event, count) before any C++ work starts, with the GIL held; the
// composition itself runs with the GIL released, under the accountant's own
// mutex so that two Python threads never record into one odometer at once.
//
// Guarantees within a total variation (privet::within_tv<pure_dp> and
// within_tv<zcdp>, what the mechanisms report with constant-time noise;
// their Python classes are bound in mechanisms.cpp) are events too: the
// odometer records the base with the distance beside it
// (privacy_odometer::record's total_variation), so that every answer holds
// for the runs made (accounting/odometer.hpp).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <privet/accounting/calibration.hpp>
#include <privet/accounting/composition.hpp>
#include <privet/accounting/events.hpp>
#include <privet/accounting/odometer.hpp>
#include <privet/accounting/pld.hpp>
#include <privet/accounting/prv.hpp>
#include <privet/accounting/rdp.hpp>
#include <privet/accounting/repeat_and_select.hpp>
#include <privet/accounting/zcdp.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/error.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/validate.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "bindings.hpp"

namespace py = pybind11;

namespace privet::python {
namespace {

using any_event =
    std::variant<gaussian_event, laplace_event, discrete_gaussian_event, discrete_laplace_event,
                 randomized_response_event, subsampled_gaussian_event,
                 fixed_size_subsampled_gaussian_event, pure_dp, approx_dp, zcdp, gdp, rdp,
                 randomized_response_special_event, bounded_range_event, tree_aggregation_event,
                 subsampled_laplace_event, subsampled_gaussian_replace_one_event,
                 mixture_of_gaussians_event, truncated_subsampled_gaussian_event,
                 within_tv<pure_dp>, within_tv<zcdp>>;

/// Whether E is a guarantee within a total variation.
template <class E>
inline constexpr bool is_within_tv = false;
template <class Base>
inline constexpr bool is_within_tv<within_tv<Base>> = true;

/// Records `count` runs of one event: a within_tv as its base, with its
/// total variation per run.
template <class E>
void record_event(privacy_odometer& odometer, const E& e, std::uint64_t count) {
  if constexpr (is_within_tv<E>) {
    odometer.record(e.base(), count, e.total_variation());
  } else {
    odometer.record(e, count);
  }
}

/// `count` runs of one event (Python object: any event, composite or not).
struct self_composed_event {
  py::object event;
  std::uint64_t count;
};

/// Each event in turn.
struct composed_event {
  std::vector<py::object> events;
};

using flat_events = std::vector<std::pair<any_event, std::uint64_t>>;

std::uint64_t checked_count(std::int64_t count, const char* name = "count") {
  validate_at_least<std::int64_t>(count, 1, name);
  return static_cast<std::uint64_t>(count);
}

std::uint64_t multiply_counts(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) {
    throw_invalid("count", detail::format_value(a) + " * " + detail::format_value(b),
                  "a total number of runs below 2^64");
  }
  return r;
}

template <class E>
bool take(py::handle h, std::uint64_t count, flat_events& out) {
  if (!py::isinstance<E>(h)) return false;
  out.emplace_back(h.cast<E>(), count);
  return true;
}

/// Appends the leaves of `event` (each with its total count) to `out`.
/// Needs the GIL.
void flatten(py::handle event, std::uint64_t count, flat_events& out, int depth = 0) {
  if (depth > 1000) {
    throw_invalid("event", "nested more than 1000 levels deep", "at most 1000 levels of nesting");
  }
  if (py::isinstance<self_composed_event>(event)) {
    const auto& s = event.cast<const self_composed_event&>();
    flatten(s.event, multiply_counts(count, s.count), out, depth + 1);
    return;
  }
  if (py::isinstance<composed_event>(event)) {
    for (const auto& e : event.cast<const composed_event&>().events) {
      flatten(e, count, out, depth + 1);
    }
    return;
  }
  if (take<gaussian_event>(event, count, out) || take<laplace_event>(event, count, out) ||
      take<discrete_gaussian_event>(event, count, out) ||
      take<discrete_laplace_event>(event, count, out) ||
      take<randomized_response_event>(event, count, out) ||
      take<subsampled_gaussian_event>(event, count, out) ||
      take<fixed_size_subsampled_gaussian_event>(event, count, out) ||
      take<pure_dp>(event, count, out) || take<approx_dp>(event, count, out) ||
      take<zcdp>(event, count, out) || take<gdp>(event, count, out) ||
      take<rdp>(event, count, out) || take<randomized_response_special_event>(event, count, out) ||
      take<bounded_range_event>(event, count, out) ||
      take<tree_aggregation_event>(event, count, out) ||
      take<subsampled_laplace_event>(event, count, out) ||
      take<subsampled_gaussian_replace_one_event>(event, count, out) ||
      take<mixture_of_gaussians_event>(event, count, out) ||
      take<truncated_subsampled_gaussian_event>(event, count, out) ||
      take<within_tv<pure_dp>>(event, count, out) || take<within_tv<zcdp>>(event, count, out)) {
    return;
  }
  throw py::type_error("privet: " + std::string(py::str(py::type::of(event).attr("__name__"))) +
                       " is not a privacy event (privet.accounting's event classes, "
                       "SelfComposedEvent or ComposedEvent)");
}

flat_events flatten_event(py::handle event, std::int64_t count) {
  flat_events out;
  flatten(event, checked_count(count), out);
  return out;
}

void record_all(privacy_odometer& odometer, const flat_events& events) {
  if (events.size() == 1) {  // record() leaves the odometer unchanged when it throws
    std::visit([&](const auto& e) { record_event(odometer, e, events[0].second); },
               events[0].first);
    return;
  }
  privacy_odometer next = odometer;  // all or nothing
  for (const auto& entry : events) {
    // Not a structured binding: clang 14 refuses to capture one in a lambda.
    const auto count = entry.second;
    std::visit([&](const auto& e) { record_event(next, e, count); }, entry.first);
  }
  odometer = std::move(next);
}

/// describe() of an event; a within_tv is its base's, then the distance.
template <class E>
std::string describe_event(const E& e) {
  if constexpr (is_within_tv<E>) {
    return describe(e.base()) + " within total variation " +
           detail::format_value(e.total_variation());
  } else {
    return std::string(describe(e));
  }
}

std::string describe_any(const any_event& e) {
  return std::visit([](const auto& x) { return describe_event(x); }, e);
}

/// unsupported_reason for one event; a within_tv's is its base's (the
/// accountants compose the base, see record_event).
template <class E>
std::optional<std::string> unsupported_reason_of(const E& e, accountant_kind kind) {
  if constexpr (is_within_tv<E>) {
    return unsupported_reason_of(e.base(), kind);
  } else {
    if (kind == accountant_kind::pld) {
      if constexpr (std::is_same_v<E, fixed_size_subsampled_gaussian_event> ||
                    std::is_same_v<E, zcdp> || std::is_same_v<E, rdp> ||
                    std::is_same_v<E, tree_aggregation_event>) {
        return "no PLD for " + std::string(describe(e));
      }
    } else if (kind == accountant_kind::prv) {
      if constexpr (!prv_event<E>) {
        return "no PRV for " + std::string(describe(e));
      } else if constexpr (std::is_same_v<E, approx_dp>) {
        if (e.delta() > 0) return "no PRV for " + std::string(describe(e));
      }
    }
    return std::nullopt;
  }
}

/// Why `kind` cannot take the event, or nothing: events.hpp's pld_of has no
/// PLD for a fixed-size sample or zCDP, and prv_of exists only for the
/// prv_event types (an (eps, delta) with delta > 0 excepted). Checked at
/// compose time so that the accountant refuses the event there, with the
/// reason, instead of at every later query.
std::optional<std::string> unsupported_reason(const any_event& event, accountant_kind kind) {
  return std::visit([&](const auto& e) { return unsupported_reason_of(e, kind); }, event);
}

[[noreturn]] void throw_unsupported(const any_event& event, accountant_kind kind,
                                    const std::string& why) {
  throw_invalid(
      "event", describe_any(event),
      std::string("an event the ") + to_string(kind) + " accountant supports (" + why + ")");
}

accountant_kind parse_kind(const py::object& kind) {
  if (py::isinstance<py::str>(kind)) {
    const auto s = kind.cast<std::string>();
    if (s == "rdp" || s == "RDP") return accountant_kind::rdp;
    if (s == "pld" || s == "PLD") return accountant_kind::pld;
    if (s == "prv" || s == "PRV") return accountant_kind::prv;
    throw_invalid("accountant", s, "\"rdp\", \"pld\" or \"prv\"");
  }
  return kind.cast<accountant_kind>();
}

/// The options every accountant and calibration takes from Python.
struct accountant_settings {
  std::optional<std::vector<double>> orders;
  double value_discretization_interval = 1e-4;
  double tail_mass_truncation = 1e-15;
  pld_discretization discretization = pld_discretization::connect_dots;
  double eps_error = 0.01;
  std::optional<double> delta_error;

  [[nodiscard]] odometer_options odometer(bool use_pld, bool use_prv) const {
    odometer_options o;
    if (orders) o.orders = *orders;
    o.pld.value_discretization_interval = value_discretization_interval;
    o.pld.tail_mass_truncation = tail_mass_truncation;
    o.pld.discretization = discretization;
    o.use_pld = use_pld;
    o.use_prv = use_prv;
    o.prv.eps_error = eps_error;
    o.prv.delta_error = delta_error;
    return o;
  }
};

[[noreturn]] void throw_unavailable(accountant_kind kind, double delta, const std::string& why) {
  throw invalid_parameter("accountant", std::string("privet: the ") + to_string(kind) +
                                            " accountant has no answer at delta = " +
                                            detail::format_value(delta) + ": " + why);
}

/// One accountant (RDP, PLD or PRV) over a privacy_odometer.
class accountant {
 public:
  accountant(accountant_kind kind, const accountant_settings& s)
      : kind_(kind),
        odometer_(s.odometer(kind == accountant_kind::pld, kind == accountant_kind::prv)) {
    if (kind == accountant_kind::prv) prv_accountant check(odometer_.options().prv);
  }

  void compose(const flat_events& events) {
    for (const auto& [event, count] : events) {
      if (auto why = unsupported_reason(event, kind_)) throw_unsupported(event, kind_, *why);
    }
    std::lock_guard lock(mutex_);
    record_all(odometer_, events);
    pld_cache_.reset();
  }

  [[nodiscard]] double epsilon(double delta) {
    std::lock_guard lock(mutex_);
    validate_delta_positive(delta);
    if (odometer_.releases() == 0) return 0;  // nothing spent, by every accountant
    if (kind_ == accountant_kind::pld && odometer_.total_variation() == 0) {
      // The composed PLD is kept for later queries (a composition costs
      // tens of milliseconds, a query microseconds). With samplers within a
      // total variation, report() below sets their share aside.
      try {
        if (const auto* p = composed_pld()) {
          if (p->has_epsilon(delta)) return p->epsilon(delta).epsilon();
        }
      } catch (const invalid_parameter&) {
        // report() below names the cause.
      }
    }
    const odometer_report r = odometer_.report(delta);
    const auto& answer = kind_ == accountant_kind::pld   ? r.pld
                         : kind_ == accountant_kind::prv ? r.prv
                                                         : r.rdp;
    if (!answer) {
      throw_unavailable(kind_, delta,
                        kind_ == accountant_kind::pld   ? r.pld_unavailable
                        : kind_ == accountant_kind::prv ? r.prv_unavailable
                        : r.rdp_unavailable.empty()     ? std::string("no RDP answer")
                                                        : r.rdp_unavailable);
    }
    return answer->epsilon();
  }

  [[nodiscard]] double delta(double epsilon) {
    std::lock_guard lock(mutex_);
    validate_non_negative(epsilon, "epsilon");
    if (odometer_.releases() == 0) return 0;
    if (kind_ == accountant_kind::rdp) return odometer_.delta(epsilon);
    if (kind_ == accountant_kind::pld) {
      try {
        if (const auto* p = composed_pld()) return with_total_variation(epsilon, p->delta(epsilon));
      } catch (const invalid_parameter& e) {
        throw invalid_parameter(
            "accountant", std::string("privet: the PLD accountant has no answer at epsilon = ") +
                              detail::format_value(epsilon) +
                              ": the composition cannot be held on its grid: " + e.what());
      }
      throw invalid_parameter(
          "accountant",
          "privet: the PLD accountant has no answer at epsilon = " + detail::format_value(epsilon) +
              ": " + odometer_.report(0.5).pld_unavailable);
    }
    const auto acc = odometer_.prv_accounting();
    if (!acc) {
      throw invalid_parameter(
          "accountant",
          "privet: the PRV accountant has no answer at epsilon = " + detail::format_value(epsilon) +
              ": " + odometer_.report(0.5).prv_unavailable);
    }
    return with_total_variation(epsilon, acc->delta(epsilon).upper);
  }

  [[nodiscard]] prv_bounds epsilon_bounds(double delta) {
    std::lock_guard lock(mutex_);
    validate_delta_positive(delta);
    if (odometer_.releases() == 0) return {0, 0, 0};
    const auto acc = odometer_.prv_accounting();
    if (!acc) throw_unavailable(kind_, delta, odometer_.report(delta).prv_unavailable);
    refuse_total_variation("bounds on epsilon");
    return acc->compose(delta).epsilon(delta);
  }

  [[nodiscard]] prv_bounds delta_bounds(double epsilon) {
    std::lock_guard lock(mutex_);
    validate_non_negative(epsilon, "epsilon");
    if (odometer_.releases() == 0) return {0, 0, 0};
    const auto acc = odometer_.prv_accounting();
    if (!acc) {
      throw invalid_parameter(
          "accountant",
          "privet: the PRV accountant has no answer at epsilon = " + detail::format_value(epsilon) +
              ": " + odometer_.report(0.5).prv_unavailable);
    }
    refuse_total_variation("bounds on delta");
    return acc->delta(epsilon);
  }

  /// privacy_loss_distribution::true_positive_rates of the composition (the
  /// rates themselves when nothing was composed: no test beats chance).
  [[nodiscard]] std::vector<double> true_positive_rates(const std::vector<double>& fprs,
                                                        const std::vector<double>& deltas) {
    std::lock_guard lock(mutex_);
    if (odometer_.releases() == 0) {
      // Nothing released: no test beats chance, TPR = FPR exactly.
      (void)composed_or_throw(nullptr).true_positive_rates(fprs, deltas);  // checks the arguments
      return fprs;
    }
    const auto& composed = composed_or_throw("true positive rates");
    refuse_total_variation("true positive rates");
    return composed.true_positive_rates(fprs, deltas);
  }

  /// privacy_loss_distribution::gdp_parameter_estimate of the composition
  /// (0 when nothing was composed).
  [[nodiscard]] double gdp_parameter_estimate(const std::vector<double>& fprs,
                                              const std::vector<double>& deltas) {
    std::lock_guard lock(mutex_);
    if (odometer_.releases() == 0) {
      (void)composed_or_throw(nullptr).true_positive_rates(fprs, deltas);  // checks the arguments
      return 0;
    }
    return composed_or_throw("a GDP estimate").gdp_parameter_estimate(fprs, deltas);
  }

  [[nodiscard]] std::vector<double> rdp() {
    std::lock_guard lock(mutex_);
    return odometer_.composed_rdp().epsilons();
  }
  [[nodiscard]] const std::vector<double>& orders() const { return odometer_.options().orders; }
  [[nodiscard]] std::vector<privacy_odometer::entry> entries() {
    std::lock_guard lock(mutex_);
    return odometer_.entries();
  }
  [[nodiscard]] std::uint64_t releases() {
    std::lock_guard lock(mutex_);
    return odometer_.releases();
  }
  [[nodiscard]] accountant_kind kind() const { return kind_; }
  [[nodiscard]] double total_variation() {
    std::lock_guard lock(mutex_);
    return odometer_.total_variation();
  }

 private:
  /// delta for the runs made: the exact events' delta at epsilon plus
  /// (1 + e^epsilon) times their total variation (add_total_variation).
  [[nodiscard]] double with_total_variation(double epsilon, double delta) const {
    const double tv = odometer_.total_variation();
    return tv == 0 ? delta : add_total_variation(approx_dp(epsilon, delta), tv).delta();
  }

  /// The PRV bounds and the true positive rates are the exact events'; the
  /// accounting layer has no form of them for samplers within a total
  /// variation, so they are refused rather than reported for other
  /// mechanisms than the ones run.
  void refuse_total_variation(const char* what) const {
    const double tv = odometer_.total_variation();
    if (tv == 0) return;
    throw invalid_parameter("accountant",
                            std::string("privet: the ") + to_string(kind_) + " accountant has no " +
                                what + " for releases within total variation " +
                                detail::format_value(tv) +
                                " of exact ones (constant-time noise): get_epsilon and get_delta "
                                "account for it; for these, release with noise=\"secure\"");
  }
  /// The composed PLD (an identity PLD, loss 0 with mass 1, for `what` =
  /// nullptr); throws invalid_parameter naming `accountant` with the reason
  /// when this is no PLD accountant or the composition has no PLD.
  const privacy_loss_distribution& composed_or_throw(const char* what) {
    if (kind_ != accountant_kind::pld) {
      throw invalid_parameter("accountant", std::string("privet: the ") + to_string(kind_) +
                                                " accountant has no privacy loss distribution; " +
                                                "ask the PLD accountant");
    }
    if (what == nullptr) {
      static const privacy_loss_distribution identity(pld_pmf(1e-4, 0, {1.0}, 0.0));
      return identity;
    }
    try {
      if (const auto* p = composed_pld()) return *p;
    } catch (const invalid_parameter& e) {
      throw invalid_parameter("accountant", std::string("privet: the PLD accountant has no ") +
                                                what +
                                                ": the composition cannot be held on its "
                                                "grid: " +
                                                e.what());
    }
    throw invalid_parameter("accountant", std::string("privet: the PLD accountant has no ") + what +
                                              ": " + odometer_.report(0.5).pld_unavailable);
  }

  const privacy_loss_distribution* composed_pld() {
    if (!pld_cache_) pld_cache_ = odometer_.composed_pld();
    return *pld_cache_ ? &**pld_cache_ : nullptr;
  }

  accountant_kind kind_;
  privacy_odometer odometer_;
  std::optional<std::optional<privacy_loss_distribution>> pld_cache_;
  std::mutex mutex_;
};

/// A privacy_odometer guarded for use from several Python threads.
class odometer_handle {
 public:
  explicit odometer_handle(odometer_options o) : odometer_(std::move(o)) {}
  void record(const flat_events& events) {
    std::lock_guard lock(mutex_);
    record_all(odometer_, events);
  }
  odometer_report report(double delta) {
    std::lock_guard lock(mutex_);
    return odometer_.report(delta);
  }
  double delta(double epsilon) {
    std::lock_guard lock(mutex_);
    return odometer_.delta(epsilon);
  }
  std::vector<privacy_odometer::entry> entries() {
    std::lock_guard lock(mutex_);
    return odometer_.entries();
  }
  std::uint64_t releases() {
    std::lock_guard lock(mutex_);
    return odometer_.releases();
  }
  std::vector<double> rdp() {
    std::lock_guard lock(mutex_);
    return odometer_.composed_rdp().epsilons();
  }
  const odometer_options& options() const { return odometer_.options(); }
  double total_variation() {
    std::lock_guard lock(mutex_);
    return odometer_.total_variation();
  }

 private:
  privacy_odometer odometer_;
  std::mutex mutex_;
};

/// The epsilon one accountant certifies for a flattened composition
/// (calibration.hpp's accountant_epsilon, for several kinds of event).
double flat_epsilon(const flat_events& events, double delta, accountant_kind kind,
                    const accountant_settings& s) {
  privacy_odometer odometer(s.odometer(kind == accountant_kind::pld, kind == accountant_kind::prv));
  for (const auto& [event, count] : events) {
    std::visit([&](const auto& e) { record_event(odometer, e, count); }, event);
  }
  const auto r = odometer.report(delta);
  const auto& answer = kind == accountant_kind::pld   ? r.pld
                       : kind == accountant_kind::prv ? r.prv
                                                      : r.rdp;
  if (!answer) {
    throw_unavailable(kind, delta,
                      kind == accountant_kind::pld   ? r.pld_unavailable
                      : kind == accountant_kind::prv ? r.prv_unavailable
                      : r.rdp_unavailable.empty()    ? std::string("no RDP answer")
                                                     : r.rdp_unavailable);
  }
  return answer->epsilon();
}

accountant_settings settings_from(std::optional<std::vector<double>> orders, double h, double tau,
                                  pld_discretization d, double eps_error,
                                  std::optional<double> delta_error) {
  accountant_settings s;
  s.orders = std::move(orders);
  s.value_discretization_interval = h;
  s.tail_mass_truncation = tau;
  s.discretization = d;
  s.eps_error = eps_error;
  s.delta_error = delta_error;
  return s;
}

template <class E>
void bind_event_common(py::class_<E>& c) {
  c.def("__repr__", [](const E& e) { return "<privet.accounting." + describe(e) + ">"; })
      .def(
          "describe", [](const E& e) { return std::string(describe(e)); },
          "The event's kind and parameters: the key by which an odometer merges repeats.")
      .def("__eq__",
           [](const E& a, py::object b) {
             return py::isinstance<E>(b) && describe(a) == describe(b.cast<const E&>());
           })
      .def("__hash__", [](const E& e) { return py::hash(py::str(describe(e))); });
}

/// n points from 10^a to 10^b, equally spaced in log (numpy.logspace).
std::vector<double> logspace(double a, double b, std::size_t n) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = std::pow(10.0, a + (b - a) * static_cast<double>(i) / static_cast<double>(n - 1));
  }
  return v;
}

/// dp_accounting's default deltas for true positive rates: 0 and 3,000
/// log-spaced from 1e-13 to 1.
std::vector<double> default_tpr_deltas() {
  std::vector<double> d = logspace(-13, 0, 3000);
  d.insert(d.begin(), 0.0);
  return d;
}

/// dp_accounting's default false positive rates for the GDP estimate.
std::vector<double> default_gdp_fprs() {
  return logspace(-12, std::log10(0.5), 500);
}

const char* const accountant_kwargs_doc =
    "orders: the RDP accountant's Renyi orders (default: default_rdp_orders()); "
    "value_discretization_interval, tail_mass_truncation, discretization: the PLD grid "
    "(defaults 1e-4, 1e-15, CONNECT_DOTS, dp_accounting's); eps_error, delta_error: the PRV "
    "accountant's accuracy (defaults 0.01 and, unset, delta / 1000 per query).";

}  // namespace

void bind_accounting(py::module_& parent) {
  auto m = parent.def_submodule(
      "accounting",
      "Privacy accounting: events, the RDP, PLD and PRV accountants, the odometer and noise "
      "calibration (privet/accounting/*.hpp).");

  py::enum_<accountant_kind>(m, "AccountantKind", "Which accountant answers or certifies.")
      .value("RDP", accountant_kind::rdp, "Renyi DP curves, converted to (eps, delta).")
      .value("PLD", accountant_kind::pld, "Privacy loss distributions composed by FFT.")
      .value("PRV", accountant_kind::prv, "Privacy random variables (Gopi, Lee & Wutschitz 2021).");
  py::enum_<pld_discretization>(m, "Discretization",
                                "How a continuous privacy loss is put on the PLD's grid; both "
                                "are pessimistic.")
      .value("ROUND_UP", pld_discretization::round_up, "Each loss rounded up to the grid.")
      .value("CONNECT_DOTS", pld_discretization::connect_dots,
             "Mass split between neighbouring grid points (tighter; the default).");

  m.def("default_rdp_orders", &default_rdp_orders,
        "privet's default Renyi orders: 1.1 to 10.9 by 0.1, 11 to 63, 128, 256, 512, 1024.");

  // ---- events -----------------------------------------------------------------------
  py::class_<gaussian_event> gaussian(
      m, "GaussianEvent",
      "Gaussian noise of standard deviation noise_multiplier times the query's L2 sensitivity.");
  gaussian
      .def(py::init(
               [](double s) { return gaussian_event{validate_positive(s, "noise_multiplier")}; }),
           py::arg("noise_multiplier"),
           "Throws InvalidParameter unless noise_multiplier is finite and > 0.")
      .def_property_readonly(
          "noise_multiplier", [](const gaussian_event& e) { return e.noise_multiplier; },
          "Noise standard deviation / L2 sensitivity.");
  bind_event_common(gaussian);

  py::class_<laplace_event> laplace(
      m, "LaplaceEvent",
      "Laplace noise of scale `scale` times the query's L1 sensitivity ((1 / scale)-DP).");
  laplace
      .def(py::init([](double b) { return laplace_event{validate_positive(b, "scale")}; }),
           py::arg("scale"), "Throws InvalidParameter unless scale is finite and > 0.")
      .def_property_readonly(
          "scale", [](const laplace_event& e) { return e.scale; }, "Noise scale / L1 sensitivity.");
  bind_event_common(laplace);

  py::class_<discrete_gaussian_event> dg(
      m, "DiscreteGaussianEvent",
      "Discrete Gaussian noise (parameter sigma) on an integer query of L2 sensitivity "
      "`sensitivity`.");
  dg.def(py::init([](double sigma, std::int64_t d) {
           return discrete_gaussian_event{validate_positive(sigma, "sigma"),
                                          validate_at_least<std::int64_t>(d, 1, "sensitivity")};
         }),
         py::arg("sigma"), py::arg("sensitivity") = 1,
         "Throws InvalidParameter unless sigma is finite and > 0 and sensitivity >= 1.")
      .def_property_readonly(
          "sigma", [](const discrete_gaussian_event& e) { return e.sigma; },
          "The discrete Gaussian's parameter, in the query's units.")
      .def_property_readonly(
          "sensitivity", [](const discrete_gaussian_event& e) { return e.sensitivity; },
          "The query's integer L2 sensitivity.");
  bind_event_common(dg);

  py::class_<discrete_laplace_event> dl(
      m, "DiscreteLaplaceEvent",
      "Discrete Laplace noise, P[x] proportional to exp(-|x| / scale), on an integer query of L1 "
      "sensitivity `sensitivity`.");
  dl.def(py::init([](double scale, std::int64_t d) {
           return discrete_laplace_event{validate_positive(scale, "scale"),
                                         validate_at_least<std::int64_t>(d, 1, "sensitivity")};
         }),
         py::arg("scale"), py::arg("sensitivity") = 1,
         "Throws InvalidParameter unless scale is finite and > 0 and sensitivity >= 1.")
      .def_property_readonly(
          "scale", [](const discrete_laplace_event& e) { return e.scale; },
          "The noise scale, in the query's units.")
      .def_property_readonly(
          "sensitivity", [](const discrete_laplace_event& e) { return e.sensitivity; },
          "The query's integer L1 sensitivity.");
  bind_event_common(dl);

  py::class_<randomized_response_event> rr(
      m, "RandomizedResponseEvent",
      "k-ary randomised response: the true value kept with probability e^eps / (e^eps + k - 1).");
  rr.def(py::init([](double eps, std::int64_t k) {
           validate_epsilon(eps);
           return randomized_response_event{
               eps, static_cast<std::uint64_t>(validate_at_least<std::int64_t>(k, 2, "k"))};
         }),
         py::arg("epsilon"), py::arg("k") = 2,
         "Throws InvalidParameter unless epsilon is finite and > 0 and k >= 2.")
      .def_property_readonly(
          "epsilon", [](const randomized_response_event& e) { return e.epsilon; },
          "The mechanism's pure-DP epsilon.")
      .def_property_readonly(
          "k", [](const randomized_response_event& e) { return e.k; }, "Number of categories.");
  bind_event_common(rr);

  py::class_<randomized_response_special_event> rrs(
      m, "RandomizedResponseSpecialEvent",
      "k-ary randomised response under replace-special neighbours: the special record's report "
      "is uniform over the k values (dp_accounting's REPLACE_SPECIAL), with its own RDP curve "
      "and PLD.");
  rrs.def(py::init([](double eps, std::int64_t k) {
            validate_epsilon(eps);
            return randomized_response_special_event{
                eps, static_cast<std::uint64_t>(validate_at_least<std::int64_t>(k, 2, "k"))};
          }),
          py::arg("epsilon"), py::arg("k") = 2,
          "Throws InvalidParameter unless epsilon is finite and > 0 and k >= 2.")
      .def_property_readonly(
          "epsilon", [](const randomized_response_special_event& e) { return e.epsilon; },
          "The mechanism's pure-DP epsilon.")
      .def_property_readonly(
          "k", [](const randomized_response_special_event& e) { return e.k; },
          "Number of categories.");
  bind_event_common(rrs);

  py::class_<bounded_range_event> br(
      m, "BoundedRangeEvent",
      "An eps-bounded-range mechanism (privacy loss within an interval of width eps), such as "
      "the exponential mechanism run as an eps-DP one: RDP curve min(eps, kl + (alpha - 1) "
      "eps^2 / 8) (Cesar & Rogers 2021); PLD as eps-DP.");
  br.def(py::init([](double eps) {
           validate_non_negative(eps, "epsilon");
           if (!std::isfinite(eps)) throw_invalid("epsilon", eps, "finite and >= 0");
           return bounded_range_event{eps};
         }),
         py::arg("epsilon"), "Throws InvalidParameter unless epsilon is finite and >= 0.")
      .def_property_readonly(
          "epsilon", [](const bounded_range_event& e) { return e.epsilon; },
          "The width of the privacy loss's range.");
  bind_event_common(br);

  py::class_<tree_aggregation_event> tree(
      m, "TreeAggregationEvent",
      "One epoch of tree aggregation (DP-FTRL, Kairouz et al. 2021) over trees of these step "
      "counts, each record in at most one leaf of all of them, replace-special neighbours: the "
      "Gaussian curve alpha depth / (2 sigma^2), depth = max ceil(log2(steps + 1)). RDP "
      "accountant only.");
  tree.def(py::init([](double sigma, std::vector<std::int64_t> steps) {
             validate_positive(sigma, "noise_multiplier");
             if (steps.empty()) throw_empty("step_counts");
             std::vector<std::uint64_t> out;
             for (std::size_t i = 0; i < steps.size(); ++i) {
               validate_at_least<std::int64_t>(steps[i], 0,
                                               "step_counts[" + std::to_string(i) + "]");
               out.push_back(static_cast<std::uint64_t>(steps[i]));
             }
             return tree_aggregation_event{sigma, std::move(out)};
           }),
           py::arg("noise_multiplier"), py::arg("step_counts"),
           "Throws InvalidParameter unless noise_multiplier is finite and > 0 and step_counts "
           "is a non-empty list of integers >= 0.")
      .def_property_readonly(
          "noise_multiplier", [](const tree_aggregation_event& e) { return e.noise_multiplier; },
          "Noise standard deviation per node / L2 sensitivity.")
      .def_property_readonly(
          "step_counts", [](const tree_aggregation_event& e) { return e.step_counts; },
          "The steps (leaves) of each tree.");
  bind_event_common(tree);

  py::class_<subsampled_gaussian_event> sg(
      m, "SubsampledGaussianEvent",
      "One DP-SGD step: Gaussian noise with this noise multiplier on a Poisson sample with rate "
      "q, add/remove neighbours.");
  sg.def(py::init([](double q, double s) {
           if (!(q > 0 && q <= 1)) throw_invalid("q", q, "(0, 1]");
           return subsampled_gaussian_event{q, validate_positive(s, "noise_multiplier")};
         }),
         py::arg("q"), py::arg("noise_multiplier"),
         "Throws InvalidParameter unless q is in (0, 1] and noise_multiplier is finite and > 0.")
      .def_property_readonly(
          "q", [](const subsampled_gaussian_event& e) { return e.q; }, "Poisson sampling rate.")
      .def_property_readonly(
          "noise_multiplier", [](const subsampled_gaussian_event& e) { return e.noise_multiplier; },
          "Noise standard deviation / L2 sensitivity (clipping norm).");
  bind_event_common(sg);

  py::class_<fixed_size_subsampled_gaussian_event> fs(
      m, "FixedSizeSubsampledGaussianEvent",
      "One DP-SGD step on a fixed-size batch drawn without replacement (replace-one "
      "neighbours; sensitivity 2C for clipping norm C). Only the RDP accountant covers it "
      "(Wang, Balle & Kasiviswanathan 2019, Theorem 9).");
  fs.def(py::init([](double f, double s) {
           if (!(f > 0 && f <= 1)) throw_invalid("sampling_fraction", f, "(0, 1]");
           return fixed_size_subsampled_gaussian_event{f, validate_positive(s, "noise_multiplier")};
         }),
         py::arg("sampling_fraction"), py::arg("noise_multiplier"),
         "Throws InvalidParameter unless sampling_fraction is in (0, 1] and noise_multiplier is "
         "finite and > 0.")
      .def_property_readonly(
          "sampling_fraction",
          [](const fixed_size_subsampled_gaussian_event& e) { return e.sampling_fraction; },
          "Batch size / dataset size.")
      .def_property_readonly(
          "noise_multiplier",
          [](const fixed_size_subsampled_gaussian_event& e) { return e.noise_multiplier; },
          "Noise standard deviation / replace-one sensitivity.");
  bind_event_common(fs);

  py::class_<subsampled_laplace_event> sl(
      m, "SubsampledLaplaceEvent",
      "Laplace noise of scale `scale` times the L1 sensitivity on a Poisson sample with rate q, "
      "add/remove neighbours (exact PLD; RDP by the pure DP it satisfies).");
  sl.def(py::init([](double q, double b) {
           if (!(q > 0 && q <= 1)) throw_invalid("q", q, "(0, 1]");
           return subsampled_laplace_event{q, validate_positive(b, "scale")};
         }),
         py::arg("q"), py::arg("scale"),
         "Throws InvalidParameter unless q is in (0, 1] and scale is finite and > 0.")
      .def_property_readonly(
          "q", [](const subsampled_laplace_event& e) { return e.q; }, "Poisson sampling rate.")
      .def_property_readonly(
          "scale", [](const subsampled_laplace_event& e) { return e.scale; },
          "Noise scale / L1 sensitivity.");
  bind_event_common(sl);

  py::class_<subsampled_gaussian_replace_one_event> sgr(
      m, "SubsampledGaussianReplaceOneEvent",
      "Gaussian noise with this noise multiplier on a Poisson sample with rate q, replace-one "
      "neighbours (exact PLD; RDP by the Gaussian at sensitivity 2).");
  sgr.def(py::init([](double q, double s) {
            if (!(q > 0 && q <= 1)) throw_invalid("q", q, "(0, 1]");
            return subsampled_gaussian_replace_one_event{q,
                                                         validate_positive(s, "noise_multiplier")};
          }),
          py::arg("q"), py::arg("noise_multiplier"),
          "Throws InvalidParameter unless q is in (0, 1] and noise_multiplier is finite and > 0.")
      .def_property_readonly(
          "q", [](const subsampled_gaussian_replace_one_event& e) { return e.q; },
          "Poisson sampling rate.")
      .def_property_readonly(
          "noise_multiplier",
          [](const subsampled_gaussian_replace_one_event& e) { return e.noise_multiplier; },
          "Noise standard deviation / L2 norm bound.");
  bind_event_common(sgr);

  py::class_<mixture_of_gaussians_event> mog(
      m, "MixtureOfGaussiansEvent",
      "Gaussian noise of standard deviation sigma on a query whose sensitivity is "
      "sensitivities[i] with probability probs[i], add/remove neighbours (Choquette-Choo et al. "
      "2023, MMCC; exact PLD; RDP by the largest sensitivity).");
  mog.def(py::init([](double sigma, std::vector<double> c, std::vector<double> p) {
            mixture_of_gaussians_event e{sigma, std::move(c), std::move(p)};
            (void)privacy_loss_distribution::mixture_of_gaussians(e.sigma, e.sensitivities, e.probs,
                                                                  pld_options{1.0});
            return e;
          }),
          py::arg("sigma"), py::arg("sensitivities"), py::arg("probs"),
          "Throws InvalidParameter unless sigma is finite and > 0, the sensitivities are finite, "
          ">= 0 and one of them positive with positive probability, and the probs are in [0, 1] "
          "and sum to 1 (within 1e-9), one per sensitivity.")
      .def_property_readonly(
          "sigma", [](const mixture_of_gaussians_event& e) { return e.sigma; },
          "Noise standard deviation.")
      .def_property_readonly(
          "sensitivities", [](const mixture_of_gaussians_event& e) { return e.sensitivities; },
          "The possible sensitivities.")
      .def_property_readonly(
          "probs", [](const mixture_of_gaussians_event& e) { return e.probs; },
          "Their probabilities.");
  bind_event_common(mog);

  py::class_<truncated_subsampled_gaussian_event> tsg(
      m, "TruncatedSubsampledGaussianEvent",
      "dp_accounting's truncated Poisson-subsampled Gaussian: n records each sampled with "
      "probability q, batches cut to `batch` records (exact PLD by dp_accounting's analysis; "
      "RDP by the Gaussian at sensitivity 2).");
  tsg.def(py::init([](std::int64_t n, double q, std::int64_t batch, double s, bool replace_one) {
            validate_at_least<std::int64_t>(n, 1, "n");
            validate_at_least<std::int64_t>(batch, 1, "batch");
            if (!(q > 0 && q <= 1)) throw_invalid("q", q, "(0, 1]");
            return truncated_subsampled_gaussian_event{
                static_cast<std::uint64_t>(n), q, static_cast<std::uint64_t>(batch),
                validate_positive(s, "noise_multiplier"), replace_one};
          }),
          py::arg("n"), py::arg("q"), py::arg("batch"), py::arg("noise_multiplier"),
          py::arg("replace_one") = false,
          "Throws InvalidParameter unless n, batch >= 1, q is in (0, 1] and noise_multiplier is "
          "finite and > 0.")
      .def_property_readonly(
          "n", [](const truncated_subsampled_gaussian_event& e) { return e.n; }, "Dataset size.")
      .def_property_readonly(
          "q", [](const truncated_subsampled_gaussian_event& e) { return e.q; },
          "Poisson sampling rate.")
      .def_property_readonly(
          "batch", [](const truncated_subsampled_gaussian_event& e) { return e.batch; },
          "Largest batch kept.")
      .def_property_readonly(
          "noise_multiplier",
          [](const truncated_subsampled_gaussian_event& e) { return e.noise_multiplier; },
          "Noise standard deviation / L2 norm bound.")
      .def_property_readonly(
          "replace_one", [](const truncated_subsampled_gaussian_event& e) { return e.replace_one; },
          "Replace-one neighbours (else add/remove).");
  bind_event_common(tsg);

  py::class_<pure_dp> pure(m, "PureDp",
                           "An eps-DP release (accounted as binary randomised response).");
  pure.def(py::init<double>(), py::arg("epsilon"),
           "Throws InvalidParameter unless epsilon is finite and >= 0.")
      .def_property_readonly("epsilon", &pure_dp::epsilon, "The guarantee's epsilon.");
  bind_event_common(pure);

  py::class_<approx_dp> approx(
      m, "ApproxDp",
      "An (eps, delta)-DP release (the worst pair it allows in the PLD accountant; in the RDP "
      "accountant eps-randomised response's curve, its delta composed multiplicatively: "
      "1 - prod(1 - delta_i)), also what reports return.");
  approx
      .def(py::init<double, double>(), py::arg("epsilon"), py::arg("delta"),
           "Throws InvalidParameter unless epsilon is finite and >= 0 and delta is in [0, 1].")
      .def_property_readonly("epsilon", &approx_dp::epsilon, "The multiplicative bound epsilon.")
      .def_property_readonly("delta", &approx_dp::delta, "The additive slack delta.");
  bind_event_common(approx);

  py::class_<zcdp> zc(m, "Zcdp", "A rho-zCDP release (RDP curve alpha rho; no PLD).");
  zc.def(py::init<double>(), py::arg("rho"),
         "Throws InvalidParameter unless rho is finite and >= 0.")
      .def_property_readonly("rho", &zcdp::rho, "The zCDP parameter rho.");
  bind_event_common(zc);

  py::class_<gdp> gd(m, "Gdp", "A mu-GDP release (the Gaussian with noise multiplier 1 / mu).");
  gd.def(py::init<double>(), py::arg("mu"), "Throws InvalidParameter unless mu is finite and >= 0.")
      .def_property_readonly("mu", &gdp::mu, "The Gaussian DP parameter mu.");
  bind_event_common(gd);

  py::class_<rdp> curve(m, "RdpCurve",
                        "A release known by its Renyi DP curve: epsilons[i] at orders[i] (RDP "
                        "accountant only; it must be on the accountant's orders).");
  curve
      .def(py::init<std::vector<double>, std::vector<double>>(), py::arg("orders"),
           py::arg("epsilons"),
           "Throws InvalidParameter unless the orders are >= 1 (1: KL divergence; +inf: max "
           "divergence) and increasing and the "
           "epsilons, one per order, are >= 0 (+inf allowed).")
      .def_property_readonly("orders", &rdp::orders, "The Renyi orders.")
      .def_property_readonly("epsilons", &rdp::epsilons, "The curve's value at each order.")
      .def(
          "epsilon",
          [](const rdp& g, double delta) {
            const auto [guarantee, order] = to_approx_dp_with_order(g, delta);
            return py::make_tuple(guarantee.epsilon(), order);
          },
          py::arg("delta"),
          "(epsilon, order): the smallest epsilon for delta in (0, 1) by the improved "
          "conversion (Balle et al. 2020, Theorem 21) and the order attaining it.")
      .def(
          "delta",
          [](const rdp& g, double epsilon) {
            // rdp_delta is a minimum over the orders: each order alone gives
            // its term, and the smallest is the answer.
            double best = rdp_delta(g, epsilon), order = g.orders().front();
            for (std::size_t i = 0; i < g.orders().size(); ++i) {
              if (rdp_delta(rdp({g.orders()[i]}, {g.epsilons()[i]}), epsilon) == best) {
                order = g.orders()[i];
                break;
              }
            }
            return py::make_tuple(best, order);
          },
          py::arg("epsilon"),
          "(delta, order): the smallest delta at epsilon >= 0 by the improved conversion "
          "(capped at 1) and the order attaining it.")
      .def("__repr__", [](const rdp& g) { return "<privet.accounting." + describe(g) + ">"; })
      .def(
          "describe", [](const rdp& g) { return describe(g); },
          "The event's kind (curves are never merged by an odometer).");

  py::class_<self_composed_event>(m, "SelfComposedEvent", "`count` runs of one event.")
      .def(py::init([](py::object event, std::int64_t count) {
             flat_events check;
             flatten(event, 1, check);  // a TypeError now, not at compose time
             return self_composed_event{std::move(event), checked_count(count)};
           }),
           py::arg("event"), py::arg("count"),
           "Throws InvalidParameter unless count >= 1, TypeError unless event is an event.")
      .def_property_readonly(
          "event", [](const self_composed_event& e) { return e.event; }, "The event that runs.")
      .def_property_readonly(
          "count", [](const self_composed_event& e) { return e.count; }, "How many times it runs.")
      .def("__repr__", [](const self_composed_event& e) {
        return "<privet.accounting.SelfComposedEvent(" + std::string(py::repr(e.event)) + ", " +
               std::to_string(e.count) + ")>";
      });

  py::class_<composed_event>(m, "ComposedEvent", "Each event in turn, on the same neighbours.")
      .def(py::init([](std::vector<py::object> events) {
             flat_events check;
             for (const auto& e : events) flatten(e, 1, check);
             return composed_event{std::move(events)};
           }),
           py::arg("events"), "Throws TypeError unless every element is an event.")
      .def_property_readonly(
          "events", [](const composed_event& e) { return e.events; }, "The events, in order.")
      .def("__repr__", [](const composed_event& e) {
        std::string s = "<privet.accounting.ComposedEvent([";
        for (std::size_t i = 0; i < e.events.size(); ++i) {
          if (i) s += ", ";
          s += std::string(py::repr(e.events[i]));
        }
        return s + "])>";
      });

  m.def(
      "rdp_curve",
      [](py::object event, std::vector<double> orders, std::int64_t count) {
        const flat_events flat = flatten_event(event, count);
        py::gil_scoped_release nogil;
        rdp total = detail::rdp_curve(orders, [](double) { return 0.0; });
        for (const auto& [e, n] : flat) {
          const auto each = std::visit(
              [&](const auto& x) -> std::optional<rdp> {
                if constexpr (is_within_tv<std::decay_t<decltype(x)>>) {
                  // Total variation bounds no Renyi divergence: the curve
                  // of the exact base would not hold for the runs made.
                  throw_invalid("event", describe_event(x),
                                "an event with an RDP curve (a guarantee within a total "
                                "variation has none: compose it with an accountant)");
                } else {
                  return rdp_of(x, orders);
                }
              },
              e);
          if (!each) {
            throw_invalid("event", describe_any(e), "an event with an RDP curve");
          }
          total = total + each->composed(n);
        }
        return total;
      },
      py::arg("event"), py::arg("orders"), py::arg("count") = 1,
      "The RDP curve of `count` runs of the event (composite ones composed) on `orders` (>= 1, "
      "+inf allowed, increasing). Raises InvalidParameter for an event without a curve (an "
      "(eps, delta) with delta > 0 gives its eps part only: use an accountant for the delta).");

  m.def(
      "repeat_and_select",
      [](const rdp& single, double mean, double shape) {
        py::gil_scoped_release nogil;
        return rdp_repeat_and_select(single, mean, shape);
      },
      py::arg("curve"), py::arg("mean"), py::arg("shape"),
      "The RDP curve of running a mechanism with this curve a random number of times and "
      "releasing the best run (Papernot & Steinke 2022): mean >= 1 repetitions; shape +inf for "
      "Poisson, 0 logarithmic, 1 geometric, else truncated negative binomial. On the curve's "
      "orders.");

  m.def("truncated_negative_binomial_mean", &truncated_negative_binomial_mean, py::arg("gamma"),
        py::arg("shape"),
        "The mean of the truncated negative binomial with parameter gamma in (0, 1] and shape "
        ">= 0 (Papernot & Steinke 2022, Definition 1).");
  m.def("truncated_negative_binomial_gamma", &truncated_negative_binomial_gamma, py::arg("shape"),
        py::arg("mean"),
        "The gamma of the truncated negative binomial with this shape and mean >= 1, rounded "
        "down (bisection to 1e-12 relative).");

  // ---- composition of guarantees ---------------------------------------------------------
  m.def(
      "compose_basic", [](const std::vector<approx_dp>& parts) { return compose_basic(parts); },
      py::arg("parts"),
      "Basic composition (privet::compose_basic): epsilons and deltas add, rounded up. Raises "
      "InvalidParameter for an empty list or a total delta >= 1.");
  m.def(
      "compose_basic",
      [](const std::vector<within_tv<pure_dp>>& parts) { return compose_basic(parts); },
      py::arg("parts"),
      "Basic composition of PureDpWithinTv guarantees (privet::compose_basic): the epsilons "
      "add and so do the total variations, each rounded up (the distance capped at 1).");
  m.def(
      "compose_zcdp", [](const std::vector<zcdp>& parts) { return compose(parts); },
      py::arg("parts"),
      "Sequential composition of zCDP guarantees (privet::compose, Bun & Steinke 2016, Lemma "
      "2.3): the rhos add, rounded up. Raises InvalidParameter for an empty list.");
  m.def(
      "compose_zcdp", [](const std::vector<within_tv<zcdp>>& parts) { return compose(parts); },
      py::arg("parts"),
      "Sequential composition of ZcdpWithinTv guarantees (privet::compose): the rhos add and so "
      "do the total variations, each rounded up (the distance capped at 1).");

  m.def(
      "flatten",
      [](py::object event, std::int64_t count) {
        py::list out;
        for (const auto& [e, n] : flatten_event(event, count)) {
          out.append(py::make_tuple(std::visit([](const auto& x) { return py::cast(x); }, e), n));
        }
        return out;
      },
      py::arg("event"), py::arg("count") = 1,
      "The leaves of a (possibly composite) event as a list of (event, total count).");

  // ---- accountants ---------------------------------------------------------------------
  py::class_<prv_bounds>(m, "PrvBounds",
                         "lower <= the true value <= upper; estimate has no guarantee.")
      .def_readonly("lower", &prv_bounds::lower, "A lower bound on the true value.")
      .def_readonly("estimate", &prv_bounds::estimate, "The point estimate (no guarantee).")
      .def_readonly("upper", &prv_bounds::upper, "An upper bound; the one to certify with.")
      .def("__repr__", [](const prv_bounds& b) {
        return "PrvBounds(lower=" + detail::format_value(b.lower) +
               ", estimate=" + detail::format_value(b.estimate) +
               ", upper=" + detail::format_value(b.upper) + ")";
      });

  py::class_<accountant> acc(
      m, "_Accountant",
      "One accountant (RDP, PLD or PRV) over a privacy odometer: compose events, then ask for "
      "epsilon or delta. An answer it cannot give raises InvalidParameter with the reason.");
  acc.def(py::init([](accountant_kind kind, std::optional<std::vector<double>> orders, double h,
                      double tau, pld_discretization d, double eps_error,
                      std::optional<double> delta_error) {
            return std::make_unique<accountant>(
                kind, settings_from(std::move(orders), h, tau, d, eps_error, delta_error));
          }),
          py::arg("kind"), py::kw_only(), py::arg("orders") = py::none(),
          py::arg("value_discretization_interval") = 1e-4, py::arg("tail_mass_truncation") = 1e-15,
          py::arg("discretization") = pld_discretization::connect_dots, py::arg("eps_error") = 0.01,
          py::arg("delta_error") = py::none(),
          (std::string("An empty accountant of this kind. ") + accountant_kwargs_doc).c_str())
      .def(
          "compose",
          [](py::object self, py::object event, std::int64_t count) {
            auto& a = self.cast<accountant&>();
            const flat_events flat = flatten_event(event, count);
            {
              py::gil_scoped_release nogil;
              a.compose(flat);
            }
            return self;
          },
          py::arg("event"), py::arg("count") = 1,
          "Records `count` runs of the event (a composite one flattened first) and returns the "
          "accountant. Atomic: an event the accountant cannot take raises InvalidParameter with "
          "the reason and records nothing.")
      .def(
          "unsupported_reason",
          [](const accountant& a, py::object event) -> std::optional<std::string> {
            for (const auto& [e, n] : flatten_event(event, 1)) {
              if (auto why = unsupported_reason(e, a.kind())) return why;
            }
            return std::nullopt;
          },
          py::arg("event"),
          "Why compose() would refuse the event (the first leaf without a representation in "
          "this accountant), or None if it takes it.")
      .def(
          "supports",
          [](const accountant& a, py::object event) {
            for (const auto& [e, n] : flatten_event(event, 1)) {
              if (unsupported_reason(e, a.kind())) return false;
            }
            return true;
          },
          py::arg("event"), "Whether compose() takes the event.")
      .def(
          "get_epsilon",
          [](accountant& a, double delta) {
            py::gil_scoped_release nogil;
            return a.epsilon(delta);
          },
          py::arg("delta"),
          "The smallest epsilon this accountant certifies for `delta` in (0, 1) (rounded up). "
          "Raises InvalidParameter when it has no answer (delta at or below the PLD's mass at "
          "+infinity, an event it has no representation for), with the reason.")
      .def(
          "get_delta",
          [](accountant& a, double epsilon) {
            py::gil_scoped_release nogil;
            return a.delta(epsilon);
          },
          py::arg("epsilon"),
          "The smallest delta this accountant certifies at `epsilon` >= 0 (rounded up; for the "
          "PRV accountant its upper bound).")
      .def(
          "get_epsilon_bounds",
          [](accountant& a, double delta) {
            py::gil_scoped_release nogil;
            return a.epsilon_bounds(delta);
          },
          py::arg("delta"),
          "PRV accountant only (InvalidParameter otherwise): bounds on epsilon at delta.")
      .def(
          "get_delta_bounds",
          [](accountant& a, double epsilon) {
            py::gil_scoped_release nogil;
            return a.delta_bounds(epsilon);
          },
          py::arg("epsilon"),
          "PRV accountant only (InvalidParameter otherwise): bounds on delta at epsilon.")
      .def(
          "true_positive_rates",
          [](accountant& a, const std::vector<double>& fprs,
             std::optional<std::vector<double>> deltas) {
            const std::vector<double> d = deltas ? std::move(*deltas) : default_tpr_deltas();
            py::gil_scoped_release nogil;
            return a.true_positive_rates(fprs, d);
          },
          py::arg("false_positive_rates"), py::arg("deltas") = py::none(),
          "PLD accountant only: for each false positive rate, an upper bound on the true positive "
          "rate of any membership test, the smallest over the (epsilon, delta) pairs of `deltas` "
          "(default: 0 and 3,000 log-spaced from 1e-13 to 1, dp_accounting's) of "
          "min(e^eps alpha + delta, 1 - e^-eps (1 - alpha - delta)); one sweep of the PLD for "
          "all deltas. Raises InvalidParameter for rates or deltas outside [0, 1].")
      .def(
          "gdp_parameter_estimate",
          [](accountant& a, std::optional<std::vector<double>> fprs,
             std::optional<std::vector<double>> deltas) {
            const std::vector<double> f = fprs ? std::move(*fprs) : default_gdp_fprs();
            const std::vector<double> d = deltas ? std::move(*deltas) : default_tpr_deltas();
            py::gil_scoped_release nogil;
            return a.gdp_parameter_estimate(f, d);
          },
          py::arg("false_positive_rates") = py::none(), py::arg("deltas") = py::none(),
          "PLD accountant only: an estimate (no bound either way) of the mu-GDP parameter: the "
          "largest Phi^-1(TPR) - Phi^-1(alpha) over the rates alpha in (m, 1/2] (default: 500 "
          "log-spaced from 1e-12 to 1/2), m the composed PLD's mass at +infinity; inf when no "
          "rate is left or a TPR bound is 1.")
      .def_property_readonly("kind", &accountant::kind, "Which accountant this is.")
      .def_property_readonly("orders", &accountant::orders, "The Renyi orders (RDP curve).")
      .def_property_readonly("rdp", &accountant::rdp,
                             "The composed RDP curve on `orders` (every accountant keeps it).")
      .def_property_readonly(
          "entries",
          [](accountant& a) {
            py::list out;
            for (const auto& e : a.entries()) out.append(py::make_tuple(e.description, e.count));
            return out;
          },
          "The recorded kinds of event as (description, count), in order of recording.")
      .def_property_readonly("releases", &accountant::releases,
                             "The total number of runs recorded.")
      .def_property_readonly(
          "total_variation", &accountant::total_variation,
          "The recorded runs' total variation from the exact events (the sum of the "
          "within-TV events' distances times their counts, rounded up; 0 with exact noise). "
          "get_epsilon and get_delta hold for the runs made: they set (1 + e^eps) times it "
          "aside within delta.");

  // ---- odometer ------------------------------------------------------------------------
  py::class_<odometer_report>(m, "OdometerReport", "What the odometer can justify for one delta.")
      .def_readonly("rdp", &odometer_report::rdp, "The RDP accountant's answer (or None).")
      .def_readonly("pld", &odometer_report::pld, "The PLD accountant's answer (or None).")
      .def_readonly("prv", &odometer_report::prv, "The PRV accountant's upper bound (or None).")
      .def_readonly("tightest", &odometer_report::tightest, "The answer with the smallest epsilon.")
      .def_readonly("method", &odometer_report::method, "The accountant `tightest` came from.")
      .def_readonly("pld_unavailable", &odometer_report::pld_unavailable,
                    "Why the PLD accountant, when on, has no answer (empty when it has one).")
      .def_readonly("prv_unavailable", &odometer_report::prv_unavailable,
                    "Likewise for the PRV accountant.")
      .def_readonly("rdp_unavailable", &odometer_report::rdp_unavailable,
                    "Why the RDP accountant has no answer: with samplers' total variation "
                    "recorded, an epsilon whose (1 + e^eps) TV no share of delta covers.")
      .def("__repr__", [](const odometer_report& r) {
        return "<OdometerReport tightest=(" + detail::format_value(r.tightest.epsilon()) + ", " +
               detail::format_value(r.tightest.delta()) + ") by " + to_string(r.method) + ">";
      });

  py::class_<odometer_handle>(
      m, "Odometer",
      "A privacy odometer: records events as they happen and answers the tightest (eps, "
      "delta) its RDP, PLD and (optionally) PRV accountants justify.")
      .def(py::init([](std::optional<std::vector<double>> orders, bool pld, bool prv, double h,
                       double tau, pld_discretization d, double eps_error,
                       std::optional<double> delta_error) {
             return std::make_unique<odometer_handle>(
                 settings_from(std::move(orders), h, tau, d, eps_error, delta_error)
                     .odometer(pld, prv));
           }),
           py::kw_only(), py::arg("orders") = py::none(), py::arg("pld") = true,
           py::arg("prv") = false, py::arg("value_discretization_interval") = 1e-4,
           py::arg("tail_mass_truncation") = 1e-15,
           py::arg("discretization") = pld_discretization::connect_dots,
           py::arg("eps_error") = 0.01, py::arg("delta_error") = py::none(),
           (std::string("An empty odometer; pld / prv switch those accountants on. ") +
            accountant_kwargs_doc)
               .c_str())
      .def(
          "record",
          [](py::object self, py::object event, std::int64_t count) {
            auto& o = self.cast<odometer_handle&>();
            const flat_events flat = flatten_event(event, count);
            {
              py::gil_scoped_release nogil;
              o.record(flat);
            }
            return self;
          },
          py::arg("event"), py::arg("count") = 1,
          "Records `count` runs of the event; an event a query could not use raises here and "
          "leaves the odometer unchanged.")
      .def(
          "report",
          [](odometer_handle& o, double delta) {
            py::gil_scoped_release nogil;
            return o.report(delta);
          },
          py::arg("delta"),
          "Every accountant's answer for `delta` in (0, 1) and the tightest one; raises "
          "InvalidParameter if none reaches delta.")
      .def(
          "get_epsilon",
          [](odometer_handle& o, double delta) {
            py::gil_scoped_release nogil;
            return o.report(delta).tightest.epsilon();
          },
          py::arg("delta"), "The tightest epsilon for `delta` in (0, 1).")
      .def(
          "get_delta",
          [](odometer_handle& o, double epsilon) {
            py::gil_scoped_release nogil;
            return o.delta(epsilon);
          },
          py::arg("epsilon"), "The smallest delta any accountant gives for `epsilon` >= 0.")
      .def_property_readonly(
          "entries",
          [](odometer_handle& o) {
            py::list out;
            for (const auto& e : o.entries()) out.append(py::make_tuple(e.description, e.count));
            return out;
          },
          "The recorded kinds of event as (description, count), in order of recording.")
      .def_property_readonly("releases", &odometer_handle::releases,
                             "The total number of runs recorded.")
      .def_property_readonly("total_variation", &odometer_handle::total_variation,
                             "The recorded runs' total variation from the exact events "
                             "(rounded up; 0 with exact noise), which every answer accounts "
                             "for.")
      .def_property_readonly("rdp", &odometer_handle::rdp,
                             "The composed RDP curve on the odometer's orders.")
      .def_property_readonly(
          "orders", [](const odometer_handle& o) { return o.options().orders; },
          "The RDP accountant's orders.");

  // ---- calibration ---------------------------------------------------------------------
  m.def(
      "dpsgd_noise_multiplier",
      [](double q, std::int64_t steps, double epsilon, double delta, py::object kind,
         std::optional<std::vector<double>> orders, double h, double tau, pld_discretization d,
         double eps_error, std::optional<double> delta_error, double tolerance,
         double coarsen_above) {
        calibration_options c;
        c.accountant = parse_kind(kind);
        c.coarsen_above = coarsen_above;
        const auto s = settings_from(std::move(orders), h, tau, d, eps_error, delta_error);
        const auto o = s.odometer(true, true);
        c.orders = o.orders;
        c.pld = o.pld;
        c.prv = o.prv;
        c.relative_tolerance = tolerance;
        const auto n = checked_count(steps, "steps");
        const approx_dp target(epsilon, delta);
        py::gil_scoped_release nogil;
        return dpsgd_noise_multiplier(q, n, target, c);
      },
      py::arg("q"), py::arg("steps"), py::arg("epsilon"), py::arg("delta"), py::kw_only(),
      py::arg("accountant") = "pld", py::arg("orders") = py::none(),
      py::arg("value_discretization_interval") = 1e-4, py::arg("tail_mass_truncation") = 1e-15,
      py::arg("discretization") = pld_discretization::connect_dots, py::arg("eps_error") = 0.01,
      py::arg("delta_error") = py::none(), py::arg("relative_tolerance") = 1e-6,
      py::arg("coarsen_above") = 10.0,
      "The smallest DP-SGD noise multiplier for Poisson rate q and `steps` steps that the chosen "
      "accountant (\"rdp\", \"pld\" or \"prv\") certifies (epsilon, delta)-DP, to "
      "relative_tolerance, rounded up. Above a target epsilon of coarsen_above, the PLD grid "
      "step and the PRV eps_error grow in proportion to the target, so that every calibration "
      "answers in seconds (any grid certifies; float('inf') never coarsens). Raises "
      "InvalidParameter for q outside (0, 1], steps < 1, an invalid target, coarsen_above <= 0, "
      "or a target no sigma up to 1e6 reaches.");

  m.def(
      "smallest_noise_multiplier",
      [](py::function make_event, std::int64_t count, double epsilon, double delta, py::object kind,
         std::optional<std::vector<double>> orders, double h, double tau, pld_discretization d,
         double eps_error, std::optional<double> delta_error, double tolerance,
         double coarsen_above) {
        const auto k = parse_kind(kind);
        auto s = settings_from(std::move(orders), h, tau, d, eps_error, delta_error);
        const auto n = checked_count(count);
        const approx_dp target(epsilon, delta);
        validate_delta_positive(target.delta(), "target.delta");
        validate_epsilon(target.epsilon(), "target_epsilon");
        // The grid the C++ calibration would use for this target.
        calibration_options c;
        c.pld.value_discretization_interval = h;
        c.prv.eps_error = eps_error;
        c.coarsen_above = coarsen_above;
        const auto [grid, mesh] = calibration_grid(target, c);
        s.value_discretization_interval = grid.value_discretization_interval;
        s.eps_error = mesh.eps_error;
        py::gil_scoped_release nogil;
        return smallest_noise_multiplier(
            [&](double sigma) {
              flat_events flat;
              {
                py::gil_scoped_acquire gil;
                flat = flatten_event(make_event(sigma), static_cast<std::int64_t>(n));
              }
              return flat_epsilon(flat, target.delta(), k, s);
            },
            target.epsilon(), tolerance);
      },
      py::arg("make_event"), py::arg("count"), py::arg("epsilon"), py::arg("delta"), py::kw_only(),
      py::arg("accountant") = "pld", py::arg("orders") = py::none(),
      py::arg("value_discretization_interval") = 1e-4, py::arg("tail_mass_truncation") = 1e-15,
      py::arg("discretization") = pld_discretization::connect_dots, py::arg("eps_error") = 0.01,
      py::arg("delta_error") = py::none(), py::arg("relative_tolerance") = 1e-6,
      py::arg("coarsen_above") = 10.0,
      "The smallest sigma such that `count` runs of make_event(sigma) (any event, composite "
      "ones too) meet (epsilon, delta) by the chosen accountant, for an epsilon that does not "
      "increase with sigma; coarsen_above as for dpsgd_noise_multiplier. A sigma below one already "
      "certified whose event the accountant "
      "cannot represent counts as not meeting the target; the returned sigma was certified.");
}

}  // namespace privet::python
