#include "driver.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <utility>

#include "affinity.hpp"
#include "calibration.hpp"
#include "diagnostics.hpp"
#include "explain.hpp"
#include "mpi_utils.hpp"
#include "preflight.hpp"
#include "report.hpp"
#include "restart.hpp"
#include "text.hpp"
#include "timer.hpp"
#include "verdict.hpp"

namespace miniapp {

namespace {

constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();

/// The first multiple of `every` after `step` (kNever when every is 0).
std::int64_t next_multiple(std::int64_t step, std::int64_t every) {
  return every > 0 ? (step / every + 1) * every : kNever;
}

/// The command line that continues an interrupted run, shell-quoted: after a checkpoint was
/// written, the same arguments with any --restart replaced by `--restart latest` (looked up in
/// the same --checkpoint-dir); when the run stopped before its first step, the same arguments.
std::string continue_command(const std::vector<std::string>& args, bool from_latest) {
  const auto quote = [](const std::string& a) {
    if (!a.empty() && a.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                          "0123456789_-+=./:,@%") == std::string::npos)
      return a;
    std::string q = "'";
    for (char ch : a) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return q + "'";
  };
  std::string cmd;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (!from_latest) {
      cmd += (cmd.empty() ? "" : " ") + quote(args[i]);
      continue;
    }
    if (args[i] == "--restart") {
      ++i;  // and its value
      continue;
    }
    if (args[i].rfind("--restart=", 0) == 0) continue;
    cmd += (cmd.empty() ? "" : " ") + quote(args[i]);
  }
  return from_latest ? cmd + " --restart latest" : cmd;
}

/// --verify: the final field against the exact discrete evolution of the sine mode.
Verification verify(const Config& config, const TimeStepper& stepper) {
  const Problem problem = config.problem();
  const InitialCondition ic = problem.initial_condition();
  const double g = ic.sine_growth(problem.coefficients(), problem.stencil);
  double amplitude = 1.0;
  for (std::int64_t s = 0; s < config.steps; ++s) amplitude *= g;
  Verification v;
  v.requested = true;
  v.max_error = max_error(stepper.field(), ic, amplitude, stepper.decomposition().comm());
  // Round-off: a few ulps of the initial amplitude (1) per step, growing at most linearly
  // with the number of steps since |g| <= 1.
  v.tolerance = 4e-15 * double(config.steps + 1);
  v.passed = v.max_error <= v.tolerance;
  return v;
}

}  // namespace

std::int64_t next_stop(const Config& config, std::int64_t step) {
  return std::min(config.steps, next_multiple(step, config.checkpoint_every));
}

bool checkpoint_due(const Config& config, std::int64_t step) {
  return config.checkpoint_every > 0 && step > 0 && step % config.checkpoint_every == 0;
}

LoopOutcome run_time_loop(TimeStepper& stepper, const Config& config, std::int64_t first_step,
                          LoopServices services) {
  const Decomposition& decomp = stepper.decomposition();
  const Problem problem = stepper.problem();
  const std::int64_t warm_end = std::min(config.steps, first_step + config.warmup);
  const std::int64_t every_spectrum = services.spectral ? config.spectral_every : 0;
  const std::int64_t fault_step = services.fault ? services.fault->step : kNever;
  LoopOutcome out;
  out.first_step = out.step = first_step;
  std::int64_t& step = out.step;

  // The loop only reads the field: through the const view, so that the stepper keeps knowing
  // its x ghosts current (TimeStepper::field).
  const Field& field = std::as_const(stepper).field();
  const auto write_checkpoint = [&] {
    services.checkpoints.write(
        field, make_checkpoint_meta(problem, step, decomp.dims(), config.halo_width),
        decomp.comm());
  };
  // Spectra go to the CSV and, the latest one, into the following checkpoints.
  const auto record_spectrum = [&] {
    const EnergySpectrum e = services.spectral->record(field, step);
    services.checkpoints.set_spectrum(
        {step, e.energy, double(step) * problem.dt, e.k, e.k_units()});
  };
  // The vote started before the loop covers signals received during start-up: no step has
  // run since the start (or the restart's checkpoint), so there is nothing new to save.
  if (services.stop_vote.poll()) {
    out.interruption = {services.stop_vote.signal(), step, "", ""};
    return out;
  }
  if (decomp.rank() == 0) {  // a signal from now on stops the run at a round, with a checkpoint
    std::printf("time loop: step %lld to %lld\n", (long long)step, (long long)config.steps);
    std::fflush(stdout);
  }
  if (every_spectrum > 0 && step % every_spectrum == 0) record_spectrum();

  while (step < config.steps) {
    // A round ends at the next step where something is due, so every duty sees its exact step.
    const std::int64_t due =
        std::min({next_stop(config, step), step < warm_end ? warm_end : kNever,
                  next_multiple(step, every_spectrum), step < fault_step ? fault_step : kNever});
    const int k = int(std::min<std::int64_t>(config.halo_width, due - step));
    bool stop = false;
    {
      ScopedTimer timer(out.seconds, "miniapp::round");
      stepper.advance(k);  // halo exchange, k sub-steps of update and boundary refills
      stop = services.stop_vote.poll();
    }
    step += k;
    if (stop && step < config.steps) {  // the ranks agreed: stop here, continue later
      write_checkpoint();
      out.interruption = {services.stop_vote.signal(), step,
                          checkpoint_path(config.checkpoint_dir, step), ""};
      return out;
    }
    if (step == warm_end) {  // the timed part of the run starts here
      stepper.reset_timers();
      out.seconds = 0;
    }
    if (every_spectrum > 0 && step % every_spectrum == 0) record_spectrum();
    if (checkpoint_due(config, step) ||
        (step == fault_step && services.fault->kind == FaultKind::Io))
      write_checkpoint();
    if (services.fault) inject_fault(*services.fault, step, decomp.rank());
    services.progress.update(step);
  }
  services.stop_vote.finish();  // a signal after the last round changes nothing
  return out;
}

int run_diffusion(Config config, const std::vector<std::string>& args, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // A restart takes the settings not given from the checkpoint and refuses conflicting ones.
  std::optional<Restart> restart;
  if (!config.restart.empty()) {
    restart = prepare_restart(config, comm);
    config = restart->config;
  }
  const std::int64_t first_step = restart ? restart->meta.step : 0;
  int nranks = 1;
  MPI_Comm_size(comm, &nranks);
  if (config.explain_only) {  // plans only: nothing is allocated, written or run
    const int ranks = config.explain_ranks > 0 ? config.explain_ranks : nranks;
    config.validate();
    config.validate_for(ranks);
    if (rank == 0) {
      if (config.halo_width_auto)  // the width is measured at start-up, which runs nothing here
        std::cout << "halo width auto: chosen by a calibration at start-up; explained at H=1\n";
      std::cout << explain(config, ranks, config.explain_rank) << std::flush;
    }
    return 0;
  }
  MemoryEstimate memory = preflight(config, comm);
  // The start-up measurements, before the fields exist: they need memory for a moment, never
  // on top of the run's.
  std::optional<Roofline> roofline;
  if (config.roofline) {
    roofline = measure_roofline(config, comm);
    if (rank == 0) {
      std::printf(
          "roofline: copy %.2f GB/s ordinary, %.2f GB/s streaming (all ranks, %lld doubles per "
          "rank, %.2f s) -> bound %.4e cell upd/s\n",
          roofline->copy.ordinary / 1e9, roofline->copy.streaming / 1e9,
          (long long)roofline->elements, roofline->seconds, roofline->bound());
      std::fflush(stdout);
    }
  }
  SweepStores first_stores = SweepStores::Auto;  // where the stores are chosen, the first kind
  double calibrated_cache_rate = 0;              // per rank: the blocked rounds' kernels in cache
  if (config.halo_width_auto) {
    const HaloWidthChoice auto_width =
        choose_halo_width(config, roofline ? &*roofline : nullptr, comm);
    const BlockingChoice& c = auto_width.choice;
    const BlockingModelInputs& m = auto_width.model;
    if (rank == 0) {
      std::string timed;
      for (const TimedWidth& t : auto_width.timed) {
        char one[128];
        std::snprintf(one, sizeof one, ", H=%d blocked timed %.4e (tile %s", t.width, t.rate,
                      joined(t.tile, "x").c_str());
        timed += one;
        if (t.slower_rate > 0) {
          std::snprintf(one, sizeof one, "; %s %.4e", joined(t.slower_tile, "x").c_str(),
                        t.slower_rate);
          timed += one;
        }
        timed += ")";
      }
      if (auto_width.stores != SweepStores::Auto)
        timed += std::string("; faster stores ") + to_string(auto_width.stores);
      std::printf(
          "halo width auto: chose H=%d, temporal blocking %s%s (predicted %.4e vs plain %.4e "
          "cell upd/s; per rank: copy bound %.4e, in cache %.4e, plain sweep %.4e%s; %.2f s)\n",
          c.width, c.blocking ? "on, tile " : "off", c.blocking ? joined(c.tile, "x").c_str() : "",
          c.rate * nranks, c.plain_rate * nranks, m.memory_rate, m.cache_rate, m.plain_rate,
          timed.c_str(), auto_width.seconds);
      std::fflush(stdout);
    }
    config = with_halo_width(config, c);
    first_stores = auto_width.stores;
    calibrated_cache_rate = m.cache_rate;
    memory = preflight(config, comm);  // the chosen width's ghosts and messages
  }
  // The blocked rounds' other ceiling, beside the copy: their line kernels in cache (a few
  // ms, where the calibration has not measured it).
  double blocked_cache_rate = 0;
  if (roofline && config.temporal_blocking)
    blocked_cache_rate = calibrated_cache_rate > 0
                             ? calibrated_cache_rate
                             : blocked_rounds_cache_rate(config.stencil, comm);
  if (config.explain && rank == 0)
    std::cout << explain(config, nranks, config.explain_rank) << std::flush;
  preflight_checkpoints(config, comm);
  const std::optional<FaultPlan> fault = fault_from_environment(config, first_step, comm);
  if (rank == 0) {  // before the fields are allocated
    if (memory.fft_bytes_per_rank > 0)
      std::printf(
          "memory estimate: %.4g MB per rank for fields, halo and FFT buffers, of which %s FFT "
          "(spectral diagnostics) %.4g MB = %.3g x the field (x %d rank(s) per node; %.4g GB "
          "available per node)\n",
          memory.bytes_per_rank / 1e6, to_string(config.fft), memory.fft_bytes_per_rank / 1e6,
          memory.fft_bytes_per_rank / memory.field_bytes_per_rank, memory.node_ranks,
          memory.available_bytes / 1e9);
    else
      std::printf(
          "memory estimate: %.4g MB per rank for fields and halo buffers (x %d rank(s) "
          "per node; %.4g GB available per node)\n",
          memory.bytes_per_rank / 1e6, memory.node_ranks, memory.available_bytes / 1e9);
    if (fault) std::printf("fault injection: MINIAPP_FAULT=%s\n", fault->text.c_str());
    if (restart && !restart->note.empty())
      std::printf("miniapp: note: %s\n", restart->note.c_str());
    std::fflush(stdout);
  }

  // Where every rank runs, printed before any work so wrong binding is seen at once.
  const int threads = Exec().concurrency();
  const std::vector<RankBinding> bindings = gather_bindings(comm, threads);
  const char* proc_bind = std::getenv("OMP_PROC_BIND");
  const std::vector<std::string> warnings =
      binding_warnings(bindings, threads, proc_bind ? proc_bind : "");
  if (rank == 0) {
    print_bindings(std::cout, bindings, warnings);
    std::cout.flush();
  }

  // Held so that the fields can be freed before the copy is measured again after the run.
  std::optional<TimeStepper> held_stepper(std::in_place, config.problem(), config.halo(),
                                          config.blocking(), resolve_rank_grid(config, nranks),
                                          comm, config.sweep_stores, first_stores);
  TimeStepper& stepper = *held_stepper;
  if (restart) load_restart(*restart, stepper);
  const Decomposition& decomp = stepper.decomposition();
  // The FFT plans and buffers of the spectral features are built once, before the loop.
  std::unique_ptr<SpectralDiagnostics> spectral;
  if (config.spectral())
    spectral = std::make_unique<SpectralDiagnostics>(
        decomp, config.problem(), config.fft_options(), config.spectrum_options(),
        config.spectral_every > 0 ? config.spectrum_file : "");
  CheckpointOptions checkpoint_options = config.checkpoint_options();
  if (fault) checkpoint_options.before_write = io_fault_hook(*fault, rank);
  CheckpointWriter checkpoints(checkpoint_options);
  Progress progress(progress_interval(config.progress, rank == 0 && interactive_terminal()),
                    first_step, config.steps, rank == 0 ? &std::cout : nullptr);
  StopVote stop_vote(comm);

  LoopOutcome loop = run_time_loop(stepper, config, first_step,
                                   {checkpoints, spectral.get(), stop_vote, progress, fault});

  Interruption& stopped = loop.interruption;
  const bool stopped_at_start = stopped.signal != 0 && stopped.checkpoint.empty();
  if (stopped_at_start) {
    stopped.continue_with = continue_command(args, false);
    if (rank == 0) {
      std::printf(
          "miniapp: %s received during start-up: stopped before the first step (step %lld of "
          "%lld); no checkpoint written\n"
          "miniapp: to continue, launch the same command again (mpiexec/srun ...):\n  %s\n",
          signal_name(stopped.signal).c_str(), (long long)stopped.step, (long long)config.steps,
          stopped.continue_with.c_str());
      std::fflush(stdout);
    }
  } else if (stopped.signal != 0) {
    stopped.continue_with = continue_command(args, true);
    if (rank == 0) {
      std::printf(
          "miniapp: %s received: stopped at step %lld of %lld; checkpoint %s%s\n"
          "miniapp: to continue, launch as before (mpiexec/srun ...) with:\n  %s\n",
          signal_name(stopped.signal).c_str(), (long long)stopped.step, (long long)config.steps,
          stopped.checkpoint.c_str(),
          config.given.count("--checkpoint-dir")
              ? ""
              : " (--checkpoint-dir not given: the default ./checkpoints)",
          stopped.continue_with.c_str());
      std::fflush(stdout);
    }
  }

  // The run's named checks give the verdict; RESULT VALID needs at least one and all to pass.
  const bool complete = stopped.signal == 0;
  Verification verification;
  std::vector<Check> checks;
  if (config.verify && complete) {
    verification = verify(config, stepper);
    checks.push_back(tolerance_check("verify", verification.max_error, verification.tolerance));
  }
  const FieldSummary summary = stepper.summary();
  if (!config.expect_digest.empty())
    checks.push_back(digest_check(config.expect_digest, summary.digest));
  std::optional<SpectralCheckResult> spectral_check;
  if (config.spectral_check && complete) {
    // The final field against the exact Fourier-space evolution of the initial one.
    spectral_check = spectral->check(stepper.field(), config.steps);
    checks.push_back(
        tolerance_check("spectral", spectral_check->max_error, spectral_check->tolerance));
  }
  const Validation validation =
      complete
          ? judge(std::move(checks))
          : interrupted("stopped by " + signal_name(stopped.signal) +
                        (stopped_at_start ? " before the first step (step " : " at step ") +
                        std::to_string(stopped.step) + " of " + std::to_string(config.steps) +
                        (stopped_at_start
                             ? "); nothing run, not validated; launch the same command again"
                             : "; partial run, not validated; continue with --restart latest"));

  const std::string restart_path = restart ? restart->path : "";
  RunReport report =
      make_report({config, stepper, loop, summary, verification, spectral_check, validation,
                   checkpoints.stats(), restart_path, memory, bindings, warnings, roofline});
  if (roofline && complete) {
    // The copy again, where the fields were: on a shared machine the memory bandwidth moves
    // during a run (the bounds of one script's runs, minutes apart, spanned 1.6 x on a 2-core VM),
    // and a fraction of one bound measured before the run cannot say so. The fields are freed
    // first, so the copy's arrays never sit on top of them.
    spectral.reset();
    held_stepper.reset();
    report.roofline_after = measure_roofline(config, comm);
  }
  report.blocked_cache_rate = blocked_cache_rate;
  if (rank == 0) {
    print_report(std::cout, report);
    std::cout.flush();
    if (!config.report_path.empty()) {
      std::ofstream out(config.report_path);
      out << report_json(report);
      if (!out) throw std::runtime_error("could not write the report " + config.report_path);
    }
  }
  return exit_status(report.validation.verdict);
}

}  // namespace miniapp
