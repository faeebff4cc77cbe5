// privet/dist/pageview_histogram.hpp — the pageview histogram
// (algorithms/pageview_histogram.hpp) across MPI ranks, giving exactly the
// single-process release for the same secret:
//
//   1. rows are shuffled by actor (owner = hash(actor) mod ranks), so each
//      actor is bounded on one rank, with the bounding stream every rank
//      derives from the shared secret: the same salt, hence the same kept
//      tuples as in one process (bottom-k keeps do not depend on row order
//      or on other actors);
//   2. bounded counts and the public page counts are shuffled by page
//      (owner = hash(page, project) mod ranks) and summed;
//   3. each rank releases its own candidate pages, each page's noise from
//      its keyed stream, so no noise depends on the partition.
//
// Inputs may be split over the ranks in any way (each row and each public
// count on exactly one rank). The secret must be the same on every rank:
// share_secret() broadcasts rank 0's.
#pragma once

#include <privet/algorithms/pageview_histogram.hpp>
#include <privet/core/detail/hash.hpp>
#include <privet/core/detail/sodium.hpp>
#include <privet/core/keyed_streams.hpp>
#include <privet/dist/mpi.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace privet::dist {

namespace detail {

struct tuple_cell {
  pageview::tuple_key tuple;
  std::int64_t count;
};
struct page_cell {
  pageview::page_key page;
  std::int64_t count;
};

inline int actor_owner(std::uint64_t actor, int ranks) {
  return static_cast<int>(privet::detail::mix64(actor ^ 0x6163746f72ull) %
                          static_cast<std::uint64_t>(ranks));
}
inline int page_owner(const pageview::page_key& p, int ranks) {
  return static_cast<int>(std::hash<pageview::page_key>{}(p) % static_cast<std::size_t>(ranks));
}

}  // namespace detail

/// Rank 0's secret on every rank.
inline keyed_streams share_secret(const communicator& comm, const keyed_streams& mine) {
  keyed_streams::key_type key = mine.secret();
  comm.broadcast(key, 0);
  keyed_streams shared(key);
  // The stack copy is a secret too: wiped as keyed_streams wipes its own.
  sodium_memzero(key.data(), key.size());
  return shared;
}

/// This rank's part of the release (the rows of the pages it owns, sorted);
/// gather_release() collects them.
template <class Bounding, class Mechanism>
std::vector<pageview::release_row> release(const communicator& comm,
                                           const pageview::histogram<Bounding, Mechanism>& h,
                                           const std::vector<pageview::view>& rows,
                                           const pageview::page_counts& public_counts,
                                           const keyed_streams& streams) {
  const int ranks = comm.size();
  // 1. rows by actor, then bounding.
  std::vector<std::vector<pageview::view>> by_actor(static_cast<std::size_t>(ranks));
  for (const auto& v : rows) by_actor[detail::actor_owner(v.actor, ranks)].push_back(v);
  const auto mine = comm.all_to_all(by_actor);
  by_actor = {};
  auto gen = pageview::histogram<Bounding, Mechanism>::bounding_stream(streams);
  const pageview::tuple_counts bounded = h.bounded_counts(mine, gen);

  // 2. counts and public counts by page.
  std::vector<std::vector<detail::tuple_cell>> cells(static_cast<std::size_t>(ranks));
  for (const auto& [t, c] : bounded.sorted_by_key()) {
    cells[detail::page_owner(t.page_of(), ranks)].push_back({t, c});
  }
  std::vector<std::vector<detail::page_cell>> pages(static_cast<std::size_t>(ranks));
  for (const auto& [p, c] : public_counts.sorted_by_key()) {
    pages[detail::page_owner(p, ranks)].push_back({p, c});
  }
  pageview::tuple_counts counts;
  for (const auto& cell : comm.all_to_all(cells)) counts.add(cell.tuple, cell.count);
  pageview::page_counts public_mine;
  for (const auto& cell : comm.all_to_all(pages)) public_mine.add(cell.page, cell.count);

  // 3. this rank's pages.
  return h.release(counts, public_mine, streams);
}

/// Every rank's part at `root`, sorted (the single-process order); empty on
/// the other ranks.
inline std::vector<pageview::release_row> gather_release(
    const communicator& comm, const std::vector<pageview::release_row>& part, int root = 0) {
  std::vector<detail::tuple_cell> cells;
  cells.reserve(part.size());
  for (const auto& [t, c] : part) cells.push_back({t, c});
  std::vector<pageview::release_row> out;
  for (const auto& cell : comm.gather(cells, root)) out.emplace_back(cell.tuple, cell.count);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

}  // namespace privet::dist
