#include "config.hpp"

#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "text.hpp"
#include "version.hpp"

namespace miniapp {

const char* to_string(Boundary b) {
  switch (b) {
    case Boundary::Periodic:
      return "periodic";
    case Boundary::Dirichlet:
      return "dirichlet";
    case Boundary::Neumann:
      return "neumann";
  }
  return "?";
}

const char* to_string(InitKind k) {
  switch (k) {
    case InitKind::Random:
      return "random";
    case InitKind::Sine:
      return "sine";
    case InitKind::Gaussian:
      return "gaussian";
  }
  return "?";
}

const char* to_string(HaloMode m) {
  switch (m) {
    case HaloMode::DimOrdered:
      return "dim-ordered";
    case HaloMode::Neighbors26:
      return "neighbors26";
    case HaloMode::NeighborColl:
      return "neighbor-coll";
    case HaloMode::Faces:
      return "faces";
  }
  return "?";
}

const char* to_string(PackKind p) { return p == PackKind::Kernel ? "kernel" : "datatype"; }

Coefficients Config::coefficients() const {
  return {kappa[0] * dt / (spacing[0] * spacing[0]), kappa[1] * dt / (spacing[1] * spacing[1]),
          kappa[2] * dt / (spacing[2] * spacing[2])};
}

namespace {

constexpr const char* kAxis = "xyz";

void require(bool ok, const std::string& message) {
  if (!ok) throw ConfigError(message);
}

/// The --config file must be an existing, readable regular file. Checked with stat() before
/// any open: opening a FIFO for reading blocks until a writer appears (a hang, not an error),
/// and a directory opens fine but reads as an empty, silently accepted, configuration.
void check_config_file(const std::string& path) {
  if (path.empty()) throw ConfigError("--config: the file name is empty");
  struct stat st {};
  if (stat(path.c_str(), &st) != 0)
    throw ConfigError("--config " + path + ": " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw ConfigError("--config " + path + ": is a directory");
  if (!S_ISREG(st.st_mode))
    throw ConfigError("--config " + path +
                      ": is not a regular file (a FIFO, socket or device); give a TOML file");
  std::ifstream in(path);
  if (!in) throw ConfigError("--config " + path + ": cannot read: " + std::strerror(errno));
}

/// Strict syntax check of the TOML subset miniapp reads (CLI11's reader is lenient and would
/// read "grid = [16, 16" as two values). Every line is blank, a comment, a [table] header or
/// `key = value` with a number, boolean, quoted string or a bracket-balanced array (which may
/// span lines). Throws ConfigError naming the file and line.
void check_toml_syntax(const std::string& path) {
  check_config_file(path);
  std::ifstream in(path);
  std::string line, pending;
  int lineno = 0, pending_line = 0, depth = 0;
  auto fail = [&](int at, const std::string& why) {
    throw ConfigError("--config " + path + ":" + std::to_string(at) + ": " + why);
  };
  while (std::getline(in, line)) {
    ++lineno;
    // Strip a comment that is not inside a string.
    bool quoted = false;
    std::string text;
    for (char ch : line) {
      if (ch == '"') quoted = !quoted;
      if (ch == '#' && !quoted) break;
      text += ch;
    }
    if (quoted) fail(lineno, "unterminated string");
    const auto first = text.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    text = text.substr(first);
    if (depth == 0) {
      if (text[0] == '[') {
        if (text.find(']') == std::string::npos) fail(lineno, "unterminated [table] header");
        continue;
      }
      const auto eq = text.find('=');
      if (eq == std::string::npos) fail(lineno, "expected `key = value`, got `" + text + "`");
      std::string key = text.substr(0, eq);
      key.erase(key.find_last_not_of(" \t") + 1);
      if (key.empty() || key.find_first_of(" \t[]") != std::string::npos)
        fail(lineno, "malformed key `" + key + "`");
      pending = text.substr(eq + 1);
      pending_line = lineno;
    } else {
      pending += " " + text;
    }
    depth = 0;
    for (char ch : pending) depth += ch == '[' ? 1 : ch == ']' ? -1 : 0;
    if (depth < 0) fail(pending_line, "unbalanced ']'");
    if (depth > 0) continue;  // an array continues on the next line
    const auto v = pending.find_first_not_of(" \t\r");
    if (v == std::string::npos) fail(pending_line, "missing value");
    pending.clear();
  }
  if (depth > 0) fail(pending_line, "unterminated array (missing ']')");
}

}  // namespace

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
  require(halo_width >= 1,
          "--halo-width=" + str(halo_width) + " is below the stencil radius 1 (must be >= 1)");

  // Checkpoints and restart (src/checkpoint.*)
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

  const Coefficients a = coefficients();
  require(std::isfinite(a.ax) && std::isfinite(a.ay) && std::isfinite(a.az),
          "coefficients a_d = kappa_d*dt/dx_d^2 are not finite (ax=" + str(a.ax) +
              ", ay=" + str(a.ay) + ", az=" + str(a.az) + ")");
  const double sum = 2.0 * (a.ax + a.ay + a.az);
  require(stencil != 7 || sum <= 1.0,
          "unstable: 2*(ax+ay+az) = " + str(sum) + " > 1 (ax=" + str(a.ax) + ", ay=" + str(a.ay) +
              ", az=" + str(a.az) + "); reduce --dt or --kappa, or increase --spacing");

  // Procurement and batch runs (issue 7).
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
  // Pencil transposes, 3D FFT and spectral diagnostics (issue 5)
  require(spectral_every >= 0, "--spectral-every=" + str(spectral_every) + " must be >= 0");
  if (spectral_check || spectral_every > 0) {
    for (int d = 0; d < 3; ++d)
      require(bc[d] == Boundary::Periodic,
              std::string(spectral_check ? "--spectral-check" : "--spectral-every") +
                  " needs periodic boundaries in every dimension; " + kAxis[d] + " is " +
                  to_string(bc[d]));
  }
  // Halo exchange family and stencils (issue 3).
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
  // Performance to the limit (issue 9).
  for (int d = 0; d < 3; ++d)
    require(tile[d] >= 0, std::string("--tile: T") + char('X' + d) + "=" + str(tile[d]) +
                              " must be >= 0 (0 = automatic)");
  require(tile == Index3{0, 0, 0} || temporal_blocking,
          "--tile sets the tile of --temporal-blocking, which is off");
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
              std::string("--verify needs periodic boundaries in every dimension; ") + kAxis[d] +
                  " is " + to_string(bc[d]));
  }
}

void Config::validate_for(int nranks) const {
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
                  str(halo_width) + " in " + kAxis[d]);
}

/// Validator mapping names (case-insensitive) to enum values; --help shows the option as NAME
/// with its default spelled out (set with default_str) rather than the enum's number.
template <class E>
CLI::Validator choice_of(const std::map<std::string, E>& names) {
  return CLI::CheckedTransformer(names, CLI::ignore_case).description("");
}

/// CLI11 2.1 reads 64-bit integers with strtoll/strtoull and keeps the saturated value of a
/// number out of range ("--steps 9223372036854775808" ran 2^63-1 steps) and the wrapped value of
/// a negative unsigned one ("--seed -1" became 2^64-1). This check sees the text before the
/// conversion and refuses both.
CLI::Validator fits_64_bits(bool is_unsigned) {
  return CLI::Validator(
      [is_unsigned](std::string& text) -> std::string {
        errno = 0;
        char* end = nullptr;
        if (is_unsigned) {
          if (text.find('-') != std::string::npos) return text + " must not be negative";
          (void)std::strtoull(text.c_str(), &end, 0);
        } else {
          (void)std::strtoll(text.c_str(), &end, 0);
        }
        if (errno == ERANGE)
          return text + " does not fit a " + (is_unsigned ? "64-bit unsigned" : "64-bit") +
                 " integer";
        return "";
      },
      "");
}

ParseOutcome parse_command_line(int argc, char** argv) {
  Config c;
  CLI::App app{
      "miniapp: 3D diffusion on an MPI Cartesian torus with Kokkos.\n"
      "Options override the TOML file given with --config. "
      "Benchmarks: miniapp bench stencil|... --help",
      "miniapp"};
  app.option_defaults()->always_capture_default();
  app.set_version_flag("--version", std::string("miniapp ") + kVersion);
  // Runtime reliability (issue 8): what is not an option but a user must know.
  app.footer(
      "Signals: SIGTERM or SIGUSR1 (e.g. sbatch --signal=B:USR1@120) stops the run at the next "
      "step, writes a checkpoint to --checkpoint-dir and exits 0 (RESULT INTERRUPTED); continue "
      "with --restart latest.\n"
      "Fault injection (tests): MINIAPP_FAULT=rank:R,step:S,kind:alloc|io|throw.");
  app.set_config("--config", "", "TOML input file (keys are the long option names)", false);
  app.allow_config_extras(CLI::config_extras_mode::error);

  std::vector<int> grid(c.grid.begin(), c.grid.end());
  std::vector<int> ranks(c.ranks.begin(), c.ranks.end());
  std::vector<double> kappa(c.kappa.begin(), c.kappa.end());
  std::vector<double> spacing(c.spacing.begin(), c.spacing.end());
  std::vector<Boundary> bc(c.bc.begin(), c.bc.end());
  std::vector<int> mode(c.sine_mode.begin(), c.sine_mode.end());
  std::vector<int> tile(c.tile.begin(), c.tile.end());

  const std::map<std::string, Boundary> bc_names{{"periodic", Boundary::Periodic},
                                                 {"dirichlet", Boundary::Dirichlet},
                                                 {"neumann", Boundary::Neumann}};
  const std::map<std::string, InitKind> init_names{
      {"random", InitKind::Random}, {"sine", InitKind::Sine}, {"gaussian", InitKind::Gaussian}};

  app.add_option("--grid", grid, "global cells NX NY NZ")->expected(3);
  app.add_option("--ranks", ranks, "rank grid PX PY PZ; 0 = choose (minimise halo surface)")
      ->expected(3);
  app.add_option("--bc", bc, "boundary per dimension X Y Z: periodic|dirichlet|neumann")
      ->expected(3)
      ->transform(choice_of(bc_names))
      ->type_name("NAME")
      ->default_str("periodic periodic periodic");
  app.add_option("--bc-value", c.bc_value, "dirichlet ghost value [field units]");
  app.add_option("--kappa", kappa, "diffusivity KX KY KZ [m^2/s]")->expected(3);
  app.add_option("--dt", c.dt, "time step [s]");
  app.add_option("--spacing", spacing, "cell size DX DY DZ [m]")->expected(3);
  app.add_option("--steps", c.steps, "number of time steps")->check(fits_64_bits(false));
  app.add_option("--init", c.init, "initial field: random|sine|gaussian")
      ->transform(choice_of(init_names))
      ->type_name("NAME")
      ->default_str("random");
  app.add_option("--seed", c.seed, "seed of --init random")->check(fits_64_bits(true));
  app.add_option("--sine-mode", mode, "wavenumbers KX KY KZ of --init sine")->expected(3);
  app.add_flag("--verify", c.verify,
               "compare the final field with the exact solution (--init sine, all periodic)");
  app.add_option("--report", c.report_path, "write the report as JSON to this file");

  // Procurement and batch runs (issue 7).
  app.add_option("--warmup", c.warmup,
                 "untimed warm-up steps: the first N of --steps; timers start after them")
      ->check(fits_64_bits(false));
  app.add_option("--expect-digest", c.expect_digest,
                 "reference digest (16 hex digits): RESULT VALID needs the final digest to match");
  app.add_option("--progress", c.progress,
                 "seconds between progress lines on rank 0; 0 = off; -1 = every 10 s in an "
                 "interactive terminal, off otherwise [s]");
  app.add_option("--label", c.label, "free text recorded in the report (e.g. weak, strong)");
  // Pencil transposes, 3D FFT and spectral diagnostics (issue 5)
  const std::map<std::string, TransposeKind> transpose_names{{"zerocopy", TransposeKind::ZeroCopy},
                                                             {"pack", TransposeKind::Pack}};
  app.add_option("--transpose", c.transpose,
                 "pencil transposes: zerocopy (MPI_Alltoallw, subarray types) | pack "
                 "(pack + MPI_Alltoallv + unpack)")
      ->transform(choice_of(transpose_names))
      ->type_name("NAME")
      ->default_str("zerocopy");
  app.add_flag("--spectral-check", c.spectral_check,
               "evolve the initial field exactly in Fourier space and compare with the final "
               "field (all periodic); exit 1 on failure");
  app.add_option("--spectral-every", c.spectral_every,
                 "write the energy spectrum E(|k|) every N steps (0 = never; all periodic)")
      ->check(fits_64_bits(false));
  app.add_option("--spectrum-file", c.spectrum_file, "CSV file of --spectral-every");
  // Checkpoints and restart (src/checkpoint.*)
  app.add_option("--checkpoint-every", c.checkpoint_every,
                 "write a checkpoint every N steps (0 = never)")
      ->check(fits_64_bits(false));
  app.add_option("--checkpoint-dir", c.checkpoint_dir,
                 "directory of the checkpoints (created if missing)");
  app.add_option("--checkpoint-keep", c.checkpoint_keep,
                 "keep the last K complete checkpoints, delete older ones");
  app.add_option("--restart", c.restart,
                 "continue from a checkpoint FILE, or 'latest' in --checkpoint-dir; --steps "
                 "counts from step 0, so a restart from step s runs steps-s more");
  app.add_option("--checkpoint-layout", c.checkpoint_layout,
                 "HDF5 dataset layout: contiguous|chunked (one chunk per writer block)")
      ->check(CLI::IsMember({"contiguous", "chunked"}));
  app.add_option("--checkpoint-alignment", c.checkpoint_alignment,
                 "align HDF5 objects of at least this many bytes to this many bytes "
                 "(file-system stripe size)")
      ->check(fits_64_bits(false));
  app.add_option("--checkpoint-cb-nodes", c.checkpoint_cb_nodes,
                 "MPI-IO hint cb_nodes: collective-buffering aggregators (0 = MPI default)");
  app.add_option("--checkpoint-cb-buffer", c.checkpoint_cb_buffer,
                 "MPI-IO hint cb_buffer_size in bytes (0 = MPI default)")
      ->check(fits_64_bits(false));
  app.add_option("--checkpoint-cb-write", c.checkpoint_cb_write,
                 "MPI-IO hint romio_cb_write: automatic|enable|disable")
      ->check(CLI::IsMember({"automatic", "enable", "disable"}));
  // Halo exchange family and stencils (issue 3).
  const std::map<std::string, HaloMode> halo_names{{"dim-ordered", HaloMode::DimOrdered},
                                                   {"neighbors26", HaloMode::Neighbors26},
                                                   {"neighbor-coll", HaloMode::NeighborColl},
                                                   {"faces", HaloMode::Faces}};
  const std::map<std::string, PackKind> pack_names{{"kernel", PackKind::Kernel},
                                                   {"datatype", PackKind::Datatype}};
  app.add_option("--stencil", c.stencil, "7 (star) or 27 (box) point stencil");
  app.add_option("--halo-width", c.halo_width,
                 "ghost layers H: exchange once, then H steps without communication");
  app.add_option("--halo", c.halo_mode, "halo mode: dim-ordered|neighbors26|neighbor-coll|faces")
      ->transform(choice_of(halo_names))
      ->type_name("NAME")
      ->default_str("dim-ordered");
  app.add_option("--pack", c.pack, "point-to-point halo packing: kernel|datatype")
      ->transform(choice_of(pack_names))
      ->type_name("NAME")
      ->default_str("kernel");
  app.add_flag("--overlap", c.overlap,
               "overlap the halo exchange with the interior update (MPI_Testall between tiles)");
  // Performance to the limit (issue 9).
  app.add_flag("--temporal-blocking", c.temporal_blocking,
               "fuse the --halo-width sub-steps of a round over cache-sized tiles (each cell read "
               "from memory about once per round; bit-identical)");
  app.add_option("--tile", tile,
                 "temporal-blocking tile TX TY TZ in owned cells; 0 = automatic (fits the "
                 "scratch of one thread in 2 MiB)")
      ->expected(3);

  ParseOutcome out;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--config" && i + 1 < argc) check_toml_syntax(argv[i + 1]);
      if (arg.rfind("--config=", 0) == 0) check_toml_syntax(arg.substr(9));
    }
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::ostringstream os, es;
    const int rc = app.exit(e, os, es);
    if (rc == 0) {  // --help, --version
      out.exit_code = 0;
      out.message = os.str();
    } else {
      out.exit_code = 2;
      std::string msg = e.what();
      if (dynamic_cast<const CLI::FileError*>(&e) || dynamic_cast<const CLI::ConfigError*>(&e))
        msg = "--config: " + msg;
      out.message = msg;
    }
    return out;
  } catch (const ConfigError& e) {
    out.exit_code = 2;
    out.message = e.what();
    return out;
  }
  for (int d = 0; d < 3; ++d) {
    c.grid[d] = grid[d];
    c.ranks[d] = ranks[d];
    c.kappa[d] = kappa[d];
    c.spacing[d] = spacing[d];
    c.bc[d] = bc[d];
    c.sine_mode[d] = mode[d];
    c.tile[d] = tile[d];
  }
  c.config_path = app.get_option("--config")->as<std::string>();
  for (int i = 0; i < argc; ++i)  // issue 7: the report records the command line
    c.command_line += (i ? " " : "") + std::string(argv[i]);
  // Which settings the user chose (a restart takes the others from the checkpoint).
  for (const CLI::Option* opt : app.get_options())
    if (opt->count() > 0) c.given.insert(opt->get_name());
  out.config = c;
  return out;
}

}  // namespace miniapp
