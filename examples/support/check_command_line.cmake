# examples/support/check_command_line.cmake — checks an example's command
# line as support/command_line.hpp promises it (registered by
# privet_example_cli_tests in examples/CMakeLists.txt).
#
#   cmake -DPROGRAM=<exe> -DMODE=help [-DOPTIONS=<--a|--b...>] -P check_command_line.cmake
#     --help exits 0, prints the usage on stdout and nothing on stderr, lists
#     each of OPTIONS and gives defaults;
#   cmake -DPROGRAM=<exe> -DMODE=refuse -DOPTION=<--name> [-DVALUE=<text>]
#         -P check_command_line.cmake -- <arguments>...
#     the bad command line exits non-zero (not a crash, not a hang), prints
#     nothing on stdout and exactly one line on stderr naming OPTION, VALUE
#     (by default the argument after OPTION) and what is allowed.
cmake_minimum_required(VERSION 3.25)

set(args "")
set(seen_separator FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE 0 ${last})
  if(seen_separator)
    list(APPEND args "${CMAKE_ARGV${i}}")
  elseif("${CMAKE_ARGV${i}}" STREQUAL "--")
    set(seen_separator TRUE)
  endif()
endforeach()

if(MODE STREQUAL "help")
  execute_process(COMMAND "${PROGRAM}" --help RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err TIMEOUT 60)
  if(NOT rc STREQUAL "0")
    message(FATAL_ERROR "${PROGRAM} --help: exit ${rc}, expected 0; stderr: ${err}")
  endif()
  if(NOT err STREQUAL "")
    message(FATAL_ERROR "${PROGRAM} --help: printed on stderr: ${err}")
  endif()
  if(NOT out MATCHES "Usage: " OR NOT out MATCHES "--help")
    message(FATAL_ERROR "${PROGRAM} --help: no usage on stdout: ${out}")
  endif()
  string(REPLACE "|" ";" options "${OPTIONS}")
  foreach(option IN LISTS options)
    # Each option on its own line, with its default (flags: "[default: off]").
    if(NOT out MATCHES "\n +(-[A-Za-z0-9],)?${option}[ ,][^\n]*\\[default: ")
      message(FATAL_ERROR "${PROGRAM} --help: ${option} is not listed with its default:\n${out}")
    endif()
  endforeach()
  message(STATUS "${PROGRAM} --help lists ${OPTIONS}")
  return()
endif()

if(NOT DEFINED VALUE)
  list(FIND args "${OPTION}" at)
  list(LENGTH args n)
  math(EXPR at "${at} + 1")
  if(at GREATER 0 AND at LESS n)
    list(GET args ${at} VALUE)
  else()
    set(VALUE "${OPTION}")  # an unknown switch: the option is the value
  endif()
endif()
execute_process(COMMAND "${PROGRAM}" ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err TIMEOUT 60)
set(shown "${PROGRAM} ${args}")
if(NOT rc MATCHES "^[0-9]+$")
  message(FATAL_ERROR "${shown}: did not exit normally (${rc}); stderr: ${err}")
endif()
if(rc EQUAL 0)
  message(FATAL_ERROR "${shown}: exit code 0, expected a refusal; stdout: ${out}")
endif()
if(NOT out STREQUAL "")
  message(FATAL_ERROR "${shown}: printed on stdout before refusing: ${out}")
endif()
string(REGEX REPLACE "\n$" "" line "${err}")
if(line MATCHES "\n" OR line STREQUAL "")
  message(FATAL_ERROR "${shown}: expected one line on stderr, got: [${err}]")
endif()
string(FIND "${line}" "${OPTION}: " at_option)
string(FIND "${line}" "${VALUE}" at_value)
if(at_option LESS 0 OR at_value LESS 0)
  message(FATAL_ERROR "${shown}: the error does not name ${OPTION} and its value ${VALUE}: ${line}")
endif()
if(NOT line MATCHES "allowed: ")
  message(FATAL_ERROR "${shown}: the error does not say what is allowed: ${line}")
endif()
message(STATUS "refused (exit ${rc}): ${line}")
