#include "options.hpp"

#include <climits>
#include <cmath>
#include <string>

#include "build_info.hpp"
#include "text.hpp"

namespace miniapp {

namespace {

void require(bool ok, const std::string& message) {
  if (!ok) throw ConfigError(message);
}

/// A duration in the largest unit that keeps it above 1: "3.2 h", "146000 years".
std::string duration_text(double seconds) {
  const struct {
    double size;
    const char* name;
  } units[] = {{365.25 * 86400, "years"}, {86400, "days"}, {3600, "h"}, {60, "min"}, {1, "s"}};
  for (const auto& u : units)
    if (seconds >= u.size) return str(std::round(seconds / u.size * 10) / 10) + " " + u.name;
  return str(std::round(seconds * 1e3) / 1e3) + " s";
}

}  // namespace

Problem Config::problem() const {
  Problem p;
  p.grid = grid;
  p.bc = bc;
  p.bc_value = bc_value;
  p.kappa = kappa;
  p.dt = dt;
  p.spacing = spacing;
  p.stencil = stencil;
  p.init = init;
  p.seed = seed;
  p.sine_mode = sine_mode;
  return p;
}

HaloOptions Config::halo() const { return {halo_mode, pack, halo_width, overlap}; }

BlockingOptions Config::blocking() const { return {temporal_blocking, tile}; }

FftOptions Config::fft_options() const { return {fft, transpose, FftPlanning::Estimate}; }

SpectrumOptions Config::spectrum_options() const { return {spectrum_k}; }

CheckpointOptions Config::checkpoint_options() const {
  CheckpointOptions o;
  o.dir = checkpoint_dir;
  o.keep = checkpoint_keep;
  o.tunables.chunked = checkpoint_layout == "chunked";
  o.tunables.alignment = checkpoint_alignment;
  o.tunables.cb_nodes = checkpoint_cb_nodes;
  o.tunables.cb_buffer = checkpoint_cb_buffer;
  o.tunables.cb_write = checkpoint_cb_write;
  o.provenance.git_commit = build_info().git_commit;
  o.provenance.command_line = command_line;
  return o;
}

Index3 resolve_rank_grid(const Config& config, int nranks) {
  const Index3 dims = choose_rank_grid(config.problem(), nranks, config.ranks, config.halo_width);
  if (dims[0] == 0)
    throw ConfigError("no rank grid for " + str(nranks) + " ranks fits --grid " +
                      joined(config.grid) + " with at least " + str(config.halo_width) +
                      " cell(s) per rank per dimension (--ranks " + joined(config.ranks) + ")");
  return dims;
}

Index3 smallest_block(const Config& config, const Index3& dims) {
  Index3 n{};
  for (int d = 0; d < 3; ++d) n[d] = config.grid[d] / dims[d];
  return n;
}

void Config::validate() const {
  for (int d = 0; d < 3; ++d) {
    require(grid[d] > 0, std::string("--grid: N") + char('X' + d) + "=" + str(grid[d]) +
                             " must be a positive number of cells");
    // Local extents with ghosts are int (Box): N + 2*H must stay below 2^31.
    require(std::int64_t(grid[d]) + 2 * std::int64_t(halo_width) <= INT_MAX,
            std::string("--grid: N") + char('X' + d) + "=" + str(grid[d]) +
                " plus 2 x --halo-width " + str(halo_width) + " exceeds " + str(INT_MAX) +
                " cells per dimension");
    require(ranks[d] >= 0, std::string("--ranks: P") + char('X' + d) + "=" + str(ranks[d]) +
                               " must be >= 0 (0 = choose)");
    require(std::isfinite(kappa[d]) && kappa[d] >= 0, std::string("--kappa: K") + char('X' + d) +
                                                          "=" + str(kappa[d]) +
                                                          " must be finite and >= 0");
    require(std::isfinite(spacing[d]) && spacing[d] > 0, std::string("--spacing: D") +
                                                             char('X' + d) + "=" + str(spacing[d]) +
                                                             " must be finite and > 0");
  }
  require(std::isfinite(dt) && dt > 0, "--dt=" + str(dt) + " must be finite and > 0");
  require(std::isfinite(bc_value), "--bc-value=" + str(bc_value) + " must be finite");
  require(steps >= 0, "--steps=" + str(steps) + " must be >= 0");
  require(max_steps >= 1, "--max-steps=" + str(max_steps) + " must be >= 1");
  // A mistyped or overflowed step count must not hold a node for ever: refuse it up front.
  require(steps <= max_steps,
          "--steps=" + str(steps) + " is above --max-steps=" + str(max_steps) +
              ", a sanity bound against a typo or an overflowed script variable (even at a "
              "million steps per second it would run for " +
              duration_text(double(steps) * 1e-6) + "); give --max-steps " + str(steps) +
              " to run that long");
  require(halo_width >= 1,
          "--halo-width=" + str(halo_width) + " is below the stencil radius 1 (must be >= 1)");

  // Checkpoints and restart
  require(checkpoint_every >= 0,
          "--checkpoint-every=" + str(checkpoint_every) + " must be >= 0 (0 = no checkpoints)");
  require(checkpoint_keep >= 1, "--checkpoint-keep=" + str(checkpoint_keep) + " must be >= 1");
  require(checkpoint_alignment >= 1,
          "--checkpoint-alignment=" + str(checkpoint_alignment) + " must be >= 1 byte");
  require(checkpoint_cb_nodes >= 0,
          "--checkpoint-cb-nodes=" + str(checkpoint_cb_nodes) + " must be >= 0 (0 = MPI default)");
  require(checkpoint_cb_buffer >= 0, "--checkpoint-cb-buffer=" + str(checkpoint_cb_buffer) +
                                         " must be >= 0 (0 = MPI default)");
  // An empty path is never meant: the defaults are non-empty, or "" for "none" when not given.
  require(!checkpoint_dir.empty(), "--checkpoint-dir must not be empty");
  require(!spectrum_file.empty(), "--spectrum-file must not be empty");
  require(!(given.count("--report") && report_path.empty()),
          "--report must not be empty (leave it out to write no report)");
  require(!(given.count("--restart") && restart.empty()),
          "--restart must not be empty (a checkpoint file or 'latest')");

  const Coefficients a = problem().coefficients();
  require(std::isfinite(a.ax) && std::isfinite(a.ay) && std::isfinite(a.az),
          "coefficients a_d = kappa_d*dt/dx_d^2 are not finite (ax=" + str(a.ax) +
              ", ay=" + str(a.ay) + ", az=" + str(a.az) + ")");
  const double sum = 2.0 * (a.ax + a.ay + a.az);
  require(stencil != 7 || sum <= 1.0,
          "unstable: 2*(ax+ay+az) = " + str(sum) + " > 1 (ax=" + str(a.ax) + ", ay=" + str(a.ay) +
              ", az=" + str(a.az) + "); reduce --dt or --kappa, or increase --spacing");

  // Warm-up, reference digest, progress
  require(warmup >= 0 && warmup <= steps,
          "--warmup=" + str(warmup) + " must be between 0 and --steps=" + str(steps) +
              " (warm-up steps are the first, untimed, steps of the run)");
  require(
      expect_digest.empty() ||
          (expect_digest.size() == 16 &&
           expect_digest.find_first_not_of("0123456789abcdefABCDEF") == std::string::npos),
      "--expect-digest=" + expect_digest + " must be 16 hex digits (as printed after 'digest')");
  require(std::isfinite(progress) && (progress >= 0 || progress == -1),
          "--progress=" + str(progress) + " must be >= 0 seconds (0 = off) or -1 (auto)");
  // The explain view
  require(explain_ranks >= 0,
          "--explain-ranks=" + str(explain_ranks) + " must be >= 0 (0 = the ranks of this run)");
  require(explain_ranks == 0 || explain_only,
          "--explain-ranks explains a run on another number of ranks: it needs --explain-only");
  require(explain_rank >= 0, "--explain-rank=" + str(explain_rank) + " must be >= 0");
  // Spectral diagnostics
  require(spectral_every >= 0, "--spectral-every=" + str(spectral_every) + " must be >= 0");
  require(!given.count("--fft") || spectral(),
          std::string("--fft ") + to_string(fft) +
              " chooses the FFT of --spectral-check and --spectral-every, which are both off");
  require(!given.count("--spectrum-k") || spectral_every > 0,
          std::string("--spectrum-k ") + to_string(spectrum_k) +
              " sets the wavenumbers of the spectra of --spectral-every, which is off");
  if (spectral_check || spectral_every > 0) {
    for (int d = 0; d < 3; ++d)
      require(bc[d] == Boundary::Periodic,
              std::string(spectral_check ? "--spectral-check" : "--spectral-every") +
                  " needs periodic boundaries in every dimension; " + axis_name(d) + " is " +
                  to_string(bc[d]));
  }
  // Stencils and the halo exchange family
  require(stencil == 7 || stencil == 27,
          "--stencil=" + str(stencil) + " must be 7 (star) or 27 (box)");
  if (stencil == 27) {
    const double g = stability_number27(a);
    require(g <= 1.0,
            "unstable: the 27-point stability number max_x sum_d 2*a_d*x_d*"
            "(1-x_e/3)*(1-x_f/3) = " +
                str(g) + " > 1 (ax=" + str(a.ax) + ", ay=" + str(a.ay) + ", az=" + str(a.az) +
                "); reduce --dt or --kappa, or increase --spacing");
  }
  if (halo_mode == HaloMode::Faces) {
    require(stencil == 7,
            "--halo faces sends no edges or corners, which the 27-point stencil "
            "reads: use --halo dim-ordered, neighbors26 or neighbor-coll");
    require(halo_width == 1, "--halo faces works at --halo-width 1 only (got " + str(halo_width) +
                                 "): deeper halos update ghost cells, which "
                                 "needs edge and corner ghosts even for the 7-point stencil");
  }
  require(!(halo_mode == HaloMode::NeighborColl && pack == PackKind::Datatype),
          "--pack datatype does not apply to --halo neighbor-coll: the neighbourhood collective "
          "always sends subarray datatypes in place (--pack chooses for the point-to-point modes)");
  // Temporal blocking
  if (tile != kWideTile)
    for (int d = 0; d < 3; ++d)
      require(tile[d] >= 0, std::string("--tile: T") + char('X' + d) + "=" + str(tile[d]) +
                                " must be >= 0 (0 = automatic)");
  require(tile == Index3{0, 0, 0} || temporal_blocking,
          "--tile sets the tile of --temporal-blocking, which is off");
  require(!halo_width_auto || (!given.count("--temporal-blocking") && !given.count("--tile")),
          "--halo-width auto chooses --temporal-blocking and --tile itself (by a calibration at "
          "start-up): leave them out, or give a --halo-width number");
  if (two_d())
    require(bc[2] != Boundary::Dirichlet,
            "--grid NZ=1 runs as a 2D problem (no z term): --bc z must be periodic or neumann, "
            "not dirichlet");
  if (two_d())
    require(ranks[2] <= 1, "--grid NZ=1 runs as a 2D problem: --ranks PZ must be 0 or 1 (got " +
                               str(ranks[2]) + ")");

  if (verify) {
    require(init == InitKind::Sine, "--verify needs --init sine (the exact discrete solution)");
    for (int d = 0; d < 3; ++d)
      require(bc[d] == Boundary::Periodic,
              std::string("--verify needs periodic boundaries in every dimension; ") +
                  axis_name(d) + " is " + to_string(bc[d]));
  }
}

void Config::validate_for(int nranks) const {
  require(explain_rank < nranks, "--explain-rank=" + str(explain_rank) +
                                     " is not a rank of a run on " + str(nranks) + " ranks");
  // Product of the fixed factors. It stops growing once above nranks (the check fails then
  // anyway): three factors up to 2^31 would overflow 64 bits. The message shows it in double.
  std::int64_t product = 1;
  double shown = 1;
  bool all_given = true;
  for (int d = 0; d < 3; ++d) {
    if (ranks[d] == 0) {
      all_given = false;
      continue;
    }
    if (product <= nranks) product *= ranks[d];
    shown *= ranks[d];
  }
  if (all_given)
    require(product == nranks, "--ranks " + str(ranks[0]) + " " + str(ranks[1]) + " " +
                                   str(ranks[2]) + ": product " + str(shown) +
                                   " differs from the " + str(nranks) + " MPI ranks");
  else
    require(product <= nranks && nranks % product == 0,
            "--ranks " + str(ranks[0]) + " " + str(ranks[1]) + " " + str(ranks[2]) +
                ": the fixed factors (product " + str(shown) + ") do not divide the " +
                str(nranks) + " MPI ranks");
  for (int d = 0; d < 3; ++d)
    if (ranks[d] > 0 && !(d == 2 && two_d()))  // a 2D problem has no z halo
      require(grid[d] >= std::int64_t(ranks[d]) * halo_width,
              std::string("--grid: N") + char('X' + d) + "=" + str(grid[d]) +
                  " has fewer cells than " + str(ranks[d]) + " ranks x halo width " +
                  str(halo_width) + " in " + axis_name(d));
}

bool accepted(const Config& c, int nranks) {
  try {
    c.validate();
    c.validate_for(nranks);
    resolve_rank_grid(c, nranks);
  } catch (const ConfigError&) {
    return false;
  }
  return true;
}

}  // namespace miniapp
