// Start-up measurements of the machine a run is on, for the report and for choices the run
// leaves to the machine:
//
//   --roofline         the memory bound: a STREAM copy (ordinary and streaming stores, every
//                      rank at once); a sweep moves 16 B per cell update, so
//                      bound = max(ordinary, streaming) / 16 B   (stream_copy.hpp)
//   --halo-width auto  the halo width H, temporal blocking and tile: blocking_candidates()
//                      (temporal_blocking.hpp), fed with the copy bound, the sweep's rate in
//                      cache and a few measured plain sweeps of the run's block (the faster
//                      store kind, where --sweep-stores adaptive lets the run choose), ranks the
//                      blocked settings; its best H is timed on a block of its own, then
//                      the widths below and above it, walking on towards the faster until
//                      two in a row are no faster; the fastest timed is kept where it beats
//                      the plain sweep, else H = 1 plain; any H gives the same field bit for
//                      bit, so the choice changes the speed only; the rounds timed store their x
//                      ghosts where the run's will (x periodic over one rank), and the run's own
//                      choice of stores starts from the kind that timed faster for the
//                      setting chosen (store_choice.hpp)
//
// Rates are reduced over ranks (slowest rank), so every rank reaches the same choice; rank 0's
// candidates are broadcast all the same, and every rank walks them on the same timings.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "options.hpp"
#include "stream_copy.hpp"
#include "temporal_blocking.hpp"

namespace miniapp {

/// The faster kind of stores for some work from memory, and its time.
struct FasterStores {
  double seconds = 0;  ///< the kind's median, the slowest rank's figure per call
  SweepStores stores = SweepStores::Auto;
};

/// Time run(kind) for each of `kinds` in turn, `warm` untimed calls and `reps` timed ones of
/// each, every call fenced and taken as the slowest rank's time (each starts after a barrier):
/// the kind with the smaller median. Collective.
FasterStores time_faster_stores(const std::vector<SweepStores>& kinds, int warm, int reps,
                                const std::function<void(SweepStores)>& run, MPI_Comm comm);

/// Whether the sweeps of a run of `config` on a rank grid of `dims` will store the x ghosts of
/// their lines (XGhosts::Wrap): where x is periodic over one rank and packed by kernels, as
/// HaloExchange::x_faces_from_sweep finds from the run's plan (a test holds the two together).
/// The calibration times its rounds so, for what those stores cost differs by kind of store (a
/// masked vector update per row when streamed). Pure.
XGhosts run_x_ghosts(const Config& config, const Index3& dims);

/// The memory bound of --roofline: the STREAM copy on every rank at once.
struct Roofline {
  CopyRates copy;             ///< bytes/s of all ranks together (16 B per element)
  int nodes = 1;              ///< shared-memory nodes the ranks ran on
  std::int64_t elements = 0;  ///< doubles copied per rank and copy
  double seconds = 0;         ///< spent measuring, first touch included
  /// The bound in cell updates/s of the whole run (the better copy / 16 B per cell update).
  double bound() const { return copy.cells_per_second(); }
  /// A rate in cell updates/s as a fraction of the bound (0 when there is no bound).
  double fraction(double rate) const { return bound() > 0 ? rate / bound() : 0.0; }
  /// "copy ordinary X GB/s, streaming Y GB/s per node", as the report prints it.
  std::string copies_per_node() const;
};

/// How far the bound moved between two measurements: after / before - 1 (0 when before is 0).
inline double bound_drift(const Roofline& before, const Roofline& after) {
  return before.bound() > 0 ? after.bound() / before.bound() - 1.0 : 0.0;
}

/// A bound that moved by more than this during a run leaves the run's fraction of it uncertain,
/// and the report says so: on a quiet machine the copy repeats within a few per cent.
inline constexpr double kBoundDriftNoted = 0.10;

/// Measure the copy for about `seconds` (plus the arrays' first touch): each rank copies as
/// many doubles as it owns cells, but at least twice the last-level cache in its two arrays (so
/// the copy runs from memory even for a small run) and at most 2^25. Collective.
Roofline measure_roofline(const Config& config, MPI_Comm comm, double seconds = 0.5);

/// Cell updates/s per rank, the slowest rank's, of the line kernels a blocked round runs, in the
/// order of its later levels (in_cache_sweep_rate with InCacheKernels::Rows) on a block that
/// stays in cache: the blocked rounds' arithmetic ceiling, before their redundant work. The
/// full default sample (a few ms): with fewer, one disturbed sample on one rank halved the
/// rate. Collective.
double blocked_rounds_cache_rate(int points, MPI_Comm comm);

/// What --halo-width auto measured and chose.
struct HaloWidthChoice {
  BlockingModelInputs model;  ///< per rank: the block, the copy bound, the in-cache and plain rates
  BlockingChoice choice;      ///< the fastest timed blocked setting, or plain (below)
  /// The blocked widths timed (cell updates/s per rank, the slowest rank's), in the order of
  /// walk_widths(), each with the automatic and the wide tile (the faster stands for the
  /// width); the fastest is chosen where it beats the plain sweep's measured rate.
  std::vector<TimedWidth> timed;
  /// The faster kind of stores in the timing of the setting chosen, where the run chooses its
  /// stores (--sweep-stores adaptive): its StoreChoice starts there. Auto otherwise.
  SweepStores stores = SweepStores::Auto;
  double seconds = 0;  ///< spent calibrating
};

/// Calibrate and choose the halo width, blocking and tile for `config` on the ranks of comm
/// (`roofline`: a copy already measured, else null to measure a short one). Collective; fences.
HaloWidthChoice choose_halo_width(const Config& config, const Roofline* roofline, MPI_Comm comm);

/// config with the choice applied: halo_width, temporal_blocking and tile.
Config with_halo_width(Config config, const BlockingChoice& choice);

}  // namespace miniapp
