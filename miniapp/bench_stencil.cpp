// miniapp bench stencil: the 7-point sweep against a STREAM-style copy, same threads, same
// loop structure, same run. Both move 16 B per cell (8 read + 8 written, counting each array
// once: the neighbours come from cache), so their ratio says how close the stencil is to the
// memory-bandwidth bound of this machine.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <vector>

#include "bench.hpp"
#include "field.hpp"
#include "initial_condition.hpp"
#include "report.hpp"
#include "stencil.hpp"

namespace miniapp::bench {

namespace {}  // namespace

int stencil(int argc, char** argv, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int n = 256, reps = 20, warmup = 3;
  CLI::App app{
      "Stencil sweep vs STREAM-style copy on an n^3 block per rank (each rank works on "
      "its own block; no halo exchange). Prints median bandwidths and their ratio.",
      "miniapp bench stencil"};
  app.option_defaults()->always_capture_default();
  app.add_option("--n", n, "cells per dimension per rank")->check(CLI::Range(8, 4096));
  app.add_option("--reps", reps, "timed repetitions (median reported)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--warmup", warmup, "untimed repetitions first")->check(CLI::Range(0, 1000));
  if (const int status = parse_options(app, argc, argv, comm); status >= 0) return status;

  const Box owned{{0, 0, 0}, {n, n, n}};
  Field u("miniapp::bench::u", owned, 1), v("miniapp::bench::v", owned, 1);
  InitialCondition ic;
  ic.grid = {n, n, n};
  fill_initial(u, ic);
  fill_zero(v);
  const Coefficients a{0.1, 0.1, 0.1};
  const Box in = u.interior();

  std::vector<double> t_stencil, t_copy;
  for (int r = 0; r < warmup + reps; ++r) {
    // Alternate the two kernels so both see the same machine state.
    MPI_Barrier(comm);
    double t = MPI_Wtime();
    apply_stencil(7, u, v, in, a, false);
    Kokkos::fence();
    t = MPI_Wtime() - t;
    if (r >= warmup) t_stencil.push_back(reduce_stat(t, comm).max);
    std::swap(u, v);

    MPI_Barrier(comm);
    t = MPI_Wtime();
    copy_region(u, v, in);
    Kokkos::fence();
    t = MPI_Wtime() - t;
    if (r >= warmup) t_copy.push_back(reduce_stat(t, comm).max);
  }
  int nranks = 1;
  MPI_Comm_size(comm, &nranks);
  const double cells = double(n) * n * n * nranks;
  const double ts = median(t_stencil), tc = median(t_copy);
  const double bw_s = 16.0 * cells / ts, bw_c = 16.0 * cells / tc;
  if (rank == 0) {
    std::printf(
        "bench stencil: %d rank(s) x %d thread(s), %d^3 cells per rank, %d reps (median, "
        "slowest rank)\n",
        nranks, Exec().concurrency(), n, reps);
    std::printf("  stencil 7pt   %10.3f ms  %8.2f GB/s  %.3e cell updates/s\n", ts * 1e3,
                bw_s / 1e9, cells / ts);
    std::printf("  copy          %10.3f ms  %8.2f GB/s\n", tc * 1e3, bw_c / 1e9);
    std::printf("  ratio stencil/copy bandwidth  %.3f\n", bw_s / bw_c);
  }
  return 0;
}

}  // namespace miniapp::bench
