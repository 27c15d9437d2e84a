#include "json.hpp"

#include <cmath>
#include <cstdio>

namespace miniapp {

std::string JsonWriter::escape(const std::string& s) {
  std::string r = "\"";
  for (const char ch : s) {
    switch (ch) {
      case '"':
        r += "\\\"";
        break;
      case '\\':
        r += "\\\\";
        break;
      case '\n':
        r += "\\n";
        break;
      case '\t':
        r += "\\t";
        break;
      case '\r':
        r += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", ch);
          r += buf;
        } else {
          r += ch;
        }
    }
  }
  return r + "\"";
}

void JsonWriter::prefix(const std::string& key) {
  if (!first_.empty()) {
    if (!first_.back()) out_ += ",";
    first_.back() = false;
    out_ += "\n" + std::string(2 * first_.size(), ' ');
  }
  if (!key.empty()) out_ += escape(key) + ": ";
}

JsonWriter& JsonWriter::begin_object(const std::string& key) {
  prefix(key);
  out_ += "{";
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  first_.pop_back();
  out_ += "\n" + std::string(2 * first_.size(), ' ') + "}";
  if (first_.empty()) out_ += "\n";
  return *this;
}

JsonWriter& JsonWriter::begin_array(const std::string& key) {
  prefix(key);
  out_ += "[";
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  first_.pop_back();
  out_ += "]";
  return *this;
}

JsonWriter& JsonWriter::value(const std::string& key, const std::string& v) {
  prefix(key);
  out_ += escape(v);
  return *this;
}

JsonWriter& JsonWriter::value(const std::string& key, double v) {
  prefix(key);
  if (!std::isfinite(v)) {
    out_ += "null";  // JSON has no NaN/Inf
  } else {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    out_ += buf;
  }
  return *this;
}

JsonWriter& JsonWriter::value(const std::string& key, std::int64_t v) {
  prefix(key);
  out_ += std::to_string(v);
  return *this;
}

JsonWriter& JsonWriter::value(const std::string& key, bool v) {
  prefix(key);
  out_ += v ? "true" : "false";
  return *this;
}

}  // namespace miniapp
