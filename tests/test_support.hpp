// Helpers shared by the MPI tests: sub-communicators of the world for a given rank count,
// gathering a distributed field on rank 0, and the plain serial single-domain reference.
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

#include "field.hpp"
#include "initial_condition.hpp"
#include "mpi_utils.hpp"
#include "numerics.hpp"
#include "options.hpp"
#include "problem.hpp"
#include "time_stepper.hpp"

namespace miniapp::test {

/// The first p ranks of MPI_COMM_WORLD as a communicator (MPI_COMM_NULL on the others, and on
/// everybody when the world is smaller than p). Collective over the world.
inline CommHandle first_ranks(int p) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm c = MPI_COMM_NULL;
  const bool member = p <= size && rank < p;
  MPI_Comm_split(MPI_COMM_WORLD, member ? 0 : MPI_UNDEFINED, rank, &c);
  return CommHandle(c);
}

inline int world_size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

/// Run f(p, comm) for each rank grid p in `grids` that fits in the world, on a communicator of
/// the first p[0]*p[1]*p[2] ranks (the other ranks skip it). Collective over the world.
template <class F>
void on_rank_grids(const std::vector<Index3>& grids, const F& f) {
  for (const Index3& p : grids) {
    const int np = p[0] * p[1] * p[2];
    if (np > world_size()) continue;
    CommHandle comm = first_ranks(np);
    if (comm.get() != MPI_COMM_NULL) f(p, comm.get());
  }
}

/// Gather the owned cells of u from all ranks of comm into the global array (x fastest) on
/// rank 0 of comm; other ranks get an empty vector. Collective over comm.
inline std::vector<double> gather_global(const Field& u, const Index3& global, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), u.view());
  const Box in = u.interior();
  std::vector<double> mine;
  mine.reserve(std::size_t(in.count()));
  for (int k = in.lo[2]; k < in.hi[2]; ++k)
    for (int j = in.lo[1]; j < in.hi[1]; ++j)
      for (int i = in.lo[0]; i < in.hi[0]; ++i) mine.push_back(host(u.index(i, j, k)));
  int box[6] = {u.owned().lo[0], u.owned().lo[1], u.owned().lo[2],
                u.owned().hi[0], u.owned().hi[1], u.owned().hi[2]};
  std::vector<int> boxes(std::size_t(6) * size), counts(size), displs(size);
  MPI_Gather(box, 6, MPI_INT, boxes.data(), 6, MPI_INT, 0, comm);
  int count = int(mine.size());
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  std::vector<double> all;
  if (rank == 0) {
    int total = 0;
    for (int r = 0; r < size; ++r) displs[r] = total, total += counts[r];
    all.resize(std::size_t(total));
  }
  MPI_Gatherv(mine.data(), count, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE,
              0, comm);
  if (rank != 0) return {};
  std::vector<double> g(std::size_t(global[0]) * global[1] * global[2]);
  for (int r = 0; r < size; ++r) {
    const int* b = &boxes[std::size_t(6) * r];
    std::size_t p = std::size_t(displs[r]);
    for (int z = b[2]; z < b[5]; ++z)
      for (int y = b[1]; y < b[4]; ++y)
        for (int x = b[0]; x < b[3]; ++x)
          g[std::size_t(x) + std::size_t(global[0]) * (y + std::size_t(global[1]) * z)] = all[p++];
  }
  return g;
}

/// Plain serial single-domain reference (no Kokkos, no MPI): the global grid with one ghost
/// layer, ghosts filled dimension by dimension (x over the interior, y over the full x width,
/// z over everything) from periodic wrap or the physical boundary, then the 7-point or
/// 27-point update (problem.stencil). It knows no halo width or mode: one ghost layer,
/// refreshed every step. NZ = 1 with periodic or neumann z is the 2D
/// problem (the z ghosts equal the plane, so every z second difference is 0).
class Reference {
 public:
  explicit Reference(const Problem& c)
      : c_(c),
        n_(c.grid),
        ex_(n_[0] + 2),
        ey_(n_[1] + 2),
        ez_(n_[2] + 2),
        u_(std::size_t(ex_) * ey_ * ez_, 0.0),
        v_(u_) {
    const InitialCondition ic = c.initial_condition();
    for (int z = 0; z < n_[2]; ++z)
      for (int y = 0; y < n_[1]; ++y)
        for (int x = 0; x < n_[0]; ++x) at(u_, x + 1, y + 1, z + 1) = ic(x, y, z);
  }

  /// Fill all ghosts of the current field (what one halo exchange must produce).
  void fill_ghosts() {
    for (int d = 0; d < 3; ++d) {
      int lo[3] = {1, 1, 1}, hi[3] = {n_[0] + 1, n_[1] + 1, n_[2] + 1};
      for (int e = 0; e < d; ++e) lo[e] = 0, hi[e] = n_[e] + 2;
      for (int side = 0; side < 2; ++side) {
        lo[d] = side == 0 ? 0 : n_[d] + 1;
        hi[d] = lo[d] + 1;
        for (int k = lo[2]; k < hi[2]; ++k)
          for (int j = lo[1]; j < hi[1]; ++j)
            for (int i = lo[0]; i < hi[0]; ++i) {
              int s[3] = {i, j, k};
              switch (c_.bc[d]) {
                case Boundary::Periodic:
                  s[d] = side == 0 ? n_[d] : 1;
                  break;
                case Boundary::Neumann:
                  s[d] = side == 0 ? 1 : n_[d];
                  break;
                case Boundary::Dirichlet:
                  break;
              }
              at(u_, i, j, k) =
                  c_.bc[d] == Boundary::Dirichlet ? c_.bc_value : at(u_, s[0], s[1], s[2]);
            }
      }
    }
  }

  /// One time step: fill ghosts, update every interior cell, swap.
  void step() {
    fill_ghosts();
    const Coefficients a = c_.coefficients();
    for (int k = 1; k <= n_[2]; ++k)
      for (int j = 1; j <= n_[1]; ++j)
        for (int i = 1; i <= n_[0]; ++i)
          if (c_.stencil == 27) {
            const auto around = [&](int dx, int dy, int dz) {
              return at(u_, i + dx, j + dy, k + dz);
            };
            at(v_, i, j, k) = diffusion27(around, a.ax, a.ay, a.az);
          } else {
            at(v_, i, j, k) = diffusion7(
                at(u_, i, j, k), at(u_, i - 1, j, k), at(u_, i + 1, j, k), at(u_, i, j - 1, k),
                at(u_, i, j + 1, k), at(u_, i, j, k - 1), at(u_, i, j, k + 1), a.ax, a.ay, a.az);
          }
    std::swap(u_, v_);
  }

  /// Interior as a global array (x fastest).
  std::vector<double> interior() const {
    std::vector<double> g;
    g.reserve(std::size_t(n_[0]) * n_[1] * n_[2]);
    for (int k = 1; k <= n_[2]; ++k)
      for (int j = 1; j <= n_[1]; ++j)
        for (int i = 1; i <= n_[0]; ++i) g.push_back(at(u_, i, j, k));
    return g;
  }

  /// Value at padded global cell (i, j, k) = global (i-1, j-1, k-1).
  double padded(int i, int j, int k) const { return at(u_, i, j, k); }

 private:
  double& at(std::vector<double>& a, int i, int j, int k) {
    return a[std::size_t(i) + std::size_t(ex_) * (j + std::size_t(ey_) * k)];
  }
  double at(const std::vector<double>& a, int i, int j, int k) const {
    return a[std::size_t(i) + std::size_t(ex_) * (j + std::size_t(ey_) * k)];
  }
  Problem c_;
  Index3 n_;
  int ex_, ey_, ez_;
  std::vector<double> u_, v_;
};

/// The case the exactness sweeps run: anisotropic coefficients, a dirichlet value unlike the
/// field's, and a dt that is stable for the stencil (a 2D problem gets neumann instead of an
/// invalid dirichlet z).
inline Config sweep_case(const Index3& grid, const std::array<Boundary, 3>& bc, int stencil,
                         std::int64_t steps, const Index3& ranks, std::uint64_t seed) {
  Config c;
  c.grid = grid;
  c.bc = bc;
  if (c.two_d() && c.bc[2] == Boundary::Dirichlet) c.bc[2] = Boundary::Neumann;
  c.bc_value = 0.25;
  c.kappa = {1.0, 0.7, 0.4};
  c.dt = stencil == 27 ? 0.3 : 0.2;
  c.steps = steps;
  c.seed = seed;
  c.stencil = stencil;
  c.ranks = ranks;
  return c;
}

/// The serial reference's owned cells after c.steps steps (x fastest).
inline std::vector<double> reference_after(const Config& c) {
  Reference ref(c.problem());
  for (std::int64_t s = 0; s < c.steps; ++s) ref.step();
  return ref.interior();
}

/// The library's stepper for a test case: the rank grid the app would choose for the ranks
/// of comm, and the problem, halo and blocking options of the case. Collective over comm.
inline TimeStepper make_stepper(const Config& c, MPI_Comm comm) {
  int n = 1;
  MPI_Comm_size(comm, &n);
  return TimeStepper(c.problem(), c.halo(), c.blocking(), resolve_rank_grid(c, n), comm);
}

/// A halo mode with its packing: the combinations the halo tests loop over.
struct ModeCase {
  HaloMode mode;
  PackKind pack;
};

inline const std::vector<ModeCase> kModes = {
    {HaloMode::DimOrdered, PackKind::Kernel},   {HaloMode::DimOrdered, PackKind::Datatype},
    {HaloMode::Neighbors26, PackKind::Kernel},  {HaloMode::Neighbors26, PackKind::Datatype},
    {HaloMode::NeighborColl, PackKind::Kernel}, {HaloMode::Faces, PackKind::Kernel},
    {HaloMode::Faces, PackKind::Datatype}};

/// Index of the first element where a and b differ bitwise (double_bits: 0.0 and -0.0 differ),
/// or -1.
inline long first_bitwise_difference(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (double_bits(a[i]) != double_bits(b[i])) return long(i);
  return -1;
}

}  // namespace miniapp::test
