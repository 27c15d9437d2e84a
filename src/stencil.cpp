#include "stencil.hpp"

#include "box_kernels.hpp"
#include "stencil_line.hpp"

namespace miniapp {

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
