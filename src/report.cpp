#include "report.hpp"

#include <cstdio>
#include <iomanip>
#include <sstream>

#include "json.hpp"
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
  const double steps = r.steps > 0 ? double(r.steps) : 1.0;
  r.messages_per_step = reduce_stat(double(h.messages) / steps, comm);
  r.bytes_per_step = reduce_stat(double(h.bytes) / steps, comm);
  r.redundant_per_step = reduce_stat(double(t.redundant) / steps, comm);
  r.hidden = reduce_stat(t.hidden, comm);
  r.refill = reduce_stat(t.refill, comm);
  r.start = reduce_stat(h.start, comm);
  const double cells = double(r.config.grid[0]) * r.config.grid[1] * r.config.grid[2];
  r.cell_updates_per_second = r.loop.max > 0 ? cells * double(r.steps) / r.loop.max : 0.0;
  r.summary = sim.summary();
  r.verification = verification;
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

}  // namespace

void print_report(std::ostream& os, const RunReport& r) {
  const Config& c = r.config;
  const Coefficients a = c.coefficients();
  os << "miniapp " << kVersion << ": " << (c.two_d() ? "2D" : "3D") << " diffusion, "
     << c.stencil << "-point stencil\n";
  os << "  grid          " << triple(c.grid) << " cells, bc x=" << to_string(c.bc[0])
     << " y=" << to_string(c.bc[1]) << " z=" << to_string(c.bc[2]) << " (dirichlet value "
     << fmt(c.bc_value) << ")\n";
  os << "  ranks         " << r.nranks << " = " << triple(r.dims)
     << (r.dims_chosen ? " (chosen: smallest halo surface)" : " (as given)") << ", "
     << r.threads << " thread(s) per rank\n";
  os << "  coefficients  ax=" << fmt(a.ax) << " ay=" << fmt(a.ay) << " az=" << fmt(a.az)
     << " (dt=" << fmt(c.dt) << " s), init " << to_string(c.init) << ", " << r.steps
     << " steps\n";
  os << "  halo          " << to_string(c.halo_mode) << " ("
     << (c.halo_mode == HaloMode::NeighborColl ? "subarray datatypes"
                                                : std::string("pack ") + to_string(c.pack))
     << (c.overlap ? ", overlap" : "") << "), width " << c.halo_width << ": "
     << fmt(r.messages_per_step.min, "%.2f") << "/" << fmt(r.messages_per_step.avg, "%.2f") << "/"
     << fmt(r.messages_per_step.max, "%.2f") << " messages, "
     << fmt(r.bytes_per_step.min, "%.0f") << "/" << fmt(r.bytes_per_step.avg, "%.0f") << "/"
     << fmt(r.bytes_per_step.max, "%.0f") << " B per step per rank (min/avg/max)\n";
  os << "  redundant     " << fmt(r.redundant_per_step.min, "%.0f") << "/"
     << fmt(r.redundant_per_step.avg, "%.0f") << "/" << fmt(r.redundant_per_step.max, "%.0f")
     << " extra cell updates per step per rank (min/avg/max; deep halo)\n";
  os << "  time [s]           min          avg          max\n";
  auto row = [&](const char* name, const Stat& s) {
    os << "    " << std::left << std::setw(12) << name << std::right << fmt(s.min, "%12.6f")
       << " " << fmt(s.avg, "%12.6f") << " " << fmt(s.max, "%12.6f") << "\n";
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
  if (r.verification.requested) {
    os << "  verification  max |u - exact| = " << fmt(r.verification.max_error, "%.3e")
       << " (tolerance " << fmt(r.verification.tolerance, "%.1e") << ")\n";
    os << (r.verification.passed ? "VERIFICATION PASSED\n" : "VERIFICATION FAILED\n");
  }
  os << "digest " << digest_hex(r.summary.digest) << "\n";
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
  j.value("stencil", c.stencil);
  j.value("halo_mode", to_string(c.halo_mode));
  j.value("pack", to_string(c.pack));
  j.value("overlap", c.overlap);
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
  if (r.verification.requested) {
    j.begin_object("verification");
    j.value("passed", r.verification.passed);
    j.value("max_error", r.verification.max_error);
    j.value("tolerance", r.verification.tolerance);
    j.end_object();
  }
  j.end_object();
  return j.str();
}

}  // namespace miniapp
