#include "report.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "json.hpp"
#include "memory.hpp"
#include "stop_signal.hpp"
#include "version.hpp"

namespace miniapp {

Stat reduce_stat(double value, MPI_Comm comm) {
  int n = 1;
  MPI_Comm_size(comm, &n);
  Stat s;
  mpi_check(MPI_Allreduce(&value, &s.min, 1, MPI_DOUBLE, MPI_MIN, comm), "MPI_Allreduce");
  mpi_check(MPI_Allreduce(&value, &s.max, 1, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce");
  mpi_check(MPI_Allreduce(&value, &s.avg, 1, MPI_DOUBLE, MPI_SUM, comm), "MPI_Allreduce");
  s.avg /= n;
  return s;
}

RunReport make_report(const Simulation& sim, const Verification& verification) {
  const MPI_Comm comm = sim.decomposition().comm();
  RunReport r;
  r.config = sim.config();
  if (const TemporalBlocking* tb = sim.temporal_blocking()) r.config.tile = tb->tile();  // resolved
  r.dims = sim.decomposition().dims();
  r.dims_chosen = sim.config().ranks != r.dims;
  r.nranks = sim.decomposition().size();
  r.threads = Exec().concurrency();
  r.steps = sim.steps_done();
  const PhaseTimes& t = sim.times();
  const HaloCounters& h = sim.halo().counters();
  r.loop = reduce_stat(t.loop, comm);
  r.stencil = reduce_stat(t.stencil, comm);
  r.halo = reduce_stat(t.halo, comm);
  r.pack = reduce_stat(h.pack, comm);
  r.wait = reduce_stat(h.wait, comm);
  r.unpack = reduce_stat(h.unpack, comm);
  r.boundary = reduce_stat(h.boundary, comm);
  // Issue 7: rates count only the timed steps; the driver ran config.warmup untimed ones first.
  const std::int64_t warmup = std::min<std::int64_t>(r.config.warmup, r.steps);
  const double steps = r.steps - warmup > 0 ? double(r.steps - warmup) : 1.0;
  r.messages_per_step = reduce_stat(double(h.messages) / steps, comm);
  r.bytes_per_step = reduce_stat(double(h.bytes) / steps, comm);
  r.redundant_per_step = reduce_stat(double(t.redundant) / steps, comm);
  r.hidden = reduce_stat(t.hidden, comm);
  r.refill = reduce_stat(t.refill, comm);
  r.start = reduce_stat(h.start, comm);
  const double cells = double(r.config.grid[0]) * r.config.grid[1] * r.config.grid[2];
  r.cell_updates_per_second = r.loop.max > 0 ? cells * double(r.steps - warmup) / r.loop.max : 0.0;
  r.summary = sim.summary();
  r.verification = verification;
  // Procurement (issue 7)
  r.build = build_info();
  r.fom = figure_of_merit(cells, warmup, r.steps - warmup, r.loop.max, count_nodes(comm));
  r.peak_rss = reduce_stat(peak_resident_bytes(), comm);
  return r;
}

namespace {

std::string fmt(double v, const char* f = "%.6g") {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string triple(const Index3& v, const char* sep = " x ") {
  return std::to_string(v[0]) + sep + std::to_string(v[1]) + sep + std::to_string(v[2]);
}

/// The whole text of a (small) input file, "" when there is none. Issue 7.
std::string read_text_file(const std::string& path) {
  if (path.empty()) return "";
  std::ifstream in(path);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

}  // namespace

void print_report(std::ostream& os, const RunReport& r) {
  const Config& c = r.config;
  const Coefficients a = c.coefficients();
  os << "miniapp " << kVersion << ": " << (c.two_d() ? "2D" : "3D") << " diffusion, " << c.stencil
     << "-point stencil\n";
  os << "  grid          " << triple(c.grid) << " cells, bc x=" << to_string(c.bc[0])
     << " y=" << to_string(c.bc[1]) << " z=" << to_string(c.bc[2]) << " (dirichlet value "
     << fmt(c.bc_value) << ")\n";
  os << "  ranks         " << r.nranks << " = " << triple(r.dims)
     << (r.dims_chosen ? " (chosen: smallest halo surface)" : " (as given)") << ", " << r.threads
     << " thread(s) per rank\n";
  os << "  coefficients  ax=" << fmt(a.ax) << " ay=" << fmt(a.ay) << " az=" << fmt(a.az)
     << " (dt=" << fmt(c.dt) << " s), init " << to_string(c.init) << ", " << r.steps << " steps\n";
  os << "  halo          " << to_string(c.halo_mode) << " ("
     << (c.halo_mode == HaloMode::NeighborColl ? "subarray datatypes"
                                               : std::string("pack ") + to_string(c.pack))
     << (c.overlap ? ", overlap" : "") << "), width " << c.halo_width << ": "
     << fmt(r.messages_per_step.min, "%.2f") << "/" << fmt(r.messages_per_step.avg, "%.2f") << "/"
     << fmt(r.messages_per_step.max, "%.2f") << " messages, " << fmt(r.bytes_per_step.min, "%.0f")
     << "/" << fmt(r.bytes_per_step.avg, "%.0f") << "/" << fmt(r.bytes_per_step.max, "%.0f")
     << " B per step per rank (min/avg/max)\n";
  if (c.temporal_blocking)
    os << "  blocking      temporal, " << c.halo_width << " sub-steps per round, tile "
       << triple(c.tile) << " owned cells\n";
  os << "  redundant     " << fmt(r.redundant_per_step.min, "%.0f") << "/"
     << fmt(r.redundant_per_step.avg, "%.0f") << "/" << fmt(r.redundant_per_step.max, "%.0f")
     << " extra cell updates per step per rank (min/avg/max; deep halo)\n";
  os << "  time [s]           min          avg          max\n";
  auto row = [&](const char* name, const Stat& s) {
    os << "    " << std::left << std::setw(12) << name << std::right << fmt(s.min, "%12.6f") << " "
       << fmt(s.avg, "%12.6f") << " " << fmt(s.max, "%12.6f") << "\n";
  };
  row("stencil", r.stencil);
  row("pack", r.pack);
  row("mpi wait", r.wait);
  row("unpack", r.unpack);
  row("boundary", r.boundary);
  row("mpi start", r.start);
  row("refill", r.refill);
  if (c.overlap) row("comm hidden", r.hidden);
  row("loop", r.loop);
  os << "  throughput    " << fmt(r.cell_updates_per_second, "%.4e")
     << " cell updates/s (global cells x steps / slowest rank's loop time)\n";
  os << "  field         sum " << fmt(r.summary.sum, "%.17g") << "  l2 "
     << fmt(r.summary.l2, "%.17g") << "  min " << fmt(r.summary.min, "%.6g") << "  max "
     << fmt(r.summary.max, "%.6g") << "\n";
  // Checkpoints and restart (src/checkpoint.*)
  if (!r.restart_path.empty())
    os << "  restart       from " << r.restart_path << " at step " << r.restart_step << "\n";
  if (r.checkpoints.count > 0)
    os << "  checkpoints   " << r.checkpoints.count << " x "
       << fmt(r.checkpoints.bytes / 1e6, "%.1f") << " MB in " << c.checkpoint_dir << ": "
       << fmt(r.checkpoints.seconds_total / r.checkpoints.count, "%.4f") << " s each (max "
       << fmt(r.checkpoints.seconds_max, "%.4f") << " s), " << fmt(r.checkpoints.gbps(), "%.3f")
       << " GB/s write\n";
  os << "  memory        peak RSS " << fmt(r.peak_rss.min / 1e6, "%.1f") << "/"
     << fmt(r.peak_rss.max / 1e6, "%.1f") << " MB per rank (min/max); estimate "
     << fmt(r.memory_estimate.bytes_per_rank / 1e6, "%.3g")
     << " MB per rank for fields and halo buffers\n";
  const Interruption& stop = r.interruption;
  if (stop.signal != 0)  // no checkpoint: stopped before the first step
    os << "  interrupted   by " << signal_name(stop.signal)
       << (stop.checkpoint.empty() ? " before the first step (step " : " at step ") << stop.step
       << " of " << c.steps
       << (stop.checkpoint.empty() ? "); no checkpoint written" : "; checkpoint " + stop.checkpoint)
       << "\n"
       << "  continue with " << stop.continue_with << "\n";
  if (r.verification.requested) {
    os << "  verification  max |u - exact| = " << fmt(r.verification.max_error, "%.3e")
       << " (tolerance " << fmt(r.verification.tolerance, "%.1e") << ")\n";
    os << (r.verification.passed ? "VERIFICATION PASSED\n" : "VERIFICATION FAILED\n");
  }
  os << "digest " << digest_hex(r.summary.digest) << "\n";

  // Procurement (issue 7): the figure of merit, always next to its verdict.
  const Validation& v = r.validation;
  for (const Check& c : v.checks)
    os << "  check " << std::left << std::setw(8) << c.name << std::right
       << (c.passed ? "passed: " : "FAILED: ") << c.detail << "\n";
  os << "FOM " << fmt(r.fom.cell_updates_per_second, "%.4e") << " cell updates/s ("
     << fmt(r.fom.cell_updates_per_second_per_node, "%.4e") << " per node, " << r.fom.nodes
     << " node(s); " << r.fom.timed_steps << " timed steps after " << r.fom.warmup_steps
     << " warm-up)"
     << (v.verdict == Verdict::Valid         ? ""
         : v.verdict == Verdict::Invalid     ? " -- INVALID, does not count"
         : v.verdict == Verdict::Interrupted ? " -- INTERRUPTED (partial run), does not count"
                                             : " -- not validated")
     << "\n";
  os << "RESULT " << to_string(v.verdict) << " (" << v.reason << ")\n";
}

std::string report_json(const RunReport& r) {
  const Config& c = r.config;
  const Coefficients a = c.coefficients();
  JsonWriter j;
  j.begin_object();
  j.value("miniapp_version", kVersion);
  j.begin_object("config");
  j.begin_array("grid");
  for (int v : c.grid) j.element(v);
  j.end_array();
  j.begin_array("ranks");
  for (int v : r.dims) j.element(v);
  j.end_array();
  j.begin_array("bc");
  for (Boundary b : c.bc) j.element(to_string(b));
  j.end_array();
  j.value("bc_value", c.bc_value);
  j.begin_array("kappa");
  for (double v : c.kappa) j.element(v);
  j.end_array();
  j.value("dt", c.dt);
  j.begin_array("spacing");
  for (double v : c.spacing) j.element(v);
  j.end_array();
  j.begin_array("coefficients");
  j.element(a.ax).element(a.ay).element(a.az);
  j.end_array();
  j.value("steps", r.steps);
  j.value("init", to_string(c.init));
  j.value("seed", std::int64_t(c.seed));
  j.value("halo_width", c.halo_width);
  // Issue 7: the rest of the resolved configuration.
  j.begin_array("sine_mode");
  for (int v : c.sine_mode) j.element(v);
  j.end_array();
  j.value("verify", c.verify);
  j.value("warmup", c.warmup);
  j.value("expect_digest", c.expect_digest);
  j.value("progress", c.progress);
  j.value("report", c.report_path);
  j.value("label", c.label);
  j.value("stencil", c.stencil);
  j.value("halo_mode", to_string(c.halo_mode));
  j.value("pack", to_string(c.pack));
  j.value("overlap", c.overlap);
  j.value("temporal_blocking", c.temporal_blocking);
  j.begin_array("tile");
  for (int v : c.tile) j.element(v);
  j.end_array();
  j.value("two_d", c.two_d());
  j.end_object();
  j.value("nranks", r.nranks);
  j.value("threads_per_rank", r.threads);
  j.begin_object("timings_seconds");
  auto stat = [&](const char* name, const Stat& s) {
    j.begin_object(name).value("min", s.min).value("avg", s.avg).value("max", s.max).end_object();
  };
  stat("loop", r.loop);
  stat("stencil", r.stencil);
  stat("halo", r.halo);
  stat("pack", r.pack);
  stat("mpi_wait", r.wait);
  stat("unpack", r.unpack);
  stat("boundary", r.boundary);
  stat("mpi_start", r.start);
  stat("refill", r.refill);
  stat("comm_hidden", r.hidden);
  j.end_object();
  j.begin_object("halo_per_step_per_rank");
  stat("messages", r.messages_per_step);
  stat("bytes", r.bytes_per_step);
  stat("redundant_updates", r.redundant_per_step);
  j.end_object();
  j.value("cell_updates_per_second", r.cell_updates_per_second);
  j.begin_object("field");
  j.value("digest", digest_hex(r.summary.digest));
  j.value("sum", r.summary.sum);
  j.value("l2", r.summary.l2);
  j.value("min", r.summary.min);
  j.value("max", r.summary.max);
  j.end_object();
  // Checkpoints and restart (src/checkpoint.*)
  if (!r.restart_path.empty())
    j.begin_object("restart")
        .value("path", r.restart_path)
        .value("step", r.restart_step)
        .end_object();
  if (r.checkpoints.count > 0) {
    j.begin_object("checkpoints");
    j.value("count", r.checkpoints.count);
    j.value("bytes_each", r.checkpoints.bytes);
    j.value("seconds_total", r.checkpoints.seconds_total);
    j.value("seconds_max", r.checkpoints.seconds_max);
    j.value("write_gb_per_s", r.checkpoints.gbps());
    j.end_object();
  }
  // Runtime reliability (issue 8)
  j.begin_object("memory");
  stat("peak_rss_bytes", r.peak_rss);
  j.value("estimate_bytes_per_rank", r.memory_estimate.bytes_per_rank);
  j.value("node_ranks", r.memory_estimate.node_ranks);
  j.value("available_bytes_per_node", r.memory_estimate.available_bytes);
  j.end_object();
  if (r.interruption.signal != 0)
    j.begin_object("interrupted")
        .value("signal", signal_name(r.interruption.signal))
        .value("step", r.interruption.step)
        .value("steps", c.steps)
        .value("checkpoint", r.interruption.checkpoint)
        .value("continue_with", r.interruption.continue_with)
        .end_object();
  if (r.verification.requested) {
    j.begin_object("verification");
    j.value("passed", r.verification.passed);
    j.value("max_error", r.verification.max_error);
    j.value("tolerance", r.verification.tolerance);
    j.end_object();
  }

  // Procurement (issue 7): see scripts/report.schema.json.
  j.value("schema_version", kReportSchemaVersion);
  j.value("label", c.label);
  j.begin_object("build");
  j.value("version", r.build.version);
  j.value("git_describe", r.build.git_describe);
  j.value("git_commit", r.build.git_commit);
  j.value("compiler_id", r.build.compiler_id);
  j.value("compiler_version", r.build.compiler_version);
  j.value("build_type", r.build.build_type);
  j.value("cxx_flags", r.build.cxx_flags);
  j.value("extra_flags", r.build.extra_flags);
  j.value("kokkos_version", r.build.kokkos_version);
  j.value("kokkos_backend", r.build.kokkos_backend);
  j.value("mpi_library", r.build.mpi_library);
  j.value("mpi_standard", r.build.mpi_standard);
  j.value("hdf5_version", r.build.hdf5_version);
  j.end_object();
  j.begin_object("placement");
  j.value("nodes", r.fom.nodes);
  j.value("ranks", r.nranks);
  j.value("threads_per_rank", r.threads);
  j.begin_array("bindings");
  for (const RankBinding& b : r.bindings) {
    j.begin_object().value("rank", b.rank).value("host", b.host);
    j.value("cpus", cpu_list_string(b.cpus)).value("ncpus", int(b.cpus.size()));
    j.begin_array("threads");
    for (const std::vector<int>& t : b.thread_cpus) j.element(cpu_list_string(t));
    j.end_array().end_object();
  }
  j.end_array();
  j.begin_array("warnings");
  for (const std::string& w : r.binding_warnings) j.element(w);
  j.end_array();
  j.end_object();
  j.value("command_line", c.command_line);
  j.value("config_file", c.config_path);
  j.value("config_file_text", read_text_file(c.config_path));
  j.begin_object("figure_of_merit");
  j.value("name", "cell updates per second");
  j.value("units", "cell updates/s");
  j.value("value", r.fom.cell_updates_per_second);
  j.value("per_node", r.fom.cell_updates_per_second_per_node);
  j.value("nodes", r.fom.nodes);
  j.value("warmup_steps", r.fom.warmup_steps);
  j.value("timed_steps", r.fom.timed_steps);
  j.value("timed_seconds", r.fom.seconds);
  j.value("validated", r.validation.verdict == Verdict::Valid);
  j.end_object();
  j.begin_object("validation");
  j.value("verdict", to_string(r.validation.verdict));
  j.value("reason", r.validation.reason);
  j.begin_array("checks");
  for (const Check& ch : r.validation.checks)
    j.begin_object()
        .value("name", ch.name)
        .value("passed", ch.passed)
        .value("detail", ch.detail)
        .end_object();
  j.end_array();
  j.end_object();
  j.end_object();
  return j.str();
}

}  // namespace miniapp
