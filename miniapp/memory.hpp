// Memory figures of a rank and its node: the peak resident set (for the report) and the
// memory the node has available (for the preflight estimate). Linux /proc, with getrusage as
// the fallback for the peak.
#pragma once

namespace miniapp {

/// Peak resident set size of this process in bytes: VmHWM of /proc/self/status, else
/// getrusage's ru_maxrss. Not collective.
double peak_resident_bytes();

/// MemAvailable of /proc/meminfo in bytes (0 when unknown). Not collective.
double available_memory_bytes();

}  // namespace miniapp
