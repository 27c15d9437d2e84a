// Field: one rank's block of the global field with h ghost layers on every side.
//
// Storage is a contiguous Kokkos View, x fastest, rows padded to whole 64-byte lines:
//   local padded cell (i, j, k) is at  i + sy*(j + ey*k),  ey = ny+2h,  sy = nx+2h rounded up
//   to a multiple of 8 doubles (the row pitch),
// and the owned (interior) cells are [h, h+n) in every dimension. Local padded index i holds
// global cell x = owned.lo[0] + i - h (likewise y, z). The view starts a few doubles into its
// allocation so that every row's first owned cell (h, j, k) sits on a 64-byte line: a sweep's
// streaming stores then write whole lines of every row, where with rows of nx+2h doubles each
// row began and ended in a line shared with its neighbour, written by ordinary stores (which
// read the line first) beside the streaming ones; measured, that left streaming stores no
// faster than ordinary ones in the sweep. The row padding (x in [nx+2h, sy)) is never read
// into a result; fill_zero zeroes it.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <utility>

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
    set_extents();
    const std::size_t count = std::size_t(pitch_) * ext_[1] * ext_[2];
    const Kokkos::View<double*, Memory> all(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, label), count + kLineDoubles - 1);
    // Doubles to skip so that cell (h, 0, 0), and with it every row's, starts a 64-byte line.
    const auto address = reinterpret_cast<std::uintptr_t>(all.data()) + sizeof(double) * h_;
    const std::size_t skip = (kLineBytes - address % kLineBytes) % kLineBytes / sizeof(double);
    data_ = Kokkos::subview(all, std::make_pair(skip, skip + count));
  }

  /// A field of this shape without storage, for plans that need only its extents. Not
  /// collective.
  static Field shape_only(const Box& owned, int halo) {
    Field f;
    f.owned_ = owned;
    f.h_ = halo;
    f.n_ = owned.extents();
    f.set_extents();
    return f;
  }

  /// Linear offset of padded local cell (i, j, k) from data().
  KOKKOS_INLINE_FUNCTION std::int64_t index(int i, int j, int k) const {
    return i + std::int64_t(pitch_) * (j + std::int64_t(ext_[1]) * k);
  }
  /// Distance in doubles from a cell to its neighbour along y (the row pitch) and along z.
  KOKKOS_INLINE_FUNCTION std::int64_t stride_y() const { return pitch_; }
  KOKKOS_INLINE_FUNCTION std::int64_t stride_z() const {
    return std::int64_t(pitch_) * ext_[1];
  }
  /// Cell (0, 0, 0); the storage holds view().size() doubles from here.
  double* data() const { return data_.data(); }
  const Kokkos::View<double*, Memory>& view() const { return data_; }
  /// Extents of the storage as a 3D array, x fastest: the row pitch, then the padded y and z
  /// extents. What an MPI subarray or an HDF5 memory dataspace over data() describes.
  Index3 storage_ext() const { return {pitch_, ext_[1], ext_[2]}; }
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
  static constexpr int kLineBytes = 64;
  static constexpr int kLineDoubles = kLineBytes / int(sizeof(double));

  void set_extents() {
    for (int d = 0; d < 3; ++d) ext_[d] = n_[d] + 2 * h_;
    pitch_ = (ext_[0] + kLineDoubles - 1) / kLineDoubles * kLineDoubles;
  }

  Box owned_;
  int h_ = 0;
  Index3 n_{}, ext_{};
  int pitch_ = 0;
  Kokkos::View<double*, Memory> data_;
};

}  // namespace miniapp
