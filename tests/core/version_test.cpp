#include <privet/version.hpp>

#include <doctest/doctest.h>

#include <string>

// PRIVET_CMAKE_VERSION is project(VERSION) from CMakeLists.txt.
TEST_CASE("the header's version is CMake's project version") {
  CHECK(std::string(privet::version_string) == PRIVET_CMAKE_VERSION);
  CHECK(std::to_string(PRIVET_VERSION_MAJOR) + "." + std::to_string(PRIVET_VERSION_MINOR) + "." +
            std::to_string(PRIVET_VERSION_PATCH) ==
        PRIVET_CMAKE_VERSION);
}
