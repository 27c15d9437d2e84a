#include "temporal_blocking.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "stencil_line.hpp"

namespace miniapp {

namespace {

/// Box b grown by g along the active dimensions (x, y, and z unless the problem is 2D).
Box grow_active(const Box& b, int g, bool two_d) {
  Box r = b.grown(g);
  if (two_d) r.lo[2] = b.lo[2], r.hi[2] = b.hi[2];
  return r;
}

/// A window of an array: the local box it holds, x fastest, and its strides.
struct Window {
  double* p = nullptr;
  Box box;
  std::int64_t sy = 0, sz = 0;

  Window(double* data, const Box& b)
      : p(data), box(b), sy(b.extent(0)), sz(std::int64_t(b.extent(0)) * b.extent(1)) {}
  std::int64_t at(int i, int j, int k) const {
    return (i - box.lo[0]) + sy * (j - box.lo[1]) + sz * (k - box.lo[2]);
  }
};

/// Cell updates of k sub-steps of tile T relative to the tile's own T.count() * k.
double cone_cost(const Index3& t, int k, bool two_d) {
  double cost = 0;
  for (int s = 0; s < k; ++s) {
    const int g = k - 1 - s;
    cost += double(t[0] + 2 * g) * (t[1] + 2 * g) * (two_d ? t[2] : t[2] + 2 * g);
  }
  return cost / (double(t[0]) * t[1] * t[2] * k);
}

}  // namespace

Index3 auto_tile(const Index3& n, int h, bool two_d, std::int64_t budget) {
  // Candidates: x in powers of two (and the whole line), y and z in multiples of 4 (and all).
  const auto candidates = [](int n_d, int first, bool doubling) {
    std::vector<int> c;
    for (int t = first; t < n_d; t = doubling ? 2 * t : t + first) c.push_back(t);
    c.push_back(n_d);
    return c;
  };
  Index3 best = n;
  double best_cost = -1;
  for (int tx : candidates(n[0], 8, true))
    for (int ty : candidates(n[1], 4, false))
      for (int tz : two_d ? std::vector<int>{n[2]} : candidates(n[2], 4, false)) {
        const Index3 t{tx, ty, tz};
        const std::int64_t scratch = 2 * std::int64_t(sizeof(double)) * (t[0] + 2 * h) *
                                     (t[1] + 2 * h) * (two_d ? t[2] : t[2] + 2 * h);
        if (scratch > budget && best_cost >= 0) continue;
        const double cost = cone_cost(t, h, two_d) * (1.0 + 8.0 / t[0]);
        // Least work per owned cell; among equals the biggest tile (fewer, longer loops).
        const auto volume = [](const Index3& b) { return double(b[0]) * b[1] * b[2]; };
        if (best_cost < 0 || cost < best_cost - 1e-12 ||
            (cost < best_cost + 1e-12 && volume(t) > volume(best))) {
          best = t;
          best_cost = cost;
        }
      }
  return best;
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
  const Index3 automatic = auto_tile(n_, rounds, two_d_);
  for (int d = 0; d < 3; ++d) {
    tile_[d] = tile[d] > 0 ? std::min(tile[d], n_[d]) : automatic[d];
    if (two_d_ && d == 2) tile_[d] = n_[d];
  }

  // Tiles of the owned cells, those whose cone of H sub-steps stays inside first.
  const Box interior = u.interior();
  std::vector<Box> outer;
  for (int k0 = interior.lo[2]; k0 < interior.hi[2]; k0 += tile_[2])
    for (int j0 = interior.lo[1]; j0 < interior.hi[1]; j0 += tile_[1])
      for (int i0 = interior.lo[0]; i0 < interior.hi[0]; i0 += tile_[0]) {
        const Box T = Box{{i0, j0, k0}, {i0 + tile_[0], j0 + tile_[1], k0 + tile_[2]}}.intersect(
            interior);
        const Box cone = grow_active(T, rounds, two_d_);
        (cone.intersect(interior) == cone ? tiles_ : outer).push_back(T);
      }
  inner_ = int(tiles_.size());
  tiles_.insert(tiles_.end(), outer.begin(), outer.end());

  for (int k = 1; k <= rounds; ++k) {
    std::int64_t updates = 0;
    for (const Box& T : tiles_)
      for (int s = 0; s < k; ++s) updates += update_box(T, k, s).count();
    redundant_.push_back(updates - k * interior.count());
  }
  for (const Box& T : tiles_) capacity_ = std::max(capacity_, scratch_box(T, rounds).count());
  if (rounds == 1) capacity_ = 0;  // one sub-step goes from u to v directly
  const std::int64_t threads = Exec().concurrency();
  scratch_ = Kokkos::View<double*, Memory>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "miniapp::temporal_blocking::scratch"),
      std::size_t(2 * capacity_ * threads));
}

Box TemporalBlocking::scratch_box(const Box& T, int k) const {
  return grow_active(T, k, two_d_).intersect(padded_);
}

Box TemporalBlocking::update_box(const Box& T, int k, int s) const {
  return grow_active(T, k - 1 - s, two_d_).intersect(regions_[s]);
}

void TemporalBlocking::run(const Field& u, Field& v, int k, int first, int last) const {
  if (first >= last) return;
  if (k < 1 || k > int(regions_.size()))
    throw std::logic_error("temporal blocking: round of " + std::to_string(k) + " sub-steps");
  const TemporalBlocking* self = this;
  const Window in_u(u.data(), u.padded()), out_v(v.data(), v.padded());
  double* scratch = scratch_.data();
  const std::int64_t capacity = capacity_;
  const Box* tiles = tiles_.data();
  const std::int64_t sz_flat = two_d_ ? 0 : -1;  // 2D: z neighbours read the cell itself
  Kokkos::Experimental::UniqueToken<Exec> token;
  Kokkos::parallel_for(
      "miniapp::temporal_blocking",
      Kokkos::RangePolicy<Exec, Kokkos::Schedule<Kokkos::Static>>(first, last),
      KOKKOS_LAMBDA(const int t) {
        const int id = token.acquire();
        const Box& T = tiles[t];
        const Box S = self->scratch_box(T, k);
        double* buffer[2] = {scratch + 2 * capacity * id, scratch + 2 * capacity * id + capacity};
        const auto& a = self->a_;
        for (int s = 0; s < k; ++s) {
          const Window in = s == 0 ? in_u : Window(buffer[(s + 1) % 2], S);
          const Window out = s == k - 1 ? out_v : Window(buffer[s % 2], S);
          const Box R = self->update_box(T, k, s);
          const std::int64_t sz = sz_flat == 0 ? 0 : in.sz;
          for (int kk = R.lo[2]; kk < R.hi[2]; ++kk)
            for (int j = R.lo[1]; j < R.hi[1]; ++j)
              stencil_line(self->points_, in.p + in.at(R.lo[0], j, kk),
                           out.p + out.at(R.lo[0], j, kk), R.extent(0), in.sy, sz, a.ax, a.ay,
                           a.az);
          if (s == k - 1) break;
          // The physical ghosts of sub-step s that sub-step s+1 reads, as the plain loop's
          // refill computes them (same order, same spans, same sources).
          const Box need = grow_active(T, k - 1 - s, self->two_d_).intersect(S);
          for (const BoundaryFill& f : self->boundary_.fills) {
            const int d = f.d, h = self->h_, n = self->n_[d];
            Box slab = f.span;
            slab.lo[d] = f.side == 0 ? 0 : n + h;
            slab.hi[d] = f.side == 0 ? h : n + 2 * h;
            slab = slab.intersect(need);
            const Boundary kind = self->boundary_.kind[d];
            const int mirror = f.side == 0 ? 2 * h - 1 : 2 * (n + h) - 1;
            for (int kk = slab.lo[2]; kk < slab.hi[2]; ++kk)
              for (int j = slab.lo[1]; j < slab.hi[1]; ++j)
                for (int i = slab.lo[0]; i < slab.hi[0]; ++i) {
                  if (kind == Boundary::Dirichlet) {
                    out.p[out.at(i, j, kk)] = self->boundary_.value;
                  } else if (kind == Boundary::Neumann) {
                    int src[3] = {i, j, kk};
                    src[d] = mirror - src[d];
                    out.p[out.at(i, j, kk)] = out.p[out.at(src[0], src[1], src[2])];
                  }
                }
          }
        }
        token.release(id);
      });
  Kokkos::fence();
}

}  // namespace miniapp
