#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The cross-architecture proof (docs/arm.md): detred cross-compiled for aarch64 with Debian's toolchain, its tests
# run under qemu-user on the NEON and the portable baseline paths, and a golden file recorded by the x86-64 build
# checked on aarch64 with 0 differences.
#
# Usage: tools/cross/aarch64_check.sh [NATIVE_BUILD_DIR]
#   NATIVE_BUILD_DIR: an x86-64 build with the verify tool (default build/release, as the README's commands make it).
# Builds in build/aarch64-gtest and build/aarch64. DETRED_CROSS_JOBS sets the parallel jobs (default 2).
set -euo pipefail
cd "$(dirname "$0")/../.."

native=${1:-build/release}
cross=build/aarch64
gtest=build/aarch64-gtest
jobs=${DETRED_CROSS_JOBS:-2}
toolchain=$PWD/cmake/toolchains/aarch64-linux-gnu.cmake
# The same command as CMAKE_CROSSCOMPILING_EMULATOR in the toolchain file (which says why LD_LIBRARY_PATH).
qemu=(qemu-aarch64 -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib)
start=$SECONDS
step() { echo "== aarch64 [$((SECONDS - start)) s]: $*"; }

step "the cross toolchain, qemu-user and the arm64 libraries (Debian packages)"
./tools/setup.sh --cross-aarch64

step "GoogleTest for arm64, from the sources libgtest-dev ships (/usr/src/googletest)"
if [[ ! -f $gtest/install/lib/cmake/GTest/GTestConfig.cmake ]]; then
  cmake -S /usr/src/googletest -B "$gtest/build" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$PWD/$gtest/install" >/dev/null
  cmake --build "$gtest/build" -j "$jobs" >/dev/null
  cmake --install "$gtest/build" >/dev/null
fi

step "cross build: the library, the golden, invariance and API tests, the verify tool"
cmake -S . -B "$cross" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DCMAKE_BUILD_TYPE=Release \
  -DDETRED_ENABLE_CUDA=OFF -DDETRED_BUILD_TOOLS=OFF -DDETRED_WITH_NETCDF_HDF5=OFF \
  -DCMAKE_PREFIX_PATH="$PWD/$gtest/install" >/dev/null
cmake --build "$cross" -j "$jobs" --target detred golden_test invariance_test api_test operations_invariance_test \
  operations_rules_test exact_test detred_cli | tail -n 1

step "disassembly: fused multiply-adds only in TwoProduct's operators, NEON lanes in kernels_neon only"
objects=$cross/lib/CMakeFiles/detred.dir/cpu
# The compensated dot, sum of squares and nrm2 call fma on purpose (TwoProduct, in compensated_sums::add_product): the
# operators whose terms are products (their form in detred/catalogue.hpp). So does exact
# mode's dot (TwoProduct in dot_block, lib/exact/block_kernel.inl); a fused
# multiply-add in any other function would be a contraction the build forbids (-ffp-contract=off). POSIX classes, not
# \s: Debian's awk is mawk.
contracted=$(aarch64-linux-gnu-objdump -d "$cross/lib/libdetred.a" | aarch64-linux-gnu-c++filt |
  awk '/^[0-9a-f]+ <.*>:$/ { fn = $0 }
       /[[:space:]](fmadd|fmsub|fnmadd|fnmsub|fmla|fmls)[[:space:]]/ &&
         fn !~ /(dot_op|sumsq_op|nrm2_op)<[^>]*compensated_sums>|compensated_sums::add_product|exact_cpu::[a-z0-9]+_lanes::dot_block/ { print fn }' |
  sort -u)
fused=$(printf '%s' "$contracted" | grep -c . || true)
if [[ -n $contracted ]]; then echo "$contracted" | head -n 5; fi
neon_adds=$(aarch64-linux-gnu-objdump -d "$objects/kernels_neon.cpp.o" | grep -cE 'f(add|sub)\s+v[0-9]+\.(2d|4s)' || true)
# A NEON instruction names its lanes (v0.2d, v1.4s). A 16-byte ldr/str of a q register is not one: it is a load or
# store of the floating-point register file, which +nosimd keeps, and GCC copies 16-byte vector-typed values with it.
baseline_simd=$(aarch64-linux-gnu-objdump -d "$objects/kernels_baseline.cpp.o" | grep -cE '\sv[0-9]+\.' || true)
baseline_q_moves=$(aarch64-linux-gnu-objdump -d "$objects/kernels_baseline.cpp.o" | grep -cE '\s(ldr|str|ldp|stp)\s+q[0-9]+' || true)
baseline_adds=$(aarch64-linux-gnu-objdump -d "$objects/kernels_baseline.cpp.o" | grep -cE 'f(add|sub)\s+[ds][0-9]+,' || true)
echo "libdetred.a: $fused functions with fused multiply-adds outside compensated dot, sumsq and nrm2 (fmadd/fmsub/fnmadd/fnmsub/fmla/fmls)"
echo "kernels_neon: $neon_adds vector fadd/fsub (.2d/.4s); kernels_baseline: $baseline_adds scalar fadd/fsub," \
  "$baseline_simd NEON lane instructions ($baseline_q_moves 16-byte q-register loads and stores)"
if ((fused != 0 || neon_adds == 0 || baseline_simd != 0 || baseline_adds == 0)); then
  echo "disassembly check FAILED" >&2
  exit 1
fi

# Suites: the golden vectors and the invariance suite (both run every supported instruction set, here neon and
# baseline, at 1..64 threads), one test per instruction set (the x86 ones skipped), the API and order tests, exact
# mode against the oracle on neon and baseline (about 10 s under qemu), and the kernel objects' symbol check. Left
# out: the death tests of DETRED_ISA (GoogleTest re-executes the binary, which qemu-user cannot do without
# binfmt_misc; the verify tool covers DETRED_ISA below), the 2^32-element test (an hour under emulation), and the
# verify tool's own suites (MPFR, parsers: no architecture-specific code of detred).
# Boundary sizes stop at 2^21 (DETRED_TEST_MAX_LOG2): qemu emulates every floating-point operation.
step "tests under qemu-aarch64 (ctest)"
DETRED_TEST_MAX_LOG2=21 ctest --test-dir "$cross" -j "$jobs" --output-on-failure --no-tests=error \
  -R '^(Golden|Invariance|Isa|Api|Order|ExactSum|ExactAsum|ExactDot|ExactState|ExactMode)\.|^(Invariance|Isa)/|^isa_kernel_symbols$|^(Float|Half|Integer)(Operators|Rules)' \
  -E 'Api\.EnvironmentVariable|Api\.SizesBeyondTwoToThe32'
"${qemu[@]}" "$cross/tests/invariance_test" --gtest_filter='Invariance/0.PathsPrintedForTheLog' | grep '^\[ paths'

step "golden file recorded by the x86-64 build, checked under qemu"
work=$cross/golden
rm -rf "$work" && mkdir -p "$work/x86-64" "$work/aarch64"
cmake --build "$native" --target detred_cli | tail -n 1
datasets=(
  "ill-conditioned 1000000 float64 42"
  "dynamic-range 1000003 float64 7"
  "normal 524289 float32 3"
  "uniform 2049 float64 11"
  "subnormal 65537 float32 5"
  "same-sign 4095 float32 9"
)
for d in "${datasets[@]}"; do
  read -r dist n dtype seed <<<"$d"
  name=$dist-$n-$dtype.npy
  "$native/verify/detred" gen --dist "$dist" --n "$n" --dtype "$dtype" --seed "$seed" -o "$work/x86-64/$name"
  "${qemu[@]}" "$cross/verify/detred" gen --dist "$dist" --n "$n" --dtype "$dtype" --seed "$seed" \
    -o "$work/aarch64/$name"
  cmp "$work/x86-64/$name" "$work/aarch64/$name"
done
echo "detred gen: ${#datasets[@]} files bit-identical on x86-64 and aarch64"
"$native/verify/detred" record "$work"/x86-64/*.npy -o "$work/golden-x86-64.json"
echo "aarch64, automatic (neon):"
"${qemu[@]}" "$cross/verify/detred" check "$work/golden-x86-64.json"
echo "aarch64, DETRED_ISA=baseline:"
DETRED_ISA=baseline "${qemu[@]}" "$cross/verify/detred" check "$work/golden-x86-64.json"
echo "aarch64, DETRED_ISA=neon, the golden file committed in tools/cross (recorded on x86-64):"
DETRED_ISA=neon "${qemu[@]}" "$cross/verify/detred" check tools/cross/golden-x86-64.json --data-dir "$work/x86-64"

step "DETRED_ISA on aarch64, each in a fresh process"
for isa in neon baseline; do
  got=$(DETRED_ISA=$isa "${qemu[@]}" "$cross/verify/detred" reduce "$work/x86-64/uniform-2049-float64.npy" --json |
        grep -o '"isa": "[a-z0-9]*"')
  echo "DETRED_ISA=$isa: reduce --json says $got"
  [[ $got == "\"isa\": \"$isa\"" ]]
done
if message=$(DETRED_ISA=avx2 "${qemu[@]}" "$cross/verify/detred" reduce "$work/x86-64/uniform-2049-float64.npy" 2>&1); then
  echo "DETRED_ISA=avx2 was accepted on aarch64" >&2
  exit 1
fi
echo "DETRED_ISA=avx2: refused: $message"

step "verify under qemu: every aarch64 path bit for bit, errors within the bounds (MPFR oracle)"
"${qemu[@]}" "$cross/verify/detred" verify "$work/x86-64/ill-conditioned-1000000-float64.npy" \
  "$work/x86-64/normal-524289-float32.npy" --threads 1,2,3

step "PASS: aarch64 (neon and baseline) gives the x86-64 bits"
