# Makes the Debian package from a fresh configuration of the sources
# (`cpack -G DEB`), checks its control fields and contents, unpacks it with
# dpkg-deb into a temporary root, and builds the find_package consumer (the
# umbrella header) and the pkg-config crypto consumer against that root.
#   -DSOURCE=<privet's sources>  -DWORK=<scratch dir>  -DCXX=<compiler>
#   -DGENERATOR=<CMake generator>  [-DLAUNCHER=<compiler launcher>]
cmake_minimum_required(VERSION 3.25)
find_program(DPKG_DEB dpkg-deb REQUIRED)
get_filename_component(cmake_bin ${CMAKE_COMMAND} DIRECTORY)
find_program(CPACK_PROGRAM cpack HINTS ${cmake_bin} REQUIRED)
find_program(CTEST_PROGRAM ctest HINTS ${cmake_bin} REQUIRED)
file(REMOVE_RECURSE ${WORK})

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " line "${ARGN}")
    message(FATAL_ERROR "failed (${rc}): ${line}\n${out}")
  endif()
endfunction()

run(${CMAKE_COMMAND} -S ${SOURCE} -B ${WORK}/build -G ${GENERATOR} -DCMAKE_CXX_COMPILER=${CXX}
    -DPRIVET_BUILD_TESTS=OFF -DPRIVET_BUILD_EXAMPLES=OFF -DPRIVET_BUILD_BENCHMARKS=OFF)
run(${CPACK_PROGRAM} -G DEB -B ${WORK}/package --config ${WORK}/build/CPackConfig.cmake)
file(GLOB debs ${WORK}/package/libprivet-dev_*_all.deb)
list(LENGTH debs n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "expected one libprivet-dev_<version>_all.deb in ${WORK}/package, found: ${debs}")
endif()

execute_process(COMMAND ${DPKG_DEB} -f ${debs} Package Architecture Depends Recommends
                OUTPUT_VARIABLE control)
message(STATUS "control fields of ${debs}:\n${control}")
foreach(field "Package: libprivet-dev" "Architecture: all" "libsodium-dev" "libboost-dev"
              "libxtensor-dev" "libtbb-dev" "libkissfft-dev" "libgmp-dev")
  string(FIND "${control}" "${field}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the package's control fields lack `${field}`")
  endif()
endforeach()

set(root ${WORK}/root)
run(${DPKG_DEB} -x ${debs} ${root})
foreach(file include/privet/privet.hpp include/privet/crypto/paillier.hpp
             share/cmake/privet/privetConfig.cmake share/cmake/privet/privetTargets.cmake
             share/pkgconfig/privet.pc share/doc/privet/README.md share/doc/privet/crypto.md)
  if(NOT EXISTS ${root}/usr/${file})
    message(FATAL_ERROR "the package lacks /usr/${file}")
  endif()
endforeach()

set(consumer_options -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=${CXX})
if(LAUNCHER)
  list(APPEND consumer_options -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()
run(${CTEST_PROGRAM} --build-and-test ${SOURCE}/tests/consumer/find_package ${WORK}/find_package
    --build-generator ${GENERATOR} --build-options ${consumer_options}
    -DCMAKE_PREFIX_PATH=${root}/usr -DPRIVET_EXPECTED_PREFIX=${root}/usr --test-command consumer)
run(${CMAKE_COMMAND} -DPC_DIR=${root}/usr/share/pkgconfig -DSRC=${SOURCE}/tests/consumer/pkg_config
    -DOUT=${WORK}/pkg_config -DPACKAGE=privet -DCXX=${CXX} -DEXPECT_INCLUDEDIR=${root}/usr/include
    -DMAKE_TARGET=check_crypto -P
    ${CMAKE_CURRENT_LIST_DIR}/check_pkg_config_consumer.cmake)
message(STATUS "libprivet-dev: built, unpacked into ${root}, and both consumers built against it")
