# SPDX-License-Identifier: BSD-3-Clause
"""detred.torch's functions: the torch.ops.detred operators with autograd (torch.autograd.Function), each backward
itself deterministic: a broadcast, a gather, or detred's own reductions."""

import math

import torch

from . import _kernels as k
from ._library import ops


class _Sum(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim, keepdim):
        ctx.shape, ctx.dim, ctx.keepdim = x.shape, dim, keepdim
        return ops.sum(x, dim, keepdim)

    @staticmethod
    def backward(ctx, grad):
        return k.broadcast_back(grad, ctx.shape, ctx.dim, ctx.keepdim), None, None


class _Mean(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim, keepdim):
        ctx.shape, ctx.dim, ctx.keepdim = x.shape, dim, keepdim
        return ops.mean(x, dim, keepdim)

    @staticmethod
    def backward(ctx, grad):
        count = math.prod(ctx.shape[d] for d in k.reduced_dims(ctx.dim, len(ctx.shape))) if ctx.shape else 1
        share = k.divide(grad.to(k.accumulation_dtype(grad.dtype)), count).to(grad.dtype)
        return k.broadcast_back(share, ctx.shape, ctx.dim, ctx.keepdim), None, None


class _IndexAdd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, self, dim, index, source, alpha):
        ctx.save_for_backward(index)
        ctx.dim, ctx.alpha, ctx.source_shape = dim, alpha, source.shape
        return ops.index_add(self, dim, index, source, alpha)

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        grad_source = None
        if ctx.needs_input_grad[3]:
            grad_source = grad.index_select(ctx.dim, index) if grad.dim() else grad
            if ctx.alpha != 1:
                grad_source = grad_source * ctx.alpha
            grad_source = grad_source.reshape(ctx.source_shape)
        return grad, None, None, grad_source, None


class _ScatterAdd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, self, dim, index, src):
        ctx.save_for_backward(index)
        ctx.dim, ctx.src_shape = dim, src.shape
        return ops.scatter_add(self, dim, index, src)

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        grad_src = k.scatter_add_source_grad(grad, ctx.dim, index, ctx.src_shape) if ctx.needs_input_grad[3] else None
        return grad, None, None, grad_src


class _Gather(torch.autograd.Function):
    """x.index_select(dim, index) (whole rows) or x.gather(dim, index). The backward of a gather is a scatter-add:
    detred's, so an element picked many times gets a deterministic sum."""

    @staticmethod
    def forward(ctx, x, dim, index, whole_rows):
        ctx.save_for_backward(index)
        ctx.dim, ctx.shape, ctx.whole_rows = dim, x.shape, whole_rows
        return x.index_select(dim, index) if whole_rows else x.gather(dim, index)

    @staticmethod
    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        zeros, g = grad.new_zeros(ctx.shape), grad.contiguous()
        scatter = ops.index_add(zeros, ctx.dim, index, g, 1.0) if ctx.whole_rows else ops.scatter_add(zeros, ctx.dim,
                                                                                                        index, g)
        return scatter, None, None, None


class _SegmentSum(torch.autograd.Function):
    @staticmethod
    def forward(ctx, values, offsets):
        ctx.save_for_backward(offsets)
        ctx.values_shape = values.shape
        return ops.segment_sum(values, offsets)

    @staticmethod
    def backward(ctx, grad):
        (offsets,) = ctx.saved_tensors
        return k.segment_sum_backward(grad, offsets, ctx.values_shape), None


class _Cumsum(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        return ops.cumsum(x, dim)

    @staticmethod
    def backward(ctx, grad):
        # d(prefix sums)/dx is the suffix sums of the gradient: detred's prefix sums of the reversed gradient.
        return ops.cumsum(grad.flip(ctx.dim), ctx.dim).flip(ctx.dim), None


class _RmsNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, eps):
        y, rstd = ops.rms_norm(x, weight, eps)
        ctx.save_for_backward(x, weight, rstd)
        return y

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad):
        x, weight, rstd = ctx.saved_tensors
        dx, dweight = ops.rms_norm_backward(grad.contiguous(), x, weight, rstd)
        return dx, (dweight if weight is not None else None), None


class _LayerNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, eps):
        y, mean, rstd = ops.layer_norm(x, weight, bias, eps)
        ctx.save_for_backward(x, weight, mean, rstd)
        ctx.has_bias = bias is not None
        return y

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad):
        x, weight, mean, rstd = ctx.saved_tensors
        dx, dweight, dbias = ops.layer_norm_backward(grad.contiguous(), x, weight, mean, rstd, ctx.has_bias)
        return dx, (dweight if weight is not None else None), (dbias if ctx.has_bias else None), None


def _dims(dim):
    if dim is None:
        return []
    return [int(dim)] if isinstance(dim, int) else [int(d) for d in dim]


_is_compiling = getattr(getattr(torch, "compiler", None), "is_compiling", lambda: False)


def _recorded(x):
    """True when a call on x must go through its autograd Function and torch.ops.detred operator: x needs a gradient,
    or torch.compile is tracing (which keeps the operator as an opaque call). Otherwise the forward kernel is called
    directly, the same computation without the dispatcher's and autograd's per-call cost (tens of microseconds, more
    than a GPU row sum of 64 MiB takes)."""
    return (x.requires_grad and torch.is_grad_enabled()) or _is_compiling()


def sum(x, dim=None, keepdim=False):
    """detred's sum over dim (None: all): each output element is detred.sum of the elements it reduces, in C order of
    the reduced dims, as one contiguous array, so its bits do not depend on the other elements of the batch, the
    device or the thread count. float64, float32, float16, bfloat16 (16-bit: summed in float32, the sum rounded to
    the dtype once). An empty sum is -0.0."""
    if type(dim) is int and x.is_cuda and not _recorded(x):  # the rows of a CUDA tensor: the short path if it applies
        rows = k.cuda_last_dim_sums(x, dim, keepdim)
        if rows is not None:
            return rows
    k.check_floating("sum", x)
    if not _recorded(x):
        return k.sum_forward(x, _dims(dim), keepdim)
    return _Sum.apply(x, _dims(dim), keepdim)


def mean(x, dim=None, keepdim=False):
    """detred.torch.sum divided by the count of reduced elements, in float64 for float64 and float32 otherwise
    (one correctly rounded division), then rounded to the dtype."""
    k.check_floating("mean", x)
    if not _recorded(x):
        return k.mean_forward(x, _dims(dim), keepdim)
    return _Mean.apply(x, _dims(dim), keepdim)


def index_add(self, dim, index, source, alpha=1):
    """torch.index_add with detred's sums: result.select(dim, j) = self.select(dim, j) + S_j, S_j being detred's sum
    of alpha * source.select(dim, i) over the i with index[i] == j, in increasing i, elementwise over the other
    dims (-0.0 when no i sends to j, so self is unchanged); one addition to self. The bits do not depend on the
    order of the other indices, the device or the thread count."""
    k.check_floating("index_add", self, source)
    if source.dtype != self.dtype:
        raise TypeError(f"detred.torch.index_add: source ({source.dtype}) must have self's dtype ({self.dtype})")
    return _IndexAdd.apply(self, int(dim), index, source, float(alpha))


def scatter_add(self, dim, index, src):
    """torch.scatter_add with detred's sums: each element p of the result is self[p] + S_p, S_p being detred's sum of
    the src elements that index sends to p, in increasing position along dim (-0.0 when none does)."""
    k.check_floating("scatter_add", self, src)
    if src.dtype != self.dtype:
        raise TypeError(f"detred.torch.scatter_add: src ({src.dtype}) must have self's dtype ({self.dtype})")
    return _ScatterAdd.apply(self, int(dim), index, src)


def index_select(x, dim, index):
    """x.index_select(dim, index) (an embedding lookup: index_select(weight, 0, ids)) whose backward is detred's
    index_add: the gradient of a row picked several times is the detred sum of its gradients in index order."""
    k.check_floating("index_select", x)
    return _Gather.apply(x, int(dim), index, True)


def gather(x, dim, index):
    """x.gather(dim, index) whose backward is detred's scatter_add."""
    k.check_floating("gather", x)
    return _Gather.apply(x, int(dim), index, False)


def segment_sum(values, offsets=None, lengths=None):
    """Sums of consecutive segments of values along dim 0: segment k is values[offsets[k]:offsets[k+1]] (offsets:
    int64 or int32, non-decreasing, within the values; values before the first offset or after the last belong to
    none), or given by their lengths (offsets 0, cumsum(lengths)). Result (segments, *values.shape[1:]), each element
    detred.sum of its segment's column; an empty segment gives -0.0."""
    k.check_floating("segment_sum", values)
    if (offsets is None) == (lengths is None):
        raise ValueError("detred.torch.segment_sum takes offsets or lengths, one of them")
    if lengths is not None:
        lengths = torch.as_tensor(lengths, dtype=torch.int64, device=values.device)
        offsets = torch.cat([lengths.new_zeros(1), torch.cumsum(lengths, 0)])  # integers: exact
    offsets = torch.as_tensor(offsets, device=values.device)
    return _SegmentSum.apply(values, offsets)


def cumsum(x, dim):
    """detred.cumsum along dim (computed on the host; CUDA tensors are copied there and back). Needs detred.cumsum."""
    k.check_floating("cumsum", x)
    return _Cumsum.apply(x, int(dim))


def rms_norm(x, weight=None, eps=1e-6):
    """RMSNorm over the last dim: x / sqrt(mean(x^2) + eps) * weight, the mean of squares a detred row sum of x*x
    divided by the row length. Rows of 16-bit floats are computed in float32, the result rounded once."""
    k.check_floating("rms_norm", x, *([weight] if weight is not None else []))
    if not _recorded(x) and (weight is None or not _recorded(weight)):
        return k.rms_norm_forward(x, weight, float(eps))[0]
    return _RmsNorm.apply(x, weight, float(eps))


def layer_norm(x, weight=None, bias=None, eps=1e-5):
    """LayerNorm over the last dim: (x - mean) / sqrt(var + eps) * weight + bias, mean and (biased) var from detred
    row sums (the variance from the centred values)."""
    k.check_floating("layer_norm", x, *[t for t in (weight, bias) if t is not None])
    if not any(_recorded(t) for t in (x, weight, bias) if t is not None):
        return k.layer_norm_forward(x, weight, bias, float(eps))[0]
    return _LayerNorm.apply(x, weight, bias, float(eps))
