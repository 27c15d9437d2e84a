#include "fault_injection.hpp"

#include <Kokkos_Core.hpp>
#include <cstdlib>
#include <map>
#include <sstream>
#include <stdexcept>

#include "mpi_utils.hpp"

namespace miniapp {

namespace {

[[noreturn]] void bad(const std::string& text, const std::string& why) {
  throw ConfigError("MINIAPP_FAULT=" + text + ": " + why +
                    " (expected rank:R,step:S,kind:alloc|io|throw, e.g. rank:1,step:5,kind:io)");
}

/// A non-negative decimal integer, or nothing.
std::optional<std::int64_t> number(const std::string& s) {
  if (s.empty() || s.size() > 15 || s.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::stoll(s);
}

}  // namespace

FaultPlan parse_fault(const std::string& text) {
  std::map<std::string, std::string> fields;
  std::stringstream parts(text);
  std::string part;
  while (std::getline(parts, part, ',')) {
    const auto colon = part.find(':');
    if (colon == std::string::npos) bad(text, "'" + part + "' is not key:value");
    const std::string key = part.substr(0, colon), value = part.substr(colon + 1);
    if (key != "rank" && key != "step" && key != "kind") bad(text, "unknown key '" + key + "'");
    if (!fields.emplace(key, value).second) bad(text, "'" + key + "' given twice");
  }
  for (const char* key : {"rank", "step", "kind"})
    if (!fields.count(key)) bad(text, std::string("'") + key + "' is missing");
  FaultPlan plan;
  plan.text = text;
  const auto rank = number(fields["rank"]);
  if (!rank) bad(text, "rank '" + fields["rank"] + "' is not a rank number");
  plan.rank = int(*rank);
  const auto step = number(fields["step"]);
  if (!step) bad(text, "step '" + fields["step"] + "' is not a step number");
  plan.step = *step;
  const std::string& kind = fields["kind"];
  if (kind == "alloc")
    plan.kind = FaultKind::Alloc;
  else if (kind == "io")
    plan.kind = FaultKind::Io;
  else if (kind == "throw")
    plan.kind = FaultKind::Throw;
  else
    bad(text, "kind '" + kind + "' is not alloc, io or throw");
  return plan;
}

std::optional<FaultPlan> fault_from_environment(const Config& config, std::int64_t start_step,
                                                MPI_Comm comm) {
  int rank = 0, nranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nranks);
  std::string text;
  if (rank == 0)
    if (const char* v = std::getenv("MINIAPP_FAULT")) text = v;
  int len = int(text.size());
  mpi_check(MPI_Bcast(&len, 1, MPI_INT, 0, comm), "MPI_Bcast");
  text.resize(std::size_t(len));
  mpi_check(MPI_Bcast(text.data(), len, MPI_CHAR, 0, comm), "MPI_Bcast");
  if (text.empty()) return std::nullopt;
  FaultPlan plan = parse_fault(text);
  if (plan.rank >= nranks)
    bad(text, "rank " + std::to_string(plan.rank) + " does not exist in a run of " +
                  std::to_string(nranks) + " ranks");
  if (plan.step <= start_step || plan.step > config.steps)
    bad(text, "step " + std::to_string(plan.step) + " is not one this run ends (" +
                  std::to_string(start_step + 1) + " to --steps=" + std::to_string(config.steps) +
                  ")");
  return plan;
}

void inject_fault(const FaultPlan& plan, std::int64_t step, int rank) {
  if (rank != plan.rank || step != plan.step) return;
  const std::string what = "MINIAPP_FAULT=" + plan.text;
  if (plan.kind == FaultKind::Throw)
    throw std::runtime_error("injected exception after step " + std::to_string(step) + " (" + what +
                             ")");
  if (plan.kind == FaultKind::Alloc) {
    // A real allocation through Kokkos, of 2^60 bytes: no machine has them, so malloc fails
    // and Kokkos throws, as for a large allocation on a full node.
    Kokkos::View<char*, Kokkos::HostSpace> huge(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "miniapp::fault::alloc"), std::size_t(1)
                                                                                      << 60);
    throw std::logic_error("the injected allocation of 2^60 bytes succeeded (" + what + ")");
  }
}

BeforeWrite io_fault_hook(const FaultPlan& plan, int rank) {
  if (plan.kind != FaultKind::Io || rank != plan.rank) return {};
  return [plan](std::int64_t step, const std::string& path) {
    if (step == plan.step)
      throw std::runtime_error("H5Dwrite(" + path +
                               ") failed: injected I/O error (MINIAPP_FAULT=" + plan.text + ")");
  };
}

}  // namespace miniapp
