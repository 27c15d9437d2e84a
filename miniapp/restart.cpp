#include "restart.hpp"

#include <string>

#include "checkpoint_writer.hpp"
#include "diagnostics.hpp"
#include "mpi_utils.hpp"
#include "preflight.hpp"
#include "text.hpp"
#include "version.hpp"

namespace miniapp {

namespace {

bool same(double a, double b) { return a == b || (a != a && b != b); }

}  // namespace

Config merge_restart_config(const Config& config, const CheckpointMeta& meta,
                            const std::string& path) {
  Config c = config;
  const std::string where = "--restart " + path + ": ";
  const auto given = [&](const char* opt) { return config.given.count(opt) > 0; };
  // A given setting must agree with the file; values print as typed (shortest round trip).
  const auto agree = [&](const char* opt, bool same, const std::string& mine,
                         const std::string& file) {
    if (given(opt) && !same)
      throw ConfigError(where + opt + " " + mine + " differs from the checkpoint's " + file +
                        "; a restart continues the same problem (drop " + opt +
                        " to take the checkpoint's value, or start a new run)");
  };
  const Problem& f = meta.problem;
  const auto bc_text = [](const std::array<Boundary, 3>& bc) {
    return std::string(to_string(bc[0])) + " " + to_string(bc[1]) + " " + to_string(bc[2]);
  };
  const auto same3 = [](const std::array<double, 3>& a, const std::array<double, 3>& b) {
    return same(a[0], b[0]) && same(a[1], b[1]) && same(a[2], b[2]);
  };
  agree("--grid", c.grid == f.grid, joined(c.grid), joined(f.grid));
  agree("--spacing", same3(c.spacing, f.spacing), joined(c.spacing), joined(f.spacing));
  agree("--kappa", same3(c.kappa, f.kappa), joined(c.kappa), joined(f.kappa));
  agree("--dt", same(c.dt, f.dt), str(c.dt), str(f.dt));
  agree("--bc", c.bc == f.bc, bc_text(c.bc), bc_text(f.bc));
  agree("--bc-value", same(c.bc_value, f.bc_value), str(c.bc_value), str(f.bc_value));
  agree("--stencil", c.stencil == f.stencil, str(c.stencil), str(f.stencil));
  agree("--init", c.init == f.init, to_string(c.init), to_string(f.init));
  agree("--seed", c.seed == f.seed, str(c.seed), str(f.seed));
  c.grid = f.grid;
  c.spacing = f.spacing;
  c.kappa = f.kappa;
  c.dt = f.dt;
  c.bc = f.bc;
  c.bc_value = f.bc_value;
  c.stencil = f.stencil;
  c.init = f.init;
  c.seed = f.seed;
  if (meta.format >= 2) {  // older files do not record the sine mode: the config's stands
    agree("--sine-mode", c.sine_mode == f.sine_mode, joined(c.sine_mode), joined(f.sine_mode));
    c.sine_mode = f.sine_mode;
  }
  // How it is computed (rank grid, halo width and mode, blocking) is free: the answer is the
  // same bit for bit, and what fits depends on the ranks of this launch.
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
  broadcast(r.meta, 0, comm);
  r.config = merge_restart_config(config, r.meta, r.path);
  if (r.meta.format < 2)
    r.note = "--restart " + r.path + " was written by miniapp " +
             r.meta.provenance.miniapp_version +
             " (checkpoint format 1): its attributes carry no run digest, so edits to them go "
             "unnoticed, and it does not record --sine-mode (" +
             joined(r.config.sine_mode) + " is taken from the command line)";
  else if (r.config.stencil == 27 && r.meta.provenance.miniapp_version.rfind("0.1.", 0) == 0)
    r.note = "--restart " + r.path + " was written by miniapp " +
             r.meta.provenance.miniapp_version +
             ", whose 27-point stencil rounds differently "
             "from this version's (" +
             kVersion +
             "; the same stencil): the run continues the "
             "same problem, but not bit for bit as the uninterrupted run of " +
             r.meta.provenance.miniapp_version + " would";
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
