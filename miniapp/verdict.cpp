#include "verdict.hpp"

#include <cctype>
#include <cstdio>

#include "diagnostics.hpp"

namespace miniapp {

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::Valid:
      return "VALID";
    case Verdict::Invalid:
      return "INVALID";
    case Verdict::NotValidated:
      return "NOT VALIDATED";
    case Verdict::Interrupted:
      return "INTERRUPTED";
  }
  return "?";
}

Validation judge(std::vector<Check> checks) {
  Validation v;
  v.checks = std::move(checks);
  if (v.checks.empty()) {
    v.verdict = Verdict::NotValidated;
    v.reason =
        "no check requested (use --verify with --init sine, --spectral-check with periodic "
        "boundaries, or --expect-digest HEX)";
    return v;
  }
  std::string failed;
  for (const Check& c : v.checks)
    if (!c.passed) failed += (failed.empty() ? "" : ", ") + c.name + " (" + c.detail + ")";
  v.verdict = failed.empty() ? Verdict::Valid : Verdict::Invalid;
  v.reason = failed.empty() ? "all checks passed" : "failed: " + failed;
  return v;
}

Validation interrupted(const std::string& reason) {
  Validation v;
  v.verdict = Verdict::Interrupted;
  v.reason = reason;
  return v;
}

int exit_status(Verdict v) { return v == Verdict::Invalid ? 1 : 0; }

Check digest_check(const std::string& expected_hex, std::uint64_t digest) {
  std::string expected;
  for (char ch : expected_hex) expected += char(std::tolower(static_cast<unsigned char>(ch)));
  const std::string actual = digest_hex(digest);
  Check c;
  c.name = "digest";
  c.passed = expected == actual;
  c.detail = "digest " + actual + (c.passed ? " matches " : " differs from expected ") + expected;
  return c;
}

Check tolerance_check(const std::string& name, double error, double tolerance) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "error %.3e %s tolerance %.1e", error,
                error <= tolerance ? "<=" : ">", tolerance);
  return Check{name, error <= tolerance, buf};
}

FigureOfMerit figure_of_merit(double global_cells, std::int64_t warmup_steps,
                              std::int64_t timed_steps, double max_loop_seconds, int nodes) {
  FigureOfMerit f;
  f.warmup_steps = warmup_steps;
  f.timed_steps = timed_steps;
  f.seconds = max_loop_seconds;
  f.nodes = nodes > 0 ? nodes : 1;
  if (timed_steps > 0 && max_loop_seconds > 0) {
    f.cell_updates_per_second = global_cells * double(timed_steps) / max_loop_seconds;
    f.cell_updates_per_second_per_node = f.cell_updates_per_second / f.nodes;
  }
  return f;
}

}  // namespace miniapp
