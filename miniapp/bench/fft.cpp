// miniapp bench fft: the distributed c2c 3D FFT, time per forward + inverse pair and per
// transpose step, zero-copy (MPI_Alltoallw with subarray types) against pack + MPI_Alltoallv,
// and, when built with FFTW-MPI (MINIAPP_WITH_FFTW_MPI, Debian libfftw3-mpi-dev), FFTW-MPI's
// slab-decomposed fftw_mpi_plan_dft_3d on the same grid and ranks, normal and with
// FFTW_MPI_TRANSPOSED_OUT/IN. Every variant is c2c, in place, planned once with the same FFTW
// planner flag, and timed in the same loop (variants interleaved per repetition, median of the
// slowest rank). Our inverse includes its 1/N scaling; FFTW-MPI's does not scale.
#include "fft.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench.hpp"
#include "mpi_utils.hpp"
#include "numerics.hpp"
#include "options.hpp"

#ifdef MINIAPP_HAVE_FFTW_MPI
#include <fftw3-mpi.h>
#endif

namespace miniapp::bench {

namespace {

/// One timed variant: a forward + inverse pair.
struct Variant {
  std::string name;
  std::function<void()> pair;
  std::vector<double> times;  ///< slowest rank, per repetition
};

#ifdef MINIAPP_HAVE_FFTW_MPI
/// FFTW-MPI's slab FFT on global (NX, NY, NZ), x fastest: FFTW's row-major n0 x n1 x n2 =
/// NZ x NY x NX, split along n0 = z.
class FftwMpi {
 public:
  FftwMpi(const Index3& g, MPI_Comm comm, bool transposed, unsigned flags) {
    const ptrdiff_t n0 = g[2], n1 = g[1], n2 = g[0];
    ptrdiff_t local_n0 = 0, start0 = 0, local_n1 = 0, start1 = 0;
    const ptrdiff_t alloc = transposed
                                ? fftw_mpi_local_size_3d_transposed(n0, n1, n2, comm, &local_n0,
                                                                    &start0, &local_n1, &start1)
                                : fftw_mpi_local_size_3d(n0, n1, n2, comm, &local_n0, &start0);
    data_ = fftw_alloc_complex(std::size_t(std::max<ptrdiff_t>(alloc, 1)));
    std::fill_n(reinterpret_cast<double*>(data_), 2 * std::max<ptrdiff_t>(alloc, 1), 0.0);
    fwd_ = fftw_mpi_plan_dft_3d(n0, n1, n2, data_, data_, comm, FFTW_FORWARD,
                                flags | (transposed ? FFTW_MPI_TRANSPOSED_OUT : 0));
    inv_ = fftw_mpi_plan_dft_3d(n0, n1, n2, data_, data_, comm, FFTW_BACKWARD,
                                flags | (transposed ? FFTW_MPI_TRANSPOSED_IN : 0));
    if (!fwd_ || !inv_) throw std::runtime_error("bench fft: FFTW-MPI could not plan");
    // Random input, as ours gets.
    for (ptrdiff_t i = 0; i < local_n0 * n1 * n2; ++i) {
      data_[i][0] = unit_double(splitmix64(std::uint64_t(start0 * n1 * n2 + i)));
      data_[i][1] = 0;
    }
  }
  ~FftwMpi() {
    fftw_destroy_plan(fwd_);
    fftw_destroy_plan(inv_);
    fftw_free(data_);
  }
  void pair() {
    fftw_execute(fwd_);
    fftw_execute(inv_);
  }

 private:
  fftw_complex* data_ = nullptr;
  fftw_plan fwd_ = nullptr, inv_ = nullptr;
};
#endif

}  // namespace

int fft(int argc, char** argv, MPI_Comm comm) {
  int rank = 0, nranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nranks);
  std::vector<int> grid{128, 128, 128}, ranks{0, 0, 0};
  int reps = 10, warmup = 2;
  std::string planner = "measure";
  bool peers = true;
  CLI::App app{
      "Distributed c2c 3D FFT: time per forward+inverse pair and per transpose step, "
      "zero-copy vs pack, and FFTW-MPI (slab) when built with it.",
      "miniapp bench fft"};
  app.option_defaults()->always_capture_default();
  app.add_option("--grid", grid, "global cells NX NY NZ")
      ->expected(3)
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--ranks", ranks, "rank grid PX PY PZ; 0 = choose as the diffusion run does")
      ->expected(3)
      ->check(CLI::Range(0, 1 << 20));
  app.add_option("--reps", reps, "timed pairs per variant (median reported)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--warmup", warmup, "untimed pairs per variant first")->check(CLI::Range(0, 1000));
  app.add_option("--planner", planner, "FFTW planner flag of every variant")
      ->check(CLI::IsMember({"measure", "estimate"}));
  app.add_option("--peers", peers, "also time FFTW-MPI when built with it");
  if (const int status = parse_options(app, argc, argv, comm); status >= 0) return status;

  Config c;
  c.grid = {grid[0], grid[1], grid[2]};
  c.ranks = {ranks[0], ranks[1], ranks[2]};
  c.validate();
  c.validate_for(nranks);
  const Index3 dims = resolve_rank_grid(c, nranks);
  Decomposition decomp(comm, c.grid, dims, {true, true, true});
  const FftPlanning planning = planner == "measure" ? FftPlanning::Measure : FftPlanning::Estimate;
  const unsigned flags = planning == FftPlanning::Measure ? FFTW_MEASURE : FFTW_ESTIMATE;

  // Ours, both transpose variants, random input.
  std::vector<std::unique_ptr<DistributedFft>> ours;
  std::vector<Variant> variants;
  for (TransposeKind kind : {TransposeKind::ZeroCopy, TransposeKind::Pack}) {
    ours.push_back(std::make_unique<DistributedFft>(decomp, kind, planning));
    DistributedFft* f = ours.back().get();
    const Box in = f->input_box();
    for (std::int64_t i = 0; i < in.count(); ++i)
      f->input()[i] =
          Complex(unit_double(splitmix64(std::uint64_t(rank) << 40 | std::uint64_t(i))));
    variants.push_back({std::string("miniapp ") + to_string(kind),
                        [f] {
                          f->forward();
                          f->inverse();
                        },
                        {}});
  }
#ifdef MINIAPP_HAVE_FFTW_MPI
  std::vector<std::unique_ptr<FftwMpi>> fftw_mpi;
  if (peers) {
    fftw_mpi_init();
    for (bool transposed : {false, true}) {
      fftw_mpi.push_back(std::make_unique<FftwMpi>(c.grid, comm, transposed, flags));
      FftwMpi* f = fftw_mpi.back().get();
      variants.push_back(
          {transposed ? "FFTW-MPI transposed" : "FFTW-MPI normal", [f] { f->pair(); }, {}});
    }
  }
#else
  (void)flags;
#endif

  for (int r = 0; r < warmup; ++r)
    for (Variant& v : variants) v.pair();
  for (auto& f : ours) f->reset_timers();
  for (int r = 0; r < reps; ++r)
    for (Variant& v : variants) {
      MPI_Barrier(comm);
      const double t = MPI_Wtime();
      v.pair();
      v.times.push_back(reduce_stat(MPI_Wtime() - t, comm).max);
    }

  const auto& layouts = ours[0]->transposes().layouts();
  if (rank == 0) {
    std::printf(
        "bench fft: %d rank(s) (%dx%dx%d) x %d thread(s), %dx%dx%d c2c in place, "
        "FFTW_%s, %d reps (median of the slowest rank)\n",
        nranks, dims[0], dims[1], dims[2], Kokkos::DefaultHostExecutionSpace().concurrency(),
        c.grid[0], c.grid[1], c.grid[2], planner == "measure" ? "MEASURE" : "ESTIMATE", reps);
    std::printf("  chain (rank 0):");
    for (std::size_t i = 0; i < layouts.size(); ++i) {
      std::printf(" %s", layouts[i].name.c_str());
      if (layouts[i].next_dim >= 0) std::printf(" --%c-->", "xyz"[layouts[i].next_dim]);
    }
    std::printf("\n");
  }
  for (std::size_t i = 0; i < ours.size(); ++i) {
    // Per-phase times of our variants, per pair (both directions), slowest rank.
    const FftTimes& t = ours[i]->times();
    const double transforms = reduce_stat(t.transforms / reps, comm).max;
    std::vector<double> steps;
    for (double s : t.steps) steps.push_back(reduce_stat(s / reps, comm).max);
    if (rank == 0) {
      std::printf("  %-22s %9.3f ms per pair   (mean: FFTW transforms %.3f ms",
                  variants[i].name.c_str(), median(variants[i].times) * 1e3, transforms * 1e3);
      for (std::size_t s = 0; s < steps.size(); ++s)
        std::printf(", step %zu along %c %.3f ms", s, "xyz"[layouts[s].next_dim], steps[s] * 1e3);
      std::printf(")\n");
    }
  }
  if (rank == 0) {
    for (std::size_t i = ours.size(); i < variants.size(); ++i)
      std::printf("  %-22s %9.3f ms per pair\n", variants[i].name.c_str(),
                  median(variants[i].times) * 1e3);
    const double zc = median(variants[0].times), pk = median(variants[1].times);
    std::printf("  ratio zerocopy/pack                %.3f\n", zc / pk);
    if (variants.size() > 2) {
      double best = median(variants[2].times);
      for (std::size_t i = 3; i < variants.size(); ++i)
        best = std::min(best, median(variants[i].times));
      std::printf("  ratio zerocopy/best FFTW-MPI       %.3f\n", zc / best);
      std::printf("  ratio pack/best FFTW-MPI           %.3f\n", pk / best);
    }
  }
  return 0;
}

}  // namespace miniapp::bench
