// Values as text for error messages and file attributes: doubles with 17 significant digits,
// so what a message or a file says is exactly the value that was used.
#pragma once

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

}  // namespace miniapp
