#include "stencil.hpp"

#include "box_kernels.hpp"

namespace miniapp {

namespace {

// One x-line of the 7-point update. The restrict-qualified parameters tell the compiler that
// u and v do not alias, so the loop vectorises.
KOKKOS_INLINE_FUNCTION void line7(const double* __restrict c, double* __restrict out, int n,
                                  std::int64_t sy, std::int64_t sz, double ax, double ay,
                                  double az) {
#pragma GCC ivdep
  for (int i = 0; i < n; ++i)
    out[i] = diffusion7(c[i], c[i - 1], c[i + 1], c[i - sy], c[i + sy], c[i - sz], c[i + sz], ax,
                        ay, az);
}

/// Neighbour access for diffusion27: u(dx, dy, dz) relative to the cell at p.
struct Around {
  const double* p;
  std::int64_t sy, sz;
  KOKKOS_INLINE_FUNCTION double operator()(int dx, int dy, int dz) const {
    return p[dx + dy * sy + dz * sz];
  }
};

KOKKOS_INLINE_FUNCTION void line27(const double* __restrict c, double* __restrict out, int n,
                                   std::int64_t sy, std::int64_t sz, double ax, double ay,
                                   double az) {
#pragma GCC ivdep
  for (int i = 0; i < n; ++i) out[i] = diffusion27(Around{c + i, sy, sz}, ax, ay, az);
}

KOKKOS_INLINE_FUNCTION void line_copy(const double* __restrict c, double* __restrict out, int n) {
#pragma GCC ivdep
  for (int i = 0; i < n; ++i) out[i] = c[i];
}

}  // namespace

void apply_stencil(int points, const Field& u, Field& v, const Box& region, const Coefficients& a,
                   bool flat_z) {
  const int nx = region.extent(0), x0 = region.lo[0];
  const std::int64_t sy = u.ext()[0];
  const std::int64_t sz = flat_z ? 0 : std::int64_t(u.ext()[0]) * u.ext()[1];
  const double* up = u.data();
  double* vp = v.data();
  const Field f = u;
  const double ax = a.ax, ay = a.ay, az = a.az;
  if (points == 27) {
    for_each_line_blocked(
        "miniapp::stencil::27pt", region, u.ext()[0], KOKKOS_LAMBDA(int j, int k) {
          const std::int64_t base = f.index(x0, j, k);
          line27(up + base, vp + base, nx, sy, sz, ax, ay, az);
        });
  } else {
    for_each_line_blocked(
        "miniapp::stencil::7pt", region, u.ext()[0], KOKKOS_LAMBDA(int j, int k) {
          const std::int64_t base = f.index(x0, j, k);
          line7(up + base, vp + base, nx, sy, sz, ax, ay, az);
        });
  }
}

void copy_region(const Field& u, Field& v, const Box& region) {
  const int nx = region.extent(0), x0 = region.lo[0];
  const double* up = u.data();
  double* vp = v.data();
  const Field f = u;
  for_each_line_blocked(
      "miniapp::stencil::copy", region, u.ext()[0], KOKKOS_LAMBDA(int j, int k) {
        const std::int64_t base = f.index(x0, j, k);
        line_copy(up + base, vp + base, nx);
      });
}

}  // namespace miniapp
