# SPDX-License-Identifier: BSD-3-Clause
"""detred.torch.distributed over gloo on CPU tensors, with 2, 3 and 4 processes (torch_distributed_worker.py runs
the checks on each rank): the bits of detred.sum of the ranks' vectors in rank order, for every dtype, length and
chunking; the all_gather fallback; errors on every rank for mismatched arguments; DDP with the hook giving the same
parameters under every bucket size. Skipped where PyTorch or its gloo backend is missing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed (Debian: python3-torch)")
if not torch.distributed.is_available() or not torch.distributed.is_gloo_available():
    pytest.skip("this PyTorch has no gloo backend", allow_module_level=True)

WORKER = Path(__file__).with_name("torch_distributed_worker.py")


@pytest.mark.parametrize("ranks", [2, 3, 4])
def test_ranks(ranks: int, tmp_path: Path) -> None:
    init = tmp_path / "rendezvous"
    env = dict(os.environ, OMP_NUM_THREADS="1")
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
