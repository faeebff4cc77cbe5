# Findxxhash.cmake — xxHash (Debian: libxxhash-dev, BSD-2-Clause), whose XXH3
# hashes the string keys of sketches' hash tables. privet uses it header-only
# (XXH_INLINE_ALL, sketches/detail/string_hash.hpp), so only <xxhash.h> is
# needed and nothing is linked. XXH3's output is stable from 0.8.0 on.
# Defines the imported target xxhash::xxhash and xxhash_VERSION.
find_path(xxhash_INCLUDE_DIR NAMES xxhash.h)
if(xxhash_INCLUDE_DIR AND EXISTS "${xxhash_INCLUDE_DIR}/xxhash.h")
  file(STRINGS "${xxhash_INCLUDE_DIR}/xxhash.h" xxhash_version_lines
       REGEX "^#define XXH_VERSION_(MAJOR|MINOR|RELEASE)[ \t]+[0-9]+")
  foreach(part MAJOR MINOR RELEASE)
    string(REGEX REPLACE ".*#define XXH_VERSION_${part}[ \t]+([0-9]+).*" "\\1" xxhash_${part}
                         "${xxhash_version_lines}")
  endforeach()
  set(xxhash_VERSION "${xxhash_MAJOR}.${xxhash_MINOR}.${xxhash_RELEASE}")
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(
  xxhash
  REQUIRED_VARS xxhash_INCLUDE_DIR
  VERSION_VAR xxhash_VERSION)
if(xxhash_FOUND AND NOT TARGET xxhash::xxhash)
  add_library(xxhash::xxhash INTERFACE IMPORTED)
  set_target_properties(xxhash::xxhash PROPERTIES INTERFACE_INCLUDE_DIRECTORIES
                                                  "${xxhash_INCLUDE_DIR}")
endif()
mark_as_advanced(xxhash_INCLUDE_DIR)
