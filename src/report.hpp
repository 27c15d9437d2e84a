// The run report: per-phase timings as min/avg/max over ranks, halo traffic, throughput, the
// field digest and the verification verdict; printed as text by rank 0 and written as JSON.
#pragma once

#include <mpi.h>

#include <ostream>
#include <string>

#include "checkpoint.hpp"
#include "preflight.hpp"
#include "simulation.hpp"
// Procurement (issue 7)
#include <vector>

#include "affinity.hpp"
#include "benchmark_result.hpp"
#include "build_info.hpp"

namespace miniapp {

/// min / avg / max of one per-rank quantity over all ranks.
struct Stat {
  double min = 0, avg = 0, max = 0;
};

/// Reduce a per-rank value to min/avg/max over comm (result on every rank). Collective.
Stat reduce_stat(double value, MPI_Comm comm);

/// A run stopped early by a signal (src/stop_signal.hpp): where, and how to continue it.
struct Interruption {
  int signal = 0;             ///< the agreed signal; 0: the run was not interrupted
  std::int64_t step = 0;      ///< the step reached (and held by the checkpoint)
  std::string checkpoint;     ///< the checkpoint written at that step; "" when none was
                              ///< (stopped before the first step)
  std::string continue_with;  ///< the command line that continues the run
};

struct Verification {
  bool requested = false;
  bool passed = false;
  double max_error = 0;
  double tolerance = 0;
};

struct RunReport {
  Config config;
  Index3 dims{};
  bool dims_chosen = false;
  int nranks = 1;
  int threads = 1;
  std::int64_t steps = 0;
  Stat loop, stencil, halo, pack, wait, unpack, boundary;  ///< seconds over the timed steps
  Stat messages_per_step, bytes_per_step;
  // Halo exchange family (issue 3): per rank and step.
  Stat redundant_per_step;             ///< redundant cell updates (deep halos)
  Stat hidden, refill, start;          ///< seconds: comm hidden by --overlap, refills, posting
  double cell_updates_per_second = 0;  ///< global cells * steps / max loop time
  FieldSummary summary;
  Verification verification;

  // Procurement (issue 7): provenance, placement, figure of merit and verdict. The JSON layout
  // is described by scripts/report.schema.json (version kReportSchemaVersion).
  BuildInfo build;
  FigureOfMerit fom;                  ///< timed steps only (the first config.warmup are not)
  std::vector<RankBinding> bindings;  ///< every rank's host and CPUs (set by the driver)
  std::vector<std::string> binding_warnings;
  Validation validation;  ///< named checks and verdict (set by the driver)
  // Checkpoints and restart (src/checkpoint.*), filled in by the driver.
  CheckpointStats checkpoints;
  std::string restart_path;  ///< "" for a fresh start
  std::int64_t restart_step = 0;
  // Runtime reliability (issue 8), filled in by the driver except peak_rss.
  Interruption interruption;
  MemoryEstimate memory_estimate;
  Stat peak_rss;  ///< bytes, over ranks, when the report was made
};

/// Version of the JSON report's layout: minor for added fields, major for changed ones.
inline constexpr const char* kReportSchemaVersion = "1.1";

/// Collect the report of a finished run. Collective over the simulation's communicator.
RunReport make_report(const Simulation& sim, const Verification& verification);

/// Human-readable report (rank 0 prints it).
void print_report(std::ostream& os, const RunReport& r);

/// The report as a JSON document.
std::string report_json(const RunReport& r);

}  // namespace miniapp
