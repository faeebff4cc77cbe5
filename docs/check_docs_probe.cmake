# The docs check must be able to fail: runs Doxygen over the public headers
# plus a probe header, include/privet/crypto/docs_probe.hpp, that declares one
# undocumented function, and requires docs/check_doxygen_warnings.cmake to
# reject the result naming the probe. Run by the docs build after the real
# check passes.
#   -DDOXYGEN=<doxygen>  -DDOXYFILE=<the configured Doxyfile>  -DWORK=<dir>
#   -DCHECK=<check_doxygen_warnings.cmake>  -DCHECKED=...  -DREQUIRE_DOCUMENTED=...
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE ${WORK})
set(probe ${WORK}/include/privet/crypto/docs_probe.hpp)
file(WRITE ${probe} "#pragma once\nnamespace privet::paillier {\nint docs_probe_undocumented(int x);\n}\n")
file(WRITE ${WORK}/Doxyfile "@INCLUDE = ${DOXYFILE}\nINPUT += ${WORK}/include/privet\nOUTPUT_DIRECTORY = ${WORK}/out\nWARN_LOGFILE = ${WORK}/doxygen_warnings.log\n")
file(MAKE_DIRECTORY ${WORK}/out)
execute_process(COMMAND ${DOXYGEN} ${WORK}/Doxyfile WORKING_DIRECTORY ${WORK} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "docs probe: Doxygen failed (${rc})")
endif()
execute_process(
  COMMAND ${CMAKE_COMMAND} -DLOG=${WORK}/doxygen_warnings.log -DCHECKED=${CHECKED}
          -DREQUIRE_DOCUMENTED=${REQUIRE_DOCUMENTED} -DUNDOCUMENTED_LIST=${WORK}/undocumented.txt
          -DHTML=${WORK}/out/html/index.html -P ${CHECK}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
file(STRINGS ${WORK}/doxygen_warnings.log probe_warning REGEX "docs_probe\\.hpp:3: warning: .*docs_probe_undocumented.* is not documented")
if(rc EQUAL 0 OR NOT probe_warning OR NOT out MATCHES "docs_probe")
  message(FATAL_ERROR "docs probe: the check accepted (or did not name) an undocumented function "
                      "in crypto/ (result ${rc}):\n${out}")
endif()
message(STATUS "privet docs: the check rejects an undocumented probe function in crypto/, as it must")
