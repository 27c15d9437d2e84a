#include "checkpoint_writer.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <utility>
#include <vector>

#include "diagnostics.hpp"
#include "durable_dir.hpp"
#include "mpi_utils.hpp"
#include "text.hpp"
#include "timer.hpp"

namespace miniapp {

namespace {

constexpr const char* kPrefix = "checkpoint_";

/// The current time as ISO 8601 UTC, e.g. 2024-05-01T12:00:00Z.
std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm t{};
  gmtime_r(&now, &t);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &t);
  return buf;
}

}  // namespace

std::string checkpoint_path(const std::string& dir, std::int64_t step) {
  char name[48];
  std::snprintf(name, sizeof name, "%s%010lld.h5", kPrefix, static_cast<long long>(step));
  return (dir.empty() ? std::string(".") : dir) + "/" + name;
}

std::string latest_checkpoint(const std::string& dir) {
  const std::vector<std::int64_t> steps = numbers_in(dir, kPrefix, ".h5");
  return steps.empty() ? "" : checkpoint_path(dir, steps.back());
}

std::string time_series_path(const std::string& dir) {
  return (dir.empty() ? std::string(".") : dir) + "/checkpoints.xmf";
}

std::string time_series_of(const std::string& dir) {
  std::vector<TimeSeriesEntry> entries;
  for (const std::int64_t step : numbers_in(dir, kPrefix, ".h5")) {
    TimeSeriesEntry e;
    const std::string path = checkpoint_path(dir, step);
    if (!probe_checkpoint_file(path, e.meta).empty()) continue;  // not ours to show
    e.h5_name = base_of(path);
    entries.push_back(std::move(e));
  }
  return xdmf_time_series(entries);
}

CheckpointWriter::CheckpointWriter(CheckpointOptions options) : options_(std::move(options)) {}

void CheckpointWriter::write(const Field& u, CheckpointMeta meta, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  mpi_check(MPI_Barrier(comm), "MPI_Barrier");
  double seconds = 0;
  const std::string& dir = options_.dir;
  const std::string path = checkpoint_path(dir, meta.step);
  const std::string tmp = path + ".tmp";
  try {
    ScopedTimer timer(seconds, "miniapp::checkpoint::write");
    meta.digest = summarize(u, meta.problem.grid, comm).digest;
    // Every rank writes the same attributes: rank 0's clock gives the time.
    meta.provenance.git_commit = options_.provenance.git_commit;
    meta.provenance.command_line = options_.provenance.command_line;
    char when[32] = {};
    if (rank == 0) utc_now().copy(when, sizeof when - 1);
    mpi_check(MPI_Bcast(when, int(sizeof when), MPI_CHAR, 0, comm), "MPI_Bcast(time)");
    meta.provenance.created_utc = when;
    // The directory may not exist yet, e.g. for a checkpoint written on a stop signal alone.
    all_or_none<CheckpointError>(comm, kAgreementGraceSeconds, [&] {
      if (rank == 0) make_dirs(dir);
    });
    write_field_file(tmp, u, meta, options_.tunables, comm, &spectrum_, options_.before_write);
    // Every rank flushes what it wrote through its own client (parallel file systems).
    all_or_none<CheckpointError>(comm, kAgreementGraceSeconds, [&] { fsync_path(tmp, false); });
    // All ranks are past the fsync (all_or_none agreed): publish the file under its name.
    all_or_none<CheckpointError>(comm, kAgreementGraceSeconds, [&] {
      if (rank != 0) return;
      rename_durably(tmp, path);
      write_text_durably(path.substr(0, path.size() - 3) + ".xmf", xdmf(meta, base_of(path)));
      keep_newest(dir, kPrefix, {".h5", ".xmf"}, options_.keep, meta.step);
      write_text_durably(time_series_path(dir), time_series_of(dir));
    });
  } catch (const CheckpointError& e) {
    throw CheckpointError("writing the checkpoint of step " + str(meta.step) + " failed: " +
                              e.what() + "; the previous checkpoints in " + dir + " are kept",
                          e.agreed());
  }
  double slowest = 0;
  mpi_check(MPI_Allreduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce");
  const Index3& g = meta.problem.grid;
  stats_.count += 1;
  stats_.bytes = 8.0 * double(g[0]) * g[1] * g[2];
  stats_.seconds_total += slowest;
  stats_.seconds_last = slowest;
  stats_.seconds_max = std::max(stats_.seconds_max, slowest);
}

}  // namespace miniapp
