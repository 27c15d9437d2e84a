// Kernel-level exactness: every line kernel and sweep mode against the portable loop bit for
// bit (all lengths and alignments, in-cache and streaming sweeps), the STREAM yardstick and the
// line copy copy exactly, the arithmetic yardstick's ceilings, and the pure model that picks
// temporal-blocking settings.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core_rate.hpp"
#include "field.hpp"
#include "initial_condition.hpp"
#include "numerics.hpp"
#include "stencil.hpp"
#include "stencil_line.hpp"
#include "stream_copy.hpp"

namespace miniapp::test {
namespace {

bool same_bits(double a, double b) { return double_bits(a) == double_bits(b); }

/// Random values in [-1, 1) with some exact zeros and signed zeros among them.
std::vector<double> random_values(std::size_t n, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = i % 97 == 3 ? -0.0 : i % 89 == 5 ? 0.0 : d(gen);
  return v;
}

/// Fill u with the random initial condition of its owned box, seed `seed`.
void fill_random(Field& u, const Box& owned, std::uint64_t seed) {
  InitialCondition ic;
  ic.grid = owned.extents();
  ic.seed = seed;
  fill_initial(u, ic);
}

/// The `points`-point update of `region` by the portable loop, line by line, in an array shaped
/// like u's padded box (zero outside the region).
std::vector<double> portable_sweep(int points, const Field& u, const Box& region,
                                   const Coefficients& a) {
  const std::int64_t sy = u.stride_y(), sz = u.stride_z();
  std::vector<double> ref(u.view().size(), 0.0);
  for (int k = region.lo[2]; k < region.hi[2]; ++k)
    for (int j = region.lo[1]; j < region.hi[1]; ++j) {
      const std::int64_t b = u.index(region.lo[0], j, k);
      (points == 7 ? line7_portable : line27_portable)(
          u.data() + b, ref.data() + b, region.extent(0), sy, sz, sz, a.ax, a.ay, a.az);
    }
  return ref;
}

/// Cells of v (its whole storage) whose bits differ from ref's.
std::int64_t differing_cells(const Field& v, const std::vector<double>& ref) {
  std::int64_t differ = 0;
  for (std::size_t i = 0; i < v.view().size(); ++i)
    differ += !same_bits(v.data()[i], ref[std::size_t(i)]);
  return differ;
}

TEST(FieldLayout, EveryRowsOwnedCellsStartALine) {
  // Streaming stores write whole lines only where each row's owned cells start one; the
  // storage must still be what storage_ext() tells MPI and HDF5, with rows nx + 2h long.
  for (int nx : {1, 7, 8, 13, 64, 131})
    for (int h : {1, 2, 3, 8}) {
      const Box owned{{0, 0, 0}, {nx, 5, 3}};
      const Field u("u", owned, h);
      const Index3 s = u.storage_ext();
      EXPECT_EQ(s[0] % 8, 0) << nx << " " << h;
      EXPECT_GE(s[0], nx + 2 * h) << nx << " " << h;
      EXPECT_LT(s[0], nx + 2 * h + 8) << nx << " " << h;
      EXPECT_EQ(s[1], 5 + 2 * h);
      EXPECT_EQ(s[2], 3 + 2 * h);
      EXPECT_EQ(u.view().size(), std::size_t(s[0]) * s[1] * s[2]);
      EXPECT_EQ(u.stride_y(), s[0]);
      EXPECT_EQ(u.stride_z(), std::int64_t(s[0]) * s[1]);
      for (int k = 0; k < s[2]; ++k)
        for (int j = 0; j < s[1]; ++j)
          EXPECT_EQ(reinterpret_cast<std::uintptr_t>(u.data() + u.index(h, j, k)) % 64, 0u)
              << "nx " << nx << " h " << h << " row " << j << " plane " << k;
    }
}

TEST(LineKernels, EqualThePortableLoopsForEveryLengthAlignmentAndMode) {
  // A 3D array with odd strides; lines of every length 1..80 at every alignment of the start.
  // planes: 0 = an ordinary array, 1 = 2D (z reads the cell itself), 2 = the plane above
  // twice as far as the one below (a ring of planes).
  const std::int64_t sy = 91, sz = sy * 5;
  const std::vector<double> u = random_values(std::size_t(sz * 5 + 64), 7);
  for (int points : {7, 27})
    for (int planes = 0; planes < 3; ++planes)
      for (LineMode mode : {LineMode::Cached, LineMode::Prefetch, LineMode::Stream})
        for (int n = 1; n <= 80; ++n)
          for (int shift = 0; shift < 8; ++shift)
            for (int out_shift : {shift, (shift + 3) % 8}) {
              const std::int64_t below = planes == 1 ? 0 : sz;
              const std::int64_t above = planes == 1 ? 0 : planes == 2 ? 2 * sz : sz;
              const double* c = u.data() + 2 * sz + 2 * sy + 1 + shift;
              std::vector<double> want(std::size_t(n + 16), 9.0), got(std::size_t(n + 16), 9.0);
              if (points == 27)
                line27_portable(c, want.data() + out_shift, n, sy, below, above, 0.11, 0.07, 0.05);
              else
                line7_portable(c, want.data() + out_shift, n, sy, below, above, 0.11, 0.07, 0.05);
              if (planes == 2)
                stencil_line_planes(points, c, got.data() + out_shift, n, sy, below, above, 0.11,
                                    0.07, 0.05, mode);
              else
                stencil_line(points, c, got.data() + out_shift, n, sy, below, 0.11, 0.07, 0.05,
                             mode);
              for (std::size_t i = 0; i < want.size(); ++i)
                ASSERT_TRUE(same_bits(want[i], got[i]))
                    << points << "-point n=" << n << " shift=" << shift
                    << " out_shift=" << out_shift << " mode=" << int(mode) << " planes=" << planes
                    << " at " << i;
            }
}

TEST(LineKernels, LongLinesOfThe27PointEqualThePortableLoop) {
  // The 27-point line kernel works on pieces of 256 cells with its scratch on the stack: lines
  // just below, at and beyond a piece, and of several pieces, must not show where they were cut.
  const std::int64_t sy = 611, sz = sy * 4;
  const std::vector<double> u = random_values(std::size_t(sz * 4), 11);
  for (int n : {255, 256, 257, 300, 512, 600})
    for (LineMode mode : {LineMode::Cached, LineMode::Prefetch}) {
      const double* c = u.data() + sz + sy + 3;
      std::vector<double> want(std::size_t(n), 0.0), got(std::size_t(n), 0.0);
      line27_portable(c, want.data(), n, sy, sz, sz, 0.11, 0.07, 0.05);
      stencil_line(27, c, got.data(), n, sy, sz, 0.11, 0.07, 0.05, mode);
      for (int i = 0; i < n; ++i)
        ASSERT_TRUE(same_bits(want[std::size_t(i)], got[std::size_t(i)]))
            << "n=" << n << " mode=" << int(mode) << " at " << i;
    }
}

TEST(LineKernels, TheBuildsVectorIsaHasItsKernels) {
  // The exactness tests here check the hand-vectorised kernels only where they are compiled
  // in: a build for AVX2 or AVX-512 that fell back to the portable loops would pass them all.
#if defined(__AVX512F__)
  EXPECT_STREQ(kLineKernels, "AVX-512");
#elif defined(__AVX2__)
  EXPECT_STREQ(kLineKernels, "AVX2");
#else
  EXPECT_STREQ(kLineKernels, "portable");
#endif
}

#if defined(MINIAPP_HAVE_SIMD_LINES)
TEST(Simd, ShiftsAndLaneMasksMoveExactlyTheirLanes) {
  constexpr int W = simd::W;
  alignas(64) double a[2 * W], out[W];
  for (int l = 0; l < 2 * W; ++l) a[l] = l + 1;
  const simd::V prev = simd::load(a), cur = simd::load(a + W);
  simd::storeu(out, simd::shift_in_low(cur, prev));  // u(i-1) for the lanes of cur
  for (int l = 0; l < W; ++l) EXPECT_EQ(out[l], a[W + l - 1]) << "shift_in_low lane " << l;
  simd::storeu(out, simd::shift_in_high(cur, prev));  // u(i+1) for the lanes of prev
  for (int l = 0; l < W; ++l) EXPECT_EQ(out[l], a[l + 1]) << "shift_in_high lane " << l;
  // A masked load gives the lanes in the mask and zeros elsewhere; a masked store writes the
  // lanes in the mask and nothing else.
  const auto check = [&](simd::Mask m, const auto& in_mask, const std::string& what) {
    simd::storeu(out, simd::load_lanes(m, a));
    for (int l = 0; l < W; ++l) EXPECT_EQ(out[l], in_mask(l) ? a[l] : 0.0) << what << " lane " << l;
    std::fill(out, out + W, -1.0);
    simd::store_lanes(out, m, simd::load(a + W));
    for (int l = 0; l < W; ++l)
      EXPECT_EQ(out[l], in_mask(l) ? a[W + l] : -1.0) << what << " store, lane " << l;
  };
  for (int x = -2 * W; x <= 2 * W; ++x)
    for (int lo = -W; lo <= W; ++lo)
      for (int hi = lo; hi <= lo + 2 * W; ++hi)
        check(
            simd::lanes_within(x, lo, hi), [&](int l) { return lo <= x + l && x + l < hi; },
            "lanes_within(" + std::to_string(x) + ", " + std::to_string(lo) + ", " +
                std::to_string(hi) + ")");
  for (int count = 0; count <= W; ++count)
    check(
        simd::first_lanes(count), [&](int l) { return l < count; },
        "first_lanes(" + std::to_string(count) + ")");
  check(
      simd::last_lane(), [&](int l) { return l == W - 1; }, "last_lane");
}
#endif

TEST(LineKernels, SweepsFromMemoryAreBitIdenticalWithEitherStores) {
  // Large enough that the sweep streams from memory (plane order, prefetch, streaming stores).
  const Box owned{{0, 0, 0}, {131, 129, 130}};
  Field u("u", owned, 1), v("v", owned, 1);
  fill_random(u, owned, 99);
  const Coefficients a{0.1, 0.08, 0.06};
  const Box region = u.interior();
  for (int points : {7, 27}) {
    const std::vector<double> ref = portable_sweep(points, u, region, a);
    for (SweepStores stores : {SweepStores::Auto, SweepStores::Ordinary, SweepStores::Streaming}) {
      fill_zero(v);
      apply_stencil(points, u, v, region, a, false, stores);
      Kokkos::fence();
      EXPECT_EQ(differing_cells(v, ref), 0) << points << "-point, stores " << int(stores);
    }
  }
}

TEST(LineKernels, SweepsFromMemoryStoreTheirPeriodicXGhostsWithEitherStores) {
  // A periodic x over one rank: the 7-point lines store their own x ghosts (XGhosts::Wrap), with
  // streaming stores as one whole line per row shared by two rows' ghosts (rows of pitch n + 8,
  // halo 1). Enough planes that the sweep streams from memory on this machine.
  const int n = 64, ny = 66;
  const std::int64_t plane = 2 * std::int64_t(sizeof(double)) * n * ny;
  const int nz =
      int(std::max<std::int64_t>(8, last_level_cache_share(Exec().concurrency()) / plane + 4));
  const Box owned{{0, 0, 0}, {n, ny, nz}};
  ASSERT_TRUE(sweep_streams_from_memory(owned));
  Field u("u", owned, 1), v("v", owned, 1);
  ASSERT_EQ(v.stride_y(), n + 8);
  fill_random(u, owned, 17);
  const Coefficients a{0.1, 0.08, 0.06};
  const Box in = u.interior();
  std::vector<double> ref = portable_sweep(7, u, in, a);
  for (int k = in.lo[2]; k < in.hi[2]; ++k)
    for (int j = in.lo[1]; j < in.hi[1]; ++j) {
      ref[std::size_t(u.index(0, j, k))] = ref[std::size_t(u.index(n, j, k))];
      ref[std::size_t(u.index(n + 1, j, k))] = ref[std::size_t(u.index(1, j, k))];
    }
  for (SweepStores stores : {SweepStores::Streaming, SweepStores::Ordinary}) {
    fill_zero(v);
    const bool stored = apply_stencil(7, u, v, in, a, false, stores, XGhosts::Wrap);
    Kokkos::fence();
    EXPECT_TRUE(stored) << "stores " << int(stores);
    // Everything else, the padding and the y and z ghost layers included, stays zero.
    EXPECT_EQ(differing_cells(v, ref), 0) << "stores " << int(stores);
  }
}

TEST(LineKernels, CachedSweepsAreBitIdenticalOnEveryRegionShape) {
  // Fields small enough to be swept in cache, and regions of every shape the steppers sweep:
  // the interior, the interior grown into a deep halo, slabs a few rows or planes thick (an
  // overlapped step's shell), lines shorter and longer than two vectors at odd offsets. The
  // 27-point sweep shares its passes between the rows of a tile where the region has two rows
  // or more and takes the line kernel elsewhere: both must equal the portable loop.
  const Box owned{{0, 0, 0}, {37, 26, 23}};
  Field u("u", owned, 2), v("v", owned, 2);
  fill_random(u, owned, 5);
  const Coefficients a{0.1, 0.08, 0.06};
  const Box in = u.interior();
  const auto sub = [&](Index3 offset, Index3 extent) {
    Box b;
    for (int d = 0; d < 3; ++d) {
      b.lo[d] = in.lo[d] + offset[d];
      b.hi[d] = b.lo[d] + extent[d];
    }
    return b;
  };
  const std::vector<Box> regions = {
      in,
      in.grown(1),
      sub({0, 0, 0}, {16, 26, 23}),  // two vectors
      sub({3, 5, 2}, {17, 4, 4}),    // a few rows and planes
      sub({1, 0, 0}, {31, 3, 23}),   // three rows
      sub({0, 2, 9}, {37, 20, 3}),   // three planes
      sub({0, 0, 22}, {37, 26, 1}),  // one plane
      sub({5, 1, 1}, {15, 24, 21}),  // lines shorter than two vectors
      sub({7, 0, 0}, {29, 26, 23}),  // lines that start and end off the 64-byte lines
      sub({2, 3, 1}, {30, 1, 20}),   // one row: the line kernel
      sub({0, 4, 0}, {37, 2, 23}),   // two rows
      sub({4, 0, 0}, {8, 26, 23}),   // lines of one AVX-512 vector
  };
  for (int points : {7, 27})
    for (const Box& region : regions) {
      fill_zero(v);
      apply_stencil(points, u, v, region, a, false);
      Kokkos::fence();
      EXPECT_EQ(differing_cells(v, portable_sweep(points, u, region, a)), 0)
          << points << "-point, region extents " << region.extent(0) << " x " << region.extent(1)
          << " x " << region.extent(2);
    }
}

TEST(StreamCopy, CopiesEveryElementWithEitherStores) {
  for (std::int64_t n : {std::int64_t(8), std::int64_t(1001), std::int64_t(1) << 16}) {
    // A fresh pair for each kind: a target left equal by the other kind would hide a copy that
    // wrote nothing.
    for (StoreKind kind : {StoreKind::Ordinary, StoreKind::Streaming}) {
      const StreamCopy copy(n);
      EXPECT_FALSE(copy.verify()) << "n=" << n << ": the target starts unlike the source";
      EXPECT_GT(copy.run(kind), 0.0);
      EXPECT_TRUE(copy.verify()) << "n=" << n << " kind " << int(kind);
    }
    const StreamCopy copy(n);
    const CopyRates rates = copy.measure(2);
    EXPECT_GT(rates.ordinary, 0.0);
    EXPECT_GT(rates.streaming, 0.0);
    EXPECT_DOUBLE_EQ(rates.cells_per_second(), rates.best() / 16.0);
  }
  EXPECT_GT(last_level_cache_bytes(), 0);
  EXPECT_GE(last_level_cache_cpus(), 0);
  EXPECT_GT(last_level_cache_share(1), 0);
  EXPECT_LE(last_level_cache_share(1), last_level_cache_bytes());
}

TEST(StreamCopy, OneCoreAloneCopiesTheFirstThreadsShareOnly) {
  // The source holds (i % 1000) / 1000 and the target zeros, so they already agree where
  // i % 1000 == 0; the copy alone must make them agree on the first thread's block, exactly.
  const std::int64_t n = std::int64_t(1) << 16;
  const int threads = Exec().concurrency();
  const std::int64_t block = std::min(n, (n + 7) / 8 / threads * 8);
  for (StoreKind kind : {StoreKind::Ordinary, StoreKind::Streaming}) {
    const StreamCopy copy(n);
    EXPECT_DOUBLE_EQ(copy.alone_bytes(), 16.0 * double(block));
    const std::int64_t before = copy.matching();
    EXPECT_EQ(before, (n + 999) / 1000);
    EXPECT_GT(copy.run_alone(kind), 0.0);
    EXPECT_EQ(copy.matching(), before + block - (block + 999) / 1000) << "kind " << int(kind);
    EXPECT_EQ(copy.verify(), threads == 1);
  }
}

TEST(StreamCopy, GatherReadsTheFirstAndLastCellOfEveryRow) {
  // The target after the gather's streaming copy holds the source, (i % 1000) / 1000.
  const std::int64_t n = std::int64_t(1) << 16;
  const StreamCopy copy(n);
  const auto value = [](std::int64_t i) { return double(i % 1000) * 1e-3; };
  const std::pair<std::int64_t, std::int64_t> shapes[] = {{24, 17}, {264, 256}, {24, 3}, {16, 0}};
  for (const auto& [row, last] : shapes) {
    const GatherRun g = copy.gather(row, last);
    const std::int64_t rows = n / row;
    double sum = 0;
    for (std::int64_t r = 0; r < rows; ++r) sum += value(r * row) + value(r * row + last);
    EXPECT_EQ(g.lines, last >= 8 ? 2 * rows : rows) << "row " << row << ", last " << last;
    EXPECT_NEAR(g.sum, sum, 1e-9 * sum) << "row " << row << ", last " << last;
    EXPECT_GT(g.seconds, 0.0);
  }
  // A last cell beyond the row reads nothing.
  EXPECT_EQ(copy.gather(16, 16).lines, 0);
}

TEST(LastLevelCache, CountsCpuListsAndSharesTheCacheByThreads) {
  // Lists as sysfs writes them, and what it never writes (all 0).
  const std::pair<const char*, int> lists[] = {{"0-15", 16},
                                               {"3", 1},
                                               {"0-7,16-23", 16},
                                               {"0,2,4-5", 4},
                                               {"", 0},
                                               {"0-x", 0},
                                               {"7-3", 0},
                                               {"0-3,", 0},
                                               {"0,,1", 0},
                                               {" 3", 0},
                                               {"+3", 0},
                                               {"0-2147483647", 0},
                                               {"99999999999999999999", 0}};
  for (const auto& [list, cpus] : lists)
    EXPECT_EQ(count_cpu_list(list), cpus) << '"' << list << '"';
  const std::int64_t mib = std::int64_t{1024} * 1024;
  // A 300 MiB cache of 16 CPUs, all busy: 16 ranks of 1 thread get 18.75 MiB each, 4 x 4
  // get 75 MiB.
  EXPECT_EQ(cache_share(300 * mib, 16, 1), 300 * mib / 16);
  EXPECT_EQ(cache_share(300 * mib, 16, 4), 75 * mib);
  EXPECT_EQ(cache_share(300 * mib, 16, 16), 300 * mib);
  EXPECT_EQ(cache_share(300 * mib, 16, 32), 300 * mib);
  EXPECT_EQ(cache_share(32 * mib, 0, 1), 32 * mib);  // sharers unknown: all of it
  // The process's share: its own threads over the node's (set_threads_on_node, which this
  // test binary's main calls as miniapp's does), at most the cache's CPUs.
  const int threads = Kokkos::DefaultExecutionSpace().concurrency();
  const int cpus = last_level_cache_cpus();
  const int sharers = cpus > 0 ? std::min(cpus, 4 * threads) : 4 * threads;
  const int set_by_main = threads_on_node();
  EXPECT_GE(set_by_main, threads);
  set_threads_on_node(4 * threads);
  EXPECT_EQ(last_level_cache_share(threads),
            cache_share(last_level_cache_bytes(), sharers, threads));
  set_threads_on_node(threads);
  EXPECT_EQ(last_level_cache_share(threads), last_level_cache_bytes());
  set_threads_on_node(0);
  EXPECT_EQ(last_level_cache_share(threads), last_level_cache_bytes());
  set_threads_on_node(set_by_main);
}

TEST(LineCopy, CopiesEveryLengthAndAlignmentAndNothingBeyond) {
  const std::vector<double> src = random_values(64, 7);
  for (LineMode mode : {LineMode::Cached, LineMode::Stream})
    for (int offset = 0; offset < 8; ++offset)  // every position on a 64-byte line
      for (int n = 0; n <= 40; ++n) {
        std::vector<double> dst(64, 42.0);
        line_copy(src.data() + offset, dst.data() + offset, n, mode);
        for (int i = 0; i < 64; ++i) {
          const double want = i >= offset && i < offset + n ? src[std::size_t(i)] : 42.0;
          ASSERT_TRUE(same_bits(dst[std::size_t(i)], want))
              << "mode " << int(mode) << " offset " << offset << " n " << n << " i " << i;
        }
      }
}

TEST(CoreRates, CeilingIsTheSlowestPortForTheKernelsOperations) {
  // Separate add and multiply ports (8 each), 16 interleaved: 9 adds bind.
  EXPECT_DOUBLE_EQ(arithmetic_ceiling({8e9, 8e9, 16e9}, 9, 4), 8e9 / 9);
  // Ports that do both: the 13 operations together bind.
  EXPECT_DOUBLE_EQ(arithmetic_ceiling({8e9, 8e9, 8e9}, 9, 4), 8e9 / 13);
  // A slow multiplier binds a multiply-heavy kernel.
  EXPECT_DOUBLE_EQ(arithmetic_ceiling({8e9, 2e9, 16e9}, 3, 4), 2e9 / 4);
  EXPECT_EQ(arithmetic_ceiling({}, 9, 4), 0.0);
  // The operation counts the ceilings are built from.
  // The 7-point: 9 additions and 4 multiplications, or 6 and 6 where m + p - 2c is fused.
#if defined(MINIAPP_HAVE_SIMD_LINES) && defined(MINIAPP_FUSED_DOUBLING)
  EXPECT_EQ(sweep_ops(7).adds, 6);
  EXPECT_EQ(sweep_ops(7).muls, 6);
#else
  EXPECT_EQ(sweep_ops(7).adds, 9);
  EXPECT_EQ(sweep_ops(7).muls, 4);
#endif
  EXPECT_EQ(sweep_ops(27).adds, kSweep27Ops.adds);
  EXPECT_LE(kLeast27Ops.adds, kSweep27Ops.adds);
  EXPECT_LE(kLeast27Ops.muls, kSweep27Ops.muls);
  EXPECT_LT(kLeast27Ops.adds, kLine27Ops.adds);
}

TEST(CoreRates, MeasuresEveryKind) {
  const CoreRates r = measure_core_rates(0.01);
  EXPECT_GT(r.adds, 0.0);
  EXPECT_GT(r.muls, 0.0);
  EXPECT_GT(r.mixed, 0.0);
  // Any core reads its L2 at tens of GB/s; a sanitizer build on a loaded machine still at
  // several. Below 1 GB/s the buffer would not have been read at all.
  EXPECT_GT(r.l2_reads, 1e9);
}

}  // namespace
}  // namespace miniapp::test
