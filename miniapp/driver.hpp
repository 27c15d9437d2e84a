// The driver: one diffusion run from a validated Config to its report and exit status, and
// the time loop at its heart, which reads as the scheme:
//
//   until the last step:
//     advance one round            halo exchange, k <= H sub-steps of update and boundary
//                                  refills (time_stepper.hpp); k stops at the next step where
//                                  something is due
//     stop vote                    a signal seen by any rank stops every rank here, after a
//                                  checkpoint of this step (stop_signal.hpp)
//     end of warm-up               timers restart
//     spectrum                     every --spectral-every steps: E(|k|) to the CSV
//     checkpoint                   every --checkpoint-every steps
//     injected fault               tests of the error paths (fault_injection.hpp)
//     progress                     a line on rank 0 every --progress seconds
//
// Every due step is an absolute step number, so a restarted run stops where the uninterrupted
// one would and reaches the same digest.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "checkpoint_writer.hpp"
#include "fault_injection.hpp"
#include "options.hpp"
#include "progress.hpp"
#include "spectral.hpp"
#include "stop_signal.hpp"
#include "time_stepper.hpp"

namespace miniapp {

/// A run stopped early by a signal: where, and how to continue it.
struct Interruption {
  int signal = 0;             ///< the agreed signal; 0: the run was not interrupted
  std::int64_t step = 0;      ///< the step reached (and held by the checkpoint)
  std::string checkpoint;     ///< the checkpoint written at that step; "" when none was
                              ///< (stopped before the first step)
  std::string continue_with;  ///< the command line that continues the run
};

/// What the time loop did on this rank.
struct LoopOutcome {
  std::int64_t first_step = 0;  ///< the step the loop started from (0, or the restart's)
  std::int64_t step = 0;        ///< the step the field holds at the end
  double seconds = 0;           ///< in the rounds after the warm-up (I/O excluded)
  Interruption interruption;
};

/// What the loop drives besides the stepper.
struct LoopServices {
  CheckpointWriter& checkpoints;
  SpectralDiagnostics* spectral;  ///< null without spectral features
  StopVote& stop_vote;
  Progress& progress;
  const std::optional<FaultPlan>& fault;
};

/// The step the loop must stop at next for a checkpoint: the next multiple of
/// --checkpoint-every after `step`, capped by --steps. Not collective.
std::int64_t next_stop(const Config& config, std::int64_t step);

/// Whether a checkpoint is due at `step` (a positive multiple of --checkpoint-every).
bool checkpoint_due(const Config& config, std::int64_t step);

/// Advance the stepper's field from `first_step` to config.steps (the loop of the header
/// comment). Collective.
LoopOutcome run_time_loop(TimeStepper& stepper, const Config& config, std::int64_t first_step,
                          LoopServices services);

/// The diffusion run of the command line `args` with its parsed `config`: restart, preflight,
/// placement, the time loop, the checks and the report. Returns the exit status; throws
/// ConfigError for bad input. Collective over comm.
int run_diffusion(Config config, const std::vector<std::string>& args, MPI_Comm comm);

}  // namespace miniapp
