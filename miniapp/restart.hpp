// Restart: continue a run from a checkpoint file. The file says what problem it holds; every
// setting that defines the run is taken from it, a conflicting one given by the user is refused
// (a restart continues the same problem), the file's attributes must match its run digest, and
// the loaded field must match the file's digest.
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
  std::string note;  ///< a caveat for rank 0 to print ("" = none): an older file format
};

/// Resolve --restart (FILE or latest), probe the file on rank 0 and broadcast the verdict,
/// and merge the file's settings into the config. Collective; throws ConfigError on every rank.
Restart prepare_restart(const Config& config, MPI_Comm comm);

/// The config to continue the checkpoint with: the defining settings (grid, physics, stencil,
/// initial field) come from meta, and one given in config that differs, or --steps below the
/// checkpoint's step, throws ConfigError. How it is computed (rank grid, halo width, ...) is
/// the config's. Not collective.
Config merge_restart_config(const Config& config, const CheckpointMeta& meta,
                            const std::string& path);

/// Load the restart's field into the stepper and check its digest against the file's.
/// Collective; throws ConfigError (damaged data) on every rank.
void load_restart(const Restart& restart, TimeStepper& stepper);

}  // namespace miniapp
