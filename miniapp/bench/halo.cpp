// miniapp bench halo: the halo exchange family swept over modes x packing x halo width H x
// overlap on one grid and rank count, in one run: time per step split into stencil, pack,
// wait, unpack; messages, bytes and redundant work per step; the exchange alone against an
// alpha-beta bound measured in the same run. This is the "exchange every k steps" table.
//
// The alpha-beta bound of one exchange (rank 0's plan): every message of the plan is timed on
// its own as a ping-pong of the same size between the same two ranks (half the round trip;
// a self-message is a send-receive to self), and the times are summed over the messages of a
// phase and over phases: what the exchange would cost if each message ran at the speed of an
// isolated transfer, one after the other. Overlapping transfers can beat it; packing,
// unpacking and synchronisation make an exchange slower. Exchanges alone and ping-pongs report
// medians (the machine may be shared); the per-step columns are plain averages.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "bench.hpp"
#include "halo_exchange.hpp"
#include "mpi_utils.hpp"
#include "options.hpp"
#include "time_stepper.hpp"
#include "timer.hpp"

namespace miniapp::bench {

namespace {

/// One-way time of a `count`-double message between rank 0 and `peer` (ping-pong, median of
/// reps, half round trip). Collective over comm (only rank 0 and peer communicate).
double one_way(MPI_Comm comm, int peer, int count, int reps) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::vector<double> a(std::size_t(std::max(count, 1))), b(a.size());
  std::vector<double> t;
  MPI_Barrier(comm);
  if (rank != 0 && rank != peer) return 0;
  for (int r = 0; r < reps + 2; ++r) {
    const double t0 = MPI_Wtime();
    if (peer == 0) {  // a self-message: what the exchange does to itself
      mpi_check(MPI_Sendrecv(a.data(), count, MPI_DOUBLE, 0, 7, b.data(), count, MPI_DOUBLE, 0, 7,
                             comm, MPI_STATUS_IGNORE),
                "MPI_Sendrecv (bench)");
      if (r >= 2) t.push_back(MPI_Wtime() - t0);
      continue;
    }
    if (rank == 0) {
      mpi_check(MPI_Send(a.data(), count, MPI_DOUBLE, peer, 7, comm), "MPI_Send (bench)");
      mpi_check(MPI_Recv(b.data(), count, MPI_DOUBLE, peer, 7, comm, MPI_STATUS_IGNORE),
                "MPI_Recv (bench)");
    } else {
      mpi_check(MPI_Recv(b.data(), count, MPI_DOUBLE, 0, 7, comm, MPI_STATUS_IGNORE),
                "MPI_Recv (bench)");
      mpi_check(MPI_Send(a.data(), count, MPI_DOUBLE, 0, 7, comm), "MPI_Send (bench)");
    }
    if (r >= 2) t.push_back(0.5 * (MPI_Wtime() - t0));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/// Alpha-beta bound of rank 0's plan (see the header comment); result on every rank.
/// Collective over comm. `cache` maps (peer, count) to measured one-way times.
double alpha_beta_bound(MPI_Comm comm, const HaloPlan& plan,
                        std::map<std::pair<int, int>, double>& cache, int reps) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // Rank 0's messages, broadcast so that every rank walks the same schedule.
  std::vector<int> sched;
  if (rank == 0)
    for (const HaloMessage& m : plan.messages)
      sched.push_back(m.peer), sched.push_back(int(m.send.count()));
  int len = int(sched.size());
  MPI_Bcast(&len, 1, MPI_INT, 0, comm);
  sched.resize(std::size_t(len));
  MPI_Bcast(sched.data(), len, MPI_INT, 0, comm);
  double bound = 0;
  for (int i = 0; i < len; i += 2) {
    const auto key = std::make_pair(sched[std::size_t(i)], sched[std::size_t(i) + 1]);
    auto it = cache.find(key);
    if (it == cache.end()) {
      double t = one_way(comm, key.first, key.second, reps);
      MPI_Bcast(&t, 1, MPI_DOUBLE, 0, comm);
      it = cache.emplace(key, t).first;
    }
    bound += it->second;
  }
  return bound;
}

/// The packing column: the neighbourhood collective always sends subarray datatypes.
const char* pack_name(const Config& c) {
  return c.halo_mode == HaloMode::NeighborColl ? "subarray" : to_string(c.pack);
}

struct Row {
  Config c;
  double step = 0, stencil = 0, pack = 0, wait = 0, unpack = 0, exposed = 0, hidden = 0;
  double messages = 0, bytes = 0, redundant = 0;  ///< per step per rank (avg)
  double exchange = 0, bound = 0;                 ///< one exchange alone, alpha-beta bound
};

}  // namespace

int halo(int argc, char** argv, MPI_Comm comm) {
  int rank = 0, nranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nranks);
  int n = 64, steps = 16, warmup = 8, reps = 20, stencil = 7;
  std::vector<int> grid, ranks{0, 0, 0}, widths{1, 2, 4, 8};
  std::vector<std::string> modes{"dim-ordered", "neighbors26", "neighbor-coll", "faces"};
  std::string json_path;
  CLI::App app{
      "Halo exchange family: modes x pack x halo width x overlap, one table. Each rank "
      "owns an n^3 block (or --grid), periodic in every dimension.",
      "miniapp bench halo"};
  app.option_defaults()->always_capture_default();
  app.add_option("--n", n, "cells per dimension per rank (when --grid is not given)")
      ->check(CLI::Range(8, 1024));
  app.add_option("--grid", grid, "global cells NX NY NZ (overrides --n)")->expected(3);
  app.add_option("--ranks", ranks, "rank grid PX PY PZ (0 = choose)")->expected(3);
  app.add_option("--stencil", stencil, "7 or 27")->check(CLI::IsMember({7, 27}));
  app.add_option("--widths", widths, "halo widths H to sweep")->check(CLI::Range(1, 64));
  app.add_option("--modes", modes, "halo modes to sweep")
      ->check(CLI::IsMember({"dim-ordered", "neighbors26", "neighbor-coll", "faces"}));
  app.add_option("--steps", steps, "timed steps per configuration")->check(CLI::Range(1, 100000));
  app.add_option("--warmup", warmup, "untimed steps first")->check(CLI::Range(0, 100000));
  app.add_option("--reps", reps, "exchanges timed alone, and ping-pongs per message size")
      ->check(CLI::Range(1, 100000));
  app.add_option("--json", json_path, "write the table as JSON to this file");
  std::vector<double> petsc_seconds;
  app.add_option("--petsc-seconds", petsc_seconds,
                 "pairs H SECONDS: PETSc DMGlobalToLocal time per exchange measured by "
                 "miniapp_petsc_halo on the same grid and ranks, to print ours/PETSc ratios");
  if (const int status = parse_options(app, argc, argv, comm); status >= 0) return status;

  Config base;
  base.stencil = stencil;
  base.ranks = {ranks[0], ranks[1], ranks[2]};
  base.dt = stencil == 27 ? 0.2 : 0.1;
  const Index3 dims = resolve_rank_grid(base, nranks);  // with base.grid: only the shape matters
  base.grid = grid.empty() ? Index3{n * dims[0], n * dims[1], n * dims[2]}
                           : Index3{grid[0], grid[1], grid[2]};
  base.ranks = grid.empty() ? dims : base.ranks;
  std::map<std::pair<int, int>, double> pingpong;
  std::vector<Row> rows;
  Index3 used_dims{};
  for (const std::string& mode : modes)
    for (PackKind pack : {PackKind::Kernel, PackKind::Datatype})
      for (int h : widths)
        for (bool overlap : {false, true}) {
          Row row;
          row.c = base;
          row.c.halo_mode = *value_of(kHaloModeNames, mode);
          row.c.pack = pack;
          row.c.halo_width = h;
          row.c.overlap = overlap;
          try {
            row.c.validate();
            row.c.validate_for(nranks);
            resolve_rank_grid(row.c, nranks);
          } catch (const ConfigError&) {
            continue;  // not a valid combination (faces with H > 1, datatype collective, ...)
          }
          TimeStepper sim(row.c.problem(), row.c.halo(), row.c.blocking(),
                          resolve_rank_grid(row.c, nranks), comm);
          used_dims = sim.decomposition().dims();
          sim.run(warmup);
          sim.reset_timers();
          double loop = 0;
          {
            ScopedTimer timer(loop, "miniapp::bench::halo::steps");
            sim.run(steps);
          }
          const PhaseTimes& t = sim.times();
          const HaloCounters& hc = sim.halo().counters();
          const double s = steps;
          row.step = reduce_stat(loop, comm).max / s;
          row.stencil = reduce_stat(t.stencil, comm).avg / s;
          row.pack = reduce_stat(hc.pack, comm).avg / s;
          row.wait = reduce_stat(hc.wait, comm).avg / s;
          row.unpack = reduce_stat(hc.unpack, comm).avg / s;
          row.exposed = reduce_stat(t.halo, comm).avg / s;
          row.hidden = reduce_stat(t.hidden, comm).avg / s;
          row.messages = reduce_stat(double(hc.messages) / s, comm).avg;
          row.bytes = reduce_stat(double(hc.bytes) / s, comm).avg;
          row.redundant = reduce_stat(double(t.redundant) / s, comm).avg /
                          double(sim.field().interior().count());
          if (!overlap) {
            // The exchange alone, on the stepper's field, and its alpha-beta bound.
            auto ex = make_halo_exchange(row.c.halo(), sim.decomposition(), sim.field(), row.c.bc,
                                         row.c.bc_value);
            ex->exchange(sim.field());
            MPI_Barrier(comm);
            std::vector<double> times;
            for (int r = 0; r < reps; ++r) {
              const double t0 = MPI_Wtime();
              ex->exchange(sim.field());
              times.push_back(MPI_Wtime() - t0);
            }
            std::sort(times.begin(), times.end());  // median: robust to a noisy machine
            row.exchange = reduce_stat(times[times.size() / 2], comm).max;
            row.bound = alpha_beta_bound(comm, ex->plan(), pingpong, reps);
          }
          rows.push_back(row);
        }

  // The PETSc peer runs as its own executable (miniapp_petsc_halo, see its header comment):
  // Debian's PETSc loads Trilinos' copy of Kokkos, which cannot share a process with ours.
  // --petsc-seconds passes its measured time per exchange (per H) to print the ratios here.
  std::map<int, double> petsc;
  for (std::size_t i = 0; i + 1 < petsc_seconds.size(); i += 2)
    petsc[int(petsc_seconds[i])] = petsc_seconds[i + 1];

  if (rank == 0) {
    std::printf(
        "bench halo: %d rank(s) = %d x %d x %d, %d thread(s) each, grid %d x %d x %d "
        "(periodic), %d-point stencil, %d timed steps after %d\n",
        nranks, used_dims[0], used_dims[1], used_dims[2], Exec().concurrency(), base.grid[0],
        base.grid[1], base.grid[2], stencil, steps, warmup);
    std::printf(
        "  per step and rank: times in us (step: slowest rank; others: average); "
        "exch = one exchange alone (median, slowest rank), bound = alpha-beta bound of that "
        "exchange\n");
    std::printf("  %-13s %-8s %2s %3s %9s %9s %8s %8s %8s %8s %6s %10s %6s %9s %9s %5s\n", "mode",
                "pack", "H", "ovl", "step", "stencil", "pack", "wait", "unpack", "hidden", "msgs",
                "bytes", "redun", "exch", "bound", "ratio");
    for (const Row& r : rows) {
      std::printf("  %-13s %-8s %2d %3s %9.1f %9.1f %8.1f %8.1f %8.1f %8.1f %6.2f %10.0f %5.1f%%",
                  to_string(r.c.halo_mode), pack_name(r.c), r.c.halo_width,
                  r.c.overlap ? "on" : "off", r.step * 1e6, r.stencil * 1e6, r.pack * 1e6,
                  r.wait * 1e6, r.unpack * 1e6, r.hidden * 1e6, r.messages, r.bytes,
                  100.0 * r.redundant);
      if (r.c.overlap)
        std::printf(" %9s %9s %5s\n", "-", "-", "-");
      else
        std::printf(" %9.1f %9.1f %5.2f\n", r.exchange * 1e6, r.bound * 1e6,
                    r.bound > 0 ? r.exchange / r.bound : 0.0);
    }
    if (petsc.empty())
      std::printf(
          "  PETSc peer: not given; run scripts/bench_halo_vs_petsc.sh (needs PETSc at "
          "configure time) or pass --petsc-seconds H SECONDS ...\n");
    for (const auto& [h, tp] : petsc) {
      std::printf("  PETSc DMDA BOX DMGlobalToLocal, H=%d: %9.1f us per exchange;", h, tp * 1e6);
      for (const Row& r : rows)
        if (r.c.halo_width == h && !r.c.overlap)
          std::printf("  %s/%s %.2fx", to_string(r.c.halo_mode), pack_name(r.c), r.exchange / tp);
      std::printf("  (ours / PETSc)\n");
    }
    if (!json_path.empty()) {
      using json = nlohmann::ordered_json;
      json rows_json = json::array();
      for (const Row& r : rows) {
        json row = {{"mode", to_string(r.c.halo_mode)},
                    {"pack", pack_name(r.c)},
                    {"halo_width", r.c.halo_width},
                    {"overlap", r.c.overlap},
                    {"step_s", r.step},
                    {"stencil_s", r.stencil},
                    {"pack_s", r.pack},
                    {"wait_s", r.wait},
                    {"unpack_s", r.unpack},
                    {"exposed_halo_s", r.exposed},
                    {"hidden_s", r.hidden},
                    {"messages", r.messages},
                    {"bytes", r.bytes},
                    {"redundant_fraction", r.redundant}};
        if (!r.c.overlap) {
          row["exchange_s"] = r.exchange;
          row["alpha_beta_bound_s"] = r.bound;
        }
        rows_json.push_back(row);
      }
      json petsc_json = json::array();
      for (const auto& [h, tp] : petsc)
        petsc_json.push_back({{"halo_width", h}, {"exchange_s", tp}});
      const json j = {{"bench", "halo"},        {"nranks", nranks},
                      {"rank_grid", used_dims}, {"grid", base.grid},
                      {"stencil", stencil},     {"steps", steps},
                      {"rows", rows_json},      {"petsc_dmda_global_to_local", petsc_json}};
      std::ofstream out(json_path);
      out << j.dump(2) << "\n";
      if (!out) throw std::runtime_error("could not write " + json_path);
    }
  }
  return 0;
}

}  // namespace miniapp::bench
