// Temporal blocking: the k sub-steps of a deep-halo round fused over tiles give the
// serial single-domain reference bit for bit, for every stencil, boundary kind, halo width
// H in {1, 2, 3, 4, 8}, tile shape (automatic, and small tiles whose cones overlap several
// neighbours and cross the ghost zones), with and without overlap, on every rank grid that fits.
#include "temporal_blocking.hpp"
#include "test_support.hpp"
#include "time_stepper.hpp"

namespace miniapp::test {
namespace {

std::string describe(const Config& c) {
  return "stencil " + std::to_string(c.stencil) + " H=" + std::to_string(c.halo_width) + " tile " +
         std::to_string(c.tile[0]) + "x" + std::to_string(c.tile[1]) + "x" +
         std::to_string(c.tile[2]) + (c.overlap ? " overlap " : " ") + to_string(c.halo_mode) +
         " ranks " + std::to_string(c.ranks[0]) + "x" + std::to_string(c.ranks[1]) + "x" +
         std::to_string(c.ranks[2]) + " bc " + to_string(c.bc[0]) + "/" + to_string(c.bc[1]) + "/" +
         to_string(c.bc[2]);
}

const std::vector<std::array<Boundary, 3>> kBoundaries = {
    {Boundary::Periodic, Boundary::Periodic, Boundary::Periodic},
    {Boundary::Dirichlet, Boundary::Neumann, Boundary::Periodic},
    {Boundary::Neumann, Boundary::Dirichlet, Boundary::Neumann},
    {Boundary::Dirichlet, Boundary::Dirichlet, Boundary::Dirichlet},
    {Boundary::Neumann, Boundary::Neumann, Boundary::Neumann}};

/// Run every (bc, stencil, H, tile, overlap) with temporal blocking on every rank grid that fits
/// and compare with the reference. Returns the number of runs compared (on rank 0).
int sweep(const Index3& grid, const std::vector<Index3>& rank_grids, const std::vector<int>& widths,
          const std::vector<Index3>& tiles, std::int64_t steps) {
  int compared = 0;
  on_rank_grids(rank_grids, [&](const Index3& p, MPI_Comm comm) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    for (const auto& bc : kBoundaries)
      for (int stencil : {7, 27}) {
        Config c = sweep_case(grid, bc, stencil, steps, p, 7);
        c.temporal_blocking = true;
        const std::vector<double> expected = rank == 0 ? reference_after(c) : std::vector<double>{};
        for (int h : widths)
          for (const Index3& tile : tiles)
            for (bool overlap : {false, true}) {
              c.halo_width = h;
              c.tile = tile;
              c.overlap = overlap;
              // Alternate the halo modes so that each meets the blocked rounds.
              c.halo_mode = (h + overlap) % 2 ? HaloMode::DimOrdered : HaloMode::Neighbors26;
              try {
                c.validate();
                c.validate_for(p[0] * p[1] * p[2]);
                resolve_rank_grid(c, p[0] * p[1] * p[2]);
              } catch (const ConfigError&) {
                continue;  // H above the local extent
              }
              TimeStepper sim = make_stepper(c, comm);
              sim.run(steps);
              const std::vector<double> got = gather_global(sim.field(), c.grid, comm);
              if (rank == 0) {
                EXPECT_EQ(first_bitwise_difference(got, expected), -1) << describe(c);
                ++compared;
              }
            }
      }
  });
  return compared;
}

TEST(TemporalBlocking, BitIdenticalForEveryStencilBoundaryWidthTileAndRankGrid) {
  // Uneven blocks; 7 steps = rounds of H plus a partial round for every H < 7.
  const int n = sweep({13, 11, 10}, {{1, 1, 1}, {2, 1, 1}, {2, 2, 1}, {2, 2, 2}}, {1, 2, 3, 4},
                      {{0, 0, 0}, {4, 3, 2}, {16, 5, 3}}, 7);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) EXPECT_GE(n, 240);  // the sweep really ran (240 runs on 1x1x1 alone)
}

TEST(TemporalBlocking, BitIdenticalWithEightLayerHalos) {
  // H = 8 needs 8 cells per rank and dimension: 11 steps = one round of 8 and one of 3.
  const int n = sweep({18, 17, 9}, {{1, 1, 1}, {2, 1, 1}}, {8}, {{0, 0, 0}, {5, 4, 3}}, 11);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) EXPECT_GE(n, 40);
}

TEST(TemporalBlocking, TwoDimensionalProblemsAreBitIdentical) {
  const int n =
      sweep({13, 11, 1}, {{1, 1, 1}, {2, 1, 1}, {2, 2, 1}}, {1, 3, 4}, {{0, 0, 0}, {4, 3, 1}}, 6);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) EXPECT_GE(n, 60);
}

TEST(TemporalBlocking, CountsTheRedundantUpdatesOfOverlappingCones) {
  // 1 rank, periodic, 8^3 cells in 8 tiles of 4^3, H = 2: sub-step 0 of each tile updates its
  // 6^3 cone, sub-step 1 the tile. Redundant: 8 * 6^3 + 512 - 2 * 512.
  Config c;
  c.grid = {8, 8, 8};
  c.ranks = {1, 1, 1};
  c.halo_width = 2;
  c.temporal_blocking = true;
  c.tile = {4, 4, 4};
  CommHandle comm = first_ranks(1);
  if (comm.get() == MPI_COMM_NULL) return;
  TimeStepper sim = make_stepper(c, comm.get());
  ASSERT_NE(sim.blocking(), nullptr);
  EXPECT_EQ(sim.blocking()->tiles().size(), 8u);
  EXPECT_EQ(sim.blocking()->inner_tiles(), 0);  // every cone reaches a ghost
  sim.run(2);
  EXPECT_EQ(sim.times().redundant, 8 * 216 + 512 - 2 * 512);
  EXPECT_EQ(sim.halo().counters().exchanges, 1);
}

TEST(TemporalBlocking, InnerTilesReadNoGhost) {
  // 24^3 in tiles of 8^3, H = 4: only the centre tile's cone (grown by 4) stays inside.
  const Box owned{{0, 0, 0}, {24, 24, 24}};
  Field u("u", owned, 4);
  std::vector<Box> regions;
  for (int s = 0; s < 4; ++s) regions.push_back(u.padded().grown(-(s + 1)));
  const TemporalBlocking tb(u, {8, 8, 8}, regions, {}, 7, {0.1, 0.1, 0.1}, false);
  ASSERT_EQ(tb.tiles().size(), 27u);
  ASSERT_EQ(tb.inner_tiles(), 1);
  EXPECT_EQ(tb.tiles()[0], (Box{{12, 12, 12}, {20, 20, 20}}));
}

TEST(TemporalBlocking, AutomaticTileFitsTheBudgetAndKeepsLinesLong) {
  for (int h : {1, 2, 4, 8}) {
    const Index3 t = auto_tile({256, 256, 256}, h, false);
    const std::int64_t scratch =
        2 * 8 * std::int64_t(t[0] + 2 * h) * (t[1] + 2 * h) * (t[2] + 2 * h);
    EXPECT_LE(scratch, temporal_blocking_budget(h)) << "H=" << h;
    EXPECT_GE(t[0], 32) << "H=" << h;
  }
  EXPECT_EQ(auto_tile({6, 5, 4}, 2, false), (Index3{6, 5, 4}));  // a small block is one tile
  EXPECT_EQ(auto_tile({64, 64, 1}, 2, true)[2], 1);
}

}  // namespace
}  // namespace miniapp::test
