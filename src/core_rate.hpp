// The arithmetic yardstick, beside the memory one (stream_copy.hpp): how many double-precision
// additions and multiplications a thread retires per second when nothing else limits it.
//
//   ten independent chains of 8-wide vector operations (a = a + b, or a = a * b), long enough
//   that the add latency is hidden and only the issue ports count; every thread at once, so
//   that the clock is the one a full sweep runs at; the median thread is reported.
//
// A kernel that needs A additions and M multiplications per cell update cannot run faster, per
// thread, than the slowest of A / adds, M / muls and (A + M) / mixed: cores with separate add
// and multiply ports (AMD Zen) are bound by the first two, cores whose ports do both (Intel)
// by the third. Counting the operations is the kernel's business (stencil_line.hpp).
// The same file measures how fast a thread reads from its L2, the ceiling of kernels whose
// operands come from there. Kernels only: nothing here calls MPI.
#pragma once

namespace miniapp {

/// Double-precision operations per second per thread.
struct CoreRates {
  double adds = 0;   ///< additions (and subtractions) alone
  double muls = 0;   ///< multiplications alone
  double mixed = 0;  ///< additions and multiplications interleaved one to one
  /// Bytes per second a thread reads from its L2: a 256 KiB buffer (larger than an L1, within
  /// an L2) summed again and again by 16 independent 8-wide chains. A kernel whose data
  /// outgrows the L1 between reuses (a sweep's scratch rows) loads at most this fast.
  double l2_reads = 0;
};

/// Measure the rates for about `seconds` in all (three runs of each kind on every thread).
/// Not collective; fences.
CoreRates measure_core_rates(double seconds = 0.15);

/// The arithmetic ceiling of a kernel of `adds` additions and `muls` multiplications per cell
/// update, in cell updates per second per thread.
inline double arithmetic_ceiling(const CoreRates& r, int adds, int muls) {
  double t = 0;  // seconds per cell update
  const auto worst = [&](double ops, double rate) {
    if (ops > 0 && rate > 0 && ops / rate > t) t = ops / rate;
  };
  worst(adds, r.adds);
  worst(muls, r.muls);
  worst(adds + muls, r.mixed);
  return t > 0 ? 1.0 / t : 0.0;
}

}  // namespace miniapp
