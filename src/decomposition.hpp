// Decomposition: the global grid NX x NY x NZ split into PX x PY x PZ blocks on an MPI
// Cartesian torus (periodic per dimension as the boundary conditions say). The only code in
// miniapp that calls MPI_Cart_*.
//
// Rank with coordinates (cx, cy, cz) owns the global box
//   [block_range(NX, PX, cx)) x [block_range(NY, PY, cy)) x [block_range(NZ, PZ, cz)),
// remainder cells going to the first ranks of each dimension.
#pragma once

#include <mpi.h>

#include <array>
#include <vector>

#include "box.hpp"
#include "mpi_utils.hpp"

namespace miniapp {

class Decomposition {
 public:
  /// Create the Cartesian communicator over `comm` with rank grid `dims` (all > 0) and the
  /// given periodicity. Collective over comm.
  Decomposition(MPI_Comm comm, const Index3& global, const Index3& dims,
                const std::array<bool, 3>& periodic);

  /// A rank grid that could run a grid, and the halo surface it costs.
  struct Candidate {
    Index3 dims;
    double surface;  ///< sum of the three face areas of the biggest block
  };

  /// Every rank grid for nranks that respects the non-zero entries of `fixed` and leaves at
  /// least `min_cells` cells per rank in every dimension, ordered by px, then py. Pure.
  static std::vector<Candidate> candidates(int nranks, const Index3& global, const Index3& fixed,
                                           int min_cells);

  /// Choose a rank grid for nranks: the candidate with the smallest halo surface of the
  /// biggest block (the first one on ties). Returns {0,0,0} when no factorisation fits. Pure.
  static Index3 choose_dims(int nranks, const Index3& global, const Index3& fixed, int min_cells);

  MPI_Comm comm() const { return cart_.get(); }
  int rank() const { return rank_; }
  int size() const { return size_; }
  const Index3& dims() const { return dims_; }
  const Index3& coords() const { return coords_; }
  const Index3& global() const { return global_; }
  bool periodic(int d) const { return periodic_[d]; }
  /// Global box of the cells this rank owns.
  const Box& owned() const { return owned_; }
  /// Global box owned by the rank at Cartesian coordinates c.
  Box owned_by(const Index3& c) const;
  /// Rank of the neighbour at offset off (each in {-1,0,1}), or MPI_PROC_NULL beyond a
  /// non-periodic edge. May be this rank itself on a periodic dimension with 1 rank.
  int neighbor(const Index3& off) const;
  /// Global box of the whole grid.
  Box global_box() const { return {{0, 0, 0}, global_}; }

 private:
  CommHandle cart_;
  int rank_ = 0, size_ = 1;
  Index3 global_{}, dims_{}, coords_{};
  std::array<bool, 3> periodic_{};
  Box owned_;
};

}  // namespace miniapp
