// Physical (non-periodic) boundaries: fill the h ghost layers on one side of one dimension.
//
//   dirichlet  ghost = value
//   neumann    zero flux, the ghost mirrors the interior across the face:
//              u[-1-m] = u[m]  and  u[n+m] = u[n-1-m]   (m = 0 .. h-1, interior indices)
//
// The span says which cells of the face to fill in the other two dimensions; the halo
// exchange passes the same span as its face messages, so corners come out as they would on
// a single domain filled dimension by dimension.
#pragma once

#include <array>
#include <vector>

#include "box.hpp"
#include "field.hpp"
#include "halo_plan.hpp"
#include "names.hpp"

namespace miniapp {

/// What lies beyond an edge of the global grid: the other side (periodic), a fixed value
/// (dirichlet) or a mirror (neumann, zero flux).
enum class Boundary { Periodic, Dirichlet, Neumann };
inline constexpr NameTable<Boundary, 3> kBoundaryNames{{{Boundary::Periodic, "periodic"},
                                                        {Boundary::Dirichlet, "dirichlet"},
                                                        {Boundary::Neumann, "neumann"}}};
inline const char* to_string(Boundary b) { return name_of(kBoundaryNames, b); }

/// Fill ghosts of `u` on side (0 = low, 1 = high) of dimension d over `span` (local padded
/// coordinates; its extent along d is ignored). Launches a kernel, does not fence.
void apply_boundary(Field& u, int d, int side, Boundary kind, double value, const Box& span);

/// Run the fills of `phase` (every fill when phase < 0) in their order, with the kinds of `bc`.
/// Two consecutive fills of the two sides of one dimension over the same span run as one
/// kernel: along x a work item then walks rows filling row j's high ghosts and row j+1's low
/// ones, which share a cache line, instead of two passes over a line per row each. Launches
/// kernels, does not fence.
void apply_fills(Field& u, const std::vector<BoundaryFill>& fills, int phase,
                 const std::array<Boundary, 3>& bc, double value);

/// Local box of the h ghost layers on `side` of dimension d, limited to `span` in the other
/// dimensions.
Box ghost_slab(const Field& u, int d, int side, const Box& span);

}  // namespace miniapp
