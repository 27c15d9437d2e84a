#include "calibration.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "affinity.hpp"
#include "halo_plan.hpp"
#include "initial_condition.hpp"
#include "mpi_utils.hpp"
#include "stencil.hpp"
#include "temporal_blocking.hpp"

namespace miniapp {

namespace {

/// The slowest rank's seconds, all ranks having started together. Collective.
double slowest(double seconds, MPI_Comm comm) {
  mpi_check(MPI_Barrier(comm), "MPI_Barrier (calibration)");
  return reduce_stat(seconds, comm).max;
}

/// The stores a run's rounds on blocks of n cells may take under its --sweep-stores: both where
/// they choose (adaptive); none to choose where its fields fit in the cache share, whose sweeps
/// write through the cache (SweepStores::Auto, as the run's StoreChoice then asks).
std::vector<SweepStores> store_kinds(const Config& config, const Index3& n) {
  if (!sweep_streams_from_memory(Box{{0, 0, 0}, n})) return {SweepStores::Auto};
  if (config.sweep_stores == StorePolicy::Streaming) return {SweepStores::Streaming};
  if (config.sweep_stores == StorePolicy::Ordinary) return {SweepStores::Ordinary};
  return {SweepStores::Streaming, SweepStores::Ordinary};
}

/// One round of `choice` (blocked, choice.width sub-steps) on a block of in.n cells with a
/// neighbour on every side, with the faster of the stores the run may take: its seconds (the
/// slowest rank's median of three rounds after one untimed) and which kind it was. Collective.
FasterStores time_blocked_round(const Config& config, const BlockingModelInputs& in,
                                const BlockingChoice& choice, XGhosts x_ghosts, MPI_Comm comm) {
  const Box owned{{0, 0, 0}, in.n};
  Field u("miniapp::calibration::u", owned, choice.width),
      v("miniapp::calibration::v", owned, choice.width);
  fill_zero(u);
  fill_zero(v);
  Neighborhood everywhere;  // a neighbour on every side: the rounds of a periodic block
  std::vector<Box> regions;
  regions.reserve(std::size_t(choice.width));
  for (int s = 0; s < choice.width; ++s)
    regions.push_back(update_region(everywhere, in.n, choice.width, s, in.two_d));
  const TemporalBlocking tb(u, choice.tile, regions, {}, config.stencil,
                            config.problem().coefficients(), in.two_d);
  return time_faster_stores(
      store_kinds(config, in.n), 1, 3,
      [&](SweepStores stores) { tb.run(u, v, choice.width, stores, x_ghosts); }, comm);
}

}  // namespace

XGhosts run_x_ghosts(const Config& config, const Index3& dims) {
  const bool wrap = dims[0] == 1 && config.bc[0] == Boundary::Periodic &&
                    config.pack == PackKind::Kernel && config.halo_mode != HaloMode::NeighborColl;
  return wrap ? XGhosts::Wrap : XGhosts::Leave;
}

FasterStores time_faster_stores(const std::vector<SweepStores>& kinds, int warm, int reps,
                                const std::function<void(SweepStores)>& run, MPI_Comm comm) {
  std::vector<std::vector<double>> seconds(kinds.size());
  mpi_check(MPI_Barrier(comm), "MPI_Barrier (calibration)");
  for (int r = -warm; r < reps; ++r)
    for (std::size_t k = 0; k < kinds.size(); ++k) {
      const double t0 = MPI_Wtime();
      run(kinds[k]);
      Kokkos::fence();
      const double t = slowest(MPI_Wtime() - t0, comm);  // its barrier starts the next call
      if (r >= 0) seconds[k].push_back(t);
    }
  FasterStores best{std::numeric_limits<double>::infinity(), SweepStores::Auto};
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    std::vector<double>& s = seconds[k];
    std::sort(s.begin(), s.end());
    const std::size_t m = s.size() / 2;
    const double median = s.size() % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
    if (median < best.seconds) best = {median, kinds[k]};
  }
  return best;
}

std::string Roofline::copies_per_node() const {
  char text[96];
  std::snprintf(text, sizeof text, "copy ordinary %.2f GB/s, streaming %.2f GB/s per node",
                copy.ordinary / nodes / 1e9, copy.streaming / nodes / 1e9);
  return text;
}

Roofline measure_roofline(const Config& config, MPI_Comm comm, double seconds) {
  int nranks = 1;
  MPI_Comm_size(comm, &nranks);
  const double start = MPI_Wtime();
  const double cells = double(config.grid[0]) * config.grid[1] * config.grid[2] / nranks;
  const double floor = 2.0 * double(last_level_cache_bytes()) / 16.0;
  Roofline r;
  r.elements = std::int64_t(std::min(std::max(cells, floor), double(std::int64_t(1) << 25)));
  const StreamCopy copy(r.elements);
  const auto reduce = [&](double t) { return slowest(t, comm); };
  // One copy of each kind sizes the measurement; every rank gets the same count.
  const double probe = reduce(copy.run(StoreKind::Ordinary) + copy.run(StoreKind::Streaming));
  const int reps = std::clamp(int(seconds / std::max(probe, 1e-9)), 3, 1000);
  r.copy = copy.measure(reps, reduce);
  r.copy.ordinary *= nranks;
  r.copy.streaming *= nranks;
  r.nodes = count_nodes(comm);
  r.seconds = MPI_Wtime() - start;
  return r;
}

double blocked_rounds_cache_rate(int points, MPI_Comm comm) {
  // Blocked rounds give each plane's rows (7-point: two planes' rows in turn) to the row
  // kernels; the plain sweep has tiles and stores of its own.
  return reduce_stat(in_cache_sweep_rate(points, 30, InCacheKernels::Rows), comm).min;
}

HaloWidthChoice choose_halo_width(const Config& config, const Roofline* roofline, MPI_Comm comm) {
  int rank = 0, nranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nranks);
  const double start = MPI_Wtime();
  HaloWidthChoice out;
  BlockingModelInputs& in = out.model;
  // The smallest block bounds H (every rank needs H cells per dimension); its rates stand for all.
  const Index3 dims = resolve_rank_grid(config, nranks);
  in.n = smallest_block(config, dims);
  const XGhosts x_ghosts = run_x_ghosts(config, dims);
  in.two_d = config.two_d();
  in.threads = Exec().concurrency();
  // Deeper halos update ghost cells, which needs edges and corners: not with --halo faces.
  in.max_width = config.halo_mode == HaloMode::Faces ? 1 : 8;

  const Roofline copy = roofline ? *roofline : measure_roofline(config, comm, 0.2);
  in.memory_rate = copy.bound() / nranks;
  in.cache_rate = blocked_rounds_cache_rate(config.stencil, comm);
  SweepStores plain_stores = SweepStores::Auto;
  {
    // The plain sweep of this block, from memory as in the run (its own pair of fields, freed
    // before the run's are allocated), with the stores the run's plain sweeps would take: the
    // faster kind where they choose (--sweep-stores adaptive), both timed in turn.
    const Box owned{{0, 0, 0}, in.n};
    Field u("miniapp::calibration::u", owned, 1), v("miniapp::calibration::v", owned, 1);
    fill_zero(u);
    fill_zero(v);
    const Coefficients a = config.problem().coefficients();
    const FasterStores faster = time_faster_stores(
        store_kinds(config, in.n), 2, 5,
        [&](SweepStores stores) {
          apply_stencil(config.stencil, u, v, u.interior(), a, in.two_d, stores, x_ghosts);
        },
        comm);
    in.plain_rate = double(u.interior().count()) / faster.seconds;
    plain_stores = faster.stores;
  }

  // Every rank computed the same inputs; rank 0's candidates are the ones all time, each with
  // the wide tile beside the automatic one (rank 0's too: a rank's thread count may differ).
  std::vector<BlockingChoice> candidates;
  if (rank == 0) candidates = blocking_candidates(in);
  int count = int(candidates.size());
  mpi_check(MPI_Bcast(&count, 1, MPI_INT, 0, comm), "MPI_Bcast (halo width auto)");
  candidates.resize(std::size_t(count));
  std::map<int, Index3> wide_of;  // by width
  for (BlockingChoice& c : candidates) {
    const Index3 wide = rank == 0 ? wide_tile(in.n, c.width, in.two_d, in.threads) : Index3{};
    int ints[7] = {c.width, c.tile[0], c.tile[1], c.tile[2], wide[0], wide[1], wide[2]};
    double rates[2] = {c.rate, c.plain_rate};
    mpi_check(MPI_Bcast(ints, 7, MPI_INT, 0, comm), "MPI_Bcast (halo width auto)");
    mpi_check(MPI_Bcast(rates, 2, MPI_DOUBLE, 0, comm), "MPI_Bcast (halo width auto)");
    c = BlockingChoice{ints[0], true, {ints[1], ints[2], ints[3]}, rates[0], rates[1]};
    wide_of[c.width] = {ints[4], ints[5], ints[6]};
  }

  // The model can be wrong about a machine: it idealises a round's overlap of memory and
  // arithmetic, and takes the kernels' rate in cache from a small block. So it only says where
  // to start the walk (walk_widths), each width timed a few rounds on a block of its own; the
  // fastest timed is kept where it beats the plain sweep timed above.
  // Every rank times, and all compare the slowest rank's figures (in: the same on every rank,
  // so is the plain rate below): the same decision everywhere.
  BlockingChoice& c = out.choice;
  c = plain_choice(in);
  out.stores = plain_stores;
  // Each width is timed with the automatic tile (rings in the L2) and, where it differs, the
  // wide one (rings in the L3): which is faster depends on the machine's L3 and on H
  // (kWideTileBudget), so the faster stands for the width.
  std::map<int, SweepStores> stores_of;  // by width
  std::map<int, TimedWidth> timed_of;
  const double cells = double(in.n[0]) * in.n[1] * in.n[2];
  out.timed = walk_widths(candidates, [&](const BlockingChoice& candidate) {
    FasterStores t = time_blocked_round(config, in, candidate, x_ghosts, comm);
    TimedWidth& timed = timed_of[candidate.width];
    timed.width = candidate.width;
    timed.tile = candidate.tile;
    if (const Index3 wide = wide_of[candidate.width]; wide != candidate.tile) {
      BlockingChoice w = candidate;
      w.tile = wide;
      FasterStores tw = time_blocked_round(config, in, w, x_ghosts, comm);
      timed.slower_tile = wide;
      if (tw.seconds < t.seconds) std::swap(t, tw), std::swap(timed.tile, timed.slower_tile);
      timed.slower_rate = cells * candidate.width / tw.seconds;
    }
    stores_of[candidate.width] = t.stores;
    return timed.rate = cells * candidate.width / t.seconds;
  });
  for (TimedWidth& t : out.timed) t = timed_of[t.width];
  const auto fastest =
      std::max_element(out.timed.begin(), out.timed.end(),
                       [](const TimedWidth& a, const TimedWidth& b) { return a.rate < b.rate; });
  if (fastest != out.timed.end() && fastest->rate > in.plain_rate)
    for (const BlockingChoice& candidate : candidates)
      if (candidate.width == fastest->width) {
        c = candidate;
        c.tile = fastest->tile;
        out.stores = stores_of[candidate.width];
      }
  // The run's own choice starts from the faster kind where it chooses; fixed stores are as asked.
  if (config.sweep_stores != StorePolicy::Adaptive) out.stores = SweepStores::Auto;
  out.seconds = MPI_Wtime() - start;
  return out;
}

Config with_halo_width(Config config, const BlockingChoice& choice) {
  config.halo_width = choice.width;
  config.temporal_blocking = choice.blocking;
  config.tile = choice.blocking ? choice.tile : Index3{0, 0, 0};
  return config;
}

}  // namespace miniapp
