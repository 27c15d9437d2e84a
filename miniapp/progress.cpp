#include "progress.hpp"

#include <mpi.h>
#include <unistd.h>

#include <cstdio>

namespace miniapp {

double progress_interval(double requested, bool interactive) {
  if (requested >= 0) return requested;
  return interactive ? 10.0 : 0.0;
}

bool interactive_terminal() { return isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1; }

namespace {

/// 0.8 ms, 3.21 s, 12.5 min, 3.2 h.
std::string duration(double s) {
  char buf[32];
  if (s < 1.0)
    std::snprintf(buf, sizeof buf, "%.3g ms", s * 1e3);
  else if (s < 120.0)
    std::snprintf(buf, sizeof buf, "%.3g s", s);
  else if (s < 7200.0)
    std::snprintf(buf, sizeof buf, "%.3g min", s / 60.0);
  else
    std::snprintf(buf, sizeof buf, "%.3g h", s / 3600.0);
  return buf;
}

}  // namespace

std::string progress_line(std::int64_t done, std::int64_t total, double seconds_per_step) {
  char buf[96];
  const double pct = total > 0 ? 100.0 * double(done) / double(total) : 100.0;
  std::snprintf(buf, sizeof buf, "progress: step %lld/%lld (%.1f%%), ", (long long)done,
                (long long)total, pct);
  return std::string(buf) + duration(seconds_per_step) + "/step, ETA " +
         duration(seconds_per_step * double(total - done));
}

Progress::Progress(double interval, std::int64_t first, std::int64_t total, std::ostream* os)
    : interval_(interval), first_(first), total_(total), os_(os) {
  start_ = last_ = MPI_Wtime();
}

void Progress::update(std::int64_t step) {
  if (!os_ || interval_ <= 0 || step >= total_ || step <= first_) return;
  const double now = MPI_Wtime();
  if (now - last_ < interval_) return;
  last_ = now;
  *os_ << progress_line(step, total_, (now - start_) / double(step - first_)) << std::endl;
}

}  // namespace miniapp
