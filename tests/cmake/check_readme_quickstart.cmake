# Fails unless the README's quick-start block is, line for line, the
# quick-start example that the suite compiles and runs, so the README can
# never show code that does not build.
file(READ ${README} readme)
file(READ ${EXAMPLE} example)
string(REGEX MATCH "<!-- quickstart:begin -->\n```cpp\n(.*)```\n<!-- quickstart:end -->" found "${readme}")
if(NOT found)
  message(FATAL_ERROR "README.md has no ```cpp block between <!-- quickstart:begin --> and <!-- quickstart:end -->")
endif()
if(NOT CMAKE_MATCH_1 STREQUAL example)
  message(FATAL_ERROR "README.md's quick start differs from ${EXAMPLE}; copy the example into the README")
endif()
message(STATUS "README quick start matches ${EXAMPLE}")
