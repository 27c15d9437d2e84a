// Fault injection for tests of the error paths, from one environment variable read once at
// start-up:
//
//   MINIAPP_FAULT=rank:R,step:S,kind:K      (keys in any order, each once)
//
//   kind:alloc  after step S, rank R asks for a buffer no machine has, through the real
//               allocation path (a Kokkos View): Kokkos 3.4 reports the failed malloc as a
//               std::runtime_error ("Kokkos failed to allocate memory ... insufficient
//               memory"), Kokkos 4 as a std::bad_alloc; the driver names either
//   kind:throw  after step S, rank R throws (an error only one rank sees)
//   kind:io     a checkpoint is written at step S and fails on rank R alone, inside the
//               collective HDF5 write (rank R leaves it; the others are left waiting in it)
//
// In every case the job must end within seconds with a message naming rank R and the cause,
// and a non-zero exit status (tests/fault_injection.sh). A malformed value is bad input: one
// message from rank 0, exit 2.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string>

#include "checkpoint_file.hpp"
#include "options.hpp"

namespace miniapp {

enum class FaultKind { Alloc, Io, Throw };

struct FaultPlan {
  int rank = 0;
  std::int64_t step = 0;
  FaultKind kind = FaultKind::Throw;
  std::string text;  ///< the variable's value, for messages
};

/// Parse a MINIAPP_FAULT value. Throws ConfigError naming the value and the rule. Not
/// collective.
FaultPlan parse_fault(const std::string& text);

/// MINIAPP_FAULT as rank 0 sees it (broadcast, so every rank reaches the same verdict),
/// parsed and checked against the run: rank below the rank count, start_step < step <= steps.
/// std::nullopt when unset or empty. Collective; throws ConfigError on every rank.
std::optional<FaultPlan> fault_from_environment(const Config& config, std::int64_t start_step,
                                                MPI_Comm comm);

/// After step `step` on rank `rank`: perform an alloc or throw fault when it is due (a no-op
/// otherwise, and for kind io). Not collective: it throws on one rank only.
void inject_fault(const FaultPlan& plan, std::int64_t step, int rank);

/// The checkpoint writer's hook (CheckpointOptions::before_write) for an io fault: on rank
/// plan.rank, the write of the checkpoint of step plan.step fails inside the collective write.
/// Empty for other kinds and other ranks. Not collective.
BeforeWrite io_fault_hook(const FaultPlan& plan, int rank);

}  // namespace miniapp
