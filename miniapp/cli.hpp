// The command line: CLI11 options for every Config field, and a TOML input file (--config,
// read by toml_input.hpp) whose keys are the long option names.
#pragma once

#include <optional>
#include <string>

#include "options.hpp"

namespace miniapp {

/// Outcome of parsing the command line: either a Config to run, or an exit status
/// (0 after --help/--version, 2 after a parse error) with the text to print.
struct ParseOutcome {
  std::optional<Config> config;
  int exit_code = 0;
  std::string message;  ///< help/version text (stdout) or error message (stderr)
};

/// Parse argc/argv (and the TOML file named by --config) into a Config. Not collective;
/// every rank parses the same arguments and so reaches the same verdict.
ParseOutcome parse_command_line(int argc, char** argv);

/// When parsing gave no Config: print its text from rank 0 (help on stdout, the error on
/// stderr) and return its exit status. Not collective.
int print_parse_outcome(const ParseOutcome& parsed, int rank);

}  // namespace miniapp
