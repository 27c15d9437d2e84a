// miniapp tune: a time-boxed search for the fastest way to run one problem on this machine.
//
//   miniapp tune [run options] [--budget SECONDS] [--output tuned.toml]
//
// The run options fix the problem and the rank count (grid, boundaries, stencil, ...). The
// tuner times short runs of candidate settings, one change at a time from the best so far:
//
//   1. halo mode x packing               (width 1, no blocking, no overlap)
//   2. halo width H in {1, 2, 4} x temporal blocking
//   3. overlap on/off
//   4. temporal-blocking tiles           (when blocking won)
//
// Every candidate runs the same steps from the same initial field, so it must reach the
// baseline's digest bit for bit; one that does not is refused and never wins. The table of
// what was measured is printed, and the winner is written as a TOML input that reproduces the
// run with the tuned settings (`miniapp --config tuned.toml`): tuned settings can be shown
// openly, and a user gets the fastest configuration without reading the manual. The search
// stops when the budget is spent; stages not reached keep the best settings so far.
#pragma once

#include <mpi.h>

namespace miniapp {

/// The tune subcommand (argv[0] is its name). Returns the exit status; throws ConfigError for
/// bad input. Collective over comm.
int tune(int argc, char** argv, MPI_Comm comm);

}  // namespace miniapp
