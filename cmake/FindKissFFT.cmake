# FindKissFFT.cmake — KISS FFT's header-only C++ class (Debian: libkissfft-dev,
# BSD-3-Clause), used by the privacy-loss-distribution accountant. Only the
# header <kissfft/kissfft.hh> is needed; nothing is linked.
find_path(KissFFT_INCLUDE_DIR NAMES kissfft/kissfft.hh)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(KissFFT REQUIRED_VARS KissFFT_INCLUDE_DIR)
if(KissFFT_FOUND AND NOT TARGET KissFFT::headers)
  add_library(KissFFT::headers INTERFACE IMPORTED)
  set_target_properties(KissFFT::headers PROPERTIES INTERFACE_INCLUDE_DIRECTORIES
                                                    "${KissFFT_INCLUDE_DIR}")
endif()
mark_as_advanced(KissFFT_INCLUDE_DIR)
