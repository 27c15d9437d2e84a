#include "progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "mpi_utils.hpp"
#include "simulation.hpp"

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

std::int64_t run_with_progress(Simulation& sim, std::int64_t steps, double interval,
                               std::int64_t first, std::int64_t total, std::ostream& os,
                               StopVote* stop) {
  if (interval <= 0) return sim.run(steps, stop);
  const MPI_Comm comm = sim.decomposition().comm();
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const double start = MPI_Wtime();
  std::int64_t done = 0, chunk = 1;  // the first chunk of one step measures the rate
  while (done < steps) {
    const std::int64_t ran = sim.run(chunk, stop);
    done += ran;
    // Every rank knows: done, steps and the stop vote agree everywhere.
    if (done == steps || ran < chunk || (stop && stop->signal() != 0)) break;
    if (rank == 0) {
      const double per_step = (MPI_Wtime() - start) / double(done);
      os << progress_line(first + done, total, per_step) << std::endl;
      const double want = std::floor(interval / std::max(per_step, 1e-9));
      chunk = std::clamp<std::int64_t>(std::int64_t(std::min(want, 1e15)), 1, steps - done);
    }
    mpi_check(MPI_Bcast(&chunk, 1, MPI_INT64_T, 0, comm), "MPI_Bcast");
  }
  return done;
}

}  // namespace miniapp
