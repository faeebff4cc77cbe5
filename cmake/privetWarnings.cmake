# privetWarnings.cmake — warning flags for privet's own tests, examples and
# benchmarks (never propagated to consumers of privet::privet).
add_library(privet_warnings INTERFACE)
option(PRIVET_WERROR "Treat warnings as errors in privet's own targets" ON)
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  target_compile_options(privet_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow
                                                   -Wnon-virtual-dtor)
  if(PRIVET_WERROR)
    target_compile_options(privet_warnings INTERFACE -Werror)
  endif()
endif()
