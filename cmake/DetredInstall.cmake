# SPDX-License-Identifier: BSD-3-Clause
# Installation: headers, the libraries, a CMake package (find_package(detred [COMPONENTS ...])), a pkg-config file,
# and the install components that the packages are made of (cmake/DetredPackaging.cmake):
#   runtime  the shared libraries (libdetred, libdetred_c)      dev      headers, CMake and pkg-config files, link names
#   mpi      the shared libdetred_mpi                           tool     the detred command (verify/, installed there)
#   fortran  the shared libdetred_fortran                       python   the Python package (bindings/python)
#   nccl     the shared libdetred_nccl (with NCCL)
# A static build puts its archives in dev.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# In share/, not the library folder: a project without compilers (project(x NONE), for detred_add_golden_test) has no
# library architecture, so find_package does not look in lib/x86_64-linux-gnu/cmake, where a /usr install puts it.
set(detred_cmake_dir ${CMAKE_INSTALL_DATADIR}/cmake/detred)

# The CMake package has one component per library, each with its own export file, so that a consumer loads (and
# finds the dependencies of) only what it asks for: core (detred::detred), c (detred::c), mpi (detred::mpi, needs
# MPI), fortran (detred::fortran), nccl (detred::nccl, needs the CUDA toolkit and an NCCL). The export names are the
# README's target names, the same as the build tree's aliases.
set_target_properties(detred PROPERTIES EXPORT_NAME detred)
set(DETRED_PACKAGE_COMPONENTS core c)
set(detred_export_core detred)
set(detred_export_c detred_c)
set_target_properties(detred_c PROPERTIES EXPORT_NAME c)
if(DETRED_HAVE_MPI)
  list(APPEND DETRED_PACKAGE_COMPONENTS mpi)
  set(detred_export_mpi detred_mpi)
  set_target_properties(detred_mpi PROPERTIES EXPORT_NAME mpi)
endif()
if(DETRED_BUILD_FORTRAN)
  list(APPEND DETRED_PACKAGE_COMPONENTS fortran)
  set(detred_export_fortran detred_fortran)
  set_target_properties(detred_fortran PROPERTIES EXPORT_NAME fortran)
endif()

if(DETRED_HAVE_NCCL)
  list(APPEND DETRED_PACKAGE_COMPONENTS nccl)
  set(detred_export_nccl detred_nccl)
  set_target_properties(detred_nccl PROPERTIES EXPORT_NAME nccl)
endif()

foreach(component ${DETRED_PACKAGE_COMPONENTS})
  set(runtime_component runtime)
  if(component STREQUAL "mpi" OR component STREQUAL "fortran" OR component STREQUAL "nccl")
    set(runtime_component ${component})
  endif()
  install(TARGETS ${detred_export_${component}} EXPORT detred-${component}-targets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT ${runtime_component} NAMELINK_COMPONENT dev
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT ${runtime_component})
  install(EXPORT detred-${component}-targets NAMESPACE detred:: DESTINATION ${detred_cmake_dir} COMPONENT dev)
endforeach()

# Headers. detred/mpi.hpp only with detred_mpi (it includes <mpi.h>), detred/nccl.hpp only with detred_nccl (it
# includes <nccl.h>).
set(detred_header_exclude "")
if(NOT DETRED_HAVE_MPI)
  list(APPEND detred_header_exclude PATTERN "mpi.hpp" EXCLUDE)
endif()
if(NOT DETRED_HAVE_NCCL)
  list(APPEND detred_header_exclude PATTERN "nccl.hpp" EXCLUDE)
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/detred DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev
  FILES_MATCHING PATTERN "*.hpp" PATTERN "detred.h" ${detred_header_exclude})
install(FILES ${PROJECT_BINARY_DIR}/include/detred/version.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/detred
        COMPONENT dev)
if(DETRED_BUILD_FORTRAN)
  # The module files (specific to the compiler and version that wrote them); all of them, since some compilers
  # need every module that detred.mod uses.
  get_target_property(detred_fortran_mod_dir detred_fortran Fortran_MODULE_DIRECTORY)
  install(DIRECTORY ${detred_fortran_mod_dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/detred/fortran COMPONENT dev
          FILES_MATCHING PATTERN "*.mod")
endif()

# The package configuration: which components exist, and what each needs from the consumer's machine. A shared
# library keeps OpenMP and the CUDA runtime to itself; a static one passes them on to the consumer's link.
get_target_property(detred_library_type detred TYPE)
set(DETRED_PACKAGE_STATIC OFF)
if(detred_library_type STREQUAL "STATIC_LIBRARY")
  set(DETRED_PACKAGE_STATIC ON)
endif()
# The NCCL this build used: the first place where an installed detred::nccl looks for one (detredConfig.cmake.in).
if(DETRED_HAVE_NCCL)
  set(DETRED_PACKAGE_NCCL_INCLUDE_DIR ${DETRED_NCCL_INCLUDE_DIR})
  get_filename_component(DETRED_PACKAGE_NCCL_LIBRARY_DIR ${DETRED_NCCL_LIBRARY} DIRECTORY)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/detredConfig.cmake.in
  ${PROJECT_BINARY_DIR}/detredConfig.cmake INSTALL_DESTINATION ${detred_cmake_dir} PATH_VARS CMAKE_INSTALL_BINDIR)
# At 0.x a minor release may change the API (docs/compatibility.md): a request for 0.2 accepts 0.2.*, not 0.3.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/detredConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
# DetredGolden.cmake: detred_add_golden_test(), a `detred check` in the user's CTest suite.
install(FILES ${PROJECT_BINARY_DIR}/detredConfig.cmake ${PROJECT_BINARY_DIR}/detredConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/DetredGolden.cmake DESTINATION ${detred_cmake_dir} COMPONENT dev)

# The .pc file finds the prefix relative to its own folder, so an install can be moved (or made with --prefix).
file(RELATIVE_PATH DETRED_PC_TO_PREFIX ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
# A static detred needs OpenMP, and with the CUDA backend the CUDA runtime, at link time; a shared one does not.
set(DETRED_PC_PRIVATE_LIBS "")
if(DETRED_PACKAGE_STATIC)
  set(DETRED_PC_PRIVATE_LIBS " -fopenmp")
  if(DETRED_HAVE_CUDA)
    find_package(CUDAToolkit REQUIRED)
    if(DETRED_CUDA_RUNTIME STREQUAL "Static")
      string(APPEND DETRED_PC_PRIVATE_LIBS " -L${CUDAToolkit_LIBRARY_DIR} -lcudart_static -ldl -lrt -lpthread")
    else()
      string(APPEND DETRED_PC_PRIVATE_LIBS " -L${CUDAToolkit_LIBRARY_DIR} -Wl,-rpath,${CUDAToolkit_LIBRARY_DIR} -lcudart")
    endif()
  endif()
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/detred.pc.in ${PROJECT_BINARY_DIR}/detred.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/detred.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/detred COMPONENT dev)
