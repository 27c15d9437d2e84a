// Values as text for error messages and file attributes: doubles with 17 significant digits,
// so what a message or a file says is exactly the value that was used.
#pragma once

#include <array>
#include <sstream>
#include <string>

namespace miniapp {

/// v as text; floating-point values round-trip exactly.
template <class T>
std::string str(const T& v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

/// The three values of v as text, separated by `sep`: "16 12 10", or "16 x 12 x 10".
template <class T>
std::string joined(const std::array<T, 3>& v, const char* sep = " ") {
  return str(v[0]) + sep + str(v[1]) + sep + str(v[2]);
}

}  // namespace miniapp
