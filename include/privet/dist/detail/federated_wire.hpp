// privet/dist/detail/federated_wire.hpp — the byte formats the MPI
// federation (dist/federated_dpsgd.hpp) exchanges: a worker's gradient
// message, one rank's contribution to a round (its workers' messages, or
// the error that stopped it), the set-up records every rank checks against
// the others', and workers' privacy reports. Little-endian throughout, on
// the bounds-checked reader of crypto/detail/wire.hpp, so a malformed record
// is refused before anything is allocated for it.
//
// Every record opens with the format version and its kind. Doubles travel
// as their IEEE-754 binary64 bits, so a decoded gradient equals the encoded
// one bit for bit, which the federation's replicas rely on.
#pragma once

#include <privet/accounting/odometer.hpp>
#include <privet/algorithms/federated_dpsgd.hpp>
#include <privet/core/error.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/crypto/detail/wire.hpp>
#include <privet/ml/dpsgd.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace privet::dist::detail {

using privet::detail::wire_reader;
using privet::detail::wire_writer;

inline constexpr std::uint8_t federated_wire_version = 3;

enum class federated_record : std::uint8_t {
  gradient = 1,  ///< one worker's gradient message
  round = 2,     ///< a rank's messages for one round
  failure = 3,   ///< a rank could not take part: the error's text
  setup = 4,     ///< a rank's federation options, parameter count and weights
  ready = 5,     ///< a rank built its workers; whether its initial model is rank 0's
  report = 6,    ///< a rank's workers' privacy reports
};

inline void write_header(wire_writer& w, federated_record kind) {
  w.u8(federated_wire_version);
  w.u8(static_cast<std::uint8_t>(kind));
}

inline void read_header(wire_reader& r, federated_record kind) {
  const std::uint8_t version = r.u8();
  if (version != federated_wire_version) {
    r.fail("format version " + std::to_string(version) + " (this build reads version " +
           std::to_string(federated_wire_version) + ")");
  }
  const std::uint8_t got = r.u8();
  if (got != static_cast<std::uint8_t>(kind)) {
    r.fail("record kind " + std::to_string(got) + " where kind " +
           std::to_string(static_cast<unsigned>(kind)) + " was expected");
  }
}

inline void write_f64(wire_writer& w, double v) {
  w.u64(std::bit_cast<std::uint64_t>(v));
}
inline double read_f64(wire_reader& r) {
  return std::bit_cast<double>(r.u64());
}

inline std::uint8_t read_flag(wire_reader& r, const char* name) {
  const std::uint8_t v = r.u8();
  if (v > 1) r.fail(std::string(name) + " flag " + std::to_string(v) + " (0 or 1 expected)");
  return v;
}

inline void write_string(wire_writer& w, const std::string& s) {
  w.count(s.size());
  w.bytes({reinterpret_cast<const std::uint8_t*>(s.data()), s.size()});
}

inline std::string read_string(wire_reader& r) {
  std::string s(r.count(1), '\0');
  r.bytes({reinterpret_cast<std::uint8_t*>(s.data()), s.size()});
  return s;
}

// A gradient's entries as one block of little-endian binary64 values: one
// copy on little-endian hosts, a byte swap per value elsewhere.
inline void write_doubles(wire_writer& w, std::span<const double> v) {
  w.count(v.size());
  if constexpr (std::endian::native == std::endian::little) {
    w.bytes({reinterpret_cast<const std::uint8_t*>(v.data()), v.size() * sizeof(double)});
  } else {
    for (double x : v) write_f64(w, x);
  }
}

inline void read_doubles(wire_reader& r, std::span<double> out) {
  if constexpr (std::endian::native == std::endian::little) {
    r.bytes({reinterpret_cast<std::uint8_t*>(out.data()), out.size() * sizeof(double)});
  } else {
    for (double& x : out) x = read_f64(r);
  }
}

// ---- gradient messages ------------------------------------------------------
// kind 1 | round u64 | worker u32 | P u32 | P binary64

inline void write_gradient(wire_writer& w, const federated::gradient_message& m) {
  write_header(w, federated_record::gradient);
  w.u64(m.round);
  w.u32(m.worker);
  write_doubles(w, m.gradient);
}

// Worker `worker`'s message for round `round`, with `parameter_count`
// entries. Throws protocol_error for another round, worker or length, and
// serialization_error (from the reader) for a malformed record.
inline federated::gradient_message read_gradient(wire_reader& r, std::uint64_t round,
                                                 std::uint32_t worker,
                                                 std::size_t parameter_count) {
  read_header(r, federated_record::gradient);
  federated::gradient_message m;
  m.round = r.u64();
  if (m.round != round) {
    throw protocol_error("privet: federated DP-SGD: gradient message of round " +
                         std::to_string(m.round) + " while round " + std::to_string(round) +
                         " is exchanged");
  }
  m.worker = r.u32();
  if (m.worker != worker) {
    throw protocol_error("privet: federated DP-SGD: gradient message from worker " +
                         std::to_string(m.worker) + " where worker " + std::to_string(worker) +
                         "'s was expected");
  }
  const std::size_t n = r.count(sizeof(double));
  if (n != parameter_count) {
    throw protocol_error("privet: federated DP-SGD: gradient message of " + std::to_string(n) +
                         " entries from worker " + std::to_string(worker) + "; the model has " +
                         std::to_string(parameter_count) + " parameters");
  }
  m.gradient.resize(n);
  read_doubles(r, m.gradient);
  return m;
}

// ---- one rank's part of a collective step ------------------------------------
// round:   kind 2 | round u64 | n u32 | n gradient records
// failure: kind 3 | length u32 | the error's text

inline std::vector<std::uint8_t> encode_round(std::uint64_t round,
                                              const std::vector<federated::gradient_message>& ms) {
  wire_writer w;
  write_header(w, federated_record::round);
  w.u64(round);
  w.count(ms.size());
  for (const auto& m : ms) write_gradient(w, m);
  return w.take();
}

// Workers first .. first + count - 1's messages for `round`, in that order.
inline std::vector<federated::gradient_message> decode_round(std::span<const std::uint8_t> bytes,
                                                             std::uint64_t round,
                                                             std::uint32_t first, std::size_t count,
                                                             std::size_t parameter_count) {
  wire_reader r(bytes, "federated round record");
  read_header(r, federated_record::round);
  const std::uint64_t got = r.u64();
  if (got != round) {
    throw protocol_error("privet: federated DP-SGD: round record of round " + std::to_string(got) +
                         " while round " + std::to_string(round) + " is exchanged");
  }
  // A gradient record is at least 18 bytes.
  const std::size_t n = r.count(18);
  if (n != count) {
    throw protocol_error("privet: federated DP-SGD: round record with " + std::to_string(n) +
                         " messages where workers " + std::to_string(first) + " to " +
                         std::to_string(first + count - 1) + " (" + std::to_string(count) +
                         ") were expected");
  }
  std::vector<federated::gradient_message> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(read_gradient(r, round, first + static_cast<std::uint32_t>(i), parameter_count));
  }
  r.finish();
  return out;
}

inline std::vector<std::uint8_t> encode_failure(const std::string& what) {
  wire_writer w;
  write_header(w, federated_record::failure);
  write_string(w, what);
  return w.take();
}

// The error text of a failure record; nothing for any other record.
inline std::optional<std::string> failure_of(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < 2 || bytes[1] != static_cast<std::uint8_t>(federated_record::failure)) {
    return std::nullopt;
  }
  wire_reader r(bytes, "federated failure record");
  read_header(r, federated_record::failure);
  std::string what = read_string(r);
  r.finish();
  return what;
}

// ---- set-up ------------------------------------------------------------------
// setup: kind 4 | learning rate f64 | weight decay f64 | rounds u64 | rule u8
//        | parameter count u64 | n u32 | n weights f64 | noise u8 (0 simulation,
//        1 secure, 2 constant time)
//        | real bytes u8 | m u32 | m shape u64 (version 3)
// ready: kind 5 | initial model equal to rank 0's u8

struct federation_setup {
  federated::federation_options options;
  std::uint64_t parameter_count = 0;
  std::vector<double> weights;  ///< of this rank's workers, in order
  /// The rank's workers' noise policy (noise_code): a guarantee of one is
  /// not one of another, so every rank must use the same.
  std::uint8_t noise = 1;
  /// sizeof(Model::real_type): the width of every parameter and gradient.
  std::uint8_t real_bytes = sizeof(double);
  /// What the parameters mean beyond their count (model_shape): two models
  /// of equal count and equal (say, zero) initial values may differ in it.
  std::vector<std::uint64_t> shape;
};

inline std::vector<std::uint8_t> encode_setup(const federation_setup& s) {
  wire_writer w;
  write_header(w, federated_record::setup);
  write_f64(w, s.options.learning_rate);
  write_f64(w, s.options.weight_decay);
  w.u64(s.options.rounds);
  w.u8(static_cast<std::uint8_t>(s.options.rule));
  w.u64(s.parameter_count);
  write_doubles(w, s.weights);
  w.u8(s.noise);
  w.u8(s.real_bytes);
  w.count(s.shape.size());
  for (const std::uint64_t x : s.shape) w.u64(x);
  return w.take();
}

inline federation_setup decode_setup(std::span<const std::uint8_t> bytes) {
  wire_reader r(bytes, "federated set-up record");
  read_header(r, federated_record::setup);
  federation_setup s;
  s.options.learning_rate = read_f64(r);
  s.options.weight_decay = read_f64(r);
  s.options.rounds = r.u64();
  const std::uint8_t rule = r.u8();
  if (rule > static_cast<std::uint8_t>(federated::aggregation::batch_weighted)) {
    r.fail("aggregation rule " + std::to_string(rule));
  }
  s.options.rule = static_cast<federated::aggregation>(rule);
  s.parameter_count = r.u64();
  s.weights.resize(r.count(sizeof(double)));
  read_doubles(r, s.weights);
  s.noise = r.u8();
  if (s.noise > 2) {
    r.fail("noise policy " + std::to_string(s.noise) +
           " (0 simulation_only_noise, 1 secure_noise or 2 constant_time_noise expected)");
  }
  s.real_bytes = r.u8();
  s.shape.resize(r.count(sizeof(std::uint64_t)));
  for (std::uint64_t& x : s.shape) x = r.u64();
  r.finish();
  return s;
}

inline std::vector<std::uint8_t> encode_ready(bool same_initial) {
  wire_writer w;
  write_header(w, federated_record::ready);
  w.u8(same_initial ? 1 : 0);
  return w.take();
}

inline bool decode_ready(std::span<const std::uint8_t> bytes) {
  wire_reader r(bytes, "federated ready record");
  read_header(r, federated_record::ready);
  const bool same = read_flag(r, "initial model") == 1;
  r.finish();
  return same;
}

// ---- privacy reports ---------------------------------------------------------
// report: kind 6 | n u32 | n entries; an entry is name (u32 + bytes) | public u8
// | rounds u64 | noise std f64 | has report u8 [| steps u64 | sampling u8
// | rate f64 | multiplier f64 | rdp, pld, prv (u8 + eps f64 + delta f64 each)
// | tightest eps f64 + delta f64 | method u8]

inline void write_approx(wire_writer& w, const approx_dp& a) {
  write_f64(w, a.epsilon());
  write_f64(w, a.delta());
}

inline void write_optional_approx(wire_writer& w, const std::optional<approx_dp>& a) {
  w.u8(a ? 1 : 0);
  write_approx(w, a.value_or(approx_dp(0, 0)));
}

// approx_dp's constructor refuses a negative or non-finite epsilon and a
// delta outside [0, 1]; its invalid_parameter becomes the caller's error.
inline approx_dp read_approx(wire_reader& r) {
  const double eps = read_f64(r);
  const double delta = read_f64(r);
  return approx_dp(eps, delta);
}

inline std::optional<approx_dp> read_optional_approx(wire_reader& r, const char* name) {
  const bool present = read_flag(r, name) == 1;
  const approx_dp a = read_approx(r);
  return present ? std::optional<approx_dp>(a) : std::nullopt;
}

inline std::vector<std::uint8_t> encode_report(const std::vector<federated::worker_privacy>& ws) {
  wire_writer w;
  write_header(w, federated_record::report);
  w.count(ws.size());
  for (const auto& x : ws) {
    write_string(w, x.name);
    w.u8(x.is_public ? 1 : 0);
    w.u64(x.rounds);
    write_f64(w, x.noise_stddev);
    w.u8(x.spent ? 1 : 0);
    if (!x.spent) continue;
    const auto& s = *x.spent;
    w.u64(s.steps);
    w.u8(static_cast<std::uint8_t>(s.sampling));
    write_f64(w, s.sampling_rate);
    write_f64(w, s.noise_multiplier);
    write_optional_approx(w, s.accountants.rdp);
    write_optional_approx(w, s.accountants.pld);
    write_optional_approx(w, s.accountants.prv);
    write_approx(w, s.accountants.tightest);
    w.u8(static_cast<std::uint8_t>(s.accountants.method));
    w.u64(s.users);  // the privacy unit (version 2): 0 for one example
  }
  return w.take();
}

// One report record from r (several may follow each other in a gather).
// Throws serialization_error for a malformed record, invalid_parameter for
// a guarantee approx_dp refuses.
inline std::vector<federated::worker_privacy> read_report(wire_reader& r) {
  read_header(r, federated_record::report);
  // An entry is at least 22 bytes.
  const std::size_t n = r.count(22);
  std::vector<federated::worker_privacy> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    federated::worker_privacy x;
    x.name = read_string(r);
    x.is_public = read_flag(r, "public data") == 1;
    x.rounds = r.u64();
    x.noise_stddev = read_f64(r);
    if (read_flag(r, "privacy report") == 1) {
      const std::uint64_t steps = r.u64();
      const std::uint8_t sampling = r.u8();
      if (sampling > static_cast<std::uint8_t>(ml::batch_sampling::fixed_size)) {
        r.fail("batch sampling " + std::to_string(sampling));
      }
      const double rate = read_f64(r);
      const double multiplier = read_f64(r);
      auto rdp = read_optional_approx(r, "RDP");
      auto pld = read_optional_approx(r, "PLD");
      auto prv = read_optional_approx(r, "PRV");
      const approx_dp tightest = read_approx(r);
      const std::uint8_t method = r.u8();
      if (method > static_cast<std::uint8_t>(accountant_kind::prv)) {
        r.fail("accountant " + std::to_string(method));
      }
      const std::uint64_t users = r.u64();
      if (users > std::numeric_limits<std::size_t>::max()) {
        r.fail("user count " + std::to_string(users));
      }
      x.spent = ml::dpsgd_privacy_report{
          steps, static_cast<ml::batch_sampling>(sampling), rate, multiplier,
          // The wire carries the answers, not a worker's reasons for an
          // accountant's silence (odometer_report::pld_unavailable).
          odometer_report{
              rdp, pld, prv, tightest, static_cast<accountant_kind>(method), {}, {}, {}},
          static_cast<std::size_t>(users)};
    }
    out.push_back(std::move(x));
  }
  return out;
}

}  // namespace privet::dist::detail
