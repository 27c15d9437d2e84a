// Hostile input, deterministic: a seeded generator mutates valid command lines and the TOML
// files of inputs/ and runs every case through what miniapp does before it allocates anything:
// parse_command_line (CLI11 + TOML), then preflight on MPI_COMM_SELF (validate, validate_for,
// the rank grid, the memory estimate, the report path) and validate_for / resolve_rank_grid for
// more rank counts. All in one process, so a case that crashes, leaks or hits undefined
// behaviour fails here (the sanitizer stage runs it too).
//
//   fuzz_config INPUT_DIR [--cases N] [--seed S]      (under mpiexec -n 1)
//   MINIAPP_FUZZ_CASES=N in the environment overrides --cases.
//
// Mutations: truncation, random bytes, huge / negative / NaN / Inf / 1e309 numbers, empty and
// very long strings, unicode and invalid UTF-8, duplicated keys and options, wrong types, arrays
// and option lists of the wrong length, '--opt=value' forms, a directory / FIFO / missing file
// as --config. Each case must end in exactly one of:
//   - rejected: exit code 2 (or ConfigError) with a non-empty message;
//   - --help/--version: exit code 0 with its text;
//   - accepted: the Config satisfies the invariants below, restated here independently of
//     Config::validate().
// A violation prints the seed, the case number, the arguments and the TOML text, exit 1.
#include <dirent.h>
#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "numerics.hpp"
#include "options.hpp"
#include "preflight.hpp"
#include "time_stepper.hpp"

namespace {

using namespace miniapp;

enum class Kind { Int, Real, Name, Path, Text, Flag };

struct OptionSpec {
  const char* name;  ///< long option name, also the TOML key (without "--")
  int arity;
  Kind kind;
  std::vector<const char*> good;  ///< plausible values
};

const std::vector<OptionSpec>& options() {
  static const std::vector<OptionSpec> table{
      {"grid", 3, Kind::Int, {"8", "6", "12", "1", "5"}},
      {"ranks", 3, Kind::Int, {"0", "1", "2", "3"}},
      {"bc", 3, Kind::Name, {"periodic", "dirichlet", "neumann", "PERIODIC"}},
      {"bc-value", 1, Kind::Real, {"0", "1.5", "-2"}},
      {"kappa", 3, Kind::Real, {"1", "0.5", "0", "2"}},
      {"dt", 1, Kind::Real, {"0.1", "0.05", "0.3", "1"}},
      {"spacing", 3, Kind::Real, {"1", "0.5", "2"}},
      {"steps", 1, Kind::Int, {"0", "2", "5"}},
      {"max-steps", 1, Kind::Int, {"1", "5", "1000000000"}},
      {"init", 1, Kind::Name, {"random", "sine", "gaussian"}},
      {"seed", 1, Kind::Int, {"1", "42", "18446744073709551615"}},
      {"sine-mode", 3, Kind::Int, {"1", "2", "0", "-1"}},
      {"verify", 0, Kind::Flag, {}},
      {"report", 1, Kind::Path, {}},
      {"warmup", 1, Kind::Int, {"0", "1", "3"}},
      {"expect-digest", 1, Kind::Text, {"0123456789abcdef", "12xz", "BDFD3E0D7C53D2DC"}},
      {"progress", 1, Kind::Real, {"0", "-1", "0.5", "-3"}},
      {"label", 1, Kind::Text, {"weak", ""}},
      {"transpose", 1, Kind::Name, {"zerocopy", "pack", "packed"}},
      {"spectral-check", 0, Kind::Flag, {}},
      {"spectral-every", 1, Kind::Int, {"0", "1", "3"}},
      {"spectrum-file", 1, Kind::Path, {}},
      {"checkpoint-every", 1, Kind::Int, {"0", "1", "2"}},
      {"checkpoint-dir", 1, Kind::Path, {}},
      {"checkpoint-keep", 1, Kind::Int, {"1", "2", "0"}},
      {"restart", 1, Kind::Path, {}},
      {"checkpoint-layout", 1, Kind::Name, {"contiguous", "chunked", "striped"}},
      {"checkpoint-alignment", 1, Kind::Int, {"1", "4096", "1048576"}},
      {"checkpoint-cb-nodes", 1, Kind::Int, {"0", "2"}},
      {"checkpoint-cb-buffer", 1, Kind::Int, {"0", "16777216"}},
      {"checkpoint-cb-write", 1, Kind::Name, {"automatic", "enable", "disable"}},
      {"stencil", 1, Kind::Int, {"7", "27", "9"}},
      {"halo-width", 1, Kind::Int, {"1", "2", "3", "0", "auto"}},
      {"temporal-blocking", 0, Kind::Flag, {}},
      {"tile", 3, Kind::Int, {"0", "4", "8", "wide"}},
      {"halo", 1, Kind::Name, {"dim-ordered", "neighbors26", "neighbor-coll", "faces"}},
      {"pack", 1, Kind::Name, {"kernel", "datatype"}},
      {"overlap", 0, Kind::Flag, {}},
  };
  return table;
}

/// Values no option should accept silently (or, where one does, must handle).
std::vector<std::string> hostile_values() {
  return {"",
          "nan",
          "NaN",
          "-nan",
          "inf",
          "-inf",
          "Infinity",
          "1e309",
          "-1e309",
          "1e-400",
          "4.9e-324",
          "1e30",
          "-1e30",
          "-1",
          "-0",
          "0",
          "2147483647",
          "2147483648",
          "-2147483648",
          "-2147483649",
          "4000000000",
          "9223372036854775807",
          "9223372036854775808",
          "-9223372036854775809",
          "18446744073709551616",
          "0x10",
          "1.5",
          "1e3",
          " 8",
          "8 ",
          "+8",
          "08",
          "010",
          "-010",
          "0b11",
          "abc",
          "true",
          "false",
          "[1, 2, 3]",
          "\"8\"",
          "--grid",
          "-",
          "=",
          "#",
          "\u00fc",
          "\u65e5\u672c",
          "\xc3\x28",
          "\xff\xfe",
          "\n",
          "\t",
          "%s%n",
          std::string(5000, 'a'),
          "/tmp/" + std::string(5000, 'x'),
          "/nonexistent-dir/x",
          "/proc/x",
          "."};
}

/// What was fed to the parser, for the failure report.
struct Case {
  std::vector<std::string> args;
  std::string toml;  ///< "" when no TOML file was written
};

std::string escaped(const std::string& s) {
  std::string out;
  for (unsigned char ch : s) {
    if (ch == '\n') {
      out += "\\n";
    } else if (ch < 32 || ch >= 127) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", ch);
      out += buf;
    } else {
      out += char(ch);
    }
  }
  return out.size() > 600 ? out.substr(0, 600) + "...(" + std::to_string(out.size()) + " chars)"
                          : out;
}

class Generator {
 public:
  Generator(std::uint64_t seed, std::vector<std::string> inputs, std::string dir)
      : rng_(seed), inputs_(std::move(inputs)), dir_(std::move(dir)), hostile_(hostile_values()) {}

  std::size_t below(std::size_t n) { return n ? std::size_t(rng_() % n) : 0; }
  bool chance(int percent) { return below(100) < std::size_t(percent); }

  /// A value for an option of this kind: mostly plausible, sometimes hostile.
  std::string value(const OptionSpec& o) {
    if (chance(35)) return hostile_[below(hostile_.size())];
    switch (o.kind) {
      case Kind::Path:
        return chance(50) ? dir_ + "/out" + std::to_string(below(3)) : dir_;
      case Kind::Int:
        if (chance(20)) return std::to_string(std::int64_t(below(2000)) - 1000);
        break;
      case Kind::Real:
        if (chance(20)) return std::to_string(double(below(2000)) / 997.0 - 0.5);
        break;
      default:
        break;
    }
    return o.good.empty() ? "x" : o.good[below(o.good.size())];
  }

  /// Options appended to an argument list: wrong arity, '=' forms, duplicates included.
  void add_options(std::vector<std::string>& args, int count) {
    for (int i = 0; i < count; ++i) {
      const OptionSpec& o = options()[below(options().size())];
      int n = o.arity;
      if (chance(10)) n = std::max(0, n + (chance(50) ? 1 : -1));
      const std::string name = std::string("--") + o.name;
      if (n == 1 && chance(15)) {
        args.push_back(name + "=" + value(o));
        continue;
      }
      args.push_back(name);
      for (int k = 0; k < n; ++k) args.push_back(value(o));
    }
  }

  /// Random bytes (no NUL: argv strings cannot hold one).
  std::string bytes(std::size_t n) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s += char(1 + below(255));
    return s;
  }

  void mutate_args(std::vector<std::string>& args) {
    if (chance(10) && args.size() > 1) args.resize(1 + below(args.size()));
    if (chance(10) && args.size() > 2)
      std::swap(args[1 + below(args.size() - 1)], args[1 + below(args.size() - 1)]);
    if (chance(5) && args.size() > 1) args[1 + below(args.size() - 1)] = bytes(1 + below(12));
    if (chance(3)) args.emplace_back(chance(50) ? "--help" : "--version");
  }

  /// A command line without a TOML file: small grid and few steps, plus mutations.
  Case command_line() {
    Case c;
    c.args = {"miniapp"};
    if (chance(80)) c.args.insert(c.args.end(), {"--grid", "8", "8", "8", "--steps", "2"});
    add_options(c.args, int(below(7)));
    mutate_args(c.args);
    return c;
  }

  /// One of the input files, mutated, as --config (and sometimes options on top).
  Case toml_file(const std::string& path) {
    Case c;
    std::string text = inputs_[below(inputs_.size())];
    const int mutations = 1 + int(below(3));
    for (int m = 0; m < mutations; ++m) mutate_toml(text);
    c.toml = text;
    std::ofstream(path, std::ios::binary) << text;
    c.args = {"miniapp", "--config", path};
    if (chance(60)) c.args.insert(c.args.end(), {"--grid", "8", "8", "8", "--steps", "2"});
    if (chance(30)) add_options(c.args, 1 + int(below(2)));
    return c;
  }

  /// A TOML value of the wrong shape or type for `o`, or a hostile one.
  std::string toml_value(const OptionSpec& o) {
    std::string v = value(o);
    switch (below(6)) {
      case 0:
        return v;  // raw
      case 1:
        return "\"" + v + "\"";  // quoted
      case 2: {
        // an array of the right or a wrong length
        std::string a = "[";
        const std::size_t n = chance(50) ? std::size_t(std::max(o.arity, 1)) : below(6);
        for (std::size_t k = 0; k < n; ++k) a += (k ? ", " : "") + value(o);
        return a + "]";
      }
      case 3:
        return chance(50) ? "true" : "false";
      case 4:
        return "[[1, 2], [3]]";
      default:
        return v + " " + v;
    }
  }

  void mutate_toml(std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    const auto join = [&] {
      std::string t;
      for (const auto& l : lines) t += l + "\n";
      text = t;
    };
    switch (below(10)) {
      case 0:  // truncate anywhere
        text.resize(below(text.size() + 1));
        return;
      case 1:  // overwrite a few bytes with random ones (NUL included)
        for (std::size_t k = 0, n = 1 + below(8); k < n && !text.empty(); ++k)
          text[below(text.size())] = char(below(256));
        return;
      case 2:  // duplicate a line (a duplicated key when it is `key = value`)
        if (!lines.empty()) {
          const std::size_t i = below(lines.size());
          lines.insert(lines.begin() + std::ptrdiff_t(i), lines[i]);
        }
        break;
      case 3:  // delete a line
        if (!lines.empty()) lines.erase(lines.begin() + std::ptrdiff_t(below(lines.size())));
        break;
      case 4:
      case 5:
      case 6: {  // a key with a wrong / hostile value, replacing an existing one or added
        const OptionSpec& o = options()[below(options().size())];
        const std::string line = std::string(o.name) + " = " + toml_value(o);
        bool replaced = false;
        for (auto& l : lines)
          if (l.rfind(std::string(o.name) + " ", 0) == 0 && chance(70)) {
            l = line;
            replaced = true;
            break;
          }
        if (!replaced) lines.insert(lines.begin() + std::ptrdiff_t(below(lines.size() + 1)), line);
        break;
      }
      case 7:  // a very long line: a long string value or a long key
        lines.push_back(chance(50) ? "label = \"" + std::string(20000, 'L') + "\""
                                   : std::string(5000, 'k') + " = 1");
        break;
      case 8: {  // unknown keys, unicode, a table header, a stray line
        const char* odd[] = {"gr\u00efd = [8, 8, 8]",
                             "[section]",
                             "[unterminated",
                             "= 3",
                             "steps",
                             "steps = ",
                             "\u65e5\u672c = \"\u00fc\"",
                             "frobnicate = 1",
                             "grid = [8, 8, 8",
                             "grid = 8, 8, 8]",
                             "label = \"open"};
        lines.insert(lines.begin() + std::ptrdiff_t(below(lines.size() + 1)),
                     odd[below(sizeof odd / sizeof odd[0])]);
        break;
      }
      default:  // swap two lines
        if (lines.size() > 1) std::swap(lines[below(lines.size())], lines[below(lines.size())]);
        break;
    }
    join();
  }

 private:
  std::mt19937_64 rng_;
  std::vector<std::string> inputs_;
  std::string dir_;
  std::vector<std::string> hostile_;
};

[[noreturn]] void violation(const Case& c, std::uint64_t seed, long index,
                            const std::string& what) {
  std::cerr << "fuzz_config: VIOLATION in case " << index << " (seed " << seed << "): " << what
            << "\n  args:";
  for (const auto& a : c.args) std::cerr << " '" << escaped(a) << "'";
  if (!c.toml.empty()) std::cerr << "\n  toml: " << escaped(c.toml);
  std::cerr << std::endl;
  std::exit(1);
}

/// The invariants of an accepted configuration, restated independently of Config::validate().
/// Returns "" or the broken rule.
std::string broken_invariant(const Config& c) {
  for (int d = 0; d < 3; ++d) {
    if (c.grid[d] < 1) return "grid not positive";
    if (std::int64_t(c.grid[d]) + 2 * std::int64_t(c.halo_width) > INT_MAX)
      return "grid + 2 x halo overflows int";
    if (c.ranks[d] < 0) return "negative rank factor";
    if (!std::isfinite(c.kappa[d]) || c.kappa[d] < 0) return "kappa not finite and >= 0";
    if (!std::isfinite(c.spacing[d]) || c.spacing[d] <= 0) return "spacing not finite and > 0";
  }
  if (!std::isfinite(c.dt) || c.dt <= 0) return "dt not finite and > 0";
  if (!std::isfinite(c.bc_value)) return "bc-value not finite";
  if (c.steps < 0) return "steps < 0";
  if (c.steps > c.max_steps) return "steps above max-steps";
  if (c.warmup < 0 || c.warmup > c.steps) return "warmup outside [0, steps]";
  if (c.halo_width < 1) return "halo width < 1";
  if (c.stencil != 7 && c.stencil != 27) return "stencil not 7 or 27";
  const Coefficients a = c.problem().coefficients();
  if (!std::isfinite(a.ax) || !std::isfinite(a.ay) || !std::isfinite(a.az))
    return "coefficients not finite";
  if (c.stencil == 7 && 2.0 * (a.ax + a.ay + a.az) > 1.0) return "7-point stencil unstable";
  if (c.stencil == 27 && stability_number27(a) > 1.0) return "27-point stencil unstable";
  if (c.checkpoint_every < 0 || c.checkpoint_keep < 1 || c.checkpoint_alignment < 1 ||
      c.checkpoint_cb_nodes < 0 || c.checkpoint_cb_buffer < 0)
    return "checkpoint setting out of range";
  if (c.checkpoint_dir.empty() || c.spectrum_file.empty()) return "empty output path";
  if (c.spectral_every < 0) return "spectral-every < 0";
  if (!std::isfinite(c.progress) || (c.progress < 0 && c.progress != -1)) return "bad progress";
  if (!c.expect_digest.empty() &&
      (c.expect_digest.size() != 16 ||
       c.expect_digest.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos))
    return "expect-digest not 16 hex digits";
  if (c.verify && c.init != InitKind::Sine) return "verify without sine";
  if (c.verify || c.spectral_check || c.spectral_every > 0)
    for (int d = 0; d < 3; ++d)
      if (c.bc[d] != Boundary::Periodic) return "spectral/verify without periodic boundaries";
  if (c.halo_mode == HaloMode::Faces && (c.stencil != 7 || c.halo_width != 1))
    return "faces halo with edges needed";
  if (c.two_d() && c.bc[2] == Boundary::Dirichlet) return "2D with dirichlet z";
  if (c.tile != kWideTile && std::min({c.tile[0], c.tile[1], c.tile[2]}) < 0)
    return "negative tile extent";
  if (c.tile != Index3{0, 0, 0} && !c.temporal_blocking) return "tile without temporal blocking";
  if (c.halo_width_auto && (c.temporal_blocking || c.tile != Index3{0, 0, 0}))
    return "halo-width auto with blocking or tile given";
  return "";
}

/// The rank grid for n ranks, if the config accepts n: it must multiply to n, honour the fixed
/// factors and leave every rank at least halo-width cells.
std::string broken_rank_grid(const Config& c, int n, const Index3& dims) {
  if (std::int64_t(dims[0]) * dims[1] * dims[2] != n) return "rank grid does not multiply to n";
  for (int d = 0; d < 3; ++d) {
    if (dims[d] < 1) return "rank grid factor < 1";
    if (c.ranks[d] > 0 && dims[d] != c.ranks[d]) return "fixed rank factor not honoured";
    if (!(d == 2 && c.two_d()) && c.grid[d] < std::int64_t(dims[d]) * c.halo_width)
      return "fewer cells than ranks x halo width";
  }
  const double bytes = estimated_bytes_per_rank(c, dims);
  if (!std::isfinite(bytes) || bytes <= 0) return "memory estimate not finite and positive";
  return "";
}

std::vector<std::string> read_inputs(const std::string& dir) {
  std::vector<std::string> texts;
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name.size() > 5 && name.substr(name.size() - 5) == ".toml") names.push_back(name);
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());  // readdir order is not deterministic
  for (const auto& name : names) {
    std::ifstream in(dir + "/" + name, std::ios::binary);
    std::ostringstream os;
    os << in.rdbuf();
    texts.push_back(os.str());
  }
  return texts;
}

struct Tally {
  long accepted = 0, rejected = 0, text = 0;
};

void run_case(const Case& c, std::uint64_t seed, long index, Tally& tally) {
  std::vector<std::string> storage = c.args;
  std::vector<char*> argv;
  argv.reserve(storage.size() + 1);
  for (auto& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  ParseOutcome out;
  try {
    out = parse_command_line(int(storage.size()), argv.data());
  } catch (const std::exception& e) {
    violation(c, seed, index, std::string("parse_command_line threw: ") + e.what());
  }
  if (!out.config) {
    if (out.exit_code == 0) {
      if (out.message.find("miniapp") == std::string::npos)
        violation(c, seed, index, "exit 0 without help/version text: " + out.message);
      ++tally.text;
      return;
    }
    if (out.exit_code != 2) violation(c, seed, index, "exit code " + std::to_string(out.exit_code));
    if (out.message.empty()) violation(c, seed, index, "rejected with an empty message");
    ++tally.rejected;
    return;
  }
  const Config& config = *out.config;
  try {
    preflight(config, MPI_COMM_SELF);
  } catch (const ConfigError& e) {
    if (std::string(e.what()).empty()) violation(c, seed, index, "ConfigError without message");
    ++tally.rejected;
    return;
  } catch (const std::exception& e) {
    violation(c, seed, index, std::string("preflight threw a non-ConfigError: ") + e.what());
  }
  if (const std::string why = broken_invariant(config); !why.empty())
    violation(c, seed, index, "accepted, but " + why);
  for (int n : {1, 2, 3, 4, 6, 8, 12}) {
    Index3 dims{};
    try {
      config.validate_for(n);
      dims = resolve_rank_grid(config, n);
    } catch (const ConfigError& e) {
      if (std::string(e.what()).empty()) violation(c, seed, index, "ConfigError without message");
      continue;
    } catch (const std::exception& e) {
      violation(c, seed, index, std::string("rank checks threw a non-ConfigError: ") + e.what());
    }
    if (const std::string why = broken_rank_grid(config, n, dims); !why.empty())
      violation(c, seed, index, "accepted at " + std::to_string(n) + " ranks, but " + why);
  }
  ++tally.accepted;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  std::string inputs_dir;
  long cases = 6000;
  std::uint64_t seed = 20261202;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--cases" && i + 1 < argc)
      cases = std::strtol(argv[++i], nullptr, 10);
    else if (a == "--seed" && i + 1 < argc)
      seed = std::strtoull(argv[++i], nullptr, 10);
    else
      inputs_dir = a;
  }
  // The sanitizer stage runs fewer cases (its slow unwinder makes each allocation costly).
  if (const char* env = std::getenv("MINIAPP_FUZZ_CASES")) cases = std::strtol(env, nullptr, 10);
  const std::vector<std::string> inputs = read_inputs(inputs_dir);
  if (inputs.empty()) {
    std::cerr << "fuzz_config: no *.toml files in '" << inputs_dir << "'\n";
    return 2;
  }
  char dir_template[] = "/tmp/miniapp-fuzz.XXXXXX";
  const char* tmp = mkdtemp(dir_template);
  if (!tmp) {
    std::perror("fuzz_config: mkdtemp");
    return 2;
  }
  const std::string dir = tmp;
  const std::string toml = dir + "/case.toml", fifo = dir + "/fifo.toml";
  const bool have_fifo = mkfifo(fifo.c_str(), 0600) == 0;

  const auto start = std::chrono::steady_clock::now();
  Tally tally;
  long index = 0;
  // Fixed cases first: --config that is no regular readable file must be rejected, not block.
  for (const std::string& path : {std::string(), dir, have_fifo ? fifo : dir, dir + "/missing.toml",
                                  "/" + std::string(5000, 'p') + ".toml"}) {
    const long before = tally.rejected;
    run_case(Case{{"miniapp", "--config", path}, ""}, seed, index++, tally);
    if (tally.rejected != before + 1)
      violation(Case{{"miniapp", "--config", path}, ""}, seed, index - 1,
                "--config that is not a readable file was not rejected");
  }
  Generator gen(seed, inputs, dir);
  for (; index < cases; ++index) {
    const Case c = gen.chance(50) ? gen.command_line() : gen.toml_file(toml);
    run_case(c, seed, index, tally);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "fuzz_config: %ld cases (seed %llu) in %.1f s: %ld accepted, %ld rejected with exit 2, "
      "%ld help/version; no violation\n",
      index, static_cast<unsigned long long>(seed), seconds, tally.accepted, tally.rejected,
      tally.text);
  std::remove(toml.c_str());
  std::remove(fifo.c_str());
  rmdir(dir.c_str());
  MPI_Finalize();
  return 0;
}
