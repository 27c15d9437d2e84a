#include "explain.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <vector>

#include "decomposition.hpp"
#include "halo_plan.hpp"
#include "temporal_blocking.hpp"
#include "text.hpp"
#include "transpose.hpp"

namespace miniapp {

namespace {

/// "32 x 32 x 64".
std::string extents(const Box& b) { return joined(b.extents(), " x "); }

/// "[0,32) x [0,32) x [0,64)".
std::string ranges(const Box& b) {
  std::string out;
  for (int d = 0; d < 3; ++d) out += (d ? " x [" : "[") + str(b.lo[d]) + "," + str(b.hi[d]) + ")";
  return out;
}

/// "x-", "y+z-", ...: the direction of an offset.
std::string direction_name(const Index3& o) {
  std::string out;
  for (int d = 0; d < 3; ++d)
    if (o[d] != 0) out += std::string(1, axis_name(d)) + (o[d] < 0 ? "-" : "+");
  return out;
}

/// The tile a run with --temporal-blocking blocks with, as the run resolves it, for this
/// process's threads (they share out whole chains of tiles, so the count decides how the
/// columns of the automatic and the wide tile are cut).
Index3 blocking_tile(const Config& c, const Field& shape) {
  return resolve_tile(c.tile, shape.n(), c.halo_width, c.two_d(), Exec().concurrency());
}

/// "rank 3", "itself" or "none (physical edge)".
std::string peer_name(int peer, int self) {
  if (peer == MPI_PROC_NULL) return "edge";
  return peer == self ? "itself" : "rank " + str(peer);
}

/// Rank coordinates in a row-major grid (MPI_Cart_create without reordering).
Index3 coords_of(int rank, const Index3& dims) {
  return {rank / (dims[1] * dims[2]), rank / dims[2] % dims[1], rank % dims[2]};
}

/// The global box rank at coordinates c owns.
Box owned_box(const Index3& global, const Index3& dims, const Index3& c) {
  Box b;
  for (int d = 0; d < 3; ++d) {
    const auto r = block_range(global[d], dims[d], c[d]);
    b.lo[d] = r[0];
    b.hi[d] = r[1];
  }
  return b;
}

/// "6912 B", "13824 B (13.5 KiB)": exact, and readable when large.
std::string bytes_text(std::int64_t bytes) {
  char buf[64];
  if (bytes < std::int64_t{10} * 1024)
    std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(bytes));
  else if (bytes < std::int64_t{10} * 1024 * 1024)
    std::snprintf(buf, sizeof buf, "%lld B (%.1f KiB)", static_cast<long long>(bytes),
                  double(bytes) / 1024);
  else
    std::snprintf(buf, sizeof buf, "%lld B (%.1f MiB)", static_cast<long long>(bytes),
                  double(bytes) / (1024 * 1024));
  return buf;
}

void rank_grid(std::ostream& os, const Config& c, int nranks, const Index3& dims) {
  const Problem p = c.problem();
  Index3 global = p.grid, fixed = c.ranks;
  if (p.two_d()) global[2] = std::max(1, c.halo_width), fixed[2] = 1;
  const bool given = c.ranks[0] > 0 && c.ranks[1] > 0 && c.ranks[2] > 0;
  os << "  rank grid    " << joined(dims, " x ") << " = " << nranks << " ranks ("
     << (given ? "as given by --ranks" : "chosen: the smallest halo surface of the largest block")
     << ")\n";
  std::vector<Decomposition::Candidate> all =
      Decomposition::candidates(nranks, global, fixed, c.halo_width);
  std::stable_sort(all.begin(), all.end(),
                   [](const auto& a, const auto& b) { return a.surface < b.surface; });
  os << "               candidates (px x py x pz: largest block, halo surface in cells):\n";
  const std::size_t shown = std::min<std::size_t>(all.size(), 6);
  for (std::size_t i = 0; i < shown; ++i) {
    Box largest = owned_box(p.grid, all[i].dims, {0, 0, 0});
    if (p.two_d()) largest.hi[2] = 1;
    os << "               " << (all[i].dims == dims ? "* " : "  ") << joined(all[i].dims, " x ")
       << ": " << extents(largest) << ", " << str(all[i].surface) << "\n";
  }
  if (all.size() > shown) os << "               (" << all.size() - shown << " more)\n";
}

void halo_exchange(std::ostream& os, const Config& c, const HaloPlan& plan, const Field& shape,
                   int self) {
  const std::int64_t bytes = plan.bytes_per_exchange();
  const double per_step = 1.0 / c.halo_width;
  os << "  halo         " << to_string(c.halo_mode) << ", "
     << (c.halo_mode == HaloMode::NeighborColl ? std::string("subarray datatypes")
                                               : "pack " + std::string(to_string(c.pack)))
     << ", width H = " << c.halo_width << ": " << plan.phases << " phase(s), "
     << plan.messages_per_exchange() << " messages, " << bytes_text(bytes)
     << " per exchange; per step " << str(plan.messages_per_exchange() * per_step) << " messages, "
     << bytes_text(std::int64_t(double(bytes) * per_step)) << "\n";
  for (int phase = 0; phase < plan.phases; ++phase) {
    std::int64_t lines = 0, values = 0, boxes = 0;
    os << "    phase " << phase;
    if (c.halo_mode == HaloMode::DimOrdered) os << " (" << axis_name(phase) << ")";
    os << ":\n";
    for (const HaloMessage& m : plan.messages) {
      if (m.phase != phase) continue;
      os << "      " << direction_name(offset_of(m.dir)) << " to " << peer_name(m.peer, self)
         << ": " << extents(m.send) << " cells (" << bytes_text(m.send.count() * 8) << "), tag "
         << m.send_tag;
      const bool kernel = c.halo_mode != HaloMode::NeighborColl && c.pack == PackKind::Kernel;
      // The rank's own x faces, which 7-point sweeps can store as they write their lines.
      const bool own_x_face = m.peer == self && is_x_face(m.dir) && c.stencil == 7;
      if (!kernel)
        os << "; subarray sizes " << joined(shape.storage_ext(), "x") << " subsizes "
           << joined(m.send.extents(), "x") << " starts " << joined(m.send.lo, ",");
      else if (own_x_face && !c.temporal_blocking)
        os << "; stored by the sweep as it writes each line where it can, else copied from the "
              "field to its ghosts as the exchange starts (no MPI)";
      else if (own_x_face && blocking_tile(c, shape)[0] == shape.n()[0])
        os << "; stored by each round's last sub-step as it writes each line (its tiles span x) "
              "where it can, else copied from the field to its ghosts as the exchange starts (no "
              "MPI)";
      else if (m.peer == self)
        os << "; copied from the field to its ghosts (no buffer, no MPI)";
      const bool in_place = kernel && sent_in_place(m, shape, self);
      if (in_place)
        os << "; one run of the field's storage (whole padded rows): MPI sends it from the field "
              "and receives it into the ghosts (no buffer)";
      os << "\n";
      if (m.peer == self || in_place) continue;
      lines += std::int64_t(m.send.extent(1)) * m.send.extent(2);
      values += m.send.count();
      ++boxes;
    }
    if (c.halo_mode != HaloMode::NeighborColl && c.pack == PackKind::Kernel && boxes > 0)
      os << "      packed by one kernel: " << boxes << " boxes, " << lines << " x-lines, " << values
         << " doubles in one buffer (and unpacked likewise)\n";
    for (const BoundaryFill& f : plan.fills)
      if (f.phase == phase)
        os << "      then the physical boundary " << axis_name(f.d) << (f.side ? "+" : "-") << " ("
           << to_string(c.bc[f.d]) << ") over " << ranges(f.span) << "\n";
  }
  if (c.halo_mode == HaloMode::NeighborColl)
    os << "    executed as one MPI_Ineighbor_alltoallw on a distributed graph of "
       << plan.messages.size() << " edges\n";
}

void deep_halo(std::ostream& os, const Config& c, const Neighborhood& nb, const Field& shape) {
  const int h = c.halo_width;
  const std::int64_t interior = shape.interior().count();
  std::int64_t redundant = 0;
  os << "  deep halo    one exchange per " << h << " step(s); sub-step s updates region(s):\n";
  for (int s = 0; s < h; ++s) {
    const Box r = update_region(nb, shape.n(), h, s, c.two_d());
    redundant += r.count() - interior;
    os << "      s = " << s << ": " << extents(r) << " = " << r.count() << " cells ("
       << r.count() - interior << " redundant)\n";
  }
  char pct[32];
  std::snprintf(pct, sizeof pct, "%.1f%%", 100.0 * double(redundant) / (double(interior) * h));
  os << "      redundant work: " << redundant << " cell updates per round, " << pct
     << " of the owned updates\n";
  if (c.overlap) {
    Box inner = shape.interior();
    for (int d = 0; d < (c.two_d() ? 2 : 3); ++d) inner.lo[d] += 1, inner.hi[d] -= 1;
    os << "  overlap      sub-step 0 updates the inner cells " << extents(inner)
       << " (they read no ghost)\n"
          "               while the messages fly: in up to 8 slabs, the rest as one once they "
          "have\n"
          "               arrived; the shell after\n";
  }
  if (c.temporal_blocking) {
    const char* named = c.tile == Index3{0, 0, 0} ? " (automatic)"
                        : c.tile == kWideTile     ? " (wide: rings in the L3)"
                                                  : "";
    const Index3 tile = blocking_tile(c, shape);
    Index3 count;
    for (int d = 0; d < 3; ++d) count[d] = (shape.n()[d] + tile[d] - 1) / tile[d];
    os << "  blocking     the " << h << " sub-steps of a round fused tile by tile: tile "
       << joined(tile, " x ") << named << ", " << std::int64_t(count[0]) * count[1] * count[2]
       << " tile(s); each tile's cone grows by " << h - 1
       << " cell(s),\n"
          "               along y only upwards for a tile that continues a chain (tiles that "
          "read a ghost\n"
          "               run in chains along y, one thread each; src/README.md)\n";
  }
}

void spectral(std::ostream& os, const Config& c, const Index3& dims, const Index3& me) {
  const std::vector<PencilLayout> layouts = TransposePlan::chain(c.grid, dims, me, c.fft);
  os << "  spectral     " << to_string(c.fft) << " 3D FFT over " << layouts.size()
     << " layout(s), transposes " << to_string(c.transpose) << " ("
     << (c.transpose == TransposeKind::ZeroCopy ? "MPI_Alltoallw with subarray types"
                                                : "pack + MPI_Alltoallv + unpack")
     << "):\n";
  for (std::size_t s = 0; s < layouts.size(); ++s) {
    const PencilLayout& l = layouts[s];
    std::string fft;
    for (int d : l.fft_dims) fft += axis_name(d);
    os << "      " << l.name << ": " << extents(l.box) << (l.real ? " real" : " complex")
       << (fft.empty() ? "" : ", 1D FFTs along " + fft)
       << (l.real_to_complex ? " (r2c: " + extents(l.out) + " complex out)" : "") << "\n";
    if (l.next_dim < 0) continue;
    const int d = l.next_dim;
    os << "        -> all-to-all along " << axis_name(d) << " among " << dims[d]
       << " ranks (cached MPI_Cart_sub communicator); blocks sent:";
    for (int t = 0; t < dims[d]; ++t) {
      Index3 peer = me;
      peer[d] = t;
      const Box block = l.out.intersect(TransposePlan::chain(c.grid, dims, peer, c.fft)[s + 1].box);
      os << (t ? ", " : " ") << (t == me[d] ? "(kept) " : "") << extents(block);
    }
    os << "\n";
  }
}

}  // namespace

std::string explain(const Config& c, int nranks, int rank) {
  const Index3 dims = resolve_rank_grid(c, nranks);
  const Problem p = c.problem();
  const Index3 me = coords_of(rank, dims);
  const Box owned = owned_box(p.grid, dims, me);
  // A field of this shape without storage: the plans need only its extents.
  const Field shape = Field::shape_only(owned, c.halo_width);
  const Neighborhood nb = cartesian_neighborhood(dims, me, p.periodic());
  const HaloPlan plan = plan_halo(c.halo_mode, nb, shape.n(), c.halo_width, p.two_d());

  std::ostringstream os;
  os << "explain: the plans this run executes, as rank " << rank << " of " << nranks
     << " sees them\n";
  rank_grid(os, c, nranks, dims);
  os << "  block        rank " << rank << " at (" << joined(me, ",") << ") owns " << ranges(owned)
     << " = " << extents(owned) << " cells, with " << c.halo_width
     << " ghost layer(s): " << joined(shape.ext(), " x ") << " in memory, rows " << shape.stride_y()
     << " doubles apart\n";
  const int active = p.two_d() ? 2 : 3;  // a 2D problem has no z neighbours
  os << "  neighbours  ";
  for (int d = 0; d < active; ++d)
    for (int side = 0; side < 2; ++side) {
      Index3 o{0, 0, 0};
      o[d] = side ? 1 : -1;
      os << " " << direction_name(o) << " " << peer_name(nb.rank[direction_of(o)], rank) << ";";
    }
  int diagonal = 0;
  for (int dir = 0; dir < 27; ++dir) {
    const Index3 o = offset_of(dir);
    const int nonzero = (o[0] != 0) + (o[1] != 0) + (o[2] != 0);
    diagonal += nonzero > 1 && nb.rank[dir] != MPI_PROC_NULL && (active == 3 || o[2] == 0);
  }
  os << " " << diagonal << " edge/corner neighbours\n";
  halo_exchange(os, c, plan, shape, rank);
  if (c.halo_width > 1 || c.overlap || c.temporal_blocking) deep_halo(os, c, nb, shape);
  if (c.spectral_check || c.spectral_every > 0) spectral(os, c, dims, me);
  return os.str();
}

}  // namespace miniapp
