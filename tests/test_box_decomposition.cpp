// Box arithmetic and the choice of rank grid.
#include "box.hpp"
#include "decomposition.hpp"
#include "test_support.hpp"

namespace miniapp::test {
namespace {

TEST(Box, BlockRangeTilesWithRemainderFirst) {
  // 17 cells over 3 parts: 6, 6, 5.
  EXPECT_EQ(block_range(17, 3, 0), (std::array<int, 2>{0, 6}));
  EXPECT_EQ(block_range(17, 3, 1), (std::array<int, 2>{6, 12}));
  EXPECT_EQ(block_range(17, 3, 2), (std::array<int, 2>{12, 17}));
  for (int n = 1; n < 40; ++n)
    for (int p = 1; p <= n; ++p) {
      int next = 0;
      for (int r = 0; r < p; ++r) {
        const auto b = block_range(n, p, r);
        EXPECT_EQ(b[0], next);
        EXPECT_GE(b[1] - b[0], n / p);
        EXPECT_LE(b[1] - b[0], n / p + 1);
        next = b[1];
      }
      EXPECT_EQ(next, n);
    }
}

TEST(Box, IntersectGrowCount) {
  const Box a{{0, 0, 0}, {4, 5, 6}}, b{{2, -1, 3}, {9, 2, 4}};
  EXPECT_EQ(a.count(), 120);
  EXPECT_EQ(a.intersect(b), (Box{{2, 0, 3}, {4, 2, 4}}));
  EXPECT_TRUE(a.intersect(Box{{5, 0, 0}, {6, 1, 1}}).empty());
  EXPECT_EQ(a.grown(1).count(), 6 * 7 * 8);
}

TEST(Decomposition, ChooseDimsMinimisesSurface) {
  EXPECT_EQ(Decomposition::choose_dims(8, {64, 64, 64}, {0, 0, 0}, 1), (Index3{2, 2, 2}));
  EXPECT_EQ(Decomposition::choose_dims(4, {256, 64, 64}, {0, 0, 0}, 1), (Index3{4, 1, 1}));
  EXPECT_EQ(Decomposition::choose_dims(6, {60, 60, 60}, {3, 0, 0}, 1)[0], 3);
  EXPECT_EQ(Decomposition::choose_dims(16, {1024, 1024, 1}, {0, 0, 0}, 1), (Index3{4, 4, 1}));
  // Not enough cells: 3 ranks but only 2 cells in every dimension.
  EXPECT_EQ(Decomposition::choose_dims(3, {2, 2, 2}, {0, 0, 0}, 1), (Index3{0, 0, 0}));
}

TEST(Decomposition, OwnedBoxesTileTheGlobalGrid) {
  CommHandle comm = first_ranks(world_size());
  Decomposition dec(comm.get(), {17, 13, 11},
                    Decomposition::choose_dims(world_size(), {17, 13, 11}, {0, 0, 0}, 1),
                    {true, false, true});
  std::int64_t cells = dec.owned().count(), total = 0;
  MPI_Allreduce(&cells, &total, 1, MPI_INT64_T, MPI_SUM, dec.comm());
  EXPECT_EQ(total, 17 * 13 * 11);
  // Non-periodic y: the first rank along y has no low neighbour.
  if (dec.coords()[1] == 0) {
    EXPECT_EQ(dec.neighbor({0, -1, 0}), MPI_PROC_NULL);
  }
  EXPECT_NE(dec.neighbor({-1, 0, 0}), MPI_PROC_NULL);
}

}  // namespace
}  // namespace miniapp::test
