// Phase timing: one scoped timer type instead of hand-paired clock calls.
//
//   {
//     ScopedTimer t(times.pack, "miniapp::halo::pack", Fence::AtEnd);
//     ... launch kernels ...
//   }   // fences, then adds the elapsed seconds to times.pack
//
// Each timed phase is also a Kokkos Profiling region of the same name, so Kokkos Tools
// (kernel timers, space-time stack) attribute kernels to the phase that launched them.
#pragma once

#include <mpi.h>

#include <Kokkos_Core.hpp>

namespace miniapp {

/// Whether a timer waits for the launched kernels before it reads the clock at its end.
enum class Fence { No, AtEnd };

/// Adds the seconds between its construction and its destruction to `total`; the interval
/// is a Kokkos Profiling region named `region`. With Fence::AtEnd, kernels launched in the
/// interval are complete before the clock is read. Not collective.
class ScopedTimer {
 public:
  ScopedTimer(double& total, const char* region, Fence fence = Fence::No)
      : total_(total), fence_(fence), start_(MPI_Wtime()) {
    Kokkos::Profiling::pushRegion(region);
  }
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;
  ~ScopedTimer() {
    if (fence_ == Fence::AtEnd) Kokkos::fence();
    total_ += MPI_Wtime() - start_;
    Kokkos::Profiling::popRegion();
  }
  /// Seconds since construction (no fence).
  double elapsed() const { return MPI_Wtime() - start_; }

 private:
  double& total_;
  Fence fence_;
  double start_;
};

}  // namespace miniapp
