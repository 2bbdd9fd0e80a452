# SPDX-License-Identifier: BSD-3-Clause
"""One rank of test_torch_distributed.py: python3 torch_distributed_worker.py RANK RANKS INIT_FILE [BACKEND].

Runs every check of detred.torch.distributed over a gloo group on CPU tensors (or, with BACKEND nccl, an NCCL
group on CUDA tensors, a GPU per rank: tools/nccl_bench/run_on_gpu.sh) and exits 0, or prints the first failure
and exits 1. Every rank makes the same calls in the same order (they are collective).
"""

from __future__ import annotations

import os
import sys

import numpy as np
import torch
import torch.distributed as dist

import detred
import detred.torch.distributed as dd

# The tensors' device: the CPU for gloo, this rank's GPU for nccl (set by main).
DEVICE = torch.device("cpu")
BITS = {torch.float64: torch.int64, torch.float32: torch.int32, torch.float16: torch.int16, torch.bfloat16: torch.int16}


def vector(n: int, rank: int, dtype: torch.dtype, salt: int = 0) -> torch.Tensor:
    """Rank `rank`'s vector: values over many magnitudes and both signs, so that the order of a sum shows."""
    g = torch.Generator().manual_seed(1000003 * n + 7919 * rank + 31 * salt + 17)
    scale = torch.pow(10.0, torch.randint(-6, 7, (n,), generator=g).to(torch.float64))
    return (torch.randn(n, generator=g, dtype=torch.float64) * scale).to(dtype).to(DEVICE)


def expected(vectors: list[torch.Tensor], mode: str) -> torch.Tensor:
    """detred.sum of each element's R values in rank order, as the tensors' dtype (16-bit: the float32 sum rounded
    once)."""
    stacked = torch.stack(vectors).cpu()
    if stacked.dtype in (torch.float16, torch.bfloat16):
        sums = detred.sum(stacked, axis=0, mode=mode)
    else:
        sums = detred.sum(stacked.numpy(), axis=0, mode=mode)
    return torch.from_numpy(np.ascontiguousarray(sums)).to(stacked.dtype).reshape(-1).to(DEVICE)


def same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(a.view(BITS[a.dtype]), b.view(BITS[b.dtype]))


def check(condition: bool, what: str) -> None:
    if not condition:
        raise AssertionError(what)


# The cases whose results rank 0 also writes to the folder $DETRED_TORCH_RESULTS (as RESULT_NAME's files), for the
# comparison with detred::mpi::allreduce_sum on the same vectors (test_torch_distributed.py).
MPI_LENGTH = 4099
MPI_CASES = [(torch.float64, "tree"), (torch.float64, "compensated"), (torch.float32, "tree"),
             (torch.float32, "compensated")]


def result_name(dtype: torch.dtype, mode: str) -> str:
    return f"{str(dtype).replace('torch.', '')}-{mode}.bin"


def check_sums(rank: int, ranks: int) -> None:
    lengths = [0, 1, ranks - 1, ranks, 5 * ranks + 1, 1000, MPI_LENGTH]
    results = os.environ.get("DETRED_TORCH_RESULTS")
    for dtype in BITS:
        for mode in ("tree", "compensated"):
            for n in lengths:
                x = vector(n, rank, dtype)
                got = dd.all_reduce(x.clone(), mode=mode)
                want = expected([vector(n, q, dtype) for q in range(ranks)], mode)
                check(same_bits(got, want), f"{dtype} {mode} n={n}: not the bits of detred.sum in rank order")
                if results and rank == 0 and n == MPI_LENGTH and (dtype, mode) in MPI_CASES:
                    got.cpu().numpy().tofile(os.path.join(results, result_name(dtype, mode)))
    # A 2-D tensor is summed as its flat elements; exact mode where detred.sum has it.
    x = vector(24, rank, torch.float64).reshape(4, 6)
    got = dd.all_reduce(x.clone(), mode="exact")
    want = expected([vector(24, q, torch.float64) for q in range(ranks)], "exact").reshape(4, 6)
    check(same_bits(got, want), "exact mode, 2-D tensor")


def check_chunking(rank: int, ranks: int) -> None:
    """Any split into buckets gives the same bits: the arithmetic is per element."""
    n = 3001
    for dtype in (torch.float32, torch.bfloat16):
        x = vector(n, rank, dtype, salt=1)
        whole = dd.all_reduce(x.clone())
        for seed in (1, 2, 3):
            cuts = sorted(np.random.default_rng(seed).choice(np.arange(1, n), size=7, replace=False).tolist())
            pieces = [dd.all_reduce(p.clone()) for p in torch.tensor_split(x, cuts)]
            check(same_bits(torch.cat(pieces), whole), f"{dtype}: chunks cut at {cuts} changed the bits")


def check_all_gather_fallback(rank: int, ranks: int) -> None:
    """A backend without all-to-all: the all_gather path gives the same bits."""
    x = vector(777, rank, torch.float32, salt=2)
    direct = dd.all_reduce(x.clone())
    real = dist.all_to_all_single

    def missing(*args: object, **kwargs: object) -> None:
        raise RuntimeError("ProcessGroup does not support alltoall: not supported")

    dist.all_to_all_single = missing
    try:
        fallback = dd.all_reduce(x.clone())
    finally:
        dist.all_to_all_single = real
    check(same_bits(fallback, direct), "the all_gather fallback changed the bits")


def expect_error(call, text: str, what: str) -> None:
    try:
        call()
    except ValueError as error:
        check(text in str(error), f"{what}: the error {str(error)!r} does not say {text!r}")
        return
    raise AssertionError(f"{what}: no ValueError")


def check_errors(rank: int, ranks: int) -> None:
    """A mismatch or an invalid argument on one rank is a ValueError on every rank (and no hang). One rank (one GPU)
    has nothing to mismatch with: only its own invalid arguments."""
    if ranks > 1:
        n = 10 + (1 if rank == ranks - 1 else 0)
        expect_error(lambda: dd.all_reduce(torch.zeros(n, device=DEVICE)), "elements", "lengths differ")
        dtype = torch.float64 if rank == 0 else torch.float32
        expect_error(lambda: dd.all_reduce(torch.zeros(10, dtype=dtype, device=DEVICE)), "float", "dtypes differ")
    bad = torch.zeros(10, dtype=torch.int32, device=DEVICE) if rank == 0 else torch.zeros(10, device=DEVICE)
    text = "is not summed" if rank == 0 else "arguments of rank 0 are invalid"
    expect_error(lambda: dd.all_reduce(bad), text, "an unsupported dtype on rank 0")
    mode = "fast" if rank == ranks - 1 else "tree"
    text = "mode must be" if rank == ranks - 1 else f"arguments of rank {ranks - 1} are invalid"
    zeros = torch.zeros(10, device=DEVICE)
    expect_error(lambda: dd.all_reduce(zeros, mode=mode), text, "an invalid mode on the last rank")
    # The group still works afterwards.
    after = dd.all_reduce(torch.ones(5, device=DEVICE))
    check(same_bits(after, torch.full((5,), float(ranks), device=DEVICE)), "the group after the errors")


def train(rank: int, ranks: int, bucket_cap_mb: float | None) -> list[torch.Tensor]:
    """Three SGD steps of a small model; DDP with the hook and this bucket size, or (None) each rank's own gradients
    summed by detred.sum of the gathered gradients in rank order, divided by R: what the hook must give."""
    torch.manual_seed(5)
    model = torch.nn.Sequential(torch.nn.Linear(37, 53), torch.nn.Tanh(), torch.nn.Linear(53, 11)).to(DEVICE)
    data = torch.Generator().manual_seed(100 + rank)
    if bucket_cap_mb is not None:
        ids = [DEVICE.index] if DEVICE.type == "cuda" else None
        net = torch.nn.parallel.DistributedDataParallel(model, device_ids=ids, bucket_cap_mb=bucket_cap_mb)
        net.register_comm_hook(None, dd.allreduce_hook)
    else:
        net = model
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    for _ in range(3):
        optimizer.zero_grad()
        x = (torch.randn(16, 37, generator=data) * 3).to(DEVICE)
        loss = (net(x) ** 2).mean()
        loss.backward()
        if bucket_cap_mb is None:
            for p in model.parameters():
                every = [torch.empty_like(p.grad) for _ in range(ranks)]
                dist.all_gather(every, p.grad)
                # The quotient as NumPy's float32 division gives it on the host: the correctly rounded one.
                sums = expected(every, "tree").cpu().numpy()
                p.grad.copy_(torch.from_numpy(sums / np.float32(ranks)).reshape(p.grad.shape).to(DEVICE))
        optimizer.step()
    return [p.detach().clone() for p in model.parameters()]


def check_ddp(rank: int, ranks: int) -> None:
    want = train(rank, ranks, None)
    # 0.0001 MiB puts every parameter in a bucket of its own; 25 MiB all of them in one.
    for cap in (0.0001, 0.004, 25.0):
        got = train(rank, ranks, cap)
        check(all(same_bits(a, b) for a, b in zip(got, want)), f"DDP with bucket_cap_mb={cap}: other parameters")


def main() -> int:
    global DEVICE
    rank, ranks, init = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    backend = sys.argv[4] if len(sys.argv) > 4 else "gloo"
    if backend == "nccl":
        DEVICE = torch.device("cuda", rank)
        torch.cuda.set_device(DEVICE)
    dist.init_process_group(backend, init_method="file://" + init, rank=rank, world_size=ranks)
    try:
        check_sums(rank, ranks)
        check_chunking(rank, ranks)
        check_all_gather_fallback(rank, ranks)
        check_errors(rank, ranks)
        check_ddp(rank, ranks)
    except AssertionError as failure:
        print(f"rank {rank} of {ranks}: {failure}", file=sys.stderr)
        return 1
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
