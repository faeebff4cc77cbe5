// Secure aggregation (Bonawitz et al., CCS 2017): one full run of 100 clients
// with 10^4 values each in Z_{2^32} and 10 % of the clients dropping out,
// every message serialised and parsed as over a network, all parties on
// one thread. Reported: the wall time of the run, and as counters the time
// of one client (mean over the clients, all rounds, by round as well) and
// of the server, and the bytes one client uploads.
//
// Two dropout points: `drop=1` — 10 clients stop after ShareKeys and send
// no masked input (the server rebuilds their mask keys and strips 900
// pairwise masks: its costly case); `drop=2` — 10 clients send their masked
// input and then no unmasking response.
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/core/uniform.hpp>
#include <privet/crypto/secure_aggregation.hpp>

#include <benchmark/benchmark.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace {

namespace secagg = privet::secagg;
using clock_type = std::chrono::steady_clock;

constexpr std::uint32_t clients = 100;
constexpr std::uint32_t threshold = 51;
constexpr std::size_t length = 10'000;
constexpr std::uint32_t dropouts = 10;

class stopwatch {
 public:
  explicit stopwatch(double& total) : total_(total), start_(clock_type::now()) {}
  stopwatch(const stopwatch&) = delete;
  stopwatch& operator=(const stopwatch&) = delete;
  ~stopwatch() { total_ += std::chrono::duration<double>(clock_type::now() - start_).count(); }

 private:
  double& total_;
  clock_type::time_point start_;
};

void full_run(benchmark::State& state) {
  const auto drop_after = static_cast<int>(state.range(0));
  secagg::parameters params;
  params.clients = clients;
  params.threshold = threshold;
  params.length = length;
  params.modulus = secagg::ring::power_of_two(32);
  params.session = 1;

  privet::testing::seeded_release_generator input_gen(2017);
  std::vector<std::vector<std::uint64_t>> inputs(clients, std::vector<std::uint64_t>(length));
  for (auto& x : inputs) {
    for (auto& v : x) v = input_gen() >> 32;
  }
  // Clients 1..10 drop out (which ones does not change the cost).
  auto dropped = [](std::uint32_t id) { return id <= dropouts; };
  std::vector<std::uint64_t> expected(length, 0);
  for (std::uint32_t id = 1; id <= clients; ++id) {
    if (drop_after == 1 && dropped(id)) continue;
    for (std::size_t i = 0; i < length; ++i) {
      expected[i] = (expected[i] + inputs[id - 1][i]) & 0xffffffffu;
    }
  }

  std::array<double, 4> client_round{};
  double server_time = 0, uploaded = 0;
  for (auto _ : state) {
    std::vector<secagg::client> parties;
    parties.reserve(clients);
    for (std::uint32_t id = 1; id <= clients; ++id) parties.emplace_back(params, id);
    secagg::server server(params);
    auto upload = [&](const std::vector<std::uint8_t>& bytes) {
      uploaded += static_cast<double>(bytes.size());
      return bytes;
    };

    // Round 0: AdvertiseKeys.
    std::vector<std::uint8_t> roster_bytes;
    for (auto& c : parties) {
      std::vector<std::uint8_t> msg;
      {
        stopwatch w(client_round[0]);
        msg = upload(secagg::serialize(c.advertise_keys()));
      }
      stopwatch w(server_time);
      server.receive(secagg::deserialize<secagg::key_advertisement>(msg));
    }
    {
      stopwatch w(server_time);
      roster_bytes = secagg::serialize(server.finish_advertise_keys());
    }

    // Round 1: ShareKeys.
    std::vector<std::vector<std::uint8_t>> inbox_bytes;
    for (auto& c : parties) {
      std::vector<std::uint8_t> msg;
      {
        stopwatch w(client_round[1]);
        msg = upload(
            secagg::serialize(c.share_keys(secagg::deserialize<secagg::key_roster>(roster_bytes))));
      }
      stopwatch w(server_time);
      server.receive(secagg::deserialize<secagg::share_bundle>(msg));
    }
    {
      stopwatch w(server_time);
      for (const auto& inbox : server.finish_share_keys()) {
        inbox_bytes.push_back(secagg::serialize(inbox));
      }
    }

    // Round 2: MaskedInputCollection.
    std::vector<std::uint8_t> survivor_bytes;
    for (auto& c : parties) {
      if (drop_after == 1 && dropped(c.id())) continue;
      std::vector<std::uint8_t> msg;
      {
        stopwatch w(client_round[2]);
        const auto inbox = secagg::deserialize<secagg::share_inbox>(inbox_bytes[c.id() - 1]);
        msg = upload(secagg::serialize(c.mask_input(inbox, inputs[c.id() - 1])));
      }
      stopwatch w(server_time);
      server.receive(secagg::deserialize<secagg::masked_input>(msg));
    }
    {
      stopwatch w(server_time);
      survivor_bytes = secagg::serialize(server.finish_masked_input_collection());
    }

    // Round 3: Unmasking.
    std::vector<std::uint64_t> sum;
    for (auto& c : parties) {
      if (dropped(c.id())) continue;
      std::vector<std::uint8_t> msg;
      {
        stopwatch w(client_round[3]);
        msg = upload(secagg::serialize(
            c.unmask(secagg::deserialize<secagg::survivor_list>(survivor_bytes))));
      }
      stopwatch w(server_time);
      server.receive(secagg::deserialize<secagg::unmasking_response>(msg));
    }
    {
      stopwatch w(server_time);
      sum = server.finish_unmasking();
    }
    if (sum != expected) {
      state.SkipWithError("the server's sum is wrong");
      break;
    }
  }

  const double per_client_ms = 1e3 / clients;
  using counter = benchmark::Counter;
  const double client_total = client_round[0] + client_round[1] + client_round[2] + client_round[3];
  state.counters["client_ms"] = counter(client_total * per_client_ms, counter::kAvgIterations);
  state.counters["client_r0_ms"] =
      counter(client_round[0] * per_client_ms, counter::kAvgIterations);
  state.counters["client_r1_ms"] =
      counter(client_round[1] * per_client_ms, counter::kAvgIterations);
  state.counters["client_r2_ms"] =
      counter(client_round[2] * per_client_ms, counter::kAvgIterations);
  state.counters["client_r3_ms"] =
      counter(client_round[3] * per_client_ms, counter::kAvgIterations);
  state.counters["server_ms"] = counter(server_time * 1e3, counter::kAvgIterations);
  state.counters["upload_kB_per_client"] =
      counter(uploaded / clients / 1e3, counter::kAvgIterations);
}

// The mask expansion alone: one PRG(seed) over 10^4 values mod 2^32, the
// unit of work a client repeats 100 times and the server once per
// (survivor, dropout) pair.
void mask_expansion(benchmark::State& state) {
  privet::detail::secagg_ring ring{0xffffffffu, true};
  std::vector<std::uint64_t> acc(length);
  privet::detail::secagg_seed seed{};
  seed[0] = 1;
  for (auto _ : state) {
    privet::detail::secagg_add_mask(acc, seed, privet::detail::secagg_pair_nonce, false, ring);
    benchmark::DoNotOptimize(acc.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(length));
}

}  // namespace

BENCHMARK(full_run)
    ->Name("secure_aggregation/100_clients/10k_values/mod_2^32/10pct_dropout")
    ->ArgName("drop")
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(mask_expansion)->Name("secure_aggregation/mask_expansion/10k_values");
