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

from . import _detred, _gpu_scans
from ._detred import (__version__, argmax, argmin, asum, cuda_available, cuda_built, dot, max, min, nrm2,
                      order_version, reference_sum, state_format_version, stats, sum)
from ._results import Statistics


def cumsum(a, axis=None, mode="tree", out=None, threads=0):
    if _gpu_scans.is_gpu_array(a):
        return _gpu_scans.scan(a, axis, mode, out, exclusive=False)
    return _detred.cumsum(a, axis=axis, mode=mode, out=out, threads=threads)


def exclusive_cumsum(a, axis=None, mode="tree", out=None, threads=0):
    if _gpu_scans.is_gpu_array(a):
        return _gpu_scans.scan(a, axis, mode, out, exclusive=True)
    return _detred.exclusive_cumsum(a, axis=axis, mode=mode, out=out, threads=threads)


# The extension's docstrings; GPU arrays (CuPy, PyTorch CUDA tensors) take the GPU scan, whose result is an array of
# the input's library on its device (detred/_gpu_scans.py).
cumsum.__doc__ = _detred.cumsum.__doc__
exclusive_cumsum.__doc__ = _detred.exclusive_cumsum.__doc__

__all__ = ["Statistics", "__version__", "argmax", "argmin", "asum", "cuda_available", "cuda_built", "cumsum", "dot",
           "exclusive_cumsum", "max", "min", "nrm2", "order_version", "reference_sum", "state_format_version", "stats",
           "sum"]

# Every other operation of the library's catalogue: the extension defines it from the catalogue
# (src/ops/catalogue_ops.cpp), so an operation added there needs no change here.
for _name in _detred.catalogue_operations:
    if _name not in globals():
        globals()[_name] = getattr(_detred, _name)
        __all__.append(_name)
