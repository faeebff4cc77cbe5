# Findsodium.cmake — libsodium ships a pkg-config file but no CMake package.
# Defines the imported target sodium::sodium.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(PC_SODIUM QUIET libsodium)
endif()
find_path(sodium_INCLUDE_DIR sodium.h HINTS ${PC_SODIUM_INCLUDE_DIRS})
find_library(sodium_LIBRARY NAMES sodium libsodium HINTS ${PC_SODIUM_LIBRARY_DIRS})
set(sodium_VERSION ${PC_SODIUM_VERSION})

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(
  sodium
  REQUIRED_VARS sodium_LIBRARY sodium_INCLUDE_DIR
  VERSION_VAR sodium_VERSION)

if(sodium_FOUND AND NOT TARGET sodium::sodium)
  add_library(sodium::sodium UNKNOWN IMPORTED)
  set_target_properties(sodium::sodium PROPERTIES IMPORTED_LOCATION "${sodium_LIBRARY}"
                                                  INTERFACE_INCLUDE_DIRECTORIES "${sodium_INCLUDE_DIR}")
endif()
mark_as_advanced(sodium_INCLUDE_DIR sodium_LIBRARY)
