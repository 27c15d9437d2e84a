// Restart: continue a run from a checkpoint file. The file says what problem it holds; the
// settings the user did not give are taken from it, conflicting ones are refused (a restart
// continues the same problem), and the loaded field must match the file's digest.
#pragma once

#include <mpi.h>

#include <string>

#include "checkpoint_file.hpp"
#include "options.hpp"
#include "time_stepper.hpp"

namespace miniapp {

/// A checked restart: the file, what it holds, and the configuration to continue with.
struct Restart {
  std::string path;
  CheckpointMeta meta;
  Config config;
};

/// Resolve --restart (FILE or latest), probe the file on rank 0 and broadcast the verdict,
/// and merge the file's settings into the config. Collective; throws ConfigError on every rank.
Restart prepare_restart(const Config& config, MPI_Comm comm);

/// The config to continue the checkpoint with: settings not in config.given come from meta;
/// a conflicting grid or physics (spacing, kappa, dt, boundaries, stencil) or --steps below
/// the checkpoint's step throws ConfigError. Not collective.
Config merge_restart_config(const Config& config, const CheckpointMeta& meta,
                            const std::string& path);

/// Load the restart's field into the stepper and check its digest against the file's.
/// Collective; throws ConfigError (damaged data) on every rank.
void load_restart(const Restart& restart, TimeStepper& stepper);

}  // namespace miniapp
