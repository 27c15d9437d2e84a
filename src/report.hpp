// The run report: per-phase timings as min/avg/max over ranks, halo traffic, throughput, the
// field digest and the verification verdict; printed as text by rank 0 and written as JSON.
#pragma once

#include <mpi.h>

#include <ostream>
#include <string>

#include "simulation.hpp"

namespace miniapp {

/// min / avg / max of one per-rank quantity over all ranks.
struct Stat {
  double min = 0, avg = 0, max = 0;
};

/// Reduce a per-rank value to min/avg/max over comm (result on every rank). Collective.
Stat reduce_stat(double value, MPI_Comm comm);

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
  Stat redundant_per_step;          ///< redundant cell updates (deep halos)
  Stat hidden, refill, start;       ///< seconds: comm hidden by --overlap, refills, posting
  double cell_updates_per_second = 0;  ///< global cells * steps / max loop time
  FieldSummary summary;
  Verification verification;
};

/// Collect the report of a finished run. Collective over the simulation's communicator.
RunReport make_report(const Simulation& sim, const Verification& verification);

/// Human-readable report (rank 0 prints it).
void print_report(std::ostream& os, const RunReport& r);

/// The report as a JSON document.
std::string report_json(const RunReport& r);

}  // namespace miniapp
