// Pencil transposes: the block-decomposed field moved into pencils (boxes that span the whole
// grid along one dimension) and back, every move an all-to-all along ONE torus dimension.
//
// Layouts. Rank (cx, cy, cz) of a px x py x pz torus owns, for dimension d with extent N_d,
//   blocks       B  = X(cx) x Y(cy) x Z(cz)            X(c) = block_range(NX, px, c), ...
// An all-to-all along torus dimension d (the p_d ranks that share the other two coordinates)
// can only change what c_d indexes. Going from blocks to a d-pencil therefore frees d and hands
// c_d to another dimension; in a pencil one dimension is free and the three coordinates index
// the other two. For the chain of pencils a -> b -> c this gives (split(R, p, c) = part c of p
// of the range R, as box.hpp's split_along):
//
//   blocks --[dim a]--> a-pencils:  a full,  b = split(B_b, p_a, c_a),  c = B_c
//   a-pencils --[dim a]--> blocks   (the inverse of the first step)
//   blocks --[dim b]--> b-pencils:  b full,  a = split(B_a, p_b, c_b),  c = B_c
//   b-pencils --[dim c]--> c-pencils: c full, b = split(N_b, p_c, c_c), a as in the b-pencil
//
// Why the detour through the blocks: in the a-pencil, b is split by two coordinates (c_b and
// c_a), so the a -> b transpose is an all-to-all over the p_a * p_b ranks of a 2D slice of the
// torus. Exactly as in the dimension-wise torus all-to-all (Traff, REFERENCE.md), that 2D
// all-to-all runs as two 1D phases, dim a then dim b, p_a + p_b - 2 rounds instead of
// p_a p_b - 1; its intermediate layout happens to be the blocks. (No chain of three 1D steps
// exists when all p_d > 1: a c-pencil needs c split by one coordinate only.)
//
// For a 2 x 2 x 1 torus (a = z has one rank, so blocks are already z-pencils; b = x, c = y),
// seen from above (x to the right, y up), rank (cx, cy):
//
//     blocks = z-pencils          x-pencils                  y-pencils
//     +-----+-----+             +-----------+              +-----+-----+
//     | 0,1 | 1,1 |  --dim x->  |   cy = 1  |  --dim y->   |     |     |
//     +-----+-----+             +-----------+              | cy0 | cy1 |
//     | 0,0 | 1,0 |             |   cy = 0  |              |     |     |
//     +-----+-----+             +-----------+              +-----+-----+
//     X(cx) x Y(cy) x all z     all x, Y(cy),              x = split(NX, 2, cy), all y,
//                               z = split(NZ, 2, cx)       z = split(NZ, 2, cx)
//
// A step along a dimension with p_d = 1 changes nothing and is dropped, and equal neighbouring
// layouts merge (their FFT dimensions are done together). The order (a, b, c) is chosen so
// that a has the fewest ranks (a dimension with one rank costs nothing), ties to x, then b and
// c in x, y, z order. Examples: 1x1x2 (slabs): blocks are x- and y-pencils at once, one
// exchange along z to z-pencils; 2x3x1: blocks (= z-pencils) -> x-pencils -> y-pencils;
// 2x2x2: blocks -> x-pencils -> blocks -> y-pencils -> z-pencils.
//
// Every layout stores its box contiguously, x fastest (box.hpp offset_in). Zero-copy: a step
// is one MPI_Alltoallw whose send type for peer t is the subarray (MPI_Type_create_subarray,
// Fortran order = x fastest) of my source box that peer t's destination box covers, and whose
// receive type is the subarray of my destination box covered by t's source box; uneven grids
// just give differently sized subarrays. The inverse step swaps the two type lists. The pack
// variant copies the same sub-boxes into a contiguous buffer, MPI_Alltoallv, and copies out.
// In both, the part a rank keeps (its own peer slot, 1/p_d of the data) is one direct
// box-to-box copy instead of a trip through MPI's self path (which, for derived types, packs
// and unpacks through a temporary), and its slot in the all-to-all has count 0.
//
// Long runs. MPI libraries move a contiguous message by a single copy (Open MPI's shared
// memory: CMA) but a derived-datatype message through bounce buffers in fragments, each
// fragment a hand-over between the two processes. The region sent to a peer is a stack of
// runs that are contiguous in both layouts (e.g. slabs 1x1x2: one x-y plane of the peer's
// half per z index); when such runs are at least `split_bytes` long (default 32 KiB), the
// zero-copy step sends them as one plain message per run (nonblocking, matched in order)
// instead of one subarray message: the same bytes, still no pack loop, as the torus
// all-to-all does with its large blocks. Shorter runs keep the subarray type.
//
// Real-to-complex chains (FftKind::R2C). A real field's spectrum is Hermitian,
// U(-k) = conj U(k), so a real-to-complex transform along x keeps kx = 0 .. NX/2 only:
// NX/2+1 complex values per x-line, about half the bytes. x must be the first dimension
// transformed, so the chain is the one above with a = x whatever the rank counts. The layouts
// up to the x-pencils carry real cells of the field's grid NX x NY x NZ; the x-pencil layout
// transforms x and leaves complex cells of the half grid NXh x NY x NZ (NXh = NX/2+1), and
// every later layout is the same formula on the half grid. Only x ranges depend on the grid's
// x extent, so the x-pencil's y and z ranges are the same on both sides, and the complex
// blocks split NXh where the field's blocks split NX (block_range(NXh, px, cx), which can
// differ from the field's split and leave a rank empty when NXh < px):
//
//   1x1x2, NX = 8:  blocks = x-pencils = y-pencils  [r2c x, c2c y: 8 -> 5]  --z--> z-pencils
//   2x1x1, NX = 8:  blocks X(cx) = [0,4) | [4,8)  --x--> x-pencils [r2c x]  --x--> blocks
//                   X_h(cx) = [0,3) | [3,5) = y-pencils = z-pencils [c2c y, z]
//
// Every step carries one element type: real (MPI_DOUBLE subarrays) into a layout that receives
// real cells, complex otherwise. When px = 1 the chain has the C2C chain's steps at half the
// bytes. When px > 1 and another dimension has one rank, C2C starts with that dimension and
// R2C needs one step more, each of half the bytes: the same or fewer bytes in total (2x1x1:
// 2 x 8 B against 1 x 16 B per cell) but one more latency.
#pragma once

#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <memory>
#include <string>
#include <vector>

#include "box.hpp"
#include "decomposition.hpp"
#include "mpi_utils.hpp"
#include "names.hpp"

namespace miniapp {

/// How a pencil transpose moves data: MPI_Alltoallw with subarray types, or pack + Alltoallv.
enum class TransposeKind { ZeroCopy, Pack };
inline constexpr NameTable<TransposeKind, 2> kTransposeNames{
    {{TransposeKind::ZeroCopy, "zerocopy"}, {TransposeKind::Pack, "pack"}}};
inline const char* to_string(TransposeKind k) { return name_of(kTransposeNames, k); }

/// What a chain carries: complex cells throughout (C2C), or real cells until the layout that
/// transforms x, where a real-to-complex FFT leaves the NX/2+1 non-negative x wavenumbers (R2C).
/// Owned here because the chain's boxes depend on it; the FFT takes it in FftOptions.
enum class FftKind { R2C, C2C };
inline constexpr NameTable<FftKind, 2> kFftKindNames{
    {{FftKind::R2C, "r2c"}, {FftKind::C2C, "c2c"}}};
inline const char* to_string(FftKind k) { return name_of(kFftKindNames, k); }

/// The extent of the complex half spectrum along x of a real grid with nx cells.
constexpr int half_extent(int nx) { return nx / 2 + 1; }

using Complex = Kokkos::complex<double>;

/// Host buffers of the FFT (FFTW runs on the host).
using ComplexBuffer = Kokkos::View<Complex*, Kokkos::HostSpace>;

/// One layout of the chain: this rank's box and the dimensions it spans fully and that the
/// FFT transforms while the data sits in this layout.
struct PencilLayout {
  std::string name;              ///< "blocks", "x-pencils", "blocks = y-pencils", ...
  Box box;                       ///< this rank's global box of the cells as they arrive (forward)
  std::vector<int> fft_dims;     ///< dimensions transformed in this layout
  int next_dim = -1;             ///< torus dimension of the step to the next layout (-1: last)
  bool real = false;             ///< the cells arrive real (R2C chains, up to the x transform)
  bool real_to_complex = false;  ///< the forward transform turns real cells into the half
                                 ///< spectrum (the R2C layout that transforms x)
  Box out;  ///< this rank's box after the forward transforms: `box`, except in the R2C layout
            ///< that transforms x, whose complex output spans x = [0, NX/2+1)
};

/// The chain of layouts blocks -> ... -> last pencil for a decomposition, and the transposes
/// between neighbouring layouts. Built once (collective: creates datatypes and takes the cached
/// per-dimension communicators), applied many times.
class TransposePlan {
 public:
  /// Default of `split_bytes`: Open MPI's shared-memory transport sends larger messages by one
  /// kernel-assisted copy when they are contiguous.
  static constexpr std::int64_t kDefaultSplitBytes = 32768;

  /// Plan the chain of `fft` kind for `decomp` (which must outlive the plan). Zero-copy: a
  /// peer's region made of runs of at least `split_bytes` contiguous in both layouts goes as one
  /// message per run (<= 0: never; see the header). Collective over decomp.comm().
  TransposePlan(const Decomposition& decomp, TransposeKind kind, FftKind fft = FftKind::C2C,
                std::int64_t split_bytes = kDefaultSplitBytes);
  ~TransposePlan();
  TransposePlan(const TransposePlan&) = delete;
  TransposePlan& operator=(const TransposePlan&) = delete;

  /// The layouts; layouts()[0] is the block layout (the decomposition's owned box).
  const std::vector<PencilLayout>& layouts() const { return layouts_; }
  /// Number of transpose steps (layouts().size() - 1).
  int steps() const { return int(layouts_.size()) - 1; }
  /// Torus dimension whose all-to-all performs step s (layout s <-> layout s+1).
  int step_dim(int s) const;
  /// True when step s moves real cells (doubles), false for complex ones.
  bool step_real(int s) const { return layouts_.at(std::size_t(s) + 1).real; }
  /// Largest number of elements (real or complex) of any box of any layout on this rank.
  std::int64_t max_count() const { return max_count_; }
  /// Largest number of bytes of any box of any layout on this rank (a buffer's size).
  std::int64_t max_bytes() const { return max_bytes_; }
  TransposeKind kind() const { return kind_; }
  FftKind fft_kind() const { return fft_; }

  /// Step s forward: `from` holds layout s (its `out` box), `to` receives layout s+1 (its `box`);
  /// elements are doubles when step_real(s), else Complex. Distinct buffers of at least
  /// max_bytes(). Collective over the step's sub-communicator; no fence needed (host memory,
  /// and the pack kernels fence before MPI).
  void forward(int s, const void* from, void* to);
  /// Step s backward: `from` holds layout s+1, `to` receives layout s. Collective as forward().
  void backward(int s, const void* from, void* to);

  /// The layouts of the chain of `fft` kind for an arbitrary rank's coordinates (pure box
  /// arithmetic; used by the plan for its peers, by memory estimates and by tests; coordinates
  /// 0 hold the largest boxes of every layout). `global` is the field's grid. Not collective.
  static std::vector<PencilLayout> chain(const Index3& global, const Index3& dims,
                                         const Index3& coords, FftKind fft = FftKind::C2C);

 private:
  struct Step;
  void exchange(const Step& st, bool forward, const void* from, void* to);

  TransposeKind kind_;
  FftKind fft_;
  std::vector<PencilLayout> layouts_;
  std::vector<std::unique_ptr<Step>> steps_;
  std::int64_t max_count_ = 0, max_bytes_ = 0;
  ComplexBuffer send_, recv_;  ///< pack variant only
};

}  // namespace miniapp
