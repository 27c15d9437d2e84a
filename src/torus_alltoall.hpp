// Dimension-wise zero-copy all-to-all on a d-dimensional Cartesian torus (after J. L. Träff,
// "Effective MPI: User-defined Datatypes and Cartesian Communicators for Zero-copy All-to-all
// Communication in Multidimensional Tori", 2026). Same arguments and bit-for-bit the same
// result as MPI_Alltoall on the Cartesian communicator.
//
// Scheme. p = p_0·p_1·…·p_{d-1} ranks, row-major (the last coordinate varies fastest). The p
// blocks of a buffer form an array B[x_0]…[x_{d-1}] of blocks (a block = `count` elements of
// the caller's type). In the send buffer x is the destination's coordinates. Phase k
// (k = 0 … d-1) is one all-to-all on the sub-communicator along dimension k:
//
//     slab x_k = t  ──►  the neighbour whose k-th coordinate is t,
//     what arrives from the neighbour with k-th coordinate s  ──►  slab x_k = s.
//
// After phase k axes 0…k name the source and axes k+1… the destination; after phase d-1 the
// array is R[y_0]…[y_{d-1}] indexed by the source: MPI_Alltoall's result. With
// outer = ∏_{i<k} p_i and inner = ∏_{i>k} p_i, slab t is
//
//     MPI_Type_vector(outer, inner, p_k·inner, block) resized to an extent of `inner` blocks,
//
// so element t of the phase's all-to-all starts at slab t on both sides: the datatypes do all
// the reordering and no local copy loop exists (zero-copy). Rounds: Σ_k (p_k−1) instead of
// p−1; volume: each phase moves (p_k−1)/p_k of the buffer, Σ_k (p_k−1)/p_k in all, instead of
// (p−1)/p (the bandwidth floor of the method: 1.33× native on 2×2, 1.6× on 4×4). Within one
// shared-memory node each phase also copies its own slab (x_k = own coordinate) locally, so
// there every byte is copied d times where native copies it once.
//
// Buffers and memory. Phase outputs alternate so that the last phase writes recvbuf:
//
//     d = 1: send ─► recv        d = 2: send ─► T ─► recv        d = 3: send ─► recv ─► T ─► recv
//
// Each block is split into C pieces (⌊count/C⌋ or ⌈count/C⌉ elements, C = `pieces`) and the d
// phases run piece by piece, so the temporary T holds one piece of every block:
//
//     T = p · ⌈count/C⌉ · extent(type) bytes   (C = 1: as large as recvbuf; d = 1: none),
//
// allocated and first-touched once by the plan, not per call. With `pipelined` the pieces run
// as a wavefront of nonblocking all-to-alls (phase k of piece c overlaps phase k+1 of piece
// c−1, …), which needs min(C, d) such temporaries. The plan's derived datatypes: 2·d per
// distinct piece length (at most 4·d).
//
// Large blocks (C = 1). Slab t is `outer` contiguous runs of `inner` blocks. MPI libraries
// move contiguous buffers by a single copy (Open MPI: CMA/XPMEM) but pack non-contiguous
// ones through bounce buffers (two copies), so when a run is at least `split_bytes` long,
// phase k is issued instead as `outer` all-to-alls on contiguous sub-arrays (run o holds
// x_0…x_{k-1} = o): plain `count·inner` elements of the caller's type, started together as
// nonblocking collectives. Same data, same volume, outer·(p_k−1) messages instead of p_k−1;
// still no local copy.
//
// Open MPI 4.1.4's modified-Bruck alltoall (chosen by default for small blocks on ≥ 16 ranks)
// corrupts data when the send and receive datatypes differ (fixed in 4.1.5, ompi PR #10488).
// Every MPI_Alltoall issued here therefore gets the very same datatype on both sides. Phases
// that move data between the layout of the caller's buffers and the compact layout of T
// (only when C > 1) have different send and receive types by nature; they use MPI_Alltoallv,
// which no Open MPI 4.1 algorithm routes through Bruck.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <map>
#include <memory>
#include <vector>

#include "mpi_utils.hpp"

namespace miniapp {

/// A planned torus all-to-all of `count` elements of `type` per destination on a Cartesian
/// communicator: datatypes and the temporary are built once, executed many times.
class TorusAlltoall {
 public:
  /// Plan for `cart` (must have a Cartesian topology; its per-dimension sub-communicators are
  /// created once and cached on it, see cart_subcomms.hpp). Throws std::invalid_argument for
  /// a communicator without Cartesian topology, count < 0, pieces < 1 or a type of extent <= 0,
  /// and std::overflow_error when a buffer's extent p·count·extent(type) overflows MPI_Aint.
  /// Collective over cart on its first use of the communicator (the split), local otherwise.
  /// `split_bytes` <= 0 never splits a phase into contiguous runs (see the header comment).
  TorusAlltoall(MPI_Comm cart, int count, MPI_Datatype type, int pieces = 1, bool pipelined = false,
                long split_bytes = kDefaultSplitBytes);
  static constexpr long kDefaultSplitBytes = 32768;
  ~TorusAlltoall();
  TorusAlltoall(const TorusAlltoall&) = delete;
  TorusAlltoall& operator=(const TorusAlltoall&) = delete;

  /// recvbuf = MPI_Alltoall(sendbuf, count, type, ·, count, type, cart), bit for bit. The
  /// buffers must not overlap (no MPI_IN_PLACE). Collective over cart; blocks until done.
  void operator()(const void* sendbuf, void* recvbuf);

  /// Ranks per dimension (p_0, …, p_{d-1}).
  const std::vector<int>& dims() const { return dims_; }
  /// Number of pieces C each block is split into.
  int pieces() const { return pieces_; }
  /// Bytes of temporary buffer this plan holds (see the header comment).
  std::size_t temp_bytes() const { return temp_.size(); }
  /// Communication rounds of one call: Σ_k (p_k − 1) (per piece).
  int rounds() const;

 private:
  struct Slabs;  // the datatypes of one piece length
  enum class Layout { Full, Temp };
  const Slabs& slabs(int m);
  MPI_Datatype slab(int k, int m, Layout layout);

  std::vector<MPI_Comm> comms_;  // owned by the cart_subcomms cache
  std::vector<int> dims_;
  int count_ = 0, pieces_ = 1;
  bool pipelined_ = false;
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  MPI_Aint lb_ = 0, extent_ = 0, true_lb_ = 0;
  std::map<int, std::unique_ptr<Slabs>> slabs_;  // keyed by piece length m
  std::vector<std::byte> temp_;
  std::size_t temp_slot_bytes_ = 0;
  std::vector<int> ones_, displs_;  // MPI_Alltoallv arguments: 1 element at slab t
  std::vector<int> outer_, inner_;  // ∏_{i<k} p_i and ∏_{i>k} p_i
  std::vector<char> split_;         // phase k runs as `outer` contiguous all-to-alls
};

/// MPI_Alltoall on a Cartesian communicator by the dimension-wise zero-copy algorithm, with
/// each block split into `pieces` pieces. The plan for (cart, count, type, pieces) is built
/// on first use and cached on `cart` (freed with it), so repeated calls build nothing. The
/// send and receive count and type must be the same (throws std::invalid_argument
/// otherwise). Collective over cart.
void torus_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm cart, int pieces = 1);

/// The cached plan torus_alltoall() uses for (cart, count, type, pieces, pipelined), built on
/// first use. A derived `type` is identified by a serial number cached on it as an attribute,
/// so a freed and re-created type never hits a stale plan. Collective on first use.
TorusAlltoall& cached_torus_alltoall(MPI_Comm cart, int count, MPI_Datatype type, int pieces = 1,
                                     bool pipelined = false);

/// Number of plans cached_torus_alltoall() has built so far in this process (tests use it to
/// assert that repeated calls reuse the cache).
long torus_alltoall_plans_created();

}  // namespace miniapp
