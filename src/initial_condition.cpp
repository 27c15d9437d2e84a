#include "initial_condition.hpp"

#include <cmath>

#include "box_kernels.hpp"
#include "stencil.hpp"
#include "stream_copy.hpp"

namespace miniapp {

double InitialCondition::sine_growth(const Coefficients& a) const {
  const double pi = 3.14159265358979323846;
  const double s[3] = {std::sin(pi * mode[0] / grid[0]), std::sin(pi * mode[1] / grid[1]),
                       std::sin(pi * mode[2] / grid[2])};
  return 1.0 - 4.0 * (a.ax * s[0] * s[0] + a.ay * s[1] * s[1] + a.az * s[2] * s[2]);
}

double InitialCondition::sine_growth(const Coefficients& a, int stencil) const {
  if (stencil != 27) return sine_growth(a);
  const double pi = 3.14159265358979323846;
  double x[3];
  for (int d = 0; d < 3; ++d) {
    const double s = std::sin(pi * mode[d] / grid[d]);
    x[d] = s * s;
  }
  const double c[3] = {a.ax, a.ay, a.az};
  double sum = 0;
  for (int d = 0; d < 3; ++d)
    sum += c[d] * x[d] * (1.0 - x[(d + 1) % 3] / 3.0) * (1.0 - x[(d + 2) % 3] / 3.0);
  return 1.0 - 4.0 * sum;
}

namespace {

/// Run f(j, k) over the x-lines of box b in the thread-to-line order in which the sweeps of the
/// field's interior will touch them (so each page is first touched by the thread that sweeps it).
template <class F>
void for_each_line_as_swept(const std::string& label, const Field& u, const Box& b, const F& f) {
  if (sweep_streams_from_memory(u.interior()))
    for_each_line(label, b, int(u.stride_y()), f);
  else
    for_each_line_blocked(label, b, int(u.stride_y()), f);
}

}  // namespace

void fill_zero(Field& u) {
  // Before the first touch: halo faces and boundary slabs walk the field a row or a plane
  // apart, a TLB miss per value with 4 KiB pages.
  advise_huge_pages(u.data(), std::int64_t(u.view().size() * sizeof(double)));
  double* p = u.data();
  const Field f = u;
  // Whole rows up to the pitch: the padding too, which vector loads at a row's end may read.
  const auto pitch = int(u.stride_y());
  for_each_line_as_swept(
      "miniapp::init::zero", u, u.padded(), KOKKOS_LAMBDA(int j, int k) {
        for (int i = 0; i < pitch; ++i) p[f.index(i, j, k)] = 0.0;
      });
  Kokkos::fence();
}

void fill_initial(Field& u, const InitialCondition& ic) {
  fill_zero(u);
  double* p = u.data();
  const Field f = u;
  const Index3 off{u.owned().lo[0] - u.halo(), u.owned().lo[1] - u.halo(),
                   u.owned().lo[2] - u.halo()};
  const int h = u.halo(), nx = u.n()[0];
  for_each_line_as_swept(
      "miniapp::init::field", u, u.interior(), KOKKOS_LAMBDA(int j, int k) {
        for (int i = h; i < h + nx; ++i)
          p[f.index(i, j, k)] = ic(i + off[0], j + off[1], k + off[2]);
      });
  Kokkos::fence();
}

}  // namespace miniapp
