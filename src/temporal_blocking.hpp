// Temporal blocking: the k <= H sub-steps of one deep-halo round fused over cache-sized tiles.
//
// After a halo exchange of width H no communication is needed for H sub-steps, but the plain
// loop (simulation.hpp) sweeps the whole block once per sub-step, so every cell comes from main
// memory k times per round. Here the owned cells are cut into tiles T, and each tile runs all
// k sub-steps back to back in two per-thread scratch buffers that stay in cache
// ("overlapped tiling"):
//
//   sub-step s = 0 .. k-1 updates  R_s = grow(T, k-1-s) ∩ region(s)
//     s = 0      reads the exchanged field u            writes scratch A
//     0 < s      reads the scratch of sub-step s-1      writes the other scratch
//     s = k-1    (R = T)                                writes the owned cells of v
//   between sub-steps the physical-boundary refills run on the scratch, restricted to the
//   cells the next sub-step reads, in the same order and with the same spans as the plain loop.
//
// grow(T, k-1-s) is the dependency cone of T: sub-step s must be known on T grown by the
// stencil reach (1) once per remaining sub-step. region(s) is the plain loop's update region,
// so a tile never reads a ghost the exchange did not make valid. Every value a tile computes
// is the value the plain loop computes for the same cell and sub-step (same expression, same
// inputs), so the owned cells of v are bit-identical to the plain run. The price is
// redundant work: neighbouring tiles recompute the overlap of their cones (counted exactly).
//
// Each cell of u is read from memory about once per round and each cell of v written once,
// instead of k times each: with H = 4..8 the sweep can beat the single-sweep memory bound.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <vector>

#include "boundary.hpp"
#include "box.hpp"
#include "field.hpp"
#include "halo_plan.hpp"
#include "numerics.hpp"

namespace miniapp {

/// Default scratch budget per thread for the automatic tile size at rounds of up to 4
/// sub-steps, growing in proportion beyond: two buffers of the tile grown by the round length
/// must fit in it (L2 plus a core's share of L3 on current CPUs; `miniapp bench temporal`
/// measured about 3 MiB fastest at H = 2..4 and 5 MiB at H = 8 on a 2-core EPYC VM).
constexpr std::int64_t kTemporalBlockingBudget = std::int64_t(7) * 512 * 1024;  // 3.5 MiB

/// The scratch budget per thread for rounds of up to h sub-steps.
constexpr std::int64_t temporal_blocking_budget(int h) {
  return h <= 4 ? kTemporalBlockingBudget : kTemporalBlockingBudget * h / 4;
}

/// The automatic tile (owned cells per tile along x, y, z) for a block of n owned cells, rounds
/// of up to h sub-steps: among the tiles whose two scratch buffers fit in `budget` bytes, the
/// one with the least work per owned cell, counting the redundant updates of its cone and a
/// fixed cost of 8 cell updates per x-line (loop start and remainder), so x stays long. Pure.
Index3 auto_tile(const Index3& n, int h, bool two_d, std::int64_t budget);
inline Index3 auto_tile(const Index3& n, int h, bool two_d) {
  return auto_tile(n, h, two_d, temporal_blocking_budget(h));
}

/// What a temporally blocked round needs to know about the physical boundaries.
struct BoundaryRule {
  std::vector<BoundaryFill> fills;  ///< plan_refill order and spans
  std::array<Boundary, 3> kind{};
  double value = 0;  ///< dirichlet ghost value
};

class TemporalBlocking {
 public:
  /// Plan the tiles of field u (owned cells cut into tiles of `tile` cells, 0 = automatic) for
  /// rounds of up to `regions.size()` sub-steps; regions[s] is the plain loop's update region of
  /// sub-step s. Allocates the per-thread scratch buffers. Not collective.
  TemporalBlocking(const Field& u, const Index3& tile, std::vector<Box> regions,
                   BoundaryRule boundary, int points, const Coefficients& a, bool two_d);

  /// Run k sub-steps (1 <= k <= H) of the tiles [first, last) of tiles(): u holds the field
  /// after the exchange, v receives the owned cells of those tiles after k sub-steps.
  /// Launches a kernel and fences.
  void run(const Field& u, Field& v, int k, int first, int last) const;
  /// Run k sub-steps of every tile.
  void run(const Field& u, Field& v, int k) const { run(u, v, k, 0, int(tiles_.size())); }

  /// The tiles, those that read no ghost cell in a round of H sub-steps first (they can run
  /// while the exchange is in flight).
  const std::vector<Box>& tiles() const { return tiles_; }
  /// Number of leading tiles of tiles() that read no ghost cell.
  int inner_tiles() const { return inner_; }
  /// Owned cells per tile (before clipping at the block's edge).
  const Index3& tile() const { return tile_; }
  /// Cell updates of a round of k sub-steps beyond the k * (owned cells) the plain scheme needs
  /// on one domain: overlap of the tiles' cones plus the deep-halo ghost updates.
  std::int64_t redundant(int k) const { return redundant_[k - 1]; }
  /// Scratch bytes per thread.
  std::int64_t scratch_bytes() const { return 2 * capacity_ * std::int64_t(sizeof(double)); }

 private:
  /// Scratch box of tile T for a round of k sub-steps: T grown by k (not along z in 2D),
  /// clipped to the padded block.
  Box scratch_box(const Box& T, int k) const;
  /// R_s of the header comment.
  Box update_box(const Box& T, int k, int s) const;

  Box padded_;
  Index3 tile_{};
  std::vector<Box> regions_;
  BoundaryRule boundary_;
  int points_ = 7;
  Coefficients a_;
  bool two_d_ = false;
  int h_ = 1;
  Index3 n_{};
  std::vector<Box> tiles_;
  int inner_ = 0;
  std::vector<std::int64_t> redundant_;
  std::int64_t capacity_ = 0;  ///< doubles per scratch buffer
  Kokkos::View<double*, Memory> scratch_;
};

}  // namespace miniapp
