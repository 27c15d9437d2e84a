#include "stencil.hpp"

#include <algorithm>
#include <vector>

#include "box_kernels.hpp"
#include "initial_condition.hpp"
#include "stencil_line.hpp"
#include "stream_copy.hpp"

namespace miniapp {

bool sweep_streams_from_memory(const Box& owned) {
  return 2 * std::int64_t(sizeof(double)) * owned.count() > last_level_cache_bytes();
}

void apply_stencil(int points, const Field& u, Field& v, const Box& region, const Coefficients& a,
                   bool flat_z, SweepStores stores) {
  const int nx = region.extent(0), x0 = region.lo[0];
  const std::int64_t sy = u.ext()[0];
  const std::int64_t sz = flat_z ? 0 : std::int64_t(u.ext()[0]) * u.ext()[1];
  const double* up = u.data();
  double* vp = v.data();
  const Field f = u;
  const double ax = a.ax, ay = a.ay, az = a.az;
  // Decided by the fields, not the region: the slabs an overlapped step updates one by one are
  // each about the size of the cache, but none of their cells is in it.
  const bool from_memory = sweep_streams_from_memory(u.interior());
  const LineMode mode = !from_memory                       ? LineMode::Cached
                        : stores == SweepStores::Streaming ? LineMode::Stream
                                                           : LineMode::Prefetch;
  const auto line = KOKKOS_LAMBDA(int j, int k) {
    const std::int64_t base = f.index(x0, j, k);
    stencil_line(points, up + base, vp + base, nx, sy, sz, ax, ay, az, mode);
  };
  const char* label = points == 27 ? "miniapp::stencil::27pt" : "miniapp::stencil::7pt";
  if (from_memory)
    for_each_line(label, region, line);
  else
    for_each_line_blocked(label, region, u.ext()[0], line);
}

double in_cache_sweep_rate(int points, int reps) {
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
  // The order and the stores apply_stencil would sweep these fields with.
  const bool from_memory = sweep_streams_from_memory(u.interior());
  const LineMode mode =
      from_memory && stores == SweepStores::Streaming ? LineMode::Stream : LineMode::Cached;
  const auto line = KOKKOS_LAMBDA(int j, int k) {
    const std::int64_t base = f.index(x0, j, k);
    line_copy(up + base, vp + base, nx, mode);
  };
  if (from_memory)
    for_each_line("miniapp::stencil::copy", region, line);
  else
    for_each_line_blocked("miniapp::stencil::copy", region, u.ext()[0], line);
}

}  // namespace miniapp
