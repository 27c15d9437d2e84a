#include "stencil.hpp"

#include "box_kernels.hpp"
#include "stencil_line.hpp"
#include "stream_copy.hpp"

namespace miniapp {

bool sweep_streams_from_memory(const Box& region) {
  return 2 * std::int64_t(sizeof(double)) * region.count() > last_level_cache_bytes();
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
  const bool from_memory = sweep_streams_from_memory(region);
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
