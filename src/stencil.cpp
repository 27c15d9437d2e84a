#include "stencil.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "box_kernels.hpp"
#include "initial_condition.hpp"
#include "stencil_line.hpp"
#include "stream_copy.hpp"

namespace miniapp {

bool sweep_streams_from_memory(const Box& owned) {
  return 2 * std::int64_t(sizeof(double)) * owned.count() >
         last_level_cache_share(Exec().concurrency());
}

namespace {

/// How a sweep of u's fields touches memory: Cached when they fit in the rank's share of the
/// last-level cache; from memory, with streaming stores unless ordinary ones are asked for.
LineMode sweep_mode(const Field& u, SweepStores stores) {
  if (!sweep_streams_from_memory(u.interior())) return LineMode::Cached;
  return stores == SweepStores::Ordinary ? LineMode::Prefetch : LineMode::Stream;
}

/// Run the lines that make_line(mode) returns, f(j, k), over region in the order and with the
/// line mode a sweep of u's fields takes. Decided by the fields, not the region: the slabs an
/// overlapped step updates one by one are each about the size of the cache, but none of their
/// cells is in it.
template <class MakeLine>
void sweep_lines(const char* label, const Field& u, const Box& region, SweepStores stores,
                 const MakeLine& make_line) {
  const LineMode mode = sweep_mode(u, stores);
  if (mode != LineMode::Cached)
    for_each_line(label, region, int(u.stride_y()), make_line(mode), [mode] {
      if (mode == LineMode::Stream) publish_streamed();
    });
  else
    for_each_line_blocked(label, region, int(u.stride_y()), make_line(mode));
}

#if defined(MINIAPP_HAVE_SIMD_LINES)
/// Rows of the fields per tile of the 27-point sweep, for lines of `width` doubles: the three
/// input planes and the output plane of a tile's rows in about half of a 1 MiB L2, so that
/// the planes below and at k are still there when the tile reaches k + 1. Measured on AMD
/// Zen 5 (1 MiB L2), 256^3, two threads, three alternating runs: 62 rows 7.5/7.3/7.0 ms,
/// 31 rows 7.6/7.6/7.3, 128 rows 8.0/7.8/7.9 (on Zen 3, 512 KiB L2, 15 to 120 rows were
/// within the noise).
int sweep27_tile_rows(std::int64_t width, int ny) {
  const std::int64_t share = std::int64_t{512} * 1024;
  return int(std::clamp<std::int64_t>(share / (4 * std::int64_t(sizeof(double)) * width), 4, ny));
}

/// The 27-point sweep with every intermediate of its one-dimensional passes computed once per
/// cell (stencil_line_simd.hpp, rows27, through stencil_rows). Each thread marches tiles of rows
/// up through its run of planes; per plane, a tile's rows share their z passes in a ring of
/// scratch rows that stays in the L1, and the y and x passes run from registers.
void sweep27_shared(const Field& u, Field& v, const Box& region, const Coefficients& a,
                    SweepStores stores) {
  const int nx = region.extent(0), ny = region.extent(1), nz = region.extent(2);
  const std::int64_t sy = u.stride_y(), sz = u.stride_z();
  const int threads = Exec().concurrency();
  const int rows_max = sweep27_tile_rows(sy, ny);
  // Each thread takes its own run of planes where there are enough of them (the plane order
  // of for_each_line, which first-touches the fields); tiles of rows make up the work items
  // that are missing then.
  const int chunks = std::clamp(nz, 1, threads);
  int tiles =
      std::max((ny + rows_max - 1) / rows_max, std::min((threads + chunks - 1) / chunks, ny));
  const int rows = (ny + tiles - 1) / tiles;
  tiles = (ny + rows - 1) / rows;
  const std::int64_t pieces = std::int64_t(tiles) * chunks;
  const double* up = u.data();
  double* vp = v.data();
  const Field f = u;
  const Index3 lo = region.lo;
  const double ax = a.ax, ay = a.ay, az = a.az;
  // Streaming stores where the line sweeps would take them (stencil_rows keeps ordinary ones
  // where the region's rows do not start 64-byte lines; the interior's do, field.hpp).
  const LineMode mode = sweep_mode(u, stores);
  const bool stream = mode == LineMode::Stream;
  Kokkos::parallel_for(
      "miniapp::stencil::27pt",
      Kokkos::RangePolicy<Exec, Kokkos::Schedule<Kokkos::Static>>(0, threads),
      KOKKOS_LAMBDA(const int t) {
        for (std::int64_t piece = pieces * t / threads; piece < pieces * (t + 1) / threads;
             ++piece) {
          const int j0 = lo[1] + int(piece % tiles) * rows;
          const int j1 = std::min(lo[1] + ny, j0 + rows);
          const auto kr = block_range(nz, chunks, int(piece / tiles));
          for (int k = lo[2] + kr[0]; k < lo[2] + kr[1]; ++k) {
            const std::int64_t base = f.index(lo[0], j0, k);
            stencil_rows(27, up + base, vp + base, nx, j1 - j0, sy, sz, sz, sy, ax, ay, az, mode);
          }
        }
        if (stream) publish_streamed();
      });
}
#endif

/// The sweep as line kernels, line by line.
/// `wrap`: the ghosts per side that each 7-point line stores for a periodic x (wrap_line7, or
/// wrap_line7_streamed where the lines stream), 0 for none.
void apply_lines(int points, const Field& u, Field& v, const Box& region, const Coefficients& a,
                 bool flat_z, SweepStores stores, int wrap = 0) {
  const int nx = region.extent(0), x0 = region.lo[0];
  const int first_row = v.interior().lo[1], last_row = v.interior().hi[1] - 1;
  const std::int64_t sy = u.stride_y();
  const std::int64_t sz = flat_z ? 0 : u.stride_z();
  const double* up = u.data();
  double* vp = v.data();
  const Field f = u;
  const double ax = a.ax, ay = a.ay, az = a.az;
  sweep_lines(points == 27 ? "miniapp::stencil::27pt" : "miniapp::stencil::7pt", u, region, stores,
              [&](LineMode mode) {
                return KOKKOS_LAMBDA(int j, int k) {
                  const std::int64_t base = f.index(x0, j, k);
                  stencil_line(points, up + base, vp + base, nx, sy, sz, ax, ay, az, mode);
                  if (wrap == 0) return;
#if defined(MINIAPP_HAVE_SIMD_LINES)
                  if (mode == LineMode::Stream) {
                    wrap_line7_streamed(up + base, vp + base, nx, wrap, sy, sz, sz, ax, ay, az,
                                        j == first_row, j == last_row);
                    return;
                  }
#endif
                  wrap_line7(up + base, vp + base, nx, wrap, sy, sz, ax, ay, az);
                };
              });
}

/// The sweep as temporal blocking's rounds run it after their first level: the 7-point
/// stencil two planes row by row in turn (stencil_rows7_pair), the 27-point each plane's rows
/// with one call of stencil_rows; planes (or pairs) in parallel, ordinary stores.
void apply_rows(int points, const Field& u, Field& v, const Box& region, const Coefficients& a) {
  const int nx = region.extent(0), ny = region.extent(1);
  const std::int64_t sy = u.stride_y(), sz = u.stride_z();
  const double* up = u.data();
  double* vp = v.data();
  const Field f = u;
  const Index3 lo = region.lo;
  const double ax = a.ax, ay = a.ay, az = a.az;
  const int step = points == 7 ? 2 : 1;
  const int units = (region.extent(2) + step - 1) / step;
  Kokkos::parallel_for(
      "miniapp::stencil::rows",
      Kokkos::RangePolicy<Exec, Kokkos::Schedule<Kokkos::Static>>(0, units),
      KOKKOS_LAMBDA(const int g) {
        const int k = lo[2] + step * g;
        const std::int64_t base = f.index(lo[0], lo[1], k);
        if (step == 2 && k + 1 < region.hi[2])
          stencil_rows7_pair({up + base, vp + base, sz, sz},
                             {up + base + sz, vp + base + sz, sz, sz}, nx, ny, sy, sy, ax, ay, az);
        else
          stencil_rows(points, up + base, vp + base, nx, ny, sy, sz, sz, sy, ax, ay, az);
      });
}

}  // namespace

bool streamed_wrap_fits(const Field& v) {
#if defined(MINIAPP_HAVE_SIMD_LINES)
  return v.halo() <= 4 && v.stride_y() == v.n()[0] + 8;
#else
  (void)v;
  return false;
#endif
}

bool apply_stencil(int points, const Field& u, Field& v, const Box& region, const Coefficients& a,
                   bool flat_z, SweepStores stores, XGhosts x_ghosts) {
  const Box in = v.interior();
  if (x_ghosts == XGhosts::Wrap && (region.lo[0] != in.lo[0] || region.hi[0] != in.hi[0]))
    throw std::logic_error("apply_stencil: an x wrap needs a region across the interior along x");
  // The lines store their x ghosts where that costs less than the exchange's copy of them
  // (0.7-0.9 ms at 256^3 on AMD Zen 3): 7-point lines written with ordinary stores, within 2 %
  // of the sweep without (Zen 3, two threads, alternating sweeps in one process), and those
  // written with streaming stores where one streaming store of a whole line can take two rows'
  // ghosts (wrap_line7_streamed; on AMD Zen 5 it cost the sweep +0.03 ms median against a copy
  // of 0.17-0.32 ms; on Zen 3 about as much as the copy). Ghosts stored one by one into the
  // streamed lines had cost 4-7 % (Zen 3), and a 27-point line's two cells computed again 11 %.
  // Streamed lines wrap at halo 1 only: the deeper halos' masked updates cost a plain round's
  // last sweep about what they save the exchange (H = 4 on Zen 5: 1.007 x the step's time,
  // median of eight alternating runs), where a blocked round gains (temporal_blocking.cpp).
  const bool wrap =
      x_ghosts == XGhosts::Wrap && points == 7 &&
      (sweep_mode(u, stores) != LineMode::Stream || (v.halo() == 1 && streamed_wrap_fits(v)));
#if defined(MINIAPP_HAVE_SIMD_LINES)
  // Regions of single rows (the shells of an overlapped step) and 2D problems take the line
  // kernel: there is little to share.
  if (points == 27 && !flat_z && region.extent(0) >= kShortLine && region.extent(1) >= 2) {
    sweep27_shared(u, v, region, a, stores);
    return false;
  }
#endif
  apply_lines(points, u, v, region, a, flat_z, stores, wrap ? v.halo() : 0);
  return wrap;
}

double in_cache_sweep_rate(int points, int reps, InCacheKernels kernels) {
  // 256-cell lines as in production, 8 rows per thread and 16 planes: about 0.5 MiB per
  // thread for both fields. Each sample times 10 sweeps, so the launches weigh little.
  const int threads = Exec().concurrency();
  const Box owned{{0, 0, 0}, {256, 8 * threads, 16}};
  Field u("miniapp::in_cache::u", owned, 1), v("miniapp::in_cache::v", owned, 1);
  InitialCondition ic;
  ic.grid = owned.extents();
  fill_initial(u, ic);
  fill_zero(v);
  const Coefficients a{0.05, 0.05, 0.05};
  const Box region = u.interior();
  std::vector<double> seconds;
  constexpr int sweeps = 10;
  for (int r = -3; r < std::max(1, reps); ++r) {
    Kokkos::Timer timer;
    for (int s = 0; s < sweeps; ++s) {
      if (kernels == InCacheKernels::Rows)
        apply_rows(points, u, v, region, a);
      else
        apply_stencil(points, u, v, region, a, false);
      Kokkos::fence();
    }
    if (r >= 0) seconds.push_back(timer.seconds() / sweeps);
  }
  std::sort(seconds.begin(), seconds.end());
  return double(region.count()) / seconds[seconds.size() / 2];
}

void copy_region(const Field& u, Field& v, const Box& region, SweepStores stores) {
  const int nx = region.extent(0), x0 = region.lo[0];
  const double* up = u.data();
  double* vp = v.data();
  const Field f = u;
  sweep_lines("miniapp::stencil::copy", u, region, stores, [&](LineMode mode) {
    return KOKKOS_LAMBDA(int j, int k) {
      const std::int64_t base = f.index(x0, j, k);
      line_copy(up + base, vp + base, nx, mode);
    };
  });
}

}  // namespace miniapp
