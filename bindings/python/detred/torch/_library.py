# SPDX-License-Identifier: BSD-3-Clause
"""The operators in torch.library's namespace ``detred``: torch.ops.detred.sum, ... (forward and backward kernels,
without autograd: detred.torch's functions add it).

Defined with ``torch.library.Library("detred", "DEF")``, ``define`` and ``impl`` for the CPU and CUDA dispatch keys,
which PyTorch 1.13 and 2.x both have. Where PyTorch has ``torch.library.register_fake`` (2.4 on; ``impl_abstract``
from 2.2), each operator also gets a fake kernel (the result's shape and dtype without computing it), so that
torch.compile keeps the operators as opaque calls in its graphs rather than tracing into them.
"""

import torch

from . import _kernels as k

_library = torch.library.Library("detred", "DEF")


def _empty_like_rows(x):
    """The per-row statistics' fake: one accumulation-dtype value per row of the last dim."""
    rows = x.numel() // x.shape[-1] if x.dim() and x.shape[-1] else (1 if not x.dim() else 0)
    return x.new_empty((rows,), dtype=k.accumulation_dtype(x.dtype))


def _sum_fake(x, dim, keepdim):
    dims = k.reduced_dims(dim, x.dim())
    shape = [1 if d in dims else x.shape[d] for d in range(x.dim())] if keepdim else [
        x.shape[d] for d in range(x.dim()) if d not in dims]
    return x.new_empty(shape)


def _segment_sum_fake(values, offsets):
    return values.new_empty((offsets.shape[0] - 1, *values.shape[1:]))


def _cumsum_fake(x, dim):
    return x.new_empty(x.shape)


def _rms_norm_fake(x, weight, eps):
    return x.new_empty(x.shape), _empty_like_rows(x)


def _rms_norm_backward_fake(grad, x, weight, rstd):
    return x.new_empty(x.shape), (weight.new_empty(weight.shape) if weight is not None else x.new_empty((0,)))


def _layer_norm_fake(x, weight, bias, eps):
    return x.new_empty(x.shape), _empty_like_rows(x), _empty_like_rows(x)


def _layer_norm_backward_fake(grad, x, weight, mean, rstd, has_bias):
    cols = x.shape[-1] if x.dim() else 1
    return x.new_empty(x.shape), x.new_empty((cols,)), x.new_empty((cols,))


def _rms_norm_backward(grad, x, weight, rstd):
    dx, dweight = k.rms_norm_backward(grad, x, weight, rstd)
    return dx, (dweight if dweight is not None else x.new_empty((0,)))


def _layer_norm_backward(grad, x, weight, mean, rstd, has_bias):
    dx, dweight, dbias = k.layer_norm_backward(grad, x, weight, mean, rstd, has_bias)
    empty = x.new_empty((0,))
    return dx, (dweight if dweight is not None else empty), (dbias if dbias is not None else empty)


# name: (schema, kernel, fake). Optional results (no weight, no bias) are empty tensors: a schema cannot return None.
OPERATORS = {
    "sum": ("sum(Tensor x, int[] dim, bool keepdim) -> Tensor", k.sum_forward, _sum_fake),
    "mean": ("mean(Tensor x, int[] dim, bool keepdim) -> Tensor", k.mean_forward, _sum_fake),
    "index_add": ("index_add(Tensor self, int dim, Tensor index, Tensor source, float alpha) -> Tensor",
                  k.index_add_forward, lambda self, dim, index, source, alpha: self.new_empty(self.shape)),
    "scatter_add": ("scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor", k.scatter_add_forward,
                    lambda self, dim, index, src: self.new_empty(self.shape)),
    "segment_sum": ("segment_sum(Tensor values, Tensor offsets) -> Tensor", k.segment_sum_forward, _segment_sum_fake),
    "cumsum": ("cumsum(Tensor x, int dim) -> Tensor", k.cumsum_forward, _cumsum_fake),
    "rms_norm": ("rms_norm(Tensor x, Tensor? weight, float eps) -> (Tensor, Tensor)", k.rms_norm_forward,
                 _rms_norm_fake),
    "rms_norm_backward": ("rms_norm_backward(Tensor grad, Tensor x, Tensor? weight, Tensor rstd) -> (Tensor, Tensor)",
                          _rms_norm_backward, _rms_norm_backward_fake),
    "layer_norm": ("layer_norm(Tensor x, Tensor? weight, Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)",
                   k.layer_norm_forward, _layer_norm_fake),
    "layer_norm_backward": ("layer_norm_backward(Tensor grad, Tensor x, Tensor? weight, Tensor mean, Tensor rstd, "
                            "bool has_bias) -> (Tensor, Tensor, Tensor)", _layer_norm_backward,
                            _layer_norm_backward_fake),
}

_register_fake = getattr(torch.library, "register_fake", None) or getattr(torch.library, "impl_abstract", None)

for _name, (_schema, _kernel, _fake) in OPERATORS.items():
    _library.define(_schema)
    for _key in ("CPU", "CUDA"):
        _library.impl(_name, _kernel, _key)
    if _register_fake is not None:
        _register_fake("detred::" + _name, _fake, lib=_library)

ops = torch.ops.detred
