#include "restart.hpp"

#include <string>
#include <type_traits>

#include "checkpoint_writer.hpp"
#include "diagnostics.hpp"
#include "mpi_utils.hpp"
#include "preflight.hpp"
#include "text.hpp"

namespace miniapp {

namespace {

bool same(double a, double b) { return a == b || (a != a && b != b); }

}  // namespace

Config merge_restart_config(const Config& config, const CheckpointMeta& meta,
                            const std::string& path) {
  Config c = config;
  const std::string where = "--restart " + path + ": ";
  const auto given = [&](const char* opt) { return config.given.count(opt) > 0; };
  auto conflict = [&](const char* opt, const std::string& mine, const std::string& file) {
    throw ConfigError(where + opt + " " + mine + " differs from the checkpoint's " + file +
                      "; a restart continues the same problem (drop " + opt +
                      " to take the checkpoint's value, or start a new run)");
  };
  const Problem& f = meta.problem;
  if (given("--grid") && c.grid != f.grid) conflict("--grid", joined(c.grid), joined(f.grid));
  c.grid = f.grid;
  const auto bc_text = [](const std::array<Boundary, 3>& bc) {
    return std::string(to_string(bc[0])) + " " + to_string(bc[1]) + " " + to_string(bc[2]);
  };
  for (int d = 0; d < 3; ++d) {
    if (given("--spacing") && !same(c.spacing[d], f.spacing[d]))
      conflict("--spacing", joined(c.spacing), joined(f.spacing));
    if (given("--kappa") && !same(c.kappa[d], f.kappa[d]))
      conflict("--kappa", joined(c.kappa), joined(f.kappa));
    if (given("--bc") && c.bc[d] != f.bc[d]) conflict("--bc", bc_text(c.bc), bc_text(f.bc));
  }
  if (given("--dt") && !same(c.dt, f.dt)) conflict("--dt", str(c.dt), str(f.dt));
  if (given("--bc-value") && !same(c.bc_value, f.bc_value))
    conflict("--bc-value", str(c.bc_value), str(f.bc_value));
  if (given("--stencil") && c.stencil != f.stencil)
    conflict("--stencil", str(c.stencil), str(f.stencil));
  c.stencil = f.stencil;
  c.spacing = f.spacing;
  c.kappa = f.kappa;
  c.bc = f.bc;
  c.dt = f.dt;
  c.bc_value = f.bc_value;
  c.init = f.init;  // for the record: the field comes from the file
  c.seed = f.seed;
  if (c.steps < meta.step)
    throw ConfigError(where + "--steps=" + str(c.steps) + " is below the checkpoint's step " +
                      str(meta.step) + " (--steps counts from step 0: the run continues to it)");
  return c;
}

Restart prepare_restart(const Config& config, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  Restart r;
  std::string err;
  if (rank == 0) {
    r.path = config.restart == "latest" ? latest_checkpoint(config.checkpoint_dir) : config.restart;
    if (r.path.empty())
      err = "--restart latest: no complete checkpoint (checkpoint_*.h5) in --checkpoint-dir " +
            config.checkpoint_dir;
    else if (const std::string why = probe_checkpoint_file(r.path, r.meta); !why.empty())
      err = "--restart " + r.path + ": " + why;
  }
  throw_if_root_failed(err, comm);
  int len = int(r.path.size());
  mpi_check(MPI_Bcast(&len, 1, MPI_INT, 0, comm), "MPI_Bcast");
  r.path.resize(std::size_t(len));
  mpi_check(MPI_Bcast(r.path.data(), len, MPI_CHAR, 0, comm), "MPI_Bcast");
  static_assert(std::is_trivially_copyable<CheckpointMeta>::value, "broadcast as bytes");
  mpi_check(MPI_Bcast(&r.meta, int(sizeof r.meta), MPI_BYTE, 0, comm), "MPI_Bcast");
  r.config = merge_restart_config(config, r.meta, r.path);
  return r;
}

void load_restart(const Restart& r, TimeStepper& stepper) {
  const MPI_Comm comm = stepper.decomposition().comm();
  read_field_file(r.path, stepper.field(), r.config.grid, comm);
  const std::uint64_t digest = stepper.summary().digest;
  if (digest != r.meta.digest)
    throw ConfigError("--restart " + r.path + ": the data's digest " + digest_hex(digest) +
                      " does not match the file's digest attribute " + digest_hex(r.meta.digest) +
                      ": the file is damaged");
}

}  // namespace miniapp
