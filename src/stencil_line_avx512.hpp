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
// - for sweeps over arrays larger than the caches, a software prefetch of the row of the
//   leading plane two rows ahead.
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

/// diffusion7 on 8 lanes: c + ax*(w+e-2c) + ay*(s+n-2c) + az*(b+t-2c), left to right.
inline __m512d update7(__m512d c, __m512d w, __m512d e, __m512d s, __m512d n, __m512d b, __m512d t,
                       __m512d ax, __m512d ay, __m512d az) {
  const __m512d c2 = _mm512_mul_pd(_mm512_set1_pd(2.0), c);
  const __m512d x = _mm512_sub_pd(_mm512_add_pd(w, e), c2);
  const __m512d y = _mm512_sub_pd(_mm512_add_pd(s, n), c2);
  const __m512d z = _mm512_sub_pd(_mm512_add_pd(b, t), c2);
  __m512d r = _mm512_add_pd(c, _mm512_mul_pd(ax, x));
  r = _mm512_add_pd(r, _mm512_mul_pd(ay, y));
  return _mm512_add_pd(r, _mm512_mul_pd(az, z));
}

/// The lanes in `m` of the 7-point update at c (masked loads: no access outside the lanes).
inline __m512d update7_masked(__mmask8 m, const double* c, std::int64_t sy, std::int64_t sz,
                              __m512d ax, __m512d ay, __m512d az) {
  const auto at = [m](const double* p) { return _mm512_maskz_loadu_pd(m, p); };
  return update7(at(c), at(c - 1), at(c + 1), at(c - sy), at(c + sy), at(c - sz), at(c + sz), ax,
                 ay, az);
}

/// One x-line of the 7-point update. Stream: non-temporal stores for the whole lines of out
/// (needs out and c equally aligned, else ordinary stores). Prefetch: fetch the row of the
/// leading plane two rows ahead.
template <bool Stream, bool Prefetch>
inline void line7(const double* __restrict c, double* __restrict out, int n, std::int64_t sy,
                  std::int64_t sz, double ax_, double ay_, double az_) {
  const __m512d ax = _mm512_set1_pd(ax_), ay = _mm512_set1_pd(ay_), az = _mm512_set1_pd(az_);
  const auto edge = [&](int i, int count) {
    const __mmask8 m = __mmask8((1u << count) - 1);
    _mm512_mask_storeu_pd(out + i, m, update7_masked(m, c + i, sy, sz, ax, ay, az));
  };
  if (Prefetch) {
    const char* ahead = reinterpret_cast<const char*>(c + sz + 2 * sy);
    for (int b = 0; b < 8 * n; b += 64) _mm_prefetch(ahead + b, _MM_HINT_T1);
  }
  // Vectors on the output's 64-byte lines; the cells before the first line form a masked edge.
  const int lead = int((64 - reinterpret_cast<std::uintptr_t>(out) % 64) % 64 / 8);
  const bool whole_lines =
      Stream &&
      (reinterpret_cast<std::uintptr_t>(out) - reinterpret_cast<std::uintptr_t>(c)) % 64 == 0;
  int i = lead < n ? lead : n;
  if (i > 0) edge(0, i);
  // The main loop loads the next vector whole: it must end at or before c[n] (the last cell's
  // east neighbour).
  if (i + 16 <= n + 1) {
    __m512d prev = _mm512_maskz_loadu_pd(0x80, c + i - 8), cur = _mm512_loadu_pd(c + i);
    for (; i + 16 <= n + 1; i += 8) {
      const double* p = c + i;
      const __m512d next = _mm512_loadu_pd(p + 8);
      const __m512d r = update7(cur, shift_in_low(cur, prev), shift_in_high(next, cur),
                                _mm512_loadu_pd(p - sy), _mm512_loadu_pd(p + sy),
                                _mm512_loadu_pd(p - sz), _mm512_loadu_pd(p + sz), ax, ay, az);
      if (whole_lines)
        _mm512_stream_pd(out + i, r);
      else
        _mm512_storeu_pd(out + i, r);
      prev = cur;
      cur = next;
    }
  }
  for (; i < n; i += 8) edge(i, n - i < 8 ? n - i : 8);
  if (whole_lines) _mm_sfence();  // non-temporal stores are weakly ordered: publish the line
}

}  // namespace avx512
}  // namespace miniapp

#endif
