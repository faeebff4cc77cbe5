// privet/algorithms/federated_dpsgd.hpp — federated DP-SGD across
// organisations, as in Sotto Voce (Shoemate, Jett, Cowan, Colbath, Honaker &
// Muthukumar 2022, "Sotto Voce: Federated Speech Recognition with
// Differential Privacy Guarantees", arXiv:2207.07816), on the DP-SGD step of
// ml/dpsgd.hpp (Abadi et al. 2016, Algorithm 1).
//
// Several organisations (workers) each hold their own data and a replica of
// one model. In every round each worker runs the private half of a DP-SGD
// step on its own data with its own parameters (dpsgd::privatize: sample a
// batch of records, clip every record's whole gradient to the worker's C,
// sum, add Gaussian noise calibrated to the worker's own budget, divide by
// its expected batch) and
// sends only the result, a `gradient_message`. The aggregator averages the
// round's messages into a `model_update`, which every worker applies to its
// replica with the federation's learning rate (dpsgd::apply_update). The
// replicas start equal and apply the same arithmetic to the same numbers,
// so they stay bitwise equal, as DistributedDataParallel's all-reduce keeps
// PyTorch replicas equal.
//
// Privacy. A worker's messages are DP releases about its data, and the
// aggregate and every later model are post-processing of the releases, so
// each worker's guarantee is that of its own DP-SGD steps, whatever the
// other workers or the aggregator do with what they receive. Each worker
// chooses (`worker_options::privacy`):
//   total_budget{target}     noise calibrated so that all `rounds` steps
//                            together meet target (dpsgd::calibrated; the
//                            worker refuses a step beyond the schedule);
//   per_step_budget{target}  noise calibrated so that each step on its own
//                            meets target (Sotto Voce's per-step epsilon;
//                            dpsgd::calibrated_per_step); the run's guarantee
//                            is the composition the odometer reports;
//   public_data{}            the worker declares its data public: its
//                            gradients carry no noise and spend nothing.
// Calibration and accounting are the accounting layer's, through dpsgd
// (Poisson subsampling amplification by RDP, PLD or PRV; fixed-size batches
// by the without-replacement RDP bound), and each private worker keeps its
// own privacy odometer, whose report (`worker::privacy_spent`, `spent`) is
// the worker's (eps, delta) so far. Nothing here computes a privacy number.
// With Noise = constant_time_noise every worker's noise is drawn in time
// independent of the noise, and its odometer adds the samplers' total
// variation (ml/dpsgd.hpp); the MPI federation (dist/federated_dpsgd.hpp)
// takes secure_noise or simulation_only_noise only.
//
// Aggregation (`aggregation`): `mean` gives every worker weight 1 / W (as
// DistributedDataParallel does); `batch_weighted` weighs worker w by its
// declared expected batch b_w (b, or q N with a sampling rate), which
// equals one pooled batch of the noisy sums: sum_w b_w g_w / sum_w b_w.
// A record is what the worker's privacy unit says (`worker_options::units`):
// an example, or one user's mean gradient. A user-level worker's b_w counts
// users, so where workers pick different units the pooled batch mixes
// examples and users, and a one-user worker sampled at q weighs q against
// the others' example counts. Weights come from the workers' registered
// options, never from messages. The weighted sum runs in worker order
// whatever order the messages arrive in, so the update does not depend on
// arrival order (floating-point addition is not associative).
//
// Exchange. `federation` runs the rounds in-process: the workers' private
// halves in parallel as TBB tasks, each with its own generator. Messages
// and updates are plain values, so another transport can carry them: a
// round is check_schedule, contribute_round (the private halves) and
// finish_round (aggregate in worker order, apply to every replica), and
// dist/federated_dpsgd.hpp's `mpi_federation` runs the same three steps
// with an all-gather of the encoded messages between the last two, each
// rank aggregating all of them itself. Both transports therefore compute
// the same update, bit for bit, from the same workers, data and generators.
#pragma once

#include <privet/accounting/calibration.hpp>
#include <privet/accounting/odometer.hpp>
#include <privet/core/concepts.hpp>
#include <privet/core/csprng.hpp>
#include <privet/core/detail/format.hpp>
#include <privet/core/error.hpp>
#include <privet/core/guarantee.hpp>
#include <privet/core/parallel.hpp>
#include <privet/core/validate.hpp>
#include <privet/mechanisms/noise.hpp>
#include <privet/ml/dpsgd.hpp>
#include <privet/ml/model.hpp>

#include <cmath>
#include <concepts>
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

namespace privet::federated {

/// The worker declares its data public: no noise, nothing to account.
struct public_data {};

/// Noise calibrated so that the federation's `rounds` steps together meet
/// `target`; the worker refuses to contribute beyond them.
struct total_budget {
  approx_dp target;  ///< the (eps, delta) of all the scheduled steps together
};

/// Noise calibrated so that each step on its own meets `target`; the run's
/// guarantee is the composition of its steps (reported, not capped).
struct per_step_budget {
  approx_dp target;  ///< the (eps, delta) of one step
};

/// A worker's privacy choice; std::monostate (the default) means none was
/// made, which the federation refuses.
using privacy_choice = std::variant<std::monostate, public_data, total_budget, per_step_budget>;

/// One organisation's parameters. None has a default that could weaken
/// privacy: clip_norm and batch_size start invalid and privacy unset.
struct worker_options {
  std::string name;  ///< the organisation's name, for reports only
  /// C > 0: each record's whole gradient (an example's, or a user's mean
  /// gradient) is clipped to L2 norm C; +inf
  /// (no clipping) only for public data.
  double clip_norm = std::numeric_limits<double>::quiet_NaN();
  /// b: the expected (Poisson) or exact (fixed-size) batch size,
  /// 1 <= b <= N for N units (examples, or users); 0 with a sampling_rate.
  std::size_t batch_size = 0;
  /// Poisson subsampling (default) or fixed-size batches without
  /// replacement (accounted by RDP only).
  ml::batch_sampling sampling = ml::batch_sampling::poisson;
  /// Poisson only, instead of batch_size: the rate q in (0, 1], for an
  /// organisation with fewer users than one per batch (dpsgd_options).
  double sampling_rate = std::numeric_limits<double>::quiet_NaN();
  /// The privacy unit: each example (default), or each user of a partition
  /// of the worker's data (user-level DP-SGD, ml/privacy_units.hpp).
  ml::privacy_units units{};
  /// public_data, total_budget or per_step_budget; left unset, the worker
  /// refuses to be built.
  privacy_choice privacy;
  /// Which accountant certifies the budget (fixed-size batches need RDP).
  calibration_options calibration = {};
  /// What the worker's odometer runs (RDP, PLD and PRV by default).
  odometer_options accounting = ml::dpsgd_odometer_options();
};

/// How the aggregator combines the round's gradients.
enum class aggregation {
  mean,            ///< (1 / W) sum_w g_w
  batch_weighted,  ///< sum_w b_w g_w / sum_w b_w, b_w the expected batch
};

/// The schedule and update rule every replica shares.
struct federation_options {
  double learning_rate = std::numeric_limits<double>::quiet_NaN();  ///< > 0
  double weight_decay = 0;               ///< lambda >= 0, applied by every replica alike
  std::uint64_t rounds = 0;              ///< >= 1: the schedule budgets are calibrated for
  aggregation rule = aggregation::mean;  ///< how the aggregator weighs the workers
};

/// What a worker sends in a round: its privatised gradient and nothing else
/// about its data.
struct gradient_message {
  std::uint32_t worker = 0;      ///< the sender's index in the federation
  std::uint64_t round = 0;       ///< the round, counted from 0
  std::vector<double> gradient;  ///< (sum of clipped gradients + noise) / b
};

/// What the aggregator sends back: the round's combined gradient, which
/// every replica applies.
struct model_update {
  std::uint64_t round = 0;       ///< the round it closes, counted from 0
  std::vector<double> gradient;  ///< the weighted mean of the round's gradients
};

/// Averages one round of messages at a time; see the file comment.
class aggregator {
 public:
  /// `weights[w]` > 0 is worker w's weight (normalised here). Throws
  /// invalid_parameter for no workers, parameter_count 0 or a weight that
  /// is not finite and > 0.
  aggregator(std::size_t parameter_count, std::vector<double> weights)
      : parameter_count_(validate_at_least<std::size_t>(parameter_count, 1, "parameter_count")),
        weights_(std::move(weights)) {
    if (weights_.empty()) throw_empty("weights");
    if (weights_.size() > std::numeric_limits<std::uint32_t>::max()) {
      throw_invalid("weights.size()", weights_.size(), "at most 2^32 - 1 workers");
    }
    for (double w : weights_) {
      if (!(std::isfinite(w) && w > 0)) throw_invalid("weight", w, "finite and > 0");
      total_weight_ += w;
    }
    received_.assign(weights_.size(), std::nullopt);
  }

  /// W: the number of workers.
  [[nodiscard]] std::size_t workers() const noexcept { return weights_.size(); }
  /// The length every gradient must have.
  [[nodiscard]] std::size_t parameter_count() const noexcept { return parameter_count_; }
  /// The round whose messages are being collected.
  [[nodiscard]] std::uint64_t round() const noexcept { return round_; }
  /// How many of the round's gradients have arrived.
  [[nodiscard]] std::size_t received() const noexcept { return count_; }
  /// Whether every worker's gradient has arrived (aggregate() may run).
  [[nodiscard]] bool complete() const noexcept { return count_ == weights_.size(); }

  /// Accepts worker m.worker's gradient for the current round. Throws
  /// protocol_error, keeping its state, for another round, an unknown or
  /// repeated worker, a gradient of the wrong length or a non-finite entry.
  void receive(gradient_message m) {
    if (m.round != round_) {
      throw protocol_error("privet: federated DP-SGD: message of round " + std::to_string(m.round) +
                           " from worker " + std::to_string(m.worker) +
                           "; the aggregator is collecting round " + std::to_string(round_));
    }
    if (m.worker >= weights_.size()) {
      throw protocol_error("privet: federated DP-SGD: message from worker " +
                           std::to_string(m.worker) + "; workers are 0 to " +
                           std::to_string(weights_.size() - 1));
    }
    if (received_[m.worker]) {
      throw protocol_error("privet: federated DP-SGD: worker " + std::to_string(m.worker) +
                           " already sent its gradient for round " + std::to_string(round_));
    }
    if (m.gradient.size() != parameter_count_) {
      throw protocol_error("privet: federated DP-SGD: gradient of " +
                           std::to_string(m.gradient.size()) + " entries from worker " +
                           std::to_string(m.worker) + "; the model has " +
                           std::to_string(parameter_count_) + " parameters");
    }
    for (std::size_t j = 0; j < m.gradient.size(); ++j) {
      if (!std::isfinite(m.gradient[j])) {
        throw protocol_error("privet: federated DP-SGD: gradient entry " + std::to_string(j) +
                             " from worker " + std::to_string(m.worker) + " is not finite");
      }
    }
    received_[m.worker] = std::move(m.gradient);
    ++count_;
  }

  /// The weighted mean of the round's gradients, summed in worker order,
  /// and the start of the next round. Throws protocol_error while a worker's
  /// gradient is missing.
  [[nodiscard]] model_update aggregate() {
    if (!complete()) {
      std::size_t missing = 0;
      while (received_[missing]) ++missing;
      throw protocol_error("privet: federated DP-SGD: round " + std::to_string(round_) + " has " +
                           std::to_string(count_) + " of " + std::to_string(weights_.size()) +
                           " gradients (worker " + std::to_string(missing) + " missing)");
    }
    model_update u{round_, std::vector<double>(parameter_count_, 0.0)};
    for (std::size_t w = 0; w < weights_.size(); ++w) {
      const auto& g = *received_[w];
      const double c = weights_[w];
      for (std::size_t j = 0; j < parameter_count_; ++j) u.gradient[j] += c * g[j];
    }
    for (auto& v : u.gradient) v /= total_weight_;
    received_.assign(weights_.size(), std::nullopt);
    count_ = 0;
    ++round_;
    return u;
  }

 private:
  std::size_t parameter_count_;
  std::vector<double> weights_;
  double total_weight_ = 0;
  std::vector<std::optional<std::vector<double>>> received_;
  std::size_t count_ = 0;
  std::uint64_t round_ = 0;
};

/// One organisation: its data, its replica and its DP-SGD optimiser.
template <ml::differentiable_model Model, mechanism_noise_policy Noise = constant_time_noise>
class worker {
 public:
  using model_type = Model;                        ///< the replicated model
  using batch_type = typename Model::batch_type;   ///< the worker's data
  using optimiser_type = ml::dpsgd<Model, Noise>;  ///< the DP-SGD step it runs

  /// Worker `id` with its options and data, a replica equal to `initial`,
  /// and noise calibrated for the federation's schedule. Throws
  /// invalid_parameter naming the first bad option (no privacy choice, a
  /// bad clip norm or batch size, an unreachable budget...).
  worker(std::uint32_t id, worker_options options, batch_type data, const Model& initial,
         const federation_options& federation)
      : id_(id),
        options_(std::move(options)),
        data_(std::move(data)),
        replica_(initial),
        opt_(make_optimiser(options_, data_.size(), initial.parameter_count(), federation)) {}

  /// Its index in the federation (gradient_message::worker).
  [[nodiscard]] std::uint32_t id() const noexcept { return id_; }
  /// options().name.
  [[nodiscard]] const std::string& name() const noexcept { return options_.name; }
  /// The options it was built with.
  [[nodiscard]] const worker_options& options() const noexcept { return options_; }
  /// Whether it declared its data public (no noise, no accounting).
  [[nodiscard]] bool is_public() const noexcept {
    return std::holds_alternative<public_data>(options_.privacy);
  }
  /// The number of examples in its data.
  [[nodiscard]] std::size_t dataset_size() const noexcept { return data_.size(); }
  /// The round the worker is in (the number of updates it has applied).
  [[nodiscard]] std::uint64_t round() const noexcept { return round_; }
  /// Its copy of the shared model.
  [[nodiscard]] const Model& replica() const noexcept { return replica_; }
  /// Its DP-SGD optimiser (noise, clipping, odometer).
  [[nodiscard]] const optimiser_type& optimiser() const noexcept { return opt_; }
  /// The noise's standard deviation on each coordinate of the gradient the
  /// worker sends (sigma over its expected batch; 0 for public data).
  [[nodiscard]] double noise_stddev() const noexcept {
    return opt_.noise_stddev() / opt_.expected_batch_size();
  }

  /// This round's privatised gradient from a batch of the worker's data.
  /// Throws protocol_error for a round other than round() or a second
  /// contribution to one round (either would spend budget for nothing),
  /// budget_exhausted beyond a total budget's schedule.
  template <random_bit_source G>
  [[nodiscard]] gradient_message contribute(std::uint64_t round, G& gen) {
    if (round != round_) {
      throw protocol_error("privet: federated DP-SGD: worker " + std::to_string(id_) +
                           " asked for round " + std::to_string(round) + " while in round " +
                           std::to_string(round_));
    }
    if (contributed_) {
      throw protocol_error("privet: federated DP-SGD: worker " + std::to_string(id_) +
                           " already contributed to round " + std::to_string(round_));
    }
    auto g = opt_.privatize(replica_, data_, gen);
    contributed_ = true;
    return {id_, round_, std::move(g.gradient)};
  }

  /// Applies the round's combined gradient to the replica. Throws
  /// protocol_error for an update of another round or length.
  void apply(const model_update& u) {
    if (u.round != round_) {
      throw protocol_error("privet: federated DP-SGD: worker " + std::to_string(id_) +
                           " received the update of round " + std::to_string(u.round) +
                           " while in round " + std::to_string(round_));
    }
    if (u.gradient.size() != replica_.parameter_count()) {
      throw protocol_error("privet: federated DP-SGD: update of " +
                           std::to_string(u.gradient.size()) + " entries; the model has " +
                           std::to_string(replica_.parameter_count()) + " parameters");
    }
    opt_.apply_update(replica_, u.gradient);
    ++round_;
    contributed_ = false;
  }

  /// The privacy spent so far by every accountant the worker's odometer
  /// runs, at its budget's delta; nothing for public data.
  [[nodiscard]] std::optional<ml::dpsgd_privacy_report> privacy_spent() const {
    if (is_public()) return std::nullopt;
    return opt_.privacy_spent(budget().delta());
  }

  /// The tightest (eps, delta) spent so far; nothing for public data.
  [[nodiscard]] std::optional<approx_dp> spent() const {
    if (is_public()) return std::nullopt;
    return privacy_spent()->accountants.tightest;
  }

  /// The budget chosen: the total target, or the per-step target.
  /// Throws invalid_parameter for public data, which has none.
  [[nodiscard]] approx_dp budget() const {
    if (const auto* t = std::get_if<total_budget>(&options_.privacy)) return t->target;
    if (const auto* s = std::get_if<per_step_budget>(&options_.privacy)) return s->target;
    throw_invalid("privacy", "public_data", "a total or per-step budget for a privacy budget");
  }

 private:
  static optimiser_type make_optimiser(const worker_options& o, std::size_t n, std::size_t p,
                                       const federation_options& f) {
    const ml::dpsgd_options d{.learning_rate = f.learning_rate,
                              .clip_norm = o.clip_norm,
                              .batch_size = o.batch_size,
                              .sampling = o.sampling,
                              .sampling_rate = o.sampling_rate,
                              .units = o.units,
                              .weight_decay = f.weight_decay};
    if (std::holds_alternative<public_data>(o.privacy)) {
      return optimiser_type::non_private(p, n, d);
    }
    if (const auto* t = std::get_if<total_budget>(&o.privacy)) {
      return optimiser_type::calibrated(p, n, d, t->target, f.rounds, o.calibration, o.accounting);
    }
    if (const auto* s = std::get_if<per_step_budget>(&o.privacy)) {
      return optimiser_type::calibrated_per_step(p, n, d, s->target, o.calibration, o.accounting);
    }
    throw_invalid("privacy", "unset", "public_data, total_budget or per_step_budget");
  }

  std::uint32_t id_;
  worker_options options_;
  batch_type data_;
  Model replica_;
  optimiser_type opt_;
  std::uint64_t round_ = 0;
  bool contributed_ = false;
};

/// One worker's privacy in a federation report.
struct worker_privacy {
  std::string name;                               ///< the worker's name
  bool is_public = false;                         ///< declared public: no noise, nothing spent
  std::uint64_t rounds = 0;                       ///< the rounds it has completed
  double noise_stddev = 0;                        ///< on each coordinate of the gradient sent
  std::optional<ml::dpsgd_privacy_report> spent;  ///< its odometer's report; empty if public
};

/// A federation's privacy report, one line per worker plus its accountants.
inline std::string to_string(const worker_privacy& w) {
  using privet::detail::format_value;
  std::string s = w.name + ": ";
  if (w.is_public) {
    return s + "public data, no noise, " + std::to_string(w.rounds) + " rounds\n";
  }
  s += "noise std " + format_value(w.noise_stddev) + " per coordinate of the mean gradient\n";
  if (w.spent) s += "  " + ml::to_string(*w.spent);
  return s;
}

/// Returns o, or throws invalid_parameter naming its first bad option.
inline const federation_options& validate_options(const federation_options& o) {
  validate_positive(o.learning_rate, "learning_rate");
  validate_non_negative(o.weight_decay, "weight_decay");
  validate_at_least<std::uint64_t>(o.rounds, 1, "rounds");
  if (o.rule != aggregation::mean && o.rule != aggregation::batch_weighted) {
    throw_invalid("rule", static_cast<int>(o.rule), "mean or batch_weighted");
  }
  return o;
}

/// A worker of `dataset_size` examples' weight under `rule`: 1 for the
/// mean; for batch_weighted its expected batch size (b, or q N with a
/// sampling_rate), from its registered options, never from a message.
inline double aggregation_weight(aggregation rule, const worker_options& o,
                                 std::size_t dataset_size) noexcept {
  if (rule == aggregation::mean) return 1.0;
  return ml::dpsgd_expected_batch_size(o.batch_size, o.sampling_rate, o.units, dataset_size);
}

/// Something that hands worker i (an index into the round's workers) its
/// generator: an lvalue of a random_bit_source, callable from TBB tasks.
template <class F>
concept generator_selector = std::invocable<F&, std::size_t> &&
    std::is_lvalue_reference_v<std::invoke_result_t<F&, std::size_t>> &&
    random_bit_source<std::remove_cvref_t<std::invoke_result_t<F&, std::size_t>>>;

// One round is check_schedule, contribute_round and finish_round, whatever
// carries the messages between the last two (see the file comment).

/// Throws budget_exhausted when round `round` (counted from 0) is past the
/// schedule of `o.rounds` rounds.
inline void check_schedule(std::uint64_t round, const federation_options& o) {
  if (round >= o.rounds) {
    throw budget_exhausted("privet: federated DP-SGD was scheduled for " +
                           std::to_string(o.rounds) + " rounds; round " +
                           std::to_string(round + 1) + " would exceed the schedule");
  }
}

/// The private halves of round `round` for `workers`, as parallel TBB
/// tasks; workers[i] draws from generator_of(i) only, so the messages (in
/// the order of `workers`) do not depend on the thread schedule. Throws
/// what worker::contribute throws.
template <ml::differentiable_model Model, mechanism_noise_policy Noise,
          generator_selector GeneratorOf>
[[nodiscard]] std::vector<gradient_message> contribute_round(
    std::span<worker<Model, Noise>> workers, std::uint64_t round, GeneratorOf&& generator_of) {
  std::vector<gradient_message> messages(workers.size());
  parallel_for_index(workers.size(), parallel_options{}, [&](std::size_t w) {
    messages[w] = workers[w].contribute(round, generator_of(w));
  });
  return messages;
}

/// Hands the round's messages (every worker's, in any order) to `agg`,
/// aggregates them in worker order and applies the update to each of
/// `workers` (the replicas held here). Throws protocol_error as
/// aggregator::receive, aggregator::aggregate and worker::apply do.
template <ml::differentiable_model Model, mechanism_noise_policy Noise>
model_update finish_round(aggregator& agg, std::vector<gradient_message> messages,
                          std::span<worker<Model, Noise>> workers) {
  for (auto& m : messages) agg.receive(std::move(m));
  model_update u = agg.aggregate();
  for (auto& w : workers) w.apply(u);
  return u;
}

/// A worker's line of the privacy report, from its own odometer.
template <ml::differentiable_model Model, mechanism_noise_policy Noise>
[[nodiscard]] worker_privacy privacy_of(const worker<Model, Noise>& w) {
  return {w.name(), w.is_public(), w.round(), w.noise_stddev(), w.privacy_spent()};
}

/// The workers of one federation and their aggregator, in one process.
template <ml::differentiable_model Model, mechanism_noise_policy Noise = constant_time_noise>
class federation {
 public:
  using worker_type = worker<Model, Noise>;       ///< one organisation
  using batch_type = typename Model::batch_type;  ///< an organisation's data

  /// One organisation as the federation is built.
  struct member {
    worker_options options;  ///< its options
    batch_type data;         ///< its data, moved into its worker
  };

  /// Every worker starts from a copy of `initial`. Throws invalid_parameter
  /// for no members, a bad federation option or a bad worker option (named).
  federation(const Model& initial, std::vector<member> members, const federation_options& options)
      : options_(validate_options(options)) {
    if (members.empty()) throw_empty("members");
    if (members.size() > std::numeric_limits<std::uint32_t>::max()) {
      throw_invalid("members.size()", members.size(), "at most 2^32 - 1 workers");
    }
    std::vector<double> weights;
    workers_.reserve(members.size());
    for (std::size_t w = 0; w < members.size(); ++w) {
      auto& m = members[w];
      weights.push_back(aggregation_weight(options_.rule, m.options, m.data.size()));
      workers_.emplace_back(static_cast<std::uint32_t>(w), std::move(m.options), std::move(m.data),
                            initial, options_);
    }
    aggregator_.emplace(initial.parameter_count(), std::move(weights));
  }

  /// The federation's options, as validated.
  [[nodiscard]] const federation_options& options() const noexcept { return options_; }
  /// The workers, in member order (worker w is members[w]).
  [[nodiscard]] const std::vector<worker_type>& workers() const noexcept { return workers_; }
  /// The rounds completed (aggregated and applied).
  [[nodiscard]] std::uint64_t rounds_done() const noexcept { return aggregator_->round(); }
  /// The shared model (worker 0's replica; every replica is equal).
  [[nodiscard]] const Model& model() const noexcept { return workers_.front().replica(); }

  /// One round with generators[w] for worker w (one per worker: the
  /// workers run as parallel tasks). Throws budget_exhausted after the
  /// scheduled rounds, invalid_parameter for the wrong number of generators.
  /// An error inside a worker (a diverged model's non-finite gradient)
  /// propagates and loses the round: workers that had already contributed
  /// keep that step on their odometers, and the federation cannot continue.
  template <random_bit_source G>
  void run_round(std::span<G> generators) {
    if (generators.size() != workers_.size()) {
      throw_invalid("generators.size()", generators.size(),
                    "one per worker (" + std::to_string(workers_.size()) + ")");
    }
    round_with([&](std::size_t w) -> G& { return generators[w]; });
  }

  /// One round, each worker drawing from its thread's CSPRNG.
  void run_round() {
    round_with([](std::size_t) -> csprng& { return secure_generator(); });
  }

  /// Each worker's privacy so far.
  [[nodiscard]] std::vector<worker_privacy> privacy_report() const {
    std::vector<worker_privacy> out;
    for (const auto& w : workers_) out.push_back(privacy_of(w));
    return out;
  }

 private:
  template <generator_selector GeneratorOf>
  void round_with(GeneratorOf&& generator_of) {
    const std::uint64_t r = aggregator_->round();
    check_schedule(r, options_);
    const std::span<worker_type> all(workers_);
    finish_round(*aggregator_, contribute_round(all, r, generator_of), all);
  }

  federation_options options_;
  std::vector<worker_type> workers_;
  std::optional<aggregator> aggregator_;
};

}  // namespace privet::federated
