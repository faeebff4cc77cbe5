# privetPackaging.cmake — `cpack -G DEB` in a configured build tree makes
# libprivet-dev, the Debian package of privet's install rules: the headers,
# the CMake package, the pkg-config files and the guides, installed under
# /usr. Architecture `all`: nothing in it is compiled.
set(CPACK_PACKAGE_NAME libprivet-dev)
set(CPACK_PACKAGE_VENDOR privet)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "header-only C++20 library for private federated analytics and learning")
set(CPACK_PACKAGE_DESCRIPTION
    "privet composes differential-privacy mechanisms, privacy accountants (RDP, PLD, PRV),\
 contribution bounding, sketches and cryptographic protocols (Paillier, DGK comparison,\
 secure aggregation) into pipelines checked at compile time. This package has the\
 headers, the CMake package (find_package(privet)), the pkg-config files\
 (privet, privet-gmp, privet-mpi, privet-blas) and the guides.")
set(CPACK_PACKAGE_CONTACT "privet developers")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE all)
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# What every header of the core needs (privet::privet and privet.pc), from
# Debian 12's archive; the optional parts' libraries are recommended or
# suggested: privet's CMake package and pkg-config files work without them
# and report the missing part (find_package(privet COMPONENTS gmp)).
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libboost-dev (>= 1.74), libxtensor-dev, libsodium-dev (>= 1.0.18), libkissfft-dev, robin-map-dev, libxxhash-dev (>= 0.8), libtbb-dev, nlohmann-json3-dev (>= 3)"
)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libgmp-dev, libssl-dev, pkg-config, cmake (>= 3.25)")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libopenmpi-dev, libxtensor-blas-dev, libopenblas-dev")
include(CPack)
