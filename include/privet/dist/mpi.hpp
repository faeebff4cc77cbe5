// privet/dist/mpi.hpp — the little of MPI that privet's distributed
// pipelines need, over the C API (Open MPI from Debian; the optional
// privet::mpi target): an environment guard, and a communicator whose
// collectives move vectors of trivially copyable records and throw
// privet::error instead of aborting the job.
//
// Records travel as a contiguous MPI datatype of sizeof(T) bytes, so counts
// are in records: a rank may send up to 2^31 - 1 records to each other rank
// (more throws overflow_error naming the count, never truncates).
//
// There is deliberately no floating-point all-reduce. MPI_Allreduce with
// MPI_SUM may add the ranks' values in any order and tree shape, which the
// standard leaves to the implementation (and Open MPI picks by message size
// and rank count), so a sum of doubles can differ in its last bits from one
// run, rank count or rank to the next. Replicas that must stay bitwise equal
// (dist/federated_dpsgd.hpp) instead all-gather the inputs and let every rank
// add them in one fixed order: all_gather moves each rank's records to every
// rank, unreduced, in rank order.
#pragma once

#include <privet/core/detail/format.hpp>
#include <privet/core/error.hpp>
#include <privet/core/validate.hpp>

// Only the C API: Open MPI's deprecated C++ bindings do not compile warning-free.
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace privet::dist {

namespace detail {

inline void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw error(std::string("privet: MPI ") + what + " failed: " + std::string(text, len));
}

[[noreturn]] inline void throw_too_many(std::uint64_t n, const char* what) {
  throw overflow_error(std::string("privet: ") + what + " = " + privet::detail::format_value(n) +
                       " records do not fit one MPI message; allowed: <= 2147483647");
}

inline int count_of(std::size_t n, const char* what) {
  if (n > static_cast<std::size_t>(INT_MAX)) throw_too_many(n, what);
  return static_cast<int>(n);
}

// A refusal of a collective's arguments found on one rank must be thrown on
// every rank, or the others wait forever in the collective the refusing
// rank never enters. So each rank's verdict on its own arguments, or the
// sizes they imply, is exchanged first, and every rank throws the same
// exception, with the same message, from the same (first refusing) rank.

/// What a rank refuses in its own arguments to all_to_all.
enum class refusal : std::int64_t { none, outgoing_size, records_for_one_rank, records_sent };

/// Exchanges every rank's verdict and throws, on every rank alike, the first
/// refusal in rank order (nothing when no rank refuses).
inline void agree(MPI_Comm comm, int size, refusal mine, std::uint64_t value) {
  const std::int64_t pair[2] = {static_cast<std::int64_t>(mine), static_cast<std::int64_t>(value)};
  std::vector<std::int64_t> all(2 * static_cast<std::size_t>(size));
  check(MPI_Allgather(pair, 2, MPI_INT64_T, all.data(), 2, MPI_INT64_T, comm), "Allgather");
  for (std::size_t r = 0; r < static_cast<std::size_t>(size); ++r) {
    const auto v = static_cast<std::uint64_t>(all[2 * r + 1]);
    switch (static_cast<refusal>(all[2 * r])) {
      case refusal::none:
        break;
      case refusal::outgoing_size:
        throw_invalid("outgoing.size()", v, "the communicator size " + std::to_string(size));
      case refusal::records_for_one_rank:
        throw_too_many(v, "records for one rank");
      case refusal::records_sent:
        throw_too_many(v, "records sent");
      default:
        throw protocol_error("privet: rank " + std::to_string(r) +
                             " sent an unknown verdict before a collective");
    }
  }
}

/// Every rank's record (or byte) count and root for one collective, in rank
/// order, exchanged before it.
struct rank_counts {
  std::vector<std::uint64_t> records;
  std::vector<std::int64_t> roots;
};

inline rank_counts exchange_counts(MPI_Comm comm, int size, std::uint64_t records, int root) {
  const std::int64_t mine[2] = {static_cast<std::int64_t>(records), root};
  const auto n = static_cast<std::size_t>(size);
  std::vector<std::int64_t> all(2 * n);
  check(MPI_Allgather(mine, 2, MPI_INT64_T, all.data(), 2, MPI_INT64_T, comm), "Allgather");
  rank_counts out{std::vector<std::uint64_t>(n), std::vector<std::int64_t>(n)};
  for (std::size_t r = 0; r < n; ++r) {
    out.records[r] = static_cast<std::uint64_t>(all[2 * r]);
    out.roots[r] = all[2 * r + 1];
  }
  return out;
}

/// Throws protocol_error on every rank when the ranks name different roots.
inline void check_same_root(const rank_counts& c, const char* collective) {
  for (std::size_t r = 1; r < c.roots.size(); ++r) {
    if (c.roots[r] != c.roots[0]) {
      throw protocol_error(std::string("privet: ") + collective + ": rank " + std::to_string(r) +
                           " names root " + std::to_string(c.roots[r]) + " where rank 0 names " +
                           std::to_string(c.roots[0]) + "; allowed: the same root on every rank");
    }
  }
}

/// Counts and displacements of a v-collective from every rank's count;
/// every rank computes it from the same exchanged counts, so an overflow
/// throws on every rank alike.
struct layout {
  std::vector<int> counts, displs;
  std::size_t total = 0;
};

inline layout layout_of(const std::vector<std::uint64_t>& records, const char* what) {
  layout l{std::vector<int>(records.size()), std::vector<int>(records.size()), 0};
  for (std::size_t r = 0; r < records.size(); ++r) {
    if (records[r] > static_cast<std::uint64_t>(INT_MAX)) throw_too_many(records[r], what);
    l.counts[r] = static_cast<int>(records[r]);
    l.displs[r] = count_of(l.total, what);
    l.total += static_cast<std::size_t>(records[r]);
  }
  count_of(l.total, what);
  return l;
}

/// A committed contiguous datatype of `bytes` bytes, freed on scope exit.
class record_type {
 public:
  explicit record_type(std::size_t bytes) {
    check(MPI_Type_contiguous(count_of(bytes, "record size"), MPI_BYTE, &type_), "Type_contiguous");
    check(MPI_Type_commit(&type_), "Type_commit");
  }
  record_type(const record_type&) = delete;
  record_type& operator=(const record_type&) = delete;
  ~record_type() { MPI_Type_free(&type_); }
  [[nodiscard]] MPI_Datatype get() const noexcept { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

}  // namespace detail

/// Initialises MPI if nobody has, and finalises it if it did.
class environment {
 public:
  /// Calls MPI_Init(argc, argv) unless MPI is already initialised (then
  /// this guard will not finalise it). Throws privet::error if MPI_Init
  /// reports a failure.
  environment(int& argc, char**& argv) {
    int done = 0;
    MPI_Initialized(&done);
    if (!done) {
      detail::check(MPI_Init(&argc, &argv), "Init");
      owner_ = true;
    }
  }
  environment(const environment&) = delete;
  environment& operator=(const environment&) = delete;
  ~environment() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (owner_ && !finalized) MPI_Finalize();
  }

 private:
  bool owner_ = false;
};

/// An MPI communicator whose collectives move vectors of trivially copyable
/// records (each a contiguous datatype of sizeof(T) bytes, so counts are in
/// records, at most 2^31 - 1 per message) and throw privet exceptions,
/// on every rank alike, instead of aborting the job or leaving ranks
/// waiting. Every collective must be called by every rank of the
/// communicator in the same order, as in MPI. Does not own the MPI_Comm.
/// No floating-point reduction is offered (see the file comment).
class communicator {
 public:
  /// MPI_COMM_WORLD by default; errors on it are returned (and thrown by
  /// privet) instead of aborting every rank: the constructor sets the
  /// communicator's error handler to MPI_ERRORS_RETURN, which other users
  /// of the same MPI_Comm see too. Throws privet::error if an MPI call
  /// fails.
  explicit communicator(MPI_Comm comm = MPI_COMM_WORLD) : comm_(comm) {
    detail::check(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "Comm_set_errhandler");
    detail::check(MPI_Comm_rank(comm_, &rank_), "Comm_rank");
    detail::check(MPI_Comm_size(comm_, &size_), "Comm_size");
  }

  /// This process's rank, in [0, size()).
  [[nodiscard]] int rank() const noexcept { return rank_; }
  /// The number of ranks in the communicator.
  [[nodiscard]] int size() const noexcept { return size_; }
  /// The underlying MPI communicator (not owned).
  [[nodiscard]] MPI_Comm get() const noexcept { return comm_; }

  /// outgoing[r] goes to rank r; returns everything sent to this rank,
  /// in rank order. outgoing must have size() entries. A refused argument
  /// (the wrong number of parts, a count that does not fit one MPI message)
  /// on any rank throws on every rank alike, naming the first such rank's.
  template <class T>
  requires std::is_trivially_copyable_v<T> std::vector<T> all_to_all(
      const std::vector<std::vector<T>>& outgoing)
  const {
    const detail::record_type type(sizeof(T));
    {
      auto verdict = detail::refusal::none;
      std::uint64_t value = 0, total = 0;
      if (outgoing.size() != static_cast<std::size_t>(size_)) {
        verdict = detail::refusal::outgoing_size;
        value = outgoing.size();
      } else {
        for (const auto& part : outgoing) {
          if (part.size() > static_cast<std::size_t>(INT_MAX)) {
            verdict = detail::refusal::records_for_one_rank;
            value = part.size();
            break;
          }
          total += part.size();
        }
        if (verdict == detail::refusal::none && total > static_cast<std::uint64_t>(INT_MAX)) {
          verdict = detail::refusal::records_sent;
          value = total;
        }
      }
      detail::agree(comm_, size_, verdict, value);
    }
    std::vector<int> send_counts(size_), recv_counts(size_), send_displs(size_);
    std::vector<T> send;
    std::size_t total = 0;
    for (int r = 0; r < size_; ++r) {
      send_counts[r] = static_cast<int>(outgoing[r].size());
      send_displs[r] = static_cast<int>(total);
      total += outgoing[r].size();
    }
    send.reserve(total);
    for (const auto& part : outgoing) send.insert(send.end(), part.begin(), part.end());
    detail::check(
        MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, comm_),
        "Alltoall");
    // What this rank receives may not fit although every sender's part did:
    // the totals are exchanged, so that every rank throws for it alike.
    std::uint64_t mine = 0;
    for (const int c : recv_counts) mine += static_cast<std::uint64_t>(c);
    const auto totals = detail::exchange_counts(comm_, size_, mine, 0);
    for (const std::uint64_t t : totals.records) {
      if (t > static_cast<std::uint64_t>(INT_MAX)) detail::throw_too_many(t, "records received");
    }
    std::vector<int> recv_displs(size_);
    std::size_t received = 0;
    for (int r = 0; r < size_; ++r) {
      recv_displs[r] = static_cast<int>(received);
      received += static_cast<std::size_t>(recv_counts[r]);
    }
    std::vector<T> recv(received);
    detail::check(
        MPI_Alltoallv(send.data(), send_counts.data(), send_displs.data(), type.get(), recv.data(),
                      recv_counts.data(), recv_displs.data(), type.get(), comm_),
        "Alltoallv");
    return recv;
  }

  /// Every rank's records at `root`, in rank order (empty elsewhere). The
  /// counts and roots are all-gathered first, so ranks naming different
  /// roots throw protocol_error, and a count (or total) that does not fit
  /// one MPI message overflow_error, on every rank alike.
  template <class T>
  requires std::is_trivially_copyable_v<T> std::vector<T> gather(const std::vector<T>& local,
                                                                 int root = 0)
  const {
    const detail::record_type type(sizeof(T));
    const auto exchanged = detail::exchange_counts(comm_, size_, local.size(), root);
    detail::check_same_root(exchanged, "gather");
    const auto l = detail::layout_of(exchanged.records, "records gathered");
    std::vector<T> out(rank_ == root ? l.total : 0);
    detail::check(
        MPI_Gatherv(local.data(), l.counts[static_cast<std::size_t>(rank_)], type.get(), out.data(),
                    l.counts.data(), l.displs.data(), type.get(), root, comm_),
        "Gatherv");
    return out;
  }

  /// Every rank's records on every rank: result[r] is what rank r passed.
  /// Ranks may pass different numbers of records, or none. The counts are
  /// exchanged as 64-bit integers first, so a count that does not fit one
  /// MPI message throws overflow_error on every rank alike instead of
  /// leaving the others waiting in the collective.
  template <class T>
  requires std::is_trivially_copyable_v<T> std::vector<std::vector<T>> all_gather(
      const std::vector<T>& local)
  const {
    const detail::record_type type(sizeof(T));
    const auto mine = static_cast<std::int64_t>(local.size());
    std::vector<std::int64_t> sizes(static_cast<std::size_t>(size_));
    detail::check(MPI_Allgather(&mine, 1, MPI_INT64_T, sizes.data(), 1, MPI_INT64_T, comm_),
                  "Allgather");
    std::vector<int> counts(static_cast<std::size_t>(size_)), displs(counts.size());
    std::size_t total = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      counts[r] = detail::count_of(static_cast<std::size_t>(sizes[r]), "records all-gathered");
      displs[r] = detail::count_of(total, "records all-gathered");
      total += static_cast<std::size_t>(sizes[r]);
    }
    detail::count_of(total, "records all-gathered");
    std::vector<T> flat(total);
    detail::check(MPI_Allgatherv(local.data(), counts[static_cast<std::size_t>(rank_)], type.get(),
                                 flat.data(), counts.data(), displs.data(), type.get(), comm_),
                  "Allgatherv");
    std::vector<std::vector<T>> out(counts.size());
    for (std::size_t r = 0; r < counts.size(); ++r) {
      const auto first = flat.begin() + displs[r];
      out[r].assign(first, first + counts[r]);
    }
    return out;
  }

  /// root's bytes on every rank. Every rank must pass a buffer of the
  /// root's size and name the same root: the sizes and roots are
  /// all-gathered first, and a mismatch throws protocol_error on every rank
  /// alike (MPI would truncate, or leave a rank waiting, instead).
  void broadcast(std::span<unsigned char> bytes, int root = 0) const {
    const auto exchanged = detail::exchange_counts(comm_, size_, bytes.size(), root);
    detail::check_same_root(exchanged, "broadcast");
    if (root >= 0 && root < size_) {  // else MPI_Bcast refuses the root on every rank
      const std::uint64_t expected = exchanged.records[static_cast<std::size_t>(root)];
      for (std::size_t r = 0; r < exchanged.records.size(); ++r) {
        if (exchanged.records[r] != expected) {
          throw protocol_error("privet: broadcast: rank " + std::to_string(r) + " passes " +
                               std::to_string(exchanged.records[r]) + " bytes where root " +
                               std::to_string(root) + " passes " + std::to_string(expected) +
                               "; allowed: the same size on every rank");
        }
      }
    }
    for (const std::uint64_t n : exchanged.records) {
      if (n > static_cast<std::uint64_t>(INT_MAX)) detail::throw_too_many(n, "broadcast bytes");
    }
    detail::check(MPI_Bcast(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, root, comm_),
                  "Bcast");
  }

  /// Waits until every rank has called barrier(). Throws privet::error if
  /// MPI reports a failure.
  void barrier() const { detail::check(MPI_Barrier(comm_), "Barrier"); }

 private:
  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace privet::dist
