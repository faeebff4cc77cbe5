// privet/version.hpp — the library version (kept equal to CMake's
// project(VERSION) by the test privet.core.version).
#pragma once

#define PRIVET_VERSION_MAJOR 0
#define PRIVET_VERSION_MINOR 1
#define PRIVET_VERSION_PATCH 0

namespace privet {
inline constexpr const char* version_string = "0.1.0";
}  // namespace privet
