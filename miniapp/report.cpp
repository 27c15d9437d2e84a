#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "memory.hpp"
#include "stop_signal.hpp"
#include "temporal_blocking.hpp"
#include "text.hpp"
#include "version.hpp"

namespace miniapp {

namespace {

std::string fmt(double v, const char* f = "%.6g") {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

/// Bytes in the largest decimal unit that keeps the number at or above 1: "15.4 kB", "1.2 GB".
std::string bytes_text(double bytes) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  int u = 0;
  while (bytes >= 1000 && u < 5) {
    bytes /= 1000;
    ++u;
  }
  return fmt(bytes, u == 0 ? "%.0f" : "%.3g") + " " + units[u];
}

/// The whole text of a (small) input file, "" when there is none.
std::string read_text_file(const std::string& path) {
  if (path.empty()) return "";
  std::ifstream in(path);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

}  // namespace

RunReport make_report(const RunPieces& p) {
  const TimeStepper& stepper = p.stepper;
  const MPI_Comm comm = stepper.decomposition().comm();
  RunReport r;
  r.config = p.config;
  if (const TemporalBlocking* tb = stepper.blocking()) r.config.tile = tb->tile();  // resolved
  r.dims = stepper.decomposition().dims();
  r.dims_chosen = p.config.ranks != r.dims;
  r.nranks = stepper.decomposition().size();
  r.threads = Exec().concurrency();
  r.first_step = p.loop.first_step;
  r.last_step = p.loop.step;
  const PhaseTimes& t = stepper.times();
  const HaloCounters& h = stepper.halo().counters();
  r.loop = reduce_stat(p.loop.seconds, comm);
  r.stencil = reduce_stat(t.stencil, comm);
  r.halo = reduce_stat(t.halo, comm);
  r.pack = reduce_stat(h.pack, comm);
  r.wait = reduce_stat(h.wait, comm);
  r.unpack = reduce_stat(h.unpack, comm);
  r.boundary = reduce_stat(h.boundary, comm);
  // Rates count only the timed steps: the first config.warmup steps of this launch are not.
  const std::int64_t ran = r.launch_steps();
  const std::int64_t warmup = std::min<std::int64_t>(r.config.warmup, ran);
  const double steps = ran - warmup > 0 ? double(ran - warmup) : 1.0;
  r.messages_per_step = reduce_stat(double(h.messages) / steps, comm);
  r.bytes_per_step = reduce_stat(double(h.bytes) / steps, comm);
  r.swept_bytes_per_step = reduce_stat(double(h.bytes_from_sweep) / steps, comm);
  r.in_place_bytes_per_step = reduce_stat(double(h.bytes_in_place) / steps, comm);
  r.redundant_per_step = reduce_stat(double(t.redundant) / steps, comm);
  r.stencil_per_cell = reduce_stat(
      t.stencil / double(std::max<std::int64_t>(stepper.field().interior().count(), 1)), comm);
  r.hidden = reduce_stat(t.hidden, comm);
  r.refill = reduce_stat(t.refill, comm);
  r.start = reduce_stat(h.start, comm);
  const double cells = double(r.config.grid[0]) * r.config.grid[1] * r.config.grid[2];
  r.cell_updates_per_second = r.loop.max > 0 ? cells * double(ran - warmup) / r.loop.max : 0.0;
  r.summary = p.summary;
  r.verification = p.verification;
  r.spectral_check = p.spectral_check;
  r.build = build_info();
  r.fom = figure_of_merit(cells, warmup, ran - warmup, r.loop.max, count_nodes(comm));
  r.peak_rss = reduce_stat(peak_resident_bytes(), comm);
  r.bindings = p.bindings;
  r.binding_warnings = p.binding_warnings;
  r.validation = p.validation;
  r.checkpoints = p.checkpoints;
  r.restart_path = p.restart_path;
  r.interruption = p.loop.interruption;
  r.memory_estimate = p.memory;
  r.roofline = p.roofline;
  const StoreChoice& stores = stepper.stores();
  r.stores.policy = stores.policy();
  r.stores.from_memory = reduce_stat(stores.from_memory() ? 1.0 : 0.0, comm).max > 0;
  r.stores.streaming = reduce_stat(double(stores.rounds(SweepStores::Streaming)), comm).avg;
  r.stores.ordinary = reduce_stat(double(stores.rounds(SweepStores::Ordinary)), comm).avg;
  const bool ends_ordinary =
      stores.rounds(SweepStores::Ordinary) > 0 && stores.favourite() == SweepStores::Ordinary;
  r.stores.ranks_ending_ordinary =
      int(std::lround(reduce_stat(ends_ordinary ? 1.0 : 0.0, comm).avg * r.nranks));
  r.stores.switches = reduce_stat(double(stores.switches()), comm).avg;
  r.stores.blocked = stepper.blocking() != nullptr;
  r.stores.first = stores.first();
  return r;
}

double RunReport::redundant_fraction() const {
  const double owned = double(config.grid[0]) * config.grid[1] * config.grid[2] / nranks;
  return owned > 0 ? redundant_per_step.avg / owned : 0.0;
}

double RunReport::cache_ceiling() const {
  return blocked_cache_rate > 0 ? blocked_cache_rate * nranks / (1.0 + redundant_fraction()) : 0.0;
}

double RunReport::ceiling_no_overlap() const {
  const double c = roofline ? roofline->fraction(cache_ceiling()) : 0.0;
  return c > 0 ? no_overlap_fraction(c, config.halo_width) : 0.0;
}

std::optional<double> RunReport::ceiling_unhidden() const {
  const double c = roofline ? roofline->fraction(cache_ceiling()) : 0.0;
  const double f = roofline ? roofline->fraction(fom.cell_updates_per_second) : 0.0;
  if (c <= 0 || f <= 0) return std::nullopt;
  return unhidden_traffic(f, c, config.halo_width);
}

void print_report(std::ostream& os, const RunReport& r) {
  const Config& c = r.config;
  const Coefficients a = c.problem().coefficients();
  os << "miniapp " << kVersion << ": " << (c.two_d() ? "2D" : "3D") << " diffusion, " << c.stencil
     << "-point stencil\n";
  os << "  grid          " << joined(c.grid, " x ") << " cells, bc x=" << to_string(c.bc[0])
     << " y=" << to_string(c.bc[1]) << " z=" << to_string(c.bc[2]);
  if (std::count(c.bc.begin(), c.bc.end(), Boundary::Dirichlet) > 0)
    os << " (dirichlet value " << fmt(c.bc_value) << ")";
  os << "\n";
  os << "  ranks         " << r.nranks << " = " << joined(r.dims, " x ")
     << (r.dims_chosen ? " (chosen: smallest halo surface)" : " (as given)") << ", " << r.threads
     << " thread(s) per rank\n";
  os << "  coefficients  ax=" << fmt(a.ax) << " ay=" << fmt(a.ay) << " az=" << fmt(a.az)
     << " (dt=" << fmt(c.dt) << " s), init " << to_string(c.init) << ", " << c.steps << " steps\n";
  os << "  halo          " << to_string(c.halo_mode) << " ("
     << (c.halo_mode == HaloMode::NeighborColl ? "subarray datatypes"
                                               : std::string("pack ") + to_string(c.pack))
     << (c.overlap ? ", overlap" : "") << "), width " << c.halo_width
     << (c.halo_width_auto ? " (auto)" : "") << ": " << fmt(r.messages_per_step.min, "%.2f") << "/"
     << fmt(r.messages_per_step.avg, "%.2f") << "/" << fmt(r.messages_per_step.max, "%.2f")
     << " messages, " << fmt(r.bytes_per_step.min, "%.0f") << "/"
     << fmt(r.bytes_per_step.avg, "%.0f") << "/" << fmt(r.bytes_per_step.max, "%.0f")
     << " B per step per rank (min/avg/max)\n";
  if (r.swept_bytes_per_step.max > 0)
    os << "                of which the x faces, " << fmt(r.swept_bytes_per_step.min, "%.0f") << "/"
       << fmt(r.swept_bytes_per_step.avg, "%.0f") << "/" << fmt(r.swept_bytes_per_step.max, "%.0f")
       << " B, stored by the sweep as it wrote each line (x periodic over one rank), never "
          "moved\n";
  if (r.in_place_bytes_per_step.max > 0)
    os << "                of which " << fmt(r.in_place_bytes_per_step.min, "%.0f") << "/"
       << fmt(r.in_place_bytes_per_step.avg, "%.0f") << "/"
       << fmt(r.in_place_bytes_per_step.max, "%.0f")
       << " B whole padded planes, sent by MPI from the field and received into it (no buffer, "
          "never packed)\n";
  if (c.temporal_blocking)
    os << "  blocking      temporal, " << c.halo_width << " sub-steps per round, tile "
       << joined(c.tile, " x ") << " owned cells\n";
  const StoresSummary& st = r.stores;
  os << "  sweep stores  ";
  if (st.from_memory && st.blocked) os << "(the blocked rounds' last sub-steps) ";
  if (!st.from_memory)
    os << "through the cache (the fields fit in the ranks' share of the last-level cache)\n";
  else if (st.policy != StorePolicy::Adaptive)
    os << to_string(st.policy) << " (as asked)";
  else
    os << "adaptive"
       << (st.first != SweepStores::Auto
               ? std::string(" from ") + to_string(st.first) + " (faster in the calibration)"
               : std::string())
       << ": streaming in " << fmt(st.streaming, "%.4g") << " of " << fmt(st.rounds(), "%.4g")
       << " rounds per rank, ordinary in " << fmt(st.ordinary, "%.4g") << " (warm-up included); "
       << st.ranks_ending_ordinary << " of " << r.nranks << " rank(s) ended on ordinary, "
       << fmt(st.switches, "%.3g") << " switch(es) per rank";
  if (st.from_memory) os << "\n";
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
  if (r.nranks > 1) {
    const double ratio = r.imbalance();
    os << "  balance       stencil time per owned cell, slowest rank over fastest: "
       << fmt(ratio, "%.2f");
    if (ratio > 1 + kImbalanceNoted)
      os << "; more than " << fmt(100 * kImbalanceNoted, "%.0f")
         << " % on equal work: some rank's core computed slower than the others' (shared, "
            "throttled or busy), and the figure of merit follows the slowest rank";
    os << "\n";
  }
  os << "  throughput    " << fmt(r.cell_updates_per_second, "%.4e")
     << " cell updates/s (global cells x steps / slowest rank's loop time)\n";
  const double rate = r.fom.cell_updates_per_second;
  if (const std::optional<Roofline>& rl = r.roofline)
    os << "  roofline      bound " << fmt(rl->bound(), "%.4e") << " cell upd/s ("
       << rl->copies_per_node() << ", " << rl->nodes
       << " node(s); the better / 16 B per cell update), this run " << fmt(rate, "%.4e") << " = "
       << fmt(rl->fraction(rate), "%.3f") << " of the bound\n";
  if (r.roofline && r.roofline_after) {
    const Roofline& before = *r.roofline;
    const Roofline& after = *r.roofline_after;
    const double drift = bound_drift(before, after);
    const double f_before = before.fraction(rate), f_after = after.fraction(rate);
    os << "  roofline      after the run: bound " << fmt(after.bound(), "%.4e") << " cell upd/s ("
       << after.copies_per_node() << "), " << fmt(100 * drift, "%+.1f")
       << " % on the bound before; this run = " << fmt(f_after, "%.3f") << " of it";
    if (std::abs(drift) > kBoundDriftNoted)
      os << "; the bound moved by more than " << fmt(100 * kBoundDriftNoted, "%.0f")
         << " % during the run, so its fraction lies between "
         << fmt(std::min(f_before, f_after), "%.3f") << " and "
         << fmt(std::max(f_before, f_after), "%.3f") << ": quote the median of several runs";
    os << "\n";
  }
  if (const double ceiling = r.cache_ceiling(); r.roofline && ceiling > 0) {
    os << "  roofline      ceiling of the blocked rounds: their line kernels in cache at "
       << fmt(r.blocked_cache_rate, "%.4e") << " cell upd/s per rank, over the redundant work ("
       << fmt(100 * r.redundant_fraction(), "%.1f") << " %), allow " << fmt(ceiling, "%.4e")
       << " = " << fmt(r.roofline->fraction(ceiling), "%.3f")
       << " of the bound; this run = " << fmt(rate / ceiling, "%.3f") << " of it\n";
    // The other end: rounds that hide none of their memory traffic behind their arithmetic.
    os << "  roofline      hiding none of its memory traffic (the block read and written once a "
          "round, at the bound) a run reaches "
       << fmt(r.ceiling_no_overlap(), "%.3f") << " of the bound";
    if (const std::optional<double> unhidden = r.ceiling_unhidden())
      os << "; this run spent " << fmt(*unhidden, "%.2f")
         << " x that traffic's time at the bound beyond its arithmetic (0: all hidden, 1: none)";
    os << "\n";
  }
  os << "  field         sum " << fmt(r.summary.sum, "%.17g") << "  l2 "
     << fmt(r.summary.l2, "%.17g") << "  min " << fmt(r.summary.min, "%.6g") << "  max "
     << fmt(r.summary.max, "%.6g") << "\n";
  if (!r.restart_path.empty())
    os << "  restart       from " << r.restart_path << " at step " << r.first_step
       << ": this launch ran steps " << r.first_step << " to " << r.last_step
       << " of the run's 0 to " << c.steps << "\n";
  if (r.checkpoints.count > 0)
    os << "  checkpoints   " << r.checkpoints.count << " x " << bytes_text(r.checkpoints.bytes)
       << " in " << c.checkpoint_dir << ": "
       << fmt(r.checkpoints.seconds_total / r.checkpoints.count, "%.4f") << " s each (max "
       << fmt(r.checkpoints.seconds_max, "%.4f") << " s), "
       << bytes_text(r.checkpoints.gbps() * 1e9) << "/s write\n";
  os << "  memory        peak RSS " << fmt(r.peak_rss.min / 1e6, "%.1f") << "/"
     << fmt(r.peak_rss.max / 1e6, "%.1f") << " MB per rank (min/max); estimate "
     << fmt(r.memory_estimate.bytes_per_rank / 1e6, "%.3g") << " MB per rank for fields";
  if (r.memory_estimate.fft_bytes_per_rank > 0)
    os << ", halo and " << to_string(c.fft) << " FFT buffers (FFT "
       << fmt(r.memory_estimate.fft_bytes_per_rank / 1e6, "%.3g") << " MB)\n";
  else
    os << " and halo buffers\n";
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
  if (const std::optional<SpectralCheckResult>& sc = r.spectral_check) {
    // The r2c inverse is real by construction: only c2c has an imaginary part to report.
    os << "  spectral      max |u - exact| = " << fmt(sc->max_error, "%.3e") << ", L2 (rms) "
       << fmt(sc->l2_error, "%.3e");
    if (c.fft == FftKind::C2C) os << ", max |imag| " << fmt(sc->max_imag, "%.3e");
    os << " (" << to_string(c.fft) << " FFT, tolerance " << fmt(sc->tolerance, "%.1e") << ")\n";
    os << (sc->passed ? "SPECTRAL CHECK PASSED\n" : "SPECTRAL CHECK FAILED\n");
  }
  os << "digest " << digest_hex(r.summary.digest) << "\n";

  // The figure of merit, always next to its verdict.
  const Validation& v = r.validation;
  int width = 8;  // the names in a column, two spaces after the longest
  for (const Check& c : v.checks) width = std::max(width, int(c.name.size()) + 2);
  for (const Check& c : v.checks)
    os << "  check " << std::left << std::setw(width) << c.name << std::right
       << (c.passed ? "passed: " : "FAILED: ") << c.detail << "\n";
  os << "FOM " << fmt(r.fom.cell_updates_per_second, "%.4e") << " cell updates/s ("
     << fmt(r.fom.cell_updates_per_second_per_node, "%.4e") << " per node, " << r.fom.nodes
     << " node(s); " << r.fom.timed_steps << " timed steps after " << r.fom.warmup_steps
     << " warm-up"
     << (r.whole_run() ? ""
                       : "; steps " + std::to_string(r.first_step) + " to " +
                             std::to_string(r.last_step) + " of " + std::to_string(c.steps))
     << ")"
     << (v.verdict == Verdict::Valid && !r.whole_run()
             ? " -- the last segment of a restarted run: its answer is valid, its FOM times "
               "this segment only"
         : v.verdict == Verdict::Valid       ? ""
         : v.verdict == Verdict::Invalid     ? " -- INVALID, does not count"
         : v.verdict == Verdict::Interrupted ? " -- INTERRUPTED (partial run), does not count"
                                             : " -- not validated")
     << "\n";
  os << "RESULT " << to_string(v.verdict) << " (" << v.reason << ")\n";
}

std::string report_json(const RunReport& r) {
  using json = nlohmann::ordered_json;
  const Config& c = r.config;
  const Coefficients a = c.problem().coefficients();
  const auto stat = [](const Stat& s) {
    return json{{"min", s.min}, {"avg", s.avg}, {"max", s.max}};
  };
  const auto names = [](const std::array<Boundary, 3>& bc) {
    return json{to_string(bc[0]), to_string(bc[1]), to_string(bc[2])};
  };

  json j;
  j["miniapp_version"] = kVersion;
  j["config"] = {{"grid", c.grid},
                 {"ranks", r.dims},
                 {"bc", names(c.bc)},
                 {"bc_value", c.bc_value},
                 {"kappa", c.kappa},
                 {"dt", c.dt},
                 {"spacing", c.spacing},
                 {"coefficients", {a.ax, a.ay, a.az}},
                 {"steps", c.steps},
                 {"max_steps", c.max_steps},
                 {"init", to_string(c.init)},
                 {"seed", c.seed},
                 {"halo_width", c.halo_width},
                 {"halo_width_auto", c.halo_width_auto},
                 {"sine_mode", c.sine_mode},
                 {"verify", c.verify},
                 {"warmup", c.warmup},
                 {"expect_digest", c.expect_digest},
                 {"progress", c.progress},
                 {"report", c.report_path},
                 {"roofline", c.roofline},
                 {"label", c.label},
                 {"stencil", c.stencil},
                 {"halo_mode", to_string(c.halo_mode)},
                 {"pack", to_string(c.pack)},
                 {"overlap", c.overlap},
                 {"temporal_blocking", c.temporal_blocking},
                 {"sweep_stores", to_string(c.sweep_stores)},
                 {"tile", c.tile},
                 {"two_d", c.two_d()},
                 {"spectral_check", c.spectral_check},
                 {"spectral_every", c.spectral_every},
                 {"fft", to_string(c.fft)},
                 {"spectrum_k", to_string(c.spectrum_k)},
                 {"spectrum_file", c.spectrum_file},
                 {"transpose", to_string(c.transpose)},
                 {"checkpoint_every", c.checkpoint_every},
                 {"checkpoint_dir", c.checkpoint_dir},
                 {"checkpoint_keep", c.checkpoint_keep},
                 {"checkpoint_layout", c.checkpoint_layout},
                 {"checkpoint_alignment", c.checkpoint_alignment},
                 {"checkpoint_cb_nodes", c.checkpoint_cb_nodes},
                 {"checkpoint_cb_buffer", c.checkpoint_cb_buffer},
                 {"checkpoint_cb_write", c.checkpoint_cb_write},
                 {"explain", c.explain},
                 {"explain_only", c.explain_only},
                 {"explain_ranks", c.explain_ranks},
                 {"explain_rank", c.explain_rank},
                 {"restart", r.restart_path.empty()
                                 ? json(nullptr)
                                 : json{{"path", r.restart_path}, {"from_step", r.first_step}}}};
  // Which part of the run this launch computed: steps from_step..to_step of 0..config.steps.
  j["segment"] = {{"from_step", r.first_step},
                  {"to_step", r.last_step},
                  {"steps", r.launch_steps()},
                  {"whole_run", r.whole_run()}};
  j["nranks"] = r.nranks;
  j["threads_per_rank"] = r.threads;
  j["timings_seconds"] = {{"loop", stat(r.loop)},         {"stencil", stat(r.stencil)},
                          {"halo", stat(r.halo)},         {"pack", stat(r.pack)},
                          {"mpi_wait", stat(r.wait)},     {"unpack", stat(r.unpack)},
                          {"boundary", stat(r.boundary)}, {"mpi_start", stat(r.start)},
                          {"refill", stat(r.refill)},     {"comm_hidden", stat(r.hidden)}};
  j["halo_per_step_per_rank"] = {{"messages", stat(r.messages_per_step)},
                                 {"bytes", stat(r.bytes_per_step)},
                                 {"x_faces_from_sweep_bytes", stat(r.swept_bytes_per_step)},
                                 {"in_place_bytes", stat(r.in_place_bytes_per_step)},
                                 {"redundant_updates", stat(r.redundant_per_step)}};
  j["cell_updates_per_second"] = r.cell_updates_per_second;
  j["field"] = {{"digest", digest_hex(r.summary.digest)},
                {"sum", r.summary.sum},
                {"l2", r.summary.l2},
                {"min", r.summary.min},
                {"max", r.summary.max}};
  if (r.checkpoints.count > 0)
    j["checkpoints"] = {{"count", r.checkpoints.count},
                        {"bytes_each", r.checkpoints.bytes},
                        {"seconds_total", r.checkpoints.seconds_total},
                        {"seconds_max", r.checkpoints.seconds_max},
                        {"write_gb_per_s", r.checkpoints.gbps()}};
  j["memory"] = {{"peak_rss_bytes", stat(r.peak_rss)},
                 {"estimate_bytes_per_rank", r.memory_estimate.bytes_per_rank},
                 {"node_ranks", r.memory_estimate.node_ranks},
                 {"available_bytes_per_node", r.memory_estimate.available_bytes},
                 {"estimate_fft_bytes_per_rank", r.memory_estimate.fft_bytes_per_rank}};
  if (r.interruption.signal != 0)
    j["interrupted"] = {{"signal", signal_name(r.interruption.signal)},
                        {"step", r.interruption.step},
                        {"steps", c.steps},
                        {"checkpoint", r.interruption.checkpoint},
                        {"continue_with", r.interruption.continue_with}};
  if (r.verification.requested)
    j["verification"] = {{"passed", r.verification.passed},
                         {"max_error", r.verification.max_error},
                         {"tolerance", r.verification.tolerance}};
  if (const std::optional<SpectralCheckResult>& sc = r.spectral_check)
    j["spectral_check"] = {{"passed", sc->passed},
                           {"max_error", sc->max_error},
                           {"l2_error", sc->l2_error},
                           {"max_imag", c.fft == FftKind::C2C ? json(sc->max_imag) : json(nullptr)},
                           {"tolerance", sc->tolerance},
                           {"fft", to_string(c.fft)}};

  // One copy measurement: the same fields before the run and, under "after", after it (where
  // the nodes and the array size are those of the one before).
  const auto copy_json = [&](const Roofline& rl, bool layout) {
    json o{{"ordinary_bytes_per_s", rl.copy.ordinary},
           {"streaming_bytes_per_s", rl.copy.streaming}};
    if (layout) {
      o["nodes"] = rl.nodes;
      o["elements_per_rank"] = rl.elements;
    }
    o["seconds"] = rl.seconds;
    o["bound_cells_per_s"] = rl.bound();
    o["fraction"] = rl.fraction(r.fom.cell_updates_per_second);
    return o;
  };
  if (const std::optional<Roofline>& rl = r.roofline) {
    j["roofline"] = copy_json(*rl, true);
    if (const std::optional<Roofline>& after = r.roofline_after) {
      j["roofline"]["after"] = copy_json(*after, false);
      j["roofline"]["drift"] = bound_drift(*rl, *after);
    }
    if (const double ceiling = r.cache_ceiling(); ceiling > 0) {
      json& o = j["roofline"]["cache_ceiling"];
      o = {{"in_cache_per_rank", r.blocked_cache_rate},
           {"redundant_fraction", r.redundant_fraction()},
           {"cells_per_s", ceiling},
           {"fraction_of_bound", rl->fraction(ceiling)},
           {"fraction", r.fom.cell_updates_per_second / ceiling},
           {"no_overlap_fraction_of_bound", r.ceiling_no_overlap()}};
      if (const std::optional<double> unhidden = r.ceiling_unhidden())
        o["unhidden_traffic"] = *unhidden;
    }
  }

  const StoresSummary& st = r.stores;
  j["balance"] = {{"stencil_per_cell", stat(r.stencil_per_cell)},
                  {"slowest_over_fastest", r.imbalance()}};

  j["sweep_stores"] = {
      {"policy", to_string(st.policy)},
      {"from_memory", st.from_memory},
      {"streaming_rounds", st.streaming},
      {"ordinary_rounds", st.ordinary},
      {"ranks_ending_ordinary", st.ranks_ending_ordinary},
      {"switches", st.switches},
      {"blocked_rounds", st.blocked},
      {"first", st.first == SweepStores::Auto ? "alternating" : to_string(st.first)}};

  j["schema_version"] = kReportSchemaVersion;
  j["label"] = c.label;
  j["build"] = {{"version", r.build.version},
                {"git_describe", r.build.git_describe},
                {"git_commit", r.build.git_commit},
                {"compiler_id", r.build.compiler_id},
                {"compiler_version", r.build.compiler_version},
                {"build_type", r.build.build_type},
                {"cxx_flags", r.build.cxx_flags},
                {"extra_flags", r.build.extra_flags},
                {"kokkos_version", r.build.kokkos_version},
                {"kokkos_backend", r.build.kokkos_backend},
                {"line_kernels", r.build.line_kernels},
                {"mpi_library", r.build.mpi_library},
                {"mpi_standard", r.build.mpi_standard},
                {"hdf5_version", r.build.hdf5_version}};
  json bindings = json::array();
  for (const RankBinding& b : r.bindings) {
    json threads = json::array();
    for (const std::vector<int>& t : b.thread_cpus) threads.push_back(cpu_list_string(t));
    bindings.push_back({{"rank", b.rank},
                        {"host", b.host},
                        {"cpus", cpu_list_string(b.cpus)},
                        {"ncpus", b.cpus.size()},
                        {"threads", threads}});
  }
  j["placement"] = {{"nodes", r.fom.nodes},
                    {"ranks", r.nranks},
                    {"threads_per_rank", r.threads},
                    {"bindings", bindings},
                    {"warnings", r.binding_warnings}};
  j["command_line"] = c.command_line;
  j["config_file"] = c.config_path;
  j["config_file_text"] = read_text_file(c.config_path);
  j["figure_of_merit"] = {{"name", "cell updates per second"},
                          {"units", "cell updates/s"},
                          {"value", r.fom.cell_updates_per_second},
                          {"per_node", r.fom.cell_updates_per_second_per_node},
                          {"nodes", r.fom.nodes},
                          {"warmup_steps", r.fom.warmup_steps},
                          {"timed_steps", r.fom.timed_steps},
                          {"timed_seconds", r.fom.seconds},
                          {"validated", r.validation.verdict == Verdict::Valid}};
  json checks = json::array();
  for (const Check& ch : r.validation.checks)
    checks.push_back({{"name", ch.name}, {"passed", ch.passed}, {"detail", ch.detail}});
  j["validation"] = {{"verdict", to_string(r.validation.verdict)},
                     {"reason", r.validation.reason},
                     {"checks", checks}};
  // Invalid UTF-8 (a label or input file in another encoding) is replaced, never a throw.
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace miniapp
