# SPDX-License-Identifier: BSD-3-Clause
# detred_add_golden_test(): a `detred check` of a golden file as a test of the caller's CTest suite.
#
#   find_package(detred REQUIRED)
#   enable_testing()
#   detred_add_golden_test(NAME sums GOLDEN golden/sums.json
#                          [DATA_DIR dir]            # look for the data files here, by file name
#                          [JUNIT file.xml]          # also write a JUnit XML report (one testcase per result;
#                                                    # its folder is made; inputs named relative to GOLDEN)
#                          [WORKING_DIRECTORY dir]   # where recorded relative paths start (default: this folder)
#                          [LABELS label...])
#
# The test runs `detred check GOLDEN [--data-dir DATA_DIR] [--junit JUNIT]` and fails when any result's bits
# differ from the golden file, when a data file changed (its SHA-256), or on bad input (a missing file, a
# malformed golden file). Relative GOLDEN, DATA_DIR and WORKING_DIRECTORY are taken from the calling folder;
# a relative JUNIT from its build folder. The tool is DETRED_EXECUTABLE, set by detredConfig.cmake to the
# installed `detred`; set it (for example with find_program) to use another.
function(detred_add_golden_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;GOLDEN;DATA_DIR;JUNIT;WORKING_DIRECTORY" "LABELS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "detred_add_golden_test: unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_NAME OR NOT arg_GOLDEN)
    message(FATAL_ERROR "detred_add_golden_test: NAME and GOLDEN are required")
  endif()
  if(NOT DETRED_EXECUTABLE OR NOT EXISTS "${DETRED_EXECUTABLE}")
    message(FATAL_ERROR "detred_add_golden_test: the detred tool was not found (DETRED_EXECUTABLE is "
                        "'${DETRED_EXECUTABLE}'); install detred with its verify tool (DETRED_BUILD_VERIFY=ON)")
  endif()
  cmake_path(ABSOLUTE_PATH arg_GOLDEN BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" OUTPUT_VARIABLE golden)
  set(command "${DETRED_EXECUTABLE}" check "${golden}")
  if(arg_DATA_DIR)
    cmake_path(ABSOLUTE_PATH arg_DATA_DIR BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" OUTPUT_VARIABLE data_dir)
    list(APPEND command --data-dir "${data_dir}")
  endif()
  if(arg_JUNIT)
    cmake_path(ABSOLUTE_PATH arg_JUNIT BASE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}" OUTPUT_VARIABLE junit)
    list(APPEND command --junit "${junit}")
  endif()
  set(working_directory "${CMAKE_CURRENT_SOURCE_DIR}")
  if(arg_WORKING_DIRECTORY)
    cmake_path(ABSOLUTE_PATH arg_WORKING_DIRECTORY BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
               OUTPUT_VARIABLE working_directory)
  endif()
  add_test(NAME ${arg_NAME} COMMAND ${command} WORKING_DIRECTORY "${working_directory}")
  set_tests_properties(${arg_NAME} PROPERTIES LABELS "detred;golden;${arg_LABELS}")
endfunction()
