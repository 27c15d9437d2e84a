// Simulation: the objects of one run (decomposition, two fields, halo plan) and the time loop.
//
//   for each round of k = min(H, steps left) steps (H = --halo-width):
//     halo.exchange(u)                       (--overlap: start; inner cells; finish; shell)
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
// --temporal-blocking runs the k sub-steps of a round tile by tile instead (each tile all k
// sub-steps in cache, temporal_blocking.hpp), bit-identical, one swap per round.
//
// The loop reads as the scheme; everything it needs was planned and allocated beforehand.
#pragma once

#include <mpi.h>

#include <functional>
#include <memory>
#include <vector>

#include "config.hpp"
#include "decomposition.hpp"
#include "diagnostics.hpp"
#include "field.hpp"
#include "halo_exchange.hpp"
#include "initial_condition.hpp"
#include "stop_signal.hpp"
#include "temporal_blocking.hpp"

namespace miniapp {

/// Seconds spent per phase of the time loop on this rank.
struct PhaseTimes {
  double stencil = 0;          ///< stencil kernels (with fence)
  double halo = 0;             ///< whole halo exchanges (pack + wait + unpack + boundary)
  double loop = 0;             ///< the whole timed loop
  double refill = 0;           ///< deep halos: physical-boundary refills between sub-steps
  double hidden = 0;           ///< --overlap: communication time hidden behind interior updates
  std::int64_t redundant = 0;  ///< redundant cell updates (deep halos), summed over steps
};

class Simulation {
 public:
  /// Build the decomposition, allocate and initialise the fields, plan the halo exchange.
  /// Collective over comm. The rank grid is chosen when config.ranks has zeros.
  Simulation(const Config& config, MPI_Comm comm);

  /// Advance `steps` time steps. With a stop vote, poll it after every round (one step, or H
  /// with deep halos) and return early when it says stop. Returns the steps done. Collective.
  std::int64_t run(std::int64_t steps, StopVote* stop = nullptr);

  /// Digest, sum and norms of the current field. Collective.
  FieldSummary summary() const;

  const Config& config() const { return config_; }
  const Decomposition& decomposition() const { return *decomp_; }
  const Field& field() const { return u_; }
  Field& field() { return u_; }
  const HaloExchange& halo() const { return *halo_; }
  const PhaseTimes& times() const { return times_; }
  std::int64_t steps_done() const { return steps_done_; }
  /// The temporal-blocking plan (--temporal-blocking), else null.
  const TemporalBlocking* temporal_blocking() const { return blocking_.get(); }
  /// Continue a restored field: it holds step `step` (read from a checkpoint). Not collective.
  void start_at(std::int64_t step) { first_step_ = step; }
  /// The step the field holds, counted from the initial condition (step 0).
  std::int64_t step() const { return first_step_ + steps_done_; }
  /// Reset timers and halo counters (after a warm-up).
  void reset_timers();

 private:
  Config config_;
  std::unique_ptr<Decomposition> decomp_;
  Field u_, v_;
  /// Cells updated by sub-step s of a round (see the header comment).
  Box update_region(int s) const;
  /// One sub-step 0 of a round: exchange, then update region(0) (overlapped if asked).
  void exchange_and_update(const Box& region);
  void update(const Box& region);
  /// Start the exchange of u, run inner(0 .. items-1) (work that reads no ghost) with an
  /// MPI_Testall after each, finish the exchange, run rest(). Fences; times every part.
  void overlapped_exchange(int items, const std::function<void(int)>& inner,
                           const std::function<void()>& rest);
  /// One temporally blocked round of k sub-steps: exchange (overlapped with the tiles that read
  /// no ghost if --overlap), then all tiles; v receives the result.
  void blocked_round(int k);

  std::unique_ptr<HaloExchange> halo_;
  std::vector<BoundaryFill> refill_;  ///< physical-boundary fills between sub-steps
  std::unique_ptr<TemporalBlocking> blocking_;  ///< --temporal-blocking, else null
  Neighborhood neighborhood_;
  Coefficients a_;
  PhaseTimes times_;
  std::int64_t steps_done_ = 0;
  std::int64_t first_step_ = 0;  ///< step of the field at construction (restart)
};

/// The rank grid a run on nranks would use: config.ranks with zeros chosen to minimise the
/// halo surface. Throws ConfigError when nothing fits. Not collective.
Index3 resolve_rank_grid(const Config& config, int nranks);

}  // namespace miniapp
