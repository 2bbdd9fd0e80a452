# SPDX-License-Identifier: BSD-3-Clause
# Compiler flags for every detred target.
#
# detred_strict_fp(target): the arithmetic must be exactly what the source says. -ffp-contract=off forbids fusing
# a*b+c into an FMA (GCC fuses by default), -fno-fast-math keeps every IEEE rule, and nvcc gets -fmad=false and
# no FTZ. These flags are PUBLIC for the library only where they concern the headers' inline code.
function(detred_strict_fp target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-ffp-contract=off -fno-fast-math -fno-unsafe-math-optimizations>
    $<$<COMPILE_LANGUAGE:CUDA>:-fmad=false -ftz=false -prec-div=true -prec-sqrt=true
                               -Xcompiler=-ffp-contract=off>)
endfunction()

# detred_warnings(target): strict warnings, errors for detred's own code.
function(detred_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>)
  # DETRED_UNROLL asks clang for full unrolling of the order's short loops; where a caller passes a run-time width
  # (the reference engine) clang keeps the loop and says so. The loop is still right, only not unrolled.
  target_compile_options(${target} PRIVATE $<$<CXX_COMPILER_ID:Clang>:-Wno-pass-failed>)
  if(DETRED_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
  endif()
endfunction()

# detred_target(target): both of the above, plus the sanitizers when DETRED_SANITIZE is on.
function(detred_target target)
  detred_strict_fp(${target})
  detred_warnings(${target})
  if(DETRED_SANITIZE)
    # -g1 (line tables only) is all that the sanitizers' stack traces need. Full -g makes GCC's variable tracking
    # of the instrumented kernels and typed tests 3-4x slower to compile (kernels_baseline.cpp: 688 s with -g, 196 s
    # with -g1), which is most of the sanitizer build's time in CI. The last -g option wins over the build type's.
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g1>)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  endif()
endfunction()
