// The run report: per-phase timings as min/avg/max over ranks, halo traffic, throughput, the
// field digest, the checks and verdict, provenance and placement. Built in one place
// (make_report) from what each part of the run returned, printed as text by rank 0 and
// written as JSON (layout: scripts/report.schema.json, version kReportSchemaVersion).
#pragma once

#include <mpi.h>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "affinity.hpp"
#include "build_info.hpp"
#include "calibration.hpp"
#include "checkpoint_writer.hpp"
#include "diagnostics.hpp"
#include "driver.hpp"
#include "mpi_utils.hpp"
#include "options.hpp"
#include "preflight.hpp"
#include "time_stepper.hpp"
#include "verdict.hpp"

namespace miniapp {

/// The exact-solution check of --verify.
struct Verification {
  bool requested = false;
  bool passed = false;
  double max_error = 0;
  double tolerance = 0;
};

/// What a run returned, piece by piece: the raw material of its report.
struct RunPieces {
  const Config& config;  ///< as run (a restart's settings merged in)
  const TimeStepper& stepper;
  const LoopOutcome& loop;
  const FieldSummary& summary;  ///< of the final field
  const Verification& verification;
  const std::optional<SpectralCheckResult>& spectral_check;  ///< with --spectral-check
  const Validation& validation;
  const CheckpointStats& checkpoints;
  const std::string& restart_path;  ///< "" for a fresh start
  const MemoryEstimate& memory;
  const std::vector<RankBinding>& bindings;  ///< rank 0 only
  const std::vector<std::string>& binding_warnings;
  const std::optional<Roofline>& roofline;  ///< with --roofline
};

/// How the sweeps from memory chose their stores (StoreChoice), over the ranks.
struct StoresSummary {
  StorePolicy policy = StorePolicy::Adaptive;
  bool from_memory = false;            ///< the fields are larger than the ranks' cache share
  double streaming = 0, ordinary = 0;  ///< rounds per rank with each kind (average)
  int ranks_ending_ordinary = 0;       ///< ranks whose favourite was ordinary at the end
  double switches = 0;                 ///< times a rank's favourite changed (average)
  /// The rounds counted are blocked ones: the stores of each round's last sub-step.
  bool blocked = false;
  /// The kind the choice started from (the faster in --halo-width auto's calibration), Auto
  /// where its first rounds took both kinds in turn.
  SweepStores first = SweepStores::Auto;
  /// Rounds per rank that chose.
  double rounds() const { return streaming + ordinary; }
};

struct RunReport {
  Config config;
  Index3 dims{};
  bool dims_chosen = false;
  int nranks = 1;
  int threads = 1;
  /// This launch covered steps first_step..last_step of the run's 0..config.steps.
  std::int64_t first_step = 0, last_step = 0;
  Stat loop, stencil, halo, pack, wait, unpack, boundary;  ///< seconds over the timed steps
  Stat messages_per_step, bytes_per_step;                  ///< per rank and step
  /// Of bytes_per_step, the x faces the sweep stored (x periodic over one rank): never moved.
  Stat swept_bytes_per_step;
  /// Of bytes_per_step, the messages MPI sent from the field and received into it with no
  /// buffer (whole padded planes): never packed or unpacked.
  Stat in_place_bytes_per_step;
  Stat redundant_per_step;             ///< redundant cell updates (deep halos)
  Stat stencil_per_cell;               ///< stencil seconds per owned cell, over ranks
  Stat hidden, refill, start;          ///< seconds: comm hidden by --overlap, refills, posting
  double cell_updates_per_second = 0;  ///< global cells * steps / max loop time
  FieldSummary summary;
  Verification verification;
  std::optional<SpectralCheckResult> spectral_check;
  BuildInfo build;
  FigureOfMerit fom;  ///< timed steps only (the first config.warmup are not)
  std::vector<RankBinding> bindings;
  std::vector<std::string> binding_warnings;
  Validation validation;
  CheckpointStats checkpoints;
  std::string restart_path;  ///< "" for a fresh start
  Interruption interruption;
  MemoryEstimate memory_estimate;
  Stat peak_rss;                     ///< bytes, over ranks, when the report was made
  std::optional<Roofline> roofline;  ///< with --roofline, measured before the run
  /// With --roofline, measured again after a run that was not stopped, the fields freed.
  std::optional<Roofline> roofline_after;
  /// With --roofline and temporal blocking: cell updates/s per rank (the slowest rank's) of
  /// the line kernels the blocked rounds run, on a block that stays in cache (from
  /// --halo-width auto's calibration, else measured before the run); 0 otherwise.
  double blocked_cache_rate = 0;
  StoresSummary stores;

  /// Steps this launch ran.
  std::int64_t launch_steps() const { return last_step - first_step; }
  /// Whether this launch alone ran the whole run, from step 0 to --steps.
  bool whole_run() const { return first_step == 0 && last_step == config.steps; }
  /// The slowest rank's stencil time per owned cell over the fastest's (1 with no time): the
  /// ranks do equal work per cell, so beyond 1 + kImbalanceNoted some rank computed slower.
  double imbalance() const {
    return stencil_per_cell.min > 0 ? stencil_per_cell.max / stencil_per_cell.min : 1.0;
  }
  /// Redundant cell updates per owned one (deep halos; the ranks' average).
  double redundant_fraction() const;
  /// The other ceiling of a blocked run, beside the copy bound: blocked_cache_rate on every
  /// rank over the redundant work, blocked_cache_rate * nranks / (1 + redundant_fraction()), in
  /// cell updates/s. A round also moves memory, so it runs below this; where the target lies
  /// above it, no tile of this code reaches it on this machine at this moment (the rate is timed
  /// in the order of the rounds' later levels). 0 without the rate.
  double cache_ceiling() const;
  /// Where a blocked run with --roofline stands between that ceiling and the bound measured
  /// before it (temporal_blocking.hpp): the fraction of the bound its rounds reach hiding none of
  /// their memory traffic (no_overlap_fraction; 0 without the ceiling or the bound), and the time
  /// it spent beyond its arithmetic in units of that traffic at the bound (unhidden_traffic;
  /// absent also without a figure of merit).
  double ceiling_no_overlap() const;
  std::optional<double> ceiling_unhidden() const;
};

/// Ranks whose stencil times per owned cell differ by more than this make the report say so:
/// on equal work, a rank's core ran slower (shared, throttled or busy), and the figure of merit
/// follows the slowest rank. Quiet ranks on one machine differ by a few per cent.
inline constexpr double kImbalanceNoted = 0.10;

/// Version of the JSON report's layout: minor for added fields, major for changed ones.
inline constexpr const char* kReportSchemaVersion = "2.10";

/// The report of a finished (or interrupted) run. Collective over the stepper's communicator.
RunReport make_report(const RunPieces& pieces);

/// Human-readable report (rank 0 prints it). Not collective.
void print_report(std::ostream& os, const RunReport& r);

/// The report as a JSON document. Not collective.
std::string report_json(const RunReport& r);

}  // namespace miniapp
