#include "preflight.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__)
#include <linux/magic.h>
#include <sys/vfs.h>
#endif

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "durable_dir.hpp"
#include "fft.hpp"
#include "memory.hpp"
#include "mpi_utils.hpp"

namespace miniapp {

double estimated_bytes_per_rank(const Config& config, const Index3& dims) {
  double cells = 1, face = 0;
  for (int d = 0; d < 3; ++d) {
    const std::int64_t block = (std::int64_t(config.grid[d]) + dims[d] - 1) / dims[d];  // ceil
    const double n = double(block) + 2.0 * config.halo_width;
    cells *= n;
  }
  for (int d = 0; d < 3; ++d) {
    const std::int64_t block = (std::int64_t(config.grid[d]) + dims[d] - 1) / dims[d];  // ceil
    const double n = double(block) + 2.0 * config.halo_width;
    face += 4.0 * config.halo_width * cells / n;  // send + receive buffers, both sides
  }
  return 8.0 * (2.0 * cells + face) + estimated_fft_bytes_per_rank(config, dims);
}

double estimated_fft_bytes_per_rank(const Config& config, const Index3& dims) {
  if (!config.spectral()) return 0;
  return DistributedFft::estimate_bytes(config.grid, dims, config.fft_options());
}

namespace {

/// One field's owned cells (no ghosts) of the largest block, in bytes.
double field_bytes(const Config& config, const Index3& dims) {
  double cells = 1;
  for (int d = 0; d < 3; ++d) {
    const std::int64_t largest = (std::int64_t(config.grid[d]) + dims[d] - 1) / dims[d];
    cells *= double(largest);
  }
  return 8.0 * cells;
}

/// Create, write (one byte, synced) and remove a probe file in dir: permission bits say yes to
/// root on read-only file systems and in /proc. "" when that worked, else why not.
std::string write_probe(std::string dir) {
  if (dir.empty() || dir.back() != '/') dir += '/';
  std::string probe = dir + ".miniapp-probe-XXXXXX";
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) return std::strerror(errno);
  const bool ok = ::write(fd, "x", 1) == 1 && ::fsync(fd) == 0;
  std::string why = ok ? "" : std::strerror(errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return why;
}

}  // namespace

std::string check_writable_file(const std::string& path) {
  if (path.empty()) return "";
  struct stat st {};
  if (stat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) return path + " exists and is not a regular file";
#if defined(__linux__)
    // The kernel's pseudo files open for writing as root and refuse the write itself, which
    // would come after the whole run.
    struct statfs fs {};
    if (statfs(path.c_str(), &fs) == 0 &&
        (fs.f_type == PROC_SUPER_MAGIC || fs.f_type == SYSFS_MAGIC))
      return path +
             " is a file of the kernel's (/proc or /sys), not one a report can be written to";
#endif
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return path + " is not writable: " + std::strerror(errno);
    ::close(fd);
    return "";
  }
  const auto slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return "directory " + dir + " of " + path + " does not exist";
  if (const std::string why = write_probe(dir); !why.empty())
    return "directory " + dir + " of " + path + " is not writable: " + why;
  return "";
}

void throw_if_root_failed(const std::string& root_error, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int len = rank == 0 ? int(root_error.size()) : 0;
  mpi_check(MPI_Bcast(&len, 1, MPI_INT, 0, comm), "MPI_Bcast");
  if (len == 0) return;
  std::string text = rank == 0 ? root_error : std::string(std::size_t(len), ' ');
  mpi_check(MPI_Bcast(text.data(), len, MPI_CHAR, 0, comm), "MPI_Bcast");
  throw ConfigError(text);
}

MemoryEstimate preflight(const Config& config, MPI_Comm comm) {
  int nranks = 1, rank = 0;
  MPI_Comm_size(comm, &nranks);
  MPI_Comm_rank(comm, &rank);
  config.validate();
  config.validate_for(nranks);
  const Index3 dims = resolve_rank_grid(config, nranks);

  // Memory: what the ranks on this node need against what the node has available.
  const int node_ranks = place_on_node(comm).size;
  const double need = estimated_bytes_per_rank(config, dims);
  const double avail = available_memory_bytes();
  double worst = avail > 0 ? need * node_ranks / avail : 0.0;
  double worst_all = 0;
  mpi_check(MPI_Allreduce(&worst, &worst_all, 1, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce");
  MemoryEstimate estimate;
  estimate.bytes_per_rank = need;
  estimate.fft_bytes_per_rank = estimated_fft_bytes_per_rank(config, dims);
  estimate.field_bytes_per_rank = field_bytes(config, dims);
  mpi_check(MPI_Allreduce(&node_ranks, &estimate.node_ranks, 1, MPI_INT, MPI_MAX, comm),
            "MPI_Allreduce");
  const double avail_or_max = avail > 0 ? avail : 1e300;
  mpi_check(MPI_Allreduce(&avail_or_max, &estimate.available_bytes, 1, MPI_DOUBLE, MPI_MIN, comm),
            "MPI_Allreduce");
  if (estimate.available_bytes >= 1e300) estimate.available_bytes = 0;
  if (worst_all > 0.9) {
    std::ostringstream os;
    os.precision(3);
    os << "--grid " << config.grid[0] << " " << config.grid[1] << " " << config.grid[2]
       << " needs about " << need / 1e9 << " GB per rank (" << need * node_ranks / 1e9
       << " GB for the " << node_ranks << " rank(s) on a node), more than 90% of the "
       << avail / 1e9 << " GB available; use more nodes or a smaller grid";
    throw ConfigError(os.str());
  }

  throw_if_root_failed(rank == 0 ? check_writable_file(config.report_path) : "", comm);
  std::string spectrum_error;
  if (rank == 0 && config.spectral_every > 0)
    if (const std::string why = check_writable_file(config.spectrum_file); !why.empty())
      spectrum_error = "--spectrum-file: cannot write " + config.spectrum_file + ": " + why;
  throw_if_root_failed(spectrum_error, comm);
  return estimate;
}

void preflight_checkpoints(const Config& config, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string err;
  if (rank == 0 && config.checkpoint_every > 0) {
    const std::string& dir = config.checkpoint_dir;
    try {
      make_dirs(dir);
      struct stat st {};
      if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        throw std::runtime_error("not a directory");
      if (const std::string why = write_probe(dir); !why.empty())
        throw std::runtime_error("cannot write in it: " + why);
    } catch (const std::exception& e) {
      err = "--checkpoint-dir " + dir + ": " + e.what();
    }
  }
  throw_if_root_failed(err, comm);
}

}  // namespace miniapp
