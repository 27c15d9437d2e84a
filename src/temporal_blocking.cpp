#include "temporal_blocking.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include "stencil.hpp"
#include "stencil_line.hpp"
#include "stream_copy.hpp"

namespace miniapp {

namespace {

/// Box b grown by g along the active dimensions (x, y, and z unless the problem is 2D).
Box grow_active(const Box& b, int g, bool two_d) {
  Box r = b.grown(g);
  if (two_d) r.lo[2] = b.lo[2], r.hi[2] = b.hi[2];
  return r;
}

double volume_of(const Index3& b) { return double(b[0]) * b[1] * b[2]; }

/// The cost of an x-line of a tile beyond its cells, in cell updates: the loop's start and
/// edges, and the break in the memory streams where a tile's rows stop short of the block's.
constexpr double kLineCost = 64;

/// The cost of a chained tile's hand-over, in rows of cell updates per sub-step: the two rows
/// of each level it copies in from its predecessor's (out of the L3) and out for its successor.
constexpr double kEdgeRows = 2;

/// Tile costs this close to the least count as equal, and the smaller hand-over store wins: the
/// model ties chains cut along y with columns cut along z (256 x 16 x 256 in two chains of 128
/// rows, or 256 x 16 x 128 in one chain per half) within 0.3-0.7 %, and the halves, whose store is
/// half as big, ran faster (quarters along z cost the model over a per cent more: untested).
/// Measured on AMD Zen 5, 256^3, two threads, in one process: H = 4 256x20x128 0.95-0.98 of
/// 256x20x256 in each of five rounds; 256x16x128 15.5 and 15.9 ms against 16.3 and 17.1 for
/// 256x16x256, H = 5 21.8-24.4 against 23.1-23.5.
constexpr double kTileCostTie = 0.01;

/// Tiles per chain of `rows` rows: as many as tiles of `ty` rows need, fewer where a tile would
/// have under 2h rows (a continued tile's lower sub-steps start up to h-1 rows above its first
/// row, and at a physical edge its rows must hold the mirror's sources).
int chain_tiles(int rows, int ty, int h) {
  int m = std::max(1, (rows + ty - 1) / std::max(1, ty));
  while (m > 1 && rows / m < 2 * h) --m;
  return m;
}

}  // namespace

std::int64_t blocking_working_set(const Index3& t, int h) {
  return std::int64_t(3) * h * (t[0] + 2 * h) * std::int64_t(t[1] + 2 * h) *
         std::int64_t(sizeof(double));
}

std::int64_t chained_working_set(const Index3& t, int h) {
  return std::int64_t(3 * h + 1) * (t[0] + 2 * h) * std::int64_t(t[1] + 2) *
         std::int64_t(sizeof(double));
}

int chain_parts(int columns, int threads, int rows, int h) {
  const int c = std::max(1, columns), w = std::max(1, threads);
  return std::max(1, std::min(w / std::gcd(c, w), rows / (2 * std::max(1, h))));
}

double blocking_work(const Index3& t, int h, bool two_d) {
  double cost = 0;
  for (int s = 0; s < h; ++s) {
    const int g = h - 1 - s;
    cost += double(t[0] + 2 * g) * (t[1] + 2 * g) * (two_d ? t[2] : t[2] + 2 * g);
  }
  return cost / (double(t[0]) * t[1] * t[2] * h);
}

namespace {

/// Tiles t on a block of n owned cells as the model sees them: in chains (chained_work), or,
/// where a tile in the middle of three or more along every dimension reads no ghost,
/// unchained like the constructor leaves them. `units`: what the threads share out (chains,
/// or tiles); `filled`: cells of the block over cells of its tiles (the last tile along a
/// dimension may be cut short; chains cut y evenly).
struct TileLayout {
  double work = 1;
  std::int64_t units = 1;
  double filled = 1;
  double handover = 0;  ///< cells of one chain's hand-over store (0: unchained)
};

TileLayout layout_of(const Index3& n, const Index3& t, int h, bool two_d, int threads) {
  const Index3 count{(n[0] + t[0] - 1) / t[0], (n[1] + t[1] - 1) / t[1], (n[2] + t[2] - 1) / t[2]};
  const bool unchained = count[0] >= 3 && count[1] >= 3 && (two_d || count[2] >= 3) &&
                         std::min({t[0], t[1], two_d ? h : t[2]}) >= h;
  if (unchained)
    return {blocking_work(t, h, two_d), std::int64_t(count[0]) * count[1] * count[2],
            volume_of(n) / (volume_of(t) * count[0] * count[1] * count[2])};
  const int columns = count[0] * count[2];
  const int parts = chain_parts(columns, threads, n[1], h);
  const int rows = (n[1] + parts - 1) / parts;
  const int tiles = chain_tiles(rows, t[1], h);
  return {
      blocking_work({t[0], rows, t[2]}, h, two_d) * (1.0 + kEdgeRows * (tiles - 1) / double(rows)),
      std::int64_t(columns) * parts, volume_of(n) / (double(t[0]) * n[1] * t[2] * columns),
      tiles > 1 ? 2.0 * (h - 1) * (t[0] + 2 * h) * (two_d ? 1 : t[2] + 2 * h) : 0.0};
}

}  // namespace

double chained_work(const Index3& n, const Index3& t, int h, bool two_d, int threads) {
  return layout_of(n, t, h, two_d, threads).work;
}

Index3 auto_tile(const Index3& n, int h, bool two_d, std::int64_t budget, int threads,
                 std::int64_t chained_budget) {
  // Candidates: x in powers of two (and the whole line), y in multiples of 4 (and all), z the
  // whole block or halves of it (the working set does not depend on the tile's z length).
  const auto candidates = [](int n_d, int first, bool doubling) {
    std::vector<int> c;
    for (int t = first; t < n_d; t = doubling ? 2 * t : t + first) c.push_back(t);
    c.push_back(n_d);
    return c;
  };
  std::vector<int> zs{n[2]};
  for (int tz = n[2] / 2; !two_d && tz >= 16; tz /= 2) zs.push_back(tz);
  const int workers = std::max(1, threads);
  struct Priced {
    Index3 t;
    double cost, handover;
  };
  std::vector<Priced> priced;
  for (int tx : candidates(n[0], 8, true))
    for (int ty : candidates(n[1], 4, false))
      for (int tz : zs) {
        const Index3 t{tx, ty, tz};
        const TileLayout l = layout_of(n, t, h, two_d, workers);
        const bool fits = l.handover > 0 ? chained_working_set(t, h) <= chained_budget
                                         : blocking_working_set(t, h) <= budget;
        if (!fits && !priced.empty()) continue;  // the first candidate stands in for none
        // The share of the threads' time busy when each takes whole chains (or tiles).
        const std::int64_t rounds = (l.units + workers - 1) / workers;
        const double busy = double(l.units) / (double(rounds) * workers);
        priced.push_back({t, l.work * (1.0 + kLineCost / t[0]) / (l.filled * busy), l.handover});
      }
  // Least time per owned cell, within kTileCostTie of the least; among those the smaller
  // hand-over store, then the biggest tile (fewer, longer loops).
  double least = priced.front().cost;
  for (const Priced& p : priced) least = std::min(least, p.cost);
  const Priced* best = nullptr;
  for (const Priced& p : priced) {
    if (p.cost > least * (1 + kTileCostTie)) continue;
    if (best == nullptr || p.handover < best->handover - 0.5 ||
        (p.handover < best->handover + 0.5 && volume_of(p.t) > volume_of(best->t)))
      best = &p;
  }
  return best->t;
}

namespace {

bool can_model(const BlockingModelInputs& in) {
  return double(in.n[0]) * in.n[1] * in.n[2] > 0 && in.memory_rate > 0 && in.cache_rate > 0;
}

/// Seconds per owned cell and sub-step of the exchange at halo width h: the deep halo's rarer,
/// bigger messages (shell(h): the ghost cells of width h around the block, not along z in 2D).
double exchange_per_step(const BlockingModelInputs& in, int h) {
  const double cells = double(in.n[0]) * in.n[1] * in.n[2];
  const auto shell = [&](int w) {
    const double wz = in.two_d ? 0 : w;
    return (in.n[0] + 2.0 * w) * (in.n[1] + 2.0 * w) * (in.n[2] + 2.0 * wz) - cells;
  };
  return (in.exchange_latency + in.exchange_transfer * shell(h) / shell(1)) / (h * cells);
}

double modeled_plain_rate(const BlockingModelInputs& in) {
  const double sweep =
      in.plain_rate > 0 ? 1.0 / in.plain_rate : 1.0 / in.memory_rate + 1.0 / in.cache_rate;
  return 1.0 / (sweep + exchange_per_step(in, 1));
}

}  // namespace

Index3 resolve_tile(const Index3& asked, const Index3& n, int h, bool two_d, int threads) {
  const bool wide = asked == kWideTile;
  const Index3 named =
      wide ? wide_tile(n, h, two_d, threads) : automatic_tile(n, h, two_d, threads);
  Index3 tile;
  for (int d = 0; d < 3; ++d) tile[d] = !wide && asked[d] > 0 ? std::min(asked[d], n[d]) : named[d];
  if (two_d) tile[2] = n[2];
  return tile;
}

std::vector<BlockingChoice> blocking_candidates(const BlockingModelInputs& in) {
  std::vector<BlockingChoice> out;
  if (!can_model(in)) return out;
  const double plain_rate = modeled_plain_rate(in);
  int widest = std::max(1, in.max_width);
  for (int d = 0; d < (in.two_d ? 2 : 3); ++d) widest = std::min(widest, in.n[d]);
  for (int h = 2; h <= widest; ++h) {
    const Index3 tile = auto_tile(
        in.n, h, in.two_d, in.budget > 0 ? in.budget : temporal_blocking_budget(h), in.threads);
    const double memory = 1.0 / (h * in.memory_rate);
    const double arithmetic = chained_work(in.n, tile, h, in.two_d, in.threads) *
                              (1.0 + kLineCost / tile[0]) / in.cache_rate;
    const double time = std::max(memory, arithmetic) + exchange_per_step(in, h);
    out.push_back(BlockingChoice{h, true, tile, 1.0 / time, plain_rate});
  }
  // Fastest first; equal predictions keep the narrower halo first (h ascends, a stable sort).
  std::stable_sort(out.begin(), out.end(), [](const BlockingChoice& a, const BlockingChoice& b) {
    return a.rate > b.rate;
  });
  return out;
}

BlockingChoice plain_choice(const BlockingModelInputs& in) {
  BlockingChoice plain;
  if (can_model(in)) plain.rate = plain.plain_rate = modeled_plain_rate(in);
  return plain;
}

BlockingChoice choose_blocking(const BlockingModelInputs& in) {
  const std::vector<BlockingChoice> candidates = blocking_candidates(in);
  if (!candidates.empty() && candidates.front().rate > candidates.front().plain_rate * (1 + 1e-9))
    return candidates.front();
  return plain_choice(in);
}

std::vector<TimedWidth> walk_widths(const std::vector<BlockingChoice>& candidates,
                                    const std::function<double(const BlockingChoice&)>& rate) {
  std::vector<TimedWidth> timed;
  if (candidates.empty()) return timed;
  const auto at = [&](int h) -> const BlockingChoice* {
    for (const BlockingChoice& c : candidates)
      if (c.width == h) return &c;
    return nullptr;
  };
  int best_width = candidates.front().width;
  double best_rate = rate(candidates.front());
  timed.push_back({best_width, best_rate});
  for (const int direction : {-1, 1}) {
    bool moved = false;
    int slower = 0;  // widths in a row, since the best, that timed no faster than it
    for (const BlockingChoice* c = at(best_width + direction); c != nullptr && slower < 2;
         c = at(c->width + direction)) {
      const double r = rate(*c);
      timed.push_back({c->width, r});
      if (r <= best_rate) {
        ++slower;
        continue;
      }
      best_width = c->width;
      best_rate = r;
      moved = true;
      slower = 0;
    }
    if (moved) break;  // faster this way: the walk goes on from the new best only
  }
  return timed;
}

TemporalBlocking::TemporalBlocking(const Field& u, const Index3& tile, std::vector<Box> regions,
                                   BoundaryRule boundary, int points, const Coefficients& a,
                                   bool two_d)
    : padded_(u.padded()),
      regions_(std::move(regions)),
      boundary_(std::move(boundary)),
      points_(points),
      a_(a),
      two_d_(two_d),
      h_(u.halo()),
      n_(u.n()) {
  const int rounds = int(regions_.size());
  if (rounds < 1 || rounds > h_)
    throw std::logic_error("temporal blocking: rounds of 1..H sub-steps only");
  tile_ = resolve_tile(tile, n_, rounds, two_d_, Exec().concurrency());

  // Tiles of the owned cells, those whose cone of H sub-steps stays inside first: they read
  // no ghost and run while the exchange is in flight, a few at a time across the threads, so
  // where there are any the tiles stay unchained. Elsewhere (e.g. every tile spanning the
  // block along x) each column of tiles (one x and z range) has its rows cut into
  // chain_parts() equal parts, each part into chain_tiles() tiles that continue one another.
  const Box interior = u.interior();
  std::vector<Box> outer;
  for (int k0 = interior.lo[2]; k0 < interior.hi[2]; k0 += tile_[2])
    for (int j0 = interior.lo[1]; j0 < interior.hi[1]; j0 += tile_[1])
      for (int i0 = interior.lo[0]; i0 < interior.hi[0]; i0 += tile_[0]) {
        const Box T =
            Box{{i0, j0, k0}, {i0 + tile_[0], j0 + tile_[1], k0 + tile_[2]}}.intersect(interior);
        const Box cone = grow_active(T, rounds, two_d_);
        (cone.intersect(interior) == cone ? tiles_ : outer).push_back(T);
      }
  inner_ = int(tiles_.size());
  tiles_.insert(tiles_.end(), outer.begin(), outer.end());
  cont_.assign(tiles_.size(), 0);
  if (inner_ == 0) {
    tiles_.clear();
    cont_.clear();
    int columns = 0;
    for (int k0 = interior.lo[2]; k0 < interior.hi[2]; k0 += tile_[2])
      for (int i0 = interior.lo[0]; i0 < interior.hi[0]; i0 += tile_[0]) ++columns;
    const int parts = chain_parts(columns, Exec().concurrency(), n_[1], rounds);
    for (int k0 = interior.lo[2]; k0 < interior.hi[2]; k0 += tile_[2])
      for (int i0 = interior.lo[0]; i0 < interior.hi[0]; i0 += tile_[0])
        for (int p = 0; p < parts; ++p) {
          const int y0 = interior.lo[1] + int(std::int64_t(n_[1]) * p / parts);
          const int rows = interior.lo[1] + int(std::int64_t(n_[1]) * (p + 1) / parts) - y0;
          const int m = chain_tiles(rows, tile_[1], rounds);
          for (int q = 0; q < m; ++q) {
            const int j0 = y0 + int(std::int64_t(rows) * q / m);
            const int j1 = y0 + int(std::int64_t(rows) * (q + 1) / m);
            tiles_.push_back(
                Box{{i0, j0, k0}, {i0 + tile_[0], j1, k0 + tile_[2]}}.intersect(interior));
            cont_.push_back(q > 0);
          }
        }
  }
  const auto chains = std::count(cont_.begin(), cont_.end(), 0);

  for (const bool levels_wrap : {false, true})
    for (int k = 1; k <= rounds; ++k) {
      std::int64_t updates = 0;
      for (std::size_t t = 0; t < tiles_.size(); ++t)
        for (int s = 0; s < k; ++s)
          updates += update_box(tiles_[t], k, s, cont_[t], levels_wrap).count();
      redundant_[levels_wrap].push_back(updates - k * interior.count());
    }
  // Per thread: a ring of planes of the scratch box for each level but the last (which writes
  // v directly; one sub-step goes from u to v with no scratch at all): 4 where the levels take
  // their planes two at a time (run_tile), else 3.
  for (const Box& T : tiles_) {
    const Box S = scratch_box(T, rounds);
    capacity_ =
        std::max(capacity_, std::int64_t(rounds - 1) * ring_planes() * ring_pitch(S) * S.extent(1));
    // The hand-over of a chain: 2 rows of each level below the last, for every plane.
    handover_capacity_ =
        std::max(handover_capacity_, std::int64_t(rounds - 1) * 2 * ring_pitch(S) * S.extent(2));
  }
  handover_capacity_ = (handover_capacity_ + 7) / 8 * 8;
  if (std::find(cont_.begin(), cont_.end(), 1) != cont_.end())
    handover_ = Kokkos::View<double*, Memory>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "miniapp::temporal_blocking::handover"),
        std::size_t(handover_capacity_ * std::int64_t(chains)));
  // Whole 64-byte lines per thread, and the scratch starts on a line: so does every thread's
  // ring (run_tile pads its rows to the field's phase).
  capacity_ = (capacity_ + 7) / 8 * 8;
  const std::size_t size = std::size_t(std::max<std::int64_t>(capacity_ * Exec().concurrency(), 1));
  const Kokkos::View<double*, Memory> all(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "miniapp::temporal_blocking::scratch"),
      size + 7);
  const std::size_t skip =
      (8 - reinterpret_cast<std::uintptr_t>(all.data()) / sizeof(double) % 8) % 8;
  scratch_ = Kokkos::subview(all, std::make_pair(skip, skip + size));
  advise_huge_pages(all.data(), std::int64_t(all.size()) * std::int64_t(sizeof(double)));
}

std::int64_t TemporalBlocking::ring_pitch(const Box& S) {
  return (std::int64_t{S.extent(0)} + 7 + 7) / 8 * 8;  // up to 7 cells of padding, whole lines
}

Box TemporalBlocking::scratch_box(const Box& T, int k) const {
  return grow_active(T, k, two_d_).intersect(padded_);
}

Box TemporalBlocking::cone(const Box& T, int g, bool cont) const {
  Box b = grow_active(T, g, two_d_);
  if (cont) b.lo[1] += 2 * g;  // shifted up by g: the predecessor did below
  return b;
}

Box TemporalBlocking::update_box(const Box& T, int k, int s, bool cont, bool levels_wrap) const {
  Box R = cone(T, k - 1 - s, cont).intersect(regions_[s]);
  if (levels_wrap) R.lo[0] = T.lo[0], R.hi[0] = T.hi[0];
  return R;
}

bool TemporalBlocking::levels_wrap_x(XGhosts x_ghosts) const {
  return x_ghosts == XGhosts::Wrap && tile_[0] == n_[0];
}

bool TemporalBlocking::run(const Field& u, Field& v, int k, int first, int last, SweepStores stores,
                           XGhosts x_ghosts) const {
  if (k < 1 || k > int(regions_.size()))
    throw std::logic_error("temporal blocking: round of " + std::to_string(k) + " sub-steps");
  const TemporalBlocking* self = this;
  const Window in_u(u), out_v(v);
  double* scratch = scratch_.data();
  const std::int64_t capacity = capacity_;
  const Box* tiles = tiles_.data();
  // From memory (fields beyond the rank's cache share), the first sub-step fetches u's leading
  // plane ahead, and the last writes v with streaming stores unless ordinary ones are asked
  // for: those skip the read of each line of v before it is written, a third of the round's
  // memory traffic. Measured on AMD Zen 5, 256^3, two threads, rounds of the automatic tiles,
  // six alternating runs at 56-96 GB/s, medians: H = 2 11.55 -> 9.99 ms, H = 4 21.6 -> 19.7 ms
  // (27-point, four runs: H = 2 18.4-19.1 -> 17.0-17.7 ms); at H = 6, whose tiles spill from the
  // L2, 30.9 -> 32.4 ms. So the stepper chooses between the two by timing them (store_choice.hpp),
  // as it does for plain sweeps. Rows of v that do not start a 64-byte line keep ordinary
  // stores (the line kernels and stencil_rows check).
  const bool from_memory = sweep_streams_from_memory(u.interior());
  const LineMode first_mode = from_memory ? LineMode::Prefetch : LineMode::Cached;
  const LineMode last_mode =
      from_memory && stores != SweepStores::Ordinary ? LineMode::Stream : LineMode::Cached;
  // The last sub-step stores v's x ghosts (a periodic x over this rank) where its lines span
  // the block: then the next exchange skips the x faces, whose copy moves a 64-byte line for
  // h doubles at each end of each row. Measured on AMD Zen 5, 256^3, 1 rank x 2 threads: the x
  // faces took 0.86 of the exchange's 1.35 ms at H = 4; storing them, a blocked step took 0.945
  // (ordinary stores) and 0.977 (streaming) of the time without, medians of ten alternating
  // runs, and at H = 2 0.946 and 0.977 (six).
  const bool levels_wrap = levels_wrap_x(x_ghosts);
  const bool wrap =
      levels_wrap && points_ == 7 && (last_mode != LineMode::Stream || streamed_wrap_fits(v));
  if (first >= last) return wrap;
  // Each thread runs whole chains (of those in [first, last)), their tiles in order: segment
  // g is the tiles [starts[g], starts[g + 1]) of chain chain_of[g] (its hand-over store).
  std::vector<int> starts, chain_of;
  int chain = int(std::count(cont_.begin(), cont_.begin() + first, 0)) - 1;
  for (int t = first; t < last; ++t) {
    if (!cont_[t]) ++chain;
    if (t == first || !cont_[t]) starts.push_back(t), chain_of.push_back(chain);
  }
  starts.push_back(last);
  const int* seg = starts.data();
  const int* seg_chain = chain_of.data();
  const char* cont = cont_.data();
  double* handover = handover_.data();
  const std::int64_t handover_capacity = handover_capacity_;
  Kokkos::Experimental::UniqueToken<Exec> token;
  Kokkos::parallel_for(
      "miniapp::temporal_blocking",
      Kokkos::RangePolicy<Exec, Kokkos::Schedule<Kokkos::Static>>(0, int(starts.size()) - 1),
      KOKKOS_LAMBDA(const int g) {
        const int id = token.acquire();
        double* store = handover ? handover + handover_capacity * seg_chain[g] : nullptr;
        for (int t = seg[g]; t < seg[g + 1]; ++t)
          self->run_tile(tiles[t], k, in_u, out_v, scratch + capacity * id, first_mode, last_mode,
                         wrap, levels_wrap, cont[t] != 0, store);
        if (last_mode == LineMode::Stream) publish_streamed();
        token.release(id);
      });
  Kokkos::fence();
  return wrap;
}

void TemporalBlocking::run_tile(const Box& T, int k, const Window& in_u, const Window& out_v,
                                double* ring, LineMode first_mode, LineMode last_mode, bool wrap,
                                bool levels_wrap, bool cont, double* handover) const {
  // Level s (sub-step s) computes the planes z of R_s in increasing z, one step behind level
  // s-1: at step t level s computes plane t - s, whose inputs (planes t-s-1 .. t-s+1 of level
  // s-1) are then complete. Levels below the last keep their planes in a ring (plane z in slot
  // z mod ring_planes()); the last level writes v. Where pairs(), a step is two planes of each
  // level, t - s and t - s + 1, which read planes t-s-1 .. t-s+2 of the level below: a ring
  // of 4.
  const Box S = scratch_box(T, k);
  const int h = h_;
  // The ring (on a 64-byte line, see the constructor) keeps the field's phase in its rows:
  // x = h (the first owned cell) starts a line in both, so a line kernel reading one and writing
  // the other has all its whole vectors on lines of both (with the ring's rows at any phase, most
  // rows split every load or store).
  const std::int64_t sx = ring_pitch(S), plane = sx * S.extent(1);
  const int pad = (8 - (h - S.lo[0]) % 8) % 8;
  const int nz = n_[2];
  const auto slot_of = [&](int s, int z) {
    return ring + (std::int64_t(s) * ring_planes() + (z - S.lo[2]) % ring_planes()) * plane;
  };
  const auto at = [&](auto* base, int i, int j) {
    return base + pad + (i - S.lo[0]) + sx * (j - S.lo[1]);
  };
  const std::int64_t field_sz = two_d_ ? 0 : in_u.sz;
  // Physical-boundary fills of plane z of level s (the plain loop's order and spans, limited
  // to the cells the next level reads), then the z ghost plane a finished plane is the
  // mirror (or neighbour) of.
  // The cells level s+1 reads of level s: its cone grown by the stencil's reach.
  const auto need_of = [&](int s) {
    return grow_active(cone(T, k - 2 - s, cont), 1, two_d_).intersect(S);
  };
  const auto fill_xy = [&](int s, int z) {
    const Box need = need_of(s);
    double* base = slot_of(s, z);
    for (const BoundaryFill& f : boundary_.fills) {
      if (f.d == 2) continue;
      const int d = f.d, n = n_[d];
      Box slab = f.span;
      slab.lo[d] = f.side == 0 ? 0 : n + h;
      slab.hi[d] = f.side == 0 ? h : n + 2 * h;
      slab.lo[2] = std::max(slab.lo[2], z), slab.hi[2] = std::min(slab.hi[2], z + 1);
      slab = slab.intersect(need);
      if (slab.empty()) continue;
      const Boundary kind = boundary_.kind[d];
      const int mirror = f.side == 0 ? 2 * h - 1 : 2 * (n + h) - 1;
      for (int j = slab.lo[1]; j < slab.hi[1]; ++j)
        for (int i = slab.lo[0]; i < slab.hi[0]; ++i) {
          if (kind == Boundary::Dirichlet) {
            *at(base, i, j) = boundary_.value;
          } else if (kind == Boundary::Neumann) {
            int src[2] = {i, j};
            src[d] = mirror - src[d];
            *at(base, i, j) = *at(base, src[0], src[1]);
          }
        }
    }
  };
  const auto fill_z_ghost = [&](int s, int ghost, int source, int side) {
    const Box need = need_of(s);
    if (ghost < need.lo[2] || ghost >= need.hi[2]) return;
    for (const BoundaryFill& f : boundary_.fills) {
      if (f.d != 2 || f.side != side) continue;
      Box slab = f.span.intersect(need);
      double* dst = slot_of(s, ghost);
      const double* src = slot_of(s, source);
      for (int j = slab.lo[1]; j < slab.hi[1]; ++j)
        for (int i = slab.lo[0]; i < slab.hi[0]; ++i) {
          if (boundary_.kind[2] == Boundary::Dirichlet)
            *at(dst, i, j) = boundary_.value;
          else if (boundary_.kind[2] == Boundary::Neumann)
            *at(dst, i, j) = *at(src, i, j);
        }
    }
  };
  bool z_fill[2] = {false, false};
  for (const BoundaryFill& f : boundary_.fills)
    if (f.d == 2) z_fill[f.side] = true;

  int t_first = 0, t_last = 0;
  for (int s = 0; s < k; ++s) {
    const Box R = update_box(T, k, s, cont, levels_wrap);
    t_first = s == 0 ? R.lo[2] : std::min(t_first, R.lo[2] + s);
    t_last = std::max(t_last, R.hi[2] + s);
  }
  // From memory, the first sub-step reads each plane of u from memory as it comes to it, and
  // the memory stands idle while the later sub-steps compute in cache: the time of those reads
  // added to the round's (a round of H = 4 on 256^3, two threads, AMD Zen 5: 17.9-18.7 ms, and
  // 14.2-16.1 with the first sub-step reading three fixed planes of u instead, four rounds).
  // So the later sub-steps request, one 64-byte line per vector they compute, the plane of u
  // the first reads next as its leading plane (t + 2 at step t, t + 3 where a step is two
  // planes), into the L2. The same rounds, alternating with and without, four pairs:
  // H = 4 16.1-17.1 against 18.8-19.4 ms, H = 2 8.5-9.5 against 10.7-12.0. Two planes ahead
  // was slower (H = 4 16.5-17.6), and the first sub-step without its own fetch as well
  // (17.8-22.1).
  const bool fetch_u = first_mode == LineMode::Prefetch && points_ == 7 && k > 1 && !two_d_;
  const Box R0 = update_box(T, k, 0, cont, levels_wrap);
  FetchAhead ahead;
  const auto& a = a_;
  const int step = pairs() ? 2 : 1;
  // Where plane z of level s reads its inputs and writes its output.
  struct PlaneIo {
    PlaneRows rows;  ///< centre and output of the first row, planes below and above
    std::int64_t in_sy, out_sy;
    bool streamed;
  };
  const auto io_of = [&](int s, int z, const Box& R) {
    PlaneIo p{};
    const double* in_plane = s == 0 ? nullptr : slot_of(s - 1, z);
    p.rows.below = two_d_ ? 0 : s == 0 ? field_sz : in_plane - slot_of(s - 1, z - 1);
    p.rows.above = two_d_ ? 0 : s == 0 ? field_sz : slot_of(s - 1, z + 1) - in_plane;
    p.in_sy = s == 0 ? in_u.sy : sx;
    double* out_plane = s == k - 1 ? nullptr : slot_of(s, z);
    const int j = R.lo[1];
    p.rows.c = s == 0 ? in_u.p + in_u.at(R.lo[0], j, z) : at(in_plane, R.lo[0], j);
    p.rows.out = s == k - 1 ? out_v.p + out_v.at(R.lo[0], j, z) : at(out_plane, R.lo[0], j);
    p.out_sy = s == k - 1 ? out_v.sy : sx;
    p.streamed = s == k - 1 && last_mode == LineMode::Stream;
    return p;
  };
  const auto mode_of = [&](int s, const PlaneIo& p) {
    return p.streamed ? last_mode : s == 0 ? first_mode : LineMode::Cached;
  };
  const auto finish = [&](int s, int z, const Box& R, const PlaneIo& p) {
    double* o = p.rows.out;
    const std::int64_t out_sy = p.out_sy;
    if (s == k - 1 && wrap) {
      // The tile's rows of v, across the block along x: its first row's line before it
      // holds the row of another tile (or a y ghost row), and its last row's east ghosts
      // the line before the next tile's first row.
      const int rows = R.extent(1);
      if (!p.streamed) wrap_rows_copied(o, R.extent(0), rows, h, out_sy);
#if defined(MINIAPP_HAVE_SIMD_LINES)
      if (p.streamed)
        for (int r = 0; r < rows; ++r)
          wrap_line7_streamed(p.rows.c + r * p.in_sy, o + r * out_sy, R.extent(0), h, p.in_sy,
                              p.rows.below, p.rows.above, a.ax, a.ay, a.az, r == 0, r == rows - 1);
#endif
    }
    // The x ghosts the next level reads, copied from the other end of each row (before
    // the hand-over and the boundary fills read whole rows).
    if (s < k - 1 && levels_wrap) wrap_rows_copied(o, R.extent(0), R.extent(1), k - 1 - s, out_sy);
    if (s < k - 1) {
      // The hand-over: the 2 rows below this level's first row come from the predecessor,
      // this level's 2 last rows go to the successor (the chain's slot for level s and
      // plane z, read and then written again by each tile in turn).
      double* handed = handover == nullptr
                           ? nullptr
                           : handover + (std::int64_t(s) * S.extent(2) + (z - S.lo[2])) * 2 * sx;
      if (cont) {
        std::copy(handed, handed + 2 * sx, slot_of(s, z) + sx * (R.lo[1] - 2 - S.lo[1]));
        // The next plane's slot is read one wavefront step on: request it into the L2 now
        // (it sits in the L3). Measured on AMD Zen 5, 256^3, two threads, H = 4, tiles
        // 256 x 24 x 256, six rounds: 18.0-22.5 ms per round (median 18.5) against 19.2-20.9
        // (19.8) without; the copy alone was 3 % of all samples of bench temporal without.
        if (z + 1 < S.hi[2]) FetchAhead{handed + 2 * sx, sx, 2, int(sx / 8)}.all();
      }
      fill_xy(s, z);
      if (z_fill[0] && z == h) fill_z_ghost(s, h - 1, h, 0);
      const int top = T.hi[1] + (k - 1 - s);  // this level's rows end here, before clipping
      if (handed != nullptr && R.hi[1] == top && top - 2 >= S.lo[1]) {
        const double* from = slot_of(s, z) + sx * (top - 2 - S.lo[1]);
        std::copy(from, from + 2 * sx, handed);
      }
    }
  };
  for (int t = t_first; t <= t_last; t += step)
    for (int s = 0; s < k; ++s) {
      if (fetch_u && s == 1) {
        // The rows and x-lines of u (R_0 grown by 1) the first sub-step reads next.
        ahead = FetchAhead{};
        if (t + step + 1 <= R0.hi[2]) {
          ahead.row = in_u.p + in_u.at(R0.lo[0] - 1, R0.lo[1] - 1, t + step + 1);
          ahead.sy = in_u.sy;
          ahead.rows = R0.extent(1) + 2;
          ahead.lines = (R0.extent(0) + 2 + 7) / 8 + 1;  // + 1: the row need not start a line
        }
      }
      const Box R = update_box(T, k, s, cont, levels_wrap);
      const int z0 = t - s;
      const auto valid = [&](int z) { return z >= R.lo[2] && z < R.hi[2]; };
      // The later levels compute from the ring: `ahead` tells their kernels so (for the
      // 27-point rows it only does that; it carries u's lines for the 7-point ones). The 2D
      // rounds' lines keep their own fetch, whose "leading plane" is rows of the same plane:
      // without it 0.97 x as fast (4096^2, H = 4, two threads, eight alternating pairs).
      FetchAhead* fa = s > 0 && (fetch_u || points_ == 27) ? &ahead : nullptr;
      if (step == 2 && s > 0 && valid(z0) && valid(z0 + 1)) {
        // Two planes row by row (the first level, which reads u from memory, keeps one plane
        // after the other: see pairs()).
        const PlaneIo p0 = io_of(s, z0, R), p1 = io_of(s, z0 + 1, R);
        stencil_rows7_pair(p0.rows, p1.rows, R.extent(0), R.extent(1), p0.in_sy, p0.out_sy, a.ax,
                           a.ay, a.az, mode_of(s, p0), fa);
        finish(s, z0, R, p0);
        finish(s, z0 + 1, R, p1);
      } else {
        for (int z = z0; z < z0 + step; ++z)
          if (valid(z)) {
            const PlaneIo p = io_of(s, z, R);
            stencil_rows(points_, p.rows.c, p.rows.out, R.extent(0), R.extent(1), p.in_sy,
                         p.rows.below, p.rows.above, p.out_sy, a.ax, a.ay, a.az, mode_of(s, p), fa);
            finish(s, z, R, p);
          }
      }
      for (int z = z0; z < z0 + step; ++z)
        if (s < k - 1 && z_fill[1] && z == nz + h && R.hi[2] == nz + h)
          fill_z_ghost(s, nz + h, nz + h - 1, 1);
    }
}

}  // namespace miniapp
