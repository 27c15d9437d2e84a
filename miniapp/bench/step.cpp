// miniapp bench step: the whole production time step against the memory roofline, in one run.
//
// Every candidate is a TimeStepper (sweep, halo exchange, boundaries: what the time loop runs)
// on an n^3 block per rank, periodic in every dimension unless --bc closes some (then every
// step also fills the physical-boundary ghosts), for each
//   halo mode x halo width H x temporal blocking (H > 1 only) x overlap
// that the app accepts. The yardstick is measured in the same run: a STREAM copy of n^3 doubles
// per rank with ordinary and with streaming stores (stream_copy.hpp), on every rank at once;
//   bound = max(ordinary, streaming) / 16 B per cell update, summed over ranks.
// The x faces, a 64-byte line per value, get a yardstick of their own in the same rounds: a bare
// gather of the lines their pack reads (StreamCopy::gather), from memory. And the plain step's
// sweep is timed alone, with no exchange between sweeps: the step's time beyond it is what the
// exchange costs the step in all (sweep_alone). Candidates and the sweep alone choose their
// stores as the run does (--sweep-stores, adaptive by default: store_choice.hpp), each choice
// going on from round to round as one long run's does: the first round holds its first rounds
// (both kinds in turn), the later ones its probes of the other kind. A choice begun afresh in
// every round put four sweeps with the slower stores into every round's 16 timed steps, which
// a run of hundreds of steps pays once.
// Rounds go round-robin over the candidates (each round starting one candidate further) and the
// yardstick (a few copies back to back, StreamCopy::measure), so all see the same machine state
// and none always follows the copies; a candidate is built afresh each
// round (one field pair in memory at a time), runs --warmup untimed steps, then --steps timed
// ones. Figures are medians over rounds of the slowest rank; phases come from the stepper's own
// timers.
//
// Every candidate runs the same steps from the same initial field, so its final digest must
// equal the baseline's (dim-ordered, H = 1, no blocking, no overlap) bit for bit; a candidate
// that differs is printed as DIFFERS and the benchmark exits 1.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "bench.hpp"
#include "diagnostics.hpp"
#include "initial_condition.hpp"
#include "mpi_utils.hpp"
#include "options.hpp"
#include "stencil.hpp"
#include "store_choice.hpp"
#include "stream_copy.hpp"
#include "time_stepper.hpp"
#include "timer.hpp"

namespace miniapp::bench {

namespace {

/// Timed copies of each kind per round (after one untimed of each).
constexpr int kCopiesPerRound = 3;

/// Seconds per step of one timed run, each the slowest rank's.
struct PhaseSample {
  double step = 0, stencil = 0, halo = 0, pack = 0, wait = 0, unpack = 0, boundary = 0, refill = 0,
         hidden = 0;
  /// Pack and unpack by phase (dim-ordered: the x, y and z faces), and the bytes sent per step,
  /// in all and in the first phase (dim-ordered: the x faces); of them, those of the x faces the
  /// sweep stored and those MPI sent in place (the exchange never packed either).
  double pack_x = 0, pack_y = 0, pack_z = 0, unpack_x = 0, unpack_y = 0, unpack_z = 0, bytes = 0,
         bytes_x = 0, swept = 0, in_place = 0;
};

struct StepCandidate {
  Config c;
  std::vector<PhaseSample> samples;
  std::uint64_t digest = 0;
  bool digest_set = false, digest_stable = true;  ///< same digest in every round
  /// The stepper's store choice where the last round left it (none before the first round).
  std::optional<StoreChoice> stores;

  /// "dim-ordered H=2 blocked overlap".
  std::string name() const {
    return std::string(to_string(c.halo_mode)) + " H=" + std::to_string(c.halo_width) +
           (c.temporal_blocking ? " blocked" : "") + (c.overlap ? " overlap" : "");
  }
  /// Packing and unpacking against a copy: the values packed and unpacked per step, each
  /// moved at 16 B (read and written, as a copy is counted), per second of pack + unpack, over
  /// the same round's copy (`copy[r]` bytes/s per rank); the median over rounds. 0 where nothing
  /// was packed (datatype packing, no messages).
  double packing_fraction(const std::vector<double>& copy) const {
    return median_by_round([&](const PhaseSample& s, std::size_t r) {
      const double seconds = s.pack + s.unpack;
      return seconds > 0 && copy[r] > 0 ? 4.0 * moved(s) / seconds / copy[r] : 0.0;
    });
  }
  /// Bytes per step the exchange packed and unpacked in a round: those sent, less the x faces
  /// the sweep stored and the whole planes MPI sent from the field in place.
  static double moved(const PhaseSample& s) { return s.bytes - s.swept - s.in_place; }
  /// The median over rounds of one phase.
  double median_of(double PhaseSample::*phase) const {
    std::vector<double> v;
    for (const PhaseSample& s : samples) v.push_back(s.*phase);
    return median(v);
  }
  /// A figure derived from each round's sample, `of(sample, round)`, as the median over the
  /// rounds where it is defined (positive); 0 where it is in none. A figure that divides bytes
  /// by seconds must take both from one round: whether the sweep stores the x faces can depend
  /// on the stores the choice takes step by step (apply_stencil), so the bytes moved can differ
  /// between rounds, and medians of each taken apart can pair one round's bytes with another's
  /// times.
  template <class Figure>
  double median_by_round(Figure of) const {
    std::vector<double> v;
    for (std::size_t r = 0; r < samples.size(); ++r)
      if (const double x = of(samples[r], r); x > 0) v.push_back(x);
    return v.empty() ? 0.0 : median(v);
  }
};

/// One round of candidate c: build, warm up, time `steps` steps. Collective.
void run_candidate(StepCandidate& cand, int nranks, int warmup, int steps, MPI_Comm comm) {
  TimeStepper stepper(cand.c.problem(), cand.c.halo(), cand.c.blocking(),
                      resolve_rank_grid(cand.c, nranks), comm, cand.c.sweep_stores);
  if (cand.stores) stepper.continue_stores(*cand.stores);
  stepper.run(warmup);
  stepper.reset_timers();
  MPI_Barrier(comm);
  double loop = 0;
  {
    ScopedTimer timer(loop, "miniapp::bench::step::steps", Fence::AtEnd);
    stepper.run(steps);
  }
  const PhaseTimes& t = stepper.times();
  const HaloCounters& h = stepper.halo().counters();
  const auto slowest = [&](double seconds) { return reduce_stat(seconds, comm).max / steps; };
  cand.samples.push_back(
      {slowest(loop), slowest(t.stencil), slowest(t.halo), slowest(h.pack), slowest(h.wait),
       slowest(h.unpack), slowest(h.boundary), slowest(t.refill), slowest(t.hidden),
       slowest(h.pack_by_phase[0]), slowest(h.pack_by_phase[1]), slowest(h.pack_by_phase[2]),
       slowest(h.unpack_by_phase[0]), slowest(h.unpack_by_phase[1]), slowest(h.unpack_by_phase[2]),
       slowest(double(h.bytes)),
       slowest(double(h.exchanges) * double(stepper.halo().plan().bytes_per_exchange(0))),
       slowest(double(h.bytes_from_sweep)), slowest(double(h.bytes_in_place))});
  cand.stores = stepper.stores();
  const std::uint64_t digest = stepper.summary().digest;
  if (cand.digest_set && digest != cand.digest) cand.digest_stable = false;
  cand.digest = digest;
  cand.digest_set = true;
}

/// The plain step's sweep alone: its kernel (apply_stencil) on a pair of fields shaped like the
/// candidates', swapped every step as the stepper swaps them, with no exchange between sweeps
/// (the ghosts keep their first values). The plain step's time beyond it is what the exchange
/// costs the step in all: the halo's own timers cannot see what it does to the sweep's speed
/// (lines it leaves in cache, or evicts). Seconds per step on this rank, every rank sweeping
/// at once (a barrier first). The sweeps choose their stores as the stepper's do, `stores`
/// going on from round to round as a candidate's does. Collective; allocates the pair.
double sweep_alone(const Config& base, const Box& owned, int warmup, int steps, StoreChoice& stores,
                   MPI_Comm comm) {
  Field u("miniapp::bench::step::u", owned, 1), v("miniapp::bench::step::v", owned, 1);
  fill_initial(u, base.problem().initial_condition());
  fill_zero(v);
  const Coefficients a = base.problem().coefficients();
  const auto sweeps = [&](int count) {
    for (int s = 0; s < count; ++s) {
      sweep_choosing(stores, base.stencil, u, v, u.interior(), a, false);
      std::swap(u, v);
    }
  };
  sweeps(warmup);
  MPI_Barrier(comm);
  Kokkos::Timer timer;
  sweeps(steps);
  return timer.seconds() / steps;
}

}  // namespace

int step(int argc, char** argv, MPI_Comm comm) {
  int rank = 0, nranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nranks);
  int n = 256, steps = 8, warmup = 4, reps = 3, stencil = 7;
  std::vector<int> widths{1, 2, 4};
  std::vector<std::string> modes{"dim-ordered", "neighbors26", "neighbor-coll", "faces"};
  std::vector<std::string> bc_names{"periodic", "periodic", "periodic"};
  std::string json_path;
  std::string stores_name = to_string(StorePolicy::Adaptive);
  CLI::App app{
      "The whole production time step (sweep + halo exchange + boundaries, TimeStepper) for "
      "every halo mode x halo width x temporal blocking x overlap, against the memory bound "
      "(STREAM copy, better of ordinary and streaming stores, / 16 B per cell) measured in the "
      "same run, beside the plain step's sweep alone (no exchange between sweeps). Each rank "
      "owns an n^3 block, periodic in every dimension unless --bc says "
      "otherwise. Every candidate must reach the baseline's digest (dim-ordered, H=1) bit for "
      "bit.",
      "miniapp bench step"};
  app.option_defaults()->always_capture_default();
  app.add_option("--n", n, "cells per dimension per rank")->check(CLI::Range(8, 4096));
  app.add_option("--steps", steps,
                 "timed steps per candidate and round (a multiple of every width: whole rounds)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--warmup", warmup, "untimed steps first (a multiple of every width)")
      ->check(CLI::Range(0, 100000));
  app.add_option("--reps", reps, "rounds over all candidates (median reported)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--stencil", stencil, "7 or 27")->check(CLI::IsMember({7, 27}));
  app.add_option("--widths", widths, "halo widths H")->check(CLI::Range(1, 64));
  app.add_option("--modes", modes, "halo modes")
      ->check(CLI::IsMember({"dim-ordered", "neighbors26", "neighbor-coll", "faces"}));
  app.add_option("--bc", bc_names,
                 "boundary per dimension X Y Z: periodic|dirichlet|neumann (closed dimensions "
                 "add the physical-boundary fills to every step; dirichlet value 0)")
      ->expected(3)
      ->check(CLI::IsMember({"periodic", "dirichlet", "neumann"}));
  std::vector<std::string> policies;
  for (const auto& p : kStorePolicyNames) policies.emplace_back(p.name);
  app.add_option("--sweep-stores", stores_name,
                 "stores of the sweeps from memory, as the run's --sweep-stores (each candidate's "
                 "choice, and the sweep alone's, goes on from round to round as in one long run)")
      ->check(CLI::IsMember(policies));
  app.add_option("--json", json_path, "write the table as JSON to this file");
  if (const int status = parse_options(app, argc, argv, comm); status >= 0) return status;
  for (int h : widths)
    if (steps % h != 0 || warmup % h != 0) {
      if (rank == 0)
        std::cerr << "miniapp: error: --steps " << steps << " and --warmup " << warmup
                  << " must be multiples of every --widths value (got " << h
                  << "): each candidate runs whole rounds\n";
      return 2;
    }

  Config base;
  for (int d = 0; d < 3; ++d) base.bc[std::size_t(d)] = *value_of(kBoundaryNames, bc_names[d]);
  const std::string bc_text = bc_names[0] + " " + bc_names[1] + " " + bc_names[2];
  base.stencil = stencil;
  base.dt = stencil == 27 ? 0.2 : 0.1;
  base.sweep_stores = *value_of(kStorePolicyNames, stores_name);
  const Index3 dims = resolve_rank_grid(base, nranks);  // only the shape matters here
  base.grid = {n * dims[0], n * dims[1], n * dims[2]};
  base.ranks = dims;

  // The baseline first: every digest is compared with its.
  std::vector<StepCandidate> cands(1);
  cands[0].c = base;
  for (const std::string& mode : modes)
    for (int h : widths)
      for (bool blocking : {false, true})
        for (bool overlap : {false, true}) {
          StepCandidate cand;
          cand.c = base;
          cand.c.halo_mode = *value_of(kHaloModeNames, mode);
          cand.c.halo_width = h;
          cand.c.temporal_blocking = blocking;
          cand.c.overlap = overlap;
          if ((blocking && h == 1) || !accepted(cand.c, nranks)) continue;
          if (cand.c.halo_mode == HaloMode::DimOrdered && h == 1 && !overlap) continue;
          cands.push_back(cand);
        }

  const StreamCopy yardstick(std::int64_t(n) * n * n);
  // The x faces' yardstick: the same reads as their pack (a row's first and last owned cell,
  // rows of the fields' pitch at H = 1), from memory.
  const Box block{{0, 0, 0}, {n, n, n}};  // one rank's owned cells
  const std::int64_t pitch = Field::shape_only(block, 1).stride_y();
  // A yardstick's seconds are the slowest rank's, every rank having run it at once.
  const auto slowest = [&](double seconds) {
    MPI_Barrier(comm);
    return reduce_stat(seconds, comm).max;
  };
  std::vector<double> r_ordinary, r_streaming, r_gather, r_sweep;
  StoreChoice alone_stores(base.sweep_stores, sweep_streams_from_memory(block));
  for (int r = 0; r < reps; ++r) {
    // The candidates take turns to go first, one place further each round: the one right after
    // the yardstick's copies runs slower than the rest (bench stencil measured it, up to a
    // quarter for a sweep). The sweep alone comes right after the plain step, so that the two
    // differ by the exchange and as little as may be by the machine's state.
    for (std::size_t i = 0; i < cands.size(); ++i) {
      const std::size_t c = (std::size_t(r) + i) % cands.size();
      run_candidate(cands[c], nranks, warmup, steps, comm);
      if (c == 0)
        r_sweep.push_back(slowest(sweep_alone(base, block, warmup, steps, alone_stores, comm)));
    }
    // Copies back to back, as a candidate sweeps its two fields step after step: a single copy
    // right after other work can run at half the rate of the next ones (measured on AMD Zen 5:
    // 44-65 against 86-110 GB/s), and a bound taken there would flatter every candidate.
    const CopyRates c = yardstick.measure(kCopiesPerRound, slowest);
    r_ordinary.push_back(c.ordinary);
    r_streaming.push_back(c.streaming);
    const GatherRun g = yardstick.gather(pitch, n - 1);
    r_gather.push_back(64.0 * double(g.lines) / slowest(g.seconds));
  }
  const double gather_per_rank = median(r_gather);  // bytes/s of whole lines
  const double sweep_seconds = median(r_sweep);
  // What the plain step takes beyond its sweep alone, round by round.
  std::vector<double> r_beyond;
  for (std::size_t r = 0; r < r_sweep.size(); ++r)
    r_beyond.push_back(cands[0].samples[r].step - r_sweep[r]);
  // The copy rates of all ranks together.
  CopyRates copy;
  copy.ordinary = median(r_ordinary) * nranks;
  copy.streaming = median(r_streaming) * nranks;
  const double bound = copy.cells_per_second();
  const double cells = double(base.grid[0]) * base.grid[1] * base.grid[2];
  const std::uint64_t reference = cands[0].digest;
  int differ = 0;
  for (const StepCandidate& cand : cands) differ += cand.digest != reference || !cand.digest_stable;

  if (rank == 0) {
    std::printf(
        "bench step: %d rank(s) = %d x %d x %d, %d thread(s) each, %d^3 cells per rank (grid "
        "%d x %d x %d, %s), %d-point stencil, %d timed steps after %d per round, %d "
        "round(s) (median, slowest rank)\n",
        nranks, dims[0], dims[1], dims[2], Exec().concurrency(), n, base.grid[0], base.grid[1],
        base.grid[2], bc_text.c_str(), stencil, steps, warmup, reps);
    // The bound of each round, to show how far the machine moved under the candidates.
    std::vector<double> bound_by_round;
    for (std::size_t r = 0; r < r_ordinary.size(); ++r)
      bound_by_round.push_back(std::max(r_ordinary[r], r_streaming[r]) * nranks / 16.0);
    const auto [low, high] = std::minmax_element(bound_by_round.begin(), bound_by_round.end());
    std::printf(
        "  yardstick: copy %.2f GB/s ordinary, %.2f GB/s streaming (all ranks) -> bound %.4e "
        "cell upd/s; round by round %.4e to %.4e\n",
        copy.ordinary / 1e9, copy.streaming / 1e9, bound, *low, *high);
    std::printf(
        "  ms per step: halo = exposed exchange (pack + wait + unpack + boundary); hidden = "
        "behind interior updates\n");
    std::printf("  %-33s %8s %8s %8s %7s %7s %7s %7s %7s %7s %12s %8s %s\n", "candidate", "step",
                "stencil", "halo", "pack", "wait", "unpack", "bndry", "refill", "hidden",
                "cell upd/s", "of bound", "digest");
    for (const StepCandidate& cand : cands) {
      const double t = cand.median_of(&PhaseSample::step), rate = cells / t;
      std::printf(
          "  %-33s %8.3f %8.3f %8.3f %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f %12.4e %8.3f %s\n",
          cand.name().c_str(), t * 1e3, cand.median_of(&PhaseSample::stencil) * 1e3,
          cand.median_of(&PhaseSample::halo) * 1e3, cand.median_of(&PhaseSample::pack) * 1e3,
          cand.median_of(&PhaseSample::wait) * 1e3, cand.median_of(&PhaseSample::unpack) * 1e3,
          cand.median_of(&PhaseSample::boundary) * 1e3, cand.median_of(&PhaseSample::refill) * 1e3,
          cand.median_of(&PhaseSample::hidden) * 1e3, rate, rate / bound,
          &cand == &cands[0]                               ? "baseline"
          : cand.digest == reference && cand.digest_stable ? "same"
                                                           : "DIFFERS");
    }
    const std::int64_t total = std::int64_t(warmup) + steps;
    if (differ == 0)
      std::printf("  digests agree: all %zu candidates reach the baseline's %s after %lld steps\n",
                  cands.size(), digest_hex(reference).c_str(), (long long)total);
    else
      std::printf("  DIGEST MISMATCH: %d of %zu candidates differ from the baseline's %s\n", differ,
                  cands.size(), digest_hex(reference).c_str());
    const StepCandidate& plain = cands[0];
    const auto [fewest, most] = std::minmax_element(r_beyond.begin(), r_beyond.end());
    std::printf(
        "  sweep alone (the plain step's kernel, no exchange between sweeps, timed right after "
        "the plain step): %.3f ms per step, %.3f of bound; the plain step takes %.3f ms more "
        "(round by round %.3f to %.3f), its halo measured %.3f ms\n",
        sweep_seconds * 1e3, cells / sweep_seconds / bound, median(r_beyond) * 1e3, *fewest * 1e3,
        *most * 1e3, plain.median_of(&PhaseSample::halo) * 1e3);
    std::printf(
        "  packing (%s, ms per step): pack x/y/z faces %.3f/%.3f/%.3f, unpack %.3f/%.3f/%.3f; "
        "%.2f MB each way, moved at %.2f of the ordinary copy (16 B per value, as a copy)\n",
        plain.name().c_str(), plain.median_of(&PhaseSample::pack_x) * 1e3,
        plain.median_of(&PhaseSample::pack_y) * 1e3, plain.median_of(&PhaseSample::pack_z) * 1e3,
        plain.median_of(&PhaseSample::unpack_x) * 1e3,
        plain.median_of(&PhaseSample::unpack_y) * 1e3,
        plain.median_of(&PhaseSample::unpack_z) * 1e3,
        plain.median_by_round([](const PhaseSample& s, std::size_t) {
          return StepCandidate::moved(s);
        }) / 1e6,
        plain.packing_fraction(r_ordinary));
    // Where packing stands: an x face (width 1) costs a whole 64-byte line per value, read to pack
    // it and written to unpack it; the y and z faces are runs of whole rows. Each figure pairs a
    // round's bytes with the same round's times (median_by_round), over the rounds where the
    // exchange moved x faces at all.
    const auto x_values = [](const PhaseSample& s) {
      return (s.bytes_x - s.swept) / double(sizeof(double));
    };
    const auto x_rounds = std::count_if(plain.samples.begin(), plain.samples.end(),
                                        [&](const PhaseSample& s) { return x_values(s) > 0; });
    const double x_rate = plain.median_by_round([&](const PhaseSample& s, std::size_t) {
      const double seconds = s.pack_x + s.unpack_x;
      return seconds > 0 ? 2.0 * 64.0 * x_values(s) / seconds : 0.0;
    });
    const double yz_fraction = plain.median_by_round([&](const PhaseSample& s, std::size_t r) {
      const double seconds = s.pack_y + s.pack_z + s.unpack_y + s.unpack_z;
      return seconds > 0 ? 4.0 * (s.bytes - s.bytes_x - s.in_place) / seconds / r_ordinary[r] : 0.0;
    });
    if (x_rate > 0 && yz_fraction > 0)
      std::printf(
          "  where packing stands: the x faces, %.0f values a line each, at %.1f GB/s of whole "
          "lines (2 x 64 B per value: packed and unpacked; %lld of %zu rounds moved them); the "
          "y and z faces at %.2f of the ordinary copy\n",
          plain.median_by_round([&](const PhaseSample& s, std::size_t) { return x_values(s); }),
          x_rate / 1e9, (long long)x_rounds, plain.samples.size(), yz_fraction);
    // The x faces' own yardstick: the same lines read by a bare loop, from memory, in the same
    // round. Where x is periodic over one rank, its faces are not packed: the unpack copies them
    // from the field to the ghosts, reading the same lines.
    const bool x_self = dims[0] == 1 && base.bc[0] == Boundary::Periodic;
    const double swept = plain.median_of(&PhaseSample::swept);
    if (swept > 0)
      std::printf(
          "  x faces: %.0f values per step stored by the sweep as it writes each line (x periodic "
          "over the rank alone), neither packed nor copied (median over rounds)\n",
          swept / double(sizeof(double)));
    const auto x_read = [&](const PhaseSample& s) {
      return x_self ? s.pack_x + s.unpack_x : s.pack_x;
    };
    const double x_read_rate = plain.median_by_round([&](const PhaseSample& s, std::size_t) {
      return x_read(s) > 0 ? 64.0 * x_values(s) / x_read(s) : 0.0;
    });
    const double x_of_gather = plain.median_by_round([&](const PhaseSample& s, std::size_t r) {
      return x_read(s) > 0 ? 64.0 * x_values(s) / x_read(s) / r_gather[r] : 0.0;
    });
    if (x_read_rate > 0 && gather_per_rank > 0)
      std::printf(
          "  x-face %s: %.1f GB/s of whole lines (a line per value read), %.2f of a bare gather "
          "of the same lines from memory in the same round (%.1f GB/s per rank)\n",
          x_self ? "copy (the rank's own faces, field to ghosts, no pack)" : "pack",
          x_read_rate / 1e9, x_of_gather, gather_per_rank / 1e9);
    std::printf(
        "  target: the plain step (dim-ordered H=1) >= 0.65 of bound; blocking at its "
        "best H >= 1.1 of bound; packing >= 0.5 of the copy\n");
    if (!json_path.empty()) {
      using json = nlohmann::ordered_json;
      json rows = json::array();
      for (const StepCandidate& cand : cands) {
        const double t = cand.median_of(&PhaseSample::step);
        rows.push_back(
            {{"halo_mode", to_string(cand.c.halo_mode)},
             {"halo_width", cand.c.halo_width},
             {"temporal_blocking", cand.c.temporal_blocking},
             {"overlap", cand.c.overlap},
             {"step_s", t},
             {"stencil_s", cand.median_of(&PhaseSample::stencil)},
             {"halo_s", cand.median_of(&PhaseSample::halo)},
             {"pack_s", cand.median_of(&PhaseSample::pack)},
             {"wait_s", cand.median_of(&PhaseSample::wait)},
             {"unpack_s", cand.median_of(&PhaseSample::unpack)},
             {"boundary_s", cand.median_of(&PhaseSample::boundary)},
             {"refill_s", cand.median_of(&PhaseSample::refill)},
             {"hidden_s", cand.median_of(&PhaseSample::hidden)},
             {"pack_by_phase_s",
              {cand.median_of(&PhaseSample::pack_x), cand.median_of(&PhaseSample::pack_y),
               cand.median_of(&PhaseSample::pack_z)}},
             {"unpack_by_phase_s",
              {cand.median_of(&PhaseSample::unpack_x), cand.median_of(&PhaseSample::unpack_y),
               cand.median_of(&PhaseSample::unpack_z)}},
             {"halo_bytes_per_step", cand.median_of(&PhaseSample::bytes)},
             {"packing_fraction_of_copy", cand.packing_fraction(r_ordinary)},
             {"cells_per_s", cells / t},
             {"fraction_of_bound", cells / t / bound},
             {"digest", digest_hex(cand.digest)},
             {"digest_matches", cand.digest == reference && cand.digest_stable}});
      }
      const json j = {{"bench", "step"},
                      {"nranks", nranks},
                      {"threads_per_rank", Exec().concurrency()},
                      {"rank_grid", dims},
                      {"n_per_rank", n},
                      {"grid", base.grid},
                      {"bc", bc_names},
                      {"stencil", stencil},
                      {"steps", steps},
                      {"warmup", warmup},
                      {"reps", reps},
                      {"copy_ordinary_bytes_per_s", copy.ordinary},
                      {"copy_streaming_bytes_per_s", copy.streaming},
                      {"line_gather_bytes_per_s", gather_per_rank * nranks},
                      {"sweep_alone_s", sweep_seconds},
                      {"bound_cells_per_s", bound},
                      {"rows", rows}};
      std::ofstream out(json_path);
      out << j.dump(2) << "\n";
      if (!out) throw std::runtime_error("could not write " + json_path);
    }
  }
  return differ == 0 ? 0 : 1;
}

}  // namespace miniapp::bench
