# SPDX-License-Identifier: BSD-3-Clause
"""detred: deterministic reductions.

The result bits of every function depend only on the number of elements and their values: not on the thread count,
the SIMD instruction set, the machine, or whether the CPU or a GPU computed them.

    >>> import numpy as np, detred
    >>> detred.sum(np.arange(10.0))
    45.0
    >>> detred.sum(x, mode="compensated", axis=0)   # per column, each as a contiguous array
    >>> detred.dot(x, y), detred.nrm2(x), detred.argmin(x), detred.stats(x).stddev

Functions: sum, dot, asum, nrm2, min, max, argmin, argmax, stats (a Statistics record), reference_sum; the scans
cumsum and exclusive_cumsum (arrays of prefix sums, as numpy.cumsum). See ``help(detred.sum)`` and docs/bindings.md.

Versions (docs/compatibility.md): ``__version__`` is the library's (PEP 440, as pip shows it); the bits of results
follow ``order_version`` and the bytes of partial states ``state_format_version``. ``python -m detred`` prints all
three, as ``detred --version`` does.
"""

from ._detred import (__version__, argmax, argmin, asum, cuda_available, cuda_built, cumsum, dot, exclusive_cumsum,
                      max, min, nrm2, order_version, reference_sum, state_format_version, stats, sum)
from ._results import Statistics

__all__ = ["Statistics", "__version__", "argmax", "argmin", "asum", "cuda_available", "cuda_built", "cumsum", "dot",
           "exclusive_cumsum", "max", "min", "nrm2", "order_version", "reference_sum", "state_format_version", "stats",
           "sum"]
