// miniapp driver: parse -> check -> build the simulation -> run -> report.
//
//   miniapp [options] [--config FILE.toml]     the diffusion run (see --help)
//   miniapp bench stencil|... [options]        benchmarks (see miniapp bench NAME --help)
//
// Exit status: 0 success (RESULT VALID or NOT VALIDATED, or INTERRUPTED: stopped by SIGTERM or
// SIGUSR1 after writing a checkpoint), 1 RESULT INVALID, 2 bad input (one message from rank 0),
// 3 (via MPI_Abort) a checkpoint could not be written or read (earlier ones are kept), and
// MPI_Abort for an error that only some ranks see mid-run (named: "miniapp: rank R: fatal:").
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "affinity.hpp"  // issue 7
#include "bench.hpp"
#include "benchmark_result.hpp"  // issue 7
#include "checkpoint.hpp"
#include "config.hpp"
#include "diagnostics.hpp"
#include "fault_injection.hpp"
#include "mpi_utils.hpp"
#include "preflight.hpp"
#include "progress.hpp"  // issue 7
#include "report.hpp"
#include "simulation.hpp"
#include "spectral.hpp"
#include "stop_signal.hpp"

namespace {

using namespace miniapp;

/// The command line that continues an interrupted run, shell-quoted: after a checkpoint was
/// written, the same arguments with any --restart replaced by `--restart latest` (looked up in
/// the same --checkpoint-dir); when the run stopped before its first step, the same arguments.
std::string continue_command(const std::vector<std::string>& args, bool from_latest) {
  const auto quote = [](const std::string& a) {
    if (!a.empty() && a.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                          "0123456789_-+=./:,@%") == std::string::npos)
      return a;
    std::string q = "'";
    for (char ch : a) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return q + "'";
  };
  std::string cmd;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (!from_latest) {
      cmd += (cmd.empty() ? "" : " ") + quote(args[i]);
      continue;
    }
    if (args[i] == "--restart") {
      ++i;  // and its value
      continue;
    }
    if (args[i].rfind("--restart=", 0) == 0) continue;
    cmd += (cmd.empty() ? "" : " ") + quote(args[i]);
  }
  return from_latest ? cmd + " --restart latest" : cmd;
}

/// The time loop from the simulation's current step (0, or the restart step) to config.steps.
/// It stops at absolute step numbers, so a restarted run stops where the uninterrupted one
/// would: the end of the warm-up (the first --warmup steps of this run; timers restart
/// there), every --checkpoint-every steps (write a checkpoint), every --spectral-every
/// steps (record the spectrum) and the step of an injected fault. Between stops the steps run
/// with progress lines on rank 0 every `progress` seconds (0 = none), and after every round
/// the ranks vote on a stop signal (src/stop_signal.hpp): when they agree, the loop writes a
/// checkpoint of the step reached and returns it as an interruption. A stop agreed before the
/// first round (a signal during start-up) returns at once, without a checkpoint. Rank 0 prints
/// "time loop: ..." once the first round is certain to run. Collective.
Interruption run_time_loop(Simulation& sim, const Config& config, CheckpointWriter& checkpoints,
                           SpectralDiagnostics* spectral, double progress, StopVote& stop_vote,
                           const std::optional<FaultPlan>& fault) {
  constexpr std::int64_t never = std::numeric_limits<std::int64_t>::max();
  const auto next_multiple = [](std::int64_t step, std::int64_t every) {
    return every > 0 ? (step / every + 1) * every : never;
  };
  int rank = 0;
  MPI_Comm_rank(sim.decomposition().comm(), &rank);
  // The vote started before the loop covers signals received during start-up: no step has
  // run since the start (or the restart's checkpoint), so there is nothing new to save.
  if (stop_vote.poll()) return {stop_vote.signal(), sim.step(), "", ""};
  if (rank == 0) {  // a signal from now on stops the run at a round, with a checkpoint
    std::printf("time loop: step %lld to %lld\n", (long long)sim.step(), (long long)config.steps);
    std::fflush(stdout);
  }
  const std::int64_t every_spectrum = spectral ? config.spectral_every : 0;
  const std::int64_t warm_end = std::min(config.steps, sim.step() + config.warmup);
  const std::int64_t fault_step = fault ? fault->step : never;
  // Spectra go to the CSV and, the latest one, into the following checkpoints.
  const auto record_spectrum = [&] {
    checkpoints.set_spectrum({sim.step(), spectral->record(sim.field(), sim.step())});
  };
  if (every_spectrum > 0 && sim.step() % every_spectrum == 0) record_spectrum();
  while (sim.step() < config.steps) {
    const std::int64_t now = sim.step();
    const std::int64_t stop =
        std::min({config.steps, now < warm_end ? warm_end : never,
                  next_multiple(now, config.checkpoint_every), next_multiple(now, every_spectrum),
                  now < fault_step ? fault_step : never});
    run_with_progress(sim, stop - now, progress, now, config.steps, std::cout, &stop_vote);
    if (stop_vote.signal() != 0 && sim.step() < config.steps) {
      checkpoints.write(sim);  // the ranks agreed: stop here, continue from this step later
      return {stop_vote.signal(), sim.step(), checkpoint_path(config.checkpoint_dir, sim.step()),
              ""};
    }
    if (sim.step() == warm_end) sim.reset_timers();
    if (every_spectrum > 0 && sim.step() % every_spectrum == 0) record_spectrum();
    const bool io_fault = fault && fault->kind == FaultKind::Io && sim.step() == fault->step;
    arm_io_fault(io_fault && rank == fault->rank, "MINIAPP_FAULT=" + (fault ? fault->text : ""));
    if (checkpoint_due(config, sim.step()) || io_fault) checkpoints.write(sim);
    if (fault) inject_fault(*fault, sim.step(), rank);
  }
  stop_vote.finish();  // a signal after the last round changes nothing: the run is complete
  return {};
}

/// The diffusion run of the command line `args`. Returns the exit status; throws ConfigError
/// for bad input.
int run_main(Config config, const std::vector<std::string>& args, MPI_Comm comm, int rank) {
  // A restart takes the settings not given from the checkpoint and refuses conflicting ones.
  std::optional<Restart> restart;
  if (!config.restart.empty()) {
    restart = prepare_restart(config, comm);
    config = restart->config;
  }
  const MemoryEstimate memory = preflight(config, comm);
  preflight_checkpoints(config, comm);
  const std::optional<FaultPlan> fault =
      fault_from_environment(config, restart ? restart->meta.step : 0, comm);
  if (rank == 0) {  // issue 8: before the fields are allocated
    std::printf(
        "memory estimate: %.4g MB per rank for fields and halo buffers (x %d rank(s) "
        "per node; %.4g GB available per node)\n",
        memory.bytes_per_rank / 1e6, memory.node_ranks, memory.available_bytes / 1e9);
    if (fault) std::printf("fault injection: MINIAPP_FAULT=%s\n", fault->text.c_str());
    std::fflush(stdout);
  }

  // Issue 7: where every rank runs, printed before any work so wrong binding is seen at once.
  const int threads = Exec().concurrency();
  const std::vector<RankBinding> bindings = gather_bindings(comm, threads);
  const char* proc_bind = std::getenv("OMP_PROC_BIND");
  const std::vector<std::string> warnings =
      binding_warnings(bindings, threads, proc_bind ? proc_bind : "");
  if (rank == 0) {
    print_bindings(std::cout, bindings, warnings);
    std::cout.flush();
  }

  Simulation sim(config, comm);
  if (restart) load_restart(*restart, sim);
  // Spectral diagnostics (issue 5): the FFT plans and buffers are built once, before the loop.
  std::unique_ptr<SpectralDiagnostics> spectral;
  if (config.spectral_check || config.spectral_every > 0)
    spectral = std::make_unique<SpectralDiagnostics>(sim.decomposition(), config);
  CheckpointWriter checkpoints(config);
  double interval = progress_interval(config.progress, rank == 0 && interactive_terminal());
  mpi_check(MPI_Bcast(&interval, 1, MPI_DOUBLE, 0, comm), "MPI_Bcast");
  StopVote stop_vote(comm);
  Interruption stopped =
      run_time_loop(sim, config, checkpoints, spectral.get(), interval, stop_vote, fault);
  const bool stopped_at_start = stopped.signal != 0 && stopped.checkpoint.empty();
  if (stopped_at_start) {
    stopped.continue_with = continue_command(args, false);
    if (rank == 0) {
      std::printf(
          "miniapp: %s received during start-up: stopped before the first step (step %lld of "
          "%lld); no checkpoint written\n"
          "miniapp: to continue, launch the same command again (mpiexec/srun ...):\n  %s\n",
          signal_name(stopped.signal).c_str(), (long long)stopped.step, (long long)config.steps,
          stopped.continue_with.c_str());
      std::fflush(stdout);
    }
  } else if (stopped.signal != 0) {
    stopped.continue_with = continue_command(args, true);
    if (rank == 0) {
      std::printf(
          "miniapp: %s received: stopped at step %lld of %lld; checkpoint %s%s\n"
          "miniapp: to continue, launch as before (mpiexec/srun ...) with:\n  %s\n",
          signal_name(stopped.signal).c_str(), (long long)stopped.step, (long long)config.steps,
          stopped.checkpoint.c_str(),
          config.given.count("--checkpoint-dir")
              ? ""
              : " (--checkpoint-dir not given: the default ./checkpoints)",
          stopped.continue_with.c_str());
      std::fflush(stdout);
    }
  }

  Verification ver;
  if (config.verify && stopped.signal == 0) {
    const InitialCondition ic = InitialCondition::from(config);
    const double g = ic.sine_growth(config.coefficients(), config.stencil);
    double amplitude = 1.0;
    for (std::int64_t s = 0; s < config.steps; ++s) amplitude *= g;
    ver.requested = true;
    ver.max_error = max_error(sim.field(), ic, amplitude, sim.decomposition().comm());
    // Round-off: a few ulps of the initial amplitude (1) per step, growing at most linearly
    // with the number of steps since |g| <= 1. Measured: about 1e-15 after 50 steps.
    ver.tolerance = 4e-15 * double(config.steps + 1);
    ver.passed = ver.max_error <= ver.tolerance;
  }
  RunReport report = make_report(sim, ver);

  // Issue 7: the run's named checks give the verdict; RESULT VALID needs at least one and all
  // to pass. A capability with its own check (e.g. the spectral one) appends it here.
  std::vector<Check> checks;
  if (ver.requested) checks.push_back(tolerance_check("verify", ver.max_error, ver.tolerance));
  if (!config.expect_digest.empty())
    checks.push_back(digest_check(config.expect_digest, report.summary.digest));
  if (config.spectral_check && stopped.signal == 0) {
    // Issue 5: the final field against the exact Fourier-space evolution of the initial one.
    const SpectralCheckResult sc = spectral->check(sim.field(), config.steps);
    if (rank == 0) {
      std::printf(
          "spectral check: max error %.3e, L2 (rms) error %.3e, max |imag| %.3e, "
          "tolerance %.3e\nSPECTRAL CHECK %s\n",
          sc.max_error, sc.l2_error, sc.max_imag, sc.tolerance, sc.passed ? "PASSED" : "FAILED");
      std::fflush(stdout);
    }
    checks.push_back(tolerance_check("spectral", sc.max_error, sc.tolerance));
  }
  report.validation =
      stopped.signal == 0
          ? judge(std::move(checks))
          : interrupted("stopped by " + signal_name(stopped.signal) +
                        (stopped_at_start ? " before the first step (step " : " at step ") +
                        std::to_string(stopped.step) + " of " + std::to_string(config.steps) +
                        (stopped_at_start
                             ? "); nothing run, not validated; launch the same command again"
                             : "; partial run, not validated; continue with --restart latest"));
  report.interruption = stopped;
  report.memory_estimate = memory;
  report.bindings = bindings;
  report.binding_warnings = warnings;

  report.checkpoints = checkpoints.stats();
  if (restart) report.restart_path = restart->path, report.restart_step = restart->meta.step;
  if (rank == 0) {
    print_report(std::cout, report);
    std::cout.flush();
    if (!config.report_path.empty()) {
      std::ofstream out(config.report_path);
      out << report_json(report);
      if (!out) throw std::runtime_error("could not write the report " + config.report_path);
    }
  }
  return exit_status(report.validation.verdict);
}

/// Print `line` and a newline to stderr in one write: a message printed just before MPI_Abort
/// reaches the launcher as one piece, and its abort banner cannot land inside the line.
void print_line(const std::string& line) {
  const std::string text = line + "\n";
  std::cerr.write(text.data(), std::streamsize(text.size())).flush();
}

int dispatch(int argc, char** argv, MPI_Comm comm, int rank) {
  if (argc > 1 && std::strcmp(argv[1], "bench") == 0) {
    const std::map<std::string, std::function<int(int, char**, MPI_Comm)>> benches{
        {"stencil", bench::stencil},
        {"temporal", bench::temporal},
        {"halo", bench::halo},
        {"alltoall", bench::alltoall},
        {"fft", bench::fft},
        {"io", bench::io}};
    const std::string name = argc > 2 ? argv[2] : "";
    const auto it = benches.find(name);
    if (it == benches.end()) {
      if (rank == 0) {
        std::cerr << "miniapp: error: 'miniapp bench NAME' needs one of:";
        for (const auto& b : benches) std::cerr << " " << b.first;
        std::cerr << (name.empty() ? "" : " (got '" + name + "')") << "\n";
      }
      return 2;
    }
    std::string prog = std::string("miniapp bench ") + name;
    argv[2] = prog.data();
    return it->second(argc - 2, argv + 2, comm);
  }

  const ParseOutcome parsed = parse_command_line(argc, argv);
  if (!parsed.config) {
    if (rank == 0) {
      if (parsed.exit_code == 0)
        std::cout << parsed.message;
      else
        std::cerr << "miniapp: error: " << parsed.message << "\n";
    }
    return parsed.exit_code;
  }
  return run_main(*parsed.config, std::vector<std::string>(argv, argv + argc), comm, rank);
}

}  // namespace

int main(int argc, char** argv) {
  // First of all: MPI and Kokkos start-up can take seconds, and a stop signal meanwhile must
  // be recorded (the run then stops before its first step), not end the process.
  miniapp::install_stop_handlers();
  prefer_romio();  // before MPI_Init: see mpi_utils.hpp
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (provided < MPI_THREAD_FUNNELED) {
    if (rank == 0)
      std::cerr << "miniapp: error: the MPI library does not provide MPI_THREAD_FUNNELED\n";
    MPI_Finalize();
    return 2;
  }
  int status = 0;
  // --help and --version run nothing: skip Kokkos, which would print its own help and warnings.
  bool only_text = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    only_text = only_text || arg == "--help" || arg == "-h" || arg == "--version";
  }
  if (!only_text) Kokkos::initialize(argc, argv);  // removes its --kokkos-* arguments
  try {
    // Again, in case MPI or Kokkos installed their own; a signal recorded so far is kept.
    miniapp::install_stop_handlers();
    status = dispatch(argc, argv, MPI_COMM_WORLD, rank);
  } catch (const miniapp::ConfigError& e) {
    // Every rank validated the same input and threw the same error: one message, exit 2.
    if (rank == 0) std::cerr << "miniapp: error: " << e.what() << "\n";
    status = 2;
  } catch (const miniapp::CheckpointError& e) {
    // Every rank agreed that the checkpoint failed: one message, then abort (HDF5 cannot be
    // shut down cleanly after a failed collective write). The previous checkpoint is intact.
    // Not agreed: this rank failed and the others are stuck in a collective call: abort now.
    if (!e.agreed()) {
      print_line("miniapp: rank " + std::to_string(rank) + ": fatal: " + e.what());
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    if (rank == 0) print_line(std::string("miniapp: error: ") + e.what());
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Abort(MPI_COMM_WORLD, 3);
  } catch (const std::bad_alloc& e) {
    // Out of memory on this rank (maybe on this rank alone): the others may wait in MPI.
    print_line("miniapp: rank " + std::to_string(rank) +
               ": fatal: out of memory (std::bad_alloc: " + e.what() + ")");
    MPI_Abort(MPI_COMM_WORLD, 1);
  } catch (const std::exception& e) {
    // Possibly seen by this rank alone: the others may be waiting in MPI, so abort them.
    print_line("miniapp: rank " + std::to_string(rank) + ": fatal: " + e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (Kokkos::is_initialized()) Kokkos::finalize();
  MPI_Finalize();
  return status;
}
