#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""detred.torch's operators against PyTorch's own, in one run: a table of median times and ratios (PyTorch's time
over detred's: >= 1.0 means detred.torch is at least as fast). The targets are issue 38's (docs/torch.md).

    PYTHONPATH=build/release/bindings/python /usr/bin/python3 tools/bench/torch_ops_bench.py [--device cpu|cuda]
        [--rounds 11] [--threads N] [--json docs/results/torch-ops-cpu.json]

CPU rows: each operator at 2^24 elements against PyTorch's CPU kernel. CUDA rows (--device cuda): scatter_add of
2^26 values into 2^20 rows against index_put_(accumulate=True) with deterministic algorithms on and index_add_
(atomics); sum(dim=-1) of (4096, 4096) float32 and bfloat16 against torch.sum; rms_norm of (4096, 8192) bfloat16
against the eager PyTorch expression (and torch.nn.functional.rms_norm where it exists). Rounds interleave the two
sides, so that a busy machine slows both alike.
"""

import argparse
import pathlib
import statistics
import sys
import time

import torch

import detred.torch as dt

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "bench_record"))
from run_record import RunRecord  # noqa: E402  (the shared results format, docs/benchmarks.md)

RECORD = RunRecord("torch_ops_bench.py")


def verdict(ratio, target):
    """PASS or FAIL against a target written ">= x"; empty when the row has none."""
    if not target:
        return ""
    return "PASS" if ratio >= float(target.split()[-1]) else "FAIL"


def timer(device):
    if device == "cuda":
        def measure(fn):
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            return start.elapsed_time(stop) / 1e3
    else:
        def measure(fn):
            start = time.perf_counter()
            fn()
            return time.perf_counter() - start
    return measure


def compare(name, ours, theirs, rounds, device, target=None):
    measure = timer(device)
    for fn in (ours, theirs):  # warm-up: allocations, workspaces, code paths
        fn()
    a, b = [], []
    for _ in range(rounds):
        a.append(measure(ours))
        b.append(measure(theirs))
    t_ours, t_theirs = statistics.median(a), statistics.median(b)
    ratio = t_theirs / t_ours
    print(f"| {name} | {t_ours * 1e3:.3f} ms | {t_theirs * 1e3:.3f} ms | {ratio:.2f} | {target or ''} |", flush=True)
    RECORD.add(row=name, detred_ms=t_ours * 1e3, pytorch_ms=t_theirs * 1e3, ratio=ratio, target=target or "",
               verdict=verdict(ratio, target))


def cpu_rows(rounds):
    n = 1 << 24
    g = torch.Generator().manual_seed(1)
    m = torch.randn(4096, 4096, generator=g)
    mb = m.bfloat16()
    flat = m.reshape(-1)
    rows = 1 << 16
    index = torch.randint(0, rows, (n,), generator=g)
    lengths = torch.full((1 << 14,), n >> 14, dtype=torch.int64)
    offsets = torch.arange(0, n + 1, n >> 14)
    wide = torch.randn(2048, 8192, generator=g)
    w, b = torch.randn(8192, generator=g), torch.randn(8192, generator=g)
    target = ">= 1.0"
    compare("sum(dim=-1), (4096, 4096) float32", lambda: dt.sum(m, -1), lambda: torch.sum(m, -1), rounds, "cpu", target)
    compare("sum(dim=-1), (4096, 4096) bfloat16", lambda: dt.sum(mb, -1), lambda: torch.sum(mb, -1), rounds, "cpu",
            target)
    compare("sum(), 2^24 float32", lambda: dt.sum(flat), lambda: torch.sum(flat), rounds, "cpu", target)
    compare("sum(dim=0), (4096, 4096) float32", lambda: dt.sum(m, 0), lambda: torch.sum(m, 0), rounds, "cpu", target)
    compare("mean(dim=-1), (4096, 4096) float32", lambda: dt.mean(m, -1), lambda: torch.mean(m, -1), rounds, "cpu",
            target)
    zeros = torch.zeros(rows)
    compare("scatter_add, 2^24 into 2^16 rows", lambda: dt.scatter_add(zeros, 0, index, flat),
            lambda: zeros.scatter_add(0, index, flat), rounds, "cpu", target)
    compare("index_add, 2^24 into 2^16 rows", lambda: dt.index_add(zeros, 0, index, flat),
            lambda: zeros.index_add(0, index, flat), rounds, "cpu", target)
    compare("segment_sum, 2^24 in 2^14 segments", lambda: dt.segment_sum(flat, offsets=offsets),
            lambda: torch.segment_reduce(flat, "sum", lengths=lengths), rounds, "cpu", target)
    compare("rms_norm, (2048, 8192) float32", lambda: dt.rms_norm(wide, w),
            lambda: wide * torch.rsqrt(wide.pow(2).mean(-1, keepdim=True) + 1e-6) * w, rounds, "cpu", target)
    compare("layer_norm, (2048, 8192) float32", lambda: dt.layer_norm(wide, w, b),
            lambda: torch.nn.functional.layer_norm(wide, (8192,), w, b), rounds, "cpu", target)
    if dt.cumsum_available():
        compare("cumsum, 2^24 float32", lambda: dt.cumsum(flat, 0), lambda: torch.cumsum(flat, 0), rounds, "cpu",
                target)
    else:
        print("| cumsum | (detred.cumsum absent from this build) | | | |")


def cuda_rows(rounds):
    g = torch.Generator(device="cuda").manual_seed(1)
    values = torch.randn(1 << 26, device="cuda", generator=g)
    rows = 1 << 20
    index = torch.randint(0, rows, (1 << 26,), device="cuda", generator=g)
    zeros = torch.zeros(rows, device="cuda")

    def index_put_deterministic():
        torch.use_deterministic_algorithms(True)
        try:
            zeros.clone().index_put_((index,), values, accumulate=True)
        finally:
            torch.use_deterministic_algorithms(False)

    compare("scatter_add 2^26 into 2^20 rows vs index_put_(accumulate) deterministic",
            lambda: dt.scatter_add(zeros, 0, index, values), index_put_deterministic, rounds, "cuda", ">= 1.0")
    compare("scatter_add 2^26 into 2^20 rows vs index_add_ (atomics)", lambda: dt.scatter_add(zeros, 0, index, values),
            lambda: zeros.clone().index_add_(0, index, values), rounds, "cuda", ">= 0.33")
    m = torch.randn(4096, 4096, device="cuda", generator=g)
    for dtype in (torch.float32, torch.bfloat16):
        x = m.to(dtype)
        compare(f"sum(dim=-1), (4096, 4096) {str(dtype)[6:]}", lambda: dt.sum(x, -1), lambda: torch.sum(x, -1), rounds,
                "cuda", ">= 0.90")
    x = torch.randn(4096, 8192, device="cuda", generator=g).bfloat16()
    w = torch.randn(8192, device="cuda", generator=g).bfloat16()
    compare("rms_norm, (4096, 8192) bfloat16 vs eager expression", lambda: dt.rms_norm(x, w),
            lambda: (x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6)).bfloat16() * w, rounds,
            "cuda", ">= 0.80")
    if hasattr(torch.nn.functional, "rms_norm"):
        compare("rms_norm, (4096, 8192) bfloat16 vs F.rms_norm", lambda: dt.rms_norm(x, w),
                lambda: torch.nn.functional.rms_norm(x, (8192,), w, 1e-6), rounds, "cuda", ">= 0.80")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--threads", type=int, default=0, help="torch.set_num_threads (0: PyTorch's default)")
    parser.add_argument("--json", help="also write the results as JSON to this file (docs/benchmarks.md)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    RECORD.set("device", torch.cuda.get_device_name() if args.device == "cuda" else "cpu")
    RECORD.set("pytorch", torch.__version__)
    RECORD.set("torch_threads", torch.get_num_threads())
    RECORD.set("rounds", args.rounds)
    print(f"PyTorch {torch.__version__}, {torch.get_num_threads()} CPU threads, median of {args.rounds} rounds")
    print("| row | detred.torch | PyTorch | ratio (PyTorch / detred) | target |")
    print("|-----|-------------:|--------:|------:|--------|")
    cpu_rows(args.rounds) if args.device == "cpu" else cuda_rows(args.rounds)
    if args.json:
        RECORD.write(args.json)


if __name__ == "__main__":
    main()
