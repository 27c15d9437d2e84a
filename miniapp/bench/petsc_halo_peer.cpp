// miniapp_petsc_halo: the PETSc peer of `miniapp bench halo`, built only when PETSc is found.
//
//   mpiexec -n P miniapp_petsc_halo --grid NX NY NZ --ranks PX PY PZ --halo-width H --reps R
//
// The same global grid, rank grid, block sizes (miniapp's block_range) and ghost width through
// a DMDA with a BOX stencil (edges and corners, like miniapp's dim-ordered and 26-neighbour
// exchanges) and periodic boundaries, timed as DMGlobalToLocalBegin/End: median of R, slowest
// rank. Prints "petsc_dmda_global_to_local H SECONDS". Note what it does that an in-place halo
// exchange never does: it also copies the owned interior into the ghosted local vector.
//
// A separate executable because Debian's PETSc loads Trilinos (ML), which brings its own copy
// of Kokkos; two Kokkos runtimes in one process corrupt each other at exit.
#include <petscdmda.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "box.hpp"

namespace {

void check(PetscErrorCode rc, const char* what) {
  if (rc == 0) return;
  std::fprintf(stderr, "miniapp_petsc_halo: %s failed (PETSc error %d)\n", what, int(rc));
  MPI_Abort(MPI_COMM_WORLD, 1);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  miniapp::Index3 grid{64, 64, 64}, dims{0, 0, 0};
  int h = 1, reps = 50;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() { return i + 1 < argc ? std::atoi(argv[++i]) : 0; };
    if (a == "--grid")
      grid = {next(), next(), next()};
    else if (a == "--ranks")
      dims = {next(), next(), next()};
    else if (a == "--halo-width")
      h = next();
    else if (a == "--reps")
      reps = std::max(1, next());
    else {
      if (rank == 0)
        std::fprintf(stderr, "miniapp_petsc_halo: error: unknown argument '%s'\n", a.c_str());
      MPI_Finalize();
      return 2;
    }
  }
  if (dims[0] * dims[1] * dims[2] != size) {
    if (rank == 0)
      std::fprintf(stderr, "miniapp_petsc_halo: error: --ranks must multiply to %d\n", size);
    MPI_Finalize();
    return 2;
  }
  check(PetscInitializeNoArguments(), "PetscInitialize");
  std::vector<PetscInt> l[3];
  for (int d = 0; d < 3; ++d)
    for (int r = 0; r < dims[d]; ++r) {
      const auto range = miniapp::block_range(grid[d], dims[d], r);
      l[d].push_back(PetscInt(range[1] - range[0]));
    }
  DM da;
  check(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_PERIODIC, DM_BOUNDARY_PERIODIC,
                     DM_BOUNDARY_PERIODIC, DMDA_STENCIL_BOX, grid[0], grid[1], grid[2], dims[0],
                     dims[1], dims[2], 1, h, l[0].data(), l[1].data(), l[2].data(), &da),
        "DMDACreate3d");
  check(DMSetUp(da), "DMSetUp");
  Vec g, loc;
  check(DMCreateGlobalVector(da, &g), "DMCreateGlobalVector");
  check(DMCreateLocalVector(da, &loc), "DMCreateLocalVector");
  check(VecSet(g, 1.0), "VecSet");
  std::vector<double> t;
  for (int r = 0; r < reps + 3; ++r) {
    const double t0 = MPI_Wtime();
    check(DMGlobalToLocalBegin(da, g, INSERT_VALUES, loc), "DMGlobalToLocalBegin");
    check(DMGlobalToLocalEnd(da, g, INSERT_VALUES, loc), "DMGlobalToLocalEnd");
    if (r >= 3) t.push_back(MPI_Wtime() - t0);
  }
  std::sort(t.begin(), t.end());
  double mine = t[t.size() / 2], slowest = 0;
  MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) std::printf("petsc_dmda_global_to_local %d %.9e\n", h, slowest);
  check(VecDestroy(&loc), "VecDestroy");
  check(VecDestroy(&g), "VecDestroy");
  check(DMDestroy(&da), "DMDestroy");
  check(PetscFinalize(), "PetscFinalize");
  MPI_Finalize();
  return 0;
}
