# SPDX-License-Identifier: BSD-3-Clause
# NCCL is optional: detred_nccl (lib/nccl, include/detred/nccl.hpp) is built when the CUDA backend is built and an
# NCCL is found (nccl.h, and libnccl.so or libnccl.so.2), looked for in this order:
#   1. DETRED_NCCL_ROOT or NCCL_ROOT (CMake variables or environment variables): <root>/include, <root>/lib;
#   2. the nvidia/nccl folder of a pip-installed PyTorch (its wheel carries NCCL there), found through
#      Python3_EXECUTABLE and then the python3 first on PATH (without importing torch);
#   3. the system's default paths (Debian's libnccl-dev).
# Sets DETRED_HAVE_NCCL, DETRED_NCCL_INCLUDE_DIR and DETRED_NCCL_LIBRARY. docs/collectives.md says how to point the
# build at an NCCL.
option(DETRED_ENABLE_NCCL "Build detred_nccl (include/detred/nccl.hpp) when NCCL and the CUDA backend are found" ON)
set(DETRED_NCCL_ROOT "$ENV{DETRED_NCCL_ROOT}" CACHE PATH "An NCCL installation (include/nccl.h, lib/libnccl.so*)")
set(DETRED_HAVE_NCCL OFF)

if(DETRED_ENABLE_NCCL AND DETRED_HAVE_CUDA)
  set(detred_nccl_hints ${DETRED_NCCL_ROOT})
  if(DEFINED NCCL_ROOT)
    list(APPEND detred_nccl_hints ${NCCL_ROOT})
  endif()
  if(DEFINED ENV{NCCL_ROOT})
    list(APPEND detred_nccl_hints $ENV{NCCL_ROOT})
  endif()
  find_program(detred_path_python3 NAMES python3)
  foreach(python IN ITEMS ${Python3_EXECUTABLE} ${detred_path_python3})
    # find_spec locates torch without importing it (an import takes seconds and may need a GPU driver).
    execute_process(
      COMMAND ${python} -c
              "import importlib.util, os; s = importlib.util.find_spec('torch'); print(os.path.join(os.path.dirname(os.path.dirname(s.origin)), 'nvidia', 'nccl') if s and s.origin else '')"
      OUTPUT_VARIABLE detred_torch_nccl OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE detred_torch_failed)
    if(NOT detred_torch_failed AND detred_torch_nccl AND EXISTS "${detred_torch_nccl}/include/nccl.h")
      list(APPEND detred_nccl_hints ${detred_torch_nccl})
    endif()
  endforeach()
  find_path(DETRED_NCCL_INCLUDE_DIR nccl.h HINTS ${detred_nccl_hints} PATH_SUFFIXES include)
  # The pip wheel has libnccl.so.2 only (no development link libnccl.so).
  find_library(DETRED_NCCL_LIBRARY NAMES nccl libnccl.so.2 HINTS ${detred_nccl_hints} PATH_SUFFIXES lib lib64)
  if(DETRED_NCCL_INCLUDE_DIR AND DETRED_NCCL_LIBRARY)
    set(DETRED_HAVE_NCCL ON)
    message(STATUS "detred: NCCL collectives ON (${DETRED_NCCL_LIBRARY})")
  else()
    message(STATUS "detred: NCCL collectives skipped: no NCCL found (set DETRED_NCCL_ROOT to a folder with include/nccl.h and lib/libnccl.so*)")
  endif()
elseif(DETRED_ENABLE_NCCL)
  message(STATUS "detred: NCCL collectives skipped: they need the CUDA backend")
else()
  message(STATUS "detred: NCCL collectives skipped: DETRED_ENABLE_NCCL is OFF")
endif()
