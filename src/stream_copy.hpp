// The memory-bandwidth yardstick every sweep is measured against: a STREAM-style copy b = a.
//
//   two arrays of N doubles, 64-byte aligned, each thread's block first-touched by the thread
//   that copies it (the same static partition in the fill and in every copy);
//   ordinary stores   b[i] = a[i]           (the cache reads each target line before writing it)
//   streaming stores  non-temporal stores   (no read of the target line; x86 only)
//   counted at 16 B per element (8 read + 8 written), as STREAM counts a copy.
//
// A sweep that reads each input value from memory once and writes each output value once moves
// the same 16 B per cell update, whichever kind of store it uses, so its memory bound is
//   bound (cell updates/s) = max(ordinary, streaming) / 16 B.
// Kernels only: nothing here calls MPI (the benchmarks reduce over ranks themselves).
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <functional>
#include <string>

#include "field.hpp"

namespace miniapp {

enum class StoreKind { Ordinary, Streaming };

/// True when this build has non-temporal stores (x86 SSE2/AVX/AVX-512); otherwise a streaming
/// copy falls back to ordinary stores.
bool has_streaming_stores();

/// Ask the kernel for transparent huge pages (2 MiB) for [p, p + bytes) before its first touch:
/// arrays walked with strides of a row or a plane then miss the TLB far less (on virtual
/// machines every miss is a nested page walk), and first touch faults 512 times less often.
/// Advisory: does nothing where transparent huge pages are off or unsupported. Not collective.
void advise_huge_pages(void* p, std::int64_t bytes);

/// Bytes of the last-level cache of this CPU (from Linux sysfs; 32 MiB when unknown).
std::int64_t last_level_cache_bytes();

/// CPUs that share that cache (its sysfs shared_cpu_list; 0 when unknown).
int last_level_cache_cpus();

/// The CPUs in a Linux CPU list such as "0-15" or "0-7,16-23" (0 when it does not parse). Pure.
int count_cpu_list(const std::string& list);

/// The part of a cache of `bytes` that a rank running `threads` threads can count on when
/// `sharers` threads in all run on the CPUs that share it: bytes * threads / sharers; all of it
/// when the rank's threads are all the sharers or the sharers are unknown (0). Pure.
std::int64_t cache_share(std::int64_t bytes, int sharers, int threads);

/// Record how many threads the ranks on this node run in all (ranks on the node x threads per
/// rank), once at start-up, before the first sweep: last_level_cache_share() divides the cache
/// among them. Until it is called each rank counts on the whole cache. Not collective.
void set_threads_on_node(int threads);

/// What set_threads_on_node() recorded (0: nothing yet).
int threads_on_node();

/// This rank's share of the last-level cache: cache_share() of this CPU's cache for `threads`,
/// shared by the threads on the node (set_threads_on_node), at most as many as the cache's
/// CPUs. On a full node every rank's arrays compete for the cache: sixteen 1-thread ranks of
/// 256 MiB each do not fit a 300 MiB cache, although each alone would. Sweeps over arrays
/// larger than this share stream from memory.
std::int64_t last_level_cache_share(int threads);

/// Copy bandwidths in bytes/s, 16 B counted per element.
struct CopyRates {
  double ordinary = 0;
  double streaming = 0;
  /// The better of the two: the single-sweep memory bound in bytes/s.
  double best() const { return ordinary > streaming ? ordinary : streaming; }
  /// The single-sweep memory bound in cell updates/s (best() / 16 B).
  double cells_per_second() const { return best() / 16.0; }
};

/// One walk of StreamCopy::gather.
struct GatherRun {
  double seconds = 0;
  std::int64_t lines = 0;  ///< 64-byte lines read
  double sum = 0;          ///< of the values read (so that every read is used)
};

class StreamCopy {
 public:
  /// Allocate two arrays of `elements` doubles (64-byte aligned) and first-touch them with the
  /// threads that will copy them. Not collective; fences.
  explicit StreamCopy(std::int64_t elements);

  /// One copy b = a with the given stores; returns its seconds (after a fence). Not collective.
  double run(StoreKind kind) const;

  /// One core's copy: the first thread copies its own block (as in run(); the others' blocks
  /// are left alone and they idle), so that one core's own rate can be set beside the rate of
  /// all of them at once. Returns its seconds (after a fence). Not collective.
  double run_alone(StoreKind kind) const;
  /// Bytes counted by run_alone (16 B per element of the first thread's block).
  double alone_bytes() const;

  /// `reps` interleaved ordinary/streaming copies after one warm-up of each; each time is first
  /// passed through `reduce` (e.g. a barrier and a max over ranks), the medians give the rates.
  /// Not collective unless `reduce` is.
  CopyRates measure(int reps, const std::function<double(double)>& reduce = nullptr) const;

  /// The reads of an x-face pack, for its yardstick: the target array taken as rows of `row`
  /// doubles (x = 0 of each on a 64-byte line), each thread its own block of rows, and from
  /// each row the values at x = 0 and x = `last` summed, as a pack reads the first and last
  /// owned cell of every row of a field (field.hpp: both on lines of their own once last >= 8).
  /// Walked down the rows with the pack's prefetches (box_kernels.hpp), right after an untimed
  /// streaming copy has written the target around the caches, so the lines come from memory.
  /// Not collective; fences.
  GatherRun gather(std::int64_t row, std::int64_t last) const;

  /// True when the target equals the source element for element (after a run). Fences.
  bool verify() const;
  /// The elements at which the target equals the source. Fences.
  std::int64_t matching() const;

  std::int64_t elements() const { return n_; }
  /// Bytes counted per copy (16 B per element).
  double bytes() const { return 16.0 * double(n_); }

 private:
  std::int64_t n_ = 0;
  Kokkos::View<double*, Memory> storage_;
  double* a_ = nullptr;
  double* b_ = nullptr;
};

}  // namespace miniapp
