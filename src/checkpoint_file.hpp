// The checkpoint file format: the global field in one parallel HDF5 file that describes itself.
//
// File layout (independent of the rank grid and halo width that wrote it):
//
//   /field               float64 dataset, dims [NZ][NY][NX] in C order: x varies fastest in
//                         the file, exactly as in memory. h5py: u = f["field"][...] gives
//                         u[z, y, x]; cell (x, y, z) is u[z, y, x].
//   /spectrum            optional float64 dataset: the latest energy spectrum E(|k|), one value
//                         per shell, with attributes step, time, time_units, k_units, definition;
//   /spectrum_k          its shells' wavenumbers |k| (attribute units: rad/m, or 1 for index).
//   / (root attributes)   what defines the run (each covered by run_digest):
//                           step, time, grid_xyz, spacing_xyz, kappa_xyz, dt, coefficients_xyz,
//                           bc_xyz, bc_value, stencil (7 or 27), init, seed, sine_mode_xyz;
//                         how and by whom it was computed (information):
//                           halo_width, writer_ranks_xyz, miniapp_version, git_commit,
//                           command_line, created_utc, checkpoint_format;
//                         NAME_units beside each attribute NAME that has a unit (time_units = "s",
//                         ...; HDF5 attributes cannot carry attributes of their own);
//                         digest (16 hex digits: the diagnostics digest of the field),
//                         run_definition (the defining attributes as text, one "name = value"
//                         line each) and run_digest (FNV-1a 64 of run_definition followed by
//                         "digest = <digest>\n", 16 hex digits).
//                         Strings are variable-length UTF-8 (h5py returns str). Per-dimension
//                         attributes are in x, y, z order, as on the command line.
//   checkpoint_SSSSSSSSSS.xmf   XDMF sidecar of one file (xdmf()); checkpoints.xmf lists every
//                         kept checkpoint as a temporal collection (xdmf_time_series()).
//
// Writing is collective (MPI-IO driver, collective transfers): every rank selects its owned
// block as a hyperslab of the file dataspace and its interior as a hyperslab of its padded
// memory block, so the bytes go straight from the field to the file (no gather, no copy).
// Making the file appear atomically under its name is checkpoint_writer.hpp's job.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "field.hpp"
#include "mpi_utils.hpp"
#include "problem.hpp"

namespace miniapp {

/// Writing (or, after a successful probe, reading) a checkpoint failed: I/O error, full disk.
/// Normally thrown on every rank with the same message, which names the lowest failing rank
/// (`agreed`). When a failing rank waited kAgreementGraceSeconds and the others did not come
/// to the agreement (they are stuck in a collective HDF5/MPI-IO call that rank left), it is
/// thrown on that rank alone (`agreed()` false). Either way the previous checkpoint is
/// untouched and the HDF5 file involved is left open (a collective close after a failure can
/// hang), so the caller ends the job with MPI_Abort: at once when not agreed.
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

/// Version of the layout above. 1: files before the run digest (fixed-length strings,
/// stencil "7-point"/"27-point", no sine mode, coefficients, halo width or provenance); they are
/// still read. 2: this layout.
inline constexpr int kCheckpointFormat = 2;

/// Who wrote a checkpoint, with what and when: information for a reader, not part of what
/// defines the run. The library fills in the version and the time; the app passes the rest.
struct CheckpointProvenance {
  std::string miniapp_version;  ///< the library's version (src/version.hpp)
  std::string git_commit;       ///< of the build that wrote the file ("" = unknown)
  std::string command_line;     ///< the arguments of the run that wrote the file
  std::string created_utc;      ///< ISO 8601 UTC time of the write, e.g. 2024-05-01T12:00:00Z
};

/// What a checkpoint file says about the field it holds (its root attributes).
struct CheckpointMeta {
  int format = kCheckpointFormat;  ///< 1: an older file without run digest (see above)
  std::int64_t step = 0;
  double time = 0;  ///< step * dt [s]
  Problem problem;
  /// a_d = (kappa_d * dt) / (dx_d * dx_d) as the run computed them (Problem::coefficients).
  std::array<double, 3> coefficients{};
  int halo_width = 0;        ///< ghost layers of the writer (information only; 0: not recorded)
  Index3 writer_ranks{};     ///< rank grid that wrote the file (information only)
  std::uint64_t digest = 0;  ///< the field's digest
  CheckpointProvenance provenance;
};

/// The metadata of a field of `problem` at `step`, written by a rank grid `ranks` with halo
/// width `halo_width`; the digest and the time of writing are filled in by the writer. Not
/// collective.
CheckpointMeta make_checkpoint_meta(const Problem& problem, std::int64_t step, const Index3& ranks,
                                    int halo_width);

/// The attributes that define the run, as text: one "name = value" line each, numbers in the
/// shortest form that reads back exactly (the file's run_definition attribute). Not collective.
std::string run_definition(const CheckpointMeta& meta);

/// The digest that makes a checkpoint tamper-evident: FNV-1a 64 of `definition` followed by
/// "digest = <16 hex digits of field_digest>\n". Not collective.
std::uint64_t run_digest(const std::string& definition, std::uint64_t field_digest);

/// Broadcast meta from `root` to every rank of comm (strings included). Collective.
void broadcast(CheckpointMeta& meta, int root, MPI_Comm comm);

/// HDF5 / MPI-IO settings of the writer.
struct CheckpointTunables {
  bool chunked = false;                ///< one chunk per (largest) writer block, else contiguous
  std::int64_t alignment = 1 << 20;    ///< H5Pset_alignment(threshold = alignment)
  int cb_nodes = 0;                    ///< MPI-IO hint cb_nodes (0 = unset)
  std::int64_t cb_buffer = 0;          ///< MPI-IO hint cb_buffer_size (0 = unset)
  std::string cb_write = "automatic";  ///< MPI-IO hint romio_cb_write
};

/// An energy spectrum E(|k|) (src/spectral.hpp) stored beside the field as dataset "spectrum"
/// (one value per shell 0, 1, ...; attributes step, time, units) and dataset "spectrum_k" (the
/// shells' wavenumbers; attribute units).
struct Spectrum {
  std::int64_t step = -1;  ///< -1: none recorded yet
  std::vector<double> energy;
  double time = 0;                ///< simulated time of `step` [s]
  std::vector<double> k;          ///< the shells' wavenumbers (empty: not written)
  std::string k_units = "rad/m";  ///< units of k: "rad/m", or "1" for index wavenumbers
};

/// Called on each rank right before its share of the collective field write; an exception
/// it throws fails the write on that rank alone, as HDF5 does when a rank's own checks or
/// buffers fail before the MPI-IO collective (tests inject I/O faults this way).
using BeforeWrite = std::function<void(std::int64_t step, const std::string& path)>;

/// Create (truncate) `path` and write the owned cells of u from every rank plus `meta` as
/// attributes, and the spectrum when one is given. Collective over comm; not atomic (see
/// CheckpointWriter). Throws CheckpointError on every rank when any rank fails.
void write_field_file(const std::string& path, const Field& u, const CheckpointMeta& meta,
                      const CheckpointTunables& tunables, MPI_Comm comm,
                      const Spectrum* spectrum = nullptr, const BeforeWrite& before_write = {});

/// Read the dataset of `path` into the owned cells of u (ghosts untouched). The file must
/// already have been checked (probe_checkpoint_file), so a failure here is an I/O error:
/// collective over comm; throws CheckpointError on every rank when any rank fails.
void read_field_file(const std::string& path, Field& u, const Index3& global, MPI_Comm comm);

/// Check `path` on this process alone (serial HDF5, so a damaged file cannot hang a
/// collective open): an HDF5 file with a float64 dataset "field" whose shape matches the
/// grid attribute, every attribute present with the right type and a known value, and (format
/// 2) the defining attributes unchanged since the write: each agrees with run_definition, and
/// run_digest with run_definition and digest. Returns "" and fills meta when fine, else the
/// reason, which names the attribute that does not match. Not collective.
std::string probe_checkpoint_file(const std::string& path, CheckpointMeta& meta);

/// The XDMF sidecar that lets ParaView/VisIt read the field of `h5_name` (a file name in the
/// same directory) described by meta. Not collective.
std::string xdmf(const CheckpointMeta& meta, const std::string& h5_name);

/// One checkpoint of a time series: its metadata and its file name (in the same directory).
struct TimeSeriesEntry {
  CheckpointMeta meta;
  std::string h5_name;
};

/// An XDMF temporal collection of the checkpoints in `entries` (oldest first), each at its
/// time: ParaView's Xdmf3ReaderT (and VisIt) read it as one field over time. Not collective.
std::string xdmf_time_series(const std::vector<TimeSeriesEntry>& entries);

}  // namespace miniapp
