// The innermost loops of every stencil sweep: one x-line of cells. Shared by the plain sweep
// (stencil.cpp) and the temporally blocked rounds (temporal_blocking.cpp), so both evaluate
// the same expressions of numerics.hpp in the same order and agree bit for bit.
//
// `c` points at the first input cell of the line and reads its neighbours through the row
// stride sy and the plane offsets: the plane below is at c - below, the one above at
// c + above (both sz in an array; different in the ring of planes temporal blocking keeps);
// `out` points at the first output cell, which may live in a different array with other
// strides (only x is contiguous in both). The restrict-qualified
// pointers tell the compiler that input and output do not alias, so the loops vectorise.
// Where the ISA allows (AVX-512 or AVX2), stencil_line_simd.hpp replaces these loops by
// hand-vectorised ones (same expressions, same order: bit-identical); the portable loops stay
// the fallback.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>

#include "numerics.hpp"
#include "stencil_line_simd.hpp"

namespace miniapp {

/// How a sweep's lines touch memory. Cached: input and output stay in cache (tiles, scratch).
/// Prefetch: the arrays are larger than the rank's share of the last-level cache; fetch the leading
/// plane's rows ahead. Stream: as Prefetch, and write the output with non-temporal stores (no read
/// of the target line), for outputs that are not read again before they leave the cache.
enum class LineMode { Cached, Prefetch, Stream };

/// Floating-point operations per cell update of a line kernel, for the arithmetic ceiling of
/// core_rate.hpp, counted by the units that run them: additions (subtractions included) and
/// multiplications. The contract forbids contraction; the one fused operation the vector
/// kernels use, sum - 2c (simd::minus_twice, the same bits), runs on the multipliers and counts
/// as one multiplication in place of an addition and a multiplication.
struct OpCount {
  int adds = 0;
  int muls = 0;
};

#if defined(MINIAPP_HAVE_SIMD_LINES) && defined(MINIAPP_FUSED_DOUBLING)
/// The vector 7-point line: three sums m + p, three fused m + p - 2c, three scaled terms summed.
inline constexpr OpCount kLine7Ops{6, 6};
/// The vector 27-point line (rows27 on one row): the z passes of its three rows (3 x (2 + 2)),
/// the y pass with the coefficients folded in (6 + 8) and the x pass (3 + 1).
inline constexpr OpCount kLine27Ops{15, 15};
/// The 27-point sweep (rows27 on runs of rows), each intermediate once per cell: the z pass
/// (2 + 2), the y pass (6 + 8) and the x pass (3 + 1). The two rows before each tile's are
/// computed too, a few per cent more.
inline constexpr OpCount kSweep27Ops{11, 11};
/// The fewest the 27-point expression allows, every intermediate shared between cells: the
/// sweep's.
inline constexpr OpCount kLeast27Ops = kSweep27Ops;
#else
/// The 7-point expression: three second differences (two additions each, 2*c computed once),
/// then three scaled terms summed.
inline constexpr OpCount kLine7Ops{9, 4};
#if defined(MINIAPP_HAVE_SIMD_LINES)
/// The vector 27-point line (rows27 on one row): the z passes of its three rows (3 x (3 + 2)),
/// the y pass with the coefficients folded in (8 + 8) and the x pass (3 + 1).
inline constexpr OpCount kLine27Ops{20, 15};
/// The 27-point sweep (rows27 on runs of rows), each intermediate once per cell: the z pass
/// (3 + 2), the y pass (8 + 8) and the x pass (3 + 1). The two rows before each tile's are
/// computed too, a few per cent more.
inline constexpr OpCount kSweep27Ops{14, 11};
#else
/// The portable 27-point line as written (the compiler may share a few terms between cells).
inline constexpr OpCount kLine27Ops{63, 39};
inline constexpr OpCount kSweep27Ops = kLine27Ops;
#endif
/// The fewest the 27-point expression allows without fused operations, with every
/// intermediate shared between cells (numerics.hpp): Z and Dz from m + p (3 + 2), YZ, Ty and
/// Tz (5 + 3), P, W, A and B (3 + 5), the update (3 + 1).
inline constexpr OpCount kLeast27Ops{14, 11};
#endif

/// The operations per cell update of the plain `points`-point sweep of this build.
inline constexpr OpCount sweep_ops(int points) { return points == 27 ? kSweep27Ops : kLine7Ops; }

/// The vector ISA of the hand-vectorised line kernels compiled into this build, or "portable"
/// where the compiler vectorises the portable loops on its own (reports print it: the same
/// source runs at a different fraction of the bound with each).
#if defined(MINIAPP_HAVE_SIMD_LINES)
inline constexpr const char* kLineKernels = simd::kName;
#else
inline constexpr const char* kLineKernels = "portable";
#endif

/// Lines shorter than one vector (the x faces of an overlapped step's shell: one cell per row)
/// take the portable loop: the vector kernels' masked loads and stores cost 2-3 times as much
/// per cell there (measured with AVX-512 on AMD Zen 4), and the expression is the same.
inline constexpr int kShortLine = 8;

/// The 7-point update of one x-line, portable loop (the reference the vector kernels match).
KOKKOS_INLINE_FUNCTION void line7_portable(const double* __restrict c, double* __restrict out,
                                           int n, std::int64_t sy, std::int64_t below,
                                           std::int64_t above, double ax, double ay, double az) {
#pragma GCC ivdep
  for (int i = 0; i < n; ++i)
    out[i] = diffusion7(c[i], c[i - 1], c[i + 1], c[i - sy], c[i + sy], c[i - below], c[i + above],
                        ax, ay, az);
}

/// One x-line of the 7-point update; `ahead`: lines to request on the side (FetchAhead; the
/// lines that fetch their own leading plane, LineMode::Prefetch, leave it). A line given `ahead`
/// computes from cache (a blocked round's later levels), so with LineMode::Stream it streams its
/// stores but fetches no leading plane of its own: those requests hit the cache and only take
/// load slots from the kernel. Measured on AMD Zen 5, 256^3, bench temporal, the automatic
/// tiles, alternating with the fetch left in, effective rate without over with, medians:
/// 1 x 2 H = 2 1.075 and 1.105 (10 and 12 pairs), H = 4 1.043 and 1.021, H = 6 1.018 and 0.984;
/// 2 x 1 H = 2 1.067, H = 4 1.047, H = 6 1.018 (10 pairs).
KOKKOS_INLINE_FUNCTION void line7(const double* __restrict c, double* __restrict out, int n,
                                  std::int64_t sy, std::int64_t below, std::int64_t above,
                                  double ax, double ay, double az, LineMode mode = LineMode::Cached,
                                  FetchAhead* ahead = nullptr) {
#if defined(MINIAPP_HAVE_SIMD_LINES)
  if (n < kShortLine)
    line7_portable(c, out, n, sy, below, above, ax, ay, az);
  else if (mode == LineMode::Stream)
    ahead ? simd::line7<true, false, true>(c, out, n, sy, below, above, ax, ay, az, ahead)
          : simd::line7<true, true>(c, out, n, sy, below, above, ax, ay, az);
  else if (mode == LineMode::Prefetch)
    simd::line7<false, true>(c, out, n, sy, below, above, ax, ay, az);
  else
    ahead ? simd::line7<false, false, true>(c, out, n, sy, below, above, ax, ay, az, ahead)
          : simd::line7<false, false>(c, out, n, sy, below, above, ax, ay, az);
#else
  (void)mode;
  (void)ahead;
  line7_portable(c, out, n, sy, below, above, ax, ay, az);
#endif
}

/// Neighbour access for diffusion27: u(dx, dy, dz) relative to the cell at p.
struct Around {
  const double* p;
  std::int64_t sy, below, above;
  KOKKOS_INLINE_FUNCTION double operator()(int dx, int dy, int dz) const {
    return p[dx + dy * sy + (dz < 0 ? -below : dz > 0 ? above : 0)];
  }
};

/// The 27-point update of one x-line, portable loop (the reference the vector kernels match).
KOKKOS_INLINE_FUNCTION void line27_portable(const double* __restrict c, double* __restrict out,
                                            int n, std::int64_t sy, std::int64_t below,
                                            std::int64_t above, double ax, double ay, double az) {
#pragma GCC ivdep
  for (int i = 0; i < n; ++i) out[i] = diffusion27(Around{c + i, sy, below, above}, ax, ay, az);
}

/// One x-line of the 27-point update (streaming stores are not used: a single line computes
/// three rows of z passes, and is bound by them rather than by memory).
KOKKOS_INLINE_FUNCTION void line27(const double* __restrict c, double* __restrict out, int n,
                                   std::int64_t sy, std::int64_t below, std::int64_t above,
                                   double ax, double ay, double az,
                                   LineMode mode = LineMode::Cached) {
#if defined(MINIAPP_HAVE_SIMD_LINES)
  if (n < kShortLine)
    line27_portable(c, out, n, sy, below, above, ax, ay, az);
  else if (mode == LineMode::Cached)
    simd::line27<false>(c, out, n, sy, below, above, ax, ay, az);
  else
    simd::line27<true>(c, out, n, sy, below, above, ax, ay, az);
#else
  (void)mode;
  line27_portable(c, out, n, sy, below, above, ax, ay, az);
#endif
}

/// One x-line of the `points`-point update (7 or 27), planes below and above at c - below and
/// c + above; `ahead` (7-point only): lines to request on the side.
KOKKOS_INLINE_FUNCTION void stencil_line_planes(int points, const double* __restrict c,
                                                double* __restrict out, int n, std::int64_t sy,
                                                std::int64_t below, std::int64_t above, double ax,
                                                double ay, double az,
                                                LineMode mode = LineMode::Cached,
                                                FetchAhead* ahead = nullptr) {
  if (points == 27)
    line27(c, out, n, sy, below, above, ax, ay, az, mode);
  else
    line7(c, out, n, sy, below, above, ax, ay, az, mode, ahead);
}

/// `rows` consecutive x-lines of the `points`-point update of one plane: row j at c + j sy and
/// out + j out_sy, planes below and above at c - below and c + above. The vector 27-point
/// kernel shares its z passes between the rows (simd::rows27, with a scratch per thread that
/// grows to the longest line it has seen, first touched by its thread; LineMode::Stream:
/// non-temporal stores, not fenced, where each output row starts a 64-byte line, else ordinary
/// ones with the same fetch, LineMode::Prefetch); every other case runs line by line.
/// `ahead`: the 7-point lines request its lines on the side (FetchAhead); the 27-point rows
/// given it compute from cache (a blocked round's later levels), so with LineMode::Stream they
/// fetch no leading plane of their own, as line7 does. Measured on AMD Zen 5, 256^3, bench
/// temporal --stencil 27, the automatic tiles, ten pairs of runs alternating with the fetch
/// left in, time with it over time without, medians: 1 x 2 H = 2 1.075, H = 4 1.042, H = 6
/// 1.023; 2 x 1 1.019, 1.020, 1.010.
inline void stencil_rows(int points, const double* c, double* out, int n, int rows, std::int64_t sy,
                         std::int64_t below, std::int64_t above, std::int64_t out_sy, double ax,
                         double ay, double az, LineMode mode = LineMode::Cached,
                         FetchAhead* ahead = nullptr) {
#if defined(MINIAPP_HAVE_SIMD_LINES)
  if (points == 27 && n >= kShortLine && rows > 1) {
    // rows27 streams whole vectors with aligned stores: only rows that start a line can.
    if (mode == LineMode::Stream &&
        (reinterpret_cast<std::uintptr_t>(out) % 64 != 0 || out_sy % 8 != 0))
      mode = LineMode::Prefetch;
    thread_local std::unique_ptr<double[], void (*)(void*)> scratch(nullptr, std::free);
    thread_local std::int64_t size = 0;
    const std::int64_t need = simd::rows27_scratch(n);
    if (need > size) {
      scratch.reset(static_cast<double*>(std::aligned_alloc(64, std::size_t(need) * 8)));
      if (!scratch) throw std::bad_alloc();
      size = need;
    }
    if (mode == LineMode::Stream && ahead != nullptr)
      simd::rows27<true, false>(c, out, n, rows, sy, below, above, out_sy, scratch.get(), ax, ay,
                                az);
    else if (mode == LineMode::Stream)
      simd::rows27<true>(c, out, n, rows, sy, below, above, out_sy, scratch.get(), ax, ay, az);
    else if (mode == LineMode::Prefetch)
      simd::rows27<false, true>(c, out, n, rows, sy, below, above, out_sy, scratch.get(), ax, ay,
                                az);
    else
      simd::rows27<false>(c, out, n, rows, sy, below, above, out_sy, scratch.get(), ax, ay, az);
    return;
  }
#endif
  for (int j = 0; j < rows; ++j)
    stencil_line_planes(points, c + j * sy, out + j * out_sy, n, sy, below, above, ax, ay, az, mode,
                        ahead);
}

/// One plane's rows for stencil_rows7_pair: its first row's centre and output, and how far its
/// planes below and above lie.
struct PlaneRows {
  const double* c;
  double* out;
  std::int64_t below, above;
};

/// The 7-point rows of two planes row by row in turn: row j of `lower`, then row j of `upper`.
/// Where `upper` lies on top of `lower`, its line's plane below is the line just computed's
/// centre, still in the L1, where plane after plane it comes back from the L2 (temporal
/// blocking's rounds, TemporalBlocking::pairs()). Rows, pitches, mode and `ahead` as
/// stencil_rows.
inline void stencil_rows7_pair(const PlaneRows& lower, const PlaneRows& upper, int n, int rows,
                               std::int64_t sy, std::int64_t out_sy, double ax, double ay,
                               double az, LineMode mode = LineMode::Cached,
                               FetchAhead* ahead = nullptr) {
  for (int j = 0; j < rows; ++j) {
    line7(lower.c + j * sy, lower.out + j * out_sy, n, sy, lower.below, lower.above, ax, ay, az,
          mode, ahead);
    line7(upper.c + j * sy, upper.out + j * out_sy, n, sy, upper.below, upper.above, ax, ay, az,
          mode, ahead);
  }
}

/// The x ghosts of the 7-point line just computed at out from c, where x is periodic over one
/// rank: the h ghosts before x = 0 receive cells n-h .. n-1, the h after the line cells
/// 0 .. h-1, each computed again by the portable loop (the expression the vector kernels match
/// bit for bit) rather than loaded from out: a load of a cell that a masked store has just
/// written waits until that store retires, and with it every load of the line from memory
/// before it (measured on AMD Zen 3, 256^3, two threads: 2-3 ms a sweep more).
KOKKOS_INLINE_FUNCTION void wrap_line7(const double* __restrict c, double* __restrict out, int n,
                                       int h, std::int64_t sy, std::int64_t sz, double ax,
                                       double ay, double az) {
  line7_portable(c + n - h, out - h, h, sy, sz, sz, ax, ay, az);
  line7_portable(c, out + n, h, sy, sz, sz, ax, ay, az);
}

#if defined(MINIAPP_HAVE_SIMD_LINES)
/// wrap_line7 for a line just written with streaming stores, h <= 4 ghosts per side, in rows of
/// pitch n + 8 whose first cell starts a 64-byte line (so row j-1's h east ghosts and row j's h
/// west ghosts share the line just before row j's first cell, with the row padding between
/// them): that whole line is written by one streaming store, ghosts and zero padding, so that
/// the ghosts cost neither a read of the line nor the exchange's copy of the x faces. Row j-1's
/// ghosts are its cells x = 0 .. h-1, computed again from c - sy like the rest. A first row
/// (first_row: the line before it holds a row that another sweep or the exchange writes) stores
/// only its own west ghosts, with ordinary stores, and a last row (last_row) also its east
/// ghosts, which no next row's line holds. The planes below and above are at c - below and
/// c + above, as in line7.
///
/// The 2h cells a row are computed by the portable loop at h = 1 and by the vector kernel's
/// masked update above it (measured on AMD Zen 5, 256^3, two threads, alternating runs: the
/// masked update made the plain sweep at h = 1 7 % slower, median of eight; the portable loop's
/// 8 cells at h = 4 cost a blocked round 7-10 % where the masked update costs 1-3.5 %).
KOKKOS_INLINE_FUNCTION void wrap_line7_streamed(const double* __restrict c, double* __restrict out,
                                                int n, int h, std::int64_t sy, std::int64_t below,
                                                std::int64_t above, double ax_, double ay_,
                                                double az_, bool first_row, bool last_row) {
  if (h == 1) {
    alignas(64) double line[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    line7_portable(c + n - 1, line + 7, 1, sy, below, above, ax_, ay_, az_);
    if (first_row) {
      out[-1] = line[7];
    } else {
      line7_portable(c - sy, line, 1, sy, below, above, ax_, ay_, az_);
      for (int i = 0; i < 8; i += simd::W) simd::stream(out - 8 + i, simd::load(line + i));
    }
    if (last_row) line7_portable(c, out + n, 1, sy, below, above, ax_, ay_, az_);
    return;
  }
  using namespace simd;
  const V ax = set1(ax_), ay = set1(ay_), az = set1(az_);
  const V two = opaque_two();
  // Lane l of the line's vector at i: row j-1's cell i + l (east ghost) where i + l < h, row j's
  // cell n - 8 + i + l (west ghost) where i + l >= 8 - h, zero padding between.
  for (int i = 0; i < 8; i += W) {
    const Mask east = lanes_within(i, 0, h), west = lanes_within(i, 8 - h, 8);
    const V w = update7_masked(west, c + n - 8 + i, sy, below, above, ax, ay, az, two);
    if (first_row) {
      store_lanes(out - 8 + i, west, w);
      continue;
    }
    const V e = update7_masked(east, c - sy + i, sy, below, above, ax, ay, az, two);
    stream(out - 8 + i, select(west, e, w));
  }
  if (last_row)
    for (int i = 0; i < h; i += W) {
      const Mask m = lanes_within(i, 0, h);
      store_lanes(out + n + i, m, update7_masked(m, c + i, sy, below, above, ax, ay, az, two));
    }
}
#endif

/// The x ghosts of `rows` lines of one plane just written with ordinary stores, where x is
/// periodic over one rank: copied from the lines' own cells (h per side; row j at
/// out + j out_sy), which a round's tiles have in the L1 or L2 by then: v's rows written by a
/// blocked round's last sub-step (7-point), and the ring rows of the sub-steps below it (both
/// stencils). Run after the whole
/// plane, so that the loads find the stores of all but its last rows retired. Where the vector
/// kernels wrote whole vectors at both ends (rows on 64-byte lines, n a multiple of 8, h <= 8),
/// one vector load and one masked store a side.
KOKKOS_INLINE_FUNCTION void wrap_rows_copied(double* __restrict out, int n, int rows, int h,
                                             std::int64_t out_sy) {
#if defined(MINIAPP_HAVE_SIMD_LINES)
  if (n % 8 == 0 && n >= 8 && h <= 8 && out_sy % 8 == 0 &&
      reinterpret_cast<std::uintptr_t>(out) % 64 == 0) {
    for (int j = 0; j < rows; ++j) {
      double* row = out + j * out_sy;
      for (int i = 0; i < 8; i += simd::W) {
        simd::store_lanes(row - 8 + i, simd::lanes_within(i, 8 - h, 8),
                          simd::load(row + n - 8 + i));
        simd::store_lanes(row + n + i, simd::lanes_within(i, 0, h), simd::load(row + i));
      }
    }
    return;
  }
#endif
  for (int j = 0; j < rows; ++j) {
    double* row = out + j * out_sy;
    for (int i = 0; i < h; ++i) {
      row[i - h] = row[n - h + i];
      row[n + i] = row[i];
    }
  }
}

/// One x-line of the `points`-point update (7 or 27) in an array of strides sy, sz.
KOKKOS_INLINE_FUNCTION void stencil_line(int points, const double* __restrict c,
                                         double* __restrict out, int n, std::int64_t sy,
                                         std::int64_t sz, double ax, double ay, double az,
                                         LineMode mode = LineMode::Cached) {
  stencil_line_planes(points, c, out, n, sy, sz, sz, ax, ay, az, mode);
}

/// After a thread's last line in LineMode::Stream: make its streaming stores visible to the
/// other threads (and to MPI) before the kernel ends.
KOKKOS_INLINE_FUNCTION void publish_streamed() {
#if defined(MINIAPP_HAVE_SIMD_LINES)
  simd::publish_streamed();
#endif
}

/// One x-line of a copy (bench stencil's copies with the sweep's loop structure), with
/// streaming stores in LineMode::Stream where the ISA has them.
KOKKOS_INLINE_FUNCTION void line_copy(const double* __restrict c, double* __restrict out, int n,
                                      LineMode mode = LineMode::Cached) {
#if defined(MINIAPP_HAVE_SIMD_LINES)
  if (mode == LineMode::Stream)
    simd::line_copy<true>(c, out, n);
  else
    simd::line_copy<false>(c, out, n);
#else
  (void)mode;
#pragma GCC ivdep
  for (int i = 0; i < n; ++i) out[i] = c[i];
#endif
}

}  // namespace miniapp
