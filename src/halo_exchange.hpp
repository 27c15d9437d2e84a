// Halo exchange, dimension-ordered: a plan built once from the decomposition and the field
// shape, executed every time the ghosts must be refreshed.
//
// Phase d (x, then y, then z) exchanges the h-thick faces normal to d with the two
// neighbours along d. The face spans dimensions < d in full (ghosts included) and dimensions
// > d over the interior only:
//
//   phase x: x faces over interior y, z
//   phase y: y faces over the full x width (x ghosts included), interior z
//   phase z: z faces over the full x and y extent
//
// so edge and corner ghosts "ride along": they arrive in a later phase from the neighbour that
// received them in an earlier one, with no diagonal messages. At a non-periodic edge the same
// span is filled from the physical boundary condition instead (see boundary.hpp), so a field
// after exchange() is exactly what a single domain filled dimension by dimension would hold.
//
// Per phase: post both receives, pack both faces (Kokkos kernels into buffers allocated once),
// fence, send, wait, unpack. A rank that is its own neighbour (periodic, 1 rank along d) copies
// locally; as in the seed, such self-copies count as messages and bytes.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>

#include "config.hpp"
#include "decomposition.hpp"
#include "field.hpp"

namespace miniapp {

/// Accumulated cost of halo exchanges on this rank.
struct HaloCounters {
  std::int64_t exchanges = 0;  ///< exchange() calls
  std::int64_t messages = 0;   ///< face messages sent (self-copies included)
  std::int64_t bytes = 0;      ///< bytes sent (self-copies included)
  double pack = 0;             ///< seconds packing (kernel + fence)
  double wait = 0;             ///< seconds in MPI_Waitall
  double unpack = 0;           ///< seconds unpacking (kernel + fence)
  double boundary = 0;         ///< seconds filling physical boundaries (kernel + fence)
};

class HaloExchange {
 public:
  /// Plan the exchange for fields shaped like `shape`. Not collective.
  HaloExchange(const Decomposition& decomp, const Field& shape, const std::array<Boundary, 3>& bc,
               double bc_value);

  /// Fill every ghost cell of u (neighbours' data or physical boundary). Collective over the
  /// decomposition's communicator; fences before returning.
  void exchange(Field& u);

  const HaloCounters& counters() const { return counters_; }
  void reset_counters() { counters_ = {}; }
  /// Messages and bytes this rank sends per exchange (self-copies included).
  std::int64_t messages_per_exchange() const { return messages_per_exchange_; }
  std::int64_t bytes_per_exchange() const { return bytes_per_exchange_; }

 private:
  struct Face {
    int peer = MPI_PROC_NULL;  ///< neighbour rank, or MPI_PROC_NULL at a physical boundary
    Box send, recv;            ///< local boxes: owned cells sent, ghost cells received
    Kokkos::View<double*, Memory> send_buf, recv_buf;
  };
  struct Phase {
    Box span;                  ///< face span in the other dimensions
    std::array<Face, 2> face;  ///< 0 = low side, 1 = high side
  };

  MPI_Comm comm_;
  int rank_;
  std::array<Boundary, 3> bc_;
  double bc_value_;
  std::array<Phase, 3> phases_;
  HaloCounters counters_;
  std::int64_t messages_per_exchange_ = 0, bytes_per_exchange_ = 0;
};

}  // namespace miniapp
