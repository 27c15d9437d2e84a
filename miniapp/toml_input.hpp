// TOML input files: toml++ reads the file strictly (every syntax error is refused with its
// line and column) and hands CLI11 the keys as if they were options, so one set of
// definitions, validators and messages serves both. Keys are the long option names
// (`grid = [64, 64, 64]`, `sine-mode = [1, 2, 1]`); the command line overrides the file.
#pragma once

#include <CLI/CLI.hpp>
#include <istream>
#include <string>
#include <vector>

namespace miniapp {

/// CLI11's reader of --config files, backed by toml++. Throws ConfigError naming the file,
/// line and column of a syntax error, and the key of a value miniapp cannot take (a table,
/// an array of arrays).
class TomlInput : public CLI::Config {
 public:
  /// `path` names the file in messages (CLI11 opens it and hands over the stream).
  explicit TomlInput(std::string path) : path_(std::move(path)) {}
  std::vector<CLI::ConfigItem> from_config(std::istream& input) const override;
  std::string to_config(const CLI::App* app, bool default_also, bool write_description,
                        std::string prefix) const override;

 private:
  std::string path_;
};

/// Refuse a --config that is not an existing, readable regular file: a FIFO would block the
/// read until a writer appears (a hang, not an error), a directory would read as an empty,
/// silently accepted input. Throws ConfigError. Not collective.
void check_config_file(const std::string& path);

}  // namespace miniapp
