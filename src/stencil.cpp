#include "stencil.hpp"

#include <algorithm>

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

KOKKOS_INLINE_FUNCTION void line_copy(const double* __restrict c, double* __restrict out, int n) {
#pragma GCC ivdep
  for (int i = 0; i < n; ++i) out[i] = c[i];
}

}  // namespace

void apply_stencil7(const Field& u, Field& v, const Box& region, const Coefficients& a) {
  if (region.empty()) return;
  // 2.5D blocking: a work item is a tile of y-rows swept through a chunk of z-planes, so the
  // three planes k-1, k, k+1 of the tile stay in cache and every value of u is read from
  // memory about once. Tiles hold ~3 planes in 192 KiB (a per-core L2); z is cut into chunks
  // only as much as needed to give every thread several items.
  const int nx = region.extent(0), ny = region.extent(1), nz = region.extent(2);
  // The number of items is a multiple of the thread count, so static scheduling balances.
  const int threads = Exec().concurrency();
  const int rows_max = std::max(1, int((192 * 1024) / (3 * 8 * std::int64_t(u.ext()[0]))));
  int tiles = (ny + rows_max - 1) / rows_max;
  const int chunks = tiles >= threads ? 1 : std::min(nz, (threads + tiles - 1) / tiles);
  if (chunks == 1) tiles = std::min(ny, (tiles + threads - 1) / threads * threads);
  const int rows_per_tile = (ny + tiles - 1) / tiles;
  tiles = (ny + rows_per_tile - 1) / rows_per_tile;
  const Index3 lo = region.lo;
  const std::int64_t sy = u.ext()[0], sz = std::int64_t(u.ext()[0]) * u.ext()[1];
  const double* up = u.data();
  double* vp = v.data();
  const Field f = u;
  const double ax = a.ax, ay = a.ay, az = a.az;
  Kokkos::parallel_for(
      "miniapp::stencil::7pt", Kokkos::RangePolicy<Exec>(0, std::int64_t(tiles) * chunks),
      KOKKOS_LAMBDA(const std::int64_t item) {
        const int tile = int(item % tiles), chunk = int(item / tiles);
        const int j0 = lo[1] + tile * rows_per_tile;
        const int j1 = std::min(lo[1] + ny, j0 + rows_per_tile);
        const auto kr = block_range(nz, chunks, chunk);
        for (int k = lo[2] + kr[0]; k < lo[2] + kr[1]; ++k)
          for (int j = j0; j < j1; ++j) {
            const std::int64_t base = f.index(lo[0], j, k);
            line7(up + base, vp + base, nx, sy, sz, ax, ay, az);
          }
      });
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
