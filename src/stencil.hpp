// Stencil kernels (never call MPI). The 7-point diffusion update of numerics.hpp applied to
// a box of cells: v(c) = diffusion7(u(c), u(c-x), u(c+x), u(c-y), u(c+y), u(c-z), u(c+z)).
#pragma once

#include "box.hpp"
#include "field.hpp"
#include "numerics.hpp"

namespace miniapp {

/// v = one 7-point step of u on `region` (local padded box; its cells' neighbours must be
/// inside u's padded box). Launches a kernel, does not fence.
void apply_stencil7(const Field& u, Field& v, const Box& region, const Coefficients& a);

/// STREAM-style copy v = u on `region` with the same loop structure as the stencil (for the
/// bandwidth benchmark). Launches a kernel, does not fence.
void copy_region(const Field& u, Field& v, const Box& region);

}  // namespace miniapp
