#include "core_rate.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "field.hpp"

namespace miniapp {

namespace {

enum class Op { Add, Mul, Mixed };

/// Eight doubles, one AVX-512 register (two AVX or four SSE registers elsewhere): the compiler
/// emits the widest vector operations the build allows, and the rate is counted in doubles.
using V8 = double __attribute__((vector_size(64)));

/// `iterations` rounds of ten independent vector operations; returns the seconds taken and
/// leaves a value depending on every chain in `sink`, so that nothing is optimised away.
template <Op K>
double chains(std::int64_t iterations, double seed, double& sink) {
  // Ten chains: more than latency x ports (4 x 2 on current x86), so the ports are the limit.
  // b is a hair above one, so the values neither overflow nor turn denormal in any run here.
  const V8 b = V8{} + (1.0 + 1e-12 * seed);
  V8 a0 = V8{} + 0.0, a1 = V8{} + 1.0, a2 = V8{} + 2.0, a3 = V8{} + 3.0, a4 = V8{} + 4.0;
  V8 a5 = V8{} + 5.0, a6 = V8{} + 6.0, a7 = V8{} + 7.0, a8 = V8{} + 8.0, a9 = V8{} + 9.0;
  const auto start = std::chrono::steady_clock::now();
  for (std::int64_t i = 0; i < iterations; ++i) {
    if (K == Op::Add) {
      a0 += b, a1 += b, a2 += b, a3 += b, a4 += b, a5 += b, a6 += b, a7 += b, a8 += b, a9 += b;
    } else if (K == Op::Mul) {
      a0 *= b, a1 *= b, a2 *= b, a3 *= b, a4 *= b, a5 *= b, a6 *= b, a7 *= b, a8 *= b, a9 *= b;
    } else {
      a0 += b, a1 *= b, a2 += b, a3 *= b, a4 += b, a5 *= b, a6 += b, a7 *= b, a8 += b, a9 *= b;
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const V8 all = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9;
  sink = all[0] + all[7];
  return seconds;
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
  return median > 0 ? 10.0 * 8.0 * double(iterations) / median : 0.0;
}

/// The best of three runs of about `seconds` each: a disturbed run only lowers a rate.
template <Op K>
double best_rate(double seconds) {
  const double guess = rate_on_all_threads<K>(10000);  // about 30 microseconds
  const auto iterations =
      std::max<std::int64_t>(10000, std::int64_t(seconds * guess / (10.0 * 8.0)));
  double best = 0;
  for (int r = 0; r < 3; ++r) best = std::max(best, rate_on_all_threads<K>(iterations));
  return best;
}

/// Doubles in each thread's L2 buffer: 256 KiB, four to eight times an L1 of current x86
/// cores and a quarter to a half of their L2.
constexpr std::int64_t kL2Doubles = std::int64_t{256} * 1024 / 8;

/// `passes` sums of `buffer` (kL2Doubles, 64-byte aligned) by 16 independent chains; returns
/// the seconds taken and leaves the sum in `sink`.
double l2_passes(const V8* buffer, std::int64_t passes, double& sink) {
  constexpr std::int64_t vectors = kL2Doubles / 8, chains16 = 16;
  V8 a[chains16] = {};
  const auto start = std::chrono::steady_clock::now();
  for (std::int64_t p = 0; p < passes; ++p)
    for (std::int64_t i = 0; i < vectors; i += chains16)
      for (std::int64_t c = 0; c < chains16; ++c) a[c] += buffer[i + c];
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  V8 all = {};
  for (const V8& x : a) all += x;
  sink = all[0] + all[7];
  return seconds;
}

/// Bytes per second each thread reads from its own L2 buffer, every thread at once; the
/// median thread.
double l2_rate_on_all_threads(std::int64_t passes) {
  const double median =
      median_seconds_on_all_threads("miniapp::core_rate::l2", [passes](int, double& sink) {
        // First touched and then read by the thread itself: its own core's L2.
        std::vector<V8> buffer(std::size_t(kL2Doubles / 8));
        for (std::size_t i = 0; i < buffer.size(); ++i) buffer[i] = V8{} + 1e-9 * double(i % 97);
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
