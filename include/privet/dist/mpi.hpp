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

inline int count_of(std::size_t n, const char* what) {
  if (n > static_cast<std::size_t>(INT_MAX)) {
    throw overflow_error(std::string("privet: ") + what + " = " + privet::detail::format_value(n) +
                         " records do not fit one MPI message; allowed: <= 2147483647");
  }
  return static_cast<int>(n);
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

class communicator {
 public:
  /// MPI_COMM_WORLD by default; errors on it are returned (and thrown by
  /// privet) instead of aborting every rank.
  explicit communicator(MPI_Comm comm = MPI_COMM_WORLD) : comm_(comm) {
    detail::check(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "Comm_set_errhandler");
    detail::check(MPI_Comm_rank(comm_, &rank_), "Comm_rank");
    detail::check(MPI_Comm_size(comm_, &size_), "Comm_size");
  }

  [[nodiscard]] int rank() const noexcept { return rank_; }
  [[nodiscard]] int size() const noexcept { return size_; }
  [[nodiscard]] MPI_Comm get() const noexcept { return comm_; }

  /// outgoing[r] goes to rank r; returns everything sent to this rank,
  /// in rank order. outgoing must have size() entries.
  template <class T>
  requires std::is_trivially_copyable_v<T> std::vector<T> all_to_all(
      const std::vector<std::vector<T>>& outgoing)
  const {
    if (outgoing.size() != static_cast<std::size_t>(size_)) {
      throw_invalid("outgoing.size()", outgoing.size(),
                    "the communicator size " + std::to_string(size_));
    }
    const detail::record_type type(sizeof(T));
    std::vector<int> send_counts(size_), recv_counts(size_), send_displs(size_), recv_displs(size_);
    std::vector<T> send;
    std::size_t total = 0;
    for (int r = 0; r < size_; ++r) {
      send_counts[r] = detail::count_of(outgoing[r].size(), "records for one rank");
      send_displs[r] = detail::count_of(total, "records sent");
      total += outgoing[r].size();
    }
    detail::count_of(total, "records sent");
    send.reserve(total);
    for (const auto& part : outgoing) send.insert(send.end(), part.begin(), part.end());
    detail::check(
        MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, comm_),
        "Alltoall");
    std::size_t received = 0;
    for (int r = 0; r < size_; ++r) {
      recv_displs[r] = detail::count_of(received, "records received");
      received += static_cast<std::size_t>(recv_counts[r]);
    }
    detail::count_of(received, "records received");
    std::vector<T> recv(received);
    detail::check(
        MPI_Alltoallv(send.data(), send_counts.data(), send_displs.data(), type.get(), recv.data(),
                      recv_counts.data(), recv_displs.data(), type.get(), comm_),
        "Alltoallv");
    return recv;
  }

  /// Every rank's records at `root`, in rank order (empty elsewhere).
  template <class T>
  requires std::is_trivially_copyable_v<T> std::vector<T> gather(const std::vector<T>& local,
                                                                 int root = 0)
  const {
    const detail::record_type type(sizeof(T));
    const int mine = detail::count_of(local.size(), "records gathered");
    std::vector<int> counts(rank_ == root ? size_ : 0), displs(counts.size());
    detail::check(MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, root, comm_), "Gather");
    std::vector<T> out;
    if (rank_ == root) {
      std::size_t total = 0;
      for (int r = 0; r < size_; ++r) {
        displs[r] = detail::count_of(total, "records gathered");
        total += static_cast<std::size_t>(counts[r]);
      }
      detail::count_of(total, "records gathered");
      out.resize(total);
    }
    detail::check(MPI_Gatherv(local.data(), mine, type.get(), out.data(), counts.data(),
                              displs.data(), type.get(), root, comm_),
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

  /// root's bytes on every rank (every rank passes a buffer of one size).
  void broadcast(std::span<unsigned char> bytes, int root = 0) const {
    detail::check(MPI_Bcast(bytes.data(), detail::count_of(bytes.size(), "broadcast bytes"),
                            MPI_BYTE, root, comm_),
                  "Bcast");
  }

  void barrier() const { detail::check(MPI_Barrier(comm_), "Barrier"); }

 private:
  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace privet::dist
