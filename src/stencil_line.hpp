// The innermost loops of every stencil sweep: one x-line of cells. Shared by the plain sweep
// (stencil.cpp) and the temporally blocked rounds (temporal_blocking.cpp), so both evaluate
// the same expressions of numerics.hpp in the same order and agree bit for bit.
//
// `c` points at the first input cell of the line and reads its neighbours through the strides
// sy, sz of the array it lives in; `out` points at the first output cell, which may live in a
// different array with other strides (only x is contiguous in both). The restrict-qualified
// pointers tell the compiler that input and output do not alias, so the loops vectorise.
#pragma once

#include <cstdint>

#include "numerics.hpp"

namespace miniapp {

/// One x-line of the 7-point update.
KOKKOS_INLINE_FUNCTION void line7(const double* __restrict c, double* __restrict out, int n,
                                  std::int64_t sy, std::int64_t sz, double ax, double ay,
                                  double az) {
#pragma GCC ivdep
  for (int i = 0; i < n; ++i)
    out[i] = diffusion7(c[i], c[i - 1], c[i + 1], c[i - sy], c[i + sy], c[i - sz], c[i + sz], ax,
                        ay, az);
}

/// One x-line of the 27-point update, diffusion27 of numerics.hpp evaluated with its second
/// differences shared between neighbouring cells. Of the 27 second differences a cell needs,
/// the 9 along y are the values D_y(x + p, z + q) of 3 lines (q = -1, 0, 1) at 3 x offsets p,
/// and likewise along z: computing them once per line (into short buffers) instead of once per
/// cell they appear in removes 36 of the 120 operations per cell. Each shared value is the very
/// same expression on the same inputs, so the result is bit-identical to diffusion27.
KOKKOS_INLINE_FUNCTION void line27(const double* __restrict c, double* __restrict out, int n,
                                   std::int64_t sy, std::int64_t sz, double ax, double ay,
                                   double az) {
  constexpr int kChunk = 128;        // cells per pass: the buffers stay in L1
  double dy[3][kChunk + 2], dz[3][kChunk + 2];  // [q + 1][i + 1], i = -1 .. m
  for (int i0 = 0; i0 < n; i0 += kChunk) {
    const int m = n - i0 < kChunk ? n - i0 : kChunk;
    const double* p = c + i0;
    for (int q = -1; q <= 1; ++q) {
      const double* a = p + q * sz;  // the line displaced by q along z: its y differences
      const double* b = p + q * sy;  // the line displaced by q along y: its z differences
      double* __restrict yq = dy[q + 1] + 1;
      double* __restrict zq = dz[q + 1] + 1;
#pragma GCC ivdep
      for (int i = -1; i <= m; ++i) {
        yq[i] = a[i - sy] + a[i + sy] - 2.0 * a[i];
        zq[i] = b[i - sz] + b[i + sz] - 2.0 * b[i];
      }
    }
    const double* __restrict ym = dy[0] + 1;
    const double* __restrict y0 = dy[1] + 1;
    const double* __restrict yp = dy[2] + 1;
    const double* __restrict zm = dz[0] + 1;
    const double* __restrict z0 = dz[1] + 1;
    const double* __restrict zp = dz[2] + 1;
    double* __restrict o = out + i0;
#pragma GCC ivdep
    for (int i = 0; i < m; ++i) {
      const double* u = p + i;
      // second_difference<0>(u, dy, dz): along x on the line displaced by (dy, dz)
      const auto dx = [&](int oy, int oz) {
        const double* l = u + oy * sy + oz * sz;
        return l[-1] + l[1] - 2.0 * l[0];
      };
      const double lx = (100.0 * dx(0, 0) + 10.0 * (dx(-1, 0) + dx(1, 0) + dx(0, -1) + dx(0, 1)) +
                         dx(-1, -1) + dx(1, -1) + dx(-1, 1) + dx(1, 1)) *
                        (1.0 / 144.0);
      // second_difference<1>(u, p, q) = D_y at x offset p on the line displaced by q along z
      const double ly = (100.0 * y0[i] + 10.0 * (y0[i - 1] + y0[i + 1] + ym[i] + yp[i]) +
                         ym[i - 1] + ym[i + 1] + yp[i - 1] + yp[i + 1]) *
                        (1.0 / 144.0);
      // second_difference<2>(u, p, q) = D_z at x offset p on the line displaced by q along y
      const double lz = (100.0 * z0[i] + 10.0 * (z0[i - 1] + z0[i + 1] + zm[i] + zp[i]) +
                         zm[i - 1] + zm[i + 1] + zp[i - 1] + zp[i + 1]) *
                        (1.0 / 144.0);
      o[i] = u[0] + ax * lx + ay * ly + az * lz;
    }
  }
}

/// One x-line of the `points`-point update (7 or 27).
KOKKOS_INLINE_FUNCTION void stencil_line(int points, const double* __restrict c,
                                         double* __restrict out, int n, std::int64_t sy,
                                         std::int64_t sz, double ax, double ay, double az) {
  if (points == 27)
    line27(c, out, n, sy, sz, ax, ay, az);
  else
    line7(c, out, n, sy, sz, ax, ay, az);
}

/// One x-line of a copy (the STREAM-style yardstick).
KOKKOS_INLINE_FUNCTION void line_copy(const double* __restrict c, double* __restrict out, int n) {
#pragma GCC ivdep
  for (int i = 0; i < n; ++i) out[i] = c[i];
}

}  // namespace miniapp
