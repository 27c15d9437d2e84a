// Benchmarks: `miniapp bench NAME [options]`. Each prints figures and ratios measured in one
// run; none asserts a speed. Called after MPI and Kokkos are initialised; returns the exit
// status (2 for bad options).
#pragma once

#include <mpi.h>

namespace miniapp::bench {

int stencil(int argc, char** argv, MPI_Comm comm);
/// Native MPI_Alltoall vs the torus all-to-all (zero-copy and pack-based). Collective.
int alltoall(int argc, char** argv, MPI_Comm comm);
/// Distributed 3D FFT and pencil transposes, zero-copy vs pack vs FFTW-MPI (issue 5).
int fft(int argc, char** argv, MPI_Comm comm);
/// Checkpoint write/read bandwidth vs raw pwrite+fsync / pread (miniapp/bench_io.cpp).
int io(int argc, char** argv, MPI_Comm comm);
int halo(int argc, char** argv, MPI_Comm comm);  // halo exchange family (issue 3)

}  // namespace miniapp::bench
