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
//   its row four rows ahead into the L2, each vector's line two rows ahead into the L1;
// - the 27-point update shares its second differences between neighbouring cells and lines.
#pragma once

#include "simd.hpp"

#if defined(MINIAPP_HAVE_SIMD_LINES)
#include <cstdint>

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

/// diffusion7 on W lanes: c + ax*(w+e-2c) + ay*(s+n-2c) + az*(b+t-2c), left to right.
inline V update7(V c, V w, V e, V s, V n, V b, V t, V ax, V ay, V az, V two) {
  const V c2 = mul(two, c);
  const V x = sub(add(w, e), c2);
  const V y = sub(add(s, n), c2);
  const V z = sub(add(b, t), c2);
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

/// One x-line of the 7-point update. Stream: non-temporal stores for the whole lines of out
/// (needs out and c equally aligned, else ordinary stores), not fenced (publish_streamed).
/// Prefetch: fetch the row of the leading plane four rows ahead into the L2, and each vector's
/// line of it two rows ahead into the L1.
template <bool Stream, bool Prefetch>
inline void line7(const double* __restrict c, double* __restrict out, int n, std::int64_t sy,
                  std::int64_t szb, std::int64_t sza, double ax_, double ay_, double az_) {
  const V ax = set1(ax_), ay = set1(ay_), az = set1(az_);
  const V two = opaque_two();
  const auto edge = [&](int i, int count) {
    const Mask m = first_lanes(count);
    store_lanes(out + i, m, update7_masked(m, c + i, sy, szb, sza, ax, ay, az, two));
  };
  // From memory, the leading plane is the one stream that misses the L2 (the sweep's tiles keep
  // the planes below and beside it there, box_kernels.hpp). Its lines are requested as a whole
  // row into the L2 well ahead, and line by line into the L1 shortly before the loads: with
  // the L2 fetch alone the loads wait on L1 misses (measured on AMD Zen 5 at 256^3, two
  // threads: tiles and the L1 fetch together took a stand-alone sweep from 5.4-6.3 to
  // 3.2-4.2 ms; tiles alone took 10-20 % off, the L1 fetch alone in plane order 0-5 %).
  if (Prefetch && kPrefetchLeadingPlane) {
    const char* ahead = reinterpret_cast<const char*>(c + sza + 4 * sy);
    for (int b = 0; b < 8 * n; b += 64) _mm_prefetch(ahead + b, _MM_HINT_T1);
  }
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
      if (Prefetch && kPrefetchLeadingPlane)
        _mm_prefetch(reinterpret_cast<const char*>(p + sza + 2 * sy), _MM_HINT_T0);
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

/// Second difference a + b - 2c of three neighbour vectors.
inline V second(V a, V b, V c, V two) { return sub(add(a, b), mul(two, c)); }

/// The smoothed second difference of numerics.hpp from its nine terms D(p, q), p, q in -1..1:
/// (100 D(0,0) + 10 (D(-1,0) + D(1,0) + D(0,-1) + D(0,1)) + D(-1,-1) + D(1,-1) + D(-1,1) +
/// D(1,1)) / 144, left to right.
inline V smoothed(V d00, V dm0, V dp0, V d0m, V d0p, V dmm, V dpm, V dmp, V dpp) {
  const V ten_sum = mul(set1(10.0), add(add(add(dm0, dp0), d0m), d0p));
  V r = add(mul(set1(100.0), d00), ten_sum);
  r = add(add(add(add(r, dmm), dpm), dmp), dpp);
  return mul(r, set1(1.0 / 144.0));
}

/// The 27-point update on W lanes from the 27 neighbour vectors u[dz+1][dy+1][dx+1].
inline V update27(const V (&u)[3][3][3], V ax, V ay, V az, V two) {
  const auto dx = [&](int p, int q) {
    return second(u[q + 1][p + 1][0], u[q + 1][p + 1][2], u[q + 1][p + 1][1], two);
  };
  const auto dy = [&](int p, int q) {
    return second(u[q + 1][0][p + 1], u[q + 1][2][p + 1], u[q + 1][1][p + 1], two);
  };
  const auto dz = [&](int p, int q) {
    return second(u[0][q + 1][p + 1], u[2][q + 1][p + 1], u[1][q + 1][p + 1], two);
  };
  const V lx = smoothed(dx(0, 0), dx(-1, 0), dx(1, 0), dx(0, -1), dx(0, 1), dx(-1, -1), dx(1, -1),
                        dx(-1, 1), dx(1, 1));
  const V ly = smoothed(dy(0, 0), dy(-1, 0), dy(1, 0), dy(0, -1), dy(0, 1), dy(-1, -1), dy(1, -1),
                        dy(-1, 1), dy(1, 1));
  const V lz = smoothed(dz(0, 0), dz(-1, 0), dz(1, 0), dz(0, -1), dz(0, 1), dz(-1, -1), dz(1, -1),
                        dz(-1, 1), dz(1, 1));
  V r = add(u[1][1][1], mul(ax, lx));
  r = add(r, mul(ay, ly));
  return add(r, mul(az, lz));
}

/// The `count` lanes from i of the 27-point update of the line at c, from masked loads of its
/// 27 neighbours (no access outside those lanes): the partial vectors at the ends of a line.
inline void update27_masked(const double* c, double* out, int i, int count, std::int64_t sy,
                            std::int64_t szb, std::int64_t sza, V ax, V ay, V az, V two) {
  const Mask m = first_lanes(count);
  V u[3][3][3];
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx)
        u[dz + 1][dy + 1][dx + 1] = load_lanes(m, c + i + dx + dy * sy +
                                                      (dz < 0   ? -szb
                                                       : dz > 0 ? sza
                                                                : 0));
  store_lanes(out + i, m, update27(u, ax, ay, az, two));
}

/// A smoothed second difference whose nine terms D(p, q) are the three vectors D(q) at x - 1,
/// x and x + 1 (p), shifted in from the vectors before and after: the y one of the 27-point
/// update from the y second differences of the lines k-1..k+1, the z one from the z second
/// differences of the rows j-1..j+1.
inline V smoothed_shifted(const V (&prev)[3], const V (&cur)[3], const V (&next)[3]) {
  const V lo[3] = {shift_in_low(cur[0], prev[0]), shift_in_low(cur[1], prev[1]),
                   shift_in_low(cur[2], prev[2])};
  const V hi[3] = {shift_in_high(next[0], cur[0]), shift_in_high(next[1], cur[1]),
                   shift_in_high(next[2], cur[2])};
  return smoothed(cur[1], lo[1], hi[1], cur[0], cur[2], lo[0], hi[0], lo[2], hi[2]);
}

/// c + ax Lx + ay Ly + az Lz for the W cells at c, left to right, into out (Stream: a
/// non-temporal store, out on a 64-byte line).
template <bool Stream = false>
inline void store27(const double* c, double* out, V lx, V ly, V lz, V ax, V ay, V az) {
  V r = add(loadu(c), mul(ax, lx));
  r = add(r, mul(ay, ly));
  r = add(r, mul(az, lz));
  if (Stream)
    stream(out, r);
  else
    storeu(out, r);
}

/// The rest of the 27-point update of the W cells at c once Lx is known: Ly from the y second
/// differences B(dz) and Lz from the z ones C(dy) (each the vectors before, at and after x),
/// then store27; then the vectors after x become the current ones.
template <bool Stream = false>
inline void finish27(const double* c, double* out, V lx, V (&bp)[3], V (&bc)[3], const V (&bn)[3],
                     V (&cp)[3], V (&cc)[3], const V (&cn)[3], V ax, V ay, V az) {
  store27<Stream>(c, out, lx, smoothed_shifted(bp, bc, bn), smoothed_shifted(cp, cc, cn), ax, ay,
                  az);
  for (int d = 0; d < 3; ++d) {
    bp[d] = bc[d], bc[d] = bn[d];
    cp[d] = cc[d], cc[d] = cn[d];
  }
}

/// One x-line of the 27-point update. The y and z second differences of the centre column
/// (B(dz) along y of the lines (j, k+dz), C(dy) along z of the lines (j+dy, k)) are computed
/// once per position and lane-shifted to x-1 and x+1, where the plain loop evaluates them three
/// times: the same values (the same expression of the same cells), 57 instead of 81 additions
/// per cell. Prefetch: fetch the two leading-plane rows ahead.
template <bool Prefetch>
inline void line27(const double* __restrict c, double* __restrict out, int n, std::int64_t sy,
                   std::int64_t szb, std::int64_t sza, double ax_, double ay_, double az_) {
  const V ax = set1(ax_), ay = set1(ay_), az = set1(az_);
  const V two = opaque_two();
  const auto line = [&](int dy, int dz) {
    return c + dy * sy + (dz < 0 ? -szb : dz > 0 ? sza : 0);
  };
  const auto edge = [&](int i, int count) {
    update27_masked(c, out, i, count, sy, szb, sza, ax, ay, az, two);
  };
  if (Prefetch) {
    for (int dy = -1; dy <= 1; ++dy) {
      const char* ahead = reinterpret_cast<const char*>(line(dy, 1) + 2 * sy);
      for (int b = 0; b < 8 * n; b += 64) _mm_prefetch(ahead + b, _MM_HINT_T1);
    }
  }
  int i = cells_before_line(out, n);
  by_vectors(0, i, edge);
  if (i + 2 * W <= n + 1) {
    // B[dz] = u(j-1) + u(j+1) - 2u(j) on the line k+dz; C[dy] likewise along z on row j+dy.
    const auto b_at = [&](int dz, int x, Mask m) {
      return second(load_lanes(m, line(-1, dz) + x), load_lanes(m, line(1, dz) + x),
                    load_lanes(m, line(0, dz) + x), two);
    };
    const auto c_at = [&](int dy, int x, Mask m) {
      return second(load_lanes(m, line(dy, -1) + x), load_lanes(m, line(dy, 1) + x),
                    load_lanes(m, line(dy, 0) + x), two);
    };
    V bp[3], bc[3], cp[3], cc[3];
    for (int d = 0; d < 3; ++d) {
      bp[d] = b_at(d - 1, i - W, last_lane());  // only the last lane (x = i-1) is used
      bc[d] = b_at(d - 1, i, first_lanes(W));
      cp[d] = c_at(d - 1, i - W, last_lane());
      cc[d] = c_at(d - 1, i, first_lanes(W));
    }
    for (; i + 2 * W <= n + 1; i += W) {
      V bn[3], cn[3];
      for (int d = 0; d < 3; ++d) {
        bn[d] = b_at(d - 1, i + W, first_lanes(W));
        cn[d] = c_at(d - 1, i + W, first_lanes(W));
      }
      // Lx needs every line's own x second difference.
      const auto dx = [&](int p, int q) {
        const double* l = line(p, q) + i;
        return second(loadu(l - 1), loadu(l + 1), loadu(l), two);
      };
      const V lx = smoothed(dx(0, 0), dx(-1, 0), dx(1, 0), dx(0, -1), dx(0, 1), dx(-1, -1),
                            dx(1, -1), dx(-1, 1), dx(1, 1));
      finish27(c + i, out + i, lx, bp, bc, bn, cp, cc, cn, ax, ay, az);
    }
  }
  by_vectors(i, n, edge);
}

/// The second differences a 27-point sweep keeps of one row j, c = u(0, j, k+1) for x in
/// [0, n): into dx along x for x in [0, n) and, if dy, along y for x in [-1, n] (both of plane
/// k+1); if dz, along z of plane k (rows c - 2 sz, c - sz, c) for x in [-1, n]. The outputs
/// are on 64-byte lines at x = 0. One pass loads each input once: the x neighbours are
/// shifted in from the vectors either side, and 2 c is shared by x and y. The same expression
/// as `second` in the line kernels. Reads u only within x in [-1, n] (masked loads).
inline void second_differences_row(const double* c, std::int64_t sy, std::int64_t sz, int n,
                                   double* dx, double* dy, double* dz) {
  const V two = opaque_two();
  const auto load = [&](int x) {  // c from x, masked where it reaches beyond [-1, n]
    return x >= 0 && x + W <= n + 1 ? loadu(c + x) : load_lanes(lanes_within(x, -1, n + 1), c + x);
  };
  V prev = zero(), cur = load(-W);
  for (int x = -W; x < n + 1; x += W) {
    const V next = load(x + W);
    const V c2 = mul(two, cur);
    const bool whole = x >= 0 && x + W <= n;
    const V ddx = kShiftBeatsLoads || !whole
                      ? sub(add(shift_in_low(cur, prev), shift_in_high(next, cur)), c2)
                      : sub(add(loadu(c + x - 1), loadu(c + x + 1)), c2);
    if (whole) {
      // Whole vectors take unmasked loads and stores: with every vector masked this pass ran
      // at 1.6-2.0e9 cells/s in cache, with only a row's ends masked at 1.9-2.5e9 (Zen 4).
      store(dx + x, ddx);
      if (dy) store(dy + x, sub(add(loadu(c + x - sy), loadu(c + x + sy)), c2));
      if (dz) store(dz + x, second(loadu(c + x - 2 * sz), cur, loadu(c + x - sz), two));
    } else {
      const Mask m = lanes_within(x, -1, n + 1);
      const auto at = [&](const double* p) { return load_lanes(m, p + x); };
      store_lanes(dx + x, lanes_within(x, 0, n), ddx);
      if (dy) store_lanes(dy + x, m, sub(add(at(c - sy), at(c + sy)), c2));
      if (dz) store_lanes(dz + x, m, second(at(c - 2 * sz), cur, at(c - sz), two));
    }
    prev = cur;
    cur = next;
  }
}

/// One x-line of the 27-point update from second differences computed beforehand, each once
/// for all the lines that share it (the sweep keeps them for three planes). dx[q+1][p+1]: the
/// x second differences of the line (j+p, k+q) for x in [0, n); dy[q+1]: the y ones of the
/// line (j, k+q), dz[p+1]: the z ones of (j+p, k), both for x in [-1, n]. All of them on
/// 64-byte lines at x = 0 and readable to x = n + 7 (the lanes beyond n are loaded, never
/// used). The same values in the same order as line27, with 33 instead of 57 additions per
/// cell: a cell's share of the second differences is 6 additions here, 30 in line27. Where
/// shifts beat loads (simd.hpp) the scratch loads are aligned; elsewhere the terms at x - 1
/// and x + 1 are loaded unaligned from the scratch rows. Stream: non-temporal stores of the whole
/// vectors (out on a 64-byte line), not fenced (publish_streamed).
template <bool Stream>
inline void line27_rows(const double* __restrict c, double* __restrict out, int n, std::int64_t sy,
                        std::int64_t sz, const double* const (&dx)[3][3],
                        const double* const (&dy)[3], const double* const (&dz)[3], double ax_,
                        double ay_, double az_) {
  const V ax = set1(ax_), ay = set1(ay_), az = set1(az_);
  const V two = opaque_two();
  const auto lx_at = [&](int i) {
    const auto at = [&](int p, int q) { return load(dx[q + 1][p + 1] + i); };
    return smoothed(at(0, 0), at(-1, 0), at(1, 0), at(0, -1), at(0, 1), at(-1, -1), at(1, -1),
                    at(-1, 1), at(1, 1));
  };
  int i = 0;
  if constexpr (kShiftBeatsLoads) {
    V bp[3], bc[3], cp[3], cc[3];
    for (int d = 0; d < 3; ++d) {
      bp[d] = load_lanes(last_lane(), dy[d] - W);  // only the last lane (x = -1) is used
      bc[d] = load(dy[d]);
      cp[d] = load_lanes(last_lane(), dz[d] - W);
      cc[d] = load(dz[d]);
    }
    for (; i + W <= n; i += W) {
      V bn[3], cn[3];
      for (int d = 0; d < 3; ++d) {
        bn[d] = load(dy[d] + i + W);  // lane 0 (x = i + W <= n) is used
        cn[d] = load(dz[d] + i + W);
      }
      finish27<Stream>(c + i, out + i, lx_at(i), bp, bc, bn, cp, cc, cn, ax, ay, az);
    }
  } else {
    // The nine terms of Ly (Lz) loaded from the rows of dy (dz) at x - 1, x and x + 1, in the
    // order smoothed_shifted gives them.
    const auto smoothed_at = [&](const double* const(&d)[3], int x) {
      return smoothed(load(d[1] + x), loadu(d[1] + x - 1), loadu(d[1] + x + 1), load(d[0] + x),
                      load(d[2] + x), loadu(d[0] + x - 1), loadu(d[0] + x + 1), loadu(d[2] + x - 1),
                      loadu(d[2] + x + 1));
    };
    for (; i + W <= n; i += W)
      store27<Stream>(c + i, out + i, lx_at(i), smoothed_at(dy, i), smoothed_at(dz, i), ax, ay, az);
  }
  if (i < n) update27_masked(c, out, i, n - i, sy, sz, sz, ax, ay, az, two);
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
