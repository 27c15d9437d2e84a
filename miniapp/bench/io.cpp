// miniapp bench io: checkpoint write and read bandwidth against a raw sequential write and
// read of the same bytes in the same directory, same run. The checkpoint is the real thing
// (digest, parallel HDF5 collective write, fsync, rename, sidecar, pruning); the raw baseline
// is each rank pwrite()-ing its block, already packed, into one shared file at its offset,
// then fsync. Reads start with the files dropped from the page cache (fsync + fadvise
// DONTNEED), so they measure the device where the system allows it.
#include <fcntl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <vector>

#include "bench.hpp"
#include "checkpoint_writer.hpp"
#include "decomposition.hpp"
#include "initial_condition.hpp"
#include "mpi_utils.hpp"
#include "options.hpp"
#include "preflight.hpp"

namespace miniapp::bench {

namespace {

void check_posix(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error(what + ": " + std::strerror(errno));
}

/// Drop the clean pages of path from the page cache (best effort).
void drop_cache(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return;
  ::fdatasync(fd);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

/// Each rank writes its bytes at its offset of one shared file, then fsyncs. Returns the
/// slowest rank's seconds. Collective.
double raw_write(const std::string& path, const std::vector<double>& mine, std::int64_t offset,
                 MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    check_posix(fd >= 0, "create " + path);
    ::close(fd);
  }
  MPI_Barrier(comm);
  const double t0 = MPI_Wtime();
  const int fd = ::open(path.c_str(), O_WRONLY);
  check_posix(fd >= 0, "open " + path);
  const char* p = reinterpret_cast<const char*>(mine.data());
  std::size_t left = mine.size() * sizeof(double);
  off_t at = off_t(offset);
  while (left > 0) {
    const ssize_t n = ::pwrite(fd, p, left, at);
    check_posix(n > 0, "pwrite " + path);
    p += n, at += n, left -= std::size_t(n);
  }
  check_posix(::fsync(fd) == 0, "fsync " + path);
  ::close(fd);
  return reduce_stat(MPI_Wtime() - t0, comm).max;
}

double raw_read(const std::string& path, std::vector<double>& mine, std::int64_t offset,
                MPI_Comm comm) {
  MPI_Barrier(comm);
  const double t0 = MPI_Wtime();
  const int fd = ::open(path.c_str(), O_RDONLY);
  check_posix(fd >= 0, "open " + path);
  char* p = reinterpret_cast<char*>(mine.data());
  std::size_t left = mine.size() * sizeof(double);
  off_t at = off_t(offset);
  while (left > 0) {
    const ssize_t n = ::pread(fd, p, left, at);
    check_posix(n > 0, "pread " + path);
    p += n, at += n, left -= std::size_t(n);
  }
  ::close(fd);
  return reduce_stat(MPI_Wtime() - t0, comm).max;
}

}  // namespace

int io(int argc, char** argv, MPI_Comm comm) {
  int rank = 0, nranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nranks);
  std::vector<int> grid{256, 256, 256};
  int reps = 3;
  Config c;
  c.checkpoint_dir = "miniapp-bench-io";
  CLI::App app{
      "Checkpoint write/read bandwidth vs a raw pwrite+fsync / pread of the same bytes "
      "in the same directory. Prints medians and ratios.",
      "miniapp bench io"};
  app.option_defaults()->always_capture_default();
  app.add_option("--grid", grid, "global cells NX NY NZ")
      ->expected(3)
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--reps", reps, "repetitions (median reported)")->check(CLI::Range(1, 1000));
  app.add_option("--dir", c.checkpoint_dir, "directory to write in (created; files removed after)");
  app.add_option("--checkpoint-layout", c.checkpoint_layout, "contiguous|chunked")
      ->check(CLI::IsMember({"contiguous", "chunked"}));
  app.add_option("--checkpoint-alignment", c.checkpoint_alignment, "HDF5 alignment [bytes]")
      ->check(CLI::Range(std::int64_t(1), std::int64_t(1) << 40));
  app.add_option("--checkpoint-cb-nodes", c.checkpoint_cb_nodes, "MPI-IO hint cb_nodes");
  app.add_option("--checkpoint-cb-buffer", c.checkpoint_cb_buffer, "MPI-IO hint cb_buffer_size");
  app.add_option("--checkpoint-cb-write", c.checkpoint_cb_write, "automatic|enable|disable")
      ->check(CLI::IsMember({"automatic", "enable", "disable"}));
  if (const int status = parse_options(app, argc, argv, comm); status >= 0) return status;
  c.grid = {grid[0], grid[1], grid[2]};
  c.checkpoint_every = 1;
  c.checkpoint_keep = 1;
  preflight_checkpoints(c, comm);  // creates the directory, throws ConfigError if unwritable

  const Index3 dims = Decomposition::choose_dims(nranks, c.grid, {0, 0, 0}, 1);
  if (dims[0] == 0) throw ConfigError("no rank grid fits --grid");
  const Decomposition dec(comm, c.grid, dims, {true, true, true});
  Field u("miniapp::bench::io::u", dec.owned(), 1), v("miniapp::bench::io::v", dec.owned(), 1);
  fill_initial(u, c.problem().initial_condition());
  fill_initial(v, InitialCondition{});

  // The raw baseline's bytes: this rank's block packed, at offset (cells before it) * 8.
  std::vector<double> mine(std::size_t(dec.owned().count()));
  {
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), u.view());
    const Box in = u.interior();
    std::size_t p = 0;
    for (int k = in.lo[2]; k < in.hi[2]; ++k)
      for (int j = in.lo[1]; j < in.hi[1]; ++j)
        for (int i = in.lo[0]; i < in.hi[0]; ++i) mine[p++] = host(u.index(i, j, k));
  }
  std::int64_t count = dec.owned().count(), before = 0;
  MPI_Exscan(&count, &before, 1, MPI_INT64_T, MPI_SUM, comm);
  if (rank == 0) before = 0;
  const std::string raw = c.checkpoint_dir + "/raw.bin";
  const double bytes = 8.0 * double(c.grid[0]) * c.grid[1] * c.grid[2];

  CheckpointWriter writer(c.checkpoint_options());
  std::vector<double> t_ckpt_w, t_ckpt_r, t_raw_w, t_raw_r;
  for (int r = 0; r < reps; ++r) {
    // Alternate which goes first so both see the same machine state on average.
    for (int which = 0; which < 2; ++which) {
      if ((which + r) % 2 == 0) {
        writer.write(u, make_checkpoint_meta(c.problem(), r + 1, dims, c.halo_width), comm);
        t_ckpt_w.push_back(writer.stats().seconds_last);
        const std::string path = checkpoint_path(c.checkpoint_dir, r + 1);
        if (rank == 0) drop_cache(path);
        MPI_Barrier(comm);
        const double t0 = MPI_Wtime();
        read_field_file(path, v, c.grid, comm);
        t_ckpt_r.push_back(reduce_stat(MPI_Wtime() - t0, comm).max);
      } else {
        t_raw_w.push_back(raw_write(raw, mine, before * 8, comm));
        if (rank == 0) drop_cache(raw);
        t_raw_r.push_back(raw_read(raw, mine, before * 8, comm));
      }
    }
  }
  // What was read back is what was written.
  const std::uint64_t du = summarize(u, c.grid, comm).digest,
                      dv = summarize(v, c.grid, comm).digest;
  MPI_Barrier(comm);
  if (rank == 0) {
    std::remove(raw.c_str());
    std::remove(checkpoint_path(c.checkpoint_dir, reps).c_str());
    const std::string h5 = checkpoint_path(c.checkpoint_dir, reps);
    std::remove((h5.substr(0, h5.size() - 3) + ".xmf").c_str());
    ::rmdir(c.checkpoint_dir.c_str());  // only when empty (it may have existed before)
    const double cw = median(t_ckpt_w), cr = median(t_ckpt_r), rw = median(t_raw_w),
                 rr = median(t_raw_r);
    std::printf(
        "bench io: %d rank(s) = %d x %d x %d, grid %d x %d x %d (%.1f MB), %d rep(s), "
        "median of slowest rank, in %s\n",
        nranks, dims[0], dims[1], dims[2], c.grid[0], c.grid[1], c.grid[2], bytes / 1e6, reps,
        c.checkpoint_dir.c_str());
    std::printf("  checkpoint write  %8.3f s  %7.3f GB/s  (%s, digest + HDF5 + fsync + rename)\n",
                cw, bytes / cw / 1e9, c.checkpoint_layout.c_str());
    std::printf("  raw write+fsync   %8.3f s  %7.3f GB/s\n", rw, bytes / rw / 1e9);
    std::printf("  ratio checkpoint/raw write bandwidth  %.3f\n", rw / cw);
    std::printf("  checkpoint read   %8.3f s  %7.3f GB/s\n", cr, bytes / cr / 1e9);
    std::printf("  raw read          %8.3f s  %7.3f GB/s\n", rr, bytes / rr / 1e9);
    std::printf("  ratio checkpoint/raw read bandwidth   %.3f\n", rr / cr);
    std::printf("  read back %s\n", du == dv ? "identical (digest)" : "DIFFERENT");
  }
  return du == dv ? 0 : 1;
}

}  // namespace miniapp::bench
