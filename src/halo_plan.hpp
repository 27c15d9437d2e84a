// Halo plan: which box of which field goes to which neighbour, in which phase, and which ghost
// boxes are filled from a physical boundary. A pure description (no MPI, no Kokkos kernels):
// built once from the rank's neighbourhood and the field shape, executed many times by a
// HaloExchange (halo_exchange.hpp), and counted by tests without running any ranks.
//
// Directions are offsets o in {-1,0,1}^3 \ {0}, numbered dir(o) = (ox+1) + 3(oy+1) + 9(oz+1),
// so dir(-o) = 26 - dir(o). A message towards o carries my owned cells next to side o,
//   along d:  o_d = -1 -> [h, 2h),   o_d = +1 -> [n, n+h),   o_d = 0 -> see the mode,
// with tag dir(o); the neighbour stores it in its ghost box on side -o and receives it with the
// tag dir(o) too, which is how repeated neighbours (1 or 2 ranks along a periodic dimension,
// a rank being its own neighbour) are told apart.
//
//   dim-ordered    3 phases, phase d sends the two faces normal to d, spanning dimensions < d
//                  in full (ghosts included) and dimensions > d over the interior: edges and
//                  corners ride along in later phases.
//   neighbors26    1 phase, 26 messages (faces, edges, corners), each over the interior in the
//                  dimensions where o_d = 0.
//   neighbor-coll  the neighbors26 plan, executed as one MPI_Neighbor_alltoallw.
//   faces          1 phase, 6 face messages over the interior: no edge or corner ghosts.
//
// Physical boundaries (no neighbour on a side) are filled from the boundary condition after
// the messages of their phase, dimension by dimension, over the same span the single-domain
// fill uses (dimensions already filled in full, later dimensions over the global interior,
// i.e. including ghosts that come from a neighbour). So every mode leaves the ghosts exactly as
// a single domain filled dimension by dimension would, edges and corners included (faces mode:
// face ghosts only).
//
// A 2D problem (NZ = 1) has no z direction at all: no z messages, no z fills, z spans [h, h+1).
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <vector>

#include "box.hpp"
#include "names.hpp"

namespace miniapp {

/// The halo exchange family: how ghost cells travel between ranks (see the header comment).
enum class HaloMode { DimOrdered, Neighbors26, NeighborColl, Faces };
inline constexpr NameTable<HaloMode, 4> kHaloModeNames{{{HaloMode::DimOrdered, "dim-ordered"},
                                                        {HaloMode::Neighbors26, "neighbors26"},
                                                        {HaloMode::NeighborColl, "neighbor-coll"},
                                                        {HaloMode::Faces, "faces"}}};
inline const char* to_string(HaloMode m) { return name_of(kHaloModeNames, m); }

/// Direction number of offset o: (ox+1) + 3(oy+1) + 9(oz+1), 0..26 (13 is the rank itself).
constexpr int direction_of(const Index3& o) { return (o[0] + 1) + 3 * (o[1] + 1) + 9 * (o[2] + 1); }
/// Offset of direction number `dir`.
constexpr Index3 offset_of(int dir) { return {dir % 3 - 1, dir / 3 % 3 - 1, dir / 9 - 1}; }
/// Whether direction `dir` is an x face: an offset along x alone.
constexpr bool is_x_face(int dir) {
  return offset_of(dir)[0] != 0 && offset_of(dir)[1] == 0 && offset_of(dir)[2] == 0;
}

/// The ranks around one rank: rank[dir] for each direction (MPI_PROC_NULL beyond a
/// non-periodic edge; possibly this rank itself or repeated on a periodic dimension).
struct Neighborhood {
  int self = 0;
  std::array<int, 27> rank{};
  /// True when there is no neighbour on `side` (0 low, 1 high) of dimension d.
  bool physical(int d, int side) const {
    Index3 o{0, 0, 0};
    o[d] = side == 0 ? -1 : 1;
    return rank[direction_of(o)] == MPI_PROC_NULL;
  }
};

/// One message of the plan, in direction o: my `send` box goes to `peer` = rank[dir(o)] with tag
/// dir(o); my `recv` ghost box on side o is filled by what that same peer sent towards -o.
struct HaloMessage {
  int phase = 0;
  int dir = 0;               ///< direction o of the send (the receive is on side o too)
  int peer = MPI_PROC_NULL;  ///< rank[dir]: where my send goes and where my receive comes from
  int send_tag = 0;          ///< dir(o)
  int recv_tag = 0;          ///< dir(-o): the neighbour sent it towards me
  Box send, recv;            ///< local padded boxes
};

/// One physical-boundary fill: the ghost layers on `side` of dimension d over `span`.
struct BoundaryFill {
  int phase = 0;
  int d = 0, side = 0;
  Box span;
};

struct HaloPlan {
  HaloMode mode = HaloMode::DimOrdered;
  int phases = 1;
  std::vector<HaloMessage> messages;  ///< real messages only (peer != MPI_PROC_NULL)
  std::vector<BoundaryFill> fills;    ///< in the order they must run
  /// Messages this rank sends per exchange (self-messages included).
  std::int64_t messages_per_exchange() const { return std::int64_t(messages.size()); }
  /// Bytes this rank sends per exchange (self-messages included): in all, or in one phase
  /// (dim-ordered: phase 0 sends the x faces).
  std::int64_t bytes_per_exchange(int phase = -1) const {
    std::int64_t b = 0;
    for (const HaloMessage& m : messages)
      if (phase < 0 || m.phase == phase) b += m.send.count() * std::int64_t(sizeof(double));
    return b;
  }
};

/// Plan the exchange of `mode` for a field with interior extents n and halo h. Pure function.
HaloPlan plan_halo(HaloMode mode, const Neighborhood& nb, const Index3& n, int h, bool two_d);

/// The physical-boundary fills that restore the ghosts beyond physical edges between the
/// sub-steps of a deep-halo round (single-domain order and spans, full ghost depth). Pure.
std::vector<BoundaryFill> plan_refill(const Neighborhood& nb, const Index3& n, int h, bool two_d);

/// The cells sub-step s (0 <= s < h) of a deep-halo round updates, in local padded
/// coordinates: the padded box shrunk by s+1 cells on every side that has a neighbour (each
/// sub-step invalidates one more ghost layer), and the interior on a physical side. It always
/// contains the interior; what lies outside it is redundant work. Pure.
Box update_region(const Neighborhood& nb, const Index3& n, int h, int s, bool two_d);

/// Neighbourhood of rank `self` at coordinates c in a rank grid `dims` with the given
/// periodicity, ranks numbered row-major (as MPI_Cart_create with reorder = 0 does). Pure.
Neighborhood cartesian_neighborhood(const Index3& dims, const Index3& c,
                                    const std::array<bool, 3>& periodic);

}  // namespace miniapp
