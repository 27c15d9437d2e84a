#include "time_stepper.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "boundary.hpp"
#include "stencil.hpp"
#include "timer.hpp"

namespace miniapp {

Index3 choose_rank_grid(const Problem& problem, int nranks, const Index3& fixed, int halo_width) {
  Index3 global = problem.grid, pinned = fixed;
  if (problem.two_d()) {  // a 2D problem has no z halo: one rank along z, no z cells needed
    global[2] = std::max(1, halo_width);
    pinned[2] = 1;
  }
  return Decomposition::choose_dims(nranks, global, pinned, halo_width);
}

TimeStepper::TimeStepper(const Problem& problem, const HaloOptions& halo,
                         const BlockingOptions& blocking, const Index3& dims, MPI_Comm comm,
                         StorePolicy stores, SweepStores first_stores)
    : problem_(problem), halo_options_(halo), a_(problem.coefficients()) {
  if (halo.width < 1)
    throw std::invalid_argument("TimeStepper: halo width " + std::to_string(halo.width) +
                                " is below the stencil radius 1");
  decomp_ = std::make_unique<Decomposition>(comm, problem.grid, dims, problem.periodic());
  u_ = Field("miniapp::u", decomp_->owned(), halo.width);
  v_ = Field("miniapp::v", decomp_->owned(), halo.width);
  fill_initial(u_, problem.initial_condition());
  fill_zero(v_);
  stores_ = StoreChoice(stores, sweep_streams_from_memory(u_.interior()), first_stores);
  halo_ = make_halo_exchange(halo, *decomp_, u_, problem.bc, problem.bc_value);
  neighborhood_ = neighborhood_of(*decomp_);
  refill_ = plan_refill(neighborhood_, u_.n(), u_.halo(), problem.two_d());
  if (blocking.enabled) {
    std::vector<Box> regions;
    regions.reserve(std::size_t(halo.width));
    for (int s = 0; s < halo.width; ++s) regions.push_back(update_region(s));
    blocking_ = std::make_unique<TemporalBlocking>(
        u_, blocking.tile, std::move(regions), BoundaryRule{refill_, problem.bc, problem.bc_value},
        problem.stencil, a_, problem.two_d());
  }
}

Box TimeStepper::update_region(int s) const {
  return miniapp::update_region(neighborhood_, u_.n(), u_.halo(), s, problem_.two_d());
}

void TimeStepper::update(const Box& region) {
  // Where the exchange can leave the x faces to the sweep, lines across the interior along x
  // are asked to store their own x ghosts; the sub-step's output has current x faces if all
  // its lines did (the sweep declines where that costs more than the copy: XGhosts).
  const Box in = u_.interior();
  const bool wrap =
      halo_->x_faces_from_sweep() && region.lo[0] == in.lo[0] && region.hi[0] == in.hi[0];
  const bool stored = apply_stencil(problem_.stencil, u_, v_, region, a_, problem_.two_d(),
                                    round_stores_, wrap ? XGhosts::Wrap : XGhosts::Leave);
  if (!stored && !region.empty()) x_wrapped_ = false;
}

void TimeStepper::refill_boundaries() {
  ScopedTimer timer(times_.refill, "miniapp::refill", Fence::AtEnd);
  apply_fills(u_, refill_, -1, problem_.bc, problem_.bc_value);
}

void TimeStepper::exchange_and_update(const Box& region) {
  if (!halo_options_.overlap) {
    {
      ScopedTimer timer(times_.halo, "miniapp::halo");
      halo_->exchange(u_, x_current_);
    }
    ScopedTimer timer(times_.stencil, "miniapp::stencil", Fence::AtEnd);
    update(region);
    return;
  }
  // Inner cells read no ghost: the interior shrunk by the stencil reach (1) in every active
  // dimension. They are updated in tiles (slabs along the slowest active dimension) while the
  // messages fly.
  Box inner = u_.interior();
  const int dims = problem_.two_d() ? 2 : 3;
  for (int d = 0; d < dims; ++d) inner.lo[d] += 1, inner.hi[d] -= 1;
  inner = inner.intersect(region);
  if (inner.empty()) inner = Box{};
  const int slow = dims - 1, tiles = std::min(8, std::max(1, inner.extent(slow)));
  std::vector<Box> updated;  // what each run of slabs updated, in order along slow
  const auto slabs = [&](int first, int last) {
    Box b = inner;
    b.lo[slow] = inner.lo[slow] + inner.extent(slow) * first / tiles;
    b.hi[slow] = inner.lo[slow] + inner.extent(slow) * last / tiles;
    // Where the ghosts of the fastest dimensions have already arrived (dim-ordered: x after its
    // first phase), the slab's lines run the whole region along them: the shell left for
    // after the messages is thinner, and its x faces, one cell per line, need no pass of their
    // own. Once the slow dimension's have arrived too, a run of slabs at either end reaches the
    // region's end: all of them at once are the whole region, as without overlap.
    const int complete = halo_->dims_complete();
    for (int d = 0; d < std::min(slow, complete); ++d) {
      b.lo[d] = region.lo[d];
      b.hi[d] = region.hi[d];
    }
    if (slow < complete) {
      if (first == 0) b.lo[slow] = region.lo[slow];
      if (last == tiles) b.hi[slow] = region.hi[slow];
    }
    updated.push_back(b);
    update(b);
  };
  // The outer shell: region minus the slabs, as disjoint boxes: the two ends along the slow
  // dimension beyond the runs, then per run what it left out along the faster ones (each of
  // them empty where a run reached across).
  const auto shell = [&] {
    if (updated.empty()) {
      update(region);
      return;
    }
    Box lo = region, hi = region;
    lo.hi[slow] = updated.front().lo[slow];
    hi.lo[slow] = updated.back().hi[slow];
    update(lo);
    update(hi);
    for (const Box& b : updated) {
      Box rest = region;
      rest.lo[slow] = b.lo[slow];
      rest.hi[slow] = b.hi[slow];
      for (int d = slow - 1; d >= 0; --d) {
        Box below = rest, above = rest;
        below.hi[d] = b.lo[d];
        above.lo[d] = b.hi[d];
        update(below);  // empty where the slab reached across d
        update(above);
        rest.lo[d] = b.lo[d];
        rest.hi[d] = b.hi[d];
      }
    }
  };
  overlapped_exchange(inner.empty() ? 0 : tiles, slabs, shell);
}

void TimeStepper::overlapped_exchange(int items, const std::function<void(int, int)>& inner,
                                      const std::function<void()>& rest) {
  // Exposed communication: the time this thread spends in MPI and halo kernels. The exchange
  // is in flight from start to the moment its completion is seen; what of that was not
  // exposed ran behind interior updates. An MPI_Testall between the inner work items lets the
  // library progress the messages.
  //
  // The items are there to give MPI those chances; once the exchange has completed, the rest
  // run as one: every separate sweep restarts its threads' runs of planes, and eight slabs cost
  // a 256^3 step 0.5-0.8 ms more than one (measured on AMD Zen 5, 1 rank x 2 threads, where
  // the messages are the rank's own and complete at once). A first test right after the start
  // lets what has already arrived complete before any item runs, so that the items read the
  // ghosts of as many dimensions as possible.
  const double start = MPI_Wtime();
  double exposed = 0, done_at = -1;
  {
    ScopedTimer timer(exposed, "miniapp::halo::start");
    halo_->start(u_, x_current_);
    if (halo_->test(u_)) done_at = MPI_Wtime();
  }
  for (int item = 0; item < items;) {
    const int last = done_at >= 0 ? items : item + 1;
    {
      ScopedTimer timer(times_.stencil, "miniapp::stencil::inner", Fence::AtEnd);
      inner(item, last);
    }
    item = last;
    if (done_at >= 0) continue;
    ScopedTimer timer(exposed, "miniapp::halo::test");
    if (halo_->test(u_)) done_at = MPI_Wtime();
  }
  {
    ScopedTimer timer(exposed, "miniapp::halo::finish");
    halo_->finish(u_);
    if (done_at < 0) done_at = MPI_Wtime();
  }
  times_.halo += exposed;
  times_.hidden += std::max(0.0, (done_at - start) - exposed);

  ScopedTimer timer(times_.stencil, "miniapp::stencil::shell", Fence::AtEnd);
  rest();
}

bool TimeStepper::blocked_round(int k) {
  const TemporalBlocking& tb = *blocking_;
  const int all = int(tb.tiles().size()), inner = tb.inner_tiles();
  const XGhosts x_ghosts = blocked_x_ghosts();
  if (!halo_options_.overlap) {
    {
      ScopedTimer timer(times_.halo, "miniapp::halo");
      halo_->exchange(u_, x_current_);
    }
    ScopedTimer timer(times_.stencil, "miniapp::stencil::blocked");
    return tb.run(u_, v_, k, round_stores_, x_ghosts);
  }
  // The tiles whose cones read no ghost run while the messages fly, in up to 8 chunks.
  const int chunks = std::min(8, inner);
  bool wrapped = true;
  overlapped_exchange(
      chunks,
      [&](int c0, int c1) {
        wrapped &=
            tb.run(u_, v_, k, inner * c0 / chunks, inner * c1 / chunks, round_stores_, x_ghosts);
      },
      [&] { wrapped &= tb.run(u_, v_, k, inner, all, round_stores_, x_ghosts); });
  return wrapped;
}

void TimeStepper::advance(int k) {
  if (k < 1 || k > halo_options_.width)
    throw std::invalid_argument("TimeStepper::advance: a round of " + std::to_string(k) +
                                " sub-steps with halo width " +
                                std::to_string(halo_options_.width));
  const std::int64_t interior = u_.interior().count();
  round_stores_ = stores_.next();
  const double swept = times_.stencil, copied = halo_->counters().x_face_copy;
  if (blocking_) {  // the k sub-steps fused over tiles (temporal_blocking.hpp)
    x_current_ = blocked_round(k);
    times_.redundant += blocking_->redundant(k, blocked_x_ghosts());
    std::swap(u_, v_);
    // Per owned cell and sub-step: rounds of k sub-steps compare with rounds of k, and a round
    // that left the x faces to the next exchange pays that copy too, as a plain one does.
    record_round(swept, copied, double(interior) * k);
    return;
  }
  std::int64_t cells = 0;
  for (int s = 0; s < k; ++s) {
    const Box region = update_region(s);
    x_wrapped_ = true;
    if (s == 0) {
      exchange_and_update(region);
    } else {
      refill_boundaries();
      ScopedTimer timer(times_.stencil, "miniapp::stencil", Fence::AtEnd);
      update(region);
    }
    times_.redundant += region.count() - interior;
    cells += region.count();
    std::swap(u_, v_);
  }
  x_current_ = x_wrapped_;
  record_round(swept, copied, double(std::max<std::int64_t>(cells, 1)));
}

void TimeStepper::record_round(double swept, double copied, double cells) {
  // A round whose sweeps left the x faces to the next exchange (streaming stores) costs that
  // copy too, and its stores decided it: the choice weighs the latest copy measured.
  if (halo_->counters().x_face_copy > copied) x_copy_ = halo_->counters().x_face_copy - copied;
  const double left = halo_->x_faces_from_sweep() && !x_current_ ? x_copy_ : 0.0;
  stores_.record(round_stores_, (times_.stencil - swept + left) / cells);
}

void TimeStepper::run(std::int64_t steps) {
  for (std::int64_t done = 0; done < steps;) {
    const int k = int(std::min<std::int64_t>(halo_options_.width, steps - done));
    advance(k);
    done += k;
  }
}

FieldSummary TimeStepper::summary() const { return summarize(u_, problem_.grid, decomp_->comm()); }

void TimeStepper::reset_timers() {
  times_ = {};
  halo_->reset_counters();
}

}  // namespace miniapp
