#include "toml_input.hpp"

#include <sys/stat.h>
#include <toml++/toml.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "options.hpp"

namespace miniapp {

namespace {

/// "FILE:LINE:COLUMN" of a place in the file.
std::string where(const std::string& path, const toml::source_position& at) {
  return path + ":" + std::to_string(at.line) + ":" + std::to_string(at.column);
}

/// One TOML value as the text CLI11 would have read on the command line. Floats keep every
/// bit (17 significant digits); TOML's inf and nan become "inf" and "nan".
std::string as_text(const toml::node& node, const std::string& path, const std::string& key) {
  if (const auto* s = node.as_string()) return s->get();
  if (const auto* i = node.as_integer()) return std::to_string(i->get());
  if (const auto* b = node.as_boolean()) return b->get() ? "true" : "false";
  if (const auto* f = node.as_floating_point()) {
    const double v = f->get();
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
  }
  throw ConfigError("--config " + where(path, node.source().begin) + ": the value of '" + key +
                    "' is a " +
                    std::string(toml::impl::node_type_friendly_names[int(node.type())]) +
                    "; miniapp takes numbers, strings, booleans and arrays of them");
}

}  // namespace

std::vector<CLI::ConfigItem> TomlInput::from_config(std::istream& input) const {
  std::ostringstream text;
  text << input.rdbuf();
  toml::table table;
  try {
    table = toml::parse(text.str(), path_);
  } catch (const toml::parse_error& e) {
    throw ConfigError("--config " + where(path_, e.source().begin) + ": " +
                      std::string(e.description()));
  }
  std::vector<CLI::ConfigItem> items;
  for (const auto& [key, node] : table) {
    CLI::ConfigItem item;
    item.name = std::string(key.str());
    if (const toml::array* array = node.as_array()) {
      for (const toml::node& element : *array) {
        if (element.is_array() || element.is_table())
          throw ConfigError("--config " + where(path_, element.source().begin) + ": '" + item.name +
                            "' holds a nested array or table");
        item.inputs.push_back(as_text(element, path_, item.name));
      }
    } else {
      item.inputs.push_back(as_text(node, path_, item.name));
    }
    items.push_back(std::move(item));
  }
  return items;
}

std::string TomlInput::to_config(const CLI::App* app, bool default_also, bool write_description,
                                 std::string prefix) const {
  return CLI::ConfigTOML().to_config(app, default_also, write_description, std::move(prefix));
}

void check_config_file(const std::string& path) {
  if (path.empty()) throw ConfigError("--config: the file name is empty");
  struct stat st {};
  if (stat(path.c_str(), &st) != 0)
    throw ConfigError("--config " + path + ": " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw ConfigError("--config " + path + ": is a directory");
  if (!S_ISREG(st.st_mode))
    throw ConfigError("--config " + path +
                      ": is not a regular file (a FIFO, socket or device); give a TOML file");
  std::ifstream in(path);
  if (!in) throw ConfigError("--config " + path + ": cannot read: " + std::strerror(errno));
}

}  // namespace miniapp
