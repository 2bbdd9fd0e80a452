# Installation: headers, the library, a CMake package (find_package(detred)) and a pkg-config file.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS detred EXPORT detredTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# detred/mpi.hpp only with detred_mpi: it includes <mpi.h>.
if(DETRED_HAVE_MPI)
  install(TARGETS detred_mpi EXPORT detredTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  set(detred_header_exclude "")
else()
  set(detred_header_exclude PATTERN "mpi.hpp" EXCLUDE)
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/detred DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.hpp" ${detred_header_exclude})
install(FILES ${PROJECT_BINARY_DIR}/include/detred/version.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/detred)

set(detred_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/detred)
install(EXPORT detredTargets NAMESPACE detred:: DESTINATION ${detred_cmake_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/detredConfig.cmake.in
  ${PROJECT_BINARY_DIR}/detredConfig.cmake INSTALL_DESTINATION ${detred_cmake_dir} PATH_VARS CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/detredConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
# DetredGolden.cmake: detred_add_golden_test(), a `detred check` in the user's CTest suite.
install(FILES ${PROJECT_BINARY_DIR}/detredConfig.cmake ${PROJECT_BINARY_DIR}/detredConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/DetredGolden.cmake DESTINATION ${detred_cmake_dir})

# The .pc file finds the prefix relative to its own folder, so an install can be moved (or made with --prefix).
file(RELATIVE_PATH DETRED_PC_TO_PREFIX ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
# A static detred with the CUDA backend needs the CUDA runtime at link time.
set(DETRED_PC_CUDA_LIBS "")
if(DETRED_HAVE_CUDA)
  find_package(CUDAToolkit REQUIRED)
  set(DETRED_PC_CUDA_LIBS " -L${CUDAToolkit_LIBRARY_DIR} -Wl,-rpath,${CUDAToolkit_LIBRARY_DIR} -lcudart")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/detred.pc.in ${PROJECT_BINARY_DIR}/detred.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/detred.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
