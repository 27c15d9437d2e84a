#include "stream_copy.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "box_kernels.hpp"

#if defined(__SSE2__)
#include <immintrin.h>
#endif
#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace miniapp {

namespace {

/// Block [first, last) of thread t of T over n elements, cut at multiples of 8 elements so
/// every block starts on a 64-byte line.
KOKKOS_INLINE_FUNCTION void thread_block(std::int64_t n, int t, int T, std::int64_t& first,
                                         std::int64_t& last) {
  const std::int64_t lines = (n + 7) / 8;
  first = std::min(n, lines * t / T * 8);
  last = std::min(n, lines * (t + 1) / T * 8);
}

/// b[i] = a[i] on [first, last) with non-temporal stores (a and b 64-byte aligned at first).
inline void copy_streaming(const double* __restrict a, double* __restrict b, std::int64_t first,
                           std::int64_t last) {
  std::int64_t i = first;
#if defined(__AVX512F__)
  for (; i + 8 <= last; i += 8) _mm512_stream_pd(b + i, _mm512_load_pd(a + i));
#elif defined(__AVX__)
  for (; i + 8 <= last; i += 8) {
    _mm256_stream_pd(b + i, _mm256_load_pd(a + i));
    _mm256_stream_pd(b + i + 4, _mm256_load_pd(a + i + 4));
  }
#elif defined(__SSE2__)
  for (; i + 8 <= last; i += 8)
    for (int h = 0; h < 8; h += 2) _mm_stream_pd(b + i + h, _mm_load_pd(a + i + h));
#endif
  for (; i < last; ++i) b[i] = a[i];
#if defined(__SSE2__)
  _mm_sfence();  // non-temporal stores are weakly ordered: publish them before the fence
#endif
}

/// b[i] = a[i] on [first, last) with ordinary stores, the same vector loads and stores as
/// copy_streaming. Each loaded vector passes through an empty asm statement: a plain copy loop,
/// intrinsics or not, is turned by the compiler into a call of memcpy, whose choice of stores
/// (non-temporal above a size threshold, or rep movsb) is the C library's, not the yardstick's.
inline void copy_ordinary(const double* __restrict a, double* __restrict b, std::int64_t first,
                          std::int64_t last) {
  std::int64_t i = first;
#if defined(__AVX512F__)
  for (; i + 8 <= last; i += 8) {
    __m512d v = _mm512_load_pd(a + i);
    asm("" : "+v"(v));
    _mm512_store_pd(b + i, v);
  }
#elif defined(__AVX__)
  for (; i + 4 <= last; i += 4) {
    __m256d v = _mm256_load_pd(a + i);
    asm("" : "+x"(v));
    _mm256_store_pd(b + i, v);
  }
#elif defined(__SSE2__)
  for (; i + 2 <= last; i += 2) {
    __m128d v = _mm_load_pd(a + i);
    asm("" : "+x"(v));
    _mm_store_pd(b + i, v);
  }
#endif
  for (; i < last; ++i) b[i] = a[i];
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

}  // namespace

void advise_huge_pages(void* p, std::int64_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t page = 4096;
  const auto first = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t last = first + std::uintptr_t(bytes);
  const std::uintptr_t start = (first + page - 1) / page * page;
  if (bytes > 0 && last > start + (std::uintptr_t(2) << 20))
    madvise(static_cast<char*>(p) + (start - first), last - start, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

namespace {

struct LastLevelCache {
  std::int64_t bytes = std::int64_t(32) * 1024 * 1024;
  int cpus = 0;
};

/// /sys/devices/system/cpu/cpu0/cache/indexN/{level,type,size,shared_cpu_list}: the largest
/// level wins.
LastLevelCache read_last_level_cache() {
  LastLevelCache out;
  int best_level = 0;
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    std::ifstream level_file(dir + "/level"), size_file(dir + "/size"), type_file(dir + "/type");
    int level = 0;
    std::string size, type;
    if (!(level_file >> level) || !(size_file >> size) || !(type_file >> type)) continue;
    if (type == "Instruction" || level < best_level) continue;
    std::int64_t value = 0;
    std::size_t used = 0;
    try {
      value = std::stoll(size, &used);
    } catch (const std::exception&) {
      continue;
    }
    if (value <= 0) continue;
    const char unit = used < size.size() ? size[used] : ' ';
    value *= unit == 'K' ? 1024 : unit == 'M' ? 1024 * 1024 : unit == 'G' ? 1024 * 1024 * 1024 : 1;
    std::ifstream cpus_file(dir + "/shared_cpu_list");
    std::string cpus;
    cpus_file >> cpus;
    best_level = level;
    out.bytes = value;
    out.cpus = count_cpu_list(cpus);
  }
  return out;
}

const LastLevelCache& last_level_cache() {
  static const LastLevelCache cache = read_last_level_cache();
  return cache;
}

}  // namespace

std::int64_t last_level_cache_bytes() { return last_level_cache().bytes; }

int last_level_cache_cpus() { return last_level_cache().cpus; }

int count_cpu_list(const std::string& list) {
  // Fields of digits or digits-digits, separated by single commas; nothing else.
  std::int64_t count = 0;
  std::size_t at = 0;
  const auto number = [&](std::int64_t& value) {
    const std::size_t first = at;
    value = 0;
    while (at < list.size() && list[at] >= '0' && list[at] <= '9' && value <= (1 << 24))
      value = value * 10 + (list[at++] - '0');
    return at > first && value <= (1 << 24);
  };
  while (true) {
    std::int64_t low = 0, high = 0;
    if (!number(low)) return 0;
    high = low;
    if (at < list.size() && list[at] == '-') {
      ++at;
      if (!number(high) || high < low) return 0;
    }
    count += high - low + 1;
    if (count > (1 << 24)) return 0;
    if (at == list.size()) return int(count);
    if (list[at++] != ',') return 0;
  }
}

std::int64_t cache_share(std::int64_t bytes, int sharers, int threads) {
  if (sharers <= 0 || threads >= sharers) return bytes;
  return bytes * std::max(threads, 1) / sharers;
}

namespace {
std::atomic<int> node_threads{0};
}  // namespace

void set_threads_on_node(int threads) { node_threads = std::max(threads, 0); }

int threads_on_node() { return node_threads; }

std::int64_t last_level_cache_share(int threads) {
  const int node = node_threads;
  const int cpus = last_level_cache_cpus();
  const int sharers = node <= 0 ? 0 : cpus > 0 ? std::min(cpus, node) : node;
  return cache_share(last_level_cache_bytes(), sharers, threads);
}

bool has_streaming_stores() {
#if defined(__SSE2__)
  return true;
#else
  return false;
#endif
}

StreamCopy::StreamCopy(std::int64_t elements) : n_(std::max<std::int64_t>(elements, 8)) {
  // Two arrays in one allocation, each starting on a 64-byte line (8 doubles of slack each).
  const std::int64_t stride = (n_ + 7) / 8 * 8 + 8;
  storage_ = Kokkos::View<double*, Memory>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "miniapp::stream_copy"),
      std::size_t(2 * stride + 8));
  const auto misalign = std::int64_t(reinterpret_cast<std::uintptr_t>(storage_.data()) % 64) / 8;
  a_ = storage_.data() + (8 - misalign) % 8;
  b_ = a_ + stride;
  advise_huge_pages(storage_.data(), std::int64_t(storage_.size()) * std::int64_t(sizeof(double)));
  double* a = a_;
  double* b = b_;
  const std::int64_t n = n_;
  const int T = Exec().concurrency();
  Kokkos::parallel_for(
      "miniapp::stream_copy::first_touch",
      Kokkos::RangePolicy<Exec, Kokkos::Schedule<Kokkos::Static>>(0, T),
      KOKKOS_LAMBDA(const int t) {
        std::int64_t first = 0, last = 0;
        thread_block(n, t, T, first, last);
        for (std::int64_t i = first; i < last; ++i) {
          a[i] = double(i % 1000) * 1e-3;
          b[i] = 0.0;
        }
      });
  Kokkos::fence();
}

namespace {

/// b = a over n elements in the threads' blocks, timed: every thread its own block, or with
/// `alone` only the first thread its own while the others idle.
double timed_copy(const double* a, double* b, std::int64_t n, StoreKind kind, bool alone) {
  const int T = Exec().concurrency();
  const bool streaming = kind == StoreKind::Streaming;
  Kokkos::Timer timer;
  Kokkos::parallel_for(
      alone       ? "miniapp::stream_copy::alone"
      : streaming ? "miniapp::stream_copy::streaming"
                  : "miniapp::stream_copy::ordinary",
      Kokkos::RangePolicy<Exec, Kokkos::Schedule<Kokkos::Static>>(0, T),
      KOKKOS_LAMBDA(const int t) {
        if (alone && t != 0) return;
        std::int64_t first = 0, last = 0;
        thread_block(n, t, T, first, last);
        if (streaming)
          copy_streaming(a, b, first, last);
        else
          copy_ordinary(a, b, first, last);
      });
  Kokkos::fence();
  return timer.seconds();
}

}  // namespace

double StreamCopy::run(StoreKind kind) const { return timed_copy(a_, b_, n_, kind, false); }

double StreamCopy::run_alone(StoreKind kind) const { return timed_copy(a_, b_, n_, kind, true); }

double StreamCopy::alone_bytes() const {
  std::int64_t first = 0, last = 0;
  thread_block(n_, 0, Exec().concurrency(), first, last);
  return 16.0 * double(last - first);
}

GatherRun StreamCopy::gather(std::int64_t row, std::int64_t last) const {
  run(StoreKind::Streaming);
  const double* b = b_;
  const std::int64_t rows = row > last && last >= 0 ? n_ / row : 0;
  const int T = Exec().concurrency();
  GatherRun out;
  Kokkos::Timer timer;
  Kokkos::parallel_reduce(
      "miniapp::stream_copy::gather",
      Kokkos::RangePolicy<Exec, Kokkos::Schedule<Kokkos::Static>>(0, T),
      KOKKOS_LAMBDA(const int t, double& sum) {
        for (std::int64_t r = rows * t / T; r < rows * (t + 1) / T; ++r) {
          const double* p = b + r * row;
          prefetch_column(p, row);
          prefetch_column(p + last, row);
          sum += p[0] + p[last];
        }
      },
      out.sum);
  Kokkos::fence();
  out.seconds = timer.seconds();
  out.lines = rows * (last >= 8 ? 2 : 1);
  return out;
}

std::int64_t StreamCopy::matching() const {
  const double* a = a_;
  const double* b = b_;
  std::int64_t same = 0;
  Kokkos::parallel_reduce(
      "miniapp::stream_copy::matching", Kokkos::RangePolicy<Exec>(0, n_),
      KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& m) { m += a[i] == b[i]; }, same);
  return same;
}

bool StreamCopy::verify() const { return matching() == n_; }

CopyRates StreamCopy::measure(int reps, const std::function<double(double)>& reduce) const {
  const auto timed = [&](StoreKind kind) {
    const double t = run(kind);
    return reduce ? reduce(t) : t;
  };
  timed(StoreKind::Ordinary);
  timed(StoreKind::Streaming);
  std::vector<double> ordinary, streaming;
  for (int r = 0; r < std::max(1, reps); ++r) {
    ordinary.push_back(timed(StoreKind::Ordinary));
    streaming.push_back(timed(StoreKind::Streaming));
  }
  CopyRates rates;
  rates.ordinary = bytes() / median_of(ordinary);
  rates.streaming = bytes() / median_of(streaming);
  return rates;
}

}  // namespace miniapp
