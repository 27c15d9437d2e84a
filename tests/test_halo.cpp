// Ghost content after one exchange, every mode and packing: owned cells hold their global
// index, ghosts a sentinel; afterwards every ghost (faces, edges, corners, all H layers) holds
// exactly what the single-domain dimension-ordered fill of the global index field puts there:
// the neighbour's index, the dirichlet value, or the neumann mirror. In faces mode the face
// ghosts must match and every edge and corner ghost must still hold the sentinel.
#include "box_kernels.hpp"
#include "halo_exchange.hpp"
#include "test_support.hpp"
#include "time_stepper.hpp"

namespace miniapp::test {
namespace {

constexpr double kSentinel = -12345.0;

void fill_indices(Field& u, const Index3& global) {
  double* p = u.data();
  const Field f = u;
  const Box in = u.interior();
  const Index3 off{u.owned().lo[0] - u.halo(), u.owned().lo[1] - u.halo(),
                   u.owned().lo[2] - u.halo()};
  for_each_cell(
      "test::fill", u.padded(), KOKKOS_LAMBDA(int i, int j, int k) {
        p[f.index(i, j, k)] =
            in.contains(i, j, k)
                ? double(i + off[0]) +
                      double(global[0]) * (double(j + off[1]) + double(global[1]) * (k + off[2]))
                : kSentinel;
      });
  Kokkos::fence();
}

/// The global index field with h ghost layers filled dimension by dimension as a single
/// domain would: x over the interior, y over the full x width, z over everything.
struct GlobalFill {
  Index3 n;
  int h;
  Index3 e;
  std::vector<double> a;
  GlobalFill(const Index3& n_, int h_, const std::array<Boundary, 3>& bc, double value)
      : n(n_),
        h(h_),
        e{n_[0] + 2 * h_, n_[1] + 2 * h_, n_[2] + 2 * h_},
        a(std::size_t(e[0]) * e[1] * e[2], kSentinel) {
    for (int z = 0; z < n[2]; ++z)
      for (int y = 0; y < n[1]; ++y)
        for (int x = 0; x < n[0]; ++x)
          at(x + h, y + h, z + h) = double(x) + double(n[0]) * (double(y) + double(n[1]) * z);
    for (int d = 0; d < 3; ++d) {
      int lo[3] = {h, h, h}, hi[3] = {n[0] + h, n[1] + h, n[2] + h};
      for (int q = 0; q < d; ++q) lo[q] = 0, hi[q] = e[q];
      for (int side = 0; side < 2; ++side) {
        lo[d] = side == 0 ? 0 : n[d] + h;
        hi[d] = lo[d] + h;
        for (int k = lo[2]; k < hi[2]; ++k)
          for (int j = lo[1]; j < hi[1]; ++j)
            for (int i = lo[0]; i < hi[0]; ++i) {
              int s[3] = {i, j, k};
              if (bc[d] == Boundary::Periodic) s[d] = (s[d] - h + n[d]) % n[d] + h;
              if (bc[d] == Boundary::Neumann)
                s[d] = side == 0 ? 2 * h - 1 - s[d] : 2 * (n[d] + h) - 1 - s[d];
              at(i, j, k) = bc[d] == Boundary::Dirichlet ? value : at(s[0], s[1], s[2]);
            }
      }
    }
  }
  double& at(int i, int j, int k) { return a[i + std::size_t(e[0]) * (j + std::size_t(e[1]) * k)]; }
};

TEST(Halo, GhostsMatchSingleDomainFillInEveryMode) {
  const std::vector<Index3> grids = {{1, 1, 1}, {2, 1, 1}, {1, 2, 1}, {2, 2, 1},
                                     {1, 2, 2}, {2, 2, 2}, {3, 1, 2}};
  const std::vector<std::array<Boundary, 3>> bcs = {
      {Boundary::Periodic, Boundary::Periodic, Boundary::Periodic},
      {Boundary::Dirichlet, Boundary::Neumann, Boundary::Periodic},
      {Boundary::Neumann, Boundary::Dirichlet, Boundary::Dirichlet},
      {Boundary::Periodic, Boundary::Neumann, Boundary::Neumann}};
  for (const Index3& p : grids) {
    const int np = p[0] * p[1] * p[2];
    if (np > world_size()) continue;
    CommHandle comm = first_ranks(np);
    if (comm.get() == MPI_COMM_NULL) continue;
    for (const auto& bc : bcs)
      for (int h : {1, 2})
        for (const ModeCase& mc : kModes) {
          if (mc.mode == HaloMode::Faces && h > 1) continue;
          Config c;
          c.grid = {7, 6, 5};
          c.bc = bc;
          c.bc_value = -7.5;
          c.ranks = p;
          c.halo_width = h;
          c.halo_mode = mc.mode;
          c.pack = mc.pack;
          TimeStepper sim = make_stepper(c, comm.get());
          Field& u = sim.field();
          fill_indices(u, c.grid);
          auto halo = make_halo_exchange(c.halo(), sim.decomposition(), u, c.bc, c.bc_value);
          halo->exchange(u);
          halo->exchange(u);  // twice: persistent requests are restarted

          GlobalFill want(c.grid, h, bc, c.bc_value);
          auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), u.view());
          int bad = 0;
          const Box padded = u.padded(), in = u.interior();
          for (int k = 0; k < padded.hi[2]; ++k)
            for (int j = 0; j < padded.hi[1]; ++j)
              for (int i = 0; i < padded.hi[0]; ++i) {
                const int outside = (i < in.lo[0] || i >= in.hi[0]) +
                                    (j < in.lo[1] || j >= in.hi[1]) +
                                    (k < in.lo[2] || k >= in.hi[2]);
                const double expect =
                    mc.mode == HaloMode::Faces && outside > 1
                        ? kSentinel
                        : want.at(u.global_coord(0, i) + h, u.global_coord(1, j) + h,
                                  u.global_coord(2, k) + h);
                const double got = host(u.index(i, j, k));
                if (got != expect && bad++ < 3)
                  ADD_FAILURE() << to_string(mc.mode) << "/" << to_string(mc.pack) << " h=" << h
                                << " grid " << p[0] << "x" << p[1] << "x" << p[2] << " bc "
                                << to_string(bc[0]) << "/" << to_string(bc[1]) << "/"
                                << to_string(bc[2]) << " local (" << i << "," << j << "," << k
                                << "): got " << got << " want " << expect;
              }
          EXPECT_EQ(bad, 0);
          EXPECT_EQ(halo->counters().exchanges, 2);
        }
  }
}

TEST(Halo, StorageRunsAreWholePaddedRows) {
  // Extents 9 x 8 x 7 with rows of a longer pitch: the runs count the rows' padding.
  const Field f = Field::shape_only(Box{{0, 0, 0}, {7, 6, 5}}, 1);
  const std::int64_t pitch = f.stride_y(), plane = f.stride_z();
  ASSERT_GT(pitch, 9);
  const Index3 e = f.ext();
  // Whole planes (a z face with its x and y ghosts): the planes one after another.
  StorageRun r = storage_run(Box{{0, 0, 5}, {e[0], e[1], 7}}, f);
  EXPECT_EQ(r.offset, 5 * plane);
  EXPECT_EQ(r.count, 2 * plane);
  // Whole rows of one plane (a y face of a 2D problem).
  r = storage_run(Box{{0, 2, 3}, {e[0], 5, 4}}, f);
  EXPECT_EQ(r.offset, 3 * plane + 2 * pitch);
  EXPECT_EQ(r.count, 3 * pitch);
  // Not one run: part of the rows, part of the planes' rows over two planes, empty.
  EXPECT_EQ(storage_run(Box{{1, 0, 0}, {e[0], e[1], 2}}, f).count, 0);
  EXPECT_EQ(storage_run(Box{{0, 1, 0}, {e[0], e[1], 2}}, f).count, 0);
  EXPECT_EQ(storage_run(Box{{0, 0, 0}, {e[0], e[1], 0}}, f).count, 0);
}

TEST(Halo, DimOrderedSendsWholePlanesToAnotherRankInPlace) {
  // Split along z over two ranks: the dim-ordered z faces are whole padded planes, which MPI
  // sends from the field and receives into it (kernel packing); faces mode's z faces cover the
  // interior only, datatype packing sends every box as a datatype, and on one rank the faces
  // are this rank's own (copied, no MPI).
  for (const int np : {1, 2}) {
    if (np > world_size()) continue;
    CommHandle comm = first_ranks(np);
    if (comm.get() == MPI_COMM_NULL) continue;
    for (const ModeCase& mc : kModes) {
      if (mc.mode == HaloMode::NeighborColl) continue;
      Config c;
      c.grid = {7, 6, 10};
      c.ranks = {1, 1, np};
      c.halo_width = 2;
      c.halo_mode = mc.mode;
      c.pack = mc.pack;
      TimeStepper sim = make_stepper(c, comm.get());
      const auto* p2p = dynamic_cast<const PointToPointHalo*>(&sim.halo());
      ASSERT_NE(p2p, nullptr);
      const bool want = np == 2 && mc.mode == HaloMode::DimOrdered && mc.pack == PackKind::Kernel;
      EXPECT_EQ(p2p->messages_in_place(), want ? 2 : 0)
          << to_string(mc.mode) << "/" << to_string(mc.pack) << " on " << np << " rank(s)";
    }
  }
}

}  // namespace
}  // namespace miniapp::test
