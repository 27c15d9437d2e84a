// Stencil kernels (never call MPI). The 7-point diffusion update of numerics.hpp applied to
// a box of cells: v(c) = diffusion7(u(c), u(c-x), u(c+x), u(c-y), u(c+y), u(c-z), u(c+z)),
// and the 27-point box update v(c) = diffusion27(u around c).
//
// A 2D problem (NZ = 1) runs the same kernels with a z stride of 0: the z neighbours are the
// cell itself, so every z second difference is exactly 0 (no z term, no z ghosts read), and
// the result is bit-identical to a 3D run on a periodic NZ = 1 grid.
#pragma once

#include "box.hpp"
#include "field.hpp"
#include "numerics.hpp"

namespace miniapp {

/// The stores of a sweep's output. Ordinary: through the cache. Streaming: non-temporal stores
/// when the sweep's arrays are larger than the rank's share of the last-level cache (the output
/// is not read again before it leaves the cache), ordinary stores otherwise. Auto: streaming (they
/// write whole lines of every row, field.hpp, and skip reading the target line before writing it;
/// `miniapp bench stencil` compares both).
enum class SweepStores { Auto, Ordinary, Streaming };

/// True when a sweep over fields of `owned` cells reads and writes more than this rank's share of
/// the last-level cache (last_level_cache_share) holds: their cells then come from memory, whatever
/// part of them one sweep updates, and the sweep runs through each thread's planes with software
/// prefetch (and streaming stores if asked).
bool sweep_streams_from_memory(const Box& owned);

/// What a sweep does with the x ghosts of its output. Wrap, where x is periodic over this rank
/// alone: each x-line, once computed, also stores its first and last h cells into the h ghosts
/// beyond its other end (h = the field's halo width), the values the halo exchange would copy
/// there, so that the next exchange can leave the x faces alone (HaloExchange::
/// x_faces_from_sweep). Honoured where it is cheaper than that copy: 7-point lines written with
/// ordinary stores, and those written with streaming stores where streamed_wrap_fits (in the
/// plain sweep at halo 1 only); apply_stencil and TemporalBlocking::run say whether they did.
/// Needs lines that span the interior along x.
enum class XGhosts { Leave, Wrap };

/// Whether 7-point lines of v written with streaming stores can store their x ghosts
/// (wrap_line7_streamed): at most 4 ghosts per side, rows of pitch n + 8 (so that one 64-byte
/// line holds a row's east ghosts and the next row's west ones), a build with the vector line
/// kernels. Pure.
bool streamed_wrap_fits(const Field& v);

/// v = one step of the `points`-point stencil (7 or 27) on `region` (local padded box; its
/// cells' neighbours must be inside u's padded box); `flat_z` for a 2D problem (z neighbours
/// read the cell itself). Fields larger than the rank's share of the last-level cache are swept by
/// each thread through its own run of planes, tile of rows by tile (for_each_line), smaller ones in
/// the cache-blocked order (for_each_line_blocked). `x_ghosts`: see XGhosts (std::logic_error if
/// Wrap and region does not span v's interior along x); returns whether the lines stored their
/// x ghosts. Launches a kernel, does not fence.
bool apply_stencil(int points, const Field& u, Field& v, const Box& region, const Coefficients& a,
                   bool flat_z, SweepStores stores = SweepStores::Auto,
                   XGhosts x_ghosts = XGhosts::Leave);

/// The kernels in_cache_sweep_rate times: the plain sweep's (apply_stencil), or those temporal
/// blocking's rounds run, in the order of their levels after the first (stencil_line.hpp: the
/// 7-point stencil two planes row by row, stencil_rows7_pair; the 27-point each plane's rows
/// with one call of stencil_rows), ordinary stores, no tiles.
enum class InCacheKernels { Sweep, Rows };

/// Cell updates/s of the `points`-point sweep when its data stays in cache: a block of long
/// x-lines small enough for each thread's share to sit in its L2, swept `reps` times after a
/// warm-up (median). The arithmetic side of the sweep's cost, as the STREAM yardstick is the
/// memory side; temporal blocking's model (choose_blocking) takes both. Not collective;
/// allocates two small fields, fences.
double in_cache_sweep_rate(int points, int reps = 30,
                           InCacheKernels kernels = InCacheKernels::Sweep);

/// Copy v = u on `region` with the loop structure, order and stores a sweep of these fields
/// would use (for the bandwidth benchmark: what the sweep's access pattern allows without its
/// neighbours and arithmetic). Launches a kernel, does not fence.
void copy_region(const Field& u, Field& v, const Box& region,
                 SweepStores stores = SweepStores::Auto);

}  // namespace miniapp
