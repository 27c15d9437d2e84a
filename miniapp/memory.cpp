#include "memory.hpp"

#include <sys/resource.h>

#include <fstream>
#include <sstream>
#include <string>

namespace miniapp {

namespace {

/// The value in kB of `key` ("VmHWM:") in a /proc file of "Key: value kB" lines (0 if absent).
double proc_kib(const char* path, const std::string& key) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.compare(0, key.size(), key) != 0) continue;
    std::istringstream fields(line.substr(key.size()));
    double kib = 0;
    return fields >> kib ? kib : 0;
  }
  return 0;
}

}  // namespace

double peak_resident_bytes() {
  if (const double kib = proc_kib("/proc/self/status", "VmHWM:"); kib > 0) return kib * 1024.0;
  struct rusage usage {};
  if (getrusage(RUSAGE_SELF, &usage) == 0) return double(usage.ru_maxrss) * 1024.0;  // Linux: KiB
  return 0;
}

double available_memory_bytes() { return proc_kib("/proc/meminfo", "MemAvailable:") * 1024.0; }

}  // namespace miniapp
