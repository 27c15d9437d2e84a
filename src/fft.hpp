// Distributed 3D FFT on pencils: the 1D (or, where a layout spans several dimensions fully,
// multi-dimensional) transforms of FFTW3 in each layout of the TransposePlan chain, the pencil
// transposes in between.
//
//   forward:  U(k) = sum_x u(x) exp(-2 pi i sum_d k_d x_d / N_d)        (unnormalised)
//   inverse:  u(x) = 1/N sum_k U(k) exp(+2 pi i sum_d k_d x_d / N_d)    (N = NX NY NZ)
//
// so inverse(forward(u)) = u to round-off. Two kinds (FftOptions::kind):
//
//   R2C (default)  u real. U(-k) = conj U(k) (Hermitian), so only kx = 0 .. NX/2 is kept:
//                  the spectral box spans x = [0, NX/2+1). The layout that transforms x does a
//                  real-to-complex transform (and the inverse complex-to-real); the other
//                  dimensions are complex-to-complex on the half grid. The transposes before the
//                  x transform move real cells (8 B), those after it NX/2+1 complex values per
//                  x-line instead of NX: about half the bytes, half the memory, half the work.
//   C2C            u complex, every mode 0 <= k_d < N_d stored (for comparison and teaching).
//
// A sum over all modes of a real field is a sum over the half spectrum with weight 2 for
// 0 < kx < NX/2 (the mode and its unstored conjugate at -kx) and 1 for kx = 0 and, for even NX,
// kx = NX/2 (planes that hold each mode's conjugate themselves): hermitian_weight().
//
// Buffers and plans: two buffers, allocated and first-touched once in the constructor, sized
// for the largest layout. A complex-to-complex layout transforms in place; the layout with the
// real-to-complex transform writes out of place into the other buffer (no padded real arrays);
// a transpose always moves data from one buffer into the other. One FFTW guru plan per layout
// and direction, created once on those buffers: FFTW_MEASURE by default (planning takes a
// moment: it times candidate algorithms and overwrites the buffers, which is why it runs before
// any data are there), FFTW_ESTIMATE on request. FFTW plans with as many OpenMP threads as the
// host execution space has, when libfftw3_omp was found (otherwise on the calling thread alone).
#pragma once

#include <fftw3.h>

#include <memory>
#include <vector>

#include "transpose.hpp"

namespace miniapp {

enum class FftPlanning { Estimate, Measure };

/// How a DistributedFft is built.
struct FftOptions {
  FftKind kind = FftKind::R2C;                        ///< real-to-complex or complex-to-complex
  TransposeKind transpose = TransposeKind::ZeroCopy;  ///< how the pencil transposes move data
  FftPlanning planning = FftPlanning::Measure;        ///< FFTW planner effort
  /// Zero-copy transposes: send runs contiguous in both layouts of at least this many bytes as
  /// plain messages (0: one subarray message per peer; TransposePlan).
  std::int64_t split_bytes = TransposePlan::kDefaultSplitBytes;
};

/// Seconds spent per phase (summed over forward and inverse calls) on this rank.
struct FftTimes {
  double transforms = 0;      ///< FFTW executions and the 1/N scaling
  std::vector<double> steps;  ///< per transpose step (both directions)
};

class DistributedFft {
 public:
  /// Plan the transposes and the FFTW transforms and allocate the two buffers. Collective over
  /// decomp.comm(); decomp must outlive this object.
  explicit DistributedFft(const Decomposition& decomp, const FftOptions& options = {});
  ~DistributedFft();
  DistributedFft(const DistributedFft&) = delete;
  DistributedFft& operator=(const DistributedFft&) = delete;

  FftKind kind() const { return options_.kind; }
  const FftOptions& options() const { return options_; }
  /// This rank's box of the input (the block layout, the decomposition's owned box).
  const Box& input_box() const { return plan_.layouts().front().box; }
  /// This rank's box of wavenumbers (k_x, k_y, k_z) in the last layout: 0 <= k_d < N_d, and
  /// for R2C 0 <= k_x <= NX/2.
  const Box& spectral_box() const { return plan_.layouts().back().out; }
  /// The complex input buffer, input_box() x fastest (C2C only). May alias spectral().
  Complex* input() const;
  /// The real input buffer, input_box() x fastest (R2C only). Does not alias spectral().
  double* real_input() const;
  /// The spectral buffer, spectral_box() x fastest.
  Complex* spectral() const { return buf_[out_buf_.back()].data(); }
  /// Weight of the stored modes with x wavenumber kx in a sum over all modes of a real field:
  /// C2C 1; R2C 2 for 0 < kx < NX/2, 1 for kx = 0 and kx = NX/2. Not collective.
  double hermitian_weight(int kx) const {
    return options_.kind == FftKind::C2C || kx == 0 || 2 * kx == global_[0] ? 1.0 : 2.0;
  }

  /// input -> spectral(), unnormalised. Collective; the input is overwritten.
  void forward();
  /// spectral() -> input, scaled by 1/N. Collective; the spectral data are overwritten.
  void inverse();

  /// Global grid NX, NY, NZ (of the input).
  const Index3& global() const { return global_; }
  const TransposePlan& transposes() const { return plan_; }
  const FftTimes& times() const { return times_; }
  void reset_timers();
  /// Bytes this rank allocated: the two buffers, plus the pack variant's two staging buffers.
  std::int64_t bytes() const;

  /// The bytes bytes() gives on the rank with the largest layouts (coordinates 0 get the larger
  /// parts of every split), for a field of `global` cells on a `dims` rank grid, worked out
  /// from box arithmetic without allocating (FFTW's own plan data not included; in double, so
  /// that grids too large for 64-bit counts can be refused). Not collective.
  static double estimate_bytes(const Index3& global, const Index3& dims, const FftOptions& options);

 private:
  void execute(fftw_plan p);

  FftOptions options_;
  TransposePlan plan_;
  Index3 global_;
  ComplexBuffer buf_[2];
  std::vector<int> in_buf_, out_buf_;  ///< per layout: the buffer data arrive in / leave from
  std::vector<fftw_plan> forward_plans_, inverse_plans_;  ///< per layout; nullptr = nothing
  FftTimes times_;
};

}  // namespace miniapp
