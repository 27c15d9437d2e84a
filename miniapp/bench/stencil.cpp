// miniapp bench stencil: the single sweep against the memory roofline, in one run.
//
// For each stencil (7 and 27 points) the kernels below sweep the same n^3 block per rank, the
// repetitions interleaved so that all see the same machine state (each kernel run twice in a
// row, the second timed):
//   kokkos   the production path (apply_stencil: Kokkos; from memory each thread's planes in
//            tiles of rows, with prefetch; cache-blocked order in cache), its stores chosen
//            as a run's are (StoreChoice, adaptive: from its own timings in this benchmark);
//            "nt" with streaming stores always, "ord" with ordinary ones
//   openmp   a hand-written OpenMP loop nest over the same expression (the yardstick: what a
//            plain `parallel for collapse(2)` + `simd` gives with this compiler)
//   copy     a copy v = u with the production loop structure and order, ordinary or ("nt")
//            streaming stores: what the sweep's access pattern allows without its neighbours
//            and arithmetic
//   mdrange  (7 points) a Kokkos MDRangePolicy over the cells: the textbook policy
//   stream   the yardstick (stream_copy.hpp): an aligned, first-touched STREAM copy of as many
//            cells, with ordinary and with streaming stores; and after them one core's copy
//            alone (the first thread of rank 0 over its own share), to tell a bound set by
//            each core's own limit from one set by the memory the cores share
// Every kernel is counted at 16 B per cell (8 read + 8 written: a stencil's neighbours come
// from cache). The bound is the better stream copy / 16 B, so /bound is the fraction of the
// single-sweep memory bound reached, and kokkos/openmp says what the abstraction costs.
// Then the arithmetic side: the sweep's rate on a block in cache, against the ceiling that the
// cores' measured add and multiply throughput (core_rate.hpp) puts on its operation count.
#include "stencil.hpp"

#include <omp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench.hpp"
#include "core_rate.hpp"
#include "field.hpp"
#include "initial_condition.hpp"
#include "mpi_utils.hpp"
#include "stencil_line.hpp"
#include "store_choice.hpp"
#include "stream_copy.hpp"

namespace miniapp::bench {

namespace {

/// The yardstick: one hand-written OpenMP sweep of the `points`-point stencil over box b.
void openmp_sweep(int points, const Field& u, Field& v, const Box& b, const Coefficients& a) {
  const std::int64_t sy = u.stride_y(), sz = u.stride_z();
  const double* up = u.data();
  double* vp = v.data();
  const double ax = a.ax, ay = a.ay, az = a.az;
  const int nx = b.extent(0);
#pragma omp parallel for collapse(2) schedule(static)
  for (int k = b.lo[2]; k < b.hi[2]; ++k)
    for (int j = b.lo[1]; j < b.hi[1]; ++j) {
      const double* __restrict c = up + u.index(b.lo[0], j, k);
      double* __restrict o = vp + u.index(b.lo[0], j, k);
      if (points == 27) {
#pragma omp simd
        for (int i = 0; i < nx; ++i) {
          const auto at = [&](int dx, int dy, int dz) { return c[i + dx + dy * sy + dz * sz]; };
          o[i] = diffusion27(at, ax, ay, az);
        }
      } else {
#pragma omp simd
        for (int i = 0; i < nx; ++i)
          o[i] = diffusion7(c[i], c[i - 1], c[i + 1], c[i - sy], c[i + sy], c[i - sz], c[i + sz],
                            ax, ay, az);
      }
    }
}

/// The 7-point sweep as a Kokkos MDRange over (i, j, k) with x fastest (Iterate::Left) and
/// Kokkos' default tiling: the policy the Kokkos tutorials suggest, for comparison with the
/// production path's flattened range of x-lines with an inner vector loop.
void mdrange_sweep7(const Field& u, Field& v, const Box& b, const Coefficients& a) {
  const std::int64_t sy = u.stride_y(), sz = u.stride_z();
  const double* up = u.data();
  double* vp = v.data();
  const Field f = u;
  const double ax = a.ax, ay = a.ay, az = a.az;
  using Policy =
      Kokkos::MDRangePolicy<Exec, Kokkos::Rank<3, Kokkos::Iterate::Left, Kokkos::Iterate::Left>>;
  Kokkos::parallel_for(
      "miniapp::bench::mdrange7", Policy({b.lo[0], b.lo[1], b.lo[2]}, {b.hi[0], b.hi[1], b.hi[2]}),
      KOKKOS_LAMBDA(int i, int j, int k) {
        const std::int64_t c = f.index(i, j, k);
        vp[c] = diffusion7(up[c], up[c - 1], up[c + 1], up[c - sy], up[c + sy], up[c - sz],
                           up[c + sz], ax, ay, az);
      });
}

/// Where the cores' copy at once reaches this fraction of the sum of their copies alone, the
/// bound is mostly each core's own limit: a memory the cores saturate gives each much less
/// than it gets alone (the 2-core Zen 5 VM: 0.58-0.76 of it in minutes when its memory ran
/// slow, 0.81-0.97 when it ran fast, each core alone at 31-38 GB/s either way).
constexpr double kOwnLimit = 0.8;

}  // namespace

int stencil(int argc, char** argv, MPI_Comm comm) {
  int rank = 0, nranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nranks);
  int n = 256, reps = 20, warmup = 3;
  std::vector<int> stencils{7, 27};
  CLI::App app{
      "Single stencil sweep vs a hand-written OpenMP sweep vs copies with the sweep's loop "
      "structure vs a STREAM-style copy on an n^3 block per rank (each rank works on its own "
      "block; no halo exchange). Prints median bandwidths (16 B per cell) and their ratios, "
      "then the sweep in cache against the add/multiply ceiling measured on the cores.",
      "miniapp bench stencil"};
  app.option_defaults()->always_capture_default();
  app.add_option("--n", n, "cells per dimension per rank")->check(CLI::Range(8, 4096));
  app.add_option("--reps", reps, "timed repetitions (median reported)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--warmup", warmup, "untimed repetitions first")->check(CLI::Range(0, 1000));
  app.add_option("--stencil", stencils, "stencils to sweep (7 and/or 27)")
      ->check(CLI::IsMember({7, 27}));
  if (const int status = parse_options(app, argc, argv, comm); status >= 0) return status;

  const Box owned{{0, 0, 0}, {n, n, n}};
  Field u("miniapp::bench::u", owned, 1), v("miniapp::bench::v", owned, 1);
  InitialCondition ic;
  ic.grid = {n, n, n};
  fill_initial(u, ic);
  fill_zero(v);
  const Coefficients a{0.05, 0.05, 0.05};
  const Box in = u.interior();

  struct Kernel {
    std::string name;
    std::function<void()> run;
    std::vector<double> seconds;
  };
  std::vector<Kernel> kernels;
  // One choice per stencil, fed with the time of every sweep it chose for (the untimed twin
  // included), as the stepper feeds its own.
  std::map<int, StoreChoice> choices;
  for (int p : stencils)
    choices.emplace(p, StoreChoice(StorePolicy::Adaptive, sweep_streams_from_memory(owned)));
  for (int p : stencils) {
    const std::string s = std::to_string(p) + "pt";
    StoreChoice& choice = choices.at(p);
    kernels.push_back({"stencil " + s + " kokkos",
                       [&, p] { sweep_choosing(choice, p, u, v, in, a, false); },
                       {}});
    for (SweepStores stores : {SweepStores::Streaming, SweepStores::Ordinary})
      kernels.push_back({"stencil " + s + " kokkos " + stores_label(stores),
                         [&, p, stores] { apply_stencil(p, u, v, in, a, false, stores); },
                         {}});
    kernels.push_back({"stencil " + s + " openmp", [&, p] { openmp_sweep(p, u, v, in, a); }, {}});
  }
  const bool mdrange = std::find(stencils.begin(), stencils.end(), 7) != stencils.end();
  if (mdrange) kernels.push_back({"stencil 7pt mdrange", [&] { mdrange_sweep7(u, v, in, a); }, {}});
  kernels.push_back({"copy", [&] { copy_region(u, v, in, SweepStores::Ordinary); }, {}});
  kernels.push_back({"copy nt", [&] { copy_region(u, v, in, SweepStores::Streaming); }, {}});
  // The yardstick: as many cells as the swept block (the counted bytes are the same).
  const StreamCopy yardstick(std::int64_t(n) * n * n);
  kernels.push_back({"stream ordinary", [&] { yardstick.run(StoreKind::Ordinary); }, {}});
  kernels.push_back({"stream streaming", [&] { yardstick.run(StoreKind::Streaming); }, {}});

  // After the copies of all cores at once, one core's alone (rank 0's first thread over its
  // own share, every other core idle), the better of its two stores. Where all cores together
  // move about the cores times what one moves alone, the bound is each core's own limit (how
  // many lines one core keeps in flight), not the memory they share: a kernel that overlaps
  // less of its work with its memory traffic than a bare copy then falls short of the bound
  // however fast the memory is.
  std::vector<double> alone;  // seconds per rep
  const auto copy_alone = [&](StoreKind kind) {
    if (rank == 0) yardstick.run_alone(kind);
    MPI_Barrier(comm);
    return reduce_stat(rank == 0 ? yardstick.run_alone(kind) : 0.0, comm).max;
  };
  // Each kernel runs twice in a row and the second run is timed: a kernel repeats step after
  // step on the same arrays, and the first pass over arrays that another kernel just left can
  // run at half the rate of the next (measured on an AMD Zen 5 VM: copies at 44-55, then 114
  // GB/s), which would time every kernel but the one after its own twin in that state.
  // The twin does not take it all away: the kernel that comes right after the yardstick's
  // copies (other arrays, 2 x 16 B per cell) still runs slower than the one after it (measured
  // on the Zen 5 VM, 7-point, 1 x 2: the first of the adaptive and the streaming sweeps was
  // the slower in 13 of 16 runs, by up to a quarter, whichever of the two it was). So the kernels
  // before the copies take turns to go first, one place further each rep; the copies stay last,
  // as every rep's bound.
  const std::size_t swept = kernels.size() - 2;
  for (int r = 0; r < warmup + reps; ++r) {
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      Kernel& k = kernels[i < swept ? (std::size_t(r) + i) % swept : i];
      k.run();
      Kokkos::fence();
      MPI_Barrier(comm);
      double t = MPI_Wtime();
      k.run();
      Kokkos::fence();
      t = MPI_Wtime() - t;
      if (r >= warmup) k.seconds.push_back(reduce_stat(t, comm).max);
    }
    // Collective: one after the other, in the same order on every rank.
    const double ordinary = copy_alone(StoreKind::Ordinary);
    const double t = std::min(ordinary, copy_alone(StoreKind::Streaming));
    if (r >= warmup) alone.push_back(t);
  }

  const double cells = double(n) * n * n * nranks;
  const auto bandwidth = [&](const Kernel& k) { return 16.0 * cells / median(k.seconds); };
  // The arithmetic side: the same sweep on a block that stays in cache (each rank alone).
  std::map<int, double> in_cache;
  for (int p : stencils) in_cache[p] = reduce_stat(in_cache_sweep_rate(p), comm).min;
  // And what the cores could do: the in-cache rate against the add/multiply ceiling.
  const CoreRates core = measure_core_rates();
  const double adds = reduce_stat(core.adds, comm).min, muls = reduce_stat(core.muls, comm).min,
               mixed = reduce_stat(core.mixed, comm).min,
               l2_reads = reduce_stat(core.l2_reads, comm).min;
  const CoreRates slowest{adds, muls, mixed, l2_reads};
  const int threads = Exec().concurrency();
  const std::size_t nk = kernels.size();
  const double bound = std::max(bandwidth(kernels[nk - 1]), bandwidth(kernels[nk - 2]));
  // The bound of each rep (the better of its two copies), and each kernel's rate against the
  // bound of its own rep: on a shared machine the copy moves from rep to rep (by 1.7 x in one
  // run on a 2-core VM, whose streaming copy flips between about 38 and 57 GB/s), and a kernel
  // timed next to a copy saw the same machine.
  std::vector<double> bound_by_rep;
  for (std::size_t r = 0; r < kernels[nk - 1].seconds.size(); ++r)
    bound_by_rep.push_back(16.0 * cells /
                           std::min(kernels[nk - 1].seconds[r], kernels[nk - 2].seconds[r]));
  const auto paired = [&](const Kernel& k) {
    std::vector<double> ratios;
    for (std::size_t r = 0; r < k.seconds.size(); ++r)
      ratios.push_back(16.0 * cells / k.seconds[r] / bound_by_rep[r]);
    return ratios;
  };
  if (rank == 0) {
    std::printf(
        "bench stencil: %d rank(s) x %d thread(s), %d^3 cells per rank, %d reps (median, "
        "slowest rank)\n",
        nranks, Exec().concurrency(), n, reps);
    std::printf("  line kernels: %s\n", kLineKernels);
    std::printf("  %-22s %10s %10s %14s %8s\n", "kernel", "ms", "GB/s", "cell upd/s", "/bound");
    for (const Kernel& k : kernels)
      std::printf("  %-22s %10.3f %10.2f %14.4e %8.3f\n", k.name.c_str(), median(k.seconds) * 1e3,
                  bandwidth(k) / 1e9, cells / median(k.seconds), bandwidth(k) / bound);
    const auto [low, high] = std::minmax_element(bound_by_rep.begin(), bound_by_rep.end());
    std::printf(
        "  bound: %.2f GB/s (better stream copy) = %.4e cell upd/s; rep by rep %.4e to %.4e\n",
        bound / 1e9, bound / 16, *low / 16, *high / 16);
    // One core's copy, rep by rep against the same rep's copy of all cores.
    const int cores = nranks * threads;
    const double one_core = yardstick.alone_bytes() / median(alone);
    std::vector<double> of_cores_alone;  // the bound over the cores' copies alone, per rep
    for (std::size_t r = 0; r < alone.size(); ++r)
      of_cores_alone.push_back(bound_by_rep[r] / (cores * yardstick.alone_bytes() / alone[r]));
    const auto [so_low, so_high] =
        std::minmax_element(of_cores_alone.begin(), of_cores_alone.end());
    const double together = median(of_cores_alone);
    std::printf(
        "  one core alone: %.2f GB/s (better stream copy, rank 0's first thread over its own "
        "share, the other cores idle); the bound is %.3f x %d core%s alone (rep by rep %.3f to "
        "%.3f): %s\n",
        one_core / 1e9, together, cores, cores == 1 ? "" : "s", *so_low, *so_high,
        cores == 1              ? "one core, its own limit"
        : together >= kOwnLimit ? "the cores barely slow each other: each core's own limit sets "
                                  "most of the bound"
                                : "the cores slow each other: the memory they share sets the "
                                  "bound");
    for (int p : stencils)
      std::printf("  in cache (per rank): %dpt %.4e cell upd/s = %.3f x the bound\n", p,
                  in_cache[p], in_cache[p] * nranks / (bound / 16));
    std::printf(
        "  arithmetic (per thread, slowest rank's median thread): %.3e adds/s, %.3e muls/s, "
        "%.3e mixed/s\n",
        slowest.adds, slowest.muls, slowest.mixed);
    std::printf(
        "  L2 reads (per thread, slowest rank's median thread): %.1f GB/s (a 256 KiB buffer "
        "read again and again)\n",
        slowest.l2_reads / 1e9);
    for (int p : stencils) {
      const OpCount ops = sweep_ops(p);
      const double ceiling = arithmetic_ceiling(slowest, ops.adds, ops.muls) * threads;
      std::printf(
          "  arithmetic ceiling (per rank): %dpt %d adds + %d muls per cell -> %.4e cell upd/s "
          "= %.3f x the bound; in cache reaches %.3f of it\n",
          p, ops.adds, ops.muls, ceiling, ceiling * nranks / (bound / 16), in_cache[p] / ceiling);
      // Builds whose sweep does more than the expression needs (the portable loop) say what
      // the fewest operations would allow.
      if (p == 27 && (ops.adds != kLeast27Ops.adds || ops.muls != kLeast27Ops.muls)) {
        const double least =
            arithmetic_ceiling(slowest, kLeast27Ops.adds, kLeast27Ops.muls) * threads;
        std::printf(
            "  arithmetic ceiling (per rank): 27pt at the fewest operations its expression "
            "allows, %d adds + %d muls -> %.4e cell upd/s = %.3f x the bound\n",
            kLeast27Ops.adds, kLeast27Ops.muls, least, least * nranks / (bound / 16));
      }
    }
    const auto kernel = [&](const std::string& name) -> const Kernel& {
      for (const Kernel& k : kernels)
        if (k.name == name) return k;
      throw std::logic_error("bench stencil: no kernel " + name);
    };
    const auto find = [&](const std::string& name) { return bandwidth(kernel(name)); };
    for (int p : stencils) {
      const StoreChoice& choice = choices.at(p);
      if (choice.from_memory())
        std::printf(
            "  stores %-3s: kokkos took streaming in %lld of its sweeps, ordinary in %lld, and "
            "ended on %s\n",
            (std::to_string(p) + "pt").c_str(), (long long)choice.rounds(SweepStores::Streaming),
            (long long)choice.rounds(SweepStores::Ordinary),
            choice.favourite() == SweepStores::Streaming ? "streaming" : "ordinary");
    }
    for (int p : stencils) {
      const std::string s = std::to_string(p) + "pt";
      const double kokkos = find("stencil " + s + " kokkos");
      const std::vector<double> by_rep = paired(kernel("stencil " + s + " kokkos"));
      const auto [least, most] = std::minmax_element(by_rep.begin(), by_rep.end());
      std::printf(
          "  ratio %-4s: stencil/bound %.3f (target >= %.2f; against each rep's own bound: "
          "median %.3f, %.3f to %.3f), kokkos/openmp %.3f (target >= 0.95)\n",
          s.c_str(), kokkos / bound, p == 7 ? 0.70 : 0.40, median(by_rep), *least, *most,
          kokkos / find("stencil " + s + " openmp"));
    }
  }
  return 0;
}

}  // namespace miniapp::bench
