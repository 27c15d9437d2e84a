// Checks made before anything large is allocated or any file is written, with the same
// verdict on every rank (so a bad run ends with one message and exit 2, never a hang).
#pragma once

#include <mpi.h>

#include "options.hpp"

namespace miniapp {

/// The memory a run needs against what its nodes have, worked out before allocating.
struct MemoryEstimate {
  double bytes_per_rank = 0;        ///< estimated_bytes_per_rank (the largest block)
  double fft_bytes_per_rank = 0;    ///< of which the FFT buffers of the spectral diagnostics
  double field_bytes_per_rank = 0;  ///< one field's owned cells of the largest block
  int node_ranks = 1;               ///< most ranks sharing one node (MPI_COMM_TYPE_SHARED)
  double available_bytes = 0;       ///< smallest MemAvailable over the nodes (0 = unknown)
};

/// Validate the config against the world: rank grid, memory estimate, output paths (report,
/// spectrum CSV). Returns
/// the memory estimate (the same on every rank). Collective over comm; throws ConfigError on
/// every rank or on none.
MemoryEstimate preflight(const Config& config, MPI_Comm comm);

/// Bytes this run needs per rank (two fields with ghosts, halo buffers and, with
/// --spectral-check or --spectral-every, the FFT buffers), estimated before allocating; the
/// libraries' own footprint (MPI, Kokkos, HDF5, FFTW plans: tens of MB) is not included. Not
/// collective.
double estimated_bytes_per_rank(const Config& config, const Index3& dims);

/// The FFT buffers of the spectral diagnostics on the rank with the largest layouts (0 when
/// neither --spectral-check nor --spectral-every is on). Not collective.
double estimated_fft_bytes_per_rank(const Config& config, const Index3& dims);

/// Check on rank 0 that `path` can be written, leaving no trace: an existing regular file opened
/// for writing (not truncated) and not a pseudo file of /proc or /sys, or a directory in which a
/// probe file can really be written (and is removed again, as for the checkpoint directory);
/// permission bits alone say yes to root on read-only file systems and in /proc. Returns ""
/// when fine, else the reason. Not collective.
std::string check_writable_file(const std::string& path);

/// Broadcast rank 0's error text; every rank throws ConfigError when it is not empty.
/// Collective.
void throw_if_root_failed(const std::string& root_error, MPI_Comm comm);

/// Check before the run that --checkpoint-dir is (or can be created as) a writable directory
/// when checkpoints are due: rank 0 creates it if missing and writes and deletes a probe file.
/// Collective; throws ConfigError on every rank.
void preflight_checkpoints(const Config& config, MPI_Comm comm);

}  // namespace miniapp
