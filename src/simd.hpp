// The few vector operations the hand-vectorised line kernels need (stencil_line_simd.hpp),
// for the widest x86 vector ISA the build targets: AVX-512 (8 doubles, __mmask8 lane masks)
// or AVX2 (4 doubles, lane masks as 64-bit integer lanes with the sign bit set). The kernels
// are written once against these names; a build for any other ISA defines none of them and
// stencil_line.hpp takes its portable loops.
//
// Every operation is one IEEE operation per lane, rounded once, as its scalar twin in
// numerics.hpp: the kernels give the same bits. The one fused multiply-add (minus_twice)
// fuses an exact product, so it rounds once where the scalar pair does.
#pragma once

#if !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__) && \
    (defined(__AVX512F__) || defined(__AVX2__))
#define MINIAPP_HAVE_SIMD_LINES 1
#include <immintrin.h>

#include <cstdint>

namespace miniapp {
namespace simd {

#if defined(__AVX512F__)

using V = __m512d;
using Mask = __mmask8;
/// Doubles per vector.
inline constexpr int W = 8;
inline constexpr const char* kName = "AVX-512";
/// Whether the x neighbours u(i-1), u(i+1) are better shifted in from the aligned vectors
/// either side (one lane-crossing instruction each) than loaded unaligned (lines split across
/// cache lines): yes on AVX-512, where the sweep is bound by loads in cache (measured on AMD
/// Zen 4 and 5).
inline constexpr bool kShiftBeatsLoads = true;
/// Whether a 7-point sweep from memory fetches its leading plane ahead by software prefetch
/// (stencil_line_simd.hpp): tuned, and a gain, on the AVX-512 cores measured (AMD Zen 4, 5).
inline constexpr bool kPrefetchLeadingPlane = true;

inline V set1(double a) { return _mm512_set1_pd(a); }
inline V add(V a, V b) { return _mm512_add_pd(a, b); }
inline V sub(V a, V b) { return _mm512_sub_pd(a, b); }
inline V mul(V a, V b) { return _mm512_mul_pd(a, b); }
/// Loads and stores; `load`/`store` need p on a vector boundary, the others any p.
inline V load(const double* p) { return _mm512_load_pd(p); }
inline V loadu(const double* p) { return _mm512_loadu_pd(p); }
inline void store(double* p, V v) { _mm512_store_pd(p, v); }
inline void storeu(double* p, V v) { _mm512_storeu_pd(p, v); }
/// Non-temporal store (p on a vector boundary): written around the caches, no read of the line.
inline void stream(double* p, V v) { _mm512_stream_pd(p, v); }

/// Lanes l with lo <= x + l < hi.
inline Mask lanes_within(int x, int lo, int hi) {
  const int first = lo > x ? lo - x : 0, last = hi - x < W ? hi - x : W;
  return first >= last ? Mask(0) : Mask(((1u << last) - 1) & ~((1u << first) - 1));
}
/// Lanes below `count`.
inline Mask first_lanes(int count) { return Mask((1u << count) - 1); }
/// The last lane alone.
inline Mask last_lane() { return Mask(1u << (W - 1)); }
/// The lanes in m of p, zero elsewhere; no access outside them.
inline V load_lanes(Mask m, const double* p) { return _mm512_maskz_loadu_pd(m, p); }
/// The lanes in m of v into p; no access outside them.
inline void store_lanes(double* p, Mask m, V v) { _mm512_mask_storeu_pd(p, m, v); }
/// The lanes in m from b, the others from a.
inline V select(Mask m, V a, V b) { return _mm512_mask_blend_pd(m, a, b); }

/// (u(i-1)) for the lanes of `cur`, lane 0 from the last lane of `prev`.
inline V shift_in_low(V cur, V prev) {
  return _mm512_castsi512_pd(
      _mm512_alignr_epi64(_mm512_castpd_si512(cur), _mm512_castpd_si512(prev), 7));
}
/// (u(i+1)) for the lanes of `cur`, the last lane from the first lane of `next`.
inline V shift_in_high(V next, V cur) {
  return _mm512_castsi512_pd(
      _mm512_alignr_epi64(_mm512_castpd_si512(next), _mm512_castpd_si512(cur), 1));
}

/// v, unchanged, in a register the compiler cannot see into.
inline V opaque(V v) {
  asm("" : "+v"(v));
  return v;
}

#else  // AVX2

using V = __m256d;
using Mask = __m256i;
inline constexpr int W = 4;
inline constexpr const char* kName = "AVX2";
/// No on AVX2: a shift takes two shuffles, which share the adders' ports, and the cores have
/// loads to spare (measured on AMD Zen 3: the 7-point line in cache at 2.2e9 cells/s with
/// shifts, 3.3-3.5e9 as the compiler vectorises the portable loop).
inline constexpr bool kShiftBeatsLoads = false;
/// No gain on the AVX2 core measured (AMD Zen 3, 256^3, two threads, four alternating rounds:
/// 10.4 against 10.8 ms median with streaming stores, 11.3 against 11.9 with ordinary ones): its
/// hardware prefetchers keep the planes fed.
inline constexpr bool kPrefetchLeadingPlane = false;

inline V set1(double a) { return _mm256_set1_pd(a); }
inline V add(V a, V b) { return _mm256_add_pd(a, b); }
inline V sub(V a, V b) { return _mm256_sub_pd(a, b); }
inline V mul(V a, V b) { return _mm256_mul_pd(a, b); }
inline V load(const double* p) { return _mm256_load_pd(p); }
inline V loadu(const double* p) { return _mm256_loadu_pd(p); }
inline void store(double* p, V v) { _mm256_store_pd(p, v); }
inline void storeu(double* p, V v) { _mm256_storeu_pd(p, v); }
inline void stream(double* p, V v) { _mm256_stream_pd(p, v); }

inline Mask lanes_within(int x, int lo, int hi) {
  const __m256i at = _mm256_add_epi64(_mm256_set1_epi64x(x), _mm256_setr_epi64x(0, 1, 2, 3));
  return _mm256_and_si256(_mm256_cmpgt_epi64(at, _mm256_set1_epi64x(lo - 1)),
                          _mm256_cmpgt_epi64(_mm256_set1_epi64x(hi), at));
}
inline Mask first_lanes(int count) { return lanes_within(0, 0, count); }
inline Mask last_lane() { return _mm256_setr_epi64x(0, 0, 0, -1); }
inline V load_lanes(Mask m, const double* p) { return _mm256_maskload_pd(p, m); }
inline void store_lanes(double* p, Mask m, V v) { _mm256_maskstore_pd(p, m, v); }
inline V select(Mask m, V a, V b) { return _mm256_blendv_pd(a, b, _mm256_castsi256_pd(m)); }

/// (prev3, cur0, cur1, cur2): the 128-bit halves (prev_hi, cur_lo), then one in-lane shuffle.
inline V shift_in_low(V cur, V prev) {
  return _mm256_shuffle_pd(_mm256_permute2f128_pd(prev, cur, 0x21), cur, 0b0101);
}
/// (cur1, cur2, cur3, next0).
inline V shift_in_high(V next, V cur) {
  return _mm256_shuffle_pd(cur, _mm256_permute2f128_pd(cur, next, 0x21), 0b0101);
}

inline V opaque(V v) {
  asm("" : "+x"(v));
  return v;
}

#endif

/// 2.0 in a register the compiler cannot see into. GCC rewrites 2.0*c as c + c (exact, so
/// allowed), which moves work from the multiplier to the adder; the kernels are bound by
/// additions, so 2.0*c must stay a multiplication.
inline V opaque_two() { return opaque(set1(2.0)); }

/// sum - 2c with one rounding, as sub(sum, mul(two, c)) rounds it: 2c is a doubling, exact
/// for every c short of overflow (|c| > DBL_MAX / 2, where the two-step form gives an infinity),
/// so a fused negative multiply-add gives the same bits. It takes the multiplication and the
/// subtraction off the adders, which bound the 7-point kernel in the L1: a harness on AMD Zen 5
/// (AVX-512, one thread, 256-cell lines in the L1) measured 1.21 against 1.42 ns per vector.
#if defined(__FMA__)
#define MINIAPP_FUSED_DOUBLING 1
#if defined(__AVX512F__)
inline V minus_twice(V sum, V c, V two) { return _mm512_fnmadd_pd(two, c, sum); }
#else
inline V minus_twice(V sum, V c, V two) { return _mm256_fnmadd_pd(two, c, sum); }
#endif
#else
inline V minus_twice(V sum, V c, V two) { return sub(sum, mul(two, c)); }
#endif

/// Make this thread's non-temporal stores visible to other threads: they are weakly ordered.
/// Once per thread after its last streamed line, not per line: a fence per line cost the
/// sweep-shaped copy 15-25 % of its time (measured on AMD Zen 4).
inline void publish_streamed() { _mm_sfence(); }

}  // namespace simd
}  // namespace miniapp

#endif
