// privet/dist/federated_dpsgd.hpp — federated DP-SGD across organisations
// (Sotto Voce, Shoemate et al. 2022, arXiv:2207.07816; the algorithm of
// algorithms/federated_dpsgd.hpp) with each organisation on its own MPI
// rank, and the wire form of its gradient messages.
//
// Each rank hosts a contiguous range of the federation's workers, with their
// data, generators and replicas; worker ids follow rank order (rank 0's
// first), so a federation whose ranks host members m_0, m_1, ... is the
// in-process `federated::federation` of the members m_0 ++ m_1 ++ ... . A
// round is the in-process round with an all-gather in the middle:
//
//   1. every rank runs its workers' private halves (contribute_round);
//   2. the encoded messages are all-gathered (communicator::all_gather);
//   3. every rank decodes all of them (round, worker and length checked)
//      and runs the same aggregator on them in worker order, then applies
//      the update to its replicas (finish_round).
//
// Why an all-gather and not MPI_Allreduce: the update must be bitwise equal
// on every rank and to the in-process federation's, and MPI_SUM leaves the
// order of the floating-point additions to the implementation (dist/mpi.hpp).
// Each rank adding the same W gradients in worker order makes the update a
// function of the messages alone; the cost is W gradients received per rank
// instead of one, small beside computing per-example gradients.
//
// Privacy is the in-process federation's: only the privatised messages
// leave a rank, every replica's later state is post-processing of them, and
// each worker's (eps, delta) is its own odometer's (the accounting layer),
// gathered to one rank by gather_privacy_report.
//
// Collective discipline: every public member that communicates must be
// called on every rank, in the same order. An error on one rank (a bad
// worker option, a worker's failure in a round) is carried to every rank in
// the same collective, so no rank is left waiting: the rank that failed
// rethrows its own exception, the others throw protocol_error naming it.
// Ranks that disagree on the federation options (learning rate, weight
// decay, rounds: the schedule each worker's budget is calibrated for, the
// aggregation rule), the noise policy (secure or simulation), the model's
// real type, parameter count or shape (model_shape), or the initial model
// all throw invalid_parameter naming the first such value and rank, before
// any worker is built or any data touched. Each worker's own privacy
// parameters (clip norm, batch or sampling rate, privacy unit, budget,
// accountant) are its organisation's choice and may differ between workers
// and ranks: its guarantee is computed from them alone. After a failed round the
// replicas may differ, and every later round throws protocol_error.
#pragma once

#include <privet/algorithms/federated_dpsgd.hpp>
#include <privet/core/concepts.hpp>
#include <privet/core/csprng.hpp>
#include <privet/core/error.hpp>
#include <privet/core/validate.hpp>
#include <privet/dist/detail/federated_wire.hpp>
#include <privet/dist/mpi.hpp>
#include <privet/mechanisms/noise.hpp>
#include <privet/ml/model.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace privet::dist {

/// A gradient message as bytes: version and kind (1 byte each), the round
/// (8), the worker (4), the entry count P (4) and P IEEE-754 binary64
/// values, little-endian: 18 + 8 P bytes. Throws serialization_error for
/// more than 2^32 - 1 entries.
[[nodiscard]] inline std::vector<std::uint8_t> encode_gradient_message(
    const federated::gradient_message& m) {
  privet::detail::wire_writer w;
  detail::write_gradient(w, m);
  return w.take();
}

/// The message in `bytes`, which must be worker `worker`'s for round
/// `round` with `parameter_count` entries. Throws protocol_error for
/// another round, worker or length, and for malformed bytes (truncated,
/// trailing bytes, another format version or record kind). Entries are not
/// checked for finiteness here; the aggregator refuses a non-finite one.
[[nodiscard]] inline federated::gradient_message decode_gradient_message(
    std::span<const std::uint8_t> bytes, std::uint64_t round, std::uint32_t worker,
    std::size_t parameter_count) {
  try {
    privet::detail::wire_reader r(bytes, "federated gradient message");
    auto m = detail::read_gradient(r, round, worker, parameter_count);
    r.finish();
    return m;
  } catch (const serialization_error& e) {
    throw protocol_error(e.what());
  }
}

namespace detail {

/// What `m`'s parameters mean beyond their count, as numbers the ranks
/// compare: an MLP's layer widths and hidden activation, an LSTM's input,
/// hidden and class dimensions and pooling, a logistic regression's
/// dimension and intercept; nothing for another model (its parameter count
/// and bitwise initial values are still compared).
template <class Model>
[[nodiscard]] std::vector<std::uint64_t> model_shape(const Model& m) {
  if constexpr (requires {
                  m.layers();
                  m.hidden_activation();
                }) {
    std::vector<std::uint64_t> s(m.layers().begin(), m.layers().end());
    s.push_back(static_cast<std::uint64_t>(m.hidden_activation()));
    return s;
  } else if constexpr (requires {
                         m.input_dim();
                         m.hidden();
                         m.classes();
                         m.pooling();
                       }) {
    return {m.input_dim(), m.hidden(), m.classes(), static_cast<std::uint64_t>(m.pooling())};
  } else if constexpr (requires {
                         m.dimension();
                         m.has_intercept();
                       }) {
    return {m.dimension(), m.has_intercept() ? 1u : 0u};
  } else {
    return {};
  }
}

/// The shape as text for a refusal: "3, 1", or "none".
inline std::string shape_text(const std::vector<std::uint64_t>& shape) {
  if (shape.empty()) return "none";
  std::string out;
  for (const std::uint64_t x : shape) out += (out.empty() ? "" : ", ") + std::to_string(x);
  return out;
}

}  // namespace detail

/// Federated DP-SGD over the ranks of a communicator: Sotto Voce's
/// federation (Shoemate, Jett, Cowan, Colbath, Honaker & Muthukumar 2022,
/// "Sotto Voce: Federated Speech Recognition with Differential Privacy
/// Guarantees") of DP-SGD workers (Abadi et al. 2016, Algorithm 1), each
/// rank hosting some of the workers and a replica of the model per worker.
/// A round costs each rank its workers' private steps plus an all-gather of
/// W gradient messages (W workers in all), O(W P) for P parameters; the
/// update is bitwise equal on every rank and to the in-process
/// federated::federation's. Every member that communicates is collective
/// (see the file comment for the error discipline).
///
/// @tparam Model a differentiable model whose real_type is trivially
///   copyable.
/// @tparam Noise secure_noise, constant_time_noise (every worker's noise
///   from the constant-time Gaussian, its odometer recording each step's
///   total variation, as federated::federation does), or
///   simulation_only_noise by name.
template <ml::differentiable_model Model, mechanism_noise_policy Noise = constant_time_noise>
class mpi_federation {
  static_assert(std::is_trivially_copyable_v<typename Model::real_type>,
                "mpi_federation compares the ranks' initial models byte for byte, so the "
                "model's real_type must be trivially copyable.");

 public:
  using worker_type = federated::worker<Model, Noise>;  ///< One organisation's worker.
  using batch_type = typename Model::batch_type;        ///< The model's batch (its data).
  /// One organisation hosted by this rank: its options and data.
  using member = typename federated::federation<Model, Noise>::member;

  /// This rank's `members` (at least one) join the federation; collective.
  /// Every rank passes the same `options` and a bitwise equal `initial`
  /// model. Throws on every rank: invalid_parameter for options, parameter
  /// counts or initial models that differ between ranks; on the rank at
  /// fault its own error (invalid_parameter for no members or a bad option)
  /// and protocol_error naming that rank elsewhere.
  mpi_federation(const communicator& comm, const Model& initial, std::vector<member> members,
                 const federated::federation_options& options)
      : comm_(comm), options_(options) {
    const auto ranks = static_cast<std::size_t>(comm_.size());
    // 1. Options, parameter count and weights, checked against every rank's.
    detail::federation_setup mine{options,
                                  initial.parameter_count(),
                                  {},
                                  noise_code(),
                                  static_cast<std::uint8_t>(sizeof(typename Model::real_type)),
                                  detail::model_shape(initial)};
    std::vector<std::uint8_t> record;
    std::exception_ptr local;
    try {
      federated::validate_options(options);
      if (members.empty()) throw_empty("members");
      if (members.size() > std::numeric_limits<std::uint32_t>::max()) {
        throw_invalid("members.size()", members.size(), "at most 2^32 - 1 workers");
      }
      for (const auto& m : members) {
        mine.weights.push_back(
            federated::aggregation_weight(options.rule, m.options, m.data.size()));
      }
      record = detail::encode_setup(mine);
    } catch (...) {
      local = std::current_exception();
      record = detail::encode_failure(what_of(local));
    }
    const auto setups = exchange(std::move(record), local, "while joining the federation");
    std::vector<double> weights;
    first_.resize(ranks + 1, 0);
    const auto reference_setup = decoded([&] { return detail::decode_setup(setups[0]); });
    for (std::size_t r = 0; r < ranks; ++r) {
      const auto s = decoded([&] { return detail::decode_setup(setups[r]); });
      check_same(s, r, reference_setup);
      weights.insert(weights.end(), s.weights.begin(), s.weights.end());
      if (weights.size() > std::numeric_limits<std::uint32_t>::max()) {
        throw_invalid("workers", weights.size(), "at most 2^32 - 1 over all ranks");
      }
      first_[r + 1] = weights.size();
    }

    // 2. Rank 0's initial model against this rank's, and the workers.
    const std::span<const typename Model::real_type> p = initial.parameters();
    std::vector<unsigned char> reference(p.size_bytes());
    std::memcpy(reference.data(), p.data(), reference.size());
    comm_.broadcast(reference, 0);
    const bool same_initial = std::memcmp(reference.data(), p.data(), reference.size()) == 0;
    local = nullptr;
    try {
      workers_.reserve(members.size());
      const auto first = static_cast<std::uint32_t>(first_[rank()]);
      for (std::size_t i = 0; i < members.size(); ++i) {
        workers_.emplace_back(first + static_cast<std::uint32_t>(i), std::move(members[i].options),
                              std::move(members[i].data), initial, options_);
      }
      record = detail::encode_ready(same_initial);
    } catch (...) {
      local = std::current_exception();
      record = detail::encode_failure(what_of(local));
    }
    const auto ready = exchange(std::move(record), local, "while building its workers");
    for (std::size_t r = 0; r < ranks; ++r) {
      if (!decoded([&] { return detail::decode_ready(ready[r]); })) {
        throw_invalid("initial model on rank " + std::to_string(r), "different",
                      "bitwise equal to rank 0's on every rank");
      }
    }
    aggregator_.emplace(initial.parameter_count(), std::move(weights));
  }

  /// The communicator the federation runs over.
  [[nodiscard]] const communicator& comm() const noexcept { return comm_; }
  /// The federation's options (equal on every rank).
  [[nodiscard]] const federated::federation_options& options() const noexcept { return options_; }
  /// This rank's workers, in id order.
  [[nodiscard]] const std::vector<worker_type>& workers() const noexcept { return workers_; }
  /// The id of this rank's first worker (ids follow rank order).
  [[nodiscard]] std::uint32_t first_worker() const noexcept {
    return static_cast<std::uint32_t>(first_[rank()]);
  }
  /// Workers over all ranks.
  [[nodiscard]] std::size_t total_workers() const noexcept { return first_.back(); }
  /// The number of rounds completed (the next round's number).
  [[nodiscard]] std::uint64_t rounds_done() const noexcept { return aggregator_->round(); }
  /// The shared model (this rank's first replica; every replica is equal).
  [[nodiscard]] const Model& model() const noexcept { return workers_.front().replica(); }

  /// One round, collective, with generators[i] for this rank's worker i.
  /// Throws budget_exhausted on every rank after the scheduled rounds; an
  /// error in this rank's round (invalid_parameter for the wrong number of
  /// generators, a worker's error) here and protocol_error on the others;
  /// protocol_error everywhere for a malformed message or after a failed
  /// round.
  template <random_bit_source G>
  void run_round(std::span<G> generators) {
    round_with(generators.size(), [&](std::size_t w) -> G& { return generators[w]; });
  }

  /// One round, each worker drawing from its thread's CSPRNG; collective.
  void run_round() {
    round_with(workers_.size(), [](std::size_t) -> csprng& { return secure_generator(); });
  }

  /// This rank's workers' privacy so far, from their own odometers.
  [[nodiscard]] std::vector<federated::worker_privacy> local_privacy_report() const {
    std::vector<federated::worker_privacy> out;
    for (const auto& w : workers_) out.push_back(federated::privacy_of(w));
    return out;
  }

  /// Every worker's privacy so far, in worker order, at `root` (empty
  /// elsewhere); collective. Throws invalid_parameter for a root outside
  /// [0, size()), protocol_error at root for a malformed report.
  [[nodiscard]] std::vector<federated::worker_privacy> gather_privacy_report(int root = 0) const {
    if (root < 0 || root >= comm_.size()) {
      throw_invalid("root", root, "a rank in [0, " + std::to_string(comm_.size()) + ")");
    }
    const auto all = comm_.gather(detail::encode_report(local_privacy_report()), root);
    std::vector<federated::worker_privacy> out;
    if (comm_.rank() != root) return out;
    decoded([&] {
      privet::detail::wire_reader r(all, "federated privacy report");
      for (std::size_t rank = 0; rank + 1 < first_.size(); ++rank) {
        auto part = detail::read_report(r);
        if (part.size() != first_[rank + 1] - first_[rank]) {
          throw protocol_error("privet: federated DP-SGD: rank " + std::to_string(rank) +
                               " reported " + std::to_string(part.size()) + " workers; it hosts " +
                               std::to_string(first_[rank + 1] - first_[rank]));
        }
        for (auto& x : part) out.push_back(std::move(x));
      }
      r.finish();
      return 0;
    });
    return out;
  }

 private:
  [[nodiscard]] std::size_t rank() const noexcept { return static_cast<std::size_t>(comm_.rank()); }

  static std::string what_of(const std::exception_ptr& e) {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      return x.what();
    } catch (...) {
      return "an exception that is not a std::exception";
    }
  }

  // A decoder's malformed-record and bad-guarantee errors as protocol_error.
  template <class Decode>
  static auto decoded(Decode&& decode) {
    try {
      return decode();
    } catch (const serialization_error& e) {
      throw protocol_error(e.what());
    } catch (const invalid_parameter& e) {
      throw protocol_error(std::string("privet: federated DP-SGD: a peer's record is invalid: ") +
                           e.what());
    }
  }

  // Every rank's record; if any rank sent a failure, throws on every rank
  // (see the file comment) instead of returning.
  std::vector<std::vector<std::uint8_t>> exchange(std::vector<std::uint8_t> mine,
                                                  const std::exception_ptr& local,
                                                  const std::string& phase) const {
    auto all = comm_.all_gather(mine);
    for (std::size_t r = 0; r < all.size(); ++r) {
      const auto failure = decoded([&] { return detail::failure_of(all[r]); });
      if (!failure) continue;
      if (local) std::rethrow_exception(local);
      throw protocol_error("privet: federated DP-SGD over MPI: rank " + std::to_string(r) +
                           " failed " + phase + ": " + *failure);
    }
    return all;
  }

  /// The set-up record's code for Noise.
  static constexpr std::uint8_t noise_code() noexcept {
    if constexpr (std::is_same_v<Noise, secure_noise>) {
      return 1;
    } else if constexpr (std::is_same_v<Noise, constant_time_noise>) {
      return 2;
    } else {
      return 0;
    }
  }

  void check_same(const detail::federation_setup& s, std::size_t r,
                  const detail::federation_setup& ref) const {
    auto differ = [&](const char* name, const auto& value, const auto& expected) {
      throw_invalid(std::string(name) + " on rank " + std::to_string(r), value,
                    "rank 0's " + privet::detail::format_value(expected) + " on every rank");
    };
    const auto& o = s.options;
    const auto& e = ref.options;
    if (std::bit_cast<std::uint64_t>(o.learning_rate) !=
        std::bit_cast<std::uint64_t>(e.learning_rate)) {
      differ("learning_rate", o.learning_rate, e.learning_rate);
    }
    if (std::bit_cast<std::uint64_t>(o.weight_decay) !=
        std::bit_cast<std::uint64_t>(e.weight_decay)) {
      differ("weight_decay", o.weight_decay, e.weight_decay);
    }
    if (o.rounds != e.rounds) differ("rounds", o.rounds, e.rounds);
    if (o.rule != e.rule) differ("rule", static_cast<int>(o.rule), static_cast<int>(e.rule));
    if (s.noise != ref.noise) {
      const auto noise = [](std::uint8_t code) {
        return std::string(code == 0   ? "simulation_only_noise"
                           : code == 1 ? "secure_noise"
                                       : "constant_time_noise");
      };
      differ("Noise", noise(s.noise), noise(ref.noise));
    }
    if (s.real_bytes != ref.real_bytes) {
      differ("sizeof(real_type)", unsigned{s.real_bytes}, unsigned{ref.real_bytes});
    }
    if (s.parameter_count != ref.parameter_count) {
      differ("parameter_count", s.parameter_count, ref.parameter_count);
    }
    if (s.shape != ref.shape) {
      differ("model shape", detail::shape_text(s.shape), detail::shape_text(ref.shape));
    }
  }

  template <federated::generator_selector GeneratorOf>
  void round_with(std::size_t generators, GeneratorOf&& generator_of) {
    if (failed_) {
      throw protocol_error("privet: federated DP-SGD over MPI: round " +
                           std::to_string(aggregator_->round()) +
                           " failed; the replicas may differ and the federation cannot continue");
    }
    const std::uint64_t round = aggregator_->round();
    federated::check_schedule(round, options_);
    // Cleared only once the update is applied everywhere: any error below
    // ends the federation on every rank alike.
    failed_ = true;
    const std::span<worker_type> mine(workers_);
    std::vector<std::uint8_t> record;
    std::exception_ptr local;
    try {
      if (generators != workers_.size()) {
        throw_invalid("generators.size()", generators,
                      "one per worker on this rank (" + std::to_string(workers_.size()) + ")");
      }
      record = detail::encode_round(round, federated::contribute_round(mine, round, generator_of));
    } catch (...) {
      local = std::current_exception();
      record = detail::encode_failure(what_of(local));
    }
    const auto all = exchange(std::move(record), local, "in round " + std::to_string(round));
    std::vector<federated::gradient_message> messages;
    messages.reserve(total_workers());
    for (std::size_t r = 0; r < all.size(); ++r) {
      auto part = decoded([&] {
        return detail::decode_round(all[r], round, static_cast<std::uint32_t>(first_[r]),
                                    first_[r + 1] - first_[r], aggregator_->parameter_count());
      });
      for (auto& m : part) messages.push_back(std::move(m));
    }
    federated::finish_round(*aggregator_, std::move(messages), mine);
    failed_ = false;
  }

  communicator comm_;
  federated::federation_options options_;
  std::vector<std::size_t> first_;  ///< rank r hosts workers first_[r] .. first_[r + 1] - 1
  std::vector<worker_type> workers_;
  std::optional<federated::aggregator> aggregator_;
  bool failed_ = false;
};

}  // namespace privet::dist
