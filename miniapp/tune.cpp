#include "tune.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench.hpp"
#include "cli.hpp"
#include "diagnostics.hpp"
#include "mpi_utils.hpp"
#include "options.hpp"
#include "preflight.hpp"
#include "temporal_blocking.hpp"
#include "text.hpp"
#include "time_stepper.hpp"
#include "timer.hpp"

namespace miniapp {

namespace {

/// One candidate's settings and what its short runs measured.
struct Candidate {
  Config config;
  std::vector<double> samples;  ///< seconds per step of each run, slowest rank
  double seconds_per_step = 0;  ///< the median of the samples
  std::uint64_t digest = 0;
  bool refused = false;
};

/// The settings the tuner varies, in words: "neighbors26 datatype H=2 blocking tile=auto".
std::string settings(const Config& c) {
  std::string s = std::string(to_string(c.halo_mode)) + " " +
                  (c.halo_mode == HaloMode::NeighborColl ? "subarray" : to_string(c.pack)) +
                  " H=" + str(c.halo_width);
  if (c.temporal_blocking)
    s +=
        " blocking tile=" + (c.tile == Index3{0, 0, 0} ? std::string("auto") : joined(c.tile, "x"));
  if (c.overlap) s += " overlap";
  return s;
}

/// Run c for `warmup` untimed and `steps` timed steps from its initial field. Collective.
Candidate measure(const Config& c, std::int64_t warmup, std::int64_t steps, MPI_Comm comm) {
  int nranks = 1;
  MPI_Comm_size(comm, &nranks);
  TimeStepper stepper(c.problem(), c.halo(), c.blocking(), resolve_rank_grid(c, nranks), comm);
  stepper.run(warmup);
  mpi_check(MPI_Barrier(comm), "MPI_Barrier");
  double seconds = 0;
  {
    ScopedTimer timer(seconds, "miniapp::tune::candidate");
    stepper.run(steps);
  }
  Candidate out;
  out.config = c;
  if (const TemporalBlocking* tb = stepper.blocking()) out.config.tile = tb->tile();
  out.samples.push_back(reduce_stat(seconds, comm).max / double(steps));
  out.seconds_per_step = out.samples.back();
  out.digest = stepper.summary().digest;
  return out;
}

/// A double in the shortest text that reads back as the same value.
std::string shortest(double v) {
  char buf[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string s = buf;
  // TOML tells floats from integers by a '.' or an exponent.
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

template <class T, std::size_t N>
std::string toml_array(const std::array<T, N>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < N; ++i) {
    if (i) s += ", ";
    if constexpr (std::is_floating_point_v<T>)
      s += shortest(v[i]);
    else if constexpr (std::is_enum_v<T>)
      s += std::string("\"") + to_string(v[i]) + "\"";
    else
      s += str(v[i]);
  }
  return s + "]";
}

/// The TOML input that reproduces the run of `c` with the tuned settings of `best`.
std::string tuned_toml(const Config& c, const Candidate& best, const Index3& dims, int nranks,
                       const std::string& table) {
  const Config& w = best.config;
  std::ostringstream os;
  os << "# Written by `miniapp tune` for " << nranks << " rank(s) (" << joined(dims, " x ")
     << "). Run it with\n#   mpiexec -n " << nranks << " miniapp --config this-file.toml\n"
     << "# Measured (ms per step: median over runs, slowest rank; the speedup is against the\n"
     << "# first row; a row whose digest differs from the first row's is refused):\n"
     << table << "\n"
     << "# The problem\n"
     << "grid = " << toml_array(c.grid) << "\n"
     << "bc = " << toml_array(c.bc) << "\n"
     << "bc-value = " << shortest(c.bc_value) << "\n"
     << "kappa = " << toml_array(c.kappa) << "\n"
     << "dt = " << shortest(c.dt) << "\n"
     << "spacing = " << toml_array(c.spacing) << "\n"
     << "steps = " << c.steps << "\n"
     << "init = \"" << to_string(c.init) << "\"\n"
     << "seed = " << c.seed << "\n"
     << "sine-mode = " << toml_array(c.sine_mode) << "\n"
     << "stencil = " << c.stencil << "\n"
     << "\n# Tuned\n"
     << "ranks = " << toml_array(dims) << "\n"
     << "halo = \"" << to_string(w.halo_mode) << "\"\n"
     << "pack = \"" << to_string(w.pack) << "\"\n"
     << "halo-width = " << w.halo_width << "\n"
     << "overlap = " << (w.overlap ? "true" : "false") << "\n"
     << "temporal-blocking = " << (w.temporal_blocking ? "true" : "false") << "\n";
  if (w.temporal_blocking) os << "tile = " << toml_array(w.tile) << "\n";
  os << "\n# Checks, as given to the tuner\n"
     << "warmup = " << c.warmup << "\n"
     << "verify = " << (c.verify ? "true" : "false") << "\n"
     << "spectral-check = " << (c.spectral_check ? "true" : "false") << "\n";
  return os.str();
}

}  // namespace

int tune(int argc, char** argv, MPI_Comm comm) {
  int rank = 0, nranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nranks);
  double budget = 30;
  std::string output = "tuned.toml";
  std::int64_t steps = 0;
  CLI::App app{
      "Time-boxed search over halo mode, packing, halo width, temporal blocking and tile, and "
      "overlap for the problem the run options describe (any miniapp option; see miniapp "
      "--help). Prints the measured table and writes the winner as a TOML input.",
      "miniapp tune"};
  app.option_defaults()->always_capture_default();
  app.allow_extras();
  app.add_option("--budget", budget, "seconds the search may take (it stops between candidates)")
      ->check(CLI::Range(0.1, 1e6));
  app.add_option("--output", output, "the TOML input written for the winner");
  app.add_option("--steps-per-candidate", steps,
                 "timed steps of each candidate, a multiple of 4 (0 = from the budget)")
      ->check(CLI::Range(std::int64_t(0), std::int64_t(1) << 30));
  if (const int status = bench::parse_options(app, argc, argv, comm); status >= 0) return status;

  // The rest are run options: they fix the problem.
  std::vector<std::string> rest = app.remaining();
  std::vector<char*> run_argv{argv[0]};
  for (std::string& a : rest) run_argv.push_back(a.data());
  const ParseOutcome parsed = parse_command_line(int(run_argv.size()), run_argv.data());
  if (!parsed.config) return print_parse_outcome(parsed, rank);
  const Config base = *parsed.config;
  if (!base.restart.empty()) throw ConfigError("miniapp tune: --restart does not apply");
  preflight(base, comm);
  if (rank == 0 && output.empty()) throw ConfigError("miniapp tune: --output must not be empty");
  throw_if_root_failed(rank == 0 ? check_writable_file(output) : "", comm);

  const double start = MPI_Wtime();
  // The clock of rank 0 decides, so every rank runs the same candidates.
  const auto time_left = [&] {
    int left = MPI_Wtime() - start < budget ? 1 : 0;
    mpi_check(MPI_Bcast(&left, 1, MPI_INT, 0, comm), "MPI_Bcast");
    return left != 0;
  };

  // Steps per candidate: a multiple of 4 (every width tried divides it, so every candidate
  // ends after whole rounds), sized from the baseline so that about 24 candidates fit.
  Config baseline = base;
  baseline.halo_width = 1;
  baseline.overlap = baseline.temporal_blocking = false;
  baseline.tile = {0, 0, 0};
  if (steps <= 0) {
    const Candidate probe = measure(baseline, 4, 8, comm);
    const double per_candidate = budget / 24.0;
    steps = std::int64_t(per_candidate / std::max(probe.seconds_per_step, 1e-9) / 2) / 4 * 4;
    steps = std::clamp<std::int64_t>(steps, 4, 400);
  } else {
    steps = std::max<std::int64_t>(4, (steps + 3) / 4 * 4);
  }
  const std::int64_t warmup = 4;

  std::vector<Candidate> table;
  std::optional<Candidate> best;
  std::uint64_t reference = 0;
  const auto consider = [&](const Config& c) {
    if (!accepted(c, nranks)) return;
    for (const Candidate& done : table)
      if (settings(done.config) == settings(c)) return;
    if (!table.empty() && !time_left()) return;
    Candidate m = measure(c, warmup, steps, comm);
    if (table.empty()) reference = m.digest;
    m.refused = m.digest != reference;
    table.push_back(m);
    if (!m.refused && (!best || m.seconds_per_step < best->seconds_per_step)) best = m;
  };

  consider(baseline);
  for (HaloMode mode :
       {HaloMode::DimOrdered, HaloMode::Neighbors26, HaloMode::NeighborColl, HaloMode::Faces})
    for (PackKind pack : {PackKind::Kernel, PackKind::Datatype}) {
      Config c = baseline;
      c.halo_mode = mode;
      c.pack = pack;
      consider(c);
    }
  // Deep halos: from the fastest mode that allows them (faces sends no edge ghosts).
  const Candidate* deep = nullptr;
  for (const Candidate& m : table)
    if (!m.refused && m.config.halo_mode != HaloMode::Faces &&
        (!deep || m.seconds_per_step < deep->seconds_per_step))
      deep = &m;
  const Config stage1 = deep ? deep->config : best->config;
  for (int h : {2, 4})
    for (bool blocking : {false, true}) {
      Config c = stage1;
      c.halo_width = h;
      c.temporal_blocking = blocking;
      c.tile = {0, 0, 0};
      consider(c);
    }
  Config stage2 = best->config;
  for (bool overlap : {false, true}) {
    Config c = stage2;
    c.overlap = overlap;
    consider(c);
  }
  if (best->config.temporal_blocking) {
    // Around the automatic tile, and the wide one that --halo-width auto times beside it.
    const Index3 automatic = best->config.tile;
    const Index3 block = smallest_block(best->config, resolve_rank_grid(best->config, nranks));
    for (const Index3& t :
         {Index3{automatic[0], std::max(1, automatic[1] / 2), std::max(1, automatic[2] / 2)},
          Index3{automatic[0], automatic[1] * 2, automatic[2] * 2},
          wide_tile(block, best->config.halo_width, best->config.two_d(), Exec().concurrency())}) {
      Config c = best->config;
      c.tile = t;
      consider(c);
    }
  }

  // While time is left, measure the three fastest again: the median of repeated short runs
  // ranks them, not one lucky or unlucky run on a shared machine.
  for (int round = 0; round < 4; ++round) {
    std::vector<Candidate*> order;
    for (Candidate& m : table)
      if (!m.refused) order.push_back(&m);
    std::sort(order.begin(), order.end(), [](const Candidate* a, const Candidate* b) {
      return a->seconds_per_step < b->seconds_per_step;
    });
    if (order.size() > 3) order.resize(3);
    // The baseline too, so that the speedups compare runs of the same machine state.
    if (std::find(order.begin(), order.end(), &table.front()) == order.end())
      order.push_back(&table.front());
    for (Candidate* m : order) {
      if (!time_left()) break;
      const Candidate again = measure(m->config, warmup, steps, comm);
      m->refused = m->refused || again.digest != reference;
      m->samples.push_back(again.samples.front());
      m->seconds_per_step = bench::median(m->samples);
    }
  }
  best.reset();
  for (const Candidate& m : table)
    if (!m.refused && (!best || m.seconds_per_step < best->seconds_per_step)) best = m;

  const Index3 dims = resolve_rank_grid(base, nranks);
  if (rank == 0) {
    const double cells = double(base.grid[0]) * base.grid[1] * base.grid[2];
    std::vector<std::string> rows;
    char line[200];
    std::snprintf(line, sizeof line, "%-48s %4s %10s %12s %8s  %s", "settings", "runs", "ms/step",
                  "updates/s", "speedup", "digest");
    rows.emplace_back(line);
    for (const Candidate& m : table) {
      std::snprintf(line, sizeof line, "%-48s %4zu %10.3f %12.4e %8.2f  %s%s",
                    settings(m.config).c_str(), m.samples.size(), m.seconds_per_step * 1e3,
                    cells / m.seconds_per_step, table[0].seconds_per_step / m.seconds_per_step,
                    digest_hex(m.digest).c_str(),
                    m.refused ? " REFUSED: differs from the baseline" : "");
      rows.emplace_back(line);
    }
    std::string shown, commented;
    for (const std::string& r : rows) shown += "  " + r + "\n", commented += "#   " + r + "\n";
    std::printf(
        "miniapp tune: grid %s, %d rank(s) = %s, %d thread(s) each; %lld timed steps per "
        "candidate after %lld; budget %.3g s, used %.3g s\n",
        joined(base.grid, " x ").c_str(), nranks, joined(dims, " x ").c_str(), Exec().concurrency(),
        (long long)steps, (long long)warmup, budget, MPI_Wtime() - start);
    std::cout << shown;
    std::printf("winner: %s, %.3f ms/step (%.2fx the baseline)\n", settings(best->config).c_str(),
                best->seconds_per_step * 1e3, table[0].seconds_per_step / best->seconds_per_step);
    std::ofstream out(output);
    out << tuned_toml(base, *best, dims, nranks, commented);
    if (!out) throw std::runtime_error("could not write " + output);
    std::printf("wrote %s: run it with mpiexec -n %d miniapp --config %s\n", output.c_str(), nranks,
                output.c_str());
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace miniapp
