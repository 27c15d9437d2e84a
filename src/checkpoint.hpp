// Checkpoints: the global field in one parallel HDF5 file per checkpoint, and restart from it.
//
// File layout (independent of the rank grid and halo width that wrote it):
//
//   /field               float64 dataset, dims [NZ][NY][NX] in C order: x varies fastest in
//                         the file, exactly as in memory. h5py: u = f["field"][...] gives
//                         u[z, y, x]; cell (x, y, z) is u[z, y, x].
//   / (root attributes)   step, time, grid_xyz, spacing_xyz, kappa_xyz, dt, bc_xyz,
//                         bc_value, stencil, init, seed, miniapp_version, writer_ranks_xyz,
//                         digest (16 hex digits; the diagnostics digest of the data).
//                         Per-dimension attributes are in x, y, z order, as on the command line.
//   checkpoint_SSSSSSSSSS.xmf   XDMF sidecar: ParaView/VisIt open the .xmf directly.
//
// Writing is collective (MPI-IO driver, collective transfers): every rank selects its owned
// block as a hyperslab of the file dataspace and its interior as a hyperslab of its padded
// memory block, so the bytes go straight from the field to the file (no gather, no copy).
//
// Atomic protocol (a job killed at any moment leaves the previous checkpoint loadable):
//   1. write  DIR/checkpoint_S.h5.tmp, flush, close          (collective)
//   2. fsync the file                                          (every rank)
//   3. rename .tmp -> .h5, fsync DIR                          (rank 0, after a barrier)
//   4. write the .xmf sidecar the same way, then delete all but the newest K checkpoints.
// A file named checkpoint_S.h5 is therefore always complete; `--restart latest` picks the
// highest S.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "config.hpp"
#include "field.hpp"

namespace miniapp {

class Simulation;

/// Writing (or, after a successful probe, reading) a checkpoint failed: I/O error, full disk.
/// Normally thrown on every rank with the same message, which names the lowest failing rank
/// (`agreed`). When a failing rank waited kAgreementGraceSeconds and the others did not come
/// to the agreement (they are stuck in a collective HDF5/MPI-IO call that rank left), it is
/// thrown on that rank alone (`agreed()` false). Either way the previous checkpoint is
/// untouched and the HDF5 file involved is left open (a collective close after a failure can
/// hang), so the driver ends with MPI_Abort: at once when not agreed.
class CheckpointError : public std::runtime_error {
 public:
  explicit CheckpointError(const std::string& what, bool agreed = true)
      : std::runtime_error(what), agreed_(agreed) {}
  bool agreed() const { return agreed_; }

 private:
  bool agreed_ = true;
};

/// Seconds a rank whose checkpoint I/O failed waits for the other ranks to agree on the error
/// before it gives up on them (CheckpointError with agreed() false). Ranks without an error
/// wait as long as it takes: a slow write is not a failure.
inline constexpr double kAgreementGraceSeconds = 5.0;

/// What a checkpoint file says about the field it holds (its root attributes). Trivially
/// copyable so that rank 0 can broadcast it.
struct CheckpointMeta {
  std::int64_t step = 0;
  double time = 0;
  Index3 grid{};  ///< NX NY NZ
  std::array<double, 3> spacing{};
  std::array<double, 3> kappa{};
  double dt = 0;
  std::array<Boundary, 3> bc{};
  double bc_value = 0;
  InitKind init = InitKind::Random;
  std::uint64_t seed = 0;
  Index3 writer_ranks{};  ///< rank grid that wrote the file (information only)
  std::uint64_t digest = 0;
  char stencil[16] = {};
  char version[32] = {};
};

/// The stencil name stored in checkpoints (attribute "stencil") and compared on restart.
inline const char* stencil_name(int points) { return points == 27 ? "27-point" : "7-point"; }

/// HDF5 / MPI-IO settings of the writer, from the --checkpoint-* options.
struct CheckpointTunables {
  bool chunked = false;                ///< one chunk per (largest) writer block, else contiguous
  std::int64_t alignment = 1 << 20;    ///< H5Pset_alignment(threshold = alignment)
  int cb_nodes = 0;                    ///< MPI-IO hint cb_nodes (0 = unset)
  std::int64_t cb_buffer = 0;          ///< MPI-IO hint cb_buffer_size (0 = unset)
  std::string cb_write = "automatic";  ///< MPI-IO hint romio_cb_write

  static CheckpointTunables from(const Config& c);
};

/// Path of the complete checkpoint of `step` in `dir` (checkpoint_<10-digit step>.h5).
std::string checkpoint_path(const std::string& dir, std::int64_t step);

/// The metadata of the field u at `step` of a run with `config`; `digest` is filled in by the
/// caller. Not collective.
CheckpointMeta make_checkpoint_meta(const Config& config, std::int64_t step, const Index3& ranks);

/// An energy spectrum E(|k|) (src/spectral.hpp) stored beside the field as dataset "spectrum"
/// (shells 0, 1, ...; attribute "step": when it was computed).
struct Spectrum {
  std::int64_t step = -1;  ///< -1: none recorded yet
  std::vector<double> energy;
};

/// Create (truncate) `path` and write the owned cells of u from every rank plus `meta` as
/// attributes, and the spectrum when one is given. Collective over comm; not atomic (see
/// CheckpointWriter). Throws CheckpointError on every rank when any rank fails.
void write_field_file(const std::string& path, const Field& u, const CheckpointMeta& meta,
                      const CheckpointTunables& tunables, MPI_Comm comm,
                      const Spectrum* spectrum = nullptr);

/// Read the dataset of `path` into the owned cells of u (ghosts untouched). The file must
/// already have been checked (probe_checkpoint_file), so a failure here is an I/O error:
/// collective over comm; throws CheckpointError on every rank when any rank fails.
void read_field_file(const std::string& path, Field& u, const Index3& global, MPI_Comm comm);

/// Check `path` on this process alone (serial HDF5, so a damaged file cannot hang a
/// collective open): an HDF5 file with a float64 dataset "field" whose shape matches the
/// grid attribute, and every attribute present with the right type. Returns "" and fills
/// meta when fine, else the reason. Not collective.
std::string probe_checkpoint_file(const std::string& path, CheckpointMeta& meta);

/// The newest complete checkpoint in dir ("" when none). Not collective.
std::string latest_checkpoint(const std::string& dir);

/// A checked restart: the file, what it holds, and the configuration to continue with.
struct Restart {
  std::string path;
  CheckpointMeta meta;
  Config config;
};

/// Resolve --restart (FILE or latest), probe the file on rank 0 and broadcast the verdict,
/// and merge the file's settings into the config: settings the user did not give are taken
/// from the file, conflicting ones are refused. Collective; throws ConfigError on every rank.
Restart prepare_restart(const Config& config, MPI_Comm comm);

/// The config to continue the checkpoint with: settings not in config.given come from meta;
/// a conflicting grid or physics (spacing, kappa, dt, boundaries, stencil) or --steps below
/// the checkpoint's step throws ConfigError. Not collective.
Config merge_restart_config(const Config& config, const CheckpointMeta& meta,
                            const std::string& path);

/// Load the restart's field into sim, check its digest against the file's, and set the
/// simulation's step. Collective; throws ConfigError (damaged data) on every rank.
void load_restart(const Restart& restart, Simulation& sim);

/// Check before the run that --checkpoint-dir is (or can be created as) a writable directory:
/// rank 0 creates it if missing and writes and deletes a probe file. Collective; throws
/// ConfigError on every rank.
void preflight_checkpoints(const Config& config, MPI_Comm comm);

/// The step the time loop should stop at next: the next multiple of --checkpoint-every
/// after `step`, capped by --steps.
std::int64_t next_stop(const Config& config, std::int64_t step);

/// Whether a checkpoint is due at `step` (a positive multiple of --checkpoint-every).
bool checkpoint_due(const Config& config, std::int64_t step);

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

/// Writes atomic checkpoints of a simulation into --checkpoint-dir and keeps the newest
/// --checkpoint-keep of them.
class CheckpointWriter {
 public:
  explicit CheckpointWriter(const Config& config);

  /// Write the field of sim at its current step: .tmp, flush, fsync, rename, sidecar, prune.
  /// Collective over the simulation's communicator; fences. Throws CheckpointError on every
  /// rank on failure (the previous checkpoints stay as they were).
  void write(const Simulation& sim);

  /// Write u as the checkpoint of `meta.step` (the digest is computed here). Collective.
  void write(const Field& u, CheckpointMeta meta, MPI_Comm comm);

  const CheckpointStats& stats() const { return stats_; }

  /// Store `spectrum` into every following checkpoint (the latest one recorded). Not collective.
  void set_spectrum(Spectrum spectrum) { spectrum_ = std::move(spectrum); }

 private:
  Spectrum spectrum_;
  Config config_;
  CheckpointTunables tunables_;
  CheckpointStats stats_;
};

}  // namespace miniapp
