#include "stencil.hpp"

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
  for (int i = 0; i < n; ++i) out[i] = diffusion27(Around{c + i, sy, sz}, ax, ay, az);
}

KOKKOS_INLINE_FUNCTION void line_copy(const double* __restrict c, double* __restrict out, int n) {
#pragma GCC ivdep
  for (int i = 0; i < n; ++i) out[i] = c[i];
}

}  // namespace

void apply_stencil7(const Field& u, Field& v, const Box& region, const Coefficients& a) {
  if (region.empty()) return;
  const int nx = region.extent(0), ny = region.extent(1);
  const Index3 lo = region.lo;
  const std::int64_t sy = u.ext()[0], sz = std::int64_t(u.ext()[0]) * u.ext()[1];
  const double* up = u.data();
  double* vp = v.data();
  const Field f = u;
  const double ax = a.ax, ay = a.ay, az = a.az;
  Kokkos::parallel_for(
      "miniapp::stencil::7pt", Kokkos::RangePolicy<Exec>(0, std::int64_t(ny) * region.extent(2)),
      KOKKOS_LAMBDA(const std::int64_t line) {
        const std::int64_t base = f.index(lo[0], lo[1] + int(line % ny), lo[2] + int(line / ny));
        line7(up + base, vp + base, nx, sy, sz, ax, ay, az);
      });
}

void apply_stencil(int points, const Field& u, Field& v, const Box& region, const Coefficients& a,
                   bool flat_z) {
  if (region.empty()) return;
  const int nx = region.extent(0), ny = region.extent(1);
  const Index3 lo = region.lo;
  const std::int64_t sy = u.ext()[0];
  const std::int64_t sz = flat_z ? 0 : std::int64_t(u.ext()[0]) * u.ext()[1];
  const double* up = u.data();
  double* vp = v.data();
  const Field f = u;
  const double ax = a.ax, ay = a.ay, az = a.az;
  const std::int64_t lines = std::int64_t(ny) * region.extent(2);
  if (points == 27) {
    Kokkos::parallel_for(
        "miniapp::stencil::27pt", Kokkos::RangePolicy<Exec>(0, lines),
        KOKKOS_LAMBDA(const std::int64_t line) {
          const std::int64_t base = f.index(lo[0], lo[1] + int(line % ny), lo[2] + int(line / ny));
          line27(up + base, vp + base, nx, sy, sz, ax, ay, az);
        });
  } else {
    Kokkos::parallel_for(
        "miniapp::stencil::7pt", Kokkos::RangePolicy<Exec>(0, lines),
        KOKKOS_LAMBDA(const std::int64_t line) {
          const std::int64_t base = f.index(lo[0], lo[1] + int(line % ny), lo[2] + int(line / ny));
          line7(up + base, vp + base, nx, sy, sz, ax, ay, az);
        });
  }
}

void copy_region(const Field& u, Field& v, const Box& region) {
  if (region.empty()) return;
  const int nx = region.extent(0), ny = region.extent(1);
  const Index3 lo = region.lo;
  const double* up = u.data();
  double* vp = v.data();
  const Field f = u;
  Kokkos::parallel_for(
      "miniapp::stencil::copy", Kokkos::RangePolicy<Exec>(0, std::int64_t(ny) * region.extent(2)),
      KOKKOS_LAMBDA(const std::int64_t line) {
        const std::int64_t base = f.index(lo[0], lo[1] + int(line % ny), lo[2] + int(line / ny));
        line_copy(up + base, vp + base, nx);
      });
}

}  // namespace miniapp
