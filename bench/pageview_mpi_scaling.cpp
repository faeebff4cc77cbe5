// Scaling of the distributed pageview histogram (dist/pageview_histogram.hpp)
// over MPI ranks: every rank generates the same day and keeps every
// size()-th row; the timed part is the distributed pipeline (shuffle by
// actor, bounding, shuffle by page, noise, release) and the gather. Run as
//   mpiexec -n 1 build/bench/bench/pageview_mpi_scaling [rows]
//   mpiexec -n 2 build/bench/bench/pageview_mpi_scaling [rows]
// and compare the rows/s (bench/README.md). Not a Google Benchmark: the
// timing is one collective run, taken as the slowest rank's.
#include <privet/dist/pageview_histogram.hpp>

#include "../examples/support/pageview_generator.hpp"

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  privet::dist::environment env(argc, argv);
  const privet::dist::communicator comm;
  const std::uint64_t rows = argc > 1 ? std::stoull(argv[1]) : 20'000'000;

  privet::examples::generator_options g;
  g.rows = rows;
  privet::examples::pageview_generator gen(g);
  std::vector<privet::pageview::view> mine;
  privet::pageview::page_counts pub;
  std::uint64_t i = 0;
  gen.generate([&](const privet::pageview::view& v) {
    if (i % static_cast<std::uint64_t>(comm.size()) == static_cast<std::uint64_t>(comm.rank())) {
      mine.push_back(v);
      pub.add(v.tuple.page_of());
    }
    ++i;
  });
  // The exact sampler, as the recorded numbers (bench/README.md).
  const privet::pageview::histogram<
      privet::pageview::bound_per_actor,
      privet::discrete_gaussian_mechanism<std::int64_t, privet::secure_noise>>
      h(privet::pageview::parameters<>{},
        static_cast<std::uint32_t>(privet::examples::countries().size()));
  const auto streams = privet::dist::share_secret(comm, privet::keyed_streams{});

  comm.barrier();
  const auto t0 = std::chrono::steady_clock::now();
  const auto part = privet::dist::release(comm, h, mine, pub, streams);
  const auto all = privet::dist::gather_release(comm, part);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double slowest = 0;
  MPI_Reduce(&secs, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, comm.get());
  if (comm.rank() == 0) {
    std::printf("ranks %d: %llu rows, %zu cells released, %.2f s, %.2f M rows/s\n", comm.size(),
                static_cast<unsigned long long>(rows), all.size(), slowest,
                static_cast<double>(rows) / slowest / 1e6);
  }
  return 0;
}
