// Progress of a long run: one line on rank 0 every few seconds,
//
//   progress: step 1200/5000 (24.0%), 3.21 ms/step, ETA 12.2 s
//
// on by default only in an interactive terminal, so batch logs stay quiet unless
// --progress SECONDS asks for it. The loop is run in chunks of about that many seconds (rank 0
// sizes the next chunk from the rate so far and broadcasts it), so the time loop itself is
// untouched and the only extra cost is one broadcast per progress line.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <ostream>
#include <string>

namespace miniapp {

class Simulation;
class StopVote;

/// Seconds between progress lines: `requested` when >= 0 (0 = off); when negative (auto),
/// 10 s if `interactive`, else 0. Not collective.
double progress_interval(double requested, bool interactive);

/// Whether this process talks to a person: stdin and stdout both terminals. stdout alone is
/// not enough: Open MPI's mpiexec hands every rank a pseudo-terminal for stdout even when its
/// own output goes to a log file. Not collective.
bool interactive_terminal();

/// One progress line (no newline): step `done` of `total`, seconds per step, ETA.
std::string progress_line(std::int64_t done, std::int64_t total, double seconds_per_step);

/// Advance `steps` steps of sim, printing a progress line on rank 0 about every `interval`
/// seconds (never when interval is 0: then it is one sim.run(steps) call). Steps are numbered
/// from `first` out of `total` in the lines. With a stop vote, returns early when the ranks
/// agree to stop (see Simulation::run). Returns the steps done. Collective.
std::int64_t run_with_progress(Simulation& sim, std::int64_t steps, double interval,
                               std::int64_t first, std::int64_t total, std::ostream& os,
                               StopVote* stop = nullptr);

}  // namespace miniapp
