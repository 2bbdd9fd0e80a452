#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds detred with the CUDA backend on a machine with a GPU, then runs the GPU tests, compute-sanitizer
# (memcheck and racecheck) over a subset of them, and the benchmark. Logs go to $OUT (default ./gpu-logs).
#
#   tools/cuda_bench/run_on_gpu.sh [SOURCE_DIR]
#
# GTEST_SOURCE may name a GoogleTest source tree to build first, for machines without a GoogleTest package.
# DEPS_PREFIX may name a folder holding Debian packages unpacked with dpkg -x (nlohmann-json3-dev: the benchmarks'
# JSON), for machines without them:  apt-get download nlohmann-json3-dev && dpkg -x nlohmann-json3-dev_*.deb DIR
set -uo pipefail
src=$(cd "${1:-.}" && pwd)
out=${OUT:-$PWD/gpu-logs}
jobs=$(nproc)
mkdir -p "$out"
build=${BUILD_DIR:-/tmp/detred-gpu-build}

if [ -n "${GTEST_SOURCE:-}" ]; then
  cmake -S "$GTEST_SOURCE" -B /tmp/gtest-build -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_GMOCK=OFF \
    -DCMAKE_INSTALL_PREFIX=/tmp/gtest-install >"$out/gtest-build.log" 2>&1 &&
    cmake --build /tmp/gtest-build -j"$jobs" >>"$out/gtest-build.log" 2>&1 &&
    cmake --install /tmp/gtest-build >>"$out/gtest-build.log" 2>&1 || { echo "GoogleTest build failed"; exit 1; }
  export CMAKE_PREFIX_PATH=/tmp/gtest-install${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
fi

if [ -n "${DEPS_PREFIX:-}" ]; then
  deps=$(cd "$DEPS_PREFIX" && pwd)
  export CMAKE_PREFIX_PATH=$deps/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
fi

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv | tee "$out/gpu.txt"
# The verify tool needs MPFR, which GPU hosts may lack; the GPU tests and the benchmark do not need it.
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDETRED_CUDA_ARCHITECTURES=90 -DDETRED_BUILD_VERIFY=OFF \
  >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build "$build" -j"$jobs" --target cuda_test detred-cuda-bench detred-cuda-batch-bench detred-cuda-scan-bench >"$out/build.log" 2>&1 ||
  { grep -E "error|FAILED" "$out/build.log" | head -30; exit 1; }

test_bin=$(find "$build" -name cuda_test -type f | head -1)
bench_bin=$(find "$build" -name detred-cuda-bench -type f | head -1)
batch_bench_bin=$(find "$build" -name detred-cuda-batch-bench -type f | head -1)
scan_bench_bin=$(find "$build" -name detred-cuda-scan-bench -type f | head -1)

echo "== GPU tests"
"$test_bin" >"$out/test.log" 2>&1
echo "exit $?"
# Keep the files that come back few: the test log stays, the build logs go into one.
cat "$out/configure.log" "$out/build.log" >"$out/build-all.log" 2>/dev/null && rm -f "$out/configure.log" "$out/build.log"
[ -f "$out/gtest-build.log" ] && cat "$out/gtest-build.log" >>"$out/build-all.log" && rm -f "$out/gtest-build.log"
grep -E "^\[ +(compared|PASSED|FAILED|SKIPPED|large|workspace|message) " "$out/test.log" | head -20

# The sanitizers slow kernels down many times: a subset that still covers every kernel, load path and pass.
# CudaErrorsCarryTheCudaText provokes a failing cudaMalloc on purpose, which the sanitizer would count.
subset='Api.*:TypedGpu/*.EveryLeafCountUpTo70:TypedGpu/*.MisalignedDevicePointers:TypedGpu/*.SeveralFoldingPasses'
# The batch kernels: tiles of short lines at every alignment, long lines through both ways of folding them.
subset="$subset:GpuBatched/0.ShortSegmentsOfEveryLengthAndAlignment:GpuBatched/*.ManyLongSegmentsAndSomeOfManyItems"
subset="$subset:GpuBatched/1.ThousandsOfShortSegmentsWithLongOnesAmongThem"
# The fold of lines of many items by a block per line.
subset="$subset:GpuBatched/0.FewLinesOfThousandsOfItems"
# The scans: one array over many leaves (the published leaf tree), short and long segments, integers.
subset="$subset:GpuScan/0.MisalignedPointersMatchTheCpu:GpuScan/1.SegmentsEqualTheCpu"
subset="$subset:GpuScanRules.IntegerOverflowIsRefusedAsOnTheCpu"
subset="$subset-Api.CudaErrorsCarryTheCudaText"
for tool in memcheck racecheck; do
  echo "== compute-sanitizer --tool $tool"
  compute-sanitizer --tool "$tool" "$test_bin" --gtest_filter="$subset" >"$out/sanitizer-$tool.log" 2>&1
  echo "exit $?"
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED) " "$out/sanitizer-$tool.log"
done

echo "== benchmark: $bench_bin --json $out/bench.json ${BENCH_ARGS:-}"
"$bench_bin" --json "$out/bench.json" ${BENCH_ARGS:-} 2>&1 | tee "$out/bench.txt"

echo "== batch benchmark: $batch_bench_bin --rounds 20 --json $out/batch-bench.json"
"$batch_bench_bin" --rounds 20 --json "$out/batch-bench.json" 2>&1 | tee "$out/batch-bench.txt"

echo "== scan benchmark: $scan_bench_bin --rounds 20 --json $out/scan-bench.json"
"$scan_bench_bin" --rounds 20 --json "$out/scan-bench.json" 2>&1 | tee "$out/scan-bench.txt"
