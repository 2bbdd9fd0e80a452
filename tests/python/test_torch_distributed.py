# SPDX-License-Identifier: BSD-3-Clause
"""detred.torch.distributed over gloo on CPU tensors, with 1, 2, 3 and 4 processes (torch_distributed_worker.py runs
the checks on each rank): the bits of detred.sum of the ranks' vectors in rank order, for every dtype, length and
chunking; the all_gather fallback; errors on every rank for mismatched arguments; DDP with the hook giving the same
parameters under every bucket size. Then, where detred_mpi is built (DETRED_MPI_ALLREDUCE names
mpi_allreduce.cpp's program, DETRED_MPIEXEC the launcher), detred::mpi::allreduce_sum of the same vectors under
mpiexec with as many ranks: the same bits through MPI. Skipped where PyTorch or its gloo backend is missing."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed (Debian: python3-torch)")
if not torch.distributed.is_available() or not torch.distributed.is_gloo_available():
    pytest.skip("this PyTorch has no gloo backend", allow_module_level=True)

WORKER = Path(__file__).with_name("torch_distributed_worker.py")


@pytest.mark.parametrize("ranks", [1, 2, 3, 4])
def test_ranks(ranks: int, tmp_path: Path) -> None:
    init = tmp_path / "rendezvous"
    env = dict(os.environ, OMP_NUM_THREADS="1", DETRED_TORCH_RESULTS=str(tmp_path))
    workers = [
        subprocess.Popen([sys.executable, str(WORKER), str(rank), str(ranks), str(init)], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for rank in range(ranks)
    ]
    outputs = []
    try:
        for worker in workers:
            outputs.append(worker.communicate(timeout=600)[0])
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
    failed = [(rank, w.returncode, out) for rank, (w, out) in enumerate(zip(workers, outputs)) if w.returncode != 0]
    assert not failed, "\n".join(f"rank {rank} exited {code}:\n{out}" for rank, code, out in failed)

    compare_with_mpi(ranks, tmp_path)


def compare_with_mpi(ranks: int, folder: Path) -> None:
    """detred::mpi::allreduce_sum of the vectors the workers summed: the bits rank 0 wrote, for every case."""
    program, launcher = os.environ.get("DETRED_MPI_ALLREDUCE"), os.environ.get("DETRED_MPIEXEC")
    if not program or not launcher:
        return  # no detred_mpi in this build: the torch path was compared with detred.sum only
    import numpy as np
    import torch_distributed_worker as worker

    n = worker.MPI_LENGTH
    arguments = []
    for dtype, mode in worker.MPI_CASES:
        rows = np.stack([worker.vector(n, q, dtype).numpy() for q in range(ranks)])
        name = worker.result_name(dtype, mode)
        rows.tofile(folder / f"in-{name}")
        arguments += [str(dtype).replace("torch.", ""), mode, str(folder / f"in-{name}"), str(folder / f"mpi-{name}")]
    run = subprocess.run([*shlex.split(launcher), str(ranks), program, str(n), *arguments], capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, f"mpiexec exited {run.returncode}:\n{run.stdout}{run.stderr}"
    for dtype, mode in worker.MPI_CASES:
        name = worker.result_name(dtype, mode)
        torch_bits = (folder / name).read_bytes()
        assert len(torch_bits) == n * torch.tensor([], dtype=dtype).element_size()
        assert (folder / f"mpi-{name}").read_bytes() == torch_bits, f"{dtype} {mode}: MPI and torch.distributed differ"


GPU_RANKS = [1, 2, 3, 5, 8, 9, 16, 31, 32, 33, 64]


def _block_with_specials(ranks: int, count: int, dtype: torch.dtype, seed: int) -> torch.Tensor:
    """A ranks x count block of values of many magnitudes, about one element in 13 a special value of the dtype
    (signed zeros, a subnormal, infinities, NaN, the largest finite values, whose sums overflow)."""
    g = torch.Generator().manual_seed(seed)
    exponents = torch.randint(-12, 12, (ranks, count), generator=g).double()
    block = ((torch.rand(ranks, count, generator=g, dtype=torch.float64) * 2 - 1) * torch.exp2(exponents)).to(dtype)
    info = torch.finfo(dtype)
    specials = torch.tensor([0.0, -0.0, info.smallest_normal / 4, float("inf"), float("-inf"), float("nan"), info.max,
                             -info.max], dtype=torch.float64).to(dtype)
    where = torch.rand(ranks, count, generator=g) < 1 / 13
    picks = torch.randint(0, len(specials), (ranks, count), generator=g)
    block[where] = specials[picks[where]]
    return block


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device for PyTorch")
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("mode", ["tree", "compensated", "exact"])
def test_gpu_column_sums_have_the_host_bits(dtype: torch.dtype, mode: str) -> None:
    """The column sums of CUDA tensors (detred::cuda::sum_columns) against the host's detred.sum(block, axis=0), bit
    for bit, for rank counts around the GPU's short-line limits; a 16-bit NaN result: 0x7e00 / 0x7fc0 on the GPU
    (detred::to_float16 / to_bfloat16), only NaN on the host (PyTorch's conversion, whose vector form gives other
    bits: docs/torch.md)."""
    import detred
    import detred.torch.distributed as dd

    if not detred.cuda_available():
        pytest.skip("this detred has no usable CUDA backend")
    for ranks in GPU_RANKS:
        for count in [1, 7, 4099]:
            block = _block_with_specials(ranks, count, dtype, seed=ranks * 10007 + count)
            host = dd._column_sums(block, mode)
            gpu = dd._column_sums(block.cuda(), mode).cpu()
            what = f"{ranks} ranks, {count} columns, {dtype}, {mode}"
            assert gpu.dtype == host.dtype and gpu.shape == host.shape, what
            nan = torch.isnan(host)
            assert torch.equal(torch.isnan(gpu), nan), what
            bits = torch.int64 if dtype == torch.float64 else torch.int32 if dtype == torch.float32 else torch.int16
            if dtype in (torch.float16, torch.bfloat16):
                assert torch.equal(gpu.view(bits)[~nan], host.view(bits)[~nan]), what
                canonical = 0x7E00 if dtype == torch.float16 else 0x7FC0
                assert bool((gpu.view(bits)[nan] == canonical).all()), what
            else:
                assert torch.equal(gpu.view(bits), host.view(bits)), what
