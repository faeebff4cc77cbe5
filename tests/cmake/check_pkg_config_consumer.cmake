# Builds tests/consumer/pkg_config with GNU make against an installed privet
# found only through pkg-config, and runs its programs.
#   -DPC_DIR=<prefix>/share/pkgconfig  -DSRC=<tests/consumer/pkg_config>
#   -DOUT=<build dir>  -DPACKAGE=privet|privet-gmp  -DCXX=<compiler>
#   [-DEXPECT_INCLUDEDIR=<prefix>/include]  [-DMAKE_TARGET=check|check_crypto (default check)]
cmake_minimum_required(VERSION 3.25)
find_program(MAKE_PROGRAM NAMES make gmake REQUIRED)
find_program(PKG_CONFIG_PROGRAM pkg-config REQUIRED)
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
set(ENV{PKG_CONFIG_PATH} ${PC_DIR})
# The include path must come from the installed tree, never the sources.
execute_process(COMMAND ${PKG_CONFIG_PROGRAM} --variable=includedir ${PACKAGE}
                OUTPUT_VARIABLE includedir OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config does not find ${PACKAGE} in ${PC_DIR}")
endif()
if(PACKAGE STREQUAL "privet")
  file(REAL_PATH ${includedir} includedir)
  file(REAL_PATH ${EXPECT_INCLUDEDIR} expected)
  if(NOT includedir STREQUAL expected)
    message(FATAL_ERROR "privet.pc's includedir is ${includedir}, expected ${expected}")
  endif()
endif()
execute_process(COMMAND ${PKG_CONFIG_PROGRAM} --cflags --libs ${PACKAGE} OUTPUT_VARIABLE flags
                OUTPUT_STRIP_TRAILING_WHITESPACE)
message(STATUS "pkg-config --cflags --libs ${PACKAGE}: ${flags}")
if(NOT MAKE_TARGET)
  set(MAKE_TARGET check)
endif()
execute_process(COMMAND ${MAKE_PROGRAM} -f ${SRC}/Makefile CXX=${CXX} PACKAGE=${PACKAGE} OUT=${OUT}
                        ${MAKE_TARGET} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the pkg-config consumer (${PACKAGE}) failed to build or run")
endif()
