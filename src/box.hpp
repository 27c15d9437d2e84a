// Box arithmetic: every index range in miniapp is a half-open box [lo, hi) in 3D.
//
// One concept, used by the decomposition (global boxes owned by each rank), the field (local
// padded boxes), the halo plans (send/receive regions) and the transposes. Keeping all index
// arithmetic here means there is exactly one place where an off-by-one can hide.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <ostream>

namespace miniapp {

using Index3 = std::array<int, 3>;

/// The name of dimension d: 'x', 'y' or 'z'.
constexpr char axis_name(int d) { return "xyz"[d]; }

/// Half-open box [lo, hi) in three dimensions; empty when any hi <= lo.
struct Box {
  Index3 lo{0, 0, 0};
  Index3 hi{0, 0, 0};

  /// Extent along dimension d (0 when empty along d).
  constexpr int extent(int d) const { return hi[d] > lo[d] ? hi[d] - lo[d] : 0; }
  /// Extents along all dimensions.
  constexpr Index3 extents() const { return {extent(0), extent(1), extent(2)}; }
  /// Number of cells (64-bit: global boxes can exceed 2^31 cells).
  constexpr std::int64_t count() const { return std::int64_t(extent(0)) * extent(1) * extent(2); }
  constexpr bool empty() const { return count() == 0; }
  /// True when cell (i, j, k) lies in the box.
  constexpr bool contains(int i, int j, int k) const {
    return i >= lo[0] && i < hi[0] && j >= lo[1] && j < hi[1] && k >= lo[2] && k < hi[2];
  }
  /// The box grown by g cells on every side (shrunk when g < 0).
  constexpr Box grown(int g) const {
    return {{lo[0] - g, lo[1] - g, lo[2] - g}, {hi[0] + g, hi[1] + g, hi[2] + g}};
  }
  /// The box translated by off.
  constexpr Box shifted(const Index3& off) const {
    return {{lo[0] + off[0], lo[1] + off[1], lo[2] + off[2]},
            {hi[0] + off[0], hi[1] + off[1], hi[2] + off[2]}};
  }
  /// Intersection with another box (possibly empty).
  constexpr Box intersect(const Box& o) const {
    Box r;
    for (int d = 0; d < 3; ++d) {
      r.lo[d] = std::max(lo[d], o.lo[d]);
      r.hi[d] = std::max(r.lo[d], std::min(hi[d], o.hi[d]));
    }
    return r;
  }
  bool operator==(const Box& o) const { return lo == o.lo && hi == o.hi; }
  bool operator!=(const Box& o) const { return !(*this == o); }
};

inline std::ostream& operator<<(std::ostream& os, const Box& b) {
  return os << "[" << b.lo[0] << "," << b.hi[0] << ")x[" << b.lo[1] << "," << b.hi[1] << ")x["
            << b.lo[2] << "," << b.hi[2] << ")";
}

/// Block partition of n cells over p parts: part r gets n/p cells, the first n%p parts one more.
/// Returns the half-open range [first, last) of part r.
constexpr std::array<int, 2> block_range(int n, int p, int r) {
  const int base = n / p, rem = n % p;
  const int first = r * base + std::min(r, rem);
  return {first, first + base + (r < rem ? 1 : 0)};
}

/// Box b with its range along d replaced by part r of p of that range (block_range inside
/// [b.lo[d], b.hi[d])). Splitting a block this way is how a rank hands the share of a dimension
/// it gives away in a pencil transpose to one of p peers.
constexpr Box split_along(const Box& b, int d, int p, int r) {
  const auto part = block_range(b.extent(d), p, r);
  Box s = b;
  s.lo[d] = b.lo[d] + part[0];
  s.hi[d] = b.lo[d] + part[1];
  return s;
}

/// Box b with its range along d replaced by the full range [0, n): the pencil along d.
constexpr Box full_along(const Box& b, int d, int n) {
  Box s = b;
  s.lo[d] = 0;
  s.hi[d] = n;
  return s;
}

/// Offset of global cell (x, y, z) in the contiguous array of box b, x fastest.
constexpr std::int64_t offset_in(const Box& b, int x, int y, int z) {
  return (x - b.lo[0]) +
         std::int64_t(b.extent(0)) * ((y - b.lo[1]) + std::int64_t(b.extent(1)) * (z - b.lo[2]));
}

}  // namespace miniapp
