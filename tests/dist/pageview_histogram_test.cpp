// The pageview histogram over MPI equals the single-process release for the
// same secret, whatever the number of ranks and however the rows are split.
// Run under mpiexec with 1, 2 and 3 ranks (tests/CMakeLists.txt); every rank
// runs the doctest cases and the failures are summed over the ranks.
#define DOCTEST_CONFIG_IMPLEMENT
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/dist/pageview_histogram.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace pv = privet::pageview;

namespace {

privet::dist::communicator* world = nullptr;

// 30000 views: 3000 actors (the first 20 heavy, viewing 300 distinct
// tuples each), 400 pages over 3 projects, 12 countries.
std::vector<pv::view> day() {
  privet::testing::seeded_release_generator gen(2026);
  std::vector<pv::view> out;
  for (int i = 0; i < 30'000; ++i) {
    const std::uint64_t r = gen();
    const bool heavy = i % 5 == 0;
    const std::uint64_t actor = heavy ? r % 20 : 20 + r % 2980;
    const std::uint64_t page = heavy ? (r >> 20) % 400 : ((r >> 20) % 20) * ((r >> 30) % 20);
    out.push_back(
        {actor,
         {page, static_cast<std::uint32_t>(page % 3), static_cast<std::uint16_t>((r >> 50) % 12)}});
  }
  return out;
}

pv::page_counts public_counts(const std::vector<pv::view>& rows) {
  pv::page_counts out;
  for (const auto& v : rows) out.add(v.tuple.page_of());
  return out;
}

}  // namespace

TEST_CASE("the distributed release equals the single-process release") {
  const auto& comm = *world;
  const auto rows = day();
  const auto pub = public_counts(rows);
  pv::parameters<> p;
  p.candidate_threshold = 60;
  p.release_threshold = 25;
  const pv::histogram<> h(p, 12);
  // Each rank holds every size()-th row and public count, from its own end.
  std::vector<pv::view> mine;
  for (std::size_t i = static_cast<std::size_t>(comm.rank()); i < rows.size();
       i += static_cast<std::size_t>(comm.size())) {
    mine.push_back(rows[rows.size() - 1 - i]);
  }
  pv::page_counts pub_mine;
  std::size_t j = 0;
  for (const auto& [k, c] : pub.sorted_by_key()) {
    if (j++ % static_cast<std::size_t>(comm.size()) == static_cast<std::size_t>(comm.rank())) {
      pub_mine.add(k, c);
    }
  }
  // A fresh secret on rank 0, shared: release-grade and still reproducible
  // within the run.
  const auto streams = privet::dist::share_secret(comm, privet::keyed_streams{});
  const auto part = privet::dist::release(comm, h, mine, pub_mine, streams);
  const auto all = privet::dist::gather_release(comm, part);
  // Issue 33: the same rows bounded by each rank as they come, in chunks,
  // then again by each actor's owner.
  auto local = privet::dist::local_bounder(h, streams);
  for (std::size_t i = 0; i < mine.size(); i += 1000) {
    local.add(
        std::span<const pv::view>(mine).subspan(i, std::min<std::size_t>(1000, mine.size() - i)));
  }
  const auto streamed = privet::dist::gather_release(
      comm, privet::dist::release_streamed(comm, h, local, pub_mine, streams));
  // The same in rounds of 1000 pairs per rank (several rounds: each rank
  // keeps thousands of pairs).
  CHECK(local.state().kept() > 2000);
  const auto in_rounds = privet::dist::gather_release(
      comm, privet::dist::release_streamed(comm, h, local, pub_mine, streams, 1000));
  // Issue 33: the rows sent to their actors' owners in rounds of 700 rows
  // (rank 0 has the most rounds; the others run empty rounds to match), each
  // actor bounded once, on its owner.
  privet::dist::owner_bounder owned(comm, h, streams);
  const std::size_t rounds = (rows.size() + 699) / 700;
  std::uint64_t exchanged = 0;
  for (std::size_t r = 0; r < rounds; ++r) {
    for (std::size_t i = 700 * r; i < std::min(mine.size(), 700 * (r + 1)); ++i) owned.add(mine[i]);
    exchanged += owned.pending();
    owned.exchange();
    CHECK(owned.pending() == 0);
  }
  // Some rows travelled (several ranks), none when one rank owns all.
  CHECK((exchanged > 0) == (comm.size() > 1));
  // Every actor's kept tuples on one rank only: the kept pairs add up to one
  // process's.
  std::uint64_t kept = 0;
  for (const auto& k :
       comm.all_gather(std::vector<std::uint64_t>{owned.bounder().state().kept()})) {
    kept += k.at(0);
  }
  const auto by_owner = privet::dist::gather_release(
      comm, privet::dist::release_owned(comm, h, owned, pub_mine, streams));
  // The bounding state went with the counts: a second release is refused.
  CHECK_THROWS_AS(privet::dist::release_owned(comm, h, owned, pub_mine, streams), privet::error);
  if (comm.rank() == 0) {
    const auto single = h(rows, pub, streams);
    CHECK(single.size() > 10);
    CHECK(all == single);
    CHECK(streamed == single);
    CHECK(in_rounds == single);
    CHECK(by_owner == single);
    auto gen = pv::histogram<>::bounding_stream(streams);
    auto one = h.bounder(gen);
    one.add(std::span<const pv::view>(rows));
    CHECK(kept == one.state().kept());
  } else {
    CHECK(all.empty());
    CHECK(streamed.empty());
    CHECK(in_rounds.empty());
    CHECK(by_owner.empty());
  }
}

TEST_CASE("the streamed release bounds each actor over all ranks, not per rank") {
  // One actor's 6 distinct tuples (one page each, all above the thresholds
  // by public count) split over the ranks, k = 2: a release counting more
  // than 2 of its tuples would show a per-rank bound (2 per rank). The
  // bounded counts are checked directly: no noise, no threshold.
  const auto& comm = *world;
  pv::parameters<> p;
  p.k = 2;
  const pv::histogram<> h(p, 12);
  const auto streams = privet::dist::share_secret(comm, privet::keyed_streams{});
  auto local = privet::dist::local_bounder(h, streams);
  for (std::uint64_t page = 0; page < 6; ++page) {
    if (page % static_cast<std::uint64_t>(comm.size()) == static_cast<std::uint64_t>(comm.rank())) {
      local.add(pv::view{7, {page, 0, 0}});
    }
  }
  // Every rank's kept pairs, summed: at most k per rank before the owner.
  const auto kept = comm.all_gather(std::vector<std::uint64_t>{local.state().kept()});
  std::uint64_t total = 0;
  for (const auto& k : kept) total += k[0];
  CHECK(total == std::min<std::uint64_t>(6, 2 * static_cast<std::uint64_t>(comm.size())));
  // The owner's bound: the single-process bounded counts, 2 tuples.
  auto gen = pv::histogram<>::bounding_stream(streams);
  std::vector<pv::view> all_rows;
  for (std::uint64_t page = 0; page < 6; ++page) all_rows.push_back(pv::view{7, {page, 0, 0}});
  const auto single = h.bounded_counts(all_rows, gen);
  CHECK(single.size() == 2);
  // The streamed release with thresholds of 1 and a huge rho shows which
  // cells survived: exactly the single process's 2 tuples.
  pv::parameters<> loose;
  loose.k = 2;
  loose.budget = privet::zcdp(1e6);
  loose.candidate_threshold = 1;
  loose.release_threshold = 1;
  const pv::histogram<> hl(loose, 12);
  pv::page_counts pub;
  if (comm.rank() == 0) {
    for (std::uint64_t page = 0; page < 6; ++page) pub.add(pv::page_key{page, 0});
  }
  const auto released = privet::dist::gather_release(
      comm, privet::dist::release_streamed(comm, hl, local, pub, streams));
  if (comm.rank() == 0) {
    REQUIRE(released.size() == 2);
    for (const auto& [t, c] : released) CHECK(single[t] == 1);
  }
}

int main(int argc, char** argv) {
  privet::dist::environment env(argc, argv);
  privet::dist::communicator comm;
  world = &comm;
  doctest::Context context(argc, argv);
  if (comm.rank() != 0) context.setOption("out", "/dev/null");
  int failed = context.run() != 0 ? 1 : 0;
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_SUM, comm.get());
  return any == 0 ? 0 : 1;
}
