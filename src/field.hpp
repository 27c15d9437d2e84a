// Field: one rank's block of the global field with h ghost layers on every side.
//
// Storage is a contiguous Kokkos View of (nx+2h)*(ny+2h)*(nz+2h) doubles, x fastest:
//   local padded cell (i, j, k) is at  i + ex*(j + ey*k),  ex = nx+2h, ey = ny+2h,
// and the owned (interior) cells are [h, h+n) in every dimension. Local padded index i holds
// global cell x = owned.lo[0] + i - h (likewise y, z).
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

#include "box.hpp"

namespace miniapp {

using Memory = Kokkos::DefaultExecutionSpace::memory_space;
using Exec = Kokkos::DefaultExecutionSpace;

class Field {
 public:
  Field() = default;
  /// Allocate (uninitialised: first touch happens in the kernels that fill it) a field for the
  /// global box `owned` with `halo` ghost layers. Not collective.
  Field(const std::string& label, const Box& owned, int halo)
      : owned_(owned), h_(halo), n_(owned.extents()) {
    for (int d = 0; d < 3; ++d) ext_[d] = n_[d] + 2 * h_;
    data_ = Kokkos::View<double*, Memory>(Kokkos::view_alloc(Kokkos::WithoutInitializing, label),
                                          std::size_t(ext_[0]) * ext_[1] * ext_[2]);
  }

  /// A field of this shape without storage, for plans that need only its extents. Not
  /// collective.
  static Field shape_only(const Box& owned, int halo) {
    Field f;
    f.owned_ = owned;
    f.h_ = halo;
    f.n_ = owned.extents();
    for (int d = 0; d < 3; ++d) f.ext_[d] = f.n_[d] + 2 * halo;
    return f;
  }

  /// Linear offset of padded local cell (i, j, k).
  KOKKOS_INLINE_FUNCTION std::int64_t index(int i, int j, int k) const {
    return i + std::int64_t(ext_[0]) * (j + std::int64_t(ext_[1]) * k);
  }
  double* data() const { return data_.data(); }
  const Kokkos::View<double*, Memory>& view() const { return data_; }
  /// Interior extents nx, ny, nz.
  const Index3& n() const { return n_; }
  /// Padded extents n + 2h.
  const Index3& ext() const { return ext_; }
  int halo() const { return h_; }
  /// Global box of the owned cells.
  const Box& owned() const { return owned_; }
  /// Local (padded) box of the owned cells: [h, h+n).
  Box interior() const { return {{h_, h_, h_}, {h_ + n_[0], h_ + n_[1], h_ + n_[2]}}; }
  /// Local box of all cells, ghosts included: [0, n+2h).
  Box padded() const { return {{0, 0, 0}, ext_}; }
  /// Global coordinates of local padded cell index along dimension d.
  int global_coord(int d, int local) const { return owned_.lo[d] + local - h_; }

 private:
  Box owned_;
  int h_ = 0;
  Index3 n_{}, ext_{};
  Kokkos::View<double*, Memory> data_;
};

}  // namespace miniapp
