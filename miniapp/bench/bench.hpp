// Benchmarks: `miniapp bench NAME [options]`. Each prints figures and ratios measured in one
// run; none asserts a speed. Called after MPI and Kokkos are initialised; returns the exit
// status (2 for bad options).
#pragma once

#include <mpi.h>

#include <CLI/CLI.hpp>
#include <vector>

#include "stencil.hpp"

namespace miniapp::bench {

/// Single sweeps (7 and 27 points, Kokkos and hand-written OpenMP) vs a STREAM-style copy.
/// Collective.
int stencil(int argc, char** argv, MPI_Comm comm);
/// Temporal blocking: H x tile -> effective rate vs the single-sweep bound. Collective.
int temporal(int argc, char** argv, MPI_Comm comm);
/// The whole time step (every halo mode x H x blocking x overlap) vs the copy bound, with
/// each phase and a digest check. Collective.
int step(int argc, char** argv, MPI_Comm comm);
/// Every halo mode x packing x width x overlap against an alpha-beta bound. Collective.
int halo(int argc, char** argv, MPI_Comm comm);
/// Native MPI_Alltoall vs the torus all-to-all (zero-copy and pack-based). Collective.
int alltoall(int argc, char** argv, MPI_Comm comm);
/// Distributed 3D FFT and pencil transposes, zero-copy vs pack vs FFTW-MPI. Collective.
int fft(int argc, char** argv, MPI_Comm comm);
/// Checkpoint write/read bandwidth vs raw pwrite+fsync / pread. Collective.
int io(int argc, char** argv, MPI_Comm comm);

/// Parse a benchmark's options: -1 to go on, else the exit status to return (0 after --help,
/// whose text rank 0 printed; 2 after a bad option, with one message from rank 0). Every rank
/// parses the same arguments, so all agree. Not collective.
int parse_options(CLI::App& app, int argc, char** argv, MPI_Comm comm);

/// Median of v (0 for an empty v). Not collective.
double median(std::vector<double> v);

/// The benchmarks' column label of a kind of stores: "nt" (streaming) or "ord".
inline const char* stores_label(SweepStores s) {
  return s == SweepStores::Streaming ? "nt" : "ord";
}

}  // namespace miniapp::bench
