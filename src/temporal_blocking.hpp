// Temporal blocking: the k <= H sub-steps of one deep-halo round fused over cache-sized tiles.
//
// After a halo exchange of width H no communication is needed for H sub-steps, but the plain
// loop (time_stepper.hpp) sweeps the whole block once per sub-step, so every cell comes from main
// memory k times per round. Here the owned cells are cut into tiles T, and each tile runs all
// k sub-steps back to back in per-thread scratch that stays in cache ("overlapped tiling"):
//
//   sub-step s = 0 .. k-1 updates  R_s = grow(T, k-1-s) ∩ region(s)
//     s = 0      reads the exchanged field u
//     0 < s      reads the planes of sub-step s-1
//     s = k-1    (R = T)                                writes the owned cells of v
//   as a wavefront in z: at step t sub-step s computes its plane z = t - s of R_s, whose inputs
//   (planes z-1, z, z+1 of sub-step s-1) are complete by then. So a sub-step below the last
//   keeps only 3 planes of T grown by k (a ring, plane z in slot z mod 3): the scratch is
//   3 (k-1) planes per thread, not the whole grown tile, so it stays in L2 even for tiles that
//   span the block in z, whose cone overlap is then only in x and y.
//   After each plane of sub-step s the physical-boundary refills run on it, restricted to the
//   cells the next sub-step reads, in the same order and with the same spans as the plain loop
//   (x and y within the plane; a z ghost plane once the plane it mirrors is done).
//
// grow(T, k-1-s) is the dependency cone of T: sub-step s must be known on T grown by the
// stencil reach (1) once per remaining sub-step. region(s) is the plain loop's update region,
// so a tile never reads a ghost the exchange did not make valid. Every value a tile computes
// is the value the plain loop computes for the same cell and sub-step (same expression, same
// inputs), so the owned cells of v are bit-identical to the plain run. The price is
// redundant work: neighbouring cones overlap (counted exactly).
//
// Where x is periodic over the rank alone (XGhosts::Wrap) and the tiles span the block along x,
// the cone does not grow along x: every level updates the block's cells of its rows, and copies
// the x ghosts the next level reads from the other end of each row, as the exchange would. A
// ghost's value is its periodic image's (same expression, same inputs), so the copy is the value
// the cone computed; where the block's x extent is a multiple of 8, the lines keep to whole
// vectors on 64-byte lines, without the masked ends a grown line pays for. Measured on AMD Zen 5,
// 256^3, rounds of the automatic tiles with and without in turn in one process (38 pairs each,
// median ratio of the times): 1 x 2 threads H = 2 1.00, H = 3 0.99, H = 4 0.98-0.99, H = 6 and 8
// 0.98; 2 ranks x 1 thread H = 2 0.98-0.99, H = 4 0.99.
//
// Chains take most of that overlap away along y. The tiles of one x and z range (a column)
// run in order of y on one thread, and a tile after the first (continued) does not grow its
// cone downwards: its sub-step s updates the rows of T shifted up by k-1-s,
//
//   R_s = [T.lo + (k-1-s), T.hi + (k-1-s)) along y (x and z as above),
//
// whose rows below T.lo + (k-1-s) its predecessor already computed. The two rows of level s-1
// under R_s that level s reads are handed over: each tile copies the last 2 rows of each
// level below the last, plane by plane, into the chain's hand-over store (2 rows per level
// and plane, in the L3) and its successor copies them into its own ring before it reads them.
// Only the chain's first tile grows its cone downwards, so a column cut into P chains does
// about the redundant work of P tiles along y however many tiles it holds. P makes the chains
// a multiple of the threads where the rows allow (at least 2H rows a chain), so that each
// thread takes whole chains of equal length (to a row).
//
// Each cell of u is read from memory about once per round and each cell of v written once,
// instead of k times each: where the sweep in cache runs faster than memory can feed it,
// rounds of H = 2..8 beat the single-sweep memory bound (choose_blocking models when).
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <functional>
#include <vector>

#include "boundary.hpp"
#include "box.hpp"
#include "field.hpp"
#include "halo_plan.hpp"
#include "numerics.hpp"
#include "stencil.hpp"
#include "stencil_line.hpp"

namespace miniapp {

/// Default working-set budget per thread for the automatic tile: the 3 planes of the tile
/// grown by the round length per sub-step (the rings of the sub-steps below the last and the
/// 3 planes of u the first one reads) must fit in it: three quarters of a 1 MiB L2, so that
/// the rings stay in the core's own L2 beside the lines of u and v passing through. Measured
/// on AMD Zen 5 (1 MiB L2), 256^3, two threads, four rounds of `miniapp bench temporal`, ms
/// per round: H = 2 8.5-9.1 with this budget (tile 256x32), 9.0-9.5 with 1 MiB (256x64),
/// 10.1-11.2 with 3.5 MiB (256x128); H = 4 15.4-16.8 (256x20x128), 16.9-17.7 (256x32),
/// 17.7-18.1 (256x128). `--tiles` compares tiles around it on other machines.
constexpr std::int64_t kTemporalBlockingBudget = std::int64_t(768) * 1024;

/// Beyond H = 4 the cones of tiles that fit the L2 cost more than a working set in the L3:
/// at H = 8 the L2 budget leaves 128x12 tiles with 76 % redundant work. Measured as above,
/// three rounds, ms per round with 768 KiB against 3 MiB: H = 5 25.5-29.4 (128x32) against
/// 20.7-27.7 (256x64), H = 6 30.8-36.3 against 24.8-30.8, H = 8 49.8-54.3 against 36.6-46.7
/// (256x44); 4 MiB was no better than 3.
constexpr std::int64_t kDeepTemporalBlockingBudget = std::int64_t(3) * 1024 * 1024;

/// The working-set budget per thread for tiles in chains (chained_working_set), at every H: half
/// a 1 MiB L2. A chained tile's rings hold only its rows and the two handed over, so its cone
/// no longer grows with H and small tiles pay at every H. Measured on AMD Zen 5, 256^3, two
/// threads, chains along y of 256 x ty x 128 tiles, three rounds, ms per round: H = 2 7.7-8.1
/// at ty = 28-36 (the budget: 32), 8.2-8.6 at 56; H = 4 15.0-15.9 at 12-20 (16), 15.6-16.3 at
/// 28, 16.4-17.1 at 36; H = 6 25.1-26.6 at 12-16 (12), 26.8-27.3 at 20, 28.8-32.0 at 28-36.
/// The fit is judged on the tile asked for: where chain_tiles() merges tiles shorter than 2H
/// rows (H = 7 and 8 at 256^3) the tiles run taller than the budget assumes.
constexpr std::int64_t kChainedTileBudget = std::int64_t(512) * 1024;

/// The working-set budget per thread for rounds of up to h sub-steps.
constexpr std::int64_t temporal_blocking_budget(int h) {
  return h <= 4 ? kTemporalBlockingBudget : kDeepTemporalBlockingBudget;
}

/// Bytes a thread keeps in cache for a tile t in rounds of h sub-steps: 3 planes of the tile
/// grown by h per sub-step (x fastest). Pure.
std::int64_t blocking_working_set(const Index3& t, int h);

/// Cell updates of rounds of h sub-steps on tile t per owned cell and sub-step (>= 1: the
/// overlap of the tiles' dependency cones; not along z in 2D). Pure.
double blocking_work(const Index3& t, int h, bool two_d);

/// Bytes a thread keeps in cache for a tile t in chains in rounds of h sub-steps: 3 planes of
/// its rows and the 2 handed over (grown by h along x) per sub-step, and the plane of u the
/// later sub-steps fetch ahead. The 7-point rings hold 4 planes (pairs()); kChainedTileBudget
/// was measured in this count, and the tiles a count of 4 would pick ran as fast (256^3, two
/// threads, median of six: H = 4 18.2-18.4 ms per round at 12-24 rows, H = 2 9.7-9.9 at 24-32).
/// Pure.
std::int64_t chained_working_set(const Index3& t, int h);

/// Chains each column of tiles (a range of x and z; `columns` of them) is cut into along y,
/// `rows` long, for `threads` threads and rounds of up to h sub-steps: the fewest that make the
/// chains a multiple of the threads, no more than leave 2h rows to each. Pure.
int chain_parts(int columns, int threads, int rows, int h);

/// blocking_work() of tile t in chains (see the header comment) on a block of n owned cells:
/// the cone of a whole chain along y, and the hand-over of each tile after its first; where a
/// tile in the middle of three or more along every dimension reads no ghost, the tiles stay
/// unchained (TemporalBlocking) and this is blocking_work(t). Pure.
double chained_work(const Index3& n, const Index3& t, int h, bool two_d, int threads);

/// The automatic tile (owned cells per tile along x, y, z) for a block of n owned cells, rounds
/// of up to h sub-steps, `threads` threads: among the tiles whose working set fits in `budget`
/// bytes (tiles in chains: chained_working_set within kChainedTileBudget), the one with the
/// least time per owned cell: its chains' redundant updates and
/// hand-overs (chained_work), a fixed cost of 64 cell updates per x-line (so lines stay whole),
/// tiles cut short at the block's edge, and the threads left idle when the chain count is not a
/// multiple of theirs. Pure.
/// `chained_budget` replaces kChainedTileBudget for tiles in chains.
Index3 auto_tile(const Index3& n, int h, bool two_d, std::int64_t budget, int threads,
                 std::int64_t chained_budget = kChainedTileBudget);
/// The tile a run's rounds of h sub-steps take where none is given (TemporalBlocking, and what
/// --explain shows): auto_tile within temporal_blocking_budget(h) for the rank's `threads`.
inline Index3 automatic_tile(const Index3& n, int h, bool two_d, int threads) {
  return auto_tile(n, h, two_d, temporal_blocking_budget(h), threads);
}

/// The working-set budget per thread of the wide tile: rings in the L3, not the L2. Where the
/// hardware streams a ring's rows from the L3 as fast as from the L2, fewer and longer tiles
/// save the hand-overs, fills and stream starts of each tile, and the budgets above leave that
/// speed unused. Measured on AMD Zen 5 (1 MiB L2; the VM reports a 508 MiB L3), 256^3, bench
/// temporal, two rounds, ms per round, the automatic tile against 256x64x256 (a thread's chain
/// in tiles of 64 rows; 1.8-4.9 MiB): 1 x 2 threads H = 4 23.7-24.0 against 22.0-23.5, H = 6
/// 43.5-44.1 against 32.0-32.6, H = 8 48.1-52.5 against 40.1-42.5; 2 x 1 H = 4 55.7-57.4
/// against 43.5-49.0, H = 6 73.1-77.8 against 61.5-66.1. Chains in one tile of 256 rows
/// (6.7-16.7 MiB) ran slower than either. A machine whose L3 share per core is smaller may
/// prefer the automatic tile, so --halo-width auto times both (calibration.hpp).
constexpr std::int64_t kWideTileBudget = std::int64_t(4) * 1024 * 1024;

/// auto_tile within kWideTileBudget, chained or not: the tile --halo-width auto times beside
/// automatic_tile(). Pure.
inline Index3 wide_tile(const Index3& n, int h, bool two_d, int threads) {
  return auto_tile(n, h, two_d, kWideTileBudget, threads, kWideTileBudget);
}

/// Stands for the wide tile where a tile is asked for (--tile wide): like the automatic tile
/// ({0, 0, 0}) it depends on the block and H, so it is resolved where those are known.
constexpr Index3 kWideTile{-1, -1, -1};

/// The tile rounds of h sub-steps on a block of n owned cells take where `asked` is asked for
/// (TemporalBlocking, and what --explain shows): the wide tile for kWideTile; otherwise each
/// extent as asked, at most the block's, and the automatic tile's where it is 0; in 2D all of z.
/// Pure.
Index3 resolve_tile(const Index3& asked, const Index3& n, int h, bool two_d, int threads);

/// Where a blocked run stands between its two limits, in fractions of the copy bound. A round
/// of h sub-steps reads and writes its block once (1/h of the traffic of h plain sweeps, at the
/// bound) and computes at most at its ceiling c (the rows kernel in cache over the redundant
/// work). With all of that traffic hidden behind the arithmetic the round reaches c; with none
/// of it, 1 / (1/c + 1/h): no_overlap_fraction. unhidden_traffic inverts that for a measured
/// fraction f: the time beyond the arithmetic, h (1/f - 1/c), in units of the traffic's time at
/// the bound (0: all hidden, 1: none, at the copy's speed; anything else a round does, such as
/// an exchange, counts in it). Measured on AMD Zen 5 with the traffic taken away by temporary
/// switches (256^3, H = 2 and 4, 1 x 2 and 2 x 1): the rounds without it ran at 0.95-1.04 of c,
/// and the traffic cost 0.9-2.0 x its time at the bound: a round there is near
/// no_overlap_fraction (miniapp/README.md, thirty-fifth session).
inline double no_overlap_fraction(double c, int h) { return 1.0 / (1.0 / c + 1.0 / h); }
inline double unhidden_traffic(double f, double c, int h) { return h * (1.0 / f - 1.0 / c); }

/// What choose_blocking() needs to know: the block, the machine's two rates, and the limits.
struct BlockingModelInputs {
  Index3 n{};                    ///< owned cells per rank
  bool two_d = false;            ///< a 2D problem (no z cone)
  int max_width = 8;             ///< the largest halo width H allowed (block size, options)
  int threads = 1;               ///< threads per rank
  double memory_rate = 0;        ///< cell updates/s a sweep from memory can reach (the copy bound)
  double cache_rate = 0;         ///< cell updates/s of the sweep when its data is in cache
  double plain_rate = 0;         ///< measured rate of the plain H = 1 sweep (0: from the model)
  double exchange_latency = 0;   ///< seconds of one exchange that do not grow with its bytes
  double exchange_transfer = 0;  ///< seconds of one width-1 exchange that grow with its bytes
  std::int64_t budget = 0;       ///< unchained tiles' working-set bytes per thread; 0:
                                 ///< temporal_blocking_budget(H) (chained: kChainedTileBudget)
};

/// What choose_blocking() picked and why.
struct BlockingChoice {
  int width = 1;          ///< halo width H (sub-steps per round)
  bool blocking = false;  ///< temporal blocking on (else the plain sweep)
  Index3 tile{};          ///< the tile when blocking
  double rate = 0;        ///< predicted effective cell updates/s of the choice
  double plain_rate = 0;  ///< predicted (or given) rate of H = 1 plain
};

/// Choose the halo width and temporal blocking from a model of the step. A plain sweep costs
/// the time of its memory traffic plus the time of its arithmetic (the two did not overlap
/// where measured). A blocked round fetches u ahead and writes v while it computes, so it is
/// taken at its idealised roofline: the longer of the two. Per owned cell and sub-step
///   plain      1 / plain_rate  (or 1 / memory_rate + 1 / cache_rate)
///   blocked H  max(1 / (H memory_rate), chained_work(n, tile, H) (1 + 64 / tile_x) / cache_rate)
/// plus, per sub-step, (exchange_latency + exchange_transfer * shell(H) / shell(1)) / (H cells),
/// shell(H) the ghost cells of width H: the deep halo's rarer, bigger messages. So the model's
/// best H lies where the round turns compute-bound: a narrower one waits on memory, a wider one
/// only adds redundant work. (Summed, as for the plain sweep, the two terms always rank the
/// widest H first, far from where timed rounds peak: src/README.md, temporal blocking. Yet the
/// sum is what the rounds' time was on AMD Zen 5 with their traffic taken away and put back:
/// no_overlap_fraction above. The model only ranks; --halo-width auto times its candidates.)
/// Never returns a setting predicted slower than H = 1 plain (ties go to plain). Pure.
BlockingChoice choose_blocking(const BlockingModelInputs& in);

/// H = 1 plain as the model above predicts it (rate = plain_rate; both 0 where the inputs do not
/// allow a model): what choose_blocking() returns when no blocked setting is faster. Pure.
BlockingChoice plain_choice(const BlockingModelInputs& in);

/// Every blocked setting the model above can rank (the best tile of each H from 2 to the
/// widest the block and options allow), fastest predicted first; choose_blocking() is the
/// first where it is predicted faster than H = 1 plain. Pure.
std::vector<BlockingChoice> blocking_candidates(const BlockingModelInputs& in);

/// One blocked width as --halo-width auto timed it: cell updates/s per rank, and the tile that
/// ran it; where two tiles were timed, the slower one and its rate (walk_widths() leaves the
/// tiles to its caller).
struct TimedWidth {
  int width = 0;
  double rate = 0;
  Index3 tile{};
  Index3 slower_tile{};
  double slower_rate = 0;  ///< 0: one tile timed
};

/// --halo-width auto's walk over `candidates` (blocking_candidates(): one per width, fastest
/// predicted first): time the first, then the widths below it and above it, walking on
/// towards the faster until two in a row are no faster than the best. One slower width does
/// not end the walk: the timed rates can dip at one width between two faster ones (on AMD Zen
/// 5 at 256^3, H = 5 below both H = 4 and H = 6, where a walk from H = 6 stopped at 6). It
/// still stops at a local best, and a few timed rounds cannot rank close widths anyway. `rate(c)`
/// times candidate c. Returns the timings in the order taken (none for no candidates); the
/// best is the fastest of them. Pure apart from what `rate` does.
std::vector<TimedWidth> walk_widths(const std::vector<BlockingChoice>& candidates,
                                    const std::function<double(const BlockingChoice&)>& rate);

/// What a temporally blocked round needs to know about the physical boundaries.
struct BoundaryRule {
  std::vector<BoundaryFill> fills;  ///< plan_refill order and spans
  std::array<Boundary, 3> kind{};
  double value = 0;  ///< dirichlet ghost value
};

class TemporalBlocking {
 public:
  /// Plan the tiles of field u (owned cells cut into tiles of resolve_tile(tile)) for
  /// rounds of up to `regions.size()` sub-steps; regions[s] is the plain loop's update region of
  /// sub-step s. Allocates the per-thread scratch buffers. Not collective.
  TemporalBlocking(const Field& u, const Index3& tile, std::vector<Box> regions,
                   BoundaryRule boundary, int points, const Coefficients& a, bool two_d);

  /// Run k sub-steps (1 <= k <= H) of the tiles [first, last) of tiles(): u holds the field
  /// after the exchange, v receives the owned cells of those tiles after k sub-steps. A range
  /// that starts inside a chain needs the tiles before it in that chain run first, in the same
  /// round (their hand-over).
  /// `stores`: how the last sub-step writes v where the fields come from memory
  /// (sweep_streams_from_memory): streaming stores unless SweepStores::Ordinary, as a plain
  /// sweep's. `x_ghosts`: XGhosts::Wrap where x is periodic over this rank alone (u's x ghosts
  /// valid) asks the last sub-step to store v's x ghosts too (stencil.hpp), which it does for
  /// the 7-point stencil in tiles that span the block along x, with ordinary stores or where
  /// streamed_wrap_fits(v); there the sub-steps below the last copy their x ghosts instead of
  /// computing them, for both stencils (levels_wrap_x). Returns whether the last stored v's.
  /// Launches a kernel and fences.
  bool run(const Field& u, Field& v, int k, int first, int last,
           SweepStores stores = SweepStores::Auto, XGhosts x_ghosts = XGhosts::Leave) const;
  /// Run k sub-steps of every tile.
  bool run(const Field& u, Field& v, int k, SweepStores stores = SweepStores::Auto,
           XGhosts x_ghosts = XGhosts::Leave) const {
    return run(u, v, k, 0, int(tiles_.size()), stores, x_ghosts);
  }

  /// The tiles, those that read no ghost cell in a round of H sub-steps first (they can run
  /// while the exchange is in flight).
  const std::vector<Box>& tiles() const { return tiles_; }
  /// Number of leading tiles of tiles() that read no ghost cell.
  int inner_tiles() const { return inner_; }
  /// Whether tile t of tiles() continues the tile before it (chains: see the header comment).
  bool continues(int t) const { return cont_[std::size_t(t)] != 0; }
  /// Owned cells per tile as asked for (before clipping at the block's edge; chained tiles cut
  /// each part of a column evenly into about this many rows, at least 2H).
  const Index3& tile() const { return tile_; }
  /// Cell updates of a round of k sub-steps beyond the k * (owned cells) the plain scheme needs
  /// on one domain: overlap of the tiles' cones plus the deep-halo ghost updates.
  /// `x_ghosts` as given to run().
  std::int64_t redundant(int k, XGhosts x_ghosts = XGhosts::Leave) const {
    return redundant_[levels_wrap_x(x_ghosts)][std::size_t(k - 1)];
  }
  /// Scratch bytes per thread.
  std::int64_t scratch_bytes() const { return capacity_ * std::int64_t(sizeof(double)); }

 private:
  /// A window of a field: the local box it holds, x fastest, and its strides.
  struct Window {
    double* p = nullptr;
    Box box;
    std::int64_t sy = 0, sz = 0;

    explicit Window(const Field& f)
        : p(f.data()), box(f.padded()), sy(f.stride_y()), sz(f.stride_z()) {}
    std::int64_t at(int i, int j, int k) const {
      return (i - box.lo[0]) + sy * (j - box.lo[1]) + sz * (k - box.lo[2]);
    }
  };
  /// The k sub-steps of tile T as a wavefront in z (see run_tile in the .cpp), `ring` this
  /// thread's scratch, `first_mode` how the first sub-step reads u, `last_mode` how the last
  /// writes v, `wrap` whether it stores v's x ghosts too (run); `cont` whether it continues
  /// the tile before it in its chain, `handover` the chain's hand-over store (null: none).
  void run_tile(const Box& T, int k, const Window& in_u, const Window& out_v, double* ring,
                LineMode first_mode, LineMode last_mode, bool wrap, bool levels_wrap, bool cont,
                double* handover) const;

  /// Scratch box of tile T for a round of k sub-steps: T grown by k (not along z in 2D),
  /// clipped to the padded block.
  Box scratch_box(const Box& T, int k) const;
  /// Doubles from one row of a ring plane of scratch box S to the next.
  static std::int64_t ring_pitch(const Box& S);
  /// T grown by g (not along z in 2D), and for a tile that continues its chain (`cont`) shifted
  /// up by g along y instead of grown downwards (see the header comment).
  Box cone(const Box& T, int g, bool cont) const;
  /// R_s of the header comment: cone(T, k-1-s, cont) within region(s), along x T's cells
  /// only where the levels wrap their x ghosts (levels_wrap_x).
  Box update_box(const Box& T, int k, int s, bool cont, bool levels_wrap) const;
  /// Whether the sub-steps below the last update only the block's cells along x and copy the
  /// x ghosts the next one reads from the other end of each row, instead of computing them.
  bool levels_wrap_x(XGhosts x_ghosts) const;

  Box padded_;
  Index3 tile_{};
  std::vector<Box> regions_;
  BoundaryRule boundary_;
  int points_ = 7;
  /// Whether a round's levels after the first take their planes two at a time, row j of plane
  /// z and then row j of plane z + 1: the second line's plane below is the first line's centre,
  /// still in the L1, where plane after plane it comes back from the L2. The 7-point stencil's
  /// rounds (the 27-point rows share their z passes within a plane, rows27). Measured on AMD
  /// Zen 5, 256^3, the automatic tiles, bench temporal alternating with one plane at a time,
  /// effective rate with pairs over without: 1 x 2 at H = 4 1.037 and 1.123 (medians of two
  /// series of 8, faster in 13 of 16), H = 6 1.057 and 1.093 (13 of 16), H = 2 (pairs at the
  /// last level only) 0.975 and 1.006; 2 x 1 H = 4 1.040 (5 of 6), H = 6 1.010, H = 2 1.003.
  /// In cache alone, two planes row by row ran 1.10-1.27 x plane after plane (one thread,
  /// 8 and 16 rows); three or four planes row by row gained nothing over one (12 rows, 12
  /// planes, in the L2, three runs pinned: pairs 1.14-1.27 x, triples 0.94-1.07, fours
  /// 1.00-1.08). Pairs at every level but the last were slower than at every level but
  /// the first (H = 4 1.007 against 1.123). The first level reads u from memory: there a
  /// second plane's stream cost more than it saved (the plain sweep in pairs, bench stencil:
  /// 7-point 0.665 of the bound against 0.726, median of 12 pairs).
  bool pairs() const { return points_ == 7; }
  /// Planes per level in a tile's ring (run_tile).
  int ring_planes() const { return pairs() ? 4 : 3; }
  Coefficients a_;
  bool two_d_ = false;
  int h_ = 1;
  Index3 n_{};
  std::vector<Box> tiles_;
  std::vector<char> cont_;  ///< per tile: it continues the tile before it (its chain)
  int inner_ = 0;
  std::int64_t handover_capacity_ = 0;      ///< doubles of one chain's hand-over store
  Kokkos::View<double*, Memory> handover_;  ///< every chain's, where a tile continues one
  std::vector<std::int64_t> redundant_[2];  ///< by levels_wrap_x, then k - 1
  std::int64_t capacity_ = 0;               ///< scratch doubles per thread
  Kokkos::View<double*, Memory> scratch_;
};

}  // namespace miniapp
