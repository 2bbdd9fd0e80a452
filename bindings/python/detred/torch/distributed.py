# SPDX-License-Identifier: BSD-3-Clause
"""Deterministic all-reduce for torch.distributed, and a DistributedDataParallel communication hook using it.

Element i of the result is detred.sum of the R values {rank 0's x[i], ..., rank R-1's x[i]} in rank order: the
bits of detred::mpi::allreduce_sum and detred::nccl::allreduce_sum for the same vectors. The process group's
backend only moves data (an all-to-all of shards, then an all-gather); the arithmetic is detred's column sums of
an R x shard matrix. So the backend's algorithm, the message size and DDP's bucketing never show in the bits.

    import detred.torch.distributed as dd
    dd.all_reduce(tensor)                           # in place, like dist.all_reduce(tensor) with ReduceOp.SUM
    model.register_comm_hook(None, dd.allreduce_hook)   # DDP: gradients summed by dd.all_reduce, then / R

The column sums run on the tensor's device. On a GPU the R x shard block's columns are summed by
detred::cuda::sum_columns, whose column j is detred.sum of the ranks' values of element j, the bits of the host's
column sums and of detred::nccl (a NaN result of a 16-bit sum: the type's canonical NaN, 0x7fc0
bfloat16 or 0x7e00 float16, detred::to_bfloat16's; docs/torch.md, NaN results). docs/collectives.md has the
algorithm and the cost.
"""

from typing import Any

import numpy as np
import torch
import torch.distributed as dist

import detred

from ._kernels import _cuda_column_sums_into, divide

__all__ = ["all_reduce", "allreduce_hook"]

# The floating dtypes and their codes in the ranks' descriptor. 16-bit floats are widened exactly and summed in
# float32 (as detred.sum of float16/bfloat16), then rounded once to the tensor's dtype (to nearest, ties to even).
_DTYPES = {torch.float64: 1, torch.float32: 2, torch.float16: 3, torch.bfloat16: 4}
_MODES = {"tree": 1, "compensated": 2, "exact": 3}


def _bytes(t: torch.Tensor) -> torch.Tensor:
    """t's elements as rows of bytes (k x itemsize uint8): the backend moves bytes, does no arithmetic, and every
    backend moves uint8 (gloo has neither bfloat16 nor int16)."""
    return t.reshape(-1).view(torch.uint8).view(-1, t.element_size())


def _elements(rows: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """The inverse of _bytes."""
    return rows.contiguous().view(dtype).reshape(-1)


def _descriptor_mismatch(mine: list[int], every: list[list[int]]) -> str | None:
    """What differs between this rank's descriptor (numel, dtype code, mode code) and the others', if anything."""
    names = {code: str(dtype).replace("torch.", "") for dtype, code in _DTYPES.items()}
    names[0] = "an unsupported dtype"
    modes = {code: name for name, code in _MODES.items()}
    modes[0] = "an invalid mode"
    for rank, theirs in enumerate(every):
        if theirs == mine:
            continue
        if theirs[1] != mine[1]:
            return f"rank {rank} passed a {names.get(theirs[1])} tensor, this rank {names.get(mine[1])}"
        if theirs[2] != mine[2]:
            return f"rank {rank} asked for mode {modes.get(theirs[2])}, this rank {modes.get(mine[2])}"
        return f"rank {rank} passed {theirs[0]} elements, this rank {mine[0]}"
    return None


def _column_sums(block: torch.Tensor, mode: str) -> torch.Tensor:
    """detred.sum(block, axis=0) as a tensor of block's dtype, on block's device."""
    if block.device.type == "cuda" and detred.cuda_available():
        # detred's column sums on the GPU, where the block is: no host round trip (which took the block to the host
        # and its sums back) and no transpose (a copy of the block). 16-bit sums are rounded once, in the summing
        # kernel.
        ranks, count = block.shape
        out = torch.empty(count, dtype=block.dtype, device=block.device)
        return _cuda_column_sums_into(block.contiguous(), ranks, count, out, mode)
    host = block if block.device.type == "cpu" else block.cpu()
    if host.dtype in (torch.float16, torch.bfloat16):
        # detred takes 16-bit tensors through DLPack (NumPy has no bfloat16) and returns float32 sums.
        sums = detred.sum(host, axis=0, mode=mode)
    else:
        sums = detred.sum(host.numpy(), axis=0, mode=mode)
    return torch.from_numpy(np.ascontiguousarray(sums)).to(dtype=block.dtype, device=block.device)


def _exchange(flat: torch.Tensor, shard: int, ranks: int, group: Any) -> torch.Tensor:
    """Rank q's shard `me` for q in rank order (the rows of the R x shard block, as bytes: flat is _bytes of the
    vector), by an all-to-all; by all_gather where the backend has none."""
    mine = flat[: ranks * shard]
    block = torch.empty_like(mine)
    try:
        dist.all_to_all_single(block, mine, group=group)
    except RuntimeError as failure:
        if "not supported" not in str(failure).lower() and "unsupported" not in str(failure).lower():
            raise
        # A backend without all-to-all: every rank gathers every vector and keeps its own shard of each (R times
        # the traffic; the same bits).
        me = dist.get_rank(group)
        every = [torch.empty_like(mine) for _ in range(ranks)]
        dist.all_gather(every, mine.contiguous(), group=group)
        block = torch.cat([v[me * shard : (me + 1) * shard] for v in every])
    return block


def all_reduce(tensor: torch.Tensor, group: Any = None, mode: str = "tree") -> torch.Tensor:
    """Sums `tensor` element-wise over the ranks of `group` (default: the world), in place, on every rank; returns it.

    Every rank must pass a contiguous tensor of the same length and dtype (float64, float32, float16 or bfloat16),
    and the same mode ("tree", "compensated" or "exact", as detred.sum). A mismatch, or an invalid argument on any
    rank, raises ValueError on every rank before any data moves (an all_gather of a small descriptor), never a hang.
    """
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"detred.torch.distributed.all_reduce: expected a torch.Tensor, got {type(tensor).__name__}")
    ranks = dist.get_world_size(group)
    me = dist.get_rank(group)
    problem = None
    if tensor.dtype not in _DTYPES:
        problem = f"dtype {tensor.dtype} is not summed (float64, float32, float16 or bfloat16)"
    elif not tensor.is_contiguous():
        problem = "the tensor must be contiguous (the result is written in place)"
    elif mode not in _MODES:
        problem = f"mode must be tree, compensated or exact; got {mode!r}"
    mine = [tensor.numel(), _DTYPES.get(tensor.dtype, 0), _MODES.get(mode, 0), 0 if problem is None else 1]
    # The descriptor travels on the tensor's device: a NCCL group moves CUDA tensors only.
    gathered = [torch.zeros(4, dtype=torch.int64, device=tensor.device) for _ in range(ranks)]
    dist.all_gather(gathered, torch.tensor(mine, dtype=torch.int64, device=tensor.device), group=group)
    every = [[int(v) for v in t.cpu()] for t in gathered]
    name = "detred.torch.distributed.all_reduce"
    if problem is not None:
        raise ValueError(f"{name}: {problem} (this rank, {me})")
    failed = [rank for rank, d in enumerate(every) if d[3] != 0]
    if failed:
        raise ValueError(f"{name}: the arguments of rank {failed[0]} are invalid (that rank's error names them)")
    mismatch = _descriptor_mismatch(mine[:3], [d[:3] for d in every])
    if mismatch is not None:
        raise ValueError(f"{name}: {mismatch}; every rank must pass one length, dtype and mode")

    n = tensor.numel()
    if n == 0:
        return tensor
    flat = tensor.view(-1)
    carried = _bytes(flat)
    shard = n // ranks
    tail = n - ranks * shard
    # The last n - R*shard (< R) elements: every rank gathers every rank's and sums them itself.
    tail_sums = None
    if tail > 0:
        tails = [torch.empty_like(carried[:tail]) for _ in range(ranks)]
        dist.all_gather(tails, carried[ranks * shard :].contiguous(), group=group)
        tail_sums = _column_sums(_elements(torch.cat(tails), flat.dtype).view(ranks, tail), mode)
    if shard > 0:
        own = _column_sums(_elements(_exchange(carried, shard, ranks, group), flat.dtype).view(ranks, shard), mode)
        every_sums = list(carried[: ranks * shard].view(ranks, shard, -1).unbind(0))
        dist.all_gather(every_sums, _bytes(own), group=group)
    if tail_sums is not None:
        flat[ranks * shard :].copy_(tail_sums)
    return tensor


def allreduce_hook(process_group: Any, bucket: dist.GradBucket) -> torch.futures.Future[torch.Tensor]:
    """A DDP communication hook: the bucket's gradients summed by all_reduce, then divided by the rank count (each
    element's mean rounded once more, per element, so the bits do not depend on the bucket size). Register it with
    model.register_comm_hook(state, allreduce_hook), where state is the process group (None: the world)."""
    buffer = bucket.buffer()
    all_reduce(buffer, group=process_group)
    # detred.torch's division by a count (one correctly rounded quotient, the same bits on the CPU and CUDA), not
    # PyTorch's: on CUDA it multiplies by a Python number's reciprocal, and its float32 division differs from the CPU's.
    buffer.copy_(divide(buffer, dist.get_world_size(process_group)))
    future: torch.futures.Future[torch.Tensor] = torch.futures.Future()
    future.set_result(buffer)
    return future
