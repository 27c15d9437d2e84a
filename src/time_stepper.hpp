// TimeStepper: the objects of one rank's share of a run (decomposition, two fields, halo
// exchange, boundary refills, temporal blocking) and one round of the scheme:
//
//   round of k <= H sub-steps (H = halo width):
//     halo.exchange(u)                       (overlap: start; inner cells; finish; shell)
//     for s = 0 .. k-1:
//       if s > 0: refill physical boundaries  (dirichlet values, neumann mirrors of the new u)
//       v = stencil(u) on region(s);  swap(u, v)
//
// region(s) is the padded box shrunk by s+1 cells on every side that has a neighbour ("eating
// the halo layer by layer": after the exchange H ghost layers are valid, each sub-step
// invalidates one more) and the interior on a physical side (ghosts beyond a physical edge are
// boundary values, never updated). region(s) always contains the interior, so after k <= H
// sub-steps the owned cells are exactly what k single-domain steps give. The cells of region(s)
// outside the interior are redundant updates (computed by two ranks), counted per step.
//
// With temporal blocking the k sub-steps of a round run tile by tile instead (each tile all k
// sub-steps in cache, temporal_blocking.hpp), bit-identical, one swap per round.
//
// Where x is periodic over this rank alone (kernel packing), the sweeps of a round that span
// the interior along x ask to store the x ghosts of each line as they write it (XGhosts::Wrap:
// 7-point lines do, with streaming stores where the rows allow; so does a blocked round's last
// sub-step where its tiles span the block along x); when a round's last sub-step did so for
// every line, the next exchange leaves the x faces alone: one pass over the x faces (h strided
// values at each end of each row) less per round.
//
// The sweeps of a round without blocking all take the stores that the rank's StoreChoice names
// (store_choice.hpp), and the round's stencil time per cell updated goes back to it, with the
// latest copy of the x faces added where the round left them to the next exchange. A blocked
// round's last sub-step takes them too, and its time per owned cell and sub-step goes back, with
// the same addition.
//
// Everything a round needs is planned and allocated in the constructor. The run's loop (when
// to checkpoint, record a spectrum, report progress or stop) belongs to the caller.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "decomposition.hpp"
#include "diagnostics.hpp"
#include "field.hpp"
#include "halo_exchange.hpp"
#include "problem.hpp"
#include "store_choice.hpp"
#include "temporal_blocking.hpp"

namespace miniapp {

/// Seconds spent per phase of the rounds on this rank, and the redundant work.
struct PhaseTimes {
  double stencil = 0;          ///< stencil kernels (with fence)
  double halo = 0;             ///< whole halo exchanges (pack + wait + unpack + boundary)
  double refill = 0;           ///< deep halos: physical-boundary refills between sub-steps
  double hidden = 0;           ///< overlap: communication time hidden behind interior updates
  std::int64_t redundant = 0;  ///< redundant cell updates (deep halos), summed over steps
};

/// Temporal blocking: fuse the sub-steps of a round over cache-sized tiles.
struct BlockingOptions {
  bool enabled = false;
  Index3 tile{0, 0, 0};  ///< owned cells per tile; 0 = automatic
};

/// The rank grid for `nranks` ranks: `fixed` with its zeros chosen to minimise the halo surface,
/// at least `halo_width` cells per rank in every dimension (a 2D problem has one rank along z).
/// {0, 0, 0} when no factorisation fits. Pure.
Index3 choose_rank_grid(const Problem& problem, int nranks, const Index3& fixed, int halo_width);

class TimeStepper {
 public:
  /// Build the decomposition over `comm` with rank grid `dims`, allocate and initialise the
  /// fields, plan the halo exchange and the refills (and the tiles with temporal blocking);
  /// `stores`: how the sweeps from memory choose their stores, and `first_stores` the kind an
  /// adaptive choice starts from (StoreChoice; Auto: both in turn). Collective over comm.
  TimeStepper(const Problem& problem, const HaloOptions& halo, const BlockingOptions& blocking,
              const Index3& dims, MPI_Comm comm, StorePolicy stores = StorePolicy::Adaptive,
              SweepStores first_stores = SweepStores::Auto);

  /// One round of k sub-steps (1 <= k <= halo width): exchange, update, boundaries; the field
  /// then holds k steps more. Collective; fences.
  void advance(int k);
  /// `steps` steps in rounds of the halo width (the last one shorter). Collective; fences.
  void run(std::int64_t steps);

  /// Digest, sum and norms of the current field. Collective.
  FieldSummary summary() const;

  const Problem& problem() const { return problem_; }
  const HaloOptions& halo_options() const { return halo_options_; }
  const Decomposition& decomposition() const { return *decomp_; }
  const Field& field() const { return u_; }
  /// The field, for a caller that may change it (a restart): its next exchange refreshes every
  /// ghost, whatever the last sweep stored.
  Field& field() {
    x_current_ = false;
    return u_;
  }
  const HaloExchange& halo() const { return *halo_; }
  const PhaseTimes& times() const { return times_; }
  /// The temporal-blocking plan, null without temporal blocking.
  const TemporalBlocking* blocking() const { return blocking_.get(); }
  /// How the rounds from memory chose their stores so far: the plain sweeps' stores, or the
  /// stores of a blocked round's last sub-step.
  const StoreChoice& stores() const { return stores_; }
  /// Go on from `choice`, another stepper's of the same fields (stores()), as if its rounds had
  /// been this stepper's: a benchmark that builds a stepper per round times a long run's
  /// choice, not its first rounds' exploration again and again.
  void continue_stores(const StoreChoice& choice) { stores_ = choice; }
  /// Zero the phase timers and the halo counters (after a warm-up).
  void reset_timers();

 private:
  /// Cells updated by sub-step s of a round (see the header comment).
  Box update_region(int s) const;
  /// Sub-step 0 of a round: exchange, then update region(0) (overlapped if asked).
  void exchange_and_update(const Box& region);
  void update(const Box& region);
  /// Refill the ghosts beyond physical edges from the field just computed.
  void refill_boundaries();
  /// Start the exchange of u, run the work items 0 .. items-1 that read no ghost, inner(first,
  /// last) running items [first, last): one at a time with an MPI_Testall after each, all the
  /// rest at once when the exchange has completed. Then finish the exchange, run rest().
  /// Fences; times every part.
  void overlapped_exchange(int items, const std::function<void(int, int)>& inner,
                           const std::function<void()>& rest);
  /// One temporally blocked round of k sub-steps: exchange (overlapped with the tiles that read
  /// no ghost if asked), then all tiles; v receives the result. Returns whether the tiles stored
  /// v's x ghosts (XGhosts::Wrap where the exchange can leave them to the sweep).
  bool blocked_round(int k);
  /// What the blocked rounds do with x ghosts: XGhosts::Wrap where the exchange leaves the x
  /// faces to the sweeps (x periodic over this rank alone).
  XGhosts blocked_x_ghosts() const {
    return halo_->x_faces_from_sweep() ? XGhosts::Wrap : XGhosts::Leave;
  }
  /// Tell the store choice what the round just done cost per cell of `cells`: its sweeps' time
  /// (the stencil timer since `swept`), plus the x faces' copy it left to the next exchange
  /// where it did not store them; `copied` is the halo's x_face_copy counter before the round.
  void record_round(double swept, double copied, double cells);

  Problem problem_;
  HaloOptions halo_options_;
  std::unique_ptr<Decomposition> decomp_;
  Field u_, v_;
  std::unique_ptr<HaloExchange> halo_;
  std::vector<BoundaryFill> refill_;            ///< physical-boundary fills between sub-steps
  std::unique_ptr<TemporalBlocking> blocking_;  ///< null without temporal blocking
  Neighborhood neighborhood_;
  Coefficients a_;
  PhaseTimes times_;
  StoreChoice stores_;
  SweepStores round_stores_ = SweepStores::Auto;  ///< the stores of this round's sweeps
  /// The x ghosts of u's interior lines hold what the exchange would copy there: the last
  /// round's sweeps stored them (XGhosts::Wrap), so its exchange leaves them alone.
  bool x_current_ = false;
  bool x_wrapped_ = true;  ///< every line of the current sub-step stored its x ghosts
  double x_copy_ = 0;      ///< seconds of the latest exchange's copy of the x faces
};

}  // namespace miniapp
