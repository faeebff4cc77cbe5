# privetWarnings.cmake — warning flags for privet's own tests, examples and
# benchmarks (never propagated to consumers of privet::privet).
add_library(privet_warnings INTERFACE)
option(PRIVET_WERROR "Treat warnings as errors in privet's own targets" ON)
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  target_compile_options(privet_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow
                                                   -Wnon-virtual-dtor)
  if(PRIVET_WERROR)
    target_compile_options(privet_warnings INTERFACE -Werror)
    # GCC 12 at -O3 reports -Wrestrict inside std::basic_string's inlined
    # memcpy for string concatenation (GCC bug 105329) and -Wstringop-overflow
    # inside inlined std::copy of a vector, both false positives: kept as
    # warnings, so that -O3 builds (the bench preset) do not fail on them.
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      target_compile_options(privet_warnings INTERFACE -Wno-error=restrict
                                                       -Wno-error=stringop-overflow)
    endif()
  endif()
endif()
