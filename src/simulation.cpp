#include "simulation.hpp"

#include <algorithm>
#include <utility>
#include <string>

#include "boundary.hpp"
#include "stencil.hpp"

namespace miniapp {

Index3 resolve_rank_grid(const Config& config, int nranks) {
  Index3 global = config.grid, fixed = config.ranks;
  if (config.two_d()) {  // a 2D problem has no z halo: one rank along z, no z cells needed
    global[2] = std::max(1, config.halo_width);
    fixed[2] = 1;
  }
  const Index3 dims = Decomposition::choose_dims(nranks, global, fixed, config.halo_width);
  if (dims[0] == 0) {
    throw ConfigError(
        "no rank grid for " + std::to_string(nranks) + " ranks fits --grid " +
        std::to_string(config.grid[0]) + " " + std::to_string(config.grid[1]) + " " +
        std::to_string(config.grid[2]) + " with at least " + std::to_string(config.halo_width) +
        " cell(s) per rank per dimension" + " (--ranks " + std::to_string(config.ranks[0]) + " " +
        std::to_string(config.ranks[1]) + " " + std::to_string(config.ranks[2]) + ")");
  }
  return dims;
}

Simulation::Simulation(const Config& config, MPI_Comm comm)
    : config_(config), a_(config.coefficients()) {
  int nranks = 0;
  MPI_Comm_size(comm, &nranks);
  const Index3 dims = resolve_rank_grid(config, nranks);
  std::array<bool, 3> periodic;
  for (int d = 0; d < 3; ++d) periodic[d] = config.bc[d] == Boundary::Periodic;
  decomp_ = std::make_unique<Decomposition>(comm, config.grid, dims, periodic);

  u_ = Field("miniapp::u", decomp_->owned(), config.halo_width);
  v_ = Field("miniapp::v", decomp_->owned(), config.halo_width);
  fill_initial(u_, InitialCondition::from(config));
  fill_zero(v_);
  halo_ = make_halo_exchange(config, *decomp_, u_);
  neighborhood_ = neighborhood_of(*decomp_);
  refill_ = plan_refill(neighborhood_, u_.n(), u_.halo(), config.two_d());
  if (config.temporal_blocking) {
    std::vector<Box> regions;
    regions.reserve(std::size_t(config.halo_width));
    for (int s = 0; s < config.halo_width; ++s) regions.push_back(update_region(s));
    blocking_ = std::make_unique<TemporalBlocking>(u_, config.tile, std::move(regions),
                                                   BoundaryRule{refill_, config.bc, config.bc_value},
                                                   config.stencil, a_, config.two_d());
  }
}

Box Simulation::update_region(int s) const {
  const int h = u_.halo();
  Box r = u_.interior();
  for (int d = 0; d < (config_.two_d() ? 2 : 3); ++d) {
    if (!neighborhood_.physical(d, 0)) r.lo[d] = s + 1;
    if (!neighborhood_.physical(d, 1)) r.hi[d] = u_.n()[d] + 2 * h - s - 1;
  }
  return r;
}

void Simulation::update(const Box& region) {
  apply_stencil(config_.stencil, u_, v_, region, a_, config_.two_d());
}

void Simulation::exchange_and_update(const Box& region) {
  if (!config_.overlap) {
    double t = MPI_Wtime();
    halo_->exchange(u_);
    times_.halo += MPI_Wtime() - t;
    t = MPI_Wtime();
    update(region);
    Kokkos::fence();
    times_.stencil += MPI_Wtime() - t;
    return;
  }
  // Inner cells read no ghost: the interior shrunk by the stencil reach (1) in every active
  // dimension. They are updated in tiles (slabs along the slowest active dimension) while the
  // messages fly.
  Box inner = u_.interior();
  const int dims = config_.two_d() ? 2 : 3;
  for (int d = 0; d < dims; ++d) inner.lo[d] += 1, inner.hi[d] -= 1;
  inner = inner.intersect(region);
  if (inner.empty()) inner = Box{};
  const int slow = dims - 1, tiles = std::min(8, std::max(1, inner.extent(slow)));
  const auto slab = [&](int tile) {
    Box b = inner;
    b.lo[slow] = inner.lo[slow] + inner.extent(slow) * tile / tiles;
    b.hi[slow] = inner.lo[slow] + inner.extent(slow) * (tile + 1) / tiles;
    update(b);
  };
  // The outer shell: region minus inner, as up to 6 disjoint slabs.
  const auto shell = [&] {
    if (inner.empty()) {
      update(region);
      return;
    }
    Box rest = region;
    for (int d = dims - 1; d >= 0; --d) {
      Box lo = rest, hi = rest;
      lo.hi[d] = inner.lo[d];
      hi.lo[d] = inner.hi[d];
      update(lo);
      update(hi);
      rest.lo[d] = inner.lo[d];
      rest.hi[d] = inner.hi[d];
    }
  };
  overlapped_exchange(inner.empty() ? 0 : tiles, slab, shell);
}

void Simulation::overlapped_exchange(int items, const std::function<void(int)>& inner,
                                     const std::function<void()>& rest) {
  // An MPI_Testall between the inner work items lets the library progress the messages.
  const double t0 = MPI_Wtime();
  halo_->start(u_);
  double exposed = MPI_Wtime() - t0, done_at = -1;
  for (int item = 0; item < items; ++item) {
    double t = MPI_Wtime();
    inner(item);
    Kokkos::fence();
    times_.stencil += MPI_Wtime() - t;
    if (done_at >= 0) continue;
    t = MPI_Wtime();
    if (halo_->test(u_)) done_at = MPI_Wtime();
    exposed += MPI_Wtime() - t;
  }
  double t = MPI_Wtime();
  halo_->finish(u_);
  if (done_at < 0) done_at = MPI_Wtime();
  exposed += MPI_Wtime() - t;
  times_.halo += exposed;
  // In flight from start to the moment completion was seen; what was not spent in MPI and
  // halo kernels on this thread ran behind interior updates.
  times_.hidden += std::max(0.0, (done_at - t0) - exposed);

  t = MPI_Wtime();
  rest();
  Kokkos::fence();
  times_.stencil += MPI_Wtime() - t;
}

void Simulation::blocked_round(int k) {
  const TemporalBlocking& tb = *blocking_;
  const int all = int(tb.tiles().size()), inner = tb.inner_tiles();
  if (!config_.overlap) {
    double t = MPI_Wtime();
    halo_->exchange(u_);
    times_.halo += MPI_Wtime() - t;
    t = MPI_Wtime();
    tb.run(u_, v_, k);
    times_.stencil += MPI_Wtime() - t;
    return;
  }
  // The tiles whose cones read no ghost run while the messages fly, in up to 8 chunks.
  const int chunks = std::min(8, inner);
  overlapped_exchange(
      chunks,
      [&](int c) { tb.run(u_, v_, k, inner * c / chunks, inner * (c + 1) / chunks); },
      [&] { tb.run(u_, v_, k, inner, all); });
}

std::int64_t Simulation::run(std::int64_t steps, StopVote* stop) {
  Kokkos::Profiling::pushRegion("miniapp::run");
  const std::int64_t interior = u_.interior().count();
  const double t_loop = MPI_Wtime();
  std::int64_t done = 0;
  while (done < steps) {
    const int k = int(std::min<std::int64_t>(config_.halo_width, steps - done));
    if (blocking_) {  // the k sub-steps fused over tiles (temporal_blocking.hpp)
      blocked_round(k);
      times_.redundant += blocking_->redundant(k);
      std::swap(u_, v_);
    }
    for (int s = 0; s < k && !blocking_; ++s) {
      const Box region = update_region(s);
      if (s == 0) {
        exchange_and_update(region);
      } else {
        double t = MPI_Wtime();
        for (const BoundaryFill& f : refill_)
          apply_boundary(u_, f.d, f.side, config_.bc[f.d], config_.bc_value, f.span);
        Kokkos::fence();
        times_.refill += MPI_Wtime() - t;
        t = MPI_Wtime();
        update(region);
        Kokkos::fence();
        times_.stencil += MPI_Wtime() - t;
      }
      times_.redundant += region.count() - interior;
      std::swap(u_, v_);
    }
    done += k;
    if (stop && stop->poll()) break;
  }
  times_.loop += MPI_Wtime() - t_loop;
  steps_done_ += done;
  Kokkos::Profiling::popRegion();
  return done;
}

FieldSummary Simulation::summary() const { return summarize(u_, config_.grid, decomp_->comm()); }

void Simulation::reset_timers() {
  times_ = {};
  halo_->reset_counters();
}

}  // namespace miniapp
