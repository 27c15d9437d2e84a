// Kokkos loops over boxes of a Field. A box is walked as lines along x (the contiguous
// dimension): the parallel loop runs over the (j, k) lines, the inner loop over i is left to
// the compiler to vectorise. Every kernel in miniapp that touches a box goes through here,
// so all of them touch memory with the same thread-to-line mapping (first touch matches).
#pragma once

#include <Kokkos_Core.hpp>
#include <string>

#include "box.hpp"
#include "field.hpp"

namespace miniapp {

/// Run f(i, j, k) for every cell of box b (local padded coordinates). Does not fence.
template <class F>
void for_each_cell(const std::string& label, const Box& b, const F& f) {
  if (b.empty()) return;
  const int ny = b.extent(1);
  const std::int64_t lines = std::int64_t(ny) * b.extent(2);
  const Index3 lo = b.lo, hi = b.hi;
  Kokkos::parallel_for(
      label, Kokkos::RangePolicy<Exec>(0, lines), KOKKOS_LAMBDA(const std::int64_t line) {
        const int j = lo[1] + int(line % ny);
        const int k = lo[2] + int(line / ny);
        for (int i = lo[0]; i < hi[0]; ++i) f(i, j, k);
      });
}

/// Copy box b of u into a contiguous buffer, x fastest. Does not fence.
inline void pack_box(const Field& u, const Box& b, double* buf, const std::string& label) {
  const Index3 lo = b.lo;
  const int nx = b.extent(0), ny = b.extent(1);
  const double* src = u.data();
  const Field f = u;
  for_each_cell(label, b, KOKKOS_LAMBDA(int i, int j, int k) {
    buf[(i - lo[0]) + std::int64_t(nx) * ((j - lo[1]) + std::int64_t(ny) * (k - lo[2]))] =
        src[f.index(i, j, k)];
  });
}

/// Copy a contiguous buffer (x fastest) into box b of u. Does not fence.
inline void unpack_box(Field& u, const Box& b, const double* buf, const std::string& label) {
  const Index3 lo = b.lo;
  const int nx = b.extent(0), ny = b.extent(1);
  double* dst = u.data();
  const Field f = u;
  for_each_cell(label, b, KOKKOS_LAMBDA(int i, int j, int k) {
    dst[f.index(i, j, k)] =
        buf[(i - lo[0]) + std::int64_t(nx) * ((j - lo[1]) + std::int64_t(ny) * (k - lo[2]))];
  });
}

}  // namespace miniapp
