# SPDX-License-Identifier: BSD-3-Clause
"""detred.torch: PyTorch operators with detred's guarantee (docs/torch.md).

Each operator's result bits depend only on the values of the elements it reduces and their order: not on the rest
of the batch (a row's sum, norm or statistics are the same in a batch of 1 or 4096, at any position, with any
padding), on the thread count, or on whether the CPU or a GPU computed them. The backward passes are deterministic
too (broadcasts, gathers and detred's reductions; no atomics).

    >>> import torch, detred.torch as dt
    >>> dt.sum(x, dim=-1), dt.mean(x, dim=(0, 1), keepdim=True)
    >>> dt.index_add(target, 0, index, source), dt.scatter_add(target, 0, index, src)
    >>> dt.segment_sum(values, lengths=lengths), dt.rms_norm(x, weight), dt.layer_norm(x, weight, bias)
    >>> dt.index_select(embedding, 0, ids), dt.gather(x, 1, index)   # backward: detred's scatter-add
    >>> with dt.enabled():               # torch.sum, torch.mean, Tensor.index_add_, ... go to detred where it can
    ...     loss = model(x).sum()
    >>> dt.all_reduce(grad, group)       # torch.distributed: the ranks' sum in rank order (docs/collectives.md)
    >>> ddp.register_comm_hook(None, dt.allreduce_hook)

The operators are registered with torch.library as torch.ops.detred.* (forward and backward kernels for CPU and
CUDA tensors; with fake kernels for torch.compile where PyTorch has torch.library.register_fake); the functions here
add autograd. float64, float32, float16 and bfloat16 tensors; the 16-bit ones are computed in float32 and each
result is rounded to the dtype once.
"""

try:
    import torch as _torch  # noqa: F401
except ImportError as e:  # pragma: no cover - only without PyTorch
    raise ImportError("detred.torch needs PyTorch (Debian: apt-get install python3-torch)") from e

from . import _library  # noqa: F401  registers torch.ops.detred.*
if _torch.distributed.is_available():  # a PyTorch built without torch.distributed has only the operators
    from .distributed import all_reduce, allreduce_hook
from ._functions import (cumsum, gather, index_add, index_select, layer_norm, mean, rms_norm, scatter_add, segment_sum,
                         sum)
from ._kernels import cumsum_available
from ._mode import covered, disable, enable, enabled, is_enabled

__all__ = ["all_reduce", "allreduce_hook", "covered", "cumsum", "cumsum_available", "disable", "enable", "enabled",
           "gather", "index_add", "index_select", "is_enabled", "layer_norm", "mean", "rms_norm", "scatter_add",
           "segment_sum", "sum"]
