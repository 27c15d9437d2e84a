// Values as text for error messages and file attributes. Floating-point values are written in
// the shortest form that reads back as the same double (0.7, not 0.69999999999999996): what a
// message or a file says is exactly the value that was used, and it looks the way it was typed.
#pragma once

#include <array>
#include <charconv>
#include <sstream>
#include <string>
#include <type_traits>

namespace miniapp {

/// v as text; floating-point values in the shortest form that round-trips exactly.
template <class T>
std::string str(const T& v) {
  if constexpr (std::is_floating_point<T>::value) {
    char buf[64];
    const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
  } else {
    std::ostringstream os;
    os << v;
    return os.str();
  }
}

/// The three values of v as text, separated by `sep`: "16 12 10", or "16 x 12 x 10".
template <class T>
std::string joined(const std::array<T, 3>& v, const char* sep = " ") {
  return str(v[0]) + sep + str(v[1]) + sep + str(v[2]);
}

}  // namespace miniapp
