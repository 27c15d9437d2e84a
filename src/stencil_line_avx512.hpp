// Hand-vectorised x-lines for CPUs with AVX-512 (compiled in only where __AVX512F__ is
// defined; stencil_line.hpp falls back to portable loops elsewhere). Same expressions in the
// same order as numerics.hpp, no fused multiply-add: bit-identical to the portable loops.
//
// What they do better than the compiler's vectorisation of the portable loop:
// - the x neighbours w = u(i-1), e = u(i+1) come from the aligned centre vectors by a lane
//   shift (valignq) instead of two unaligned loads that split cache lines: the sweep is bound
//   by loads in cache, and this takes 2 of its 7 loads per 8 cells away;
// - vectors sit on 64-byte lines of the output, so streaming (non-temporal) stores write whole
//   lines, and the partial lines at both ends are written with masked ordinary stores;
// - for sweeps over arrays larger than the caches, a software prefetch of the leading plane:
//   its row four rows ahead into the L2, each vector's line two rows ahead into the L1.
#pragma once

#if defined(__AVX512F__) && !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)
#define MINIAPP_HAVE_AVX512_LINES 1
#include <immintrin.h>

#include <cstdint>

namespace miniapp {
namespace avx512 {

/// (u(i-1)) for the 8 lanes of `cur`, lane 0 from the last lane of `prev`.
inline __m512d shift_in_low(__m512d cur, __m512d prev) {
  return _mm512_castsi512_pd(
      _mm512_alignr_epi64(_mm512_castpd_si512(cur), _mm512_castpd_si512(prev), 7));
}
/// (u(i+1)) for the 8 lanes of `cur`, lane 7 from the first lane of `next`.
inline __m512d shift_in_high(__m512d next, __m512d cur) {
  return _mm512_castsi512_pd(
      _mm512_alignr_epi64(_mm512_castpd_si512(next), _mm512_castpd_si512(cur), 1));
}

/// 2.0 in a register the compiler cannot see into. GCC rewrites 2.0*c as c + c (exact, so
/// allowed), which moves work from the multiplier to the adder; the kernels are bound by
/// additions, so 2.0*c must stay a multiplication.
inline __m512d opaque_two() {
  __m512d two = _mm512_set1_pd(2.0);
  asm("" : "+v"(two));
  return two;
}

/// Make this thread's non-temporal stores visible to other threads: they are weakly ordered.
/// Once per thread after its last streamed line, not per line: a fence per line cost the
/// sweep-shaped copy 15-25 % of its time (measured on AMD Zen 4).
inline void publish_streamed() { _mm_sfence(); }

/// diffusion7 on 8 lanes: c + ax*(w+e-2c) + ay*(s+n-2c) + az*(b+t-2c), left to right.
inline __m512d update7(__m512d c, __m512d w, __m512d e, __m512d s, __m512d n, __m512d b, __m512d t,
                       __m512d ax, __m512d ay, __m512d az, __m512d two) {
  const __m512d c2 = _mm512_mul_pd(two, c);
  const __m512d x = _mm512_sub_pd(_mm512_add_pd(w, e), c2);
  const __m512d y = _mm512_sub_pd(_mm512_add_pd(s, n), c2);
  const __m512d z = _mm512_sub_pd(_mm512_add_pd(b, t), c2);
  __m512d r = _mm512_add_pd(c, _mm512_mul_pd(ax, x));
  r = _mm512_add_pd(r, _mm512_mul_pd(ay, y));
  return _mm512_add_pd(r, _mm512_mul_pd(az, z));
}

/// The lanes in `m` of the 7-point update at c (masked loads: no access outside the lanes).
inline __m512d update7_masked(__mmask8 m, const double* c, std::int64_t sy, std::int64_t szb,
                              std::int64_t sza, __m512d ax, __m512d ay, __m512d az, __m512d two) {
  const auto at = [m](const double* p) { return _mm512_maskz_loadu_pd(m, p); };
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
  const __m512d ax = _mm512_set1_pd(ax_), ay = _mm512_set1_pd(ay_), az = _mm512_set1_pd(az_);
  const __m512d two = opaque_two();
  const auto edge = [&](int i, int count) {
    const __mmask8 m = __mmask8((1u << count) - 1);
    _mm512_mask_storeu_pd(out + i, m, update7_masked(m, c + i, sy, szb, sza, ax, ay, az, two));
  };
  // From memory, the leading plane is the one stream that misses the L2 (the sweep's tiles keep
  // the planes below and beside it there, box_kernels.hpp). Its lines are requested as a whole
  // row into the L2 well ahead, and line by line into the L1 shortly before the loads: with
  // the L2 fetch alone the loads wait on L1 misses (measured on AMD Zen 5 at 256^3, two
  // threads: tiles and the L1 fetch together took a stand-alone sweep from 5.4-6.3 to
  // 3.2-4.2 ms; tiles alone took 10-20 % off, the L1 fetch alone in plane order 0-5 %).
  if (Prefetch) {
    const char* ahead = reinterpret_cast<const char*>(c + sza + 4 * sy);
    for (int b = 0; b < 8 * n; b += 64) _mm_prefetch(ahead + b, _MM_HINT_T1);
  }
  // Vectors on the output's 64-byte lines; the cells before the first line form a masked edge.
  const int lead = int((64 - reinterpret_cast<std::uintptr_t>(out) % 64) % 64 / 8);
  const bool whole_lines =
      Stream &&
      (reinterpret_cast<std::uintptr_t>(out) - reinterpret_cast<std::uintptr_t>(c)) % 64 == 0;
  int i = lead < n ? lead : n;
  if (i > 0) edge(0, i);
  // The main loop covers every whole vector of the line, so that the last whole line of out
  // is streamed too: a masked store there reads the line from memory first (measured on AMD
  // Zen 5, 256^3, two threads, five paired rounds: lines of 258 cells from x = 1, as the first
  // sub-step of a blocked round sweeps them, 4.42 -> 4.09 ms median; the plain sweep's lines
  // unchanged within the noise). Its last vector loads only the next vector's lanes up to
  // c[n], the last cell's east neighbour.
  if (i + 8 <= n) {
    __m512d prev = _mm512_maskz_loadu_pd(0x80, c + i - 8), cur = _mm512_loadu_pd(c + i);
    for (; i + 8 <= n; i += 8) {
      const double* p = c + i;
      if (Prefetch) _mm_prefetch(reinterpret_cast<const char*>(p + sza + 2 * sy), _MM_HINT_T0);
      const __m512d next = i + 16 <= n + 1
                               ? _mm512_loadu_pd(p + 8)
                               : _mm512_maskz_loadu_pd(__mmask8((1u << (n - i - 7)) - 1), p + 8);
      const __m512d r =
          update7(cur, shift_in_low(cur, prev), shift_in_high(next, cur), _mm512_loadu_pd(p - sy),
                  _mm512_loadu_pd(p + sy), _mm512_loadu_pd(p - szb), _mm512_loadu_pd(p + sza), ax,
                  ay, az, two);
      if (whole_lines)
        _mm512_stream_pd(out + i, r);
      else
        _mm512_storeu_pd(out + i, r);
      prev = cur;
      cur = next;
    }
  }
  for (; i < n; i += 8) edge(i, n - i < 8 ? n - i : 8);
}

/// Second difference a + b - 2c of three neighbour vectors.
inline __m512d second(__m512d a, __m512d b, __m512d c, __m512d two) {
  return _mm512_sub_pd(_mm512_add_pd(a, b), _mm512_mul_pd(two, c));
}

/// The smoothed second difference of numerics.hpp from its nine terms D(p, q), p, q in -1..1:
/// (100 D(0,0) + 10 (D(-1,0) + D(1,0) + D(0,-1) + D(0,1)) + D(-1,-1) + D(1,-1) + D(-1,1) +
/// D(1,1)) / 144, left to right.
inline __m512d smoothed(__m512d d00, __m512d dm0, __m512d dp0, __m512d d0m, __m512d d0p,
                        __m512d dmm, __m512d dpm, __m512d dmp, __m512d dpp) {
  const __m512d ten_sum = _mm512_mul_pd(
      _mm512_set1_pd(10.0), _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(dm0, dp0), d0m), d0p));
  __m512d r = _mm512_add_pd(_mm512_mul_pd(_mm512_set1_pd(100.0), d00), ten_sum);
  r = _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(_mm512_add_pd(r, dmm), dpm), dmp), dpp);
  return _mm512_mul_pd(r, _mm512_set1_pd(1.0 / 144.0));
}

/// The 27-point update on 8 lanes from the 27 neighbour vectors u[dz+1][dy+1][dx+1].
inline __m512d update27(const __m512d (&u)[3][3][3], __m512d ax, __m512d ay, __m512d az,
                        __m512d two) {
  const auto dx = [&](int p, int q) {
    return second(u[q + 1][p + 1][0], u[q + 1][p + 1][2], u[q + 1][p + 1][1], two);
  };
  const auto dy = [&](int p, int q) {
    return second(u[q + 1][0][p + 1], u[q + 1][2][p + 1], u[q + 1][1][p + 1], two);
  };
  const auto dz = [&](int p, int q) {
    return second(u[0][q + 1][p + 1], u[2][q + 1][p + 1], u[1][q + 1][p + 1], two);
  };
  const __m512d lx = smoothed(dx(0, 0), dx(-1, 0), dx(1, 0), dx(0, -1), dx(0, 1), dx(-1, -1),
                              dx(1, -1), dx(-1, 1), dx(1, 1));
  const __m512d ly = smoothed(dy(0, 0), dy(-1, 0), dy(1, 0), dy(0, -1), dy(0, 1), dy(-1, -1),
                              dy(1, -1), dy(-1, 1), dy(1, 1));
  const __m512d lz = smoothed(dz(0, 0), dz(-1, 0), dz(1, 0), dz(0, -1), dz(0, 1), dz(-1, -1),
                              dz(1, -1), dz(-1, 1), dz(1, 1));
  __m512d r = _mm512_add_pd(u[1][1][1], _mm512_mul_pd(ax, lx));
  r = _mm512_add_pd(r, _mm512_mul_pd(ay, ly));
  return _mm512_add_pd(r, _mm512_mul_pd(az, lz));
}

/// The `count` lanes from i of the 27-point update of the line at c, from masked loads of its
/// 27 neighbours (no access outside those lanes): the partial vectors at the ends of a line.
inline void update27_masked(const double* c, double* out, int i, int count, std::int64_t sy,
                            std::int64_t szb, std::int64_t sza, __m512d ax, __m512d ay, __m512d az,
                            __m512d two) {
  const __mmask8 m = __mmask8((1u << count) - 1);
  __m512d u[3][3][3];
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx)
        u[dz + 1][dy + 1][dx + 1] = _mm512_maskz_loadu_pd(m, c + i + dx + dy * sy +
                                                                 (dz < 0   ? -szb
                                                                  : dz > 0 ? sza
                                                                           : 0));
  _mm512_mask_storeu_pd(out + i, m, update27(u, ax, ay, az, two));
}

/// A smoothed second difference whose nine terms D(p, q) are the three vectors D(q) at x - 1,
/// x and x + 1 (p), shifted in from the vectors before and after: the y one of the 27-point
/// update from the y second differences of the lines k-1..k+1, the z one from the z second
/// differences of the rows j-1..j+1.
inline __m512d smoothed_shifted(const __m512d (&prev)[3], const __m512d (&cur)[3],
                                const __m512d (&next)[3]) {
  const __m512d lo[3] = {shift_in_low(cur[0], prev[0]), shift_in_low(cur[1], prev[1]),
                         shift_in_low(cur[2], prev[2])};
  const __m512d hi[3] = {shift_in_high(next[0], cur[0]), shift_in_high(next[1], cur[1]),
                         shift_in_high(next[2], cur[2])};
  return smoothed(cur[1], lo[1], hi[1], cur[0], cur[2], lo[0], hi[0], lo[2], hi[2]);
}

/// The rest of the 27-point update of the 8 cells at c once Lx is known: Ly from the y second
/// differences B(dz) and Lz from the z ones C(dy) (each the vectors before, at and after x),
/// c + ax Lx + ay Ly + az Lz left to right into out (Stream: a non-temporal store, out on a
/// 64-byte line); then the vectors after x become the current ones.
template <bool Stream = false>
inline void finish27(const double* c, double* out, __m512d lx, __m512d (&bp)[3], __m512d (&bc)[3],
                     const __m512d (&bn)[3], __m512d (&cp)[3], __m512d (&cc)[3],
                     const __m512d (&cn)[3], __m512d ax, __m512d ay, __m512d az) {
  const __m512d ly = smoothed_shifted(bp, bc, bn);
  const __m512d lz = smoothed_shifted(cp, cc, cn);
  __m512d r = _mm512_add_pd(_mm512_loadu_pd(c), _mm512_mul_pd(ax, lx));
  r = _mm512_add_pd(r, _mm512_mul_pd(ay, ly));
  r = _mm512_add_pd(r, _mm512_mul_pd(az, lz));
  if (Stream)
    _mm512_stream_pd(out, r);
  else
    _mm512_storeu_pd(out, r);
  for (int d = 0; d < 3; ++d) {
    bp[d] = bc[d], bc[d] = bn[d];
    cp[d] = cc[d], cc[d] = cn[d];
  }
}

/// One x-line of the 27-point update. The y and z second differences of the centre column
/// (B(dz) along y of the lines (j, k+dz), C(dy) along z of the lines (j+dy, k)) are computed
/// once per position and lane-shifted to x-1 and x+1, where the plain loop evaluates them three
/// times: the same values (the same expression of the same cells), 57 instead of 81 additions
/// per 8 cells. Prefetch: fetch the two leading-plane rows ahead.
template <bool Prefetch>
inline void line27(const double* __restrict c, double* __restrict out, int n, std::int64_t sy,
                   std::int64_t szb, std::int64_t sza, double ax_, double ay_, double az_) {
  const __m512d ax = _mm512_set1_pd(ax_), ay = _mm512_set1_pd(ay_), az = _mm512_set1_pd(az_);
  const __m512d two = opaque_two();
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
  const int lead = int((64 - reinterpret_cast<std::uintptr_t>(out) % 64) % 64 / 8);
  int i = lead < n ? lead : n;
  if (i > 0) edge(0, i);
  if (i + 16 <= n + 1) {
    // B[dz] = u(j-1) + u(j+1) - 2u(j) on the line k+dz; C[dy] likewise along z on row j+dy.
    const auto b_at = [&](int dz, int x, __mmask8 m) {
      return second(_mm512_maskz_loadu_pd(m, line(-1, dz) + x),
                    _mm512_maskz_loadu_pd(m, line(1, dz) + x),
                    _mm512_maskz_loadu_pd(m, line(0, dz) + x), two);
    };
    const auto c_at = [&](int dy, int x, __mmask8 m) {
      return second(_mm512_maskz_loadu_pd(m, line(dy, -1) + x),
                    _mm512_maskz_loadu_pd(m, line(dy, 1) + x),
                    _mm512_maskz_loadu_pd(m, line(dy, 0) + x), two);
    };
    __m512d bp[3], bc[3], cp[3], cc[3];
    for (int d = 0; d < 3; ++d) {
      bp[d] = b_at(d - 1, i - 8, 0x80);  // only lane 7 (x = i-1) is used
      bc[d] = b_at(d - 1, i, 0xff);
      cp[d] = c_at(d - 1, i - 8, 0x80);
      cc[d] = c_at(d - 1, i, 0xff);
    }
    for (; i + 16 <= n + 1; i += 8) {
      __m512d bn[3], cn[3];
      for (int d = 0; d < 3; ++d) {
        bn[d] = b_at(d - 1, i + 8, 0xff);
        cn[d] = c_at(d - 1, i + 8, 0xff);
      }
      // Lx needs every line's own x second difference.
      const auto dx = [&](int p, int q) {
        const double* l = line(p, q) + i;
        return second(_mm512_loadu_pd(l - 1), _mm512_loadu_pd(l + 1), _mm512_loadu_pd(l), two);
      };
      const __m512d lx = smoothed(dx(0, 0), dx(-1, 0), dx(1, 0), dx(0, -1), dx(0, 1), dx(-1, -1),
                                  dx(1, -1), dx(-1, 1), dx(1, 1));
      finish27(c + i, out + i, lx, bp, bc, bn, cp, cc, cn, ax, ay, az);
    }
  }
  for (; i < n; i += 8) edge(i, n - i < 8 ? n - i : 8);
}

/// Lanes l of the vector at x with lo <= x + l < hi.
inline __mmask8 lanes_within(int x, int lo, int hi) {
  const int first = lo > x ? lo - x : 0, last = hi - x < 8 ? hi - x : 8;
  return first >= last ? __mmask8(0) : __mmask8(((1u << last) - 1) & ~((1u << first) - 1));
}

/// The second differences a 27-point sweep keeps of one row j, c = u(0, j, k+1) for x in
/// [0, n): into dx along x for x in [0, n) and, if dy, along y for x in [-1, n] (both of plane
/// k+1); if dz, along z of plane k (rows c - 2 sz, c - sz, c) for x in [-1, n]. The outputs
/// are on 64-byte lines at x = 0. One pass loads each input once: the x neighbours are
/// shifted in from the vectors either side, and 2 c is shared by x and y. The same expression
/// as `second` in the line kernels. Reads u only within x in [-1, n] (masked loads).
inline void second_differences_row(const double* c, std::int64_t sy, std::int64_t sz, int n,
                                   double* dx, double* dy, double* dz) {
  const __m512d two = opaque_two();
  const auto load = [&](int x) {  // c from x, masked where it reaches beyond [-1, n]
    return x >= 0 && x + 8 <= n + 1 ? _mm512_loadu_pd(c + x)
                                    : _mm512_maskz_loadu_pd(lanes_within(x, -1, n + 1), c + x);
  };
  __m512d prev = _mm512_setzero_pd(), cur = load(-8);
  for (int x = -8; x < n + 1; x += 8) {
    const __m512d next = load(x + 8);
    const __m512d c2 = _mm512_mul_pd(two, cur);
    const __m512d ddx =
        _mm512_sub_pd(_mm512_add_pd(shift_in_low(cur, prev), shift_in_high(next, cur)), c2);
    if (x >= 0 && x + 8 <= n) {
      // Whole vectors take unmasked loads and stores: with every vector masked this pass ran
      // at 1.6-2.0e9 cells/s in cache, with only a row's ends masked at 1.9-2.5e9 (Zen 4).
      _mm512_store_pd(dx + x, ddx);
      if (dy)
        _mm512_store_pd(dy + x, _mm512_sub_pd(_mm512_add_pd(_mm512_loadu_pd(c + x - sy),
                                                            _mm512_loadu_pd(c + x + sy)),
                                              c2));
      if (dz)
        _mm512_store_pd(
            dz + x, second(_mm512_loadu_pd(c + x - 2 * sz), cur, _mm512_loadu_pd(c + x - sz), two));
    } else {
      const __mmask8 m = lanes_within(x, -1, n + 1);
      const auto at = [&](const double* p) { return _mm512_maskz_loadu_pd(m, p + x); };
      _mm512_mask_store_pd(dx + x, lanes_within(x, 0, n), ddx);
      if (dy)
        _mm512_mask_store_pd(dy + x, m, _mm512_sub_pd(_mm512_add_pd(at(c - sy), at(c + sy)), c2));
      if (dz) _mm512_mask_store_pd(dz + x, m, second(at(c - 2 * sz), cur, at(c - sz), two));
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
/// cell: a cell's share of the second differences is 6 additions here, 30 in line27. The
/// scratch loads are aligned. Stream: non-temporal stores of the whole vectors (out on a
/// 64-byte line), not fenced (publish_streamed).
template <bool Stream>
inline void line27_rows(const double* __restrict c, double* __restrict out, int n, std::int64_t sy,
                        std::int64_t sz, const double* const (&dx)[3][3],
                        const double* const (&dy)[3], const double* const (&dz)[3], double ax_,
                        double ay_, double az_) {
  const __m512d ax = _mm512_set1_pd(ax_), ay = _mm512_set1_pd(ay_), az = _mm512_set1_pd(az_);
  const __m512d two = opaque_two();
  __m512d bp[3], bc[3], cp[3], cc[3];
  for (int d = 0; d < 3; ++d) {
    bp[d] = _mm512_maskz_loadu_pd(0x80, dy[d] - 8);  // only lane 7 (x = -1) is used
    bc[d] = _mm512_load_pd(dy[d]);
    cp[d] = _mm512_maskz_loadu_pd(0x80, dz[d] - 8);
    cc[d] = _mm512_load_pd(dz[d]);
  }
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    __m512d bn[3], cn[3];
    for (int d = 0; d < 3; ++d) {
      bn[d] = _mm512_load_pd(dy[d] + i + 8);  // lane 0 (x = i + 8 <= n) is used
      cn[d] = _mm512_load_pd(dz[d] + i + 8);
    }
    const auto at = [&](int p, int q) { return _mm512_load_pd(dx[q + 1][p + 1] + i); };
    const __m512d lx = smoothed(at(0, 0), at(-1, 0), at(1, 0), at(0, -1), at(0, 1), at(-1, -1),
                                at(1, -1), at(-1, 1), at(1, 1));
    finish27<Stream>(c + i, out + i, lx, bp, bc, bn, cp, cc, cn, ax, ay, az);
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
    const __mmask8 m = __mmask8((1u << count) - 1);
    _mm512_mask_storeu_pd(out + i, m, _mm512_maskz_loadu_pd(m, c + i));
  };
  int i = 0;
  if (Stream) {
    const int lead = int((64 - reinterpret_cast<std::uintptr_t>(out) % 64) % 64 / 8);
    i = lead < n ? lead : n;
    if (i > 0) masked(0, i);
  }
  for (; i + 8 <= n; i += 8) {
    __m512d v = _mm512_loadu_pd(c + i);
    asm("" : "+v"(v));
    if (Stream)
      _mm512_stream_pd(out + i, v);
    else
      _mm512_storeu_pd(out + i, v);
  }
  if (i < n) masked(i, n - i);
}

}  // namespace avx512
}  // namespace miniapp

#endif
