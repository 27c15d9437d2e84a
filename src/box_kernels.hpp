// Kokkos loops over boxes of a Field. A box is walked as lines along x (the contiguous
// dimension): the parallel loop runs over the (j, k) lines, the inner loop over i is left to
// the compiler to vectorise. Every kernel in miniapp that touches a box goes through here,
// so all of them touch memory with the same thread-to-line mapping (first touch matches).
#pragma once

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <string>

#include "box.hpp"
#include "field.hpp"

namespace miniapp {

/// Hint that the cache line holding p will be needed soon, into the L1 (`CacheLevel::L1`) or only
/// the L2. No effect where unsupported; never faults, also past the end of an array.
enum class CacheLevel { L1, L2 };
template <CacheLevel L = CacheLevel::L1>
KOKKOS_INLINE_FUNCTION void prefetch(const double* p) {
#if defined(__GNUC__) && !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)
  __builtin_prefetch(p, 0, L == CacheLevel::L1 ? 3 : 2);
#else
  (void)p;
#endif
}

/// For a walk down a column of rows `row` doubles apart, p the current one: a box thin in x
/// (the x-faces of halos and boundaries) costs a cache line per value, and the hardware
/// prefetchers do not follow that stride. Fetching only into the L1 leaves the walk bound by
/// the L1's few outstanding misses; lines fetched far ahead into the L2, and from there near
/// ahead into the L1, keep many more in flight (measured: the x-face pack took half the time).
KOKKOS_INLINE_FUNCTION void prefetch_column(const double* p, std::int64_t row) {
  prefetch<CacheLevel::L2>(p + 128 * row);
  prefetch(p + 16 * row);
}

/// Run f(i, j, k) for every cell of box b (local padded coordinates). A work item is a run of
/// x-lines of one z-plane holding about 2048 cells, so that boxes thin in x (the x-faces of
/// halos and boundaries, one or a few cells per line) do not pay a work item per cell. Does
/// not fence.
template <class F>
void for_each_cell(const std::string& label, const Box& b, const F& f) {
  if (b.empty()) return;
  const int nx = b.extent(0), ny = b.extent(1);
  const int rows = std::min(ny, std::max(1, 2048 / nx));
  const int per_plane = (ny + rows - 1) / rows;
  const std::int64_t items = std::int64_t(per_plane) * b.extent(2);
  const Index3 lo = b.lo, hi = b.hi;
  Kokkos::parallel_for(
      label, Kokkos::RangePolicy<Exec, Kokkos::Schedule<Kokkos::Static>>(0, items),
      KOKKOS_LAMBDA(const std::int64_t item) {
        const int k = lo[2] + int(item / per_plane);
        const int j0 = lo[1] + int(item % per_plane) * rows;
        const int j1 = std::min(hi[1], j0 + rows);
        for (int j = j0; j < j1; ++j)
          for (int i = lo[0]; i < hi[0]; ++i) f(i, j, k);
      });
}

/// The most rows of `row_length` doubles of which three planes (a stencil's planes below, at
/// and above) fit in `bytes` of a core's L2; at least 1.
inline int rows_in_l2(int row_length, std::int64_t bytes) {
  return std::max(1, int(bytes / (std::int64_t{3} * 8 * row_length)));
}

/// Run f(j, k) for every x-line (j, k) of box b, in the cache-blocked order of the sweeps:
/// a work item is a tile of y-rows swept through a chunk of z-planes, sized so that three
/// planes of a tile (of padded width `row_length` doubles) fit in 384 KiB of a per-core L2; a
/// stencil then reads each value from memory about once ("2.5D blocking"). The item count is
/// a multiple of the thread count so static scheduling balances, and the kernels that
/// initialise fields use the same order, so pages are first touched by the thread that will
/// sweep them. Does not fence.
template <class F>
void for_each_line_blocked(const std::string& label, const Box& b, int row_length, const F& f) {
  if (b.empty()) return;
  const int ny = b.extent(1), nz = b.extent(2);
  const int threads = Exec().concurrency();
  const int rows_max = rows_in_l2(row_length, std::int64_t{384} * 1024);
  int tiles = (ny + rows_max - 1) / rows_max;
  const int chunks = tiles >= threads ? 1 : std::min(nz, (threads + tiles - 1) / tiles);
  if (chunks == 1) tiles = std::min(ny, (tiles + threads - 1) / threads * threads);
  const int rows = (ny + tiles - 1) / tiles;
  tiles = (ny + rows - 1) / rows;
  const Index3 lo = b.lo;
  Kokkos::parallel_for(
      label,
      Kokkos::RangePolicy<Exec, Kokkos::Schedule<Kokkos::Static>>(0, std::int64_t(tiles) * chunks),
      KOKKOS_LAMBDA(const std::int64_t item) {
        const int tile = int(item % tiles), chunk = int(item / tiles);
        const int j0 = lo[1] + tile * rows;
        const int j1 = std::min(lo[1] + ny, j0 + rows);
        const auto kr = block_range(nz, chunks, chunk);
        for (int k = lo[2] + kr[0]; k < lo[2] + kr[1]; ++k)
          for (int j = j0; j < j1; ++j) f(j, k);
      });
}

/// Run f(j, k) for every x-line (j, k) of box b, the order of sweeps through arrays larger than
/// the caches: each thread takes one contiguous run of lines (k slowest, then j), so that it
/// owns whole planes, and walks it in tiles of y-rows, each tile up through the run's planes.
/// Three planes of a tile (rows of `row_length` doubles) fit in 512 KiB of a per-core L2, so a
/// stencil reads the planes below and beside the leading one from the L2, not the L3 ("2.5D
/// blocking" within each thread's planes; the planes stay whole per thread, so the pages a
/// thread first touches are the ones it sweeps, also with 2 MiB pages). Each thread then calls
/// done() once. Does not fence.
template <class F, class Done = void (*)()>
void for_each_line(
    const std::string& label, const Box& b, int row_length, const F& f, Done done = [] {}) {
  if (b.empty()) return;
  const int ny = b.extent(1);
  const std::int64_t lines = std::int64_t(ny) * b.extent(2);
  const int threads = Exec().concurrency();
  const int rows_max = rows_in_l2(row_length, std::int64_t{512} * 1024);
  const int tiles = (ny + rows_max - 1) / rows_max;
  const int rows = (ny + tiles - 1) / tiles;
  const Index3 lo = b.lo;
  Kokkos::parallel_for(
      label, Kokkos::RangePolicy<Exec, Kokkos::Schedule<Kokkos::Static>>(0, threads),
      KOKKOS_LAMBDA(const int t) {
        const std::int64_t first = lines * t / threads, last = lines * (t + 1) / threads;
        if (first < last) {
          const int k0 = int(first / ny), k1 = int((last - 1) / ny);
          for (int j0 = 0; j0 < ny; j0 += rows)
            for (int k = k0; k <= k1; ++k) {
              // This tile's rows of plane k, cut to the run where it starts or ends mid-plane.
              const std::int64_t plane = std::int64_t(k) * ny;
              const int ja = int(std::max<std::int64_t>(j0, first - plane));
              const int jb = int(std::min<std::int64_t>(std::min(ny, j0 + rows), last - plane));
              for (int j = ja; j < jb; ++j) f(lo[1] + j, lo[2] + k);
            }
        }
        done();
      });
}

}  // namespace miniapp
