# SPDX-License-Identifier: BSD-3-Clause
"""detred.cumsum and detred.exclusive_cumsum of GPU arrays (CuPy arrays, PyTorch CUDA tensors).

The extension's scans take host arrays and return NumPy arrays; a GPU array's result must be an array of its own
library on its own device, so this layer allocates it there (``empty``), lays the lines out (the axis last and
contiguous, or the whole array flattened in C order, as numpy.cumsum) and calls the extension's private
``_cumsum_device``, which runs detred::cuda::cumsum: every output has the bits of the CPU's scan.
"""

from . import _detred

# Input dtype name -> output dtype name (detred/scan.hpp): 16-bit floats give float32, integers int64 or uint64.
_RESULT = {"float64": "float64", "float32": "float32", "float16": "float32", "bfloat16": "float32",
           "int32": "int64", "int64": "int64", "uint32": "uint64", "uint64": "uint64"}


def is_gpu_array(a):
    """True for an array in CUDA memory: __cuda_array_interface__ (CuPy, Numba) or a CUDA __dlpack_device__."""
    if hasattr(a, "__cuda_array_interface__"):
        return True
    device = getattr(a, "__dlpack_device__", None)
    if device is None:
        return False
    try:
        return device()[0] in (2, 3, 13)  # kDLCUDA, kDLCUDAHost, kDLCUDAManaged
    except Exception:  # noqa: BLE001 - an object whose __dlpack_device__ fails is not a GPU array to us
        return False


def _library(a, name):
    root = type(a).__module__.split(".")[0]
    if root == "torch":
        import torch
        return torch
    if root == "cupy":
        import cupy
        return cupy
    raise TypeError(f"detred.{name}: GPU arrays of {type(a).__module__}.{type(a).__name__} are not taken; pass a CuPy "
                    "array or a PyTorch CUDA tensor (or copy it to the host)")


def scan(a, axis, mode, out, exclusive):
    name = "exclusive_cumsum" if exclusive else "cumsum"
    xp = _library(a, name)
    dtype = str(a.dtype).replace("torch.", "")
    if dtype not in _RESULT:
        raise TypeError(f"detred.{name} takes {', '.join(_RESULT)} arrays; got {dtype}")
    torch = xp.__name__ == "torch"
    if axis is not None and not isinstance(axis, int):
        raise TypeError(f"detred.{name}: axis must be an int or None (one axis), not {type(axis).__name__}")
    ndim = a.dim() if torch else a.ndim
    if axis is not None and not -ndim <= axis < max(ndim, 1):
        raise ValueError(f"detred.{name}: axis {axis} is out of range for an array of {ndim} dimensions")
    result_dtype = getattr(xp, _RESULT[dtype])
    if axis is None or ndim <= 1:
        lines = (a.contiguous() if torch else xp.ascontiguousarray(a)).reshape(-1)
        shape = tuple(lines.shape)
    else:
        moved = xp.movedim(a, axis, -1) if torch else xp.moveaxis(a, axis, -1)
        moved = moved.contiguous() if torch else xp.ascontiguousarray(moved)
        shape = tuple(moved.shape)
        lines = moved.reshape(-1)
    n = lines.shape[0]
    length = shape[-1] if shape else 1
    device = a.device
    if torch:
        y = xp.empty(n, dtype=result_dtype, device=device)
    else:
        with device:
            y = xp.empty(n, dtype=result_dtype)
    offsets = None
    if axis is not None and ndim > 1 and length != n:
        offsets = (xp.arange(0, n + 1, max(length, 1), dtype=xp.int64, device=device) if torch else
                   xp.arange(0, n + 1, max(length, 1), dtype=xp.int64))
        if length == 0:
            offsets = None
    if n > 0:
        _detred._cumsum_device(lines, y, offsets, mode, exclusive)
    if torch:
        # The extension ran on the legacy default stream after torch's current one (__dlpack__ orders that); the
        # current stream, when another, waits for it in turn before anything reads y.
        current, default = xp.cuda.current_stream(device), xp.cuda.default_stream(device)
        if current != default:
            current.wait_stream(default)
    y = y.reshape(shape)
    if axis is not None and ndim > 1:
        y = xp.movedim(y, -1, axis) if torch else xp.moveaxis(y, -1, axis)
    if out is not None:
        if tuple(out.shape) != tuple(y.shape):
            raise ValueError(f"detred.{name}: out has shape {tuple(out.shape)}, the result {tuple(y.shape)}")
        if str(out.dtype).replace("torch.", "") != _RESULT[dtype]:
            raise TypeError(f"detred.{name}: out must be {_RESULT[dtype]} for {dtype} input; got {out.dtype}")
        out[...] = y
        return out
    return y
