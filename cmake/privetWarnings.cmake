# privetWarnings.cmake — warning flags for privet's own tests, examples and
# benchmarks (never propagated to consumers of privet::privet).
add_library(privet_warnings INTERFACE)
option(PRIVET_WERROR "Treat warnings as errors in privet's own targets" ON)
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  target_compile_options(privet_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow
                                                   -Wnon-virtual-dtor)
  if(PRIVET_WERROR)
    # Every warning fails privet's own targets, at every preset's level: the
    # test preset compiles the examples at the demo's -O3 so that CI sees
    # what the demo build would print. Where GCC is wrong the code is
    # restructured, or a pragma around the one statement says why.
    target_compile_options(privet_warnings INTERFACE -Werror)
  endif()
endif()
