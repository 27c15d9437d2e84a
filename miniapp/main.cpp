// miniapp driver: parse -> check -> build the simulation -> run -> report.
//
//   miniapp [options] [--config FILE.toml]     the diffusion run (see --help)
//   miniapp bench stencil|... [options]        benchmarks (see miniapp bench NAME --help)
//
// Exit status: 0 success (RESULT VALID or NOT VALIDATED), 1 RESULT INVALID, 2 bad input (one
// message from rank 0), and MPI_Abort for an error that only some ranks see mid-run.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "affinity.hpp"          // issue 7
#include "benchmark_result.hpp"  // issue 7
#include "bench.hpp"
#include "config.hpp"
#include "diagnostics.hpp"
#include "preflight.hpp"
#include "progress.hpp"  // issue 7
#include "report.hpp"
#include "simulation.hpp"
#include "spectral.hpp"

namespace {

using namespace miniapp;

/// The diffusion run. Returns the exit status; throws ConfigError for bad input.
int run_main(const Config& config, MPI_Comm comm, int rank) {
  preflight(config, comm);

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
  // Spectral diagnostics (issue 5): the FFT plans and buffers are built once, before the loop.
  std::unique_ptr<SpectralDiagnostics> spectral;
  if (config.spectral_check || config.spectral_every > 0)
    spectral = std::make_unique<SpectralDiagnostics>(sim.decomposition(), config);

  // Issue 7: the first --warmup steps are untimed; then the timed steps, with progress lines
  // when rank 0 runs in a terminal or --progress asks (rank 0 decides for everyone).
  if (config.spectral_every > 0 && config.warmup > 0) spectral->record(sim.field(), 0);
  sim.run(config.warmup);
  sim.reset_timers();
  double interval = progress_interval(config.progress, rank == 0 && interactive_terminal());
  mpi_check(MPI_Bcast(&interval, 1, MPI_DOUBLE, 0, comm), "MPI_Bcast");
  if (config.spectral_every > 0)
    run_recording_spectra(sim, *spectral, config.steps - config.warmup, config.spectral_every);
  else
    run_with_progress(sim, config.steps - config.warmup, interval, config.warmup, config.steps,
                      std::cout);

  Verification ver;
  if (config.verify) {
    const InitialCondition ic = InitialCondition::from(config);
    const double g = ic.sine_growth(config.coefficients());
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
  if (config.spectral_check) {
    // Issue 5: the final field against the exact Fourier-space evolution of the initial one.
    const SpectralCheckResult sc = spectral->check(sim.field(), config.steps);
    if (rank == 0) {
      std::printf("spectral check: max error %.3e, L2 (rms) error %.3e, max |imag| %.3e, "
                  "tolerance %.3e\nSPECTRAL CHECK %s\n",
                  sc.max_error, sc.l2_error, sc.max_imag, sc.tolerance,
                  sc.passed ? "PASSED" : "FAILED");
      std::fflush(stdout);
    }
    checks.push_back(tolerance_check("spectral", sc.max_error, sc.tolerance));
  }
  report.validation = judge(std::move(checks));
  report.bindings = bindings;
  report.binding_warnings = warnings;

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

int dispatch(int argc, char** argv, MPI_Comm comm, int rank) {
  if (argc > 1 && std::strcmp(argv[1], "bench") == 0) {
    const std::map<std::string, std::function<int(int, char**, MPI_Comm)>> benches{
        {"stencil", bench::stencil},
        {"alltoall", bench::alltoall},
        {"fft", bench::fft}};
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
      if (parsed.exit_code == 0) std::cout << parsed.message;
      else std::cerr << "miniapp: error: " << parsed.message << "\n";
    }
    return parsed.exit_code;
  }
  return run_main(*parsed.config, comm, rank);
}

}  // namespace

int main(int argc, char** argv) {
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
  Kokkos::initialize(argc, argv);  // removes its --kokkos-* arguments
  try {
    status = dispatch(argc, argv, MPI_COMM_WORLD, rank);
  } catch (const miniapp::ConfigError& e) {
    // Every rank validated the same input and threw the same error: one message, exit 2.
    if (rank == 0) std::cerr << "miniapp: error: " << e.what() << "\n";
    status = 2;
  } catch (const std::exception& e) {
    // Possibly seen by this rank alone: the others may be waiting in MPI, so abort them.
    std::cerr << "miniapp: rank " << rank << ": fatal: " << e.what() << std::endl;
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  Kokkos::finalize();
  MPI_Finalize();
  return status;
}
