// Checks made before anything large is allocated or any file is written, with the same
// verdict on every rank (so a bad run ends with one message and exit 2, never a hang).
#pragma once

#include <mpi.h>

#include "config.hpp"

namespace miniapp {

/// Validate the config against the world: rank grid, memory estimate, output paths.
/// Collective over comm; throws ConfigError on every rank or on none.
void preflight(const Config& config, MPI_Comm comm);

/// Bytes this run needs per rank (two fields with ghosts plus halo buffers), estimated
/// before allocating. Not collective.
double estimated_bytes_per_rank(const Config& config, const Index3& dims);

/// Check on rank 0 that `path` can be written without creating it now: an existing regular
/// writable file, or a writable directory to create it in. Returns "" when fine, else the
/// reason. Not collective.
std::string check_writable_file(const std::string& path);

/// Broadcast rank 0's error text; every rank throws ConfigError when it is not empty.
/// Collective.
void throw_if_root_failed(const std::string& root_error, MPI_Comm comm);

}  // namespace miniapp
