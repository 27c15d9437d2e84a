// The halo exchange family end to end: every mode x packing x stencil x halo width x overlap x
// boundary kinds x rank grid gives the serial single-domain reference bit for bit; the plans
// send exactly the closed-form message and byte counts; 2D problems reproduce the original design
// note's figures.
#include <chrono>
#include <thread>

#include "calibration.hpp"
#include "diagnostics.hpp"
#include "halo_exchange.hpp"
#include "test_support.hpp"
#include "time_stepper.hpp"

namespace miniapp::test {
namespace {

std::string describe(const Config& c) {
  return std::string(to_string(c.halo_mode)) + "/" + to_string(c.pack) + " stencil " +
         std::to_string(c.stencil) + " H=" + std::to_string(c.halo_width) +
         (c.overlap ? " overlap" : "") + " ranks " + std::to_string(c.ranks[0]) + "x" +
         std::to_string(c.ranks[1]) + "x" + std::to_string(c.ranks[2]) + " bc " +
         to_string(c.bc[0]) + "/" + to_string(c.bc[1]) + "/" + to_string(c.bc[2]) + " grid " +
         std::to_string(c.grid[0]) + "x" + std::to_string(c.grid[1]) + "x" +
         std::to_string(c.grid[2]);
}

/// Run every valid (mode, pack, stencil, H, overlap) on every rank grid that fits the world and
/// compare with the reference. Returns the number of runs compared (on this rank).
int sweep(const Index3& grid, const std::vector<Index3>& rank_grids,
          const std::vector<std::array<Boundary, 3>>& bcs, std::int64_t steps) {
  int compared = 0;
  for (const Index3& p : rank_grids) {
    const int np = p[0] * p[1] * p[2];
    if (np > world_size()) continue;
    CommHandle comm = first_ranks(np);
    if (comm.get() == MPI_COMM_NULL) continue;
    int rank = 0;
    MPI_Comm_rank(comm.get(), &rank);
    for (const auto& bc : bcs)
      for (int stencil : {7, 27}) {
        Config c = sweep_case(grid, bc, stencil, steps, p, 99);
        const std::vector<double> expected = rank == 0 ? reference_after(c) : std::vector<double>{};
        for (int h : {1, 2, 3})
          for (const ModeCase& mc : kModes)
            for (bool overlap : {false, true}) {
              c.halo_width = h;
              c.halo_mode = mc.mode;
              c.pack = mc.pack;
              c.overlap = overlap;
              try {
                c.validate();
                c.validate_for(np);
              } catch (const ConfigError&) {
                continue;  // faces with 27 points or H > 1; H above the local extent
              }
              TimeStepper sim = make_stepper(c, comm.get());
              sim.run(steps);
              const std::vector<double> got = gather_global(sim.field(), c.grid, comm.get());
              if (rank == 0) {
                EXPECT_EQ(first_bitwise_difference(got, expected), -1) << describe(c);
                ++compared;
              }
            }
      }
  }
  return compared;
}

TEST(HaloFamily, BitIdenticalForEveryModeStencilWidthOverlapBoundaryAndRankGrid) {
  const std::vector<std::array<Boundary, 3>> bcs = {
      {Boundary::Periodic, Boundary::Periodic, Boundary::Periodic},
      {Boundary::Dirichlet, Boundary::Neumann, Boundary::Periodic},
      {Boundary::Neumann, Boundary::Periodic, Boundary::Dirichlet},
      {Boundary::Periodic, Boundary::Dirichlet, Boundary::Neumann}};
  // Uneven: 13 = 5+4+4 over 3 ranks, 11 = 6+5, 10 = 5+5; 7 steps = 2 rounds of 3 + 1.
  const int n =
      sweep({13, 11, 10}, {{1, 1, 1}, {2, 1, 1}, {2, 2, 1}, {2, 2, 2}, {3, 2, 1}}, bcs, 7);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) EXPECT_GT(n, 100);  // the sweep really ran
}

TEST(HaloFamily, TwoDimensionalProblemsAreBitIdentical) {
  // NZ = 1: no z exchange, no z term; the reference treats z as periodic (ghost = the plane).
  const int n = sweep({13, 11, 1}, {{1, 1, 1}, {2, 1, 1}, {2, 2, 1}, {3, 2, 1}},
                      {{Boundary::Periodic, Boundary::Periodic, Boundary::Periodic},
                       {Boundary::Dirichlet, Boundary::Neumann, Boundary::Neumann}},
                      5);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) EXPECT_GT(n, 20);
}

TEST(HaloFamily, DeepHaloCountsRedundantUpdates) {
  // 1 rank, all periodic, n^3 = 6^3, H = 3, 3 steps: sub-step s updates (n + 2(H-1-s))^3 cells.
  Config c;
  c.grid = {6, 6, 6};
  c.ranks = {1, 1, 1};
  c.halo_width = 3;
  CommHandle comm = first_ranks(1);
  if (comm.get() == MPI_COMM_NULL) return;
  TimeStepper sim = make_stepper(c, comm.get());
  sim.run(3);
  EXPECT_EQ(sim.times().redundant, (10 * 10 * 10 - 216) + (8 * 8 * 8 - 216) + 0);
  EXPECT_EQ(sim.halo().counters().exchanges, 1);
}

TEST(HaloFamily, SineModeDecaysByTheExact27PointFactor) {
  // The sine mode is an eigenvector of the 27-point scheme too: a closed-form check that the
  // kernel computes the documented weights (a wrong edge or corner weight changes the factor).
  Config c;
  c.grid = {16, 12, 8};
  c.init = InitKind::Sine;
  c.sine_mode = {1, 2, 1};
  c.stencil = 27;
  c.kappa = {1.0, 0.7, 0.4};
  c.dt = 0.3;
  c.steps = 20;
  c.halo_mode = HaloMode::Neighbors26;
  c.halo_width = 2;
  CommHandle comm = first_ranks(std::min(4, world_size()));
  if (comm.get() == MPI_COMM_NULL) return;
  TimeStepper sim = make_stepper(c, comm.get());
  sim.run(c.steps);
  const InitialCondition ic = c.problem().initial_condition();
  double amp = 1, amp7 = 1;
  for (int s = 0; s < c.steps; ++s) {
    amp *= ic.sine_growth(c.problem().coefficients(), 27);
    amp7 *= ic.sine_growth(c.problem().coefficients(), 7);
  }
  EXPECT_LT(amp, 0.9);
  EXPECT_LT(max_error(sim.field(), ic, amp, comm.get()), 1e-13);
  EXPECT_GT(max_error(sim.field(), ic, amp7, comm.get()), 1e-4);  // not the 7-point factor
}

// ---- closed-form message and byte counts ----------------------------------------------------
//
// A rank with an n^3 block and width h, all six face neighbours present (periodic, any rank
// grid; self-messages count), sends per exchange, in values of 8 bytes:
//
//   dim-ordered   phase x: 2 faces h * n * n               (y, z interior)
//                 phase y: 2 faces h * (n+2h) * n          (x in full, z interior)
//                 phase z: 2 faces h * (n+2h) * (n+2h)     (x, y in full)
//                 = 2h n^2 + 2h n (n+2h) + 2h (n+2h)^2                        6 messages
//   neighbors26   6 faces h n^2 + 12 edges h^2 n + 8 corners h^3                26 messages
//   Expanding, 2hn^2 + 2hn(n+2h) + 2h(n+2h)^2 = 6hn^2 + 12h^2n + 8h^3: both move exactly the
//   ghost volume (n+2h)^3 - n^3, once; dim-ordered needs 6 messages, neighbors26 26.
//   neighbor-coll the neighbors26 plan                                          26 messages
//   faces         6 h n^2 (h = 1 only)                                          6 messages
//
// 2D (NZ = 1), an nx x ny block: dim-ordered 2h ny + 2h (nx+2h) values (4 messages); the design
// note's 1024^2 grid on 16 ranks, h = 1: 4x4 -> 2*256 + 2*258 = 1028 values = 8224 B; 16x1 ->
// 2*1024 + 2*66 = 2180 values = 17440 B; h = 8, 4x4 -> (16*256 + 16*272) * 8 B / 8 steps = 8448 B.

std::int64_t values_dim_ordered(std::int64_t n, std::int64_t h) {
  return 2 * h * n * n + 2 * h * n * (n + 2 * h) + 2 * h * (n + 2 * h) * (n + 2 * h);
}
std::int64_t values_26(std::int64_t n, std::int64_t h) {
  return 6 * h * n * n + 12 * h * h * n + 8 * h * h * h;
}

TEST(HaloFamily, PlansSendTheClosedFormCounts) {
  const std::array<bool, 3> periodic{true, true, true};
  for (const Index3& dims : std::vector<Index3>{{1, 1, 1}, {2, 1, 1}, {4, 4, 4}, {3, 2, 5}})
    for (int h : {1, 2, 3}) {
      const int n = 9;
      const Neighborhood nb = cartesian_neighborhood(dims, {0, dims[1] - 1, 1 % dims[2]}, periodic);
      const HaloPlan dim = plan_halo(HaloMode::DimOrdered, nb, {n, n, n}, h, false);
      const HaloPlan n26 = plan_halo(HaloMode::Neighbors26, nb, {n, n, n}, h, false);
      const HaloPlan coll = plan_halo(HaloMode::NeighborColl, nb, {n, n, n}, h, false);
      EXPECT_EQ(dim.messages_per_exchange(), 6);
      EXPECT_EQ(dim.bytes_per_exchange(), 8 * values_dim_ordered(n, h));
      EXPECT_EQ(n26.messages_per_exchange(), 26);
      EXPECT_EQ(n26.bytes_per_exchange(), 8 * values_26(n, h));
      EXPECT_EQ(coll.bytes_per_exchange(), n26.bytes_per_exchange());
      EXPECT_EQ(values_dim_ordered(n, h), values_26(n, h));
      if (h == 1) {
        const HaloPlan faces = plan_halo(HaloMode::Faces, nb, {n, n, n}, h, false);
        EXPECT_EQ(faces.messages_per_exchange(), 6);
        EXPECT_EQ(faces.bytes_per_exchange(), 8 * 6 * n * n);
      }
    }
  // A corner rank of a non-periodic 2x2x2 grid: 3 face, 3 edge and 1 corner neighbour.
  const Neighborhood corner = cartesian_neighborhood({2, 2, 2}, {1, 0, 1}, {false, false, false});
  const int n = 5;
  EXPECT_EQ(plan_halo(HaloMode::Neighbors26, corner, {n, n, n}, 1, false).bytes_per_exchange(),
            8 * (3 * n * n + 3 * n + 1));
  EXPECT_EQ(plan_halo(HaloMode::DimOrdered, corner, {n, n, n}, 1, false).bytes_per_exchange(),
            8 * (n * n + (n + 2) * n + (n + 2) * (n + 2)));  // later phases span the ghosts
}

TEST(HaloFamily, TwoDimensionalPlansReproduceTheDesignNoteFigures) {
  const std::array<bool, 3> periodic{true, true, true};
  auto bytes = [&](const Index3& dims, int h) {
    const Index3 n{1024 / dims[0], 1024 / dims[1], 1};
    return plan_halo(HaloMode::DimOrdered, cartesian_neighborhood(dims, {1, 0, 0}, periodic), n, h,
                     true)
        .bytes_per_exchange();
  };
  EXPECT_EQ(bytes({4, 4, 1}, 1), 8224);
  EXPECT_EQ(bytes({16, 1, 1}, 1), 17440);
  EXPECT_EQ(bytes({4, 4, 1}, 8) / 8, 8448);  // one exchange per round of 8 steps
}

// Overlap when the messages are late: the other ranks start a while after rank 0 says it is
// about to run, so rank 0's first exchange is still in flight through all its inner slabs (or
// blocked tiles), which then run one at a time, and the shell after it. (On time, the exchange
// completes at its first test and the inner work runs as one sweep.) Bit-identical either way.
TEST(HaloFamily, OverlapWithLateMessagesIsBitIdentical) {
  CommHandle comm = first_ranks(std::min(4, world_size()));
  if (comm.get() == MPI_COMM_NULL) return;
  int rank = 0, np = 1;
  MPI_Comm_rank(comm.get(), &rank);
  MPI_Comm_size(comm.get(), &np);
  if (np < 2) return;
  const std::array<Boundary, 3> bc{Boundary::Periodic, Boundary::Neumann, Boundary::Dirichlet};
  for (int stencil : {7, 27}) {
    Config c = sweep_case({24, 20, 18}, bc, stencil, 4, {0, 0, 0}, 5);
    const std::vector<double> expected = rank == 0 ? reference_after(c) : std::vector<double>{};
    for (HaloMode mode : {HaloMode::DimOrdered, HaloMode::Neighbors26, HaloMode::Faces})
      for (int h : {1, 2})
        for (bool blocking : {false, true}) {
          c.halo_mode = mode;
          c.halo_width = h;
          c.temporal_blocking = blocking;
          c.tile = blocking ? Index3{2, 4, 4} : Index3{0, 0, 0};
          c.overlap = true;
          try {
            c.validate();
            c.validate_for(np);
          } catch (const ConfigError&) {
            continue;  // faces with 27 points or H > 1
          }
          TimeStepper sim = make_stepper(c, comm.get());
          // The blocked rounds overlap only tiles whose cone reads no ghost: small tiles, so
          // that there are some (the automatic tile of a block this small is the whole block,
          // and then nothing can run while the messages fly).
          if (blocking) EXPECT_GT(sim.blocking()->inner_tiles(), 0) << describe(c);
          // The delay counts from rank 0's word that it is about to run, not from the end of
          // the stepper's construction.
          if (rank == 0) {
            for (int r = 1; r < np; ++r) MPI_Send(nullptr, 0, MPI_BYTE, r, 99, comm.get());
          } else {
            MPI_Recv(nullptr, 0, MPI_BYTE, 0, 99, comm.get(), MPI_STATUS_IGNORE);
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
          }
          sim.run(c.steps);
          const std::vector<double> got = gather_global(sim.field(), c.grid, comm.get());
          if (rank == 0) {
            EXPECT_EQ(first_bitwise_difference(got, expected), -1)
                << describe(c) << (blocking ? " blocked" : "");
            EXPECT_GT(sim.times().hidden, 0.0) << describe(c) << (blocking ? " blocked" : "");
          }
        }
  }
}

TEST(HaloFamily, ExecutedCountersEqualThePlan) {
  CommHandle comm = first_ranks(std::min(4, world_size()));
  if (comm.get() == MPI_COMM_NULL) return;
  for (const ModeCase& mc : kModes) {
    Config c;
    c.grid = {10, 9, 8};
    c.halo_mode = mc.mode;
    c.pack = mc.pack;
    c.halo_width = mc.mode == HaloMode::Faces ? 1 : 2;
    TimeStepper sim = make_stepper(c, comm.get());
    sim.run(5);  // rounds of 2, 2, 1 steps (H = 2): 3 exchanges
    const std::int64_t rounds = mc.mode == HaloMode::Faces ? 5 : 3;
    EXPECT_EQ(sim.halo().counters().exchanges, rounds);
    EXPECT_EQ(sim.halo().counters().messages, rounds * sim.halo().messages_per_exchange());
    EXPECT_EQ(sim.halo().counters().bytes, rounds * sim.halo().bytes_per_exchange());
  }
}

TEST(HaloFamily, SweepStoresTheXFacesOfAPeriodicXOverOneRank) {
  // After the first exchange, a round's 7-point sweep stores the x ghosts where x is periodic
  // over one rank and kernel packing would copy them, and the exchange leaves them alone: every
  // exchange but the first (rounds of H steps end on the interior; these fields fit in the
  // cache, so the sweeps take ordinary stores). So does a blocked round's last sub-step where
  // its tiles span the block along x. Never where x is split or closed, its faces go through
  // MPI (datatypes, neighbor-coll), tiles narrower than the block do the sweeping, or the
  // stencil has 27 points (it costs that sweep more than the copy). That all of these stay
  // exact: the tests above and test_temporal_blocking.cpp.
  CommHandle comm = first_ranks(std::min(2, world_size()));
  if (comm.get() == MPI_COMM_NULL) return;
  int np = 1;
  MPI_Comm_size(comm.get(), &np);
  struct Case {
    HaloMode mode;
    PackKind pack;
    int width, stencil;
    bool overlap, blocking;
    int tile_x;  // blocking's tile along x, 0 for automatic (the whole block here)
    Boundary x;
    Index3 ranks;
    bool can, used;  // x_faces_from_sweep(), and the sweeps stored them
  };
  const Boundary P = Boundary::Periodic, N = Boundary::Neumann;
  const Index3 z_split{1, 1, np}, x_split{np, 1, 1};
  const std::vector<Case> cases = {
      {HaloMode::DimOrdered, PackKind::Kernel, 1, 7, false, false, 0, P, z_split, true, true},
      {HaloMode::DimOrdered, PackKind::Kernel, 1, 7, true, false, 0, P, z_split, true, true},
      {HaloMode::DimOrdered, PackKind::Kernel, 1, 27, true, false, 0, P, z_split, true, false},
      {HaloMode::DimOrdered, PackKind::Kernel, 2, 7, true, false, 0, P, z_split, true, true},
      {HaloMode::Neighbors26, PackKind::Kernel, 1, 7, true, false, 0, P, z_split, true, true},
      {HaloMode::Faces, PackKind::Kernel, 1, 7, false, false, 0, P, z_split, true, true},
      {HaloMode::DimOrdered, PackKind::Kernel, 1, 7, false, false, 0, N, z_split, false, false},
      {HaloMode::DimOrdered, PackKind::Datatype, 1, 7, false, false, 0, P, z_split, false, false},
      {HaloMode::NeighborColl, PackKind::Kernel, 1, 7, false, false, 0, P, z_split, false, false},
      {HaloMode::DimOrdered, PackKind::Kernel, 2, 7, false, true, 0, P, z_split, true, true},
      {HaloMode::DimOrdered, PackKind::Kernel, 3, 7, true, true, 0, P, z_split, true, true},
      {HaloMode::DimOrdered, PackKind::Kernel, 2, 7, false, true, 8, P, z_split, true, false},
      {HaloMode::DimOrdered, PackKind::Kernel, 2, 27, false, true, 0, P, z_split, true, false},
      {HaloMode::DimOrdered, PackKind::Kernel, 1, 7, false, false, 0, P, x_split, np == 1,
       np == 1}};
  for (const Case& k : cases) {
    Config c = sweep_case({12, 10, 8}, {k.x, P, N}, k.stencil, 6, k.ranks, 5);
    c.halo_mode = k.mode;
    c.pack = k.pack;
    c.halo_width = k.width;
    c.overlap = k.overlap;
    c.temporal_blocking = k.blocking;
    c.tile = {k.tile_x, 0, 0};
    TimeStepper sim = make_stepper(c, comm.get());
    sim.run(6);
    const HaloCounters& h = sim.halo().counters();
    EXPECT_EQ(sim.halo().x_faces_from_sweep(), k.can) << describe(c);
    // --halo-width auto's calibration predicts the same before any exchange exists.
    EXPECT_EQ(run_x_ghosts(c, resolve_rank_grid(c, np)) == XGhosts::Wrap, k.can) << describe(c);
    EXPECT_EQ(h.x_faces_from_sweep, k.used ? h.exchanges - 1 : 0) << describe(c);
    EXPECT_EQ(h.exchanges, 6 / k.width) << describe(c);
  }
}

}  // namespace
}  // namespace miniapp::test
