# SPDX-License-Identifier: BSD-3-Clause
# Debian packages with CPack (`cpack -G DEB` in a DETRED_SHARED build folder; .ci/run makes and installs them). One
# package per install component of cmake/DetredInstall.cmake, named as Debian names a library of SONAME
# libdetred.so.0.2 (docs/compatibility.md):
#   libdetred0.2         runtime: libdetred.so.0.2 and libdetred_c.so.1
#   libdetred-mpi0.2     libdetred_mpi.so.0.2                  libdetred-fortran0.2  libdetred_fortran.so
#   libdetred-dev        headers, CMake and pkg-config files   detred                the detred command
#   libdetred-nccl0.2    libdetred_nccl.so.0.2 (a build with NCCL)
# The dependencies on Debian's libraries are found by dpkg-shlibdeps (dpkg-dev) from the binaries themselves, except
# libdetred-nccl's: NCCL and the CUDA runtime come from outside Debian's main archive (a pip wheel, NVIDIA's own
# packages), so no package can be named for them; docs/collectives.md says how a consumer points at an NCCL.
set(CPACK_PACKAGE_NAME detred)
set(CPACK_PACKAGE_VENDOR "The detred authors")
set(CPACK_PACKAGE_CONTACT "The detred authors")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Deterministic reductions: sums whose bits depend only on n and the values")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Where dpkg-shlibdeps finds the project's own libraries that other packages of it link (libdetred, libdetred_c); the
# dependencies between these packages are written below instead.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${PROJECT_BINARY_DIR}/lib ${PROJECT_BINARY_DIR}/lib/c_api)
# The build that makes the packages has debug information for the ABI check (abi/check_abi.sh); the packages not.
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/detred/detred")

set(detred_deb_runtime libdetred${DETRED_SOVERSION})
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME ${detred_deb_runtime})
set(CPACK_DEBIAN_MPI_PACKAGE_NAME libdetred-mpi${DETRED_SOVERSION})
set(CPACK_DEBIAN_FORTRAN_PACKAGE_NAME libdetred-fortran${DETRED_SOVERSION})
set(CPACK_DEBIAN_NCCL_PACKAGE_NAME libdetred-nccl${DETRED_SOVERSION})
set(CPACK_DEBIAN_NCCL_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_DEV_PACKAGE_NAME libdetred-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_TOOL_PACKAGE_NAME detred)
set(CPACK_DEBIAN_TOOL_PACKAGE_SECTION science)

# Between the packages: exact versions, since the headers and the libraries are one release.
set(detred_deb_same "(= ${PROJECT_VERSION})")
set(CPACK_DEBIAN_MPI_PACKAGE_DEPENDS "${detred_deb_runtime} ${detred_deb_same}")
set(CPACK_DEBIAN_FORTRAN_PACKAGE_DEPENDS "${detred_deb_runtime} ${detred_deb_same}")
set(CPACK_DEBIAN_NCCL_PACKAGE_DEPENDS "${detred_deb_runtime} ${detred_deb_same}")
set(CPACK_DEBIAN_TOOL_PACKAGE_DEPENDS "${detred_deb_runtime} ${detred_deb_same}")
set(detred_dev_depends "${detred_deb_runtime} ${detred_deb_same}")
if(DETRED_HAVE_MPI)
  # detred/mpi.hpp includes <mpi.h>.
  string(APPEND detred_dev_depends ", libdetred-mpi${DETRED_SOVERSION} ${detred_deb_same}, libopenmpi-dev")
endif()
if(DETRED_BUILD_FORTRAN)
  string(APPEND detred_dev_depends ", libdetred-fortran${DETRED_SOVERSION} ${detred_deb_same}")
endif()
if(DETRED_HAVE_NCCL)
  string(APPEND detred_dev_depends ", libdetred-nccl${DETRED_SOVERSION} ${detred_deb_same}")
endif()
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "${detred_dev_depends}")

set(CPACK_COMPONENTS_ALL runtime dev tool)
if(DETRED_HAVE_MPI)
  list(APPEND CPACK_COMPONENTS_ALL mpi)
endif()
if(DETRED_BUILD_FORTRAN)
  list(APPEND CPACK_COMPONENTS_ALL fortran)
endif()
if(DETRED_HAVE_NCCL)
  list(APPEND CPACK_COMPONENTS_ALL nccl)
endif()
include(CPack)
