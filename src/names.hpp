// Name tables for the library's enums. Each module lists its values and their names once, next
// to the enum; files, messages and the app's option parsers all read the same table, so a name
// cannot be spelled two ways.
//
//   enum class Boundary { Periodic, Dirichlet, Neumann };
//   inline constexpr NameTable<Boundary, 3> kBoundaryNames{{{Boundary::Periodic, "periodic"},
//   ...}}; name_of(kBoundaryNames, b)          -> "periodic" value_of(kBoundaryNames, "neumann") ->
//   Boundary::Neumann (std::nullopt when unknown)
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace miniapp {

/// One enum value and its name.
template <class E>
struct EnumName {
  E value;
  const char* name;
};

/// Every value of an enum with its name, in the order options and messages list them.
template <class E, std::size_t N>
using NameTable = std::array<EnumName<E>, N>;

/// The name of `value` in `table` ("?" for a value the table lacks).
template <class E, std::size_t N>
constexpr const char* name_of(const NameTable<E, N>& table, E value) {
  for (const EnumName<E>& e : table)
    if (e.value == value) return e.name;
  return "?";
}

/// The value named `name` in `table`, std::nullopt when no value has that name.
template <class E, std::size_t N>
std::optional<E> value_of(const NameTable<E, N>& table, std::string_view name) {
  for (const EnumName<E>& e : table)
    if (name == e.name) return e.value;
  return std::nullopt;
}

/// "a|b|c": the names of `table`, for messages and help texts.
template <class E, std::size_t N>
std::string names_joined(const NameTable<E, N>& table, const char* separator = "|") {
  std::string out;
  for (const EnumName<E>& e : table) out += (out.empty() ? "" : separator) + std::string(e.name);
  return out;
}

}  // namespace miniapp
