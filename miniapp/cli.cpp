#include "cli.hpp"

#include <CLI/CLI.hpp>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>

#include "names.hpp"
#include "toml_input.hpp"
#include "version.hpp"

namespace miniapp {

namespace {

/// The file named by --config FILE or --config=FILE (std::nullopt when none is named).
std::optional<std::string> config_file_argument(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--config" && i + 1 < argc) return std::string(argv[i + 1]);
    if (arg.rfind("--config=", 0) == 0) return arg.substr(9);
  }
  return std::nullopt;
}

/// Validator mapping names (case-insensitive) to enum values; --help shows the option as NAME
/// with its default spelled out (set with default_str) rather than the enum's number. Anything
/// else is refused with the names to choose from ("--halo: 'x' is not one of dim-ordered,
/// ..."), where CLI11's own transformer printed its table of names and numbers.
template <class E, std::size_t N>
CLI::Validator choice_of(const NameTable<E, N>& table) {
  return CLI::Validator(
      [table](std::string& text) -> std::string {
        // The tables' names are lower case: the text is compared in lower case.
        std::string lower = text;
        for (char& ch : lower) ch = char(std::tolower(static_cast<unsigned char>(ch)));
        if (const std::optional<E> e = value_of(table, lower)) {
          text = std::to_string(static_cast<std::underlying_type_t<E>>(*e));
          return {};
        }
        return "'" + text + "' is not one of " + names_joined(table, ", ");
      },
      "");
}

/// Integers are decimal, whatever their leading zeros: CLI11 2.1 converts with base 0, so
/// "--grid 010" was 8 (octal) and "0x10" was 16. This transform runs before the conversion,
/// refuses anything but an optional sign and decimal digits, and drops the leading zeros.
CLI::Validator decimal_integer() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const std::size_t start = !text.empty() && (text[0] == '+' || text[0] == '-') ? 1 : 0;
        if (start == text.size() ||
            text.find_first_not_of("0123456789", start) != std::string::npos)
          return text + " is not a decimal integer";
        const std::size_t first = text.find_first_not_of('0', start);
        if (first == std::string::npos)
          text = "0";
        else
          text = (text[0] == '-' ? "-" : "") + text.substr(first);
        return "";
      },
      "");
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
          (void)std::strtoull(text.c_str(), &end, 10);
        } else {
          (void)std::strtoll(text.c_str(), &end, 10);
        }
        if (errno == ERANGE)
          return text + " does not fit a " + (is_unsigned ? "64-bit unsigned" : "64-bit") +
                 " integer";
        return "";
      },
      "");
}

}  // namespace

int print_parse_outcome(const ParseOutcome& parsed, int rank) {
  if (rank == 0) {
    if (parsed.exit_code == 0)
      std::cout << parsed.message;
    else
      std::cerr << "miniapp: error: " << parsed.message << "\n";
  }
  return parsed.exit_code;
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
  // What is not an option but a user must know.
  app.footer(
      "Signals: SIGTERM or SIGUSR1 (e.g. sbatch --signal=B:USR1@120) stops the run at the next "
      "step, writes a checkpoint to --checkpoint-dir and exits 0 (RESULT INTERRUPTED); continue "
      "with --restart latest.\n"
      "Fault injection (tests): MINIAPP_FAULT=rank:R,step:S,kind:alloc|io|throw.");
  app.set_config("--config", "", "TOML input file (keys are the long option names)", false);
  app.allow_config_extras(CLI::config_extras_mode::error);
  const std::optional<std::string> config_file = config_file_argument(argc, argv);
  app.config_formatter(std::make_shared<TomlInput>(config_file.value_or("")));

  std::vector<int> grid(c.grid.begin(), c.grid.end());
  std::vector<int> ranks(c.ranks.begin(), c.ranks.end());
  std::vector<double> kappa(c.kappa.begin(), c.kappa.end());
  std::vector<double> spacing(c.spacing.begin(), c.spacing.end());
  std::vector<Boundary> bc(c.bc.begin(), c.bc.end());
  std::vector<int> mode(c.sine_mode.begin(), c.sine_mode.end());
  std::vector<int> tile(c.tile.begin(), c.tile.end());

  // --help lists the options by capability, in the order of miniapp/README.md's table.
  const std::string kProblem = "Problem", kLayout = "Parallel layout", kHalo = "Halo exchange",
                    kBlocking = "Sweeps and temporal blocking", kSpectral = "Spectral diagnostics",
                    kCheckpoints = "Checkpoints and restart", kReport = "Validation and report",
                    kExplain = "Explain";
  app.add_option("--grid", grid, "global cells NX NY NZ")->expected(3)->group(kProblem);
  app.add_option("--bc", bc, "boundary per dimension X Y Z: periodic|dirichlet|neumann")
      ->expected(3)
      ->transform(choice_of(kBoundaryNames))
      ->type_name("NAME")
      ->default_str("periodic periodic periodic")
      ->group(kProblem);
  app.add_option("--bc-value", c.bc_value, "dirichlet ghost value [field units]")->group(kProblem);
  app.add_option("--kappa", kappa, "diffusivity KX KY KZ [m^2/s]")->expected(3)->group(kProblem);
  app.add_option("--dt", c.dt, "time step [s]")->group(kProblem);
  app.add_option("--spacing", spacing, "cell size DX DY DZ [m]")->expected(3)->group(kProblem);
  app.add_option("--steps", c.steps, "number of time steps")
      ->check(fits_64_bits(false))
      ->group(kProblem);
  app.add_option("--max-steps", c.max_steps,
                 "sanity bound: refuse --steps above this (a typo or an overflowed script "
                 "variable); raise it for a longer run")
      ->check(fits_64_bits(false))
      ->group(kProblem);
  app.add_option("--init", c.init, "initial field: random|sine|gaussian")
      ->transform(choice_of(kInitNames))
      ->type_name("NAME")
      ->default_str("random")
      ->group(kProblem);
  app.add_option("--seed", c.seed, "seed of --init random")
      ->check(fits_64_bits(true))
      ->group(kProblem);
  app.add_option("--sine-mode", mode, "wavenumbers KX KY KZ of --init sine")
      ->expected(3)
      ->group(kProblem);
  app.add_option("--ranks", ranks, "rank grid PX PY PZ; 0 = choose (minimise halo surface)")
      ->expected(3)
      ->group(kLayout);
  app.add_option("--stencil", c.stencil, "7 (star) or 27 (box) point stencil")->group(kHalo);
  app.add_option("--halo", c.halo_mode, "halo mode: dim-ordered|neighbors26|neighbor-coll|faces")
      ->transform(choice_of(kHaloModeNames))
      ->type_name("NAME")
      ->default_str("dim-ordered")
      ->group(kHalo);
  app.add_option("--pack", c.pack, "point-to-point halo packing: kernel|datatype")
      ->transform(choice_of(kPackNames))
      ->type_name("NAME")
      ->default_str("kernel")
      ->group(kHalo);
  app.add_option("--halo-width", c.halo_width,
                 "ghost layers H: exchange once, then H steps without communication; auto: H, "
                 "--temporal-blocking and --tile chosen at start-up from a short calibration "
                 "(copy bound, sweep rate in cache and from memory): the model's best H and "
                 "its neighbours are timed, each with the automatic and the wide tile (rings in "
                 "the L2 or the L3), the fastest kept only where faster than H=1 plain")
      ->type_name("INT|auto")
      ->group(kHalo);
  app.add_flag("--overlap", c.overlap,
               "overlap the halo exchange with the interior update (MPI_Testall between tiles)")
      ->group(kHalo);
  app.add_flag("--temporal-blocking", c.temporal_blocking,
               "fuse the --halo-width sub-steps of a round over cache-sized tiles (each cell read "
               "from memory about once per round; bit-identical)")
      ->group(kBlocking);
  app.add_option("--sweep-stores", c.sweep_stores,
                 "stores of the sweeps from memory (fields larger than the rank's cache share), "
                 "and of the last sub-step of a blocked round: "
                 "adaptive (time streaming and ordinary stores on the first sweeps, keep the "
                 "faster, try the other for two sweeps every 16th; the rank's own choice; with "
                 "--halo-width auto, start from the kind faster in its calibration) | "
                 "streaming | ordinary; the results are the same bit for bit")
      ->transform(choice_of(kStorePolicyNames))
      ->type_name("NAME")
      ->default_str("adaptive")
      ->group(kBlocking);
  app.add_option("--tile", tile,
                 "temporal-blocking tile TX TY TZ in owned cells; 0 = automatic (a thread's "
                 "scratch fits in its share of the L2); or wide: rings in up to 4 MiB a thread "
                 "(the L3), faster where the L3 streams them as fast as the L2 (from about H=6 "
                 "on the project's machine)")
      ->expected(1, 3)
      ->type_name("TX TY TZ|wide")
      ->group(kBlocking);
  app.add_flag("--spectral-check", c.spectral_check,
               "evolve the initial field exactly in Fourier space and compare with the final "
               "field (all periodic); exit 1 on failure")
      ->group(kSpectral);
  app.add_option("--spectral-every", c.spectral_every,
                 "write the energy spectrum E(|k|) every N steps (0 = never; all periodic)")
      ->check(fits_64_bits(false))
      ->group(kSpectral);
  app.add_option("--spectrum-file", c.spectrum_file, "CSV file of --spectral-every")
      ->group(kSpectral);
  app.add_option("--spectrum-k", c.spectrum_k,
                 "wavenumbers of the spectra: physical (|k| in rad/m, shells of the smallest "
                 "2 pi / L_d) | index (integer wavenumbers, shells of width 1)")
      ->transform(choice_of(kWavenumberNames))
      ->type_name("NAME")
      ->default_str("physical")
      ->group(kSpectral);
  app.add_option("--fft", c.fft,
                 "FFT of the spectral diagnostics: r2c (real-to-complex, half spectrum: half "
                 "the memory and transpose bytes) | c2c (complex throughout, for comparison)")
      ->transform(choice_of(kFftKindNames))
      ->type_name("NAME")
      ->default_str("r2c")
      ->group(kSpectral);
  app.add_option("--transpose", c.transpose,
                 "pencil transposes: zerocopy (MPI_Alltoallw, subarray types) | pack "
                 "(pack + MPI_Alltoallv + unpack)")
      ->transform(choice_of(kTransposeNames))
      ->type_name("NAME")
      ->default_str("zerocopy")
      ->group(kSpectral);
  app.add_option("--checkpoint-every", c.checkpoint_every,
                 "write a checkpoint every N steps (0 = never)")
      ->check(fits_64_bits(false))
      ->group(kCheckpoints);
  app.add_option("--checkpoint-dir", c.checkpoint_dir,
                 "directory of the checkpoints (created if missing)")
      ->group(kCheckpoints);
  app.add_option("--checkpoint-keep", c.checkpoint_keep,
                 "keep the last K complete checkpoints, delete older ones")
      ->group(kCheckpoints);
  app.add_option("--restart", c.restart,
                 "continue from a checkpoint FILE, or 'latest' in --checkpoint-dir; --steps "
                 "counts from step 0, so a restart from step s runs steps-s more")
      ->group(kCheckpoints);
  app.add_option("--checkpoint-layout", c.checkpoint_layout,
                 "HDF5 dataset layout: contiguous|chunked (one chunk per writer block)")
      ->check(CLI::IsMember({"contiguous", "chunked"}))
      ->group(kCheckpoints);
  app.add_option("--checkpoint-alignment", c.checkpoint_alignment,
                 "align HDF5 objects of at least this many bytes to this many bytes "
                 "(file-system stripe size)")
      ->check(fits_64_bits(false))
      ->group(kCheckpoints);
  app.add_option("--checkpoint-cb-nodes", c.checkpoint_cb_nodes,
                 "MPI-IO hint cb_nodes: collective-buffering aggregators (0 = MPI default)")
      ->group(kCheckpoints);
  app.add_option("--checkpoint-cb-buffer", c.checkpoint_cb_buffer,
                 "MPI-IO hint cb_buffer_size in bytes (0 = MPI default)")
      ->check(fits_64_bits(false))
      ->group(kCheckpoints);
  app.add_option("--checkpoint-cb-write", c.checkpoint_cb_write,
                 "MPI-IO hint romio_cb_write: automatic|enable|disable")
      ->check(CLI::IsMember({"automatic", "enable", "disable"}))
      ->group(kCheckpoints);
  app.add_flag("--verify", c.verify,
               "compare the final field with the exact solution (--init sine, all periodic)")
      ->group(kReport);
  app.add_option("--expect-digest", c.expect_digest,
                 "reference digest (16 hex digits): RESULT VALID needs the final digest to match")
      ->group(kReport);
  app.add_option("--warmup", c.warmup,
                 "untimed warm-up steps: the first N of --steps; timers start after them")
      ->check(fits_64_bits(false))
      ->group(kReport);
  app.add_option("--report", c.report_path, "write the report as JSON to this file")
      ->group(kReport);
  app.add_flag("--roofline", c.roofline,
               "measure the memory bound (STREAM copy, ordinary and streaming stores, about "
               "0.5 s, every rank at once) before the run and again after it; the report gives "
               "the run's fraction of each and how far the bound moved")
      ->group(kReport);
  app.add_option("--label", c.label, "free text recorded in the report (e.g. weak, strong)")
      ->group(kReport);
  app.add_option("--progress", c.progress,
                 "seconds between progress lines on rank 0; 0 = off; -1 = every 10 s in an "
                 "interactive terminal, off otherwise [s]")
      ->group(kReport);

  app.add_flag("--explain", c.explain,
               "print the plans this run executes (rank grid and why, neighbours, halo phases "
               "with messages, bytes and pack shapes, deep-halo schedule, transposes), then run")
      ->group(kExplain);
  app.add_flag("--explain-only", c.explain_only, "print the plans and stop, running nothing")
      ->group(kExplain);
  app.add_option("--explain-ranks", c.explain_ranks,
                 "with --explain-only: explain a run on N ranks (0 = this run's ranks)")
      ->group(kExplain);
  app.add_option("--explain-rank", c.explain_rank, "whose view the explanation takes")
      ->group(kExplain);

  // Every integer option reads decimal digits only (decimal_integer runs before the checks).
  for (const char* name :
       {"--grid", "--steps", "--max-steps", "--seed", "--sine-mode", "--ranks", "--stencil",
        "--halo-width", "--tile", "--spectral-every", "--checkpoint-every", "--checkpoint-keep",
        "--checkpoint-alignment", "--checkpoint-cb-nodes", "--checkpoint-cb-buffer", "--warmup",
        "--explain-ranks", "--explain-rank"})
    app.get_option(name)->transform(decimal_integer());
  // "auto" before the decimal check (a transform added later runs first): the width is then
  // resolved at start-up (calibration.hpp); 1 stands in until then.
  app.get_option("--halo-width")
      ->transform(CLI::Validator(
          [&c](std::string& text) -> std::string {
            if (text != "auto") {
              c.halo_width_auto = false;
              std::string plain = text;
              return decimal_integer()(plain).empty()
                         ? ""
                         : text + " is not 'auto' or a decimal integer";
            }
            c.halo_width_auto = true;
            text = "1";
            return "";
          },
          ""));

  // "wide" before the decimal check, as "auto" above: the wide tile depends on the block and H,
  // so it is resolved where those are known (resolve_tile). Negative extents are refused here,
  // where they cannot be mistaken for the wide tile's stand-in.
  bool wide_tile_asked = false;
  app.get_option("--tile")->transform(CLI::Validator(
      [&wide_tile_asked](std::string& text) -> std::string {
        if (text == "wide") wide_tile_asked = true, text = "0";
        return text.rfind('-', 0) == 0 ? text + " must be >= 0 (0 = automatic)" : "";
      },
      ""));

  ParseOutcome out;
  try {
    if (config_file) check_config_file(*config_file);
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
  if (tile.size() != (wide_tile_asked ? 1 : 3)) {
    out.exit_code = 2;
    out.message = "--tile: give three extents TX TY TZ (0 = automatic) or the word wide alone";
    return out;
  }
  if (wide_tile_asked) tile.assign(3, kWideTile[0]);
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
  for (int i = 0; i < argc; ++i)  // the report records the command line
    c.command_line += (i ? " " : "") + std::string(argv[i]);
  // Which settings the user chose (a restart takes the others from the checkpoint).
  for (const CLI::Option* opt : app.get_options())
    if (opt->count() > 0) c.given.insert(opt->get_name());
  out.config = c;
  return out;
}

}  // namespace miniapp
