// Hand-vectorised x-lines for CPUs with AVX-512 or AVX2 (simd.hpp names the vector
// operations of each; stencil_line.hpp falls back to portable loops elsewhere). Same
// expressions in the same order as numerics.hpp, no fused multiply-add: bit-identical to the
// portable loops. W is the number of doubles per vector (8 or 4).
//
// What they do better than the compiler's vectorisation of the portable loop:
// - the x neighbours w = u(i-1), e = u(i+1) come from the aligned centre vectors by a lane
//   shift instead of two unaligned loads that split cache lines: the sweep is bound by loads
//   in cache, and this takes 2 of its 7 loads per vector away;
// - vectors sit on 64-byte lines of the output, so streaming (non-temporal) stores write whole
//   lines, and the partial lines at both ends are written with masked ordinary stores;
// - for sweeps over arrays larger than the caches, a software prefetch of the leading plane:
//   each vector's line kLeadRowsToL2 rows ahead into the L2 and one row ahead into the L1 (the
//   27-point rows: the whole row four rows ahead into the L2, two rows ahead into the L1);
// - the 27-point update runs as one-dimensional passes whose results are shared between
//   neighbouring cells and lines (rows27).
#pragma once

#include <cstdint>

#include "simd.hpp"

namespace miniapp {

/// Lines of another array a kernel requests into the L2 while it computes from cache, one
/// 64-byte line per vector it computes: `rows` rows of `lines` lines each, from `row` on, `sy`
/// doubles apart. A blocked round's later sub-steps fetch this way the plane of u its first
/// sub-step reads next (temporal_blocking.cpp). The vector 7-point line kernel takes it; the
/// portable loops do without, and the 27-point rows take it (empty) only as the mark that they
/// compute from cache (stencil_rows).
struct FetchAhead {
  const double* row = nullptr;
  std::int64_t sy = 0;
  int rows = 0, lines = 0, line = 0;

  /// Request the next line, if any is left.
  void one() {
    if (rows <= 0) return;
    __builtin_prefetch(row + std::int64_t(8) * line, 0, 2);
    if (++line == lines) {
      line = 0;
      row += sy;
      --rows;
    }
  }
  /// Request every line left, now.
  void all() {
    while (rows > 0) one();
  }
};

}  // namespace miniapp

#if defined(MINIAPP_HAVE_SIMD_LINES)
namespace miniapp {
namespace simd {

/// The cells of a line at out before the first 64-byte line of out begins (at most n): the
/// vectors after them sit on whole lines, so streaming stores write whole lines.
inline int cells_before_line(const double* out, int n) {
  const int lead = int((64 - reinterpret_cast<std::uintptr_t>(out) % 64) % 64 / 8);
  return lead < n ? lead : n;
}

/// f(i, count) for the cells [from, to) in pieces of at most one vector: the partial vectors at
/// the ends of a line (up to 7 cells before its first 64-byte line, more than one AVX2 vector).
template <class F>
inline void by_vectors(int from, int to, const F& f) {
  for (; from < to; from += W) f(from, to - from < W ? to - from : W);
}

/// Request the 64-byte line that holds p: into the L2 (_MM_HINT_T1) or the L1 (_MM_HINT_T0).
/// Never faults, also past the end of an array.
/// (The hints are an enum in GCC's headers and plain integers in Clang's.)
template <int Hint>
inline void fetch_line(const double* p) {
  _mm_prefetch(reinterpret_cast<const char*>(p), static_cast<decltype(_MM_HINT_T0)>(Hint));
}

/// Request the 64-byte lines of the `cells` doubles from p on (fetch_line).
template <int Hint>
inline void fetch_row(const double* p, int cells) {
  for (int i = 0; i < cells; i += 8) fetch_line<Hint>(p + i);
}

/// diffusion7 on W lanes: c + ax*(w+e-2c) + ay*(s+n-2c) + az*(b+t-2c), left to right.
inline V update7(V c, V w, V e, V s, V n, V b, V t, V ax, V ay, V az, V two) {
  const V x = minus_twice(add(w, e), c, two);
  const V y = minus_twice(add(s, n), c, two);
  const V z = minus_twice(add(b, t), c, two);
  V r = add(c, mul(ax, x));
  r = add(r, mul(ay, y));
  return add(r, mul(az, z));
}

/// The lanes in `m` of the 7-point update at c (masked loads: no access outside the lanes).
inline V update7_masked(Mask m, const double* c, std::int64_t sy, std::int64_t szb,
                        std::int64_t sza, V ax, V ay, V az, V two) {
  const auto at = [m](const double* p) { return load_lanes(m, p); };
  return update7(at(c), at(c - 1), at(c + 1), at(c - sy), at(c + sy), at(c - szb), at(c + sza), ax,
                 ay, az, two);
}

/// How many rows ahead line7 requests each vector's line of the leading plane into the L2.
/// Where one core's own limit sets the bound (it moves about as much with the other cores
/// idle as with them copying too), the sweep is bound by the lines that core keeps in flight,
/// and two rows were too few. Measured on AMD Zen 5, 256^3 (rows of 33 lines), one thread,
/// each distance against two rows in the same process (bench stencil, a temporary kernel),
/// ratio of the times: 3 rows 0.90-1.03 (median 0.95, 12 runs), 4 rows 0.88-1.05 (0.95, 19),
/// 6 rows 0.93-1.01 (0.98, 6), 8 rows 0.92-1.07 (0.99, 6); two rows against themselves
/// 0.95-1.09 (4). Three rows waste the fewest requests past a tile's last row.
inline constexpr int kLeadRowsToL2 = 3;

/// One x-line of the 7-point update. Stream: non-temporal stores for the whole lines of out
/// (needs out and c equally aligned, else ordinary stores), not fenced (publish_streamed).
/// Prefetch: fetch each vector's line of the leading plane kLeadRowsToL2 rows ahead into the
/// L2 and one row ahead into the L1. Ahead: one line of `ahead` requested per vector (a template
/// parameter, so that the other sweeps' loops carry no test for it).
template <bool Stream, bool Prefetch, bool Ahead = false>
inline void line7(const double* __restrict c, double* __restrict out, int n, std::int64_t sy,
                  std::int64_t szb, std::int64_t sza, double ax_, double ay_, double az_,
                  FetchAhead* ahead = nullptr) {
  const V ax = set1(ax_), ay = set1(ay_), az = set1(az_);
  const V two = opaque_two();
  const auto edge = [&](int i, int count) {
    const Mask m = first_lanes(count);
    store_lanes(out + i, m, update7_masked(m, c + i, sy, szb, sza, ax, ay, az, two));
  };
  // From memory, the leading plane is the one stream that misses the L2 (the sweep's tiles keep
  // the planes below and beside it there, box_kernels.hpp). Its lines are requested ahead, one
  // line into the L2 and one into the L1 per vector computed, so that a steady few requests
  // are in flight beside the arithmetic: with the L2 fetch alone the loads wait on L1 misses
  // (measured on AMD Zen 5 at 256^3, two threads: tiles and the L1 fetch together took a
  // stand-alone sweep from 5.4-6.3 to 3.2-4.2 ms; tiles alone took 10-20 % off, the L1 fetch
  // alone in plane order 0-5 %). Requesting the whole row at the row's start instead, four
  // rows ahead into the L2, was slower: on the same machine the streaming sweep took 0.72-0.97
  // (median 0.88) of that form's time in 42 runs with memory at 55-86 GB/s (each the median
  // over 12 reps of the ratio in the same rep), and 0.81-0.93 in three runs alternating with
  // the build before, at 80-95 GB/s. The 27-point rows (rows27) keep their whole-row requests:
  // spread there, they made its sweep slower (11.8-17.4 against 9.6-12.6 ms, six paired runs).
  // Vectors on the output's 64-byte lines; the cells before the first line form masked edges.
  const bool whole_lines =
      Stream &&
      (reinterpret_cast<std::uintptr_t>(out) - reinterpret_cast<std::uintptr_t>(c)) % 64 == 0;
  int i = cells_before_line(out, n);
  by_vectors(0, i, edge);
  // The main loop covers every whole vector of the line, so that the last whole line of out
  // is streamed too: a masked store there reads the line from memory first (measured on AMD
  // Zen 5, 256^3, two threads, five paired rounds: lines of 258 cells from x = 1, as the first
  // sub-step of a blocked round sweeps them, 4.42 -> 4.09 ms median; the plain sweep's lines
  // unchanged within the noise). Its last vector loads only the next vector's lanes up to
  // c[n], the last cell's east neighbour.
  if (i + W <= n) {
    V prev = load_lanes(last_lane(), c + i - W), cur = loadu(c + i);
    for (; i + W <= n; i += W) {
      const double* p = c + i;
      if (Prefetch && kPrefetchLeadingPlane) {
        fetch_line<_MM_HINT_T1>(p + sza + kLeadRowsToL2 * sy);
        fetch_line<_MM_HINT_T0>(p + sza + sy);
      }
      if (Ahead) ahead->one();
      const V next =
          i + 2 * W <= n + 1 ? loadu(p + W) : load_lanes(first_lanes(n - i - W + 1), p + W);
      const V w = kShiftBeatsLoads ? shift_in_low(cur, prev) : loadu(p - 1);
      const V e = kShiftBeatsLoads ? shift_in_high(next, cur) : loadu(p + 1);
      const V r = update7(cur, w, e, loadu(p - sy), loadu(p + sy), loadu(p - szb), loadu(p + sza),
                          ax, ay, az, two);
      if (whole_lines)
        stream(out + i, r);
      else
        storeu(out + i, r);
      prev = cur;
      cur = next;
    }
  }
  by_vectors(i, n, edge);
}

/// The 27-point update's one-dimensional operators on W lanes (numerics.hpp), left to right:
/// the second difference m + p - 2c and the smoothing m + p + 10c, from the sum m + p.
inline V second_of(V sum, V c, V two) { return minus_twice(sum, c, two); }
inline V smooth_of(V sum, V c, V ten) { return add(sum, mul(ten, c)); }

/// The 27-point update as passes along one dimension each (numerics.hpp, diffusion27), every
/// intermediate computed once per cell: the z pass makes Z = S_z u and Dz = D_z u of a row,
/// kept in scratch rows that stay in the L1; the y pass makes YZ = S_y Z, Ty = D_y Z and
/// Tz = S_y Dz of a row from the three rows around it and folds them with the coefficients
/// into A = P + W and B = 10 W - 2 P (P = ax YZ, W = ay Ty + az Tz); the x pass makes the
/// update from A at x - 1 and x + 1 and B at x, in registers. Each pass reads whole vectors of
/// its rows; only u is read with masks, within x in [-1, n]. Where the one-expression form of
/// the same stencil loads 28 vectors per vector of cells (six of them split across cache lines
/// on AVX2) and adds 33 times per cell, these passes load 8 and add 14 times.
namespace rows27_detail {
/// A scratch row holds x in [-8, width - 8), x = 0 on a 64-byte line; the z pass writes x in
/// [-W, W*ceil(n/W) + W), every lane the y pass reads for the x pass.
constexpr std::int64_t width(int n) { return std::int64_t(n + 7) / 8 * 8 + 16; }

/// Z = S_z u and Dz = D_z u of one vector from its cells below (m), at (o) and above (p).
struct ZColumn {
  V z, dz;
};
inline ZColumn z_column(V m, V o, V p, V two, V ten) {
  const V mp = add(m, p);
  return {smooth_of(mp, o, ten), second_of(mp, o, two)};
}

/// f(x, m, o, p) for the vectors x = -W, 0, W, ... below n + W of the row at c (its cell
/// x = 0), m, o and p its cells in the planes below (c - below), at and above (c + above):
/// loaded whole where the vector lies within x in [-1, n], masked (zero beyond) at the ends.
template <class F>
[[gnu::always_inline]] inline void for_columns(const double* c, std::int64_t below,
                                               std::int64_t above, int n, const F& f) {
  const auto masked = [&](int x) {
    const Mask k = lanes_within(x, -1, n + 1);
    f(x, load_lanes(k, c + x - below), load_lanes(k, c + x), load_lanes(k, c + x + above));
  };
  masked(-W);
  int x = 0;
  for (; x + W <= n + 1; x += W) f(x, loadu(c + x - below), loadu(c + x), loadu(c + x + above));
  for (; x < n + W; x += W) masked(x);
}

/// Z and Dz of the row at c.
inline void z_pass(const double* c, std::int64_t below, std::int64_t above, int n, double* z,
                   double* dz, V two, V ten) {
  for_columns(
      c, below, above, n, [&](int x, V m, V o, V p) __attribute__((always_inline)) {
        const ZColumn zc = z_column(m, o, p, two, ten);
        store(z + x, zc.z);
        store(dz + x, zc.dz);
      });
}

/// The z pass of the row after a row into z2 and dz2, the y pass of the row and its x pass,
/// in one loop over the vectors: YZ, Ty and Tz from Z and Dz of the rows before (z0, dz0), at
/// (z1, dz1) and after it, folded into A and B, and the update c + (A(x-1) + A(x+1) + B(x)) /
/// 144 of the row into out. The row after's Z and Dz are used from registers, and A and B never
/// leave them: the x pass runs one vector behind the y pass and takes A(x-1) and A(x+1) from
/// the vectors before, at and after x by lane shifts. Stored to scratch and loaded back, A
/// cost two stores and three loads per vector, two of them split across cache lines; measured
/// on AMD Zen 5 (one thread, rows in the L1, ns per vector): 4.4 against 2.9 with AVX-512,
/// 3.1-3.4 against 2.7-2.9 with AVX2. c1: the row after's cell x = 0, c: the row's. The row
/// pointers are passed one by one, by value: the vector stores may alias anything, and
/// pointers read through a reference would be read again after every store. Stream:
/// non-temporal stores of the whole vectors (out on a 64-byte line), not fenced
/// (publish_streamed).
template <bool Stream>
inline void zyx_pass(const double* c1, const double* c, double* out, std::int64_t below,
                     std::int64_t above, int n, const double* z0, const double* z1, double* z2,
                     const double* dz0, const double* dz1, double* dz2, V ax, V ay, V az, V two,
                     V ten, V scale) {
  // A and B of the vector at x from the row after's cells m, o and p below, at and above.
  const auto fold = [&](int x, V m, V o, V p, V& a, V& b) __attribute__((always_inline)) {
    const ZColumn zc = z_column(m, o, p, two, ten);
    store(z2 + x, zc.z);
    store(dz2 + x, zc.dz);
    const V z1x = load(z1 + x), zs = add(load(z0 + x), zc.z);
    const V pv = mul(ax, smooth_of(zs, z1x, ten));
    const V wv = add(mul(ay, second_of(zs, z1x, two)),
                     mul(az, smooth_of(add(load(dz0 + x), zc.dz), load(dz1 + x), ten)));
    a = add(pv, wv);
    b = minus_twice(mul(ten, wv), pv, two);
  };
  const auto masked = [&](int x, V& a, V& b) __attribute__((always_inline)) {
    const Mask k = lanes_within(x, -1, n + 1);
    fold(x, load_lanes(k, c1 + x - below), load_lanes(k, c1 + x), load_lanes(k, c1 + x + above), a,
         b);
  };
  const auto whole = [&](int x, V& a, V& b) __attribute__((always_inline)) {
    fold(x, loadu(c1 + x - below), loadu(c1 + x), loadu(c1 + x + above), a, b);
  };
  // The update of the vector at i from A of the vectors before (ap), at (ac) and after (an) it.
  const auto update = [&](int i, V ap, V ac, V an, V bc) __attribute__((always_inline)) {
    const V sum = add(add(shift_in_low(ac, ap), shift_in_high(an, ac)), bc);
    if (i + W <= n) {
      const V r = add(loadu(c + i), mul(sum, scale));
      if (Stream)
        stream(out + i, r);
      else
        storeu(out + i, r);
    } else {
      const Mask m = first_lanes(n - i);
      store_lanes(out + i, m, add(load_lanes(m, c + i), mul(sum, scale)));
    }
  };
  // Vectors x = -W, 0, W, ... below n + W: whole where they lie within x in [-1, n], masked
  // (zero beyond) at the ends, as for_columns walks them. Written out here so that the first
  // two vectors, which only fill the lag, stand outside the loop: through for_columns, with
  // the lag kept by a test on x in each vector, the pass took 1.2 x the time (AMD Zen 5, one
  // thread, rows of 256 cells in the L2; same bits). B of x = -W is never used.
  V ap, ac, bc, unused;
  masked(-W, ap, unused);
  if (W <= n + 1)
    whole(0, ac, bc);
  else
    masked(0, ac, bc);
  int x = W;
  const auto next = [&](V an, V bn) __attribute__((always_inline)) {
    update(x - W, ap, ac, an, bc);
    ap = ac;
    ac = an;
    bc = bn;
  };
  for (; x + W <= n + 1; x += W) {
    V an, bn;
    whole(x, an, bn);
    next(an, bn);
  }
  for (; x < n + W; x += W) {
    V an, bn;
    masked(x, an, bn);
    next(an, bn);
  }
}
}  // namespace rows27_detail

/// Doubles of scratch that rows27 needs for rows of n cells (64-byte aligned).
constexpr std::int64_t rows27_scratch(int n) { return 6 * rows27_detail::width(n); }

/// The 27-point update of `rows` consecutive x-lines of one plane: c = u(0, 0, k), row j at
/// c + j sy, the planes below and above at c - below and c + above; out likewise with rows
/// out_sy apart. Reads u within x in [-1, n] of the rows -1..rows and the three planes. The z
/// pass of a row serves the three rows around it, so a run of rows computes each Z and Dz once
/// (plus two rows at the start). Stream: non-temporal stores (out on a 64-byte line), not
/// fenced (publish_streamed). Prefetch: from memory, fetch the leading plane's rows ahead, as
/// line7 does, where kPrefetchLeadingPlane; past its last row, the first rows of the plane
/// above's leading plane, which the callers' next call reads (a sweep's tile and a blocked
/// round's first sub-step go up plane by plane).
template <bool Stream, bool Prefetch = Stream>
inline void rows27(const double* c, double* out, int n, int rows, std::int64_t sy,
                   std::int64_t below, std::int64_t above, std::int64_t out_sy, double* scratch,
                   double ax_, double ay_, double az_) {
  using namespace rows27_detail;
  const V ax = set1(ax_), ay = set1(ay_), az = set1(az_);
  const V two = opaque_two(), ten = set1(10.0), scale = set1(1.0 / 144.0);
  const std::int64_t w = width(n);
  // Z of row j in ring slot (j + 1) % 3, Dz in 3 + that slot.
  const auto row = [&](int r) { return scratch + r * w + 8; };
  z_pass(c - sy, below, above, n, row(0), row(3), two, ten);
  z_pass(c, below, above, n, row(1), row(4), two, ten);
  // Row r of the leading plane, x = -1; rows past the last one read (rows) continue as rows
  // -1, 0, ... of the next call's leading plane. Fetching them there, rather than past the
  // tile's rows, keeps the stream going where a call starts: each call's first rows (its z
  // passes read rows -1 and 0) were fetched by the call before it. Measured on AMD Zen 5,
  // 256^3, two threads, tiles of 31 rows, three alternating runs: 8.1/8.3/7.9 -> 7.6/7.6/7.3 ms.
  const auto leading_row = [&](int r) {
    return c + above + (r <= rows ? r * sy : above + (r - rows - 2) * sy) - 1;
  };
  for (int j = 0; j < rows; ++j) {
    if (Prefetch && kPrefetchLeadingPlane) {
      // The z and y pass of this iteration reads row j + 1 of the leading plane (x in [-1, n]):
      // its row four rows ahead into the L2, two rows ahead into the L1.
      fetch_row<_MM_HINT_T1>(leading_row(j + 5), n + 2);
      fetch_row<_MM_HINT_T0>(leading_row(j + 3), n + 2);
    }
    const int before = j % 3, here = (j + 1) % 3, after = (j + 2) % 3;
    zyx_pass<Stream>(c + (j + 1) * sy, c + j * sy, out + j * out_sy, below, above, n, row(before),
                     row(here), row(after), row(3 + before), row(3 + here), row(3 + after), ax, ay,
                     az, two, ten, scale);
  }
}

/// One x-line of the 27-point update: rows27 on pieces of the line, with scratch on the stack
/// (the same values as a sweep computes: each cell's expression does not depend on the piece).
/// Prefetch: fetch the rows of the leading plane two rows ahead.
template <bool Prefetch>
inline void line27(const double* __restrict c, double* __restrict out, int n, std::int64_t sy,
                   std::int64_t szb, std::int64_t sza, double ax, double ay, double az) {
  if (Prefetch)
    for (int dy = -1; dy <= 1; ++dy) fetch_row<_MM_HINT_T1>(c + sza + (dy + 2) * sy, n);
  constexpr int kPiece = 256;
  alignas(64) double scratch[rows27_scratch(kPiece)];
  for (int x = 0; x < n; x += kPiece)
    rows27<false>(c + x, out + x, n - x < kPiece ? n - x : kPiece, 1, sy, szb, sza, 0, scratch, ax,
                  ay, az);
}

/// One x-line of a copy. Stream: non-temporal stores for the whole 64-byte lines of out,
/// masked ordinary stores for the partial lines at both ends, not fenced (publish_streamed). The
/// empty asm statement keeps the compiler from turning the ordinary loop into a call of memcpy
/// (whose stores are the C library's choice).
template <bool Stream>
inline void line_copy(const double* __restrict c, double* __restrict out, int n) {
  const auto masked = [&](int i, int count) {
    const Mask m = first_lanes(count);
    store_lanes(out + i, m, load_lanes(m, c + i));
  };
  int i = 0;
  if (Stream) {
    i = cells_before_line(out, n);
    by_vectors(0, i, masked);
  }
  for (; i + W <= n; i += W) {
    const V v = opaque(loadu(c + i));
    if (Stream)
      stream(out + i, v);
    else
      storeu(out + i, v);
  }
  if (i < n) masked(i, n - i);
}

}  // namespace simd
}  // namespace miniapp

#endif
