#include "halo_plan.hpp"

namespace miniapp {

namespace {

/// Range along d of the cells I send towards o_d (o_d = 0: the interior).
void send_range(Box& b, int d, int od, int n, int h) {
  b.lo[d] = od < 0 ? h : od > 0 ? n : h;
  b.hi[d] = od < 0 ? 2 * h : od > 0 ? n + h : h + n;
}

/// Range along d of my ghost cells on side o_d (o_d = 0: the interior).
void recv_range(Box& b, int d, int od, int n, int h) {
  b.lo[d] = od < 0 ? 0 : od > 0 ? n + h : h;
  b.hi[d] = od < 0 ? h : od > 0 ? n + 2 * h : h + n;
}

HaloMessage message(const Neighborhood& nb, int phase, const Index3& o, const Box& span,
                    const Index3& n, int h) {
  HaloMessage m;
  m.phase = phase;
  m.dir = direction_of(o);
  m.peer = nb.rank[m.dir];
  m.send_tag = m.dir;
  m.recv_tag = 26 - m.dir;
  m.send = m.recv = span;
  for (int d = 0; d < 3; ++d) {
    if (o[d] == 0) continue;
    send_range(m.send, d, o[d], n[d], h);
    recv_range(m.recv, d, o[d], n[d], h);
  }
  return m;
}

/// The span of the single-domain fill of dimension d: dimensions before d in full, later
/// dimensions over the global interior (my interior plus ghosts that come from a neighbour).
Box single_domain_span(const Neighborhood& nb, int d, const Index3& n, int h, bool two_d) {
  Box span{{h, h, h}, {h + n[0], h + n[1], h + n[2]}};
  for (int e = 0; e < (two_d ? 2 : 3); ++e) {
    if (e == d) continue;
    span.lo[e] = e < d || !nb.physical(e, 0) ? 0 : h;
    span.hi[e] = e < d || !nb.physical(e, 1) ? n[e] + 2 * h : n[e] + h;
  }
  return span;
}

}  // namespace

HaloPlan plan_halo(HaloMode mode, const Neighborhood& nb, const Index3& n, int h, bool two_d) {
  HaloPlan plan;
  plan.mode = mode;
  const int dims = two_d ? 2 : 3;
  const Box interior{{h, h, h}, {h + n[0], h + n[1], h + n[2]}};
  auto add = [&](const HaloMessage& m) {
    if (m.peer != MPI_PROC_NULL) plan.messages.push_back(m);
  };
  switch (mode) {
    case HaloMode::DimOrdered: {
      plan.phases = dims;
      for (int d = 0; d < dims; ++d) {
        Box span = interior;  // dimensions before d in full, after d over the interior
        for (int e = 0; e < d; ++e) span.lo[e] = 0, span.hi[e] = n[e] + 2 * h;
        for (int side = 0; side < 2; ++side) {
          Index3 o{0, 0, 0};
          o[d] = side == 0 ? -1 : 1;
          add(message(nb, d, o, span, n, h));
          if (nb.physical(d, side)) plan.fills.push_back({d, d, side, span});
        }
      }
      break;
    }
    case HaloMode::Neighbors26:
    case HaloMode::NeighborColl: {
      for (int dir = 0; dir < 27; ++dir) {
        const Index3 o = offset_of(dir);
        if (dir == 13 || (two_d && o[2] != 0)) continue;
        add(message(nb, 0, o, interior, n, h));
      }
      plan.fills = plan_refill(nb, n, h, two_d);
      break;
    }
    case HaloMode::Faces: {
      for (int d = 0; d < dims; ++d)
        for (int side = 0; side < 2; ++side) {
          Index3 o{0, 0, 0};
          o[d] = side == 0 ? -1 : 1;
          add(message(nb, 0, o, interior, n, h));
          if (nb.physical(d, side)) plan.fills.push_back({0, d, side, interior});
        }
      break;
    }
  }
  return plan;
}

std::vector<BoundaryFill> plan_refill(const Neighborhood& nb, const Index3& n, int h, bool two_d) {
  std::vector<BoundaryFill> fills;
  for (int d = 0; d < (two_d ? 2 : 3); ++d)
    for (int side = 0; side < 2; ++side)
      if (nb.physical(d, side))
        fills.push_back({0, d, side, single_domain_span(nb, d, n, h, two_d)});
  return fills;
}

Box update_region(const Neighborhood& nb, const Index3& n, int h, int s, bool two_d) {
  Box r{{h, h, h}, {h + n[0], h + n[1], h + n[2]}};
  for (int d = 0; d < (two_d ? 2 : 3); ++d) {
    if (!nb.physical(d, 0)) r.lo[d] = s + 1;
    if (!nb.physical(d, 1)) r.hi[d] = n[d] + 2 * h - s - 1;
  }
  return r;
}

Neighborhood cartesian_neighborhood(const Index3& dims, const Index3& c,
                                    const std::array<bool, 3>& periodic) {
  auto rank_of = [&](const Index3& q) { return (q[0] * dims[1] + q[1]) * dims[2] + q[2]; };
  Neighborhood nb;
  nb.self = rank_of(c);
  for (int dir = 0; dir < 27; ++dir) {
    const Index3 o = offset_of(dir);
    Index3 q;
    bool inside = true;
    for (int d = 0; d < 3; ++d) {
      q[d] = c[d] + o[d];
      if (q[d] < 0 || q[d] >= dims[d]) {
        if (!periodic[d]) inside = false;
        q[d] = (q[d] + dims[d]) % dims[d];
      }
    }
    nb.rank[dir] = inside ? rank_of(q) : MPI_PROC_NULL;
  }
  return nb;
}

}  // namespace miniapp
