// The benchmark result: a figure of merit (FOM) never travels without a validation verdict.
//
//   FOM = global cells x timed steps / max over ranks of the timed loop's seconds
//         [cell updates per second], and FOM / nodes per node.
//
// The verdict comes from the run's named checks (--verify, --expect-digest, --spectral-check,
// and any check a later capability adds to the list):
//
//   no check requested        -> NOT VALIDATED  (FOM printed, marked "not validated"; exit 0)
//   every check passed        -> VALID          (exit 0)
//   any check failed          -> INVALID        (reason names the failed checks; exit 1)
//   stopped early by a signal -> INTERRUPTED    (partial run, checks not applied; exit 0)
//
// Only a VALID result is a benchmark result (the run rules in the README say so).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace miniapp {

/// One built-in check of the run's answer.
struct Check {
  std::string name;  ///< "verify", "digest", ...
  bool passed = false;
  std::string detail;  ///< what was compared, in words and numbers
};

enum class Verdict { Valid, Invalid, NotValidated, Interrupted };

/// "VALID", "INVALID", "NOT VALIDATED" or "INTERRUPTED".
const char* to_string(Verdict v);

struct Validation {
  Verdict verdict = Verdict::NotValidated;
  std::string reason;  ///< why (names the failed checks, or says none was requested)
  std::vector<Check> checks;
};

/// Apply the rule above to a run's checks. Not collective.
Validation judge(std::vector<Check> checks);

/// The verdict of a run stopped before its last step: INTERRUPTED, for `reason`, no checks
/// (a partial field cannot pass or fail them). Not collective.
Validation interrupted(const std::string& reason);

/// Process exit status for a verdict: 1 for INVALID, else 0 (INTERRUPTED too: a clean stop).
int exit_status(Verdict v);

/// Compare the final digest with a reference given as 16 hex digits (any case). Not collective.
Check digest_check(const std::string& expected_hex, std::uint64_t digest);

/// Compare an error against a tolerance: passed when error <= tolerance. Not collective.
Check tolerance_check(const std::string& name, double error, double tolerance);

/// The figure of merit of a run's timed steps.
struct FigureOfMerit {
  std::int64_t warmup_steps = 0;  ///< untimed steps before the timed loop
  std::int64_t timed_steps = 0;
  double seconds = 0;  ///< max over ranks of the timed loop
  int nodes = 1;       ///< shared-memory domains spanned by the run
  double cell_updates_per_second = 0;
  double cell_updates_per_second_per_node = 0;
};

/// FOM from the global cell count, the timed steps and the slowest rank's loop time.
/// Zero when nothing was timed. Not collective.
FigureOfMerit figure_of_merit(double global_cells, std::int64_t warmup_steps,
                              std::int64_t timed_steps, double max_loop_seconds, int nodes);

}  // namespace miniapp
