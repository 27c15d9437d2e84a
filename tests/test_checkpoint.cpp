// Checkpoint round trips: a field written by one rank grid and halo width and read back by
// another equals the original bit for bit, the ghosts of the reader are untouched, and the
// file holds the global field in natural order u[z][y][x] (checked with serial HDF5 against
// the initial condition). Also: the metadata round trip, restart merging rules, and the
// writer's keep-K pruning.
#include <hdf5.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include "checkpoint_file.hpp"
#include "checkpoint_writer.hpp"
#include "decomposition.hpp"
#include "diagnostics.hpp"
#include "driver.hpp"
#include "durable_dir.hpp"
#include "restart.hpp"
#include "test_support.hpp"
#include "text.hpp"

namespace miniapp::test {
namespace {

constexpr double kSentinel = -12345.0;

/// A scratch directory name shared by all ranks (rank 0's pid), created by world rank 0.
std::string scratch_dir(const std::string& tag) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long pid = long(::getpid());
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  std::string dir = "checkpoint_test_" + tag + "_" + std::to_string(pid);
  if (rank == 0) ::mkdir(dir.c_str(), 0755);
  MPI_Barrier(MPI_COMM_WORLD);
  return dir;
}

void remove_dir(const std::string& dir) {
  MPI_Barrier(MPI_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) std::system(("rm -rf " + dir).c_str());
}

Decomposition make_decomp(MPI_Comm comm, const Index3& grid, const Index3& dims) {
  return Decomposition(comm, grid, dims, {true, true, true});
}

/// The global initial field, x fastest.
std::vector<double> expected_global(const InitialCondition& ic) {
  std::vector<double> g;
  for (int z = 0; z < ic.grid[2]; ++z)
    for (int y = 0; y < ic.grid[1]; ++y)
      for (int x = 0; x < ic.grid[0]; ++x) g.push_back(ic(x, y, z));
  return g;
}

/// Serial read of the whole dataset "field" (rank 0).
std::vector<double> read_serial(const std::string& path, hsize_t dims[3]) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t d = H5Dopen2(f, "field", H5P_DEFAULT);
  const hid_t s = H5Dget_space(d);
  H5Sget_simple_extent_dims(s, dims, nullptr);
  std::vector<double> all(dims[0] * dims[1] * dims[2]);
  EXPECT_GE(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, all.data()), 0);
  H5Sclose(s);
  H5Dclose(d);
  H5Fclose(f);
  return all;
}

TEST(Checkpoint, RoundTripAcrossRankGridsAndHaloWidthsIsBitwise) {
  const std::string dir = scratch_dir("roundtrip");
  const std::vector<Index3> grids = {{7, 6, 5}, {9, 4, 11}};
  const std::vector<Index3> rank_grids = {{1, 1, 1}, {2, 1, 1}, {1, 2, 2},
                                          {1, 3, 1}, {2, 2, 2}, {3, 1, 2}};
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  int cases = 0;
  for (const Index3& grid : grids) {
    Config c;
    c.grid = grid;
    c.seed = 7 + std::uint64_t(grid[0]);
    const InitialCondition ic = c.problem().initial_condition();
    const std::vector<double> expected = expected_global(ic);
    for (std::size_t w = 0; w < rank_grids.size(); ++w) {
      const Index3& pw = rank_grids[w];
      const int hw = 1 + int(w % 2);  // writer halo width 1 or 2
      const int npw = pw[0] * pw[1] * pw[2];
      if (npw > world_size()) continue;
      const std::string path = dir + "/rt_" + std::to_string(w) + ".h5";
      {
        CommHandle comm = first_ranks(npw);
        if (comm.get() != MPI_COMM_NULL) {
          const Decomposition dec = make_decomp(comm.get(), grid, pw);
          Field u("test::u", dec.owned(), hw);
          fill_initial(u, ic);
          CheckpointMeta meta = make_checkpoint_meta(c.problem(), 3, pw, hw);
          meta.digest = summarize(u, grid, comm.get()).digest;
          write_field_file(path, u, meta, CheckpointTunables{}, comm.get());
        }
      }
      MPI_Barrier(MPI_COMM_WORLD);
      if (world_rank == 0) {
        // Natural order in the file: dims [NZ][NY][NX], element (z, y, x) = ic(x, y, z).
        hsize_t dims[3] = {0, 0, 0};
        const std::vector<double> file = read_serial(path, dims);
        EXPECT_EQ(dims[0], hsize_t(grid[2]));
        EXPECT_EQ(dims[1], hsize_t(grid[1]));
        EXPECT_EQ(dims[2], hsize_t(grid[0]));
        EXPECT_EQ(first_bitwise_difference(file, expected), -1) << path;
        CheckpointMeta meta;
        EXPECT_EQ(probe_checkpoint_file(path, meta), "");
        EXPECT_EQ(meta.step, 3);
        EXPECT_EQ(meta.problem.grid, grid);
        EXPECT_EQ(meta.writer_ranks, pw);
        EXPECT_EQ(meta.problem.stencil, c.stencil);
        EXPECT_EQ(meta.problem.seed, c.seed);
      }
      for (std::size_t r = 0; r < rank_grids.size(); ++r) {
        const Index3& pr = rank_grids[r];
        const int npr = pr[0] * pr[1] * pr[2];
        if (npr > world_size()) continue;
        const int hr = 1 + int((r + 1) % 3);  // reader halo width 2, 3 or 1
        CommHandle comm = first_ranks(npr);
        if (comm.get() == MPI_COMM_NULL) continue;
        const Decomposition dec = make_decomp(comm.get(), grid, pr);
        Field v("test::v", dec.owned(), hr);
        Kokkos::deep_copy(v.view(), kSentinel);
        read_field_file(path, v, grid, comm.get());
        const std::vector<double> got = gather_global(v, grid, comm.get());
        // Ghosts untouched: every non-owned cell still holds the sentinel.
        auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v.view());
        long bad_ghosts = 0;
        const Box in = v.interior();
        for (int k = 0; k < v.ext()[2]; ++k)
          for (int j = 0; j < v.ext()[1]; ++j)
            for (int i = 0; i < v.ext()[0]; ++i)
              if (!in.contains(i, j, k) && host(v.index(i, j, k)) != kSentinel) ++bad_ghosts;
        EXPECT_EQ(bad_ghosts, 0);
        if (dec.rank() == 0) {
          EXPECT_EQ(first_bitwise_difference(got, expected), -1)
              << "grid " << grid[0] << "x" << grid[1] << "x" << grid[2] << " written by " << pw[0]
              << "x" << pw[1] << "x" << pw[2] << " h=" << hw << ", read by " << pr[0] << "x"
              << pr[1] << "x" << pr[2] << " h=" << hr;
          ++cases;
        }
      }
      MPI_Barrier(MPI_COMM_WORLD);
    }
  }
  if (world_rank == 0) EXPECT_GT(cases, 0);
  remove_dir(dir);
}

TEST(Checkpoint, ChunkedLayoutRoundTrips) {
  const std::string dir = scratch_dir("chunked");
  const Index3 grid{9, 7, 5};
  const int np = std::min(world_size(), 2);
  const Index3 dims{np, 1, 1};
  CommHandle comm = first_ranks(np);
  if (comm.get() != MPI_COMM_NULL) {
    Config c;
    c.grid = grid;
    const InitialCondition ic = c.problem().initial_condition();
    const Decomposition dec = make_decomp(comm.get(), grid, dims);
    Field u("test::u", dec.owned(), 1), v("test::v", dec.owned(), 2);
    fill_initial(u, ic);
    Kokkos::deep_copy(v.view(), kSentinel);
    CheckpointTunables t;
    t.chunked = true;
    t.alignment = 4096;
    const std::string path = dir + "/chunked.h5";
    write_field_file(path, u, make_checkpoint_meta(c.problem(), 0, dims, 1), t, comm.get());
    read_field_file(path, v, grid, comm.get());
    const std::vector<double> got = gather_global(v, grid, comm.get());
    if (dec.rank() == 0) EXPECT_EQ(first_bitwise_difference(got, expected_global(ic)), -1);
  }
  remove_dir(dir);
}

/// The HDF5 class of root attribute `name`, and whether it is a variable-length UTF-8 string.
std::pair<H5T_class_t, bool> attribute_type(const std::string& path, const char* name) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t a = H5Aopen(f, name, H5P_DEFAULT);
  const hid_t t = H5Aget_type(a);
  const std::pair<H5T_class_t, bool> r{
      H5Tget_class(t), H5Tis_variable_str(t) > 0 && H5Tget_cset(t) == H5T_CSET_UTF8};
  H5Tclose(t);
  H5Aclose(a);
  H5Fclose(f);
  return r;
}

TEST(Checkpoint, MetadataDescribesTheRunAndRoundTrips) {
  const std::string dir = scratch_dir("meta");
  Problem p;
  p.grid = {9, 7, 5};
  p.bc = {Boundary::Periodic, Boundary::Dirichlet, Boundary::Neumann};
  p.bc_value = 0.7;
  p.kappa = {1.0, 0.5, 0.25};
  p.dt = 0.07;
  p.spacing = {1.0, 2.0, 0.5};
  p.stencil = 27;
  p.init = InitKind::Sine;
  p.seed = 99;
  p.sine_mode = {2, 1, 3};
  const int np = std::min(world_size(), 2);
  const Index3 dims{np, 1, 1};
  CheckpointMeta written = make_checkpoint_meta(p, 12, dims, 2);
  written.provenance.git_commit = "0123456789abcdef0123456789abcdef01234567";
  written.provenance.command_line = "miniapp --label 'über 0.7 µs'";  // UTF-8 survives
  written.provenance.created_utc = "2024-05-01T12:00:00Z";
  const std::string path = dir + "/meta.h5";
  {
    CommHandle comm = first_ranks(np);
    if (comm.get() != MPI_COMM_NULL) {
      const Decomposition dec = make_decomp(comm.get(), p.grid, dims);
      Field u("test::u", dec.owned(), 2);
      fill_initial(u, p.initial_condition());
      written.digest = summarize(u, p.grid, comm.get()).digest;
      write_field_file(path, u, written, CheckpointTunables{}, comm.get());
    }
  }
  // Ranks beyond the writers compare with the writers' digest too.
  MPI_Bcast(&written.digest, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  // The coefficients are stored as the run computed them, in the documented order.
  const Coefficients a = p.coefficients();
  EXPECT_EQ(written.coefficients,
            (std::array<double, 3>{(1.0 * 0.07) / (1.0 * 1.0), (0.5 * 0.07) / (2.0 * 2.0),
                                   (0.25 * 0.07) / (0.5 * 0.5)}));
  EXPECT_EQ(written.coefficients, (std::array<double, 3>{a.ax, a.ay, a.az}));
  EXPECT_NE(run_definition(written).find("dt = 0.07\nco"), std::string::npos);
  EXPECT_NE(run_definition(written).find("stencil = 27\n"), std::string::npos);
  EXPECT_NE(run_definition(written).find("sine_mode_xyz = 2 1 3\n"), std::string::npos);

  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  CheckpointMeta read;
  if (rank == 0) {
    ASSERT_EQ(probe_checkpoint_file(path, read), "");
    EXPECT_EQ(attribute_type(path, "stencil").first, H5T_INTEGER);
    for (const char* name : {"init", "bc_xyz", "command_line", "digest", "run_definition"})
      EXPECT_TRUE(attribute_type(path, name).second) << name << " is not variable-length UTF-8";
  }
  broadcast(read, 0, MPI_COMM_WORLD);  // every rank checks what rank 0 read
  EXPECT_EQ(read.format, kCheckpointFormat);
  EXPECT_EQ(read.step, 12);
  EXPECT_EQ(read.time, 12 * 0.07);
  EXPECT_EQ(read.problem.grid, p.grid);
  EXPECT_EQ(read.problem.bc, p.bc);
  EXPECT_EQ(read.problem.bc_value, p.bc_value);
  EXPECT_EQ(read.problem.kappa, p.kappa);
  EXPECT_EQ(read.problem.dt, p.dt);
  EXPECT_EQ(read.problem.spacing, p.spacing);
  EXPECT_EQ(read.problem.stencil, 27);
  EXPECT_EQ(read.problem.init, InitKind::Sine);
  EXPECT_EQ(read.problem.seed, 99u);
  EXPECT_EQ(read.problem.sine_mode, p.sine_mode);
  EXPECT_EQ(read.coefficients, written.coefficients);
  EXPECT_EQ(read.halo_width, 2);
  EXPECT_EQ(read.writer_ranks, dims);
  EXPECT_EQ(read.digest, written.digest);
  EXPECT_EQ(read.provenance.miniapp_version, written.provenance.miniapp_version);
  EXPECT_EQ(read.provenance.git_commit, written.provenance.git_commit);
  EXPECT_EQ(read.provenance.command_line, written.provenance.command_line);
  EXPECT_EQ(read.provenance.created_utc, written.provenance.created_utc);
  remove_dir(dir);
}

TEST(Checkpoint, WriterKeepsTheNewestKCompleteFiles) {
  const std::string dir = scratch_dir("keep");
  Config c;
  c.grid = {6, 5, 4};
  c.checkpoint_dir = dir;
  c.checkpoint_keep = 2;
  c.checkpoint_every = 1;
  const int np = std::min(world_size(), 2);
  CommHandle comm = first_ranks(np);
  if (comm.get() != MPI_COMM_NULL) {
    const Index3 dims{1, np, 1};
    const Decomposition dec = make_decomp(comm.get(), c.grid, dims);
    Field u("test::u", dec.owned(), 1);
    fill_initial(u, c.problem().initial_condition());
    CheckpointOptions options = c.checkpoint_options();
    options.provenance.command_line = "miniapp --checkpoint-every 1";
    CheckpointWriter writer(options);
    for (int step = 1; step <= 4; ++step)
      writer.write(u, make_checkpoint_meta(c.problem(), step, dims, 1), comm.get());
    EXPECT_EQ(writer.stats().count, 4);
    const std::uint64_t digest = summarize(u, c.grid, comm.get()).digest;
    if (dec.rank() == 0) {
      for (int step = 1; step <= 4; ++step) {
        const std::string h5 = checkpoint_path(dir, step);
        const bool kept = step >= 3;
        EXPECT_EQ(::access(h5.c_str(), F_OK) == 0, kept) << h5;
        EXPECT_EQ(::access((h5.substr(0, h5.size() - 3) + ".xmf").c_str(), F_OK) == 0, kept);
        EXPECT_NE(::access((h5 + ".tmp").c_str(), F_OK), 0);
      }
      EXPECT_EQ(latest_checkpoint(dir), checkpoint_path(dir, 4));
      CheckpointMeta meta;
      EXPECT_EQ(probe_checkpoint_file(checkpoint_path(dir, 4), meta), "");
      EXPECT_EQ(meta.digest, digest);
      EXPECT_EQ(meta.provenance.command_line, "miniapp --checkpoint-every 1");
      EXPECT_EQ(meta.provenance.created_utc.size(), 20u) << meta.provenance.created_utc;
      // The time series lists exactly the kept checkpoints, each at its time.
      std::ifstream in(time_series_path(dir));
      const std::string series((std::istreambuf_iterator<char>(in)), {});
      EXPECT_NE(series.find("CollectionType=\"Temporal\""), std::string::npos);
      for (int step = 1; step <= 4; ++step) {
        const std::string name = base_of(checkpoint_path(dir, step)) + ":/field";
        EXPECT_EQ(series.find(name) != std::string::npos, step >= 3) << name;
        const std::string time = "<Time Value=\"" + str(step * c.dt) + "\"/>";
        EXPECT_EQ(series.find(time) != std::string::npos, step >= 3) << time;
      }
    }
  }
  remove_dir(dir);
}

TEST(Checkpoint, RestartTakesTheFileSettingsAndRefusesConflicts) {
  Config written;
  written.grid = {8, 6, 4};
  written.kappa = {0.5, 0.25, 0.125};
  written.bc = {Boundary::Dirichlet, Boundary::Periodic, Boundary::Neumann};
  written.bc_value = 2.5;
  written.dt = 0.05;
  const CheckpointMeta meta = make_checkpoint_meta(written.problem(), 40, {2, 1, 1}, 1);

  Config fresh;  // nothing given: everything comes from the file
  fresh.steps = 100;
  const Config merged = merge_restart_config(fresh, meta, "f.h5");
  EXPECT_EQ(merged.grid, written.grid);
  EXPECT_EQ(merged.kappa, written.kappa);
  EXPECT_EQ(merged.bc, written.bc);
  EXPECT_EQ(merged.bc_value, written.bc_value);
  EXPECT_EQ(merged.dt, written.dt);

  // Every setting that defines the run comes from the file, the sine mode too.
  Config sine = written;
  sine.init = InitKind::Sine;
  sine.sine_mode = {2, 1, 3};
  sine.stencil = 27;
  sine.seed = 5;
  const CheckpointMeta sine_meta = make_checkpoint_meta(sine.problem(), 40, {1, 1, 1}, 1);
  const Config taken = merge_restart_config(fresh, sine_meta, "f.h5");
  EXPECT_EQ(taken.init, InitKind::Sine);
  EXPECT_EQ(taken.sine_mode, sine.sine_mode);
  EXPECT_EQ(taken.stencil, 27);
  EXPECT_EQ(taken.seed, 5u);
  // A format-1 file does not record the sine mode: the config's stands.
  CheckpointMeta old = sine_meta;
  old.format = 1;
  Config mine = fresh;
  mine.sine_mode = {4, 4, 4};
  EXPECT_EQ(merge_restart_config(mine, old, "f.h5").sine_mode, mine.sine_mode);

  auto refused = [&](const Config& c, const std::string& needle) {
    try {
      merge_restart_config(c, meta, "f.h5");
    } catch (const ConfigError& e) {
      return std::string(e.what()).find(needle) != std::string::npos;
    }
    return false;
  };
  Config c = fresh;
  c.grid = {8, 6, 5};
  c.given.insert("--grid");
  EXPECT_TRUE(refused(c, "--grid 8 6 5 differs from the checkpoint's 8 6 4"));
  c = fresh;
  c.given.insert("--kappa");
  EXPECT_TRUE(refused(c, "--kappa 1 1 1 differs"));
  c = fresh;
  c.given.insert("--dt");
  EXPECT_TRUE(refused(c, "--dt 0.1 differs from the checkpoint's 0.05;"));
  c = fresh;
  c.given.insert("--bc");
  EXPECT_TRUE(refused(c, "--bc periodic periodic periodic differs"));
  c = fresh;
  c.steps = 39;
  EXPECT_TRUE(refused(c, "--steps=39 is below the checkpoint's step 40"));
  c = fresh;
  c.given.insert("--sine-mode");
  c.sine_mode = {2, 1, 3};
  EXPECT_TRUE(refused(c, "--sine-mode 2 1 3 differs from the checkpoint's 1 1 1"));
  c = fresh;
  c.given.insert("--init");
  c.init = InitKind::Sine;
  EXPECT_TRUE(refused(c, "--init sine differs from the checkpoint's random"));
  c = fresh;
  c.given.insert("--seed");
  c.seed = 7;
  EXPECT_TRUE(refused(c, "--seed 7 differs from the checkpoint's 42"));
  c = fresh;
  c.kappa = written.kappa;  // given and equal: fine
  c.given.insert("--kappa");
  EXPECT_FALSE(refused(c, ""));
}

TEST(Checkpoint, StopsEveryNStepsAndAtTheEnd) {
  Config c;
  c.steps = 25;
  c.checkpoint_every = 10;
  EXPECT_EQ(next_stop(c, 0), 10);
  EXPECT_EQ(next_stop(c, 10), 20);
  EXPECT_EQ(next_stop(c, 20), 25);
  EXPECT_EQ(next_stop(c, 13), 20);
  EXPECT_TRUE(checkpoint_due(c, 20));
  EXPECT_FALSE(checkpoint_due(c, 25));
  EXPECT_FALSE(checkpoint_due(c, 0));
  c.checkpoint_every = 0;
  EXPECT_EQ(next_stop(c, 0), 25);
  EXPECT_FALSE(checkpoint_due(c, 20));
}

}  // namespace
}  // namespace miniapp::test
