// Temporal blocking: the k sub-steps of a deep-halo round fused over tiles give the
// serial single-domain reference bit for bit, for every stencil, boundary kind, halo width
// H in {1, 2, 3, 4, 8}, tile shape (automatic, and small tiles whose cones overlap several
// neighbours and cross the ghost zones), with and without overlap, on every rank grid that fits.
#include <algorithm>
#include <map>
#include <vector>

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
          const std::vector<Index3>& tiles, std::int64_t steps,
          const std::vector<std::array<Boundary, 3>>& boundaries = kBoundaries) {
  int compared = 0;
  on_rank_grids(rank_grids, [&](const Index3& p, MPI_Comm comm) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    for (const auto& bc : boundaries)
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

TEST(TemporalBlocking, LevelsCopyingAPeriodicXsGhostsAreBitIdentical) {
  // x periodic over one rank, the tiles spanning it: the sub-steps below the last copy their x
  // ghosts, then the closed y and z fill theirs from rows and planes that hold the copies. 16
  // cells along x: the copies' vector path (a multiple of 8), as at 256^3.
  const std::vector<std::array<Boundary, 3>> closed_yz = {
      {Boundary::Periodic, Boundary::Dirichlet, Boundary::Neumann},
      {Boundary::Periodic, Boundary::Neumann, Boundary::Dirichlet},
      {Boundary::Periodic, Boundary::Periodic, Boundary::Periodic}};
  Config c = sweep_case({16, 12, 10}, closed_yz[0], 7, 1, {1, 1, 1}, 7);
  c.halo_width = 3;
  c.temporal_blocking = true;
  CommHandle comm = first_ranks(1);
  if (comm.get() != MPI_COMM_NULL) {
    TimeStepper sim = make_stepper(c, comm.get());
    EXPECT_TRUE(sim.halo().x_faces_from_sweep());  // the path under test
    EXPECT_LT(sim.blocking()->redundant(3, XGhosts::Wrap), sim.blocking()->redundant(3));
  }
  const int n = sweep({16, 12, 10}, {{1, 1, 1}, {1, 2, 1}, {1, 1, 2}}, {2, 3, 4},
                      {{0, 0, 0}, {16, 4, 10}}, 7, closed_yz);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) EXPECT_GE(n, 72);  // 3 bc x 2 stencils x 3 H x 2 tiles x 2 overlaps, 1x1x1
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

/// The plain loop's update regions of rounds of h sub-steps on one rank, periodic: sub-step s
/// updates the padded block less s + 1 layers.
std::vector<Box> periodic_regions(const Field& u, int h) {
  std::vector<Box> regions;
  regions.reserve(std::size_t(h));
  for (int s = 0; s < h; ++s) regions.push_back(u.padded().grown(-(s + 1)));
  return regions;
}

TEST(TemporalBlocking, CountsTheRedundantUpdatesOfOverlappingCones) {
  // 1 rank, periodic, 8^3 cells in 8 tiles of 4^3, H = 2: sub-step 0 of a tile that starts its
  // chain updates its 6^3 cone, of a tile that continues one 6 x 4 x 6 (its cone shifted up by
  // a row: its predecessor did the row below), and sub-step 1 the tile. The 4 columns of 2
  // tiles make one chain each where the threads divide 4 (1, 2, 4); else 2 (unchained).
  Config c;
  c.grid = {8, 8, 8};
  c.ranks = {1, 1, 1};
  c.halo_width = 2;
  c.temporal_blocking = true;
  c.tile = {4, 4, 4};
  CommHandle comm = first_ranks(1);
  if (comm.get() == MPI_COMM_NULL) return;
  TimeStepper sim = make_stepper(c, comm.get());
  const TemporalBlocking* tb = sim.blocking();
  ASSERT_NE(tb, nullptr);
  EXPECT_EQ(tb->tiles().size(), 8u);
  EXPECT_EQ(tb->inner_tiles(), 0);  // every cone reaches a ghost
  int continued = 0;
  for (int t = 0; t < 8; ++t) continued += tb->continues(t);
  EXPECT_EQ(continued, chain_parts(4, Exec().concurrency(), 8, 2) == 1 ? 4 : 0);
  sim.run(2);
  EXPECT_EQ(sim.times().redundant,
            (8 - continued) * 216 + continued * 144 + 512 - 2 * std::int64_t(512));
  EXPECT_EQ(sim.halo().counters().exchanges, 1);
}

TEST(TemporalBlocking, ChainsCutTheConesOverlapAlongYAndStayBitIdentical) {
  // Tiles spanning x and z (no tile reads no ghost) chain along y: 40 rows in tiles of 8 at
  // H = 4 are one chain of 5 tiles per part, and only each part's first tile grows its cone
  // downwards. Level s of a continued tile updates 8 rows instead of 8 + 2 (3 - s).
  const Box owned{{0, 0, 0}, {12, 40, 10}};
  Field u("u", owned, 4);
  const std::vector<Box> regions = periodic_regions(u, 4);
  const TemporalBlocking tb(u, {12, 8, 10}, regions, {}, 7, {0.1, 0.1, 0.1}, false);
  const int parts = chain_parts(1, Exec().concurrency(), 40, 4);
  ASSERT_GE(int(tb.tiles().size()), 2 * parts);  // 5 tiles in one chain, 2 in each of 2, ...
  int continued = 0;
  for (int t = 0; t < int(tb.tiles().size()); ++t) continued += tb.continues(t);
  EXPECT_EQ(continued, int(tb.tiles().size()) - parts);
  // Per continued tile, sub-steps 0..2 save 2 (3 - s) rows of (12 + 2 (3 - s)) x (10 + 2 (3 - s)).
  std::int64_t saved = 0;
  for (int g = 1; g <= 3; ++g) saved += std::int64_t(2) * g * (12 + 2 * g) * (10 + 2 * g);
  std::int64_t cones = 0;  // the same tiles, every one a cone
  for (const Box& T : tb.tiles())
    for (int g = 0; g <= 3; ++g) cones += T.grown(g).count();
  EXPECT_EQ(tb.redundant(4), cones - continued * saved - 4 * owned.count());
  // Where x is periodic over the rank alone, the levels below the last keep x to the block's
  // 12 cells and copy their x ghosts from the rows' other ends: no cone along x.
  std::int64_t saved_wrapped = 0, cones_wrapped = 0;
  for (int g = 1; g <= 3; ++g) saved_wrapped += std::int64_t(2) * g * 12 * (10 + 2 * g);
  for (const Box& T : tb.tiles())
    for (int g = 0; g <= 3; ++g)
      cones_wrapped += std::int64_t(12) * (T.extent(1) + 2 * g) * (T.extent(2) + 2 * g);
  EXPECT_EQ(tb.redundant(4, XGhosts::Wrap),
            cones_wrapped - continued * saved_wrapped - 4 * owned.count());
  // Bit for bit: every boundary kind and stencil, chained tiles of 8 and of 6 rows (two z
  // columns), 1 and 2 ranks along y and x.
  const int n =
      sweep({12, 40, 10}, {{1, 1, 1}, {1, 2, 1}, {2, 1, 1}}, {2, 4}, {{12, 8, 10}, {12, 6, 5}}, 9);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) EXPECT_GE(n, 80);
}

TEST(TemporalBlocking, InnerTilesReadNoGhost) {
  // 24^3 in tiles of 8^3, H = 4: only the centre tile's cone (grown by 4) stays inside.
  const Box owned{{0, 0, 0}, {24, 24, 24}};
  Field u("u", owned, 4);
  const std::vector<Box> regions = periodic_regions(u, 4);
  const TemporalBlocking tb(u, {8, 8, 8}, regions, {}, 7, {0.1, 0.1, 0.1}, false);
  ASSERT_EQ(tb.tiles().size(), 27u);
  ASSERT_EQ(tb.inner_tiles(), 1);
  EXPECT_EQ(tb.tiles()[0], (Box{{12, 12, 12}, {20, 20, 20}}));
}

TEST(TemporalBlocking, AutomaticTileFitsTheBudgetAndKeepsLinesLong) {
  for (int threads : {1, 2, 3})
    for (int h : {1, 2, 4, 8}) {
      const Index3 t = auto_tile({256, 256, 256}, h, false, temporal_blocking_budget(h), threads);
      // The wavefront keeps 3 planes of the grown tile per sub-step: 8 * 3h (tx+2h)(ty+2h).
      EXPECT_EQ(blocking_working_set(t, h),
                std::int64_t(8) * 3 * h * (t[0] + 2 * h) * (t[1] + 2 * h));
      EXPECT_LE(blocking_working_set(t, h), temporal_blocking_budget(h)) << "H=" << h;
      // The tiles span x, so none reads no ghost: they run in chains, whose rings hold the
      // tile's rows and the two handed over, and those fit half the L2 at every H.
      if (h > 1) {
        EXPECT_EQ(chained_working_set(t, h),
                  std::int64_t(8) * (3 * h + 1) * (t[0] + 2 * h) * (t[1] + 2));
        EXPECT_LE(chained_working_set(t, h), kChainedTileBudget) << "H=" << h;
      }
      EXPECT_GE(t[0], 32) << "H=" << h;
      const int tiles = (256 / t[0]) * ((256 + t[1] - 1) / t[1]) * ((256 + t[2] - 1) / t[2]);
      EXPECT_GE(tiles, threads) << "H=" << h;  // every thread gets a tile
    }
  EXPECT_EQ(automatic_tile({6, 5, 4}, 2, false, 1), (Index3{6, 5, 4}));  // a small block: one tile
  EXPECT_EQ(automatic_tile({64, 64, 1}, 2, true, 1)[2], 1);
  // The cone's redundant work: tile 4^3, H = 2 updates 6^3 + 4^3 cells per 2 * 4^3.
  EXPECT_DOUBLE_EQ(blocking_work({4, 4, 4}, 2, false), (216.0 + 64.0) / 128.0);
  EXPECT_DOUBLE_EQ(blocking_work({4, 4, 1}, 2, true), (36.0 + 16.0) / 32.0);
}

TEST(TemporalBlocking, WideTileTakesLongerChainsWithinItsBudget) {
  for (int threads : {1, 2})
    for (int h = 2; h <= 8; ++h) {
      const Index3 n{256, 256, 256};
      const Index3 wide = wide_tile(n, h, false, threads);
      const Index3 automatic = automatic_tile(n, h, false, threads);
      // Whole x-lines in chains along y, as the automatic tile's, but several times as tall:
      // fewer tiles per chain, so fewer hand-overs (or none where one tile is a whole chain).
      EXPECT_EQ(wide[0], 256) << "H=" << h;
      EXPECT_GE(wide[1], 4 * automatic[1]) << "H=" << h;
      const int rows = 256 / chain_parts(256 / wide[2], threads, 256, h);
      if (wide[1] < rows) EXPECT_LE(chained_working_set(wide, h), kWideTileBudget) << "H=" << h;
      EXPECT_LE(chained_work(n, wide, h, false, threads),
                chained_work(n, automatic, h, false, threads))
          << "H=" << h;
    }
  // At H = 6 on two threads: 100 rows of a 128-row chain, against 8 rows in the L2 budget.
  EXPECT_EQ(wide_tile({256, 256, 256}, 6, false, 2), (Index3{256, 100, 128}));
  EXPECT_EQ(automatic_tile({256, 256, 256}, 6, false, 2), (Index3{256, 8, 256}));
  // A block the automatic tile already spans: the wide tile is the same.
  EXPECT_EQ(wide_tile({24, 24, 24}, 2, false, 1), automatic_tile({24, 24, 24}, 2, false, 1));
}

TEST(TemporalBlocking, ResolvesTheTileAskedFor) {
  const Index3 n{256, 256, 256};
  // Named tiles: the automatic one for {0, 0, 0}, the wide one for kWideTile (--tile wide).
  EXPECT_EQ(resolve_tile({0, 0, 0}, n, 6, false, 2), (Index3{256, 8, 256}));
  EXPECT_EQ(resolve_tile(kWideTile, n, 6, false, 2), (Index3{256, 100, 128}));
  // Extents as asked, at most the block's; a 0 takes the automatic tile's extent there.
  EXPECT_EQ(resolve_tile({64, 0, 300}, n, 6, false, 2), (Index3{64, 8, 256}));
  // In 2D a tile spans z, whatever was asked.
  EXPECT_EQ(resolve_tile({32, 32, 4}, {512, 512, 1}, 6, true, 2), (Index3{32, 32, 1}));
  EXPECT_EQ(resolve_tile(kWideTile, {512, 512, 1}, 6, true, 2)[2], 1);
  // The rounds tile with exactly that.
  Field u("u", Box{{0, 0, 0}, {64, 48, 40}}, 4);
  const TemporalBlocking tb(u, kWideTile, periodic_regions(u, 4), {}, 7, {0.1, 0.1, 0.1}, false);
  EXPECT_EQ(tb.tile(), resolve_tile(kWideTile, u.n(), 4, false, Exec().concurrency()));
}

/// A 256^3 block on two threads whose sweep in cache runs well above the memory bound.
BlockingModelInputs fast_cache_block() {
  BlockingModelInputs in;
  in.n = {256, 256, 256};
  in.threads = 2;
  in.max_width = 8;
  in.memory_rate = 3.3e9;
  in.cache_rate = 5.0e9;
  return in;
}

TEST(TemporalBlocking, ModelChoosesBlockingOnlyWhenItBeatsThePlainSweep) {
  BlockingModelInputs in = fast_cache_block();
  const BlockingChoice fast = choose_blocking(in);
  EXPECT_TRUE(fast.blocking);
  EXPECT_GE(fast.width, 2);
  EXPECT_LE(fast.width, 8);
  EXPECT_GT(fast.rate, fast.plain_rate);
  EXPECT_DOUBLE_EQ(fast.plain_rate, 1.0 / (1.0 / 3.3e9 + 1.0 / 5.0e9));
  EXPECT_EQ(fast.tile, auto_tile(in.n, fast.width, false, temporal_blocking_budget(fast.width), 2));
  // A measured plain sweep faster than any blocked round can be: keep H = 1 plain.
  in.plain_rate = 4.0e9;
  const BlockingChoice plain = choose_blocking(in);
  EXPECT_FALSE(plain.blocking);
  EXPECT_EQ(plain.width, 1);
  EXPECT_DOUBLE_EQ(plain.rate, 4.0e9);
  // Whatever the inputs, the choice is never predicted slower than H = 1 plain.
  for (double cache : {0.5e9, 1e9, 3e9, 1e10})
    for (double plain_rate : {0.0, 0.5e9, 2e9})
      for (double exchange : {0.0, 1e-4, 1e-2}) {
        in.cache_rate = cache, in.plain_rate = plain_rate;
        in.exchange_latency = exchange, in.exchange_transfer = exchange;
        const BlockingChoice c = choose_blocking(in);
        EXPECT_GE(c.rate, c.plain_rate);
        EXPECT_EQ(c.blocking, c.width > 1);
      }
  // The width never exceeds the block, and a 2D block's tile spans its one plane.
  in = BlockingModelInputs{};
  in.n = {64, 3, 1};
  in.two_d = true;
  in.max_width = 8;
  in.memory_rate = 1e9;
  in.cache_rate = 1e10;
  const BlockingChoice flat = choose_blocking(in);
  EXPECT_LE(flat.width, 3);
  if (flat.blocking) EXPECT_EQ(flat.tile[2], 1);
  // Communication counts: exchanges dominated by latency make deep halos (fewer, bigger
  // messages) pay even when the sweep alone would not gain; by transfer, they do not.
  in = BlockingModelInputs{};
  in.n = {32, 32, 32};
  in.memory_rate = 1e9;
  in.cache_rate = 1e9;
  in.plain_rate = 1e9;
  EXPECT_FALSE(choose_blocking(in).blocking);
  in.exchange_latency = 1e-3;  // 1 ms per exchange against 33 us of sweep
  EXPECT_TRUE(choose_blocking(in).blocking);
  in.exchange_latency = 0;
  in.exchange_transfer = 1e-3;
  EXPECT_FALSE(choose_blocking(in).blocking);
}

TEST(TemporalBlocking, CandidatesAreEveryBlockedWidthFastestFirst) {
  BlockingModelInputs in = fast_cache_block();
  const std::vector<BlockingChoice> candidates = blocking_candidates(in);
  ASSERT_EQ(candidates.size(), 7u);  // H = 2..8
  const BlockingChoice first = choose_blocking(in);
  EXPECT_EQ(candidates.front().width, first.width);
  EXPECT_EQ(candidates.front().tile, first.tile);
  EXPECT_DOUBLE_EQ(candidates.front().rate, first.rate);
  std::vector<int> widths;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const BlockingChoice& c = candidates[i];
    EXPECT_TRUE(c.blocking);
    EXPECT_GE(c.width, 2);
    EXPECT_DOUBLE_EQ(c.plain_rate, first.plain_rate);
    EXPECT_EQ(c.tile, auto_tile(in.n, c.width, false, temporal_blocking_budget(c.width), 2));
    if (i > 0) EXPECT_LE(c.rate, candidates[i - 1].rate);
    widths.push_back(c.width);
  }
  std::sort(widths.begin(), widths.end());
  EXPECT_EQ(std::unique(widths.begin(), widths.end()), widths.end()) << "one tile per width";
  EXPECT_GT(first.rate, first.plain_rate);
  // A plain sweep this fast beats every candidate: they are still ranked (the calibration
  // times the first few), but the model's choice is plain.
  in.plain_rate = 4.0e9;
  const std::vector<BlockingChoice> slower = blocking_candidates(in);
  ASSERT_EQ(slower.size(), 7u);
  EXPECT_LT(slower.front().rate, slower.front().plain_rate);
  EXPECT_FALSE(choose_blocking(in).blocking);
  // The widths stop at the block's smallest side and at max_width; none without rates.
  in.n = {256, 3, 256};
  EXPECT_EQ(blocking_candidates(in).size(), 2u);
  in.n = {256, 256, 256};
  in.max_width = 1;
  EXPECT_TRUE(blocking_candidates(in).empty());
  in.max_width = 8;
  in.cache_rate = 0;
  EXPECT_TRUE(blocking_candidates(in).empty());
}

TEST(TemporalBlocking, ModelRanksFirstAWidthWhereTheRoundTurnsComputeBound) {
  // A blocked round at the roofline: the longer of its memory traffic, 1 / (H memory_rate),
  // and its arithmetic. The first candidate lies where the two cross: every narrower width
  // waits on memory, every wider one on its arithmetic (with the two summed, H = 8 always
  // came first).
  BlockingModelInputs in;
  in.n = {256, 256, 256};
  in.max_width = 8;
  for (int threads : {1, 2})
    for (double ratio : {1.5, 2.0, 3.0, 4.0, 6.0}) {
      in.threads = threads;
      in.memory_rate = 1.4e9;
      in.cache_rate = ratio * in.memory_rate;
      const std::vector<BlockingChoice> candidates = blocking_candidates(in);
      ASSERT_EQ(candidates.size(), 7u);
      const auto memory = [&](int h) { return 1.0 / (h * in.memory_rate); };
      const auto arithmetic = [&](const BlockingChoice& c) {
        return chained_work(in.n, c.tile, c.width, false, threads) * (1.0 + 64.0 / c.tile[0]) /
               in.cache_rate;
      };
      const BlockingChoice& first = candidates.front();
      SCOPED_TRACE(::testing::Message() << threads << " thread(s), cache/memory " << ratio
                                        << ", first H = " << first.width);
      EXPECT_DOUBLE_EQ(first.rate, 1.0 / std::max(memory(first.width), arithmetic(first)));
      for (const BlockingChoice& c : candidates) {
        if (c.width < first.width) EXPECT_GT(memory(c.width), arithmetic(c)) << c.width;
        if (c.width > first.width) EXPECT_LE(memory(c.width), arithmetic(c)) << c.width;
      }
    }
  // Where the cores compute only twice as fast as memory feeds them, the narrowest width is
  // already compute-bound and comes first; at four times, H = 2 waits on memory.
  in.threads = 1;
  in.cache_rate = 2.0 * in.memory_rate;
  EXPECT_EQ(blocking_candidates(in).front().width, 2);
  in.cache_rate = 4.0 * in.memory_rate;
  EXPECT_GT(blocking_candidates(in).front().width, 2);
}

TEST(TemporalBlocking, OverlapFiguresPlaceARoundBetweenItsTwoLimits) {
  // A round of H sub-steps moves one sweep's traffic (1 / H of H sweeps at the bound) and
  // computes at its ceiling c: hiding none of the traffic it takes 1/c + 1/H per update.
  EXPECT_DOUBLE_EQ(no_overlap_fraction(1.2, 4), 1.0 / (1.0 / 1.2 + 0.25));
  EXPECT_NEAR(no_overlap_fraction(3.0, 6), 2.0, 1e-15);
  for (int h : {1, 2, 4, 8})
    for (double c : {0.5, 1.0, 1.5, 3.0}) {
      const double none = no_overlap_fraction(c, h);
      EXPECT_LT(none, c);
      EXPECT_LT(none, double(h));  // never above the traffic alone
      // None hidden: the whole traffic time beyond the arithmetic; all hidden: nothing.
      EXPECT_NEAR(unhidden_traffic(none, c, h), 1.0, 1e-12);
      EXPECT_NEAR(unhidden_traffic(c, c, h), 0.0, 1e-12);
      // Half the traffic hidden: half its time beyond the arithmetic.
      EXPECT_NEAR(unhidden_traffic(1.0 / (1.0 / c + 0.5 / h), c, h), 0.5, 1e-12);
    }
  // The traffic moved at half the copy's speed and not hidden: 2.
  EXPECT_NEAR(unhidden_traffic(1.0 / (1.0 / 1.2 + 2.0 / 4), 1.2, 4), 2.0, 1e-12);
}

TEST(TemporalBlocking, WalkTimesTheModelsBestThenWalksOnWhileAWidthAheadIsFaster) {
  // Candidates as blocking_candidates() gives them: one per width, fastest predicted first.
  const auto candidates = [](const std::vector<int>& widths) {
    std::vector<BlockingChoice> out;
    out.reserve(widths.size());
    for (int h : widths) out.push_back(BlockingChoice{h, true, {8, 8, 8}, 1.0, 0.5});
    return out;
  };
  const auto walk = [&](const std::vector<int>& widths, const std::map<int, double>& rates) {
    std::vector<int> order;
    for (const TimedWidth& t : walk_widths(
             candidates(widths), [&](const BlockingChoice& c) { return rates.at(c.width); })) {
      EXPECT_DOUBLE_EQ(t.rate, rates.at(t.width));
      order.push_back(t.width);
    }
    return order;
  };
  const std::vector<int> all{6, 5, 7, 8, 3, 4, 2};
  // The start is the best: two widths timed each way, nothing further.
  EXPECT_EQ(walk(all, {{2, 1}, {3, 2}, {4, 3}, {5, 4}, {6, 9}, {7, 4}, {8, 1}}),
            (std::vector<int>{6, 5, 4, 7, 8}));
  // Faster downwards: walk down until two in a row are slower, never up.
  EXPECT_EQ(walk(all, {{2, 1}, {3, 5}, {4, 8}, {5, 7}, {6, 6}, {7, 9}, {8, 1}}),
            (std::vector<int>{6, 5, 4, 3, 2}));
  // One slower width between the start and a faster one: the walk steps over it.
  EXPECT_EQ(walk(all, {{2, 3}, {3, 4}, {4, 9}, {5, 3}, {6, 5}, {7, 2}, {8, 1}}),
            (std::vector<int>{6, 5, 4, 3, 2}));
  // Down is slower, up is faster: walk up to the last width.
  EXPECT_EQ(walk(all, {{2, 1}, {3, 1}, {4, 1}, {5, 2}, {6, 3}, {7, 4}, {8, 5}}),
            (std::vector<int>{6, 5, 4, 7, 8}));
  // A start at the narrowest width has no lower neighbour; equal is not faster, and one
  // width no faster than the best does not end the walk.
  EXPECT_EQ(walk({2, 3, 4, 5}, {{2, 5}, {3, 5}, {4, 9}, {5, 1}}), (std::vector<int>{2, 3, 4, 5}));
  EXPECT_EQ(walk({2, 3, 4, 5}, {{2, 5}, {3, 5}, {4, 4}, {5, 9}}), (std::vector<int>{2, 3, 4}));
  // A start at the widest walks down; a lone candidate is timed alone; none, nothing.
  EXPECT_EQ(walk({4, 3, 2}, {{2, 1}, {3, 6}, {4, 5}}), (std::vector<int>{4, 3, 2}));
  EXPECT_EQ(walk({3}, {{3, 1}}), (std::vector<int>{3}));
  EXPECT_TRUE(walk({}, {}).empty());
}

}  // namespace
}  // namespace miniapp::test
