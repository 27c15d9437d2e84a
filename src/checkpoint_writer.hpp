// Checkpoints that survive a crash: numbered checkpoint files in one directory, each written
// atomically, the newest K kept.
//
//   1. write  DIR/checkpoint_S.h5.tmp, flush, close          (collective, checkpoint_file.hpp)
//   2. fsync the file                                          (every rank)
//   3. rename .tmp -> .h5, fsync DIR                          (rank 0, after all ranks agree)
//   4. write the .xmf sidecar the same way, then delete all but the newest K checkpoints.
//   5. rewrite DIR/checkpoints.xmf, every kept checkpoint at its time, the same way.
//
// A job killed at any moment leaves the previous checkpoint loadable, and a file named
// checkpoint_S.h5 is always complete: the newest one (latest_checkpoint) is where a restart
// continues.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>

#include "checkpoint_file.hpp"
#include "field.hpp"

namespace miniapp {

/// Path of the complete checkpoint of `step` in `dir` (checkpoint_<10-digit step>.h5).
std::string checkpoint_path(const std::string& dir, std::int64_t step);

/// The newest complete checkpoint in dir ("" when none). Not collective.
std::string latest_checkpoint(const std::string& dir);

/// Path of the XDMF time series of the checkpoints in `dir` (DIR/checkpoints.xmf).
std::string time_series_path(const std::string& dir);

/// The XDMF temporal collection of the complete checkpoints in dir, oldest first; a file that
/// fails probe_checkpoint_file is left out. Not collective (serial HDF5 reads of attributes).
std::string time_series_of(const std::string& dir);

/// Where and how checkpoints are written.
struct CheckpointOptions {
  std::string dir = "checkpoints";  ///< created when missing
  int keep = 2;                     ///< complete checkpoints kept; older ones are deleted
  CheckpointTunables tunables;
  BeforeWrite before_write;  ///< called on each rank before its share of the field write
  /// Stored in every checkpoint: git commit and command line of the run (the writer adds the
  /// version and the time of each write).
  CheckpointProvenance provenance;
};

/// Time and size of the checkpoints written by one CheckpointWriter.
struct CheckpointStats {
  int count = 0;
  double bytes = 0;          ///< bytes of field data per checkpoint
  double seconds_total = 0;  ///< slowest rank, summed over checkpoints
  double seconds_max = 0;    ///< slowest checkpoint
  double seconds_last = 0;
  /// Field bytes / time over all checkpoints [GB/s].
  double gbps() const { return seconds_total > 0 ? bytes * count / seconds_total / 1e9 : 0; }
};

/// Writes atomic checkpoints into options.dir and keeps the newest options.keep of them.
class CheckpointWriter {
 public:
  explicit CheckpointWriter(CheckpointOptions options);

  /// Write u as the checkpoint of `meta.step` (the digest, the provenance and the time of
  /// writing are filled in here): .tmp, flush, fsync, rename, sidecar, prune, time series.
  /// Collective over comm; fences. Throws CheckpointError on every rank on failure (the previous
  /// checkpoints stay as they were).
  void write(const Field& u, CheckpointMeta meta, MPI_Comm comm);

  const CheckpointStats& stats() const { return stats_; }
  const CheckpointOptions& options() const { return options_; }

  /// Store `spectrum` into every following checkpoint (the latest one recorded). Not collective.
  void set_spectrum(Spectrum spectrum) { spectrum_ = std::move(spectrum); }

 private:
  CheckpointOptions options_;
  Spectrum spectrum_;
  CheckpointStats stats_;
};

}  // namespace miniapp
