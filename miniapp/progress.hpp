// Progress of a long run: one line on rank 0 every few seconds,
//
//   progress: step 1200/5000 (24.0%), 3.21 ms/step, ETA 12.2 s
//
// on by default only in an interactive terminal, so batch logs stay quiet unless
// --progress SECONDS asks for it. Rank 0 looks at its own clock after each round and prints
// when the interval has passed: no communication, and the time loop is not cut into chunks.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

namespace miniapp {

/// Seconds between progress lines: `requested` when >= 0 (0 = off); when negative (auto),
/// 10 s if `interactive`, else 0. Not collective.
double progress_interval(double requested, bool interactive);

/// Whether this process talks to a person: stdin and stdout both terminals. stdout alone is
/// not enough: Open MPI's mpiexec hands every rank a pseudo-terminal for stdout even when its
/// own output goes to a log file. Not collective.
bool interactive_terminal();

/// One progress line (no newline): step `done` of `total`, seconds per step, ETA.
std::string progress_line(std::int64_t done, std::int64_t total, double seconds_per_step);

/// The progress lines of one run, printed by the rank that owns the stream.
class Progress {
 public:
  /// Lines on `os` every `interval` seconds (0 = never) for a run from step `first` to step
  /// `total`; `os` null on the ranks that print nothing. Not collective.
  Progress(double interval, std::int64_t first, std::int64_t total, std::ostream* os);
  /// After a round that reached `step`: a line when the interval has passed since the last.
  /// Not collective.
  void update(std::int64_t step);

 private:
  double interval_;
  std::int64_t first_, total_;
  std::ostream* os_;
  double start_, last_;
};

}  // namespace miniapp
