#include "decomposition.hpp"

#include <limits>

namespace miniapp {

Decomposition::Decomposition(MPI_Comm comm, const Index3& global, const Index3& dims,
                             const std::array<bool, 3>& periodic)
    : global_(global), dims_(dims), periodic_(periodic) {
  int d[3] = {dims[0], dims[1], dims[2]};
  int p[3] = {periodic[0], periodic[1], periodic[2]};
  MPI_Comm cart = MPI_COMM_NULL;
  // reorder = 0: rank numbers stay those of comm, so reports and tests can name ranks.
  mpi_check(MPI_Cart_create(comm, 3, d, p, 0, &cart), "MPI_Cart_create");
  cart_ = CommHandle(cart);
  MPI_Comm_rank(cart, &rank_);
  MPI_Comm_size(cart, &size_);
  int c[3];
  mpi_check(MPI_Cart_coords(cart, rank_, 3, c), "MPI_Cart_coords");
  coords_ = {c[0], c[1], c[2]};
  owned_ = owned_by(coords_);
}

Box Decomposition::owned_by(const Index3& c) const {
  Box b;
  for (int d = 0; d < 3; ++d) {
    const auto r = block_range(global_[d], dims_[d], c[d]);
    b.lo[d] = r[0];
    b.hi[d] = r[1];
  }
  return b;
}

int Decomposition::neighbor(const Index3& off) const {
  int c[3];
  for (int d = 0; d < 3; ++d) {
    c[d] = coords_[d] + off[d];
    if (c[d] < 0 || c[d] >= dims_[d]) {
      if (!periodic_[d]) return MPI_PROC_NULL;
      c[d] = (c[d] + dims_[d]) % dims_[d];
    }
  }
  int r = MPI_PROC_NULL;
  mpi_check(MPI_Cart_rank(cart_.get(), c, &r), "MPI_Cart_rank");
  return r;
}

std::vector<Decomposition::Candidate> Decomposition::candidates(int nranks, const Index3& global,
                                                                const Index3& fixed,
                                                                int min_cells) {
  std::vector<Candidate> out;
  for (int px = 1; px <= nranks; ++px) {
    if (nranks % px || (fixed[0] && fixed[0] != px)) continue;
    for (int py = 1; py <= nranks / px; ++py) {
      if ((nranks / px) % py || (fixed[1] && fixed[1] != py)) continue;
      const int pz = nranks / px / py;
      if (fixed[2] && fixed[2] != pz) continue;
      const Index3 p{px, py, pz};
      double n[3];
      bool fits = true;
      for (int d = 0; d < 3; ++d) {
        fits = fits && global[d] >= std::int64_t(p[d]) * min_cells;
        const std::int64_t biggest = (std::int64_t(global[d]) + p[d] - 1) / p[d];  // ceil
        n[d] = double(biggest);
      }
      // Halo surface of the biggest block; a dimension with one rank still exchanges
      // (periodic self-copy) or fills its boundary, so every face counts.
      if (fits) out.push_back({p, n[0] * n[1] + n[1] * n[2] + n[0] * n[2]});
    }
  }
  return out;
}

Index3 Decomposition::choose_dims(int nranks, const Index3& global, const Index3& fixed,
                                  int min_cells) {
  Index3 best{0, 0, 0};
  double best_cost = std::numeric_limits<double>::infinity();
  for (const Candidate& c : candidates(nranks, global, fixed, min_cells))
    if (c.surface < best_cost) {  // strict: the first (smallest px, then py) wins ties
      best_cost = c.surface;
      best = c.dims;
    }
  return best;
}

}  // namespace miniapp
