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

namespace {

/// Fill the ghosts of the low and/or high side of dimension d over span in one kernel. The
/// sides are independent: each reads only interior cells (the extent along d is at least h).
void apply_sides(Field& u, int d, bool low, bool high, Boundary kind, double value,
                 const Box& span) {
  if (kind == Boundary::Periodic || (!low && !high)) return;
  const Box slab = ghost_slab(u, d, low ? 0 : 1, span);
  const Field f = u;
  double* p = u.data();
  const int h = u.halo(), n = u.n()[d];
  // The loop runs over the first side's slab; the high side's cell is `shift` further along d,
  // `off` in the array. Offsets are linear, so a cell costs one index computation.
  const int shift = low && high ? n + h : 0;
  const std::int64_t stride = d == 0 ? 1 : d == 1 ? f.index(0, 1, 0) : f.index(0, 0, 1);
  const std::int64_t off = shift * stride;
  // Along x each row's ghosts are a cache line of their own: fetch the lines rows ahead.
  const std::int64_t row = d == 0 ? f.index(0, 1, 0) : 0;
  if (kind == Boundary::Dirichlet) {
    for_each_cell(
        "miniapp::boundary::dirichlet", slab, KOKKOS_LAMBDA(int i, int j, int k) {
          const std::int64_t c = f.index(i, j, k);
          if (row != 0) prefetch_column(p + c + off, row);
          p[c] = value;
          if (off != 0) p[c + off] = value;
        });
    return;
  }
  // Neumann: mirror across the face: low ghost g in [0, h) <- 2h-1-g; high ghost g in
  // [n+h, n+2h) <- 2(n+h)-1-g. Both sources are interior cells.
  const int first_mirror = low ? 2 * h - 1 : 2 * (n + h) - 1;
  const int high_mirror = 2 * (n + h) - 1;
  for_each_cell(
      "miniapp::boundary::neumann", slab, KOKKOS_LAMBDA(int i, int j, int k) {
        const int g = d == 0 ? i : d == 1 ? j : k;
        const std::int64_t c = f.index(i, j, k);
        if (row != 0) prefetch_column(p + c + off, row);
        p[c] = p[c + (first_mirror - 2 * g) * stride];
        if (off != 0) p[c + off] = p[c + off + (high_mirror - 2 * (g + shift)) * stride];
      });
}

/// The same span in the dimensions other than d.
bool same_span(const Box& a, const Box& b, int d) {
  for (int e = 0; e < 3; ++e)
    if (e != d && (a.lo[e] != b.lo[e] || a.hi[e] != b.hi[e])) return false;
  return true;
}

}  // namespace

void apply_boundary(Field& u, int d, int side, Boundary kind, double value, const Box& span) {
  apply_sides(u, d, side == 0, side == 1, kind, value, span);
}

void apply_fills(Field& u, const std::vector<BoundaryFill>& fills, int phase,
                 const std::array<Boundary, 3>& bc, double value) {
  std::vector<const BoundaryFill*> mine;
  for (const BoundaryFill& f : fills)
    if (phase < 0 || f.phase == phase) mine.push_back(&f);
  for (std::size_t i = 0; i < mine.size(); ++i) {
    const BoundaryFill& f = *mine[i];
    if (i + 1 < mine.size()) {
      const BoundaryFill& g = *mine[i + 1];
      if (g.d == f.d && g.side != f.side && same_span(f.span, g.span, f.d)) {
        apply_sides(u, f.d, true, true, bc[std::size_t(f.d)], value, f.span);
        ++i;
        continue;
      }
    }
    apply_boundary(u, f.d, f.side, bc[std::size_t(f.d)], value, f.span);
  }
}

}  // namespace miniapp
