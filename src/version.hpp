// Version of miniapp: MINIAPP_VERSION comes from project(VERSION) in CMakeLists.txt.
#pragma once

namespace miniapp {
inline constexpr const char* kVersion = MINIAPP_VERSION;
}  // namespace miniapp
