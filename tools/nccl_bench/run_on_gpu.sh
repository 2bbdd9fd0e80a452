#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# On a machine with one or more GPUs and a pip-installed CUDA PyTorch (whose nvidia/nccl folder has nccl.h and
# libnccl.so.2): builds detred with the CUDA backend and detred::nccl, then
#   1. runs detred-nccl-check (every result against the CPU's detred::sum over the ranks) under every
#      NCCL_ALGO in {Ring, Tree} x NCCL_PROTO in {Simple, LL, LL128} and compares the result digests across the runs:
#      the bit-identity matrix;
#   2. runs detred-nccl-bench (detred::nccl::allreduce_sum against ncclAllReduce, same run);
#   3. where the Python has NumPy and pybind11 (and dlpack.h is found): builds the detred module for it and runs
#      tests/python/torch_distributed_worker.py over an NCCL group, a process per GPU.
# Logs and tables go to $OUT (default ./nccl-logs).
#
#   tools/nccl_bench/run_on_gpu.sh [SOURCE_DIR]
#
# PYTHON names the interpreter with PyTorch (default python3); DETRED_NCCL_ROOT, if set, an NCCL to use instead
# of PyTorch's. NVLink multicast (NVLS) stays off (NCCL_NVLS_ENABLE=0) unless the caller sets it.
set -uo pipefail
src=$(cd "${1:-.}" && pwd)
out=${OUT:-$PWD/nccl-logs}
build=${BUILD_DIR:-/tmp/detred-nccl-build}
python=${PYTHON:-python3}
jobs=$(nproc)
mkdir -p "$out"
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
# DEPS_PREFIX: Debian packages unpacked with dpkg -x on a machine without them, as for tools/cuda_bench/run_on_gpu.sh:
# nlohmann-json3-dev (the benchmark's JSON) and libdlpack-dev (the Python module). Not pybind11-dev where the Python
# has pip's pybind11: the prefix's include folder comes before it, and Debian's older headers fail the build's
# -Werror=shadow.
if [ -n "${DEPS_PREFIX:-}" ]; then
  export CMAKE_PREFIX_PATH=$(cd "$DEPS_PREFIX" && pwd)/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
fi

nccl_root=${DETRED_NCCL_ROOT:-$("$python" -c "import importlib.util, os; s = importlib.util.find_spec('torch'); print(os.path.join(os.path.dirname(os.path.dirname(s.origin)), 'nvidia', 'nccl'))")}
[ -f "$nccl_root/include/nccl.h" ] || { echo "no nccl.h under $nccl_root (set DETRED_NCCL_ROOT or PYTHON)"; exit 1; }
export LD_LIBRARY_PATH=$nccl_root/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$out/gpu.txt"
nvidia-smi topo -m >>"$out/gpu.txt" 2>&1

# The Python module is built where the Python has NumPy, pybind11 and dlpack.h (the configure finds them or not).
pybind11_dir=$("$python" -m pybind11 --cmakedir 2>/dev/null)
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDETRED_CUDA_ARCHITECTURES=90 \
  -DDETRED_BUILD_VERIFY=OFF -DDETRED_BUILD_TESTS=OFF -DDETRED_ENABLE_MPI=OFF -DDETRED_NCCL_ROOT="$nccl_root" \
  -DPython3_EXECUTABLE="$(command -v "$python")" ${pybind11_dir:+-Dpybind11_DIR="$pybind11_dir"} \
  >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
grep "detred:" "$out/build.log"
cmake --build "$build" -j"$jobs" --target detred-nccl-check detred-nccl-bench >>"$out/build.log" 2>&1 ||
  { grep -E "error|FAILED" "$out/build.log" | head -30; exit 1; }
python_module=OFF
cmake --build "$build" -j"$jobs" --target detred_python >>"$out/build.log" 2>&1 && python_module=ON
check=$build/tools/nccl_bench/detred-nccl-check
bench=$build/tools/nccl_bench/detred-nccl-bench

echo "== bit-identity matrix (each run compares every result with the CPU; the digests must agree across runs)"
status=0
: >"$out/digests.txt"
echo "| NCCL_ALGO | NCCL_PROTO | result | digests (sha256 of the digest lines) |" | tee "$out/matrix.md"
echo "| --- | --- | --- | --- |" | tee -a "$out/matrix.md"
for algo in Ring Tree; do
  for proto in Simple LL LL128; do
    log=$out/check-$algo-$proto.log
    NCCL_ALGO=$algo NCCL_PROTO=$proto "$check" >"$log" 2>&1
    code=$?
    result=$([ $code -eq 0 ] && echo passed || echo "FAILED (exit $code)")
    [ $code -eq 0 ] || status=1
    digest=$(grep '^digest ' "$log" | sha256sum | cut -c1-16)
    echo "$digest" >>"$out/digests.txt"
    echo "| $algo | $proto | $result | $digest |" | tee -a "$out/matrix.md"
  done
done
if [ "$(sort -u "$out/digests.txt" | wc -l)" -eq 1 ]; then
  echo "every run gave the same bits" | tee -a "$out/matrix.md"
else
  echo "the runs gave DIFFERENT bits" | tee -a "$out/matrix.md"
  status=1
fi
# The runs' logs in one file (few files come back from some machines).
cat "$out"/check-*.log >"$out/checks.log" && rm -f "$out"/check-*.log

echo "== benchmark (default NCCL settings)"
"$bench" "$out/bench.json" 2>&1 | tee "$out/bench.md"

if [ "$python_module" = ON ]; then
  echo "== detred.torch.distributed over NCCL, a process per GPU"
  gpus=$(nvidia-smi -L | wc -l)
  init=$(mktemp -u)
  pids=()
  for ((r = 0; r < gpus; r++)); do
    PYTHONPATH=$build/bindings/python "$python" "$src/tests/python/torch_distributed_worker.py" $r "$gpus" "$init" nccl \
      >"$out/torch-rank$r.log" 2>&1 &
    pids+=($!)
  done
  torch_status=0
  for pid in "${pids[@]}"; do wait "$pid" || torch_status=1; done
  cat "$out"/torch-rank*.log >"$out/torch.log" && rm -f "$out"/torch-rank*.log
  [ $torch_status -eq 0 ] && echo "passed" || { echo "FAILED (see torch.log)"; status=1; }
else
  echo "== detred.torch.distributed over NCCL: skipped (no Python module: $python lacks NumPy, pybind11 or dlpack.h)"
fi
exit $status
