// Federated DP-SGD over MPI: communicator::all_gather with empty and unequal
// parts; the MPI federation's replicas are bitwise equal on every rank and
// to the in-process federation of the same workers, data and generators,
// whose privacy reports it gathers; the wire form of a gradient message
// round-trips exactly and a malformed or misaddressed one is refused; ranks
// that disagree or fail do so together, none left waiting. Run under
// mpiexec with 1, 2 and 3 ranks (tests/CMakeLists.txt); every collective is
// reached by every rank (no REQUIRE before one).
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/dist/federated_dpsgd.hpp>
#include <privet/ml/logistic_regression.hpp>
#include <privet/ml/mlp.hpp>

#include <support/federated_fixtures.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace {
using privet::approx_dp;
using privet::dist::communicator;
using privet::dist::decode_gradient_message;
using privet::dist::encode_gradient_message;
using privet::dist::mpi_federation;
using privet::federated::aggregation;
using privet::federated::federation;
using privet::federated::federation_options;
using privet::federated::gradient_message;
using privet::federated::worker_options;
using privet::ml::batch_sampling;
using privet::ml::dense_batch;
using privet::testing::seeded_release_generator;

using privet::test::integer_orders;
using privet::test::same_bits;

using dense_lr = privet::ml::logistic_regression<double, dense_batch<double>>;
using mlp = privet::ml::mlp<double>;

// Gaussian classes in f dimensions, means +-1.5 on the first axis.
dense_batch<double> blobs(std::size_t n, std::size_t f, unsigned seed, int classes) {
  return privet::test::blobs(n, f, 1.5, seed, classes);
}

// Worker w of a mixed federation: private with a total budget, private with
// a per-step budget, or public, with its own clip norm, batch size and
// sampling. RDP on integer orders only, which calibrates fast.
worker_options options_of(std::size_t w) {
  worker_options o;
  o.name = "org" + std::to_string(w);
  o.batch_size = 6 + 2 * (w % 4);
  o.sampling = w % 2 == 0 ? batch_sampling::poisson : batch_sampling::fixed_size;
  o.calibration.accountant = privet::accountant_kind::rdp;
  o.calibration.orders = integer_orders(64);
  o.accounting.orders = integer_orders(64);
  o.accounting.use_pld = false;
  o.accounting.use_prv = false;
  switch (w % 3) {
    case 0:
      o.clip_norm = 1.0;
      o.privacy = privet::federated::total_budget{approx_dp(4, 1e-5)};
      break;
    case 1:
      o.clip_norm = 0.5;
      o.privacy = privet::federated::per_step_budget{approx_dp(2, 1e-6)};
      break;
    default:
      o.clip_norm = std::numeric_limits<double>::infinity();
      o.privacy = privet::federated::public_data{};
  }
  return o;
}

template <class Model, class Noise>
typename federation<Model, Noise>::member member_of(std::size_t w, std::size_t features,
                                                    int classes) {
  return {options_of(w), blobs(40 + 7 * w, features, 300 + static_cast<unsigned>(w), classes)};
}

// Rank r hosts workers [r (r + 1) / 2, (r + 1) (r + 2) / 2): r + 1 of them.
std::size_t first_of(int rank) {
  const auto r = static_cast<std::size_t>(rank);
  return r * (r + 1) / 2;
}

// The MPI federation and the in-process one over the same members, both run
// for `rounds` rounds with generator 100 + w for worker w; checks that they
// agree bit for bit on every rank and that the reports gathered at rank 0
// are the in-process ones.
template <class Model, class Noise>
void compare_with_in_process(const communicator& comm, const Model& initial, std::size_t features,
                             int classes, const federation_options& fo) {
  const std::size_t total = first_of(comm.size());
  const std::size_t first = first_of(comm.rank());
  const std::size_t last = first_of(comm.rank() + 1);
  std::vector<typename mpi_federation<Model, Noise>::member> mine;
  for (std::size_t w = first; w < last; ++w)
    mine.push_back(member_of<Model, Noise>(w, features, classes));
  mpi_federation<Model, Noise> fed(comm, initial, std::move(mine), fo);
  CHECK(fed.total_workers() == total);
  CHECK(fed.first_worker() == first);
  CHECK(fed.workers().size() == last - first);
  std::vector<privet::testing::seeded_release_generator> gens;
  for (std::size_t w = first; w < last; ++w) gens.emplace_back(100 + w);
  for (std::uint64_t r = 0; r < fo.rounds; ++r)
    fed.run_round(std::span<privet::testing::seeded_release_generator>(gens));
  CHECK(fed.rounds_done() == fo.rounds);

  std::vector<typename federation<Model, Noise>::member> everyone;
  for (std::size_t w = 0; w < total; ++w)
    everyone.push_back(member_of<Model, Noise>(w, features, classes));
  federation<Model, Noise> single(initial, std::move(everyone), fo);
  std::vector<privet::testing::seeded_release_generator> all_gens;
  for (std::size_t w = 0; w < total; ++w) all_gens.emplace_back(100 + w);
  for (std::uint64_t r = 0; r < fo.rounds; ++r) {
    single.run_round(std::span<privet::testing::seeded_release_generator>(all_gens));
  }

  const auto p = fed.model().parameters();
  CHECK(same_bits(p, single.model().parameters()));
  CHECK_FALSE(same_bits(p, initial.parameters()));
  for (const auto& w : fed.workers()) CHECK(same_bits(w.replica().parameters(), p));
  const auto every = comm.all_gather(std::vector<double>(p.begin(), p.end()));
  CHECK(every.size() == static_cast<std::size_t>(comm.size()));
  for (const auto& q : every) CHECK(same_bits(q, p));

  const auto local = fed.local_privacy_report();
  CHECK(local.size() == last - first);
  const auto report = fed.gather_privacy_report(0);
  if (comm.rank() == 0) {
    const auto expected = single.privacy_report();
    CHECK(report.size() == total);
    for (std::size_t w = 0; w < std::min(report.size(), expected.size()); ++w) {
      CHECK(privet::federated::to_string(report[w]) == privet::federated::to_string(expected[w]));
      CHECK(report[w].spent.has_value() == expected[w].spent.has_value());
      if (report[w].spent && expected[w].spent) {
        CHECK(report[w].spent->accountants.tightest == expected[w].spent->accountants.tightest);
        CHECK(report[w].spent->steps == fo.rounds);
      }
    }
  } else {
    CHECK(report.empty());
  }

  // The schedule ends on every rank alike, with the in-process message.
  CHECK_THROWS_WITH_AS(
      fed.run_round(std::span<privet::testing::seeded_release_generator>(gens)),
      ("privet: federated DP-SGD was scheduled for " + std::to_string(fo.rounds) +
       " rounds; round " + std::to_string(fo.rounds + 1) + " would exceed the schedule")
          .c_str(),
      privet::budget_exhausted);
}

struct record {
  std::int32_t rank;
  std::int32_t index;
  double value;
};

// What the tests of ranks that disagree share: the same initial model and
// one worker on the same data on every rank, with the last rank the one
// made to differ.
struct disagreement_setup {
  communicator comm;
  bool last = comm.rank() + 1 == comm.size();
  std::string last_rank = std::to_string(comm.size() - 1);
  dense_lr initial{3, true};
  static std::vector<mpi_federation<dense_lr>::member> members() {
    std::vector<mpi_federation<dense_lr>::member> m;
    m.push_back({options_of(0), blobs(30, 3, 7, 2)});
    return m;
  }
};

}  // namespace

TEST_CASE("all_gather gives every rank every rank's records, in rank order") {
  const communicator comm;
  const auto ranks = static_cast<std::size_t>(comm.size());
  // Rank r sends r records (rank 0 none).
  std::vector<record> mine;
  for (int i = 0; i < comm.rank(); ++i) mine.push_back({comm.rank(), i, 0.5 * i + comm.rank()});
  const auto all = comm.all_gather(mine);
  CHECK(all.size() == ranks);
  for (std::size_t r = 0; r < all.size(); ++r) {
    CHECK(all[r].size() == r);
    for (std::size_t i = 0; i < all[r].size(); ++i) {
      CHECK(all[r][i].rank == static_cast<std::int32_t>(r));
      CHECK(all[r][i].index == static_cast<std::int32_t>(i));
      CHECK(all[r][i].value == 0.5 * static_cast<double>(i) + static_cast<double>(r));
    }
  }
  // Nothing anywhere.
  const auto none = comm.all_gather(std::vector<double>{});
  CHECK(none.size() == ranks);
  for (const auto& part : none) CHECK(part.empty());
  // Only the last rank sends, many bytes.
  std::vector<std::uint8_t> bytes;
  if (comm.rank() + 1 == comm.size()) {
    for (int i = 0; i < 100'000; ++i) bytes.push_back(static_cast<std::uint8_t>(i * 7));
  }
  const auto last = comm.all_gather(bytes);
  CHECK(last.size() == ranks);
  for (std::size_t r = 0; r + 1 < last.size(); ++r) CHECK(last[r].empty());
  CHECK(last.back().size() == 100'000);
  CHECK(last.back()[99'999] == static_cast<std::uint8_t>(99'999 * 7));
}

TEST_CASE("the MPI federation's replicas equal each other and the in-process federation's") {
  const communicator comm;
  SUBCASE("an MLP, batch-weighted, simulation noise") {
    privet::testing::seeded_release_generator init(1);
    const mlp initial({.layers = {5, 8, 3}}, init);
    compare_with_in_process<mlp, privet::simulation_only_noise>(
        comm, initial, 5, 3,
        {.learning_rate = 0.3,
         .weight_decay = 1e-3,
         .rounds = 6,
         .rule = aggregation::batch_weighted});
  }
  SUBCASE("logistic regression, mean, secure noise from seeded generators") {
    dense_lr initial(4, true);
    for (std::size_t j = 0; j < initial.parameter_count(); ++j) {
      initial.parameters()[j] = 0.05 * static_cast<double>(j) - 0.1;
    }
    compare_with_in_process<dense_lr, privet::secure_noise>(comm, initial, 4, 2,
                                                            {.learning_rate = 0.5, .rounds = 5});
  }
  SUBCASE("logistic regression, mean, constant-time noise from seeded generators") {
    dense_lr initial(4, true);
    for (std::size_t j = 0; j < initial.parameter_count(); ++j) {
      initial.parameters()[j] = 0.05 * static_cast<double>(j) - 0.1;
    }
    compare_with_in_process<dense_lr, privet::constant_time_noise>(
        comm, initial, 4, 2, {.learning_rate = 0.5, .rounds = 3});
  }
}

TEST_CASE(
    "a gradient message round-trips bit for bit; a malformed or misaddressed one is refused") {
  const gradient_message m{2, 7, {1.5, -0.0, 5e-324, -3.25e300}};
  const auto bytes = encode_gradient_message(m);
  CHECK(bytes.size() == 18 + 8 * 4);
  const auto back = decode_gradient_message(bytes, 7, 2, 4);
  CHECK(back.worker == 2);
  CHECK(back.round == 7);
  CHECK(same_bits(back.gradient, m.gradient));

  auto refused = [](std::span<const std::uint8_t> b, std::uint64_t round, std::uint32_t worker,
                    std::size_t p) {
    try {
      (void)decode_gradient_message(b, round, worker, p);
    } catch (const privet::protocol_error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(refused(bytes, 6, 2, 4) ==
        "privet: federated DP-SGD: gradient message of round 7 while round 6 is exchanged");
  CHECK(refused(bytes, 8, 2, 4) ==
        "privet: federated DP-SGD: gradient message of round 7 while round 8 is exchanged");
  CHECK(refused(bytes, 7, 3, 4) ==
        "privet: federated DP-SGD: gradient message from worker 2 where worker 3's was expected");
  CHECK(refused(bytes, 7, 2, 5) ==
        "privet: federated DP-SGD: gradient message of 4 entries from worker 2; the model has 5 "
        "parameters");
  const std::span<const std::uint8_t> all(bytes);
  CHECK(refused(all.first(all.size() - 1), 7, 2, 4) ==
        "privet: malformed federated gradient message: a count of 4 entries exceeds the 31 bytes "
        "left");
  CHECK(refused(all.first(12), 7, 2, 4) ==
        "privet: malformed federated gradient message: truncated at byte 10 (4 more needed, 2 "
        "left)");
  CHECK(refused({}, 7, 2, 4) ==
        "privet: malformed federated gradient message: truncated at byte 0 (1 more needed, 0 "
        "left)");
  auto longer = bytes;
  longer.push_back(0);
  CHECK(refused(longer, 7, 2, 4) ==
        "privet: malformed federated gradient message: 1 trailing bytes");
  auto version = bytes;
  version[0] = 1;
  CHECK(refused(version, 7, 2, 4) ==
        "privet: malformed federated gradient message: format version 1 (this build reads "
        "version 3)");
  auto kind = bytes;
  kind[1] = 3;
  CHECK(refused(kind, 7, 2, 4) ==
        "privet: malformed federated gradient message: record kind 3 where kind 1 was expected");

  // Within a rank's round record the messages must be its workers', in order.
  using privet::dist::detail::decode_round;
  using privet::dist::detail::encode_round;
  const std::vector<gradient_message> two{{4, 1, {1, 2}}, {5, 1, {3, 4}}};
  const auto record = encode_round(1, two);
  CHECK(decode_round(record, 1, 4, 2, 2).size() == 2);
  CHECK_THROWS_WITH_AS(decode_round(record, 1, 3, 2, 2),
                       "privet: federated DP-SGD: gradient message from worker 4 where worker "
                       "3's was expected",
                       privet::protocol_error);
  CHECK_THROWS_WITH_AS(decode_round(record, 1, 4, 3, 2),
                       "privet: federated DP-SGD: round record with 2 messages where workers 4 to "
                       "6 (3) were expected",
                       privet::protocol_error);
  CHECK_THROWS_WITH_AS(decode_round(record, 2, 4, 2, 2),
                       "privet: federated DP-SGD: round record of round 1 while round 2 is "
                       "exchanged",
                       privet::protocol_error);
}

TEST_CASE("ranks that disagree, or a rank with bad options, fail on every rank") {
  const disagreement_setup set_up;
  const communicator& comm = set_up.comm;
  const bool last = set_up.last;
  const std::string& last_rank = set_up.last_rank;
  const dense_lr& initial = set_up.initial;
  const auto members = disagreement_setup::members;
  if (comm.size() > 1) {
    // The last rank's learning rate differs.
    const federation_options fo{.learning_rate = last ? 0.25 : 0.5, .rounds = 2};
    CHECK_THROWS_WITH_AS(mpi_federation<dense_lr>(comm, initial, members(), fo),
                         ("privet: learning_rate on rank " + last_rank +
                          " = 0.25 is invalid; allowed: rank 0's 0.5 on every rank")
                             .c_str(),
                         privet::invalid_parameter);
    // The last rank's initial model differs in one parameter.
    dense_lr other = initial;
    if (last) other.parameters()[1] = 1e-9;
    CHECK_THROWS_WITH_AS(
        mpi_federation<dense_lr>(comm, other, members(), {.learning_rate = 0.5, .rounds = 2}),
        ("privet: initial model on rank " + last_rank +
         " = different is invalid; allowed: bitwise equal to rank 0's on every rank")
            .c_str(),
        privet::invalid_parameter);
  }
  // The last rank hosts no worker.
  const std::string empty = "privet: members is empty; allowed: at least one element";
  auto no_members = [&] {
    mpi_federation<dense_lr>(comm, initial,
                             last ? std::vector<mpi_federation<dense_lr>::member>{} : members(),
                             {.learning_rate = 0.5, .rounds = 2});
  };
  if (last) {
    CHECK_THROWS_WITH_AS(no_members(), empty.c_str(), privet::invalid_parameter);
  } else {
    CHECK_THROWS_WITH_AS(no_members(),
                         ("privet: federated DP-SGD over MPI: rank " + last_rank +
                          " failed while joining the federation: " + empty)
                             .c_str(),
                         privet::protocol_error);
  }
  // The last rank's worker has no clip norm: its worker refuses to be built.
  auto bad_clip = [&] {
    auto m = members();
    if (last) m[0].options.clip_norm = std::numeric_limits<double>::quiet_NaN();
    mpi_federation<dense_lr>(comm, initial, std::move(m), {.learning_rate = 0.5, .rounds = 2});
  };
  std::string local_error;
  try {
    bad_clip();
  } catch (const privet::invalid_parameter& e) {
    CHECK(last);
    CHECK(e.parameter() == "clip_norm");
    local_error = e.what();
  } catch (const privet::protocol_error& e) {
    CHECK_FALSE(last);
    local_error = e.what();
    const std::string prefix = "privet: federated DP-SGD over MPI: rank " + last_rank +
                               " failed while building its workers: ";
    CHECK(local_error.rfind(prefix, 0) == 0);
  }
  CHECK(local_error.find("privet: clip_norm = ") != std::string::npos);
}

TEST_CASE("a round that fails on one rank fails on every rank, and the federation stops") {
  const communicator comm;
  const bool last = comm.rank() + 1 == comm.size();
  const dense_lr initial(3, true);
  std::vector<mpi_federation<dense_lr>::member> m;
  m.push_back({options_of(static_cast<std::size_t>(comm.rank())), blobs(30, 3, 9, 2)});
  mpi_federation<dense_lr> fed(comm, initial, std::move(m), {.learning_rate = 0.5, .rounds = 3});
  std::vector<privet::testing::seeded_release_generator> gens{
      privet::testing::seeded_release_generator(5 + static_cast<unsigned>(comm.rank()))};
  fed.run_round(std::span<privet::testing::seeded_release_generator>(gens));
  CHECK(fed.rounds_done() == 1);
  // The last rank passes no generator for its worker in round 1.
  const std::string local =
      "privet: generators.size() = 0 is invalid; allowed: one per worker "
      "on this rank (1)";
  if (last) {
    CHECK_THROWS_WITH_AS(fed.run_round(std::span<privet::testing::seeded_release_generator>()),
                         local.c_str(), privet::invalid_parameter);
  } else {
    CHECK_THROWS_WITH_AS(fed.run_round(std::span<privet::testing::seeded_release_generator>(gens)),
                         ("privet: federated DP-SGD over MPI: rank " +
                          std::to_string(comm.size() - 1) + " failed in round 1: " + local)
                             .c_str(),
                         privet::protocol_error);
  }
  CHECK(fed.rounds_done() == 1);
  CHECK_THROWS_WITH_AS(fed.run_round(std::span<privet::testing::seeded_release_generator>(gens)),
                       "privet: federated DP-SGD over MPI: round 1 failed; the replicas may "
                       "differ and the federation cannot continue",
                       privet::protocol_error);
  CHECK_THROWS_WITH_AS((void)fed.gather_privacy_report(comm.size()),
                       ("privet: root = " + std::to_string(comm.size()) +
                        " is invalid; allowed: a rank in [0, " + std::to_string(comm.size()) + ")")
                           .c_str(),
                       privet::invalid_parameter);
}

TEST_CASE("set-up, ready and report records name what is malformed") {
  namespace wire = privet::dist::detail;
  const wire::federation_setup setup{{.learning_rate = 0.5, .rounds = 2}, 4, {1.0}, true, 8, {}};
  auto s = wire::encode_setup(setup);
  CHECK(wire::decode_setup(s).parameter_count == 4);
  s[26] = 2;  // the rule: after version, kind, two doubles and the rounds
  CHECK_THROWS_WITH_AS((void)wire::decode_setup(s),
                       "privet: malformed federated set-up record: aggregation rule 2",
                       privet::serialization_error);
  // Version 3: the noise flag after the one weight (header 2, two doubles,
  // rounds, rule, parameter count, weight count 4, one weight 8: byte 47),
  // then the real type's width and the shape.
  s = wire::encode_setup(setup);
  REQUIRE(s.size() == 47 + 1 + 1 + 4);
  s[47] = 3;
  CHECK_THROWS_WITH_AS((void)wire::decode_setup(s),
                       "privet: malformed federated set-up record: noise policy 3 (0 "
                       "simulation_only_noise, 1 secure_noise or 2 constant_time_noise expected)",
                       privet::serialization_error);
  const wire::federation_setup shaped{{.learning_rate = 0.5, .rounds = 2}, 4, {1.0}, 2, 4, {3, 1}};
  const auto back = wire::decode_setup(wire::encode_setup(shaped));
  CHECK(back.noise == 2);
  CHECK(back.real_bytes == 4);
  CHECK(back.shape == std::vector<std::uint64_t>{3, 1});
  auto ready = wire::encode_ready(true);
  ready[2] = 2;
  CHECK_THROWS_WITH_AS(
      (void)wire::decode_ready(ready),
      "privet: malformed federated ready record: initial model flag 2 (0 or 1 expected)",
      privet::serialization_error);

  auto failure = wire::encode_failure("abc");
  REQUIRE(wire::failure_of(failure) == std::optional<std::string>("abc"));
  failure.pop_back();
  CHECK_THROWS_WITH_AS((void)wire::failure_of(failure),
                       "privet: malformed federated failure record: a count of 3 entries exceeds "
                       "the 2 bytes left",
                       privet::serialization_error);

  // One worker named "a", with a report from every accountant.
  const approx_dp one(1, 1e-6);
  privet::federated::worker_privacy w;
  w.name = "a";
  w.rounds = 3;
  w.spent = privet::ml::dpsgd_privacy_report{
      3,
      batch_sampling::poisson,
      0.1,
      1.2,
      privet::odometer_report{one, one, one, one, privet::accountant_kind::pld, {}, {}, {}},
      3};
  const auto report = wire::encode_report({w});
  auto read = [](std::span<const std::uint8_t> bytes) {
    privet::detail::wire_reader r(bytes, "federated privacy report");
    auto out = wire::read_report(r);
    r.finish();
    return out;
  };
  REQUIRE(read(report).size() == 1);
  // The privacy unit survives the trip (a user-level worker's 3 users).
  REQUIRE(read(report)[0].spent);
  CHECK(read(report)[0].spent->users == 3);
  CHECK(read(report)[0].spent->sampling_rate == 0.1);
  // Offsets: header 2, count 4, name 4 + 1, public flag 11, rounds 12..19,
  // noise 20..27, report flag 28, steps 29..36, sampling 37, rate, multiplier,
  // RDP flag 54, PLD flag 71, PRV flag 88, tightest 105..120, method 121,
  // users 122..129.
  REQUIRE(report.size() == 130);
  const auto refused = [&](std::size_t at, std::uint8_t value, const std::string& why) {
    auto bad = report;
    bad[at] = value;
    CHECK_THROWS_WITH_AS((void)read(bad),
                         ("privet: malformed federated privacy report: " + why).c_str(),
                         privet::serialization_error);
  };
  refused(11, 2, "public data flag 2 (0 or 1 expected)");
  refused(28, 3, "privacy report flag 3 (0 or 1 expected)");
  refused(37, 2, "batch sampling 2");
  refused(54, 2, "RDP flag 2 (0 or 1 expected)");
  refused(71, 2, "PLD flag 2 (0 or 1 expected)");
  refused(88, 2, "PRV flag 2 (0 or 1 expected)");
  refused(121, 3, "accountant 3");
  // A guarantee approx_dp refuses: the tightest epsilon made negative.
  auto negative = report;
  negative[112] |= 0x80;  // the sign bit of the little-endian epsilon
  CHECK_THROWS_WITH_AS((void)read(negative),
                       "privet: epsilon = -1 is invalid; allowed: finite and >= 0",
                       privet::invalid_parameter);
}

TEST_CASE("ranks that disagree on any set-up value name it; communicator misuse is refused") {
  const disagreement_setup set_up;
  const communicator& comm = set_up.comm;
  const bool last = set_up.last;
  const std::string& last_rank = set_up.last_rank;
  const dense_lr& initial = set_up.initial;
  const auto members = disagreement_setup::members;
  if (comm.size() > 1) {
    auto message = [&](const std::string& name, const std::string& value,
                       const std::string& expected) {
      return "privet: " + name + " on rank " + last_rank + " = " + value +
             " is invalid; allowed: rank 0's " + expected + " on every rank";
    };
    CHECK_THROWS_WITH_AS(
        mpi_federation<dense_lr>(
            comm, initial, members(),
            {.learning_rate = 0.5, .weight_decay = last ? 0.25 : 0.0, .rounds = 2}),
        message("weight_decay", "0.25", "0").c_str(), privet::invalid_parameter);
    CHECK_THROWS_WITH_AS(mpi_federation<dense_lr>(comm, initial, members(),
                                                  {.learning_rate = 0.5, .rounds = last ? 3u : 2u}),
                         message("rounds", "3", "2").c_str(), privet::invalid_parameter);
    CHECK_THROWS_WITH_AS(
        mpi_federation<dense_lr>(comm, initial, members(),
                                 {.learning_rate = 0.5,
                                  .rounds = 2,
                                  .rule = last ? aggregation::batch_weighted : aggregation::mean}),
        message("rule", "1", "0").c_str(), privet::invalid_parameter);
    const dense_lr wider(4, true);
    CHECK_THROWS_WITH_AS(mpi_federation<dense_lr>(comm, last ? wider : initial, members(),
                                                  {.learning_rate = 0.5, .rounds = 2}),
                         message("parameter_count", "5", "4").c_str(), privet::invalid_parameter);
    // Issue 33: the same parameter count (4) and initial values (zeros),
    // another model: 4 features without an intercept, not 3 with one.
    const dense_lr other_shape(4, false);
    REQUIRE(other_shape.parameter_count() == initial.parameter_count());
    CHECK_THROWS_WITH_AS(mpi_federation<dense_lr>(comm, last ? other_shape : initial, members(),
                                                  {.learning_rate = 0.5, .rounds = 2}),
                         message("model shape", "4, 0", "3, 1").c_str(), privet::invalid_parameter);
    // Issue 33: simulation noise on the last rank, the default
    // (constant-time) noise elsewhere (a guarantee of one is not one of the
    // other).
    const federation_options fo{.learning_rate = 0.5, .rounds = 2};
    const auto noise_mix = [&] {
      if (last) {
        using simulated = mpi_federation<dense_lr, privet::simulation_only_noise>;
        std::vector<simulated::member> m;
        for (auto& x : members()) m.push_back({std::move(x.options), std::move(x.data)});
        simulated f(comm, initial, std::move(m), fo);
      } else {
        mpi_federation<dense_lr> f(comm, initial, members(), fo);
      }
    };
    CHECK_THROWS_WITH_AS(noise_mix(),
                         message("Noise", "simulation_only_noise", "constant_time_noise").c_str(),
                         privet::invalid_parameter);
    // Issue 33: float parameters on the last rank, double elsewhere.
    using float_lr = privet::ml::logistic_regression<float, dense_batch<float>>;
    const auto width_mix = [&] {
      if (last) {
        const auto d = blobs(30, 3, 7, 2);
        std::vector<mpi_federation<float_lr>::member> m;
        m.push_back({options_of(0), dense_batch<float>{xt::cast<float>(d.x), d.y}});
        mpi_federation<float_lr> f(comm, float_lr(3, true), std::move(m), fo);
      } else {
        mpi_federation<dense_lr> f(comm, initial, members(), fo);
      }
    };
    CHECK_THROWS_WITH_AS(width_mix(), message("sizeof(real_type)", "4", "8").c_str(),
                         privet::invalid_parameter);
  }
  // Communicator misuse: every rank passes the same wrong argument, so no
  // rank is left waiting.
  const std::vector<std::vector<int>> too_many(static_cast<std::size_t>(comm.size()) + 1);
  CHECK_THROWS_WITH_AS(
      (void)comm.all_to_all(too_many),
      ("privet: outgoing.size() = " + std::to_string(comm.size() + 1) +
       " is invalid; allowed: the communicator size " + std::to_string(comm.size()))
          .c_str(),
      privet::invalid_parameter);
  CHECK_THROWS_WITH_AS((void)privet::dist::detail::count_of(std::size_t{1} << 31, "records sent"),
                       "privet: records sent = 2147483648 records do not fit one MPI message; "
                       "allowed: <= 2147483647",
                       privet::overflow_error);
  // An MPI error is returned, not fatal, and thrown with MPI's own text.
  try {
    (void)comm.gather(std::vector<int>{1}, comm.size());
    FAIL("no throw");
  } catch (const privet::error& e) {
    CHECK(std::string(e.what()).rfind("privet: MPI Gatherv failed: ", 0) == 0);
  }
}

TEST_CASE("a collective refused on one rank throws on every rank, none left waiting") {
  // Before these checks each case below left ranks waiting in the collective
  // (or MPI truncating a broadcast); now every rank throws the same error
  // and the next collective still works.
  const communicator comm;
  const bool last = comm.rank() + 1 == comm.size();
  const std::string last_rank = std::to_string(comm.size() - 1);
  const std::string ranks = std::to_string(comm.size());
  const auto still_together = [&] {
    std::vector<unsigned char> bytes(3, comm.rank() == 0 ? 7 : 0);
    comm.broadcast(bytes, 0);
    CHECK(bytes == std::vector<unsigned char>(3, 7));
    CHECK(comm.gather(std::vector<int>{comm.rank()}, 0).size() ==
          (comm.rank() == 0 ? static_cast<std::size_t>(comm.size()) : 0u));
  };
  // broadcast: the last rank passes one byte more than the root.
  std::vector<unsigned char> buffer(last && comm.size() > 1 ? 5 : 4);
  if (comm.size() > 1) {
    CHECK_THROWS_WITH_AS(comm.broadcast(buffer, 0),
                         ("privet: broadcast: rank " + last_rank +
                          " passes 5 bytes where root 0 passes 4; allowed: the same size on "
                          "every rank")
                             .c_str(),
                         privet::protocol_error);
    still_together();
    // The last rank names rank 0 as the root, the others the last rank.
    const int root = last ? 0 : comm.size() - 1;
    const std::string roots =
        "names root 0 where rank 0 names " + last_rank + "; allowed: the same root on every rank";
    std::vector<unsigned char> four(4);
    CHECK_THROWS_WITH_AS(comm.broadcast(four, root),
                         ("privet: broadcast: rank " + last_rank + " " + roots).c_str(),
                         privet::protocol_error);
    CHECK_THROWS_WITH_AS((void)comm.gather(std::vector<int>{1}, root),
                         ("privet: gather: rank " + last_rank + " " + roots).c_str(),
                         privet::protocol_error);
    still_together();
  } else {
    CHECK_NOTHROW(comm.broadcast(buffer, 0));
  }
  // all_to_all: only the last rank passes the wrong number of parts.
  std::vector<std::vector<int>> outgoing(static_cast<std::size_t>(comm.size()) + (last ? 1 : 0));
  CHECK_THROWS_WITH_AS((void)comm.all_to_all(outgoing),
                       ("privet: outgoing.size() = " + std::to_string(comm.size() + 1) +
                        " is invalid; allowed: the communicator size " + ranks)
                           .c_str(),
                       privet::invalid_parameter);
  still_together();
  // A count that does not fit one MPI message, on the last rank only (2^31
  // records are not allocated: the verdict all_to_all sends is given here).
  using privet::dist::detail::refusal;
  CHECK_THROWS_WITH_AS(
      privet::dist::detail::agree(comm.get(), comm.size(),
                                  last ? refusal::records_for_one_rank : refusal::none,
                                  last ? std::uint64_t{1} << 31 : 0),
      "privet: records for one rank = 2147483648 records do not fit one MPI message; allowed: "
      "<= 2147483647",
      privet::overflow_error);
  CHECK_NOTHROW(privet::dist::detail::agree(comm.get(), comm.size(), refusal::none, 0));
  // gather and broadcast lay out every rank's count on every rank, so an
  // overflow in any count or in the total throws everywhere alike.
  const auto exchanged =
      privet::dist::detail::exchange_counts(comm.get(), comm.size(), last ? 9u : 1u, 0);
  CHECK(exchanged.records.back() == 9);
  CHECK(exchanged.roots == std::vector<std::int64_t>(static_cast<std::size_t>(comm.size()), 0));
  CHECK_THROWS_WITH_AS(
      (void)privet::dist::detail::layout_of({1, std::uint64_t{1} << 31}, "records gathered"),
      "privet: records gathered = 2147483648 records do not fit one MPI message; allowed: <= "
      "2147483647",
      privet::overflow_error);
  CHECK_THROWS_WITH_AS(
      (void)privet::dist::detail::layout_of({std::uint64_t{1} << 30, std::uint64_t{1} << 30},
                                            "records gathered"),
      "privet: records gathered = 2147483648 records do not fit one MPI message; allowed: <= "
      "2147483647",
      privet::overflow_error);
  const auto l = privet::dist::detail::layout_of({2, 0, 5}, "records gathered");
  CHECK(l.counts == std::vector<int>{2, 0, 5});
  CHECK(l.displs == std::vector<int>{0, 2, 2});
  CHECK(l.total == 7);
}
