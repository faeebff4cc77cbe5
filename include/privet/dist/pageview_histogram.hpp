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
// owner_bounder and release_owned() do step 1 as the rows are read, in
// rounds, so that no rank holds its rows and the ranks' bounding states add
// up to one process's; release_streamed() does it from rows each rank
// bounded as it read them (local_bounder()), which holds an actor's kept
// tuples on every rank that read one of its rows.
//
// Inputs may be split over the ranks in any way (each row and each public
// count on exactly one rank). The secret must be the same on every rank:
// share_secret() broadcasts rank 0's.
#pragma once

#include <privet/algorithms/pageview_histogram.hpp>
#include <privet/core/detail/hash.hpp>
#include <privet/core/detail/sodium.hpp>
#include <privet/core/error.hpp>
#include <privet/core/keyed_streams.hpp>
#include <privet/dist/mpi.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
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

namespace detail {

// Steps 2 and 3 of the file comment, from this rank's bounded counts
// (taken, and freed once they are in the send buffers: with the bounding
// state they are a rank's largest structures).
template <class Bounding, class Mechanism>
std::vector<pageview::release_row> release_bounded(
    const communicator& comm, const pageview::histogram<Bounding, Mechanism>& h,
    pageview::tuple_counts bounded, const pageview::page_counts& public_counts,
    const keyed_streams& streams) {
  const int ranks = comm.size();
  // 2. counts and public counts by page (in the table's order: the owner
  // sums them into a table, so the order changes nothing).
  std::vector<std::vector<detail::tuple_cell>> cells(static_cast<std::size_t>(ranks));
  for (const auto& [t, c] : bounded) {
    cells[detail::page_owner(t.page_of(), ranks)].push_back({t, c});
  }
  bounded = {};
  std::vector<std::vector<detail::page_cell>> pages(static_cast<std::size_t>(ranks));
  for (const auto& [p, c] : public_counts.sorted_by_key()) {
    pages[detail::page_owner(p, ranks)].push_back({p, c});
  }
  pageview::tuple_counts counts;
  {
    const auto mine = comm.all_to_all(cells);
    cells = {};
    for (const auto& cell : mine) counts.add(cell.tuple, cell.count);
  }
  pageview::page_counts public_mine;
  for (const auto& cell : comm.all_to_all(pages)) public_mine.add(cell.page, cell.count);

  // 3. this rank's pages.
  return h.release(counts, public_mine, streams);
}

}  // namespace detail

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
  return detail::release_bounded(comm, h, h.bounded_counts(mine, gen), public_counts, streams);
}

/// A bounder for this rank's rows, salted as every rank's and as one
/// process's (histogram::bounding_stream): feed it the rows as they are
/// read, then call release_streamed().
template <class Bounding, class Mechanism>
[[nodiscard]] pageview::view_bounder local_bounder(
    const pageview::histogram<Bounding, Mechanism>& h, const keyed_streams& streams) {
  auto gen = pageview::histogram<Bounding, Mechanism>::bounding_stream(streams);
  return h.bounder(gen);
}

/// The release of rows that never sit in memory (issue 33): each rank bounds
/// its own rows as it reads them (`local`, from local_bounder()), keeping at
/// most k distinct tuples per actor; each actor's kept tuples then go to the
/// actor's owner, which bounds them again with the same salt. A unit's kept
/// tuples are the bottom-k of keyed priorities of its distinct tuples, and
/// the bottom-k of a union is the bottom-k of its parts' bottom-k, so the
/// owner keeps exactly the tuples one process keeps from all the actor's
/// rows: the release equals release()'s and the single-process one for the
/// same secret. Memory per rank follows its kept (actor, tuple) pairs, not
/// its rows; they are sent in rounds of about 2^21 pairs per rank (actors
/// picked by hash), so the shuffle's buffers stay small beside the two
/// bounding states (`pairs_per_round`: the round size; 0 counts as 1). The owner's bound holds
/// whatever `local` kept (a bounder with another salt costs the equality, never the guarantee).
/// Collective.
template <class Bounding, class Mechanism>
std::vector<pageview::release_row> release_streamed(
    const communicator& comm, const pageview::histogram<Bounding, Mechanism>& h,
    const pageview::view_bounder& local, const pageview::page_counts& public_counts,
    const keyed_streams& streams, std::uint64_t pairs_per_round = std::uint64_t{1} << 21) {
  const int ranks = comm.size();
  // In rounds of about pairs_per_round pairs sent per rank, so that no rank
  // holds its kept pairs a second (and, in the shuffle's buffers, a third
  // and fourth) time: round j sends the actors whose hash is j modulo the
  // round count, the most rounds any rank needs (all-gathered, so every
  // rank enters the same number of collectives whatever it passed).
  pairs_per_round = std::max<std::uint64_t>(1, pairs_per_round);
  const std::uint64_t needed = local.state().kept() / pairs_per_round + 1;
  std::uint64_t rounds = 1;
  for (const auto& r : comm.all_gather(std::vector<std::uint64_t>{needed})) {
    rounds = std::max(rounds, r.at(0));
  }
  auto owner = local_bounder(h, streams);
  for (std::uint64_t round = 0; round < rounds; ++round) {
    std::vector<std::vector<pageview::view>> by_actor(static_cast<std::size_t>(ranks));
    local.state().visit([&](const std::uint64_t& actor, const auto& kept) {
      if (privet::detail::mix64(actor ^ 0x726f756e64ull) % rounds != round) return;
      auto& out = by_actor[static_cast<std::size_t>(detail::actor_owner(actor, ranks))];
      for (const auto& k : kept) out.push_back(pageview::view{actor, k.key});
    });
    const auto mine = comm.all_to_all(by_actor);
    by_actor = {};
    owner.add(std::span<const pageview::view>(mine));
  }
  return detail::release_bounded(comm, h, owner.counts(), public_counts, streams);
}

/// Rows to their actors' owners as they are read, bounded there once
/// (issue 33): the rank that owns an actor (detail::actor_owner, the owner
/// release() uses) holds that actor's kept tuples and no other rank holds any
/// state for it, so the ranks' bounding states add up to one process's, and
/// a rank's memory is its owned (actor, tuple) pairs plus one round's rows.
/// add() bounds a row of an owned actor at once and keeps any other row for
/// the next exchange(), a collective that sends every rank's kept rows to
/// their owners; callers read their input in rounds and call exchange()
/// after each, every rank the same number of times (an input every rank can
/// see whole, such as a generated day, needs none: each rank adds the rows
/// whose actor it owns(), and release_owned() exchanges once). The kept
/// tuples are those of one process with the same secret: each actor is
/// bounded on one rank with the same salt, over all its rows.
class owner_bounder {
 public:
  /// This rank's bounder of `h`, salted from `streams` as every rank's.
  template <class Bounding, class Mechanism>
  owner_bounder(const communicator& comm, const pageview::histogram<Bounding, Mechanism>& h,
                const keyed_streams& streams)
      : comm_(&comm),
        bounder_(local_bounder(h, streams)),
        outgoing_(static_cast<std::size_t>(comm.size())) {}

  /// Whether this rank bounds `actor`'s rows.
  [[nodiscard]] bool owns(std::uint64_t actor) const {
    return detail::actor_owner(actor, comm_->size()) == comm_->rank();
  }

  /// Bounds `v` here if this rank owns its actor, else keeps it for the next
  /// exchange().
  void add(const pageview::view& v) {
    const auto to = detail::actor_owner(v.actor, comm_->size());
    if (to == comm_->rank()) {
      bounder_->add(v);
    } else {
      outgoing_[static_cast<std::size_t>(to)].push_back(v);
      ++pending_;
    }
  }

  /// Rows kept for the next exchange().
  [[nodiscard]] std::uint64_t pending() const noexcept { return pending_; }

  /// Collective: every rank's kept rows to their owners, which bound them.
  void exchange() {
    const auto mine = comm_->all_to_all(outgoing_);
    // Released, not cleared: a round's buffers would otherwise stay at their
    // largest size for the rest of the run.
    for (auto& part : outgoing_) std::vector<pageview::view>().swap(part);
    pending_ = 0;
    bounder_->add(std::span<const pageview::view>(mine));
  }

  /// This rank's bounding state (its owned actors' kept tuples).
  [[nodiscard]] const pageview::view_bounder& bounder() const noexcept { return *bounder_; }

  /// The bounded counts of this rank's actors, freeing the bounding state
  /// (the last use: release_owned() calls it); throws privet::error if it
  /// was taken already.
  [[nodiscard]] pageview::tuple_counts take_counts() {
    if (!bounder_) {
      throw error(
          "privet: owner_bounder::take_counts: the counts were taken already; allowed: once");
    }
    auto counts = bounder_->counts();
    bounder_.reset();
    return counts;
  }

 private:
  const communicator* comm_;
  std::optional<pageview::view_bounder> bounder_;
  std::vector<std::vector<pageview::view>> outgoing_;
  std::uint64_t pending_ = 0;
};

/// This rank's part of the release from an owner_bounder fed with every
/// row (each row added on exactly one rank, each public count on exactly
/// one): rows still kept for an exchange are sent first, and the bounder's
/// state is freed as its counts are taken (it cannot release twice). Equal
/// to release() and to the single-process release for the same secret.
/// Collective.
template <class Bounding, class Mechanism>
std::vector<pageview::release_row> release_owned(const communicator& comm,
                                                 const pageview::histogram<Bounding, Mechanism>& h,
                                                 owner_bounder& rows,
                                                 const pageview::page_counts& public_counts,
                                                 const keyed_streams& streams) {
  rows.exchange();
  return detail::release_bounded(comm, h, rows.take_counts(), public_counts, streams);
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
