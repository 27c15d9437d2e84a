// Config: every runtime setting of a miniapp run, from the command line and an optional TOML
// input file (cli.hpp; command-line options override the file). Validation lives in one
// place, Config::validate(), and throws ConfigError naming the option and the rule it breaks.
// The library never sees a Config: problem(), halo(), ... hand each module its own options.
#pragma once

#include <array>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>

#include "box.hpp"
#include "checkpoint_writer.hpp"
#include "halo_exchange.hpp"
#include "problem.hpp"
#include "spectral.hpp"
#include "time_stepper.hpp"
#include "transpose.hpp"

namespace miniapp {

/// Bad user input: printed once by rank 0, exit status 2.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Config {
  // The problem (grid, physics, stencil, initial field)
  Index3 grid{64, 64, 64};  ///< global cells NX NY NZ
  std::array<Boundary, 3> bc{Boundary::Periodic, Boundary::Periodic, Boundary::Periodic};
  double bc_value = 0.0;                         ///< dirichlet ghost value
  std::array<double, 3> kappa{1.0, 1.0, 1.0};    ///< diffusivity per dimension [m^2/s]
  double dt = 0.1;                               ///< time step [s]
  std::array<double, 3> spacing{1.0, 1.0, 1.0};  ///< cell size per dimension [m]
  std::int64_t steps = 100;                      ///< time steps
  std::int64_t max_steps = 1000000000;           ///< sanity bound on --steps
  InitKind init = InitKind::Random;
  std::uint64_t seed = 42;    ///< random init seed
  Index3 sine_mode{1, 1, 1};  ///< wavenumbers of --init sine
  int stencil = 7;            ///< 7 (star) or 27 (box) point stencil

  // Decomposition, halo exchange family, deep halos, temporal blocking
  Index3 ranks{0, 0, 0};         ///< rank grid PX PY PZ (0 = choose)
  int halo_width = 1;            ///< ghost layers
  bool halo_width_auto = false;  ///< --halo-width auto: width, blocking, tile chosen at start-up
  HaloMode halo_mode = HaloMode::DimOrdered;
  PackKind pack = PackKind::Kernel;
  bool overlap = false;            ///< overlap the exchange with interior updates
  bool temporal_blocking = false;  ///< fuse the sub-steps of a deep-halo round over tiles
  Index3 tile{0, 0, 0};  ///< --tile: owned cells per temporal-blocking tile (0 = auto; kWideTile)
  StorePolicy sweep_stores = StorePolicy::Adaptive;  ///< --sweep-stores: of sweeps from memory

  // Checks, report and provenance
  bool verify = false;        ///< compare with the exact solution (--init sine)
  std::string report_path;    ///< JSON report file ("" = none)
  std::string config_path;    ///< the TOML file read, for the record
  std::int64_t warmup = 0;    ///< untimed steps, counted in `steps`
  std::string expect_digest;  ///< reference digest, 16 hex digits ("" = none)
  double progress = -1;       ///< seconds between progress lines (0 off, <0 auto)
  std::string label;          ///< free text recorded in the report
  std::string command_line;   ///< the arguments as given, for the record
  bool roofline = false;      ///< measure the copy bound before the run, report the fraction

  // The explain view (explain.hpp)
  bool explain = false;       ///< print the plans before the run
  bool explain_only = false;  ///< print the plans and stop
  int explain_ranks = 0;      ///< explain a run on this many ranks (0 = this run's; --explain-only)
  int explain_rank = 0;       ///< whose view

  // Pencil transposes, 3D FFT and spectral diagnostics
  TransposeKind transpose = TransposeKind::ZeroCopy;  ///< --transpose zerocopy|pack
  FftKind fft = FftKind::R2C;                         ///< --fft r2c|c2c
  bool spectral_check = false;                        ///< compare with the exact spectral evolution
  std::int64_t spectral_every = 0;                    ///< energy spectrum every N steps (0 = never)
  std::string spectrum_file = "spectrum.csv";         ///< CSV of E(|k|) per recorded step
  Wavenumbers spectrum_k = Wavenumbers::Physical;     ///< --spectrum-k physical|index

  // Checkpoints and restart
  std::int64_t checkpoint_every = 0;             ///< steps between checkpoints (0 = none)
  std::string checkpoint_dir = "checkpoints";    ///< where checkpoints go / `latest` is looked up
  int checkpoint_keep = 2;                       ///< complete checkpoints kept (older ones deleted)
  std::string restart;                           ///< checkpoint file or "latest" ("" = fresh start)
  std::string checkpoint_layout = "contiguous";  ///< dataset layout: contiguous|chunked
  std::int64_t checkpoint_alignment = 1 << 20;   ///< align file objects >= this many bytes
  int checkpoint_cb_nodes = 0;                   ///< MPI-IO hint cb_nodes (0 = MPI default)
  std::int64_t checkpoint_cb_buffer = 0;  ///< MPI-IO hint cb_buffer_size in bytes (0 = default)
  std::string checkpoint_cb_write = "automatic";  ///< MPI-IO hint romio_cb_write

  std::set<std::string> given;  ///< long option names set on the command line or TOML

  /// NZ = 1 runs as a 2D problem: no z exchange, no z term.
  bool two_d() const { return grid[2] == 1; }

  /// Check everything that does not depend on the MPI world; throws ConfigError.
  void validate() const;
  /// Check what depends on the number of ranks (rank grid product, cells per rank).
  void validate_for(int nranks) const;

  // What each library module is given.
  Problem problem() const;
  HaloOptions halo() const;
  BlockingOptions blocking() const;
  /// The writer's options (no fault hook: the driver adds one when asked).
  CheckpointOptions checkpoint_options() const;
  /// The FFT of the spectral diagnostics (FFTW_ESTIMATE: used a few times per run).
  FftOptions fft_options() const;
  SpectrumOptions spectrum_options() const;
  /// True when --spectral-check or --spectral-every needs the FFT.
  bool spectral() const { return spectral_check || spectral_every > 0; }
};

/// The rank grid a run on nranks would use: --ranks with zeros chosen to minimise the halo
/// surface. Throws ConfigError when nothing fits. Not collective.
Index3 resolve_rank_grid(const Config& config, int nranks);

/// The smallest block of owned cells a rank gets on the rank grid dims (the blocks differ by at
/// most one cell per dimension, so it stands for all where a rate or a tile is chosen once).
/// Pure.
Index3 smallest_block(const Config& config, const Index3& dims);

/// Whether the app accepts c on nranks ranks (validate, validate_for and a rank grid), without
/// a message: for tools that try many settings. Not collective.
bool accepted(const Config& c, int nranks);

}  // namespace miniapp
