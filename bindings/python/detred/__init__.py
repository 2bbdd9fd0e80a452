"""detred: deterministic reductions.

The result bits of ``detred.sum`` depend only on the number of elements and their values: not on the thread count,
the SIMD instruction set, the machine, or whether the CPU or a GPU computed them.

    >>> import numpy as np, detred
    >>> detred.sum(np.arange(10.0))
    45.0
    >>> detred.sum(x, mode="compensated", axis=0)   # per column, each as a contiguous array

See ``help(detred.sum)`` and docs/bindings.md.
"""

from ._detred import __version__, cuda_available, cuda_built, order_version, reference_sum, sum

__all__ = ["__version__", "cuda_available", "cuda_built", "order_version", "reference_sum", "sum"]
