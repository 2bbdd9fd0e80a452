#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The normalizations' weight-gradient column sums (docs/torch.md): detred.torch's column sums, which read the matrix
where it lies (detred::cuda::sum_columns on CUDA, detred.sum over axis 0 on the CPU), against the way they were
computed before, the row sums of a transposed copy. Both give the same bits (checked here on every shape); the
ratio is the transposed copy's time over the in-place time, so above 1 is faster. Each device's rows interleave
the two, the median of the rounds. Then `rms_norm`'s whole backward, with each kind of column sums.

    PYTHONPATH=<build>/bindings/python python3 tools/bench/torch_column_sums_bench.py [--rounds 20]
"""

import argparse
import statistics
import time

import torch

import detred
import detred.torch as dt
from detred.torch import _kernels


def transposed(matrix):
    """The baseline: the row sums of the transpose, copied contiguous first."""
    return _kernels.row_sums(matrix.t().contiguous())


def seconds(fn, device):
    if device == "cuda":
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        return start.elapsed_time(stop) * 1e-3
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def compare(name, ours, base, device, rounds):
    ours(), base()  # warm-up
    t_ours, t_base = [], []
    for _ in range(rounds):
        t_ours.append(seconds(ours, device))
        t_base.append(seconds(base, device))
    a, b = statistics.median(t_ours), statistics.median(t_base)
    print(f"| {name} | {device} | {a * 1e3:.3f} | {b * 1e3:.3f} | {b / a:.2f} |")


def backward(x, w, g):
    x.grad = w.grad = None
    dt.rms_norm(x, w).backward(g)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    rounds = parser.parse_args().rounds
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() and detred.cuda_available() else [])
    print("| row | device | in place ms | transposed copy ms | ratio |")
    print("|---|---|--:|--:|--:|")
    for device in devices:
        gen = torch.Generator().manual_seed(1)
        for shape in [(2048, 8192), (8192, 1024), (64, 8192)]:
            m = torch.randn(shape, generator=gen).to(device)
            same = _kernels.column_sums(m).cpu().view(torch.int32).equal(transposed(m).cpu().view(torch.int32))
            assert same, f"the column sums of {shape} differ from the transpose's row sums on {device}"
            compare(f"column sums, {shape} float32", lambda: _kernels.column_sums(m), lambda: transposed(m), device,
                    rounds)
        x = torch.randn(2048, 8192, generator=gen).to(device).requires_grad_()
        w = torch.randn(8192, generator=gen).to(device).requires_grad_()
        g = torch.randn(2048, 8192, generator=gen).to(device)
        in_place = _kernels.column_sums

        def with_transposed():
            _kernels.column_sums = transposed
            try:
                backward(x, w, g)
            finally:
                _kernels.column_sums = in_place

        compare("rms_norm backward, (2048, 8192) float32", lambda: backward(x, w, g), with_transposed, device,
                max(3, rounds // 4))


if __name__ == "__main__":
    main()
