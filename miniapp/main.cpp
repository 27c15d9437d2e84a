// miniapp driver: parse -> check -> build the simulation -> run -> report.
//
//   miniapp [options] [--config FILE.toml]     the diffusion run (see --help)
//   miniapp bench stencil|... [options]        benchmarks (see miniapp bench NAME --help)
//
// Exit status: 0 success, 1 verification failed, 2 bad input (one message from rank 0),
// and MPI_Abort for an error that only some ranks see mid-run.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <string>

#include "bench.hpp"
#include "config.hpp"
#include "diagnostics.hpp"
#include "preflight.hpp"
#include "report.hpp"
#include "simulation.hpp"

namespace {

using namespace miniapp;

/// The diffusion run. Returns the exit status; throws ConfigError for bad input.
int run_main(const Config& config, MPI_Comm comm, int rank) {
  preflight(config, comm);
  Simulation sim(config, comm);
  sim.run(config.steps);

  Verification ver;
  if (config.verify) {
    const InitialCondition ic = InitialCondition::from(config);
    const double g = ic.sine_growth(config.coefficients(), config.stencil);
    double amplitude = 1.0;
    for (std::int64_t s = 0; s < config.steps; ++s) amplitude *= g;
    ver.requested = true;
    ver.max_error = max_error(sim.field(), ic, amplitude, sim.decomposition().comm());
    // Round-off grows at most linearly with the number of steps (|g| <= 1).
    ver.tolerance = 1e-14 * double(config.steps + 1) * 10.0;
    ver.passed = ver.max_error <= ver.tolerance;
  }
  const RunReport report = make_report(sim, ver);
  if (rank == 0) {
    print_report(std::cout, report);
    std::cout.flush();
    if (!config.report_path.empty()) {
      std::ofstream out(config.report_path);
      out << report_json(report);
      if (!out) throw std::runtime_error("could not write the report " + config.report_path);
    }
  }
  return ver.requested && !ver.passed ? 1 : 0;
}

int dispatch(int argc, char** argv, MPI_Comm comm, int rank) {
  if (argc > 1 && std::strcmp(argv[1], "bench") == 0) {
    const std::map<std::string, std::function<int(int, char**, MPI_Comm)>> benches{
        {"stencil", bench::stencil},
        {"halo", bench::halo}};  // halo exchange family (issue 3)
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
