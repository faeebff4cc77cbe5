// The pageview histogram over MPI equals the single-process release for the
// same secret, whatever the number of ranks and however the rows are split.
// Run under mpiexec with 1, 2 and 3 ranks (tests/CMakeLists.txt); every rank
// runs the doctest cases and the failures are summed over the ranks.
#define DOCTEST_CONFIG_IMPLEMENT
#include <privet/core/seeded_generator.hpp>
#include <privet/core/testing.hpp>
#include <privet/dist/pageview_histogram.hpp>

#include <doctest/doctest.h>

#include <cstdint>
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
  if (comm.rank() == 0) {
    const auto single = h(rows, pub, streams);
    CHECK(single.size() > 10);
    CHECK(all == single);
  } else {
    CHECK(all.empty());
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
