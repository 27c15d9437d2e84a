#include "boundary.hpp"

#include "box_kernels.hpp"

namespace miniapp {

Box ghost_slab(const Field& u, int d, int side, const Box& span) {
  Box b = span;
  const int h = u.halo(), n = u.n()[d];
  b.lo[d] = side == 0 ? 0 : n + h;
  b.hi[d] = side == 0 ? h : n + 2 * h;
  return b;
}

void apply_boundary(Field& u, int d, int side, Boundary kind, double value, const Box& span) {
  const Box slab = ghost_slab(u, d, side, span);
  const Field f = u;
  double* p = u.data();
  if (kind == Boundary::Dirichlet) {
    for_each_cell(
        "miniapp::boundary::dirichlet", slab,
        KOKKOS_LAMBDA(int i, int j, int k) { p[f.index(i, j, k)] = value; });
  } else if (kind == Boundary::Neumann) {
    // Mirror across the face: low ghost g in [0, h) <- 2h-1-g; high ghost g in [n+h, n+2h)
    // <- 2(n+h)-1-g. Both sources are interior cells.
    const int mirror = side == 0 ? 2 * u.halo() - 1 : 2 * (u.n()[d] + u.halo()) - 1;
    for_each_cell(
        "miniapp::boundary::neumann", slab, KOKKOS_LAMBDA(int i, int j, int k) {
          int s[3] = {i, j, k};
          s[d] = mirror - s[d];
          p[f.index(i, j, k)] = p[f.index(s[0], s[1], s[2])];
        });
  }
}

}  // namespace miniapp
