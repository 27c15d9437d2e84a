// A minimal JSON writer (objects, arrays, numbers, strings, booleans) for the run report.
// Doubles are written with 17 significant digits so they round-trip exactly.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace miniapp {

class JsonWriter {
 public:
  JsonWriter& begin_object(const std::string& key = "");
  JsonWriter& end_object();
  JsonWriter& begin_array(const std::string& key = "");
  JsonWriter& end_array();
  JsonWriter& value(const std::string& key, const std::string& v);
  JsonWriter& value(const std::string& key, const char* v) { return value(key, std::string(v)); }
  JsonWriter& value(const std::string& key, double v);
  JsonWriter& value(const std::string& key, std::int64_t v);
  JsonWriter& value(const std::string& key, int v) { return value(key, std::int64_t(v)); }
  JsonWriter& value(const std::string& key, bool v);
  /// Array element (key must be empty inside arrays).
  template <class T>
  JsonWriter& element(const T& v) {
    return value("", v);
  }
  const std::string& str() const { return out_; }

  static std::string escape(const std::string& s);

 private:
  void prefix(const std::string& key);
  std::string out_;
  std::vector<bool> first_;  ///< per open container: no element written yet
};

}  // namespace miniapp
