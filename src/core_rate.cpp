#include "core_rate.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "field.hpp"

namespace miniapp {

namespace {

enum class Op { Add, Mul, Mixed };

/// The widest vector register the build targets, in doubles: the rate is counted in doubles.
#if defined(__AVX512F__)
constexpr int kLanes = 8;
#elif defined(__AVX__)
constexpr int kLanes = 4;
#else
constexpr int kLanes = 2;
#endif
using Vec = double __attribute__((vector_size(8 * kLanes)));

/// The seconds since `start` of a timed loop whose results are the chains `a`; leaves a value
/// depending on every chain in `sink`, so that nothing is optimised away. The clock is read
/// first: the chains' sum is not part of the loop.
template <std::size_t N>
double stop(std::chrono::steady_clock::time_point start, const Vec (&a)[N], double& sink) {
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  Vec all = {};
  for (const Vec& x : a) all += x;
  sink = all[0] + all[kLanes - 1];
  return seconds;
}

/// Independent chains of operations: more than latency x ports (4 x 2 on current x86), so the
/// ports are the limit, and with their operand few enough to stay in the 16 vector registers
/// of AVX2 (twenty 32-byte halves of 64-byte vectors went to the stack there: every operation
/// then waited on a store and a load, and the "ceiling" was a tenth of the cores' rate).
constexpr int kChains = 12;

/// `iterations` rounds of kChains independent vector operations; returns the seconds taken and
/// leaves a value depending on every chain in `sink`, so that nothing is optimised away.
template <Op K>
double chains(std::int64_t iterations, double seed, double& sink) {
  // b is a hair above one, so the values neither overflow nor turn denormal in any run here.
  const Vec b = Vec{} + (1.0 + 1e-12 * seed);
  Vec a[kChains];
  for (int c = 0; c < kChains; ++c) a[c] = Vec{} + double(c);
  const auto start = std::chrono::steady_clock::now();
  for (std::int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 16
    for (int c = 0; c < kChains; ++c) {
      if (K == Op::Add || (K == Op::Mixed && c % 2 == 0))
        a[c] += b;
      else
        a[c] *= b;
    }
  }
  return stop(start, a, sink);
}

/// Seconds of the median thread when every thread at once runs timed(t, sink) (which times its
/// own work and leaves a result in sink so that nothing is optimised away).
template <class Timed>
double median_seconds_on_all_threads(const char* label, const Timed& timed) {
  const int threads = Exec().concurrency();
  Kokkos::View<double*, Kokkos::HostSpace> seconds("miniapp::core_rate::seconds",
                                                   std::size_t(threads));
  Kokkos::View<double*, Kokkos::HostSpace> sink("miniapp::core_rate::sink", std::size_t(threads));
  Kokkos::parallel_for(
      label, Kokkos::RangePolicy<Exec, Kokkos::Schedule<Kokkos::Static>>(0, threads),
      KOKKOS_LAMBDA(const int t) { seconds(t) = timed(t, sink(t)); });
  Kokkos::fence();
  std::vector<double> s(seconds.data(), seconds.data() + threads);
  std::sort(s.begin(), s.end());
  return s[s.size() / 2];
}

/// Doubles per second of operation K on every thread at once (each thread times its own
/// chains); the median thread.
template <Op K>
double rate_on_all_threads(std::int64_t iterations) {
  const double median = median_seconds_on_all_threads(
      "miniapp::core_rate",
      [iterations](int t, double& sink) { return chains<K>(iterations, double(t), sink); });
  return median > 0 ? double(kChains * kLanes) * double(iterations) / median : 0.0;
}

/// The best of three runs of about `seconds` each: a disturbed run only lowers a rate.
template <Op K>
double best_rate(double seconds) {
  const double guess = rate_on_all_threads<K>(10000);  // about 30 microseconds
  const auto iterations =
      std::max<std::int64_t>(10000, std::int64_t(seconds * guess / double(kChains * kLanes)));
  double best = 0;
  for (int r = 0; r < 3; ++r) best = std::max(best, rate_on_all_threads<K>(iterations));
  return best;
}

/// Doubles in each thread's L2 buffer: 256 KiB, four to eight times an L1 of current x86
/// cores and a quarter to a half of their L2.
constexpr std::int64_t kL2Doubles = std::int64_t{256} * 1024 / 8;

/// Chains of the L2 read: two loads per cycle times the addition's latency, and a divisor of
/// the buffer's vectors.
constexpr int kL2Chains = 8;

/// `passes` sums of `buffer` (kL2Doubles, 64-byte aligned) by kL2Chains chains; returns
/// the seconds taken and leaves the sum in `sink`.
double l2_passes(const Vec* buffer, std::int64_t passes, double& sink) {
  constexpr std::int64_t vectors = kL2Doubles / kLanes;
  Vec a[kL2Chains] = {};
  const auto start = std::chrono::steady_clock::now();
  for (std::int64_t p = 0; p < passes; ++p)
    for (std::int64_t i = 0; i < vectors; i += kL2Chains)
#pragma GCC unroll 8
      for (int c = 0; c < kL2Chains; ++c) a[c] += buffer[i + c];
  return stop(start, a, sink);
}

/// Bytes per second each thread reads from its own L2 buffer, every thread at once; the
/// median thread.
double l2_rate_on_all_threads(std::int64_t passes) {
  const double median =
      median_seconds_on_all_threads("miniapp::core_rate::l2", [passes](int, double& sink) {
        // First touched and then read by the thread itself: its own core's L2.
        std::vector<Vec> buffer(std::size_t(kL2Doubles / kLanes));
        for (std::size_t i = 0; i < buffer.size(); ++i) buffer[i] = Vec{} + 1e-9 * double(i % 97);
        l2_passes(buffer.data(), 1, sink);  // warm: the buffer in the L2
        return l2_passes(buffer.data(), passes, sink);
      });
  return median > 0 ? double(kL2Doubles) * 8.0 * double(passes) / median : 0.0;
}

}  // namespace

CoreRates measure_core_rates(double seconds) {
  const double each = seconds / 12.0;
  CoreRates r;
  r.adds = best_rate<Op::Add>(each);
  r.muls = best_rate<Op::Mul>(each);
  r.mixed = best_rate<Op::Mixed>(each);
  const double guess = l2_rate_on_all_threads(4);
  const auto passes =
      std::max<std::int64_t>(4, std::int64_t(each * guess / (double(kL2Doubles) * 8.0)));
  for (int rep = 0; rep < 3; ++rep)
    r.l2_reads = std::max(r.l2_reads, l2_rate_on_all_threads(passes));
  return r;
}

}  // namespace miniapp
