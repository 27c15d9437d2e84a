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

namespace {

/// Run the lines that make_line(mode) returns, f(j, k), over region in the order and with the
/// line mode a sweep of u's fields takes. Decided by the fields, not the region: the slabs an
/// overlapped step updates one by one are each about the size of the cache, but none of their
/// cells is in it.
template <class MakeLine>
void sweep_lines(const char* label, const Field& u, const Box& region, SweepStores stores,
                 const MakeLine& make_line) {
  const bool from_memory = sweep_streams_from_memory(u.interior());
  const LineMode mode = !from_memory                       ? LineMode::Cached
                        : stores == SweepStores::Streaming ? LineMode::Stream
                                                           : LineMode::Prefetch;
  if (from_memory)
    for_each_line(label, region, make_line(mode));
  else
    for_each_line_blocked(label, region, u.ext()[0], make_line(mode));
}

}  // namespace

void apply_stencil(int points, const Field& u, Field& v, const Box& region, const Coefficients& a,
                   bool flat_z, SweepStores stores) {
  const int nx = region.extent(0), x0 = region.lo[0];
  const std::int64_t sy = u.ext()[0];
  const std::int64_t sz = flat_z ? 0 : std::int64_t(u.ext()[0]) * u.ext()[1];
  const double* up = u.data();
  double* vp = v.data();
  const Field f = u;
  const double ax = a.ax, ay = a.ay, az = a.az;
  sweep_lines(points == 27 ? "miniapp::stencil::27pt" : "miniapp::stencil::7pt", u, region, stores,
              [&](LineMode mode) {
                return KOKKOS_LAMBDA(int j, int k) {
                  const std::int64_t base = f.index(x0, j, k);
                  stencil_line(points, up + base, vp + base, nx, sy, sz, ax, ay, az, mode);
                };
              });
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
  sweep_lines("miniapp::stencil::copy", u, region, stores, [&](LineMode mode) {
    return KOKKOS_LAMBDA(int j, int k) {
      const std::int64_t base = f.index(x0, j, k);
      line_copy(up + base, vp + base, nx, mode);
    };
  });
}

}  // namespace miniapp
