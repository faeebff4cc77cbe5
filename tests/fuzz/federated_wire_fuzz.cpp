// libFuzzer target: the byte records of the MPI federation of federated
// DP-SGD (dist/detail/federated_wire.hpp) on arbitrary bytes: a gradient
// message (through dist::decode_gradient_message when MPI's headers are
// there), a round record, a failure record, a set-up record, a ready record
// and a privacy report. Expected parameters are fixed (round 7, workers 2
// and 3, 4 parameters): the seed corpus holds records that match them.
//
// Every decode either succeeds or throws what its comment documents:
// protocol_error for a gradient message, protocol_error or
// serialization_error for a round record, serialization_error for the
// others and, for a report, invalid_parameter for a guarantee approx_dp
// refuses. A record that decodes is re-encoded: the one encoding of a
// gradient, round, failure, set-up or ready record is the input itself; a
// report (whose absent guarantees are not kept) decodes again to what
// re-encodes the same. Anything else aborts.
#ifdef PRIVET_HAS_MPI
#include <privet/dist/federated_dpsgd.hpp>
#endif
#include <privet/dist/detail/federated_wire.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

namespace {

namespace wire = privet::dist::detail;
using bytes = std::vector<std::uint8_t>;

constexpr std::uint64_t round_id = 7;
constexpr std::uint32_t first_worker = 2;
constexpr std::size_t workers = 2;
constexpr std::size_t parameters = 4;

void same(const bytes& again, std::span<const std::uint8_t> in) {
  if (!(again.size() == in.size() && std::equal(again.begin(), again.end(), in.begin()))) {
    std::abort();
  }
}

template <class F>
void expect_serialization(F f) {
  try {
    f();
  } catch (const privet::serialization_error&) {
  }
}

std::vector<privet::federated::worker_privacy> decode_report(std::span<const std::uint8_t> in) {
  privet::detail::wire_reader r(in, "federated privacy report");
  auto out = wire::read_report(r);
  r.finish();
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> in(data, size);

#ifdef PRIVET_HAS_MPI
  try {
    const auto m = privet::dist::decode_gradient_message(in, round_id, first_worker, parameters);
    same(privet::dist::encode_gradient_message(m), in);
  } catch (const privet::protocol_error&) {
  }
#else
  expect_serialization([&] {
    privet::detail::wire_reader r(in, "federated gradient message");
    try {
      privet::federated::gradient_message m =
          wire::read_gradient(r, round_id, first_worker, parameters);
      r.finish();
      privet::detail::wire_writer w;
      wire::write_gradient(w, m);
      same(w.take(), in);
    } catch (const privet::protocol_error&) {
    }
  });
#endif

  try {
    const auto ms = wire::decode_round(in, round_id, first_worker, workers, parameters);
    same(wire::encode_round(round_id, ms), in);
  } catch (const privet::serialization_error&) {
  } catch (const privet::protocol_error&) {
  }

  expect_serialization([&] {
    if (const auto what = wire::failure_of(in)) same(wire::encode_failure(*what), in);
  });

  expect_serialization([&] { same(wire::encode_setup(wire::decode_setup(in)), in); });

  expect_serialization([&] { same(wire::encode_ready(wire::decode_ready(in)), in); });

  try {
    const auto report = decode_report(in);
    std::size_t text = 0;
    for (const auto& w : report) text += privet::federated::to_string(w).size();
    (void)text;
    const bytes once = wire::encode_report(report);
    same(wire::encode_report(decode_report(once)), once);
  } catch (const privet::serialization_error&) {
  } catch (const privet::invalid_parameter&) {
  }
  return 0;
}
