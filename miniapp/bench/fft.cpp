// miniapp bench fft: the distributed 3D FFT, real-to-complex (r2c) and complex-to-complex (c2c),
// time per forward + inverse pair and per transpose step, zero-copy (MPI_Alltoallw with
// subarray types) against pack + MPI_Alltoallv, and, when built with FFTW-MPI
// (MINIAPP_WITH_FFTW_MPI, Debian libfftw3-mpi-dev), FFTW-MPI's slab-decomposed
// fftw_mpi_plan_dft_3d and fftw_mpi_plan_dft_r2c_3d / _c2r_3d on the same grid and ranks, normal
// and with FFTW_MPI_TRANSPOSED_OUT/IN. Every variant is planned once with the same FFTW planner
// flag and timed in the same loop (variants interleaved per repetition, median of the slowest
// rank; ratios are medians of the per-repetition ratios). Ours: the input in the field's
// blocks, the output in pencils, our inverse includes its 1/N scaling. FFTW-MPI: in place
// (r2c on its padded real array), no scaling.
#include "fft.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <iostream>
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

/// Median over repetitions of a's time / b's time (paired: the same repetition of the loop).
double paired_ratio(const Variant& a, const Variant& b) {
  std::vector<double> r;
  for (std::size_t i = 0; i < a.times.size() && i < b.times.size(); ++i)
    r.push_back(a.times[i] / b.times[i]);
  return median(r);
}

#ifdef MINIAPP_HAVE_FFTW_MPI
/// FFTW-MPI's slab FFT on global (NX, NY, NZ), x fastest: FFTW's row-major n0 x n1 x n2 =
/// NZ x NY x NX, split along n0 = z. r2c: in place on FFTW's padded real array (rows of
/// 2 (NX/2+1) doubles), as FFTW-MPI's documentation does it.
class FftwMpi {
 public:
  FftwMpi(const Index3& g, MPI_Comm comm, FftKind kind, bool transposed, unsigned flags) {
    const ptrdiff_t n0 = g[2], n1 = g[1], n2 = g[0];
    const ptrdiff_t nc = kind == FftKind::R2C ? n2 / 2 + 1 : n2;  // complex values per row
    ptrdiff_t local_n0 = 0, start0 = 0, local_n1 = 0, start1 = 0;
    const ptrdiff_t alloc = transposed
                                ? fftw_mpi_local_size_3d_transposed(n0, n1, nc, comm, &local_n0,
                                                                    &start0, &local_n1, &start1)
                                : fftw_mpi_local_size_3d(n0, n1, nc, comm, &local_n0, &start0);
    const ptrdiff_t n = std::max<ptrdiff_t>(alloc, 1);
    data_ = fftw_alloc_complex(std::size_t(n));
    std::fill_n(reinterpret_cast<double*>(data_), 2 * n, 0.0);
    const unsigned out = transposed ? FFTW_MPI_TRANSPOSED_OUT : 0;
    const unsigned in = transposed ? FFTW_MPI_TRANSPOSED_IN : 0;
    double* real = reinterpret_cast<double*>(data_);
    if (kind == FftKind::R2C) {
      fwd_ = fftw_mpi_plan_dft_r2c_3d(n0, n1, n2, real, data_, comm, flags | out);
      inv_ = fftw_mpi_plan_dft_c2r_3d(n0, n1, n2, data_, real, comm, flags | in);
    } else {
      fwd_ = fftw_mpi_plan_dft_3d(n0, n1, n2, data_, data_, comm, FFTW_FORWARD, flags | out);
      inv_ = fftw_mpi_plan_dft_3d(n0, n1, n2, data_, data_, comm, FFTW_BACKWARD, flags | in);
    }
    if (!fwd_ || !inv_) throw std::runtime_error("bench fft: FFTW-MPI could not plan");
    // Random input, as ours gets (the padding of a real row stays zero).
    for (ptrdiff_t row = 0; row < local_n0 * n1; ++row)
      for (ptrdiff_t i = 0; i < n2; ++i) {
        const double v = unit_double(splitmix64(std::uint64_t((start0 * n1 + row) * n2 + i)));
        if (kind == FftKind::R2C) {
          real[row * 2 * nc + i] = v;
        } else {
          data_[row * n2 + i][0] = v;
          data_[row * n2 + i][1] = 0;
        }
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
  std::string planner = "measure", kinds = "both";
  std::int64_t split_bytes = TransposePlan::kDefaultSplitBytes;
  bool peers = true;
  CLI::App app{
      "Distributed 3D FFT, r2c and c2c: time per forward+inverse pair and per transpose step, "
      "zero-copy vs pack, and FFTW-MPI (slab, r2c and c2c) when built with it.",
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
  app.add_option("--fft", kinds, "which transforms: r2c, c2c or both")
      ->check(CLI::IsMember({"r2c", "c2c", "both"}));
  app.add_option("--split-bytes", split_bytes,
                 "zero-copy: runs contiguous on both sides of at least this many bytes go as "
                 "plain messages (0 = one subarray message per peer)")
      ->check(CLI::Range(std::int64_t(0), std::int64_t(1) << 40));
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
  std::vector<FftKind> fft_kinds;
  for (FftKind k : {FftKind::R2C, FftKind::C2C})
    if (kinds == "both" || kinds == to_string(k)) fft_kinds.push_back(k);

  // Ours: each kind with both transpose variants, random input.
  std::vector<std::unique_ptr<DistributedFft>> ours;
  std::vector<Variant> variants;
  for (FftKind kind : fft_kinds)
    for (TransposeKind transpose : {TransposeKind::ZeroCopy, TransposeKind::Pack}) {
      ours.push_back(std::make_unique<DistributedFft>(
          decomp, FftOptions{kind, transpose, planning, split_bytes}));
      DistributedFft* f = ours.back().get();
      const std::int64_t cells = f->input_box().count();
      for (std::int64_t i = 0; i < cells; ++i) {
        const double v = unit_double(splitmix64(std::uint64_t(rank) << 40 | std::uint64_t(i)));
        if (kind == FftKind::R2C)
          f->real_input()[i] = v;
        else
          f->input()[i] = Complex(v);
      }
      variants.push_back({std::string("miniapp ") + to_string(kind) + " " + to_string(transpose),
                          [f] {
                            f->forward();
                            f->inverse();
                          },
                          {}});
    }
  const std::size_t n_ours = variants.size();
#ifdef MINIAPP_HAVE_FFTW_MPI
  std::vector<std::unique_ptr<FftwMpi>> fftw_mpi;
  if (peers) {
    fftw_mpi_init();
    for (FftKind kind : fft_kinds)
      for (bool transposed : {false, true}) {
        fftw_mpi.push_back(std::make_unique<FftwMpi>(c.grid, comm, kind, transposed, flags));
        FftwMpi* f = fftw_mpi.back().get();
        variants.push_back(
            {std::string("FFTW-MPI ") + to_string(kind) + (transposed ? " transposed" : " normal"),
             [f] { f->pair(); },
             {}});
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

  const auto find = [&](const std::string& name) -> const Variant* {
    for (const Variant& v : variants)
      if (v.name == name) return &v;
    return nullptr;
  };
  if (rank == 0) {
    std::printf(
        "bench fft: %d rank(s) (%dx%dx%d) x %d thread(s), %dx%dx%d, FFTW_%s, %d reps, "
        "variants interleaved (median of the slowest rank; ratios: median of per-rep ratios)\n",
        nranks, dims[0], dims[1], dims[2], Kokkos::DefaultHostExecutionSpace().concurrency(),
        c.grid[0], c.grid[1], c.grid[2], planner == "measure" ? "MEASURE" : "ESTIMATE", reps);
    for (std::size_t i = 0; i < ours.size(); i += 2) {
      const auto& layouts = ours[i]->transposes().layouts();
      std::printf("  chain %s (rank 0):", to_string(ours[i]->kind()));
      for (std::size_t l = 0; l < layouts.size(); ++l) {
        std::printf(" %s", layouts[l].name.c_str());
        if (layouts[l].real_to_complex) std::printf(" [r2c]");
        if (layouts[l].next_dim >= 0) std::printf(" --%c-->", "xyz"[layouts[l].next_dim]);
      }
      std::printf("\n");
    }
  }
  // Memory of our FFTs against one field (the owned cells of the largest block), largest rank.
  const double field = reduce_stat(8.0 * double(decomp.owned().count()), comm).max;
  for (std::size_t i = 0; i < ours.size(); ++i) {
    // Per-phase times of our variants, per pair (both directions), slowest rank.
    const FftTimes& t = ours[i]->times();
    const double transforms = reduce_stat(t.transforms / reps, comm).max;
    std::vector<double> steps;
    for (double s : t.steps) steps.push_back(reduce_stat(s / reps, comm).max);
    const double bytes = reduce_stat(double(ours[i]->bytes()), comm).max;
    if (rank == 0) {
      const auto& layouts = ours[i]->transposes().layouts();
      std::printf("  %-26s %9.3f ms per pair   (mean: FFTW transforms %.3f ms",
                  variants[i].name.c_str(), median(variants[i].times) * 1e3, transforms * 1e3);
      for (std::size_t s = 0; s < steps.size(); ++s)
        std::printf(", step %zu along %c %.3f ms", s, "xyz"[layouts[s].next_dim], steps[s] * 1e3);
      std::printf("; buffers %.4g MB = %.3g x the field)\n", bytes / 1e6, bytes / field);
    }
  }
  if (rank == 0) {
    for (std::size_t i = n_ours; i < variants.size(); ++i)
      std::printf("  %-26s %9.3f ms per pair\n", variants[i].name.c_str(),
                  median(variants[i].times) * 1e3);
    const auto ratio = [&](const std::string& label, const std::string& a,
                           const std::vector<std::string>& bs) {
      const Variant* va = find(a);
      if (!va) return;
      double best = 0;
      for (const std::string& b : bs)
        if (const Variant* vb = find(b)) {
          const double r = paired_ratio(*va, *vb);
          best = best == 0 ? r : std::min(best, r);
        }
      if (best > 0) std::printf("  ratio %-38s %.3f\n", label.c_str(), best);
    };
    for (const char* k : {"r2c", "c2c"}) {
      const std::string m = std::string("miniapp ") + k;
      ratio(std::string("zerocopy/pack (") + k + ")", m + " zerocopy", {m + " pack"});
    }
    for (const char* t : {"zerocopy", "pack"})
      ratio(std::string("r2c/c2c (") + t + ")", std::string("miniapp r2c ") + t,
            {std::string("miniapp c2c ") + t});
    for (const char* k : {"r2c", "c2c"})
      for (const char* t : {"zerocopy", "pack"}) {
        const std::string f = std::string("FFTW-MPI ") + k;
        ratio(std::string(k) + " " + t + "/best FFTW-MPI " + k,
              std::string("miniapp ") + k + " " + t, {f + " normal", f + " transposed"});
      }
  }
  return 0;
}

}  // namespace miniapp::bench
