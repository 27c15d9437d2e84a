// Benchmarks: `miniapp bench NAME [options]`. Each prints figures and ratios measured in one
// run; none asserts a speed. Called after MPI and Kokkos are initialised; returns the exit
// status (2 for bad options).
#pragma once

#include <mpi.h>

namespace miniapp::bench {

int stencil(int argc, char** argv, MPI_Comm comm);
int halo(int argc, char** argv, MPI_Comm comm);  // halo exchange family (issue 3)

}  // namespace miniapp::bench
