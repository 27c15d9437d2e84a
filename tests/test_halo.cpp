// Ghost content after one exchange: owned cells hold their global index, ghosts a sentinel;
// afterwards every ghost (faces, edges, corners) holds exactly what the single-domain
// reference's dimension-ordered fill puts there: the neighbour's index, the dirichlet value,
// or the neumann mirror.
#include "box_kernels.hpp"
#include "halo_exchange.hpp"
#include "simulation.hpp"
#include "test_support.hpp"

namespace miniapp::test {
namespace {

constexpr double kSentinel = -12345.0;

/// Global linear index as a value (exact in a double for these sizes).
double index_value(const Index3& n, int x, int y, int z) {
  return double(x) + double(n[0]) * (double(y) + double(n[1]) * z);
}

void fill_indices(Field& u, const Index3& global) {
  double* p = u.data();
  const Field f = u;
  const Box in = u.interior();
  const Index3 off{u.owned().lo[0] - u.halo(), u.owned().lo[1] - u.halo(),
                   u.owned().lo[2] - u.halo()};
  for_each_cell("test::fill", u.padded(), KOKKOS_LAMBDA(int i, int j, int k) {
    p[f.index(i, j, k)] = in.contains(i, j, k)
                              ? double(i + off[0]) +
                                    double(global[0]) * (double(j + off[1]) +
                                                         double(global[1]) * (k + off[2]))
                              : kSentinel;
  });
  Kokkos::fence();
}

TEST(Halo, DimOrderedGhostsMatchSingleDomainFill) {
  const std::vector<Index3> grids = {{1, 1, 1}, {2, 1, 1}, {1, 2, 1}, {2, 2, 1}, {1, 2, 2},
                                     {2, 2, 2}, {3, 1, 2}};
  const std::vector<std::array<Boundary, 3>> bcs = {
      {Boundary::Periodic, Boundary::Periodic, Boundary::Periodic},
      {Boundary::Dirichlet, Boundary::Neumann, Boundary::Periodic},
      {Boundary::Neumann, Boundary::Dirichlet, Boundary::Dirichlet},
      {Boundary::Periodic, Boundary::Neumann, Boundary::Neumann}};
  for (const auto& bc : bcs) {
    Config c;
    c.grid = {7, 6, 5};
    c.bc = bc;
    c.bc_value = -7.5;
    c.init = InitKind::Random;
    // The reference filled with global indices instead of the random field.
    for (const Index3& p : grids) {
      const int np = p[0] * p[1] * p[2];
      if (np > world_size()) continue;
      CommHandle comm = first_ranks(np);
      if (comm.get() == MPI_COMM_NULL) continue;
      c.ranks = p;
      Simulation sim(c, comm.get());
      Field& u = sim.field();
      fill_indices(u, c.grid);
      HaloExchange halo(sim.decomposition(), u, c.bc, c.bc_value);
      halo.exchange(u);

      // Expected: the serial reference's ghost fill applied to the index field.
      std::vector<double> pad(std::size_t(9) * 8 * 7, kSentinel);
      auto P = [&](int i, int j, int k) -> double& { return pad[i + 9 * (j + 8 * k)]; };
      for (int z = 0; z < 5; ++z)
        for (int y = 0; y < 6; ++y)
          for (int x = 0; x < 7; ++x) P(x + 1, y + 1, z + 1) = index_value(c.grid, x, y, z);
      for (int d = 0; d < 3; ++d) {
        int lo[3] = {1, 1, 1}, hi[3] = {8, 7, 6};
        const int n[3] = {7, 6, 5};
        for (int e = 0; e < d; ++e) lo[e] = 0, hi[e] = n[e] + 2;
        for (int side = 0; side < 2; ++side) {
          lo[d] = side == 0 ? 0 : n[d] + 1;
          hi[d] = lo[d] + 1;
          for (int k = lo[2]; k < hi[2]; ++k)
            for (int j = lo[1]; j < hi[1]; ++j)
              for (int i = lo[0]; i < hi[0]; ++i) {
                int s[3] = {i, j, k};
                if (bc[d] == Boundary::Periodic) s[d] = side == 0 ? n[d] : 1;
                if (bc[d] == Boundary::Neumann) s[d] = side == 0 ? 1 : n[d];
                P(i, j, k) = bc[d] == Boundary::Dirichlet ? c.bc_value : P(s[0], s[1], s[2]);
              }
        }
      }
      auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), u.view());
      int bad = 0;
      const Box padded = u.padded();
      for (int k = 0; k < padded.hi[2]; ++k)
        for (int j = 0; j < padded.hi[1]; ++j)
          for (int i = 0; i < padded.hi[0]; ++i) {
            const int x = u.global_coord(0, i) + 1, y = u.global_coord(1, j) + 1,
                      z = u.global_coord(2, k) + 1;
            const double want = P(x, y, z), got = host(u.index(i, j, k));
            if (got != want && bad++ < 5)
              ADD_FAILURE() << "grid " << p[0] << "x" << p[1] << "x" << p[2] << " bc "
                            << to_string(bc[0]) << "/" << to_string(bc[1]) << "/"
                            << to_string(bc[2]) << " local (" << i << "," << j << "," << k
                            << "): got " << got << " want " << want;
          }
      EXPECT_EQ(bad, 0);
    }
  }
}

TEST(Halo, CountsMessagesAndBytesAsTheSeed) {
  // dim-ordered, n^3 block, width h, all periodic: 2h n^2 + 2h n (n+2h) + 2h (n+2h)^2 values.
  Config c;
  c.grid = {8, 8, 8};
  CommHandle comm = first_ranks(1);
  if (comm.get() == MPI_COMM_NULL) return;
  Simulation sim(c, comm.get());
  const std::int64_t n = 8, h = 1;
  EXPECT_EQ(sim.halo().messages_per_exchange(), 6);
  EXPECT_EQ(sim.halo().bytes_per_exchange(),
            8 * (2 * h * n * n + 2 * h * n * (n + 2 * h) + 2 * h * (n + 2 * h) * (n + 2 * h)));
}

}  // namespace
}  // namespace miniapp::test
