// The sweeps' choice of stores: the pure StoreChoice rules on made-up timings (which kind each
// round takes, when the two change places, how the probes thin out, where a given first kind
// leads), and a stepper whose fields stream from memory, which takes both kinds in its first
// rounds, or the kind it is given, and still equals the serial reference bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "store_choice.hpp"
#include "stream_copy.hpp"
#include "test_support.hpp"
#include "time_stepper.hpp"

namespace miniapp::test {
namespace {

constexpr SweepStores kS = SweepStores::Streaming, kO = SweepStores::Ordinary;

/// Run `rounds` rounds of choice, each costing cost(round, stores) seconds per cell; the
/// rounds that took ordinary stores.
std::vector<int> ordinary_rounds(StoreChoice& choice, int rounds,
                                 const std::function<double(int, SweepStores)>& cost) {
  std::vector<int> out;
  for (int r = 0; r < rounds; ++r) {
    const SweepStores s = choice.next();
    if (s == kO) out.push_back(r);
    choice.record(s, cost(r, s));
  }
  return out;
}

/// The rounds of a static array, as ordinary_rounds() returns them.
template <std::size_t N>
std::vector<int> rounds(const int (&r)[N]) {
  return std::vector<int>(r, r + N);
}

TEST(StoreChoice, FixedPoliciesAndCachedSweepsTakeOneKind) {
  StoreChoice streaming(StorePolicy::Streaming), ordinary(StorePolicy::Ordinary);
  StoreChoice cached(StorePolicy::Adaptive, false);
  for (int r = 0; r < 40; ++r) {
    EXPECT_EQ(streaming.next(), kS);
    EXPECT_EQ(ordinary.next(), kO);
    EXPECT_EQ(cached.next(), SweepStores::Auto);
    streaming.record(kS, 1.0);
    ordinary.record(kO, 2.0);  // slower, and kept all the same: as asked
    cached.record(SweepStores::Auto, 1.0);
  }
  EXPECT_EQ(streaming.rounds(kS), 40);
  EXPECT_EQ(ordinary.rounds(kO), 40);
  EXPECT_EQ(ordinary.switches(), 0);
  EXPECT_EQ(cached.rounds(kS) + cached.rounds(kO), 0);
}

TEST(StoreChoice, TakesTheFasterKindAfterTheFirstRounds) {
  StoreChoice choice;
  const std::vector<int> ord =
      ordinary_rounds(choice, 40, [](int, SweepStores s) { return s == kO ? 0.8 : 1.0; });
  // Two streaming, two ordinary rounds in turn, three times; the third ratio is complete at
  // the warm streaming round 13.
  ASSERT_GE(ord.size(), 6u);
  // The expected rounds live in static arrays, not in braced temporaries: GCC 12's
  // AddressSanitizer with detect_stack_use_after_return faulted copying a 16-value
  // initializer list into a vector (a read of a high address, in the sanitizer stage).
  static const int kFirst[] = {2, 3, 6, 7, 10, 11};
  EXPECT_EQ(std::vector<int>(ord.begin(), ord.begin() + 6), rounds(kFirst));
  EXPECT_EQ(choice.favourite(), kO);
  EXPECT_EQ(choice.switches(), 1);
  // From then on ordinary, but for the probes of streaming (rounds 12 and 13 were streaming).
  EXPECT_GE(choice.rounds(kO), 30);
  EXPECT_LE(choice.rounds(kS), 8);
}

TEST(StoreChoice, ProbesThinOutWhileTheOtherKindIsClearlySlower) {
  StoreChoice choice;
  const std::vector<int> ord =
      ordinary_rounds(choice, 600, [](int, SweepStores s) { return s == kO ? 1.3 : 1.0; });
  // The first rounds, then probes of two rounds 32, 64 and 128 rounds apart, 128 at most.
  static const int kWant[] = {2,  3,   6,   7,   10,  11,  27,  28,  59,
                              60, 123, 124, 251, 252, 379, 380, 507, 508};
  EXPECT_EQ(ord, rounds(kWant));
  EXPECT_EQ(choice.favourite(), kS);
  EXPECT_EQ(choice.switches(), 0);
}

TEST(StoreChoice, ProbesStayFrequentWhenTheKindsAreClose) {
  StoreChoice choice;
  const std::vector<int> ord =
      ordinary_rounds(choice, 100, [](int, SweepStores s) { return s == kO ? 1.01 : 1.0; });
  static const int kWant[] = {2, 3, 6, 7, 10, 11, 27, 28, 43, 44, 59, 60, 75, 76, 91, 92};
  EXPECT_EQ(ord, rounds(kWant));
  EXPECT_EQ(choice.switches(), 0);
}

TEST(StoreChoice, NoiseThatSlowsAProbeAndItsNeighboursAlikeChangesNothing) {
  // Ordinary 5 % slower (probes of rounds 43-44, 59-60, ..., paired with the warm streaming
  // rounds 42 and 46, 58 and 62). A burst doubles every round from 47 to 57, between the
  // probes and their neighbours: the streaming rounds then take twice as long as the last
  // ordinary one, which a comparison of each kind's latest times would take for a change of
  // the faster kind. The pairs see 1.05 before and after it.
  StoreChoice choice;
  ordinary_rounds(choice, 120, [](int r, SweepStores s) {
    return (s == kO ? 1.05 : 1.0) * (r >= 47 && r <= 57 ? 2.0 : 1.0);
  });
  EXPECT_EQ(choice.favourite(), kS);
  EXPECT_EQ(choice.switches(), 0);
  // A burst over a probe and its neighbours slows them alike.
  StoreChoice alike;
  ordinary_rounds(alike, 120, [](int r, SweepStores s) {
    return (s == kO ? 1.05 : 1.0) * (r >= 40 && r <= 48 ? 2.0 : 1.0);
  });
  EXPECT_EQ(alike.switches(), 0);
  // One odd ratio alone does not switch either: the probe at 60 fast, its neighbours slow.
  StoreChoice odd;
  ordinary_rounds(odd, 120, [](int r, SweepStores s) {
    return s == kO ? (r == 60 ? 0.5 : 1.05) : (r == 58 || r == 62 ? 2.0 : 1.0);
  });
  EXPECT_EQ(odd.switches(), 0);
}

TEST(StoreChoice, EachKindKeepsTheCostItLeavesToTheNextRound) {
  // Ordinary 5 % slower where it follows itself; a round after one of the other kind differs:
  // ordinary after streaming inherits no dirty lines (0.90), streaming after ordinary writes
  // them back (1.15). Pairing each probe round with the rounds either side of it would see
  // 0.90 against 1.075 and switch; warm rounds see 1.05 against 1.0.
  StoreChoice choice;
  SweepStores last = kS;
  for (int r = 0; r < 200; ++r) {
    const SweepStores s = choice.next();
    const double cost = s == last ? (s == kO ? 1.05 : 1.0) : (s == kO ? 0.90 : 1.15);
    choice.record(s, cost);
    last = s;
  }
  EXPECT_EQ(choice.favourite(), kS);
  EXPECT_EQ(choice.switches(), 0);
}

TEST(StoreChoice, FollowsTheMachineWhenTheFasterKindChanges) {
  // Streaming clearly faster for 300 rounds (the probes 128 apart by then), then ordinary: the
  // first probe after the change brings the next one kProbeEvery rounds on, and the two outvote
  // the one before the change.
  StoreChoice choice;
  int switched_at = -1;
  for (int r = 0; r < 800 && switched_at < 0; ++r) {
    const SweepStores s = choice.next();
    choice.record(s, r < 300 ? (s == kO ? 1.3 : 1.0) : (s == kO ? 0.8 : 1.0));
    if (choice.favourite() == kO) switched_at = r;
  }
  ASSERT_GE(switched_at, 300);
  EXPECT_LE(switched_at, 300 + StoreChoice::kProbeEveryMax + StoreChoice::kProbeEvery + 8);
  EXPECT_EQ(choice.switches(), 1);
}

TEST(StoreChoice, StartsFromAGivenKindWithoutTheFirstRounds) {
  // Given ordinary (the faster in a calibration), and ordinary is faster: it takes ordinary from
  // round 1, the first probe of streaming 16 rounds on, and the probes thin out as without a
  // given kind once three say that streaming is clearly slower.
  StoreChoice choice(StorePolicy::Adaptive, true, kO);
  EXPECT_EQ(choice.first(), kO);
  std::vector<int> streaming;
  for (int r = 0; r < 200; ++r) {
    const SweepStores s = choice.next();
    if (s == kS) streaming.push_back(r);
    choice.record(s, s == kO ? 0.8 : 1.0);
  }
  static const int kWant[] = {15, 16, 31, 32, 47, 48, 79, 80, 143, 144};
  EXPECT_EQ(streaming, rounds(kWant));
  EXPECT_EQ(choice.favourite(), kO);
  EXPECT_EQ(choice.switches(), 0);
}

TEST(StoreChoice, AGivenKindThatIsSlowerIsOutvotedByThreeProbes) {
  // Given ordinary, where streaming is faster: the third probe (rounds 47 and 48), paired with
  // the warm round 50, completes three ratios below 1 - kMargin, and the two change places.
  StoreChoice choice(StorePolicy::Adaptive, true, kO);
  int switched_at = -1;
  for (int r = 0; r < 200; ++r) {
    const SweepStores s = choice.next();
    choice.record(s, s == kO ? 1.0 : 0.8);
    if (switched_at < 0 && choice.favourite() == kS) switched_at = r;
  }
  EXPECT_EQ(switched_at, 3 * StoreChoice::kProbeEvery + 2);
  EXPECT_EQ(choice.favourite(), kS);
  EXPECT_EQ(choice.switches(), 1);
  EXPECT_LE(choice.rounds(kO), switched_at + 8);
}

TEST(StoreChoice, AGivenKindCountsOnlyWhereTheRoundsChoose) {
  // Fixed stores are as asked, and sweeps through the cache take no stores of either kind.
  StoreChoice fixed(StorePolicy::Streaming, true, kO), cached(StorePolicy::Adaptive, false, kO);
  EXPECT_EQ(fixed.next(), kS);
  EXPECT_EQ(fixed.first(), SweepStores::Auto);
  EXPECT_EQ(cached.next(), SweepStores::Auto);
  EXPECT_EQ(cached.first(), SweepStores::Auto);
  EXPECT_EQ(StoreChoice().first(), SweepStores::Auto);
}

/// One rank whose fields are larger than its share of the last-level cache, so that its sweeps
/// stream from memory and the adaptive choice times both kinds in the first rounds. Skipped
/// where that share makes such fields too large for a unit test.
class StoreChoiceFromMemory : public ::testing::Test {
 protected:
  void SetUp() override {
    comm_ = first_ranks(1);
    share_ = last_level_cache_share(Exec().concurrency());
    if (share_ > (std::int64_t(128) << 20))
      GTEST_SKIP() << "a last-level cache share of " << share_ / (1 << 20)
                   << " MiB: fields beyond it are too large for a unit test";
  }

  /// A problem of planes of nx x ny cells, as many as make its two fields a quarter larger than
  /// the share (16 B per cell).
  Config beyond_the_share(int nx, int ny) const {
    Config c;
    const std::int64_t cells = share_ / 16 * 5 / 4 + 1;
    const std::int64_t plane = std::int64_t{nx} * ny;
    c.grid = {nx, ny, int((cells + plane - 1) / plane)};
    return c;
  }

  CommHandle comm_;
  std::int64_t share_ = 0;
};

TEST_F(StoreChoiceFromMemory, StepperTakesBothKindsAndStaysExact) {
  if (comm_.get() == MPI_COMM_NULL) return;
  Config c = beyond_the_share(96, 88);
  c.bc = {Boundary::Periodic, Boundary::Dirichlet, Boundary::Neumann};
  c.steps = 8;
  c.seed = 77;
  TimeStepper sim = make_stepper(c, comm_.get());
  sim.run(c.steps);
  const StoreChoice& stores = sim.stores();
  ASSERT_TRUE(stores.from_memory()) << c.grid[2] << " planes";
  EXPECT_EQ(stores.policy(), StorePolicy::Adaptive);
  EXPECT_EQ(stores.rounds(kS) + stores.rounds(kO), c.steps);
  EXPECT_GE(stores.rounds(kS), 3);
  EXPECT_GE(stores.rounds(kO), 3);
  EXPECT_EQ(
      first_bitwise_difference(gather_global(sim.field(), c.grid, comm_.get()), reference_after(c)),
      -1);
}

TEST_F(StoreChoiceFromMemory, StepperStartsFromTheKindItIsGiven) {
  // --halo-width auto hands the stepper the kind its calibration found faster: every round of a
  // short run takes it, plain or blocked, and the result is the serial reference's.
  if (comm_.get() == MPI_COMM_NULL) return;
  Config c = beyond_the_share(96, 88);
  c.bc = {Boundary::Periodic, Boundary::Dirichlet, Boundary::Periodic};
  c.steps = 8;
  c.seed = 80;
  const std::vector<double> expected = reference_after(c);
  for (const bool blocked : {false, true})
    for (const SweepStores first : {kS, kO}) {
      c.temporal_blocking = blocked;
      c.halo_width = blocked ? 2 : 1;
      TimeStepper sim(c.problem(), c.halo(), c.blocking(), resolve_rank_grid(c, 1), comm_.get(),
                      StorePolicy::Adaptive, first);
      sim.run(c.steps);
      const StoreChoice& stores = sim.stores();
      const std::string what = std::string(blocked ? "blocked " : "plain ") + to_string(first);
      ASSERT_TRUE(stores.from_memory()) << c.grid[2] << " planes";
      EXPECT_EQ(stores.first(), first) << what;
      EXPECT_EQ(stores.rounds(first), c.steps / c.halo_width) << what;
      EXPECT_EQ(stores.rounds(first == kS ? kO : kS), 0) << what;
      EXPECT_EQ(first_bitwise_difference(gather_global(sim.field(), c.grid, comm_.get()), expected),
                -1)
          << what;
    }
}

TEST_F(StoreChoiceFromMemory, BlockedRoundsStoreTheirPeriodicXGhostsWithEitherStores) {
  // A periodic x over one rank and tiles across the block along x: a blocked round's last
  // sub-step stores v's x ghosts, with streaming stores as one whole line shared by two rows'
  // ghosts (rows of pitch n + 8, up to 4 ghosts a side) or copied after ordinary ones, so the
  // next exchange leaves the x faces alone. After one round no exchange has touched the ghosts:
  // what they hold is what the tiles stored.
  if (comm_.get() == MPI_COMM_NULL) return;
  Config c = beyond_the_share(64, 40);
  c.bc = {Boundary::Periodic, Boundary::Neumann, Boundary::Periodic};
  c.seed = 79;
  c.temporal_blocking = true;
  c.tile = {64, 8, 0};
  for (int h : {1, 2, 3, 4})
    for (StorePolicy policy : {StorePolicy::Streaming, StorePolicy::Ordinary}) {
      c.halo_width = h;
      c.steps = std::int64_t{2} * h;
      TimeStepper sim(c.problem(), c.halo(), c.blocking(), resolve_rank_grid(c, 1), comm_.get(),
                      policy);
      ASSERT_TRUE(sim.stores().from_memory()) << c.grid[2] << " planes";
      ASSERT_EQ(sim.field().stride_y(), c.grid[0] + 8);
      const std::string what = "H=" + std::to_string(h) + " " + to_string(policy);
      sim.advance(h);
      const Field& f = std::as_const(sim).field();  // the non-const one forgets the x ghosts
      const Box in = f.interior();
      std::int64_t wrong = 0;
      for (int k = in.lo[2]; k < in.hi[2]; ++k)
        for (int j = in.lo[1]; j < in.hi[1]; ++j)
          for (int m = 0; m < h; ++m) {
            const double* d = f.data();
            wrong +=
                double_bits(d[f.index(m, j, k)]) != double_bits(d[f.index(c.grid[0] + m, j, k)]);
            wrong += double_bits(d[f.index(h + c.grid[0] + m, j, k)]) !=
                     double_bits(d[f.index(h + m, j, k)]);
          }
      EXPECT_EQ(wrong, 0) << what;
      sim.advance(h);
      EXPECT_EQ(sim.halo().counters().x_faces_from_sweep, 1) << what;
      EXPECT_EQ(
          first_bitwise_difference(gather_global(std::as_const(sim).field(), c.grid, comm_.get()),
                                   reference_after(c)),
          -1)
          << what;
    }
}

TEST_F(StoreChoiceFromMemory, BlockedRoundsTakeBothKindsAndStayExact) {
  // The last sub-step of each blocked round writes v with the kind chosen. Tiles 20 cells wide
  // put most of v's rows off a 64-byte line: the 7-point lines stream from their first whole
  // line, the 27-point rows fall back to ordinary stores.
  if (comm_.get() == MPI_COMM_NULL) return;
  Config c = beyond_the_share(64, 40);
  c.bc = {Boundary::Periodic, Boundary::Neumann, Boundary::Dirichlet};
  c.steps = 8;
  c.seed = 78;
  c.temporal_blocking = true;
  c.halo_width = 2;
  for (int stencil : {7, 27}) {
    c.stencil = stencil;
    const std::vector<double> expected = reference_after(c);
    for (const Index3& tile : {Index3{0, 0, 0}, Index3{20, 7, 0}}) {
      c.tile = tile;
      TimeStepper sim = make_stepper(c, comm_.get());
      sim.run(c.steps);
      const StoreChoice& stores = sim.stores();
      ASSERT_TRUE(stores.from_memory()) << c.grid[2] << " planes";
      EXPECT_EQ(stores.rounds(kS) + stores.rounds(kO), c.steps / c.halo_width);
      EXPECT_GE(stores.rounds(kS), 1);
      EXPECT_GE(stores.rounds(kO), 1);
      EXPECT_EQ(first_bitwise_difference(gather_global(sim.field(), c.grid, comm_.get()), expected),
                -1)
          << "stencil " << stencil << " tile " << tile[0] << "x" << tile[1];
    }
  }
}

}  // namespace
}  // namespace miniapp::test
