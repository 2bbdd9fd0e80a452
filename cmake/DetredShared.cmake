# SPDX-License-Identifier: BSD-3-Clause
# The shared form of the installed libraries (DETRED_SHARED=ON): what they export.
#
# Hidden by default: everything is compiled with -fvisibility=hidden -fvisibility-inlines-hidden, and the public
# headers (include/detred/*.hpp) declare their contents with `#pragma GCC visibility push(default)`, so the
# library's internals (lib/) stay inside it and can change without an ABI change. A function template at namespace
# scope also needs [[gnu::visibility("default")]] on its declaration: GCC gives an explicit instantiation (in lib/,
# outside the pragma) the visibility of its own context otherwise. The C API marks its functions
# with DETRED_C_EXPORT (include/detred/detred.h). Visibility alone does not hide the standard library's template
# instantiations (libstdc++ declares namespace std visible), so a version script (detred.map) keeps only detred's
# names in the dynamic symbol table; abi/check_exports.sh checks the result, abi/check_abi.sh the ABI.
if(DETRED_SHARED)
  set(CMAKE_CXX_VISIBILITY_PRESET hidden)
  set(CMAKE_CUDA_VISIBILITY_PRESET hidden)
  set(CMAKE_VISIBILITY_INLINES_HIDDEN ON)
  # Installed programs and libraries find the shared libraries of their own prefix, wherever it was installed.
  set(CMAKE_INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
endif()

# Called once the targets exist (after lib/ and bindings/).
function(detred_shared_library_rules)
  set(targets detred)
  if(TARGET detred_mpi)
    list(APPEND targets detred_mpi)
  endif()
  foreach(target ${targets})
    if(DETRED_SHARED)
      set(map ${PROJECT_SOURCE_DIR}/cmake/detred.map)
      target_link_options(${target} PRIVATE "LINKER:--version-script=${map}" "LINKER:--no-undefined")
      set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${map})
    endif()
  endforeach()
endfunction()
