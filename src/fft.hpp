// Distributed 3D FFT on pencils: the 1D (or, where a layout spans several dimensions fully,
// multi-dimensional) transforms of FFTW3 in each layout of the TransposePlan chain, the pencil
// transposes in between.
//
//   forward:  U(k) = sum_x u(x) exp(-2 pi i sum_d k_d x_d / N_d)        (unnormalised)
//   inverse:  u(x) = 1/N sum_k U(k) exp(+2 pi i sum_d k_d x_d / N_d)    (N = NX NY NZ)
//
// so inverse(forward(u)) = u to round-off. Input and output are complex (c2c throughout):
// every layout holds the same element type and the same boxes, so the transposes and their
// box arithmetic are shared by all three dimensions; the spectral check and the spectrum want
// every mode k, not half of them; and the field of a diffusion run is small next to the
// transposes' cost. Real-to-complex would halve memory and traffic at the price of an
// (N_x/2+1)-long first dimension whose uneven split differs from the field's; not done.
//
// Plans: one FFTW guru plan per layout and direction, created once in the constructor on the
// two buffers the data alternate between (layout i lives in buffer i % 2; each transform is in
// place). FFTW_MEASURE by default (planning takes a moment: it times candidate algorithms
// and overwrites the buffers, which is why it runs before any data are there), FFTW_ESTIMATE
// on request. The buffers are allocated once and first-touched by the host threads; FFTW
// plans with as many OpenMP threads as the host execution space has, when libfftw3_omp was
// found (otherwise on the calling thread alone).
#pragma once

#include <fftw3.h>

#include <memory>
#include <vector>

#include "transpose.hpp"

namespace miniapp {

enum class FftPlanning { Estimate, Measure };

/// Seconds spent per phase (summed over forward and inverse calls) on this rank.
struct FftTimes {
  double transforms = 0;      ///< FFTW executions and the 1/N scaling
  std::vector<double> steps;  ///< per transpose step (both directions)
};

class DistributedFft {
 public:
  /// Plan the transposes and the FFTW transforms and allocate the two buffers. Collective over
  /// decomp.comm(); decomp must outlive this object.
  DistributedFft(const Decomposition& decomp, TransposeKind kind,
                 FftPlanning planning = FftPlanning::Measure);
  ~DistributedFft();
  DistributedFft(const DistributedFft&) = delete;
  DistributedFft& operator=(const DistributedFft&) = delete;

  /// This rank's box of the input (the block layout, the decomposition's owned box).
  const Box& input_box() const { return plan_.layouts().front().box; }
  /// This rank's box of wavenumbers (k_x, k_y, k_z), 0 <= k_d < N_d, in the last layout.
  const Box& spectral_box() const { return plan_.layouts().back().box; }
  /// The input buffer, input_box() x fastest. May alias spectral().
  Complex* input() const { return buf_[0].data(); }
  /// The spectral buffer, spectral_box() x fastest. May alias input().
  Complex* spectral() const { return buf_[spectral_buffer()].data(); }

  /// input() -> spectral(), unnormalised. Collective; the input is overwritten.
  void forward();
  /// spectral() -> input(), scaled by 1/N. Collective; the spectral data are overwritten.
  void inverse();

  /// Global grid NX, NY, NZ.
  const Index3& global() const { return global_; }
  const TransposePlan& transposes() const { return plan_; }
  const FftTimes& times() const { return times_; }
  void reset_timers();

 private:
  std::size_t spectral_buffer() const { return std::size_t(plan_.steps() % 2); }
  void execute(fftw_plan p);

  TransposePlan plan_;
  Index3 global_;
  ComplexBuffer buf_[2];
  std::vector<fftw_plan> forward_plans_, inverse_plans_;  ///< per layout; nullptr = nothing
  FftTimes times_;
};

}  // namespace miniapp
