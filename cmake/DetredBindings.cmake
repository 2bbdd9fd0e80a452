# SPDX-License-Identifier: BSD-3-Clause
# Language bindings (docs/bindings.md). Included from the top-level CMakeLists.txt, since the languages it enables
# are needed by targets in several folders (lib/c_api, bindings/, tests/).
#   C API:   always (lib/c_api: C++ sources); the C language only for its C test program (with the tests).
#   Fortran: DETRED_BUILD_FORTRAN, on by default when detred is the top-level project and a Fortran compiler is
#            found (bindings/fortran).
#   Python:  DETRED_BUILD_PYTHON, on by default when detred is the top-level project and Python 3 with its headers,
#            NumPy, pybind11 and dlpack.h are found (bindings/python). Debian's python3-numpy and python3-pybind11
#            serve /usr/bin/python3, which is the default Python3_EXECUTABLE when it exists (another python3 may come
#            first on PATH); set -DPython3_EXECUTABLE=... to build for another interpreter that has NumPy.
# A project that pulls detred in with add_subdirectory gets neither module unless it turns the option on.
if(DETRED_BUILD_TESTS)
  enable_language(C)
endif()

# A cross build (the aarch64 check, docs/arm.md) builds neither module: the host's gfortran and Python would be found.
include(CheckLanguage)
set(detred_fortran_found OFF)
if(NOT CMAKE_CROSSCOMPILING)
  check_language(Fortran)
  if(CMAKE_Fortran_COMPILER)
    set(detred_fortran_found ON)
  endif()
endif()
set(detred_fortran_default OFF)
if(detred_fortran_found AND detred_is_top_level)
  set(detred_fortran_default ON)
endif()
option(DETRED_BUILD_FORTRAN "Build the Fortran module (use detred)" ${detred_fortran_default})
if(DETRED_BUILD_FORTRAN)
  if(NOT detred_fortran_found)
    message(FATAL_ERROR "DETRED_BUILD_FORTRAN is ON but no Fortran compiler was found (tools/setup.sh installs "
                        "gfortran), or this is a cross build")
  endif()
  enable_language(Fortran)
endif()
message(STATUS "detred: Fortran module ${DETRED_BUILD_FORTRAN}")

# A sanitized extension module cannot be loaded by an interpreter built without the sanitizer runtime, so the
# sanitize preset builds no Python module (its tests report themselves skipped).
set(detred_python_found OFF)
if(NOT DETRED_SANITIZE AND NOT CMAKE_CROSSCOMPILING)
  if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "The Python interpreter the detred module is built for")
  endif()
  find_package(Python3 COMPONENTS Interpreter Development.Module NumPy QUIET)
  if(Python3_FOUND)
    find_package(pybind11 CONFIG QUIET)
    # DLPack's header (the tensor struct behind __dlpack__, for PyTorch CUDA tensors).
    find_path(DLPACK_INCLUDE_DIR dlpack/dlpack.h)
    if(pybind11_FOUND AND DLPACK_INCLUDE_DIR)
      set(detred_python_found ON)
    endif()
  endif()
endif()
set(detred_python_default OFF)
if(detred_python_found AND detred_is_top_level)
  set(detred_python_default ON)
endif()
option(DETRED_BUILD_PYTHON "Build the Python module (needs Python 3 with NumPy, pybind11 and DLPack's header)"
       ${detred_python_default})
if(DETRED_BUILD_PYTHON AND NOT detred_python_found)
  message(FATAL_ERROR "DETRED_BUILD_PYTHON is ON but Python 3 with its headers and NumPy, pybind11 or dlpack.h was not "
                      "found for ${Python3_EXECUTABLE} (tools/setup.sh installs them for /usr/bin/python3), or "
                      "this is a sanitizer or cross build")
endif()
if(DETRED_BUILD_PYTHON)
  message(STATUS "detred: Python module ON (${Python3_EXECUTABLE}, NumPy ${Python3_NumPy_VERSION}, "
                 "pybind11 ${pybind11_VERSION})")
else()
  message(STATUS "detred: Python module OFF")
endif()

# detred_binding_target(target): the sanitizers for the C and Fortran sources of the bindings and their tests (the
# C++ sources get them, with the strict floating-point flags, from detred_target), and the strict flags for Fortran.
function(detred_binding_target target)
  detred_target(${target})
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:C>:-ffp-contract=off -fno-fast-math -Wall -Wextra -Wpedantic>
    $<$<COMPILE_LANGUAGE:Fortran>:-ffp-contract=off -fno-fast-math -Wall -Wextra -std=f2018>)
  if(DETRED_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C,Fortran>:-Werror>)
  endif()
  if(DETRED_SANITIZE)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:C,Fortran>:-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer>)
  endif()
endfunction()
