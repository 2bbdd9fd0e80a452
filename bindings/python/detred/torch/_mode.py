# SPDX-License-Identifier: BSD-3-Clause
"""detred.torch.enable(): PyTorch's reductions replaced by detred's where detred takes the call, PyTorch's own
otherwise. The list of what is replaced and when is COVERED below and in docs/torch.md ("enable()")."""

import contextlib
import functools

import torch

from . import _functions as f
from . import _kernels as k

# (owner, attribute): what each replaces. torch.cumsum and Tensor.cumsum only when detred.cumsum exists.
COVERED = (
    (torch, "sum"),
    (torch, "mean"),
    (torch.Tensor, "sum"),
    (torch.Tensor, "mean"),
    (torch.Tensor, "index_add_"),
    (torch.Tensor, "scatter_add_"),
)
COVERED_WITH_CUMSUM = ((torch, "cumsum"), (torch.Tensor, "cumsum"))

_saved = {}


def _takes(*tensors):
    """True when every tensor is a plain tensor (or Parameter) of a float dtype detred takes, on one CPU or CUDA
    device."""
    if not all(type(t) in (torch.Tensor, torch.nn.Parameter) for t in tensors):
        return False
    devices = {t.device for t in tensors}
    return (len(devices) == 1 and next(iter(devices)).type in ("cpu", "cuda")
            and all(t.dtype in k.FLOATS for t in tensors) and len({t.dtype for t in tensors}) == 1)


def _is_dims(dim):
    if dim is None or isinstance(dim, int):
        return True
    return isinstance(dim, (tuple, list)) and all(isinstance(d, int) for d in dim)


def _reduction(original, function):
    """sum/mean(input, dim=None, keepdim=False, *, dtype=None): detred's when dim is None, an int or ints, dtype is
    None or the input's, and there is no out=."""

    @functools.wraps(original)
    def replaced(input, *args, **kwargs):
        if len(args) <= 2 and set(kwargs) <= {"dim", "keepdim", "dtype"} and _takes(input):
            named = dict(zip(("dim", "keepdim"), args))
            if not set(named) & set(kwargs):
                named.update(kwargs)
                dim, keepdim, dtype = named.get("dim"), named.get("keepdim", False), named.get("dtype")
                if _is_dims(dim) and isinstance(keepdim, bool) and dtype in (None, input.dtype):
                    return function(input, dim, keepdim)
        return original(input, *args, **kwargs)

    return replaced


def _index_add_(original):
    """Tensor.index_add_(dim, index, source, *, alpha=1): detred's when self and source are of one dtype and device
    detred takes and index is an int64 or int32 vector there."""

    @functools.wraps(original)
    def replaced(self, dim, index, source, *args, **kwargs):
        if (not args and set(kwargs) <= {"alpha"} and isinstance(dim, int) and isinstance(index, torch.Tensor)
                and isinstance(source, torch.Tensor) and _takes(self, source) and index.device == self.device
                and index.dtype in (torch.int64, torch.int32) and index.dim() <= 1):
            alpha = kwargs.get("alpha", 1)
            if isinstance(alpha, (int, float)):
                return self.copy_(f.index_add(self, dim, index, source, alpha))
        return original(self, dim, index, source, *args, **kwargs)

    return replaced


def _scatter_add_(original):
    """Tensor.scatter_add_(dim, index, src): detred's when self and src are of one dtype and device detred takes and
    index is int64 there."""

    @functools.wraps(original)
    def replaced(self, dim, index, src, *args, **kwargs):
        if (not args and not kwargs and isinstance(dim, int) and isinstance(index, torch.Tensor)
                and isinstance(src, torch.Tensor) and _takes(self, src) and index.device == self.device
                and index.dtype == torch.int64):
            return self.copy_(f.scatter_add(self, dim, index, src))
        return original(self, dim, index, src, *args, **kwargs)

    return replaced


def _cumsum(original):
    """cumsum(input, dim, *, dtype=None): detred's when dtype is None or the input's and there is no out=."""

    @functools.wraps(original)
    def replaced(input, *args, **kwargs):
        if len(args) <= 1 and set(kwargs) <= {"dim", "dtype"} and _takes(input):
            named = dict(zip(("dim",), args))
            if not set(named) & set(kwargs):
                named.update(kwargs)
                dim, dtype = named.get("dim"), named.get("dtype")
                if isinstance(dim, int) and dtype in (None, input.dtype):
                    return f.cumsum(input, dim)
        return original(input, *args, **kwargs)

    return replaced


def _replacement(owner, name, original):
    if name in ("sum", "mean"):
        return _reduction(original, f.sum if name == "sum" else f.mean)
    if name == "index_add_":
        return _index_add_(original)
    if name == "scatter_add_":
        return _scatter_add_(original)
    return _cumsum(original)


def covered():
    """The (owner, name) pairs enable() replaces in this build: COVERED, and COVERED_WITH_CUMSUM with detred.cumsum."""
    return COVERED + (COVERED_WITH_CUMSUM if k.cumsum_available() else ())


def is_enabled():
    return bool(_saved)


def enable():
    """Replaces torch.sum, torch.mean, Tensor.sum, Tensor.mean, Tensor.index_add_, Tensor.scatter_add_ (and
    torch.cumsum, Tensor.cumsum when detred.cumsum exists) by detred's for the calls detred takes (docs/torch.md);
    every other call goes to PyTorch's own. Calling it again changes nothing."""
    if _saved:
        return
    for owner, name in covered():
        original = getattr(owner, name)
        _saved[(owner, name)] = original
        setattr(owner, name, _replacement(owner, name, original))


def disable():
    """Puts PyTorch's own functions back (nothing if enable() was not called)."""
    while _saved:
        (owner, name), original = _saved.popitem()
        setattr(owner, name, original)


@contextlib.contextmanager
def enabled():
    """``with detred.torch.enabled(): ...``: enable() inside, the state before (on or off) restored on exit."""
    was = is_enabled()
    enable()
    try:
        yield
    finally:
        if not was:
            disable()
