// miniapp: parse -> check -> run -> report, or a benchmark.
//
//   miniapp [options] [--config FILE.toml]     the diffusion run (see --help; driver.hpp)
//   miniapp bench stencil|... [options]        benchmarks (see miniapp bench NAME --help)
//   miniapp tune [options] [--budget SECONDS]  the fastest settings for a problem (tune.hpp)
//
// Exit status: 0 success (RESULT VALID or NOT VALIDATED, or INTERRUPTED: stopped by SIGTERM or
// SIGUSR1 after writing a checkpoint), 1 RESULT INVALID, 2 bad input (one message from rank 0),
// 3 (via MPI_Abort) a checkpoint could not be written or read (earlier ones are kept), and
// MPI_Abort for an error that only some ranks see mid-run (named: "miniapp: rank R: fatal:").
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "bench/bench.hpp"
#include "checkpoint_file.hpp"
#include "cli.hpp"
#include "driver.hpp"
#include "mpi_utils.hpp"
#include "stop_signal.hpp"
#include "stream_copy.hpp"
#include "tune.hpp"

namespace {

using namespace miniapp;

int dispatch(int argc, char** argv, MPI_Comm comm, int rank) {
  if (argc > 1 && std::strcmp(argv[1], "tune") == 0) {
    std::string prog = "miniapp tune";
    argv[1] = prog.data();
    return tune(argc - 1, argv + 1, comm);
  }
  if (argc > 1 && std::strcmp(argv[1], "bench") == 0) {
    const std::map<std::string, std::function<int(int, char**, MPI_Comm)>> benches{
        {"stencil", bench::stencil},   {"temporal", bench::temporal}, {"halo", bench::halo},
        {"alltoall", bench::alltoall}, {"fft", bench::fft},           {"io", bench::io},
        {"step", bench::step}};
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
  if (!parsed.config) return print_parse_outcome(parsed, rank);
  return run_diffusion(*parsed.config, std::vector<std::string>(argv, argv + argc), comm);
}

/// Print `line` and a newline to stderr in one write: a message printed just before MPI_Abort
/// reaches the launcher as one piece, and its abort banner cannot land inside the line.
void print_line(const std::string& line) {
  const std::string text = line + "\n";
  std::cerr.write(text.data(), std::streamsize(text.size())).flush();
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
  if (!only_text) {
    Kokkos::initialize(argc, argv);  // removes its --kokkos-* arguments
    // Before any sweep: the ranks of a node share its last-level cache (stream_copy.hpp).
    miniapp::set_threads_on_node(miniapp::place_on_node(MPI_COMM_WORLD).size *
                                 miniapp::Exec().concurrency());
  }
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
