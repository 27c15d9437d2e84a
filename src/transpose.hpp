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

using Complex = Kokkos::complex<double>;

/// Host buffers of the FFT (FFTW runs on the host).
using ComplexBuffer = Kokkos::View<Complex*, Kokkos::HostSpace>;

/// One layout of the chain: this rank's box and the dimensions it spans fully and that the
/// FFT transforms while the data sits in this layout.
struct PencilLayout {
  std::string name;           ///< "blocks", "x-pencils", "blocks (= z-pencils)", ...
  Box box;                    ///< this rank's global box in this layout
  std::vector<int> fft_dims;  ///< dimensions transformed in this layout
  int next_dim = -1;          ///< torus dimension of the step to the next layout (-1: last)
};

/// The chain of layouts blocks -> ... -> last pencil for a decomposition, and the transposes
/// between neighbouring layouts. Built once (collective: creates datatypes and takes the cached
/// per-dimension communicators), applied many times.
class TransposePlan {
 public:
  /// Plan the chain for `decomp` (which must outlive the plan). Collective over decomp.comm().
  TransposePlan(const Decomposition& decomp, TransposeKind kind);
  ~TransposePlan();
  TransposePlan(const TransposePlan&) = delete;
  TransposePlan& operator=(const TransposePlan&) = delete;

  /// The layouts; layouts()[0] is the block layout (the decomposition's owned box).
  const std::vector<PencilLayout>& layouts() const { return layouts_; }
  /// Number of transpose steps (layouts().size() - 1).
  int steps() const { return int(layouts_.size()) - 1; }
  /// Torus dimension whose all-to-all performs step s (layout s <-> layout s+1).
  int step_dim(int s) const;
  /// Largest number of cells of any layout on this rank (buffer size).
  std::int64_t max_count() const { return max_count_; }
  TransposeKind kind() const { return kind_; }

  /// Step s forward: `from` holds layout s, `to` receives layout s+1 (distinct buffers of at
  /// least max_count() elements). Collective over the step's sub-communicator; no fence needed
  /// (host memory, and the pack kernels fence before MPI).
  void forward(int s, const Complex* from, Complex* to);
  /// Step s backward: `from` holds layout s+1, `to` receives layout s. Collective as forward().
  void backward(int s, const Complex* from, Complex* to);

  /// The layouts of the chain for an arbitrary rank's coordinates (pure box arithmetic; used by
  /// the plan for its peers and by tests). Not collective.
  static std::vector<PencilLayout> chain(const Index3& global, const Index3& dims,
                                         const Index3& coords);

 private:
  struct Step;
  void exchange(const Step& st, bool forward, const Complex* from, Complex* to);

  TransposeKind kind_;
  std::vector<PencilLayout> layouts_;
  std::vector<std::unique_ptr<Step>> steps_;
  std::int64_t max_count_ = 0;
  ComplexBuffer send_, recv_;  ///< pack variant only
};

}  // namespace miniapp
