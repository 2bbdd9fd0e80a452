#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""detred.sum against numpy.sum (and, on a GPU, cupy.sum and torch.sum), measured in the same run.

    PYTHONPATH=build/release/bindings/python /usr/bin/python3 tools/python_bench/python_bench.py [--rounds 21]

Rows (docs/bindings.md has the targets and the recorded run):
  - call overhead: one call on a 1-element float64 array, as the median over rounds of the mean of a batch of calls;
  - throughput: 2^24 float64 on one thread (threads=1; numpy.sum is single-threaded), median over rounds;
  - one axis of a C-ordered 4096 x 4096 float32 matrix (axis=0: column sums, axis=1: row sums), default threads and
    one thread, against numpy.sum(m, axis=...);
  - GPU (skipped without CuPy or a usable device): 2^28 and 2^16 float32 CuPy arrays, cupy.sum (synchronized) against
    detred.sum (which returns the value on the host, so it includes the copy of the result), and torch.sum if present.
Each round runs every contender once, in turn, so that a slow phase of the machine affects them alike.
"""

import argparse
import pathlib
import statistics
import sys
import time

import numpy as np

import detred

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "bench_record"))
from run_record import RunRecord  # noqa: E402  (the shared results format, docs/benchmarks.md)

RECORD = RunRecord("python_bench.py")


def interleaved(contenders, rounds, repeat):
    """{name: median over rounds of the seconds per call}, each round timing `repeat` calls of each in turn."""
    times = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, call in contenders.items():
            start = time.perf_counter()
            for _ in range(repeat):
                call()
            times[name].append((time.perf_counter() - start) / repeat)
    return {name: statistics.median(t) for name, t in times.items()}


def row(label, seconds, baseline, nbytes=None, target=""):
    rate = f"{nbytes / seconds / 1e9:9.2f} GB/s" if nbytes else " " * 14
    ratio = seconds / baseline
    print(f"  {label:<34} {seconds * 1e6:12.3f} us {rate}   {ratio:6.2f}x  {target}")
    RECORD.add(row=label, us=seconds * 1e6, gb_per_s=nbytes / seconds / 1e9 if nbytes else None,
               time_ratio=ratio, target=target,
               verdict=("PASS" if ratio <= float(target.split()[1].rstrip("x")) else "MISS") if target else "")


def cpu_rows(rounds):
    print("CPU (ratios: time / numpy.sum's time; lower is faster)")
    one = np.ones(1)
    t = interleaved({"numpy": lambda: np.sum(one), "detred": lambda: detred.sum(one)}, rounds, 20000)
    row("numpy.sum, 1 element", t["numpy"], t["numpy"])
    row("detred.sum, 1 element", t["detred"], t["numpy"], target="<= 2.0x")

    n = 1 << 24
    x = np.random.default_rng(1).uniform(-1, 1, n)
    t = interleaved({
        "numpy": lambda: np.sum(x),
        "tree": lambda: detred.sum(x, threads=1),
        "compensated": lambda: detred.sum(x, mode="compensated", threads=1),
    }, rounds, 3)
    row("numpy.sum, 2^24 float64", t["numpy"], t["numpy"], x.nbytes)
    row("detred.sum tree, 2^24, threads=1", t["tree"], t["numpy"], x.nbytes, target="<= 1.0x")
    row("detred.sum compensated, 2^24, 1 thr", t["compensated"], t["numpy"], x.nbytes)

    # One axis of a C-ordered matrix: each lane reduced by the library's batched call (docs/bindings.md).
    m = np.random.default_rng(2).standard_normal((4096, 4096)).astype(np.float32)
    for axis in [0, 1]:
        t = interleaved({
            "numpy": lambda: np.sum(m, axis=axis),
            "detred": lambda: detred.sum(m, axis=axis),
            "detred1": lambda: detred.sum(m, axis=axis, threads=1),
        }, rounds, 3)
        row(f"numpy.sum, 4096^2 float32, axis={axis}", t["numpy"], t["numpy"], m.nbytes)
        row(f"detred.sum, axis={axis}", t["detred"], t["numpy"], m.nbytes, target="<= 1.0x")
        row(f"detred.sum, axis={axis}, threads=1", t["detred1"], t["numpy"], m.nbytes)


def gpu_rows(rounds):
    try:
        import cupy
    except ImportError:
        print("GPU: skipped (CuPy is not installed)")
        return
    if not detred.cuda_available():
        print("GPU: skipped (detred.cuda_available() is False: no CUDA backend or no usable device)")
        return
    try:
        import torch
    except ImportError:
        torch = None
    print("GPU (ratios: time / cupy.sum's time; cupy.sum and torch.sum synchronized, detred.sum returns to the host)")
    for log2 in [28, 16]:
        x = cupy.random.default_rng(1).uniform(-1, 1, 1 << log2, dtype=cupy.float32)
        contenders = {
            "cupy": lambda: (cupy.sum(x), cupy.cuda.get_current_stream().synchronize()),
            "detred": lambda: detred.sum(x),
        }
        if torch is not None and torch.cuda.is_available():
            t_x = torch.from_dlpack(x)
            contenders["torch"] = lambda: (torch.sum(t_x), torch.cuda.synchronize())
        for call in contenders.values():
            call()  # warm up: workspaces, kernels, allocator pools
        t = interleaved(contenders, rounds, 10 if log2 == 28 else 200)
        for name in contenders:
            row(f"{name}.sum, 2^{log2} float32", t[name], t["cupy"], x.nbytes)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=21, help="interleaved rounds (the median is reported)")
    parser.add_argument("--cpu-only", action="store_true", help="skip the GPU rows")
    parser.add_argument("--json", help="also write the results as JSON to this file (docs/benchmarks.md)")
    args = parser.parse_args()
    RECORD.set("rounds", args.rounds)
    RECORD.set("numpy", np.__version__)
    print(f"detred {detred.__version__} (order {detred.order_version}), NumPy {np.__version__}, "
          f"Python {sys.version.split()[0]}; median of {args.rounds} interleaved rounds")
    cpu_rows(args.rounds)
    if not args.cpu_only:
        gpu_rows(args.rounds)
    if args.json:
        RECORD.write(args.json)


if __name__ == "__main__":
    main()
