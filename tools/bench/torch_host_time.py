#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Where the time of detred.torch's GPU rows goes (docs/torch.md): for each call, its host time (the median over
2000 calls of the time the call takes to return, the GPU idle before each) and its GPU time a call when calls run
back to back (200 calls between two CUDA events, so the host's time hides behind the GPU's where it is shorter).
torch_ops_bench.py times one call between CUDA events, the sum of the two; this splits them.

    PYTHONPATH=<build>/bindings/python python tools/bench/torch_host_time.py
"""

import statistics
import time

import torch
import torch.nn.functional as F

import detred.torch as dt
from detred import _detred
from detred.torch import _kernels


def host_us(fn, calls=2000):
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
        torch.cuda.synchronize()
    return statistics.median(times) * 1e6


def gpu_us(fn, calls=200):
    for _ in range(20):
        fn()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    start.record()
    for _ in range(calls):
        fn()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) * 1e3 / calls


def main():
    g = torch.Generator(device="cuda").manual_seed(1)
    m16 = torch.randn(4096, 4096, device="cuda", generator=g).bfloat16()
    m32 = m16.float()
    x = torch.randn(4096, 8192, device="cuda", generator=g).bfloat16()
    w = torch.randn(8192, device="cuda", generator=g).bfloat16()
    sums = torch.empty(4096, device="cuda", dtype=torch.bfloat16)
    stream = _kernels._cuda_stream_handle(0)
    rows = [
        ("dt.rms_norm, (4096, 8192) bfloat16", lambda: dt.rms_norm(x, w)),
        ("F.rms_norm, the same", lambda: F.rms_norm(x, (8192,), w, 1e-6)),
        ("dt.sum(x, -1), (4096, 4096) float32", lambda: dt.sum(m32, -1)),
        ("torch.sum(x, -1), the same", lambda: torch.sum(m32, -1)),
        ("dt.sum(x, -1), (4096, 4096) bfloat16", lambda: dt.sum(m16, -1)),
        ("torch.sum(x, -1), the same", lambda: torch.sum(m16, -1)),
        ("of which: torch.empty(4096)", lambda: torch.empty(4096, device="cuda")),
        ("of which: _detred._cuda_row_sums",
         lambda: _detred._cuda_row_sums(m16.data_ptr(), 4096, 4096, "bfloat16", sums.data_ptr(), 0, stream)),
        ("for scale: a float32 tensor's .to(torch.bfloat16)", lambda: m32[0].to(torch.bfloat16)),
    ]
    print(f"PyTorch {torch.__version__}, {torch.cuda.get_device_name()}")
    print("| call | host us | GPU us a call, back to back |")
    print("|---|--:|--:|")
    for name, fn in rows:
        print(f"| {name} | {host_us(fn):.1f} | {gpu_us(fn):.1f} |", flush=True)


if __name__ == "__main__":
    main()
