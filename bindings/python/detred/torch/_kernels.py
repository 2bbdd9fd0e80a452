# SPDX-License-Identifier: BSD-3-Clause
"""The operators' forward and backward computations on tensors, without autograd.

Every reduction is detred's: sums over dims on the CPU are ``detred.sum(x, axis=dims)``; rows, segments and groups
go to the batched calls (detred/batched.hpp through the module's ``_segment_sum``, ``_segment_dot`` and
``_sum_by_key``): CPU tensors to the host calls through NumPy views (no copy), CUDA tensors to the device calls
through DLPack (row sums: through their data pointers, on torch's current stream). Each result equals, bit for bit,
detred's single-array sum of its line in its order, so it does not depend on the other lines (the batch), the device
or the thread count. Around the reductions only element-wise IEEE operations that are correctly rounded on the CPU
and on CUDA (+, -, *; divisions and square roots in float64, see divide and _rsqrt; no rsqrt, pow or fused
multiply-add) are used, so the results are the same bits on both.

16-bit floats (float16, bfloat16) are widened exactly to float32, computed in float32 and rounded to their dtype once
at the end of each operator.
"""

import math

import numpy as np
import torch

import detred

from .. import _detred

FLOATS = (torch.float64, torch.float32, torch.float16, torch.bfloat16)


def accumulation_dtype(dtype):
    """float64 for float64, float32 for the others (float32, float16, bfloat16)."""
    return torch.float64 if dtype == torch.float64 else torch.float32


def check_floating(name, *tensors):
    for t in tensors:
        if t.dtype not in FLOATS:
            raise TypeError(f"detred.torch.{name} takes float64, float32, float16 or bfloat16 tensors, not {t.dtype}")
        if t.device.type not in ("cpu", "cuda"):
            raise TypeError(f"detred.torch.{name} takes CPU and CUDA tensors, not {t.device.type} ones")


def divide(t, divisor):
    """t / divisor (a count), each quotient correctly rounded, with the same bits on the CPU and on CUDA. PyTorch's
    own division does not give them: its CUDA kernels multiply by the reciprocal of a Python number divisor, and its
    float32 division of two CUDA tensors gave other bits than the CPU's (H100, PyTorch 2.11). So the quotient is
    formed in float64, where both divide correctly rounded, of t and of the divisor rounded to t's dtype: for float32
    it is then rounded back once, which gives the correctly rounded float32 quotient (a float64 quotient of float32
    operands rounds to float32 as the float32 division would, since 53 >= 2 x 24 + 2)."""
    wide = t if t.dtype == torch.float64 else t.to(torch.float64)
    exact_divisor = float(divisor) if t.dtype == torch.float64 else float(np.float32(divisor))  # as t's dtype holds it
    quotient = wide / torch.full((), exact_divisor, dtype=torch.float64, device=t.device)
    return quotient if t.dtype == torch.float64 else quotient.to(t.dtype)


def _handles(*tensors):
    """What the module's private calls take: NumPy views of CPU tensors, the CUDA tensors themselves (DLPack)."""
    return [t.detach().numpy() if t.device.type == "cpu" else t.detach() for t in tensors]


def _after_device_call(device):
    # The module runs a DLPack tensor's work on the legacy default stream, after the work of torch's current stream
    # (__dlpack__(stream=1) orders it); torch's current stream, when it is another one, waits for it in turn.
    current = torch.cuda.current_stream(device)
    default = torch.cuda.default_stream(device)
    if current != default:
        current.wait_stream(default)


def segment_sums(values, offsets):
    """out[k] = detred.sum(values[offsets[k]:offsets[k+1]]): values a contiguous 1-D float32/float64 tensor, offsets
    an int64 tensor on its device (checked by the caller: non-decreasing, within the values)."""
    out = torch.empty(offsets.numel() - 1, dtype=values.dtype, device=values.device)
    _detred._segment_sum(*_handles(values.contiguous(), offsets.contiguous(), out))
    if values.device.type == "cuda":
        _after_device_call(values.device)
    return out


def segment_dots(x, y, offsets):
    """out[k] = detred.dot of segment k of x and y (contiguous 1-D tensors of one float32/float64 dtype)."""
    out = torch.empty(offsets.numel() - 1, dtype=x.dtype, device=x.device)
    _detred._segment_dot(*_handles(x.contiguous(), y.contiguous(), offsets.contiguous(), out))
    if x.device.type == "cuda":
        _after_device_call(x.device)
    return out


_row_offsets = {}


def row_offsets(rows, cols, device):
    """0, cols, 2 cols, ..., rows cols as int64 on device: the segments of a row-major matrix, kept for the shapes
    seen last (a GPU call then needs no kernel of its own to make them)."""
    key = (rows, cols, str(device))
    offsets = _row_offsets.get(key)
    if offsets is None:
        if len(_row_offsets) >= 64:
            _row_offsets.clear()
        offsets = _row_offsets[key] = torch.arange(rows + 1, dtype=torch.int64, device=device) * cols
    return offsets


def row_dots(a, b):
    """detred's dot of each row of a with the same row of b (2-D tensors of one shape): a row's bits do not depend
    on the other rows."""
    rows, cols = a.shape
    return segment_dots(a.reshape(-1), b.reshape(-1), row_offsets(rows, cols, a.device))


_current_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)
_DTYPE_NAMES = {torch.float32: "float32", torch.float64: "float64"}
# The short path's dtypes: every one's row sums come out in it (16-bit floats: the float32 sum rounded once).
_ROW_SUM_DTYPES = {**_DTYPE_NAMES, torch.bfloat16: "bfloat16", torch.float16: "float16"}


def _cuda_stream_handle(device_index):
    """torch's current stream on that GPU, as the integer a cudaStream_t is (the raw query where torch has it: the
    public one makes a Stream object, a few microseconds a call)."""
    if _current_raw_stream is not None:
        return _current_raw_stream(device_index)
    return torch.cuda.current_stream(device_index).cuda_stream


def _cuda_row_sums_into(matrix, rows, cols, out, mode="tree"):
    """out (rows elements of the matrix's dtype; 16-bit floats: the float32 sum rounded once) = detred's sum of each
    row of a contiguous CUDA tensor seen as rows x cols, in `mode`, enqueued on torch's current stream through the
    module's short path (its data pointers, no DLPack exchange)."""
    device = matrix.get_device()
    _detred._cuda_row_sums(matrix.data_ptr(), rows, cols, _ROW_SUM_DTYPES[matrix.dtype], out.data_ptr(), device,
                           _cuda_stream_handle(device), mode)
    return out


def _cuda_column_sums_into(matrix, rows, cols, out, mode="tree"):
    """out (cols elements of the matrix's dtype) = detred's sum of each column of a contiguous CUDA tensor seen as
    rows x cols, as _cuda_row_sums_into does for rows (detred::cuda::sum_columns: columns of up to 32 elements are one
    kernel, each sum rounded as it is stored)."""
    device = matrix.get_device()
    _detred._cuda_column_sums(matrix.data_ptr(), rows, cols, _ROW_SUM_DTYPES[matrix.dtype], out.data_ptr(), device,
                              _cuda_stream_handle(device), mode)
    return out


def row_sums(matrix):
    """The detred sum of each row of a 2-D float32/float64 tensor (made contiguous first): a row's bits do not depend
    on the other rows."""
    rows, cols = matrix.shape
    if matrix.device.type == "cuda" and matrix.numel():
        values = matrix if matrix.is_contiguous() else matrix.contiguous()
        return _cuda_row_sums_into(values, rows, cols, torch.empty(rows, dtype=matrix.dtype, device=matrix.device))
    values = matrix.reshape(-1) if matrix.is_contiguous() else matrix.contiguous().reshape(-1)
    return segment_sums(values, row_offsets(rows, cols, matrix.device))


def column_sums(matrix):
    """The detred sum of each column of a 2-D float32/float64 tensor (made contiguous first), read where it lies: on
    CUDA through detred::cuda::sum_columns, on the CPU through the module's sum over axis 0. Both have the bits of
    row_sums of the transpose, without the transposed copy (a write and a second read of the whole matrix)."""
    rows, cols = matrix.shape
    values = matrix.contiguous()  # the tensor itself where it already is
    if matrix.device.type == "cuda" and matrix.numel():
        return _cuda_column_sums_into(values, rows, cols, torch.empty(cols, dtype=matrix.dtype, device=matrix.device))
    if matrix.device.type == "cpu":
        return torch.from_numpy(np.ascontiguousarray(_detred.sum(values.detach().numpy(), axis=0)))
    return row_sums(matrix.t().contiguous())


def sums_by_key(values, keys, bins):
    """out[b] = detred.sum of the values whose key is b, in index order: values a contiguous 1-D float32/float64
    tensor, keys int64 on its device; a key outside [0, bins) is the call's ValueError ("... is not a bin")."""
    out = torch.empty(bins, dtype=values.dtype, device=values.device)
    if values.device.type == "cuda" and bins > 2**31 - 1:
        raise ValueError(f"detred.torch: {bins} targets are more than the GPU's 32-bit keys address (2^31 - 1)")
    _detred._sum_by_key(*_handles(values.contiguous(), keys.contiguous(), out))
    if values.device.type == "cuda":
        _after_device_call(values.device)
    return out


# Reductions over dims -------------------------------------------------------------------------------------------------


def reduced_dims(dim, ndim):
    """The dims to reduce, sorted: all of them for None or an empty list (as torch.sum)."""
    if dim is None:
        return list(range(ndim))
    if isinstance(dim, int):
        dim = [dim]
    rank = max(ndim, 1)
    dims = []
    for d in dim:
        d = int(d)
        if not -rank <= d < rank:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], but got {d})")
        dims.append(d % rank if ndim else 0)
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"dim {dims} appears multiple times in the list of dims")
    return sorted(dims) if dims else list(range(ndim))


def _as_rows(x, dims):
    """x with the dims kept first and the reduced ones last, as a (rows, reduced) contiguous matrix of the
    accumulation dtype, and the kept sizes."""
    kept = [d for d in range(x.dim()) if d not in dims]
    moved = x.permute(kept + dims) if x.dim() else x.reshape(1)
    kept_shape = [x.shape[d] for d in kept]
    rows = math.prod(kept_shape)
    cols = math.prod(x.shape[d] for d in dims) if x.dim() else 1
    matrix = moved.to(accumulation_dtype(x.dtype)).reshape(rows, cols)
    return matrix, kept_shape, cols


def _output_shape(x, dims, keepdim, kept_shape):
    if keepdim:
        return [1 if d in dims else x.shape[d] for d in range(x.dim())]
    return kept_shape


def _sums_over(x, dims):
    """detred's sum over dims (the reduced elements of each output in C order, as one contiguous array), in the
    accumulation dtype, with the kept dims' shape; and the count of reduced elements."""
    if x.device.type == "cpu":
        # detred.sum with axis: the same lanes in the same order, read where they lie (a column of a matrix through
        # the batched axis call, a strided lane gathered one at a time), 16-bit floats widened inside the library.
        kept_shape = [x.shape[d] for d in range(x.dim()) if d not in dims]
        count = math.prod(x.shape[d] for d in dims) if x.dim() else 1
        handle = x.detach() if x.dtype == torch.bfloat16 else x.detach().numpy()  # bfloat16: DLPack
        axis = None if len(dims) == x.dim() else tuple(dims)
        sums = torch.from_numpy(np.asarray(detred.sum(handle, axis=axis)))
        return sums.reshape(kept_shape), kept_shape, count
    matrix, kept_shape, count = _as_rows(x, dims)
    return row_sums(matrix).reshape(kept_shape), kept_shape, count


def cuda_last_dim_sums(x, dim, keepdim):
    """The sums over the last dim (dim an int naming it) of a contiguous, non-empty CUDA tensor (16-bit floats summed
    in float32 and rounded once to their dtype, in the kernel), enqueued on torch's current stream; None for any
    other call, which takes sum_forward's general route. The same bits as that route (each row's detred.sum). Kept
    to a few attribute reads: at 4096 x 4096 bfloat16 the GPU takes about 7 us, so the host's time decides the
    call's latency."""
    name = _ROW_SUM_DTYPES.get(x.dtype)
    if name is None or not x.is_contiguous():
        return None
    shape = x.shape
    ndim = len(shape)
    if not ndim or (dim != -1 and dim != ndim - 1) or not shape[-1]:
        return None
    cols = shape[-1]
    rows = x.numel() // cols
    # The output allocated as rows elements (torch.empty parses an int faster than a shape: about 1 us of the
    # call's 12 at 4096 x 4096), shaped afterwards where a matrix's row vector is not the answer.
    out = torch.empty(rows, dtype=x.dtype, device=x.device)
    device = x.get_device()
    _detred._cuda_row_sums(x.data_ptr(), rows, cols, name, out.data_ptr(), device, _cuda_stream_handle(device))
    return out if ndim == 2 and not keepdim else out.view(shape[:-1] + ((1,) if keepdim else ()))


def sum_forward(x, dim, keepdim):
    dims = reduced_dims(dim, x.dim())
    if x.device.type == "cuda" and x.dim() and dims == [x.dim() - 1]:
        rows = cuda_last_dim_sums(x, -1, keepdim)
        if rows is not None:
            return rows
    sums, kept_shape, _ = _sums_over(x, dims)
    return sums.reshape(_output_shape(x, dims, keepdim, kept_shape)).to(x.dtype)


def mean_forward(x, dim, keepdim):
    dims = reduced_dims(dim, x.dim())
    sums, kept_shape, count = _sums_over(x, dims)
    # The sum divided by the count in the accumulation dtype (one correctly rounded division), then the dtype's.
    return divide(sums, count).reshape(_output_shape(x, dims, keepdim, kept_shape)).to(x.dtype)


def broadcast_back(grad, shape, dim, keepdim):
    """The backward of a reduction over dims: the gradient broadcast to the input's shape (no arithmetic)."""
    dims = reduced_dims(dim, len(shape))
    if not keepdim:
        for d in dims:
            grad = grad.unsqueeze(d)
    return grad.expand(shape)


# Scatter-add and index-add -------------------------------------------------------------------------------------------


def _check_targets(index, targets, name):
    if index.numel() and (int(index.min()) < 0 or int(index.max()) >= targets):
        raise IndexError(f"detred.torch.{name}: an index is outside [0, {targets})")


def _sums_by_index(values, keys, bins, index, targets, name):
    """sums_by_key for keys made from index, which are index itself when bins == targets. Then sum_by_key's own check
    of the keys stands for _check_targets, whose two passes over index took half as long as PyTorch's whole
    scatter_add of 2^24 values into 2^16 rows on the CPU (on the GPU, the device checks the int64 keys as it narrows
    them for its sort). Keys that are index * stride + k could wrap past 2^63 into a bin: those are checked before."""
    if bins != targets:
        _check_targets(index, targets, name)
        return sums_by_key(values, keys, bins)
    try:
        return sums_by_key(values, keys, bins)
    except ValueError as e:
        if "is not a bin" not in str(e):
            raise
        raise IndexError(f"detred.torch.{name}: an index is outside [0, {targets})") from None


def index_add_forward(self, dim, index, source, alpha):
    """self with alpha * source.select(dim, i) added to self.select(dim, index[i]): target j of every other position
    becomes self[j] + S_j, S_j being detred's sum of its contributions in increasing i (-0.0 for none)."""
    if index.dim() > 1:
        raise IndexError("detred.torch.index_add: index must be a vector")
    ndim = max(self.dim(), 1)
    dim = dim % ndim
    target = self.reshape(1) if self.dim() == 0 else self
    contrib = source.reshape(1) if source.dim() == 0 else source
    targets = target.shape[dim]
    if contrib.shape[dim] != index.numel() or [s for d, s in enumerate(contrib.shape) if d != dim] != [
            s for d, s in enumerate(target.shape) if d != dim]:
        raise RuntimeError("detred.torch.index_add: source must have self's shape but along dim, where it has one "
                           "slice per index")
    acc = accumulation_dtype(self.dtype)
    moved = contrib.movedim(dim, 0).to(acc).contiguous()
    inner = math.prod(moved.shape[1:])
    if alpha != 1:
        moved = moved * alpha
    # Value (i, k) goes to bin index[i] * inner + k: each bin's values in increasing i, the index order.
    keys = index.to(torch.int64).reshape(-1)
    if inner != 1:
        keys = (keys.reshape(-1, 1) * inner + torch.arange(inner, dtype=torch.int64, device=index.device)).reshape(-1)
    sums = _sums_by_index(moved.reshape(-1), keys, targets * inner, index, targets, "index_add")
    sums = sums.reshape(targets, *moved.shape[1:])
    result = target.movedim(dim, 0).to(acc) + sums
    return result.movedim(0, dim).reshape(self.shape).to(self.dtype)


def scatter_add_forward(self, dim, index, src):
    """torch.scatter_add's targets, each self[p] + S_p, S_p being detred's sum of the src elements that index sends to
    p, in increasing position along dim (-0.0 for none)."""
    ndim = max(self.dim(), 1)
    dim = dim % ndim
    if index.dim() != src.dim() or index.dim() != self.dim():
        raise RuntimeError("detred.torch.scatter_add: index, src and self must have the same number of dimensions")
    if any(index.shape[d] > src.shape[d] for d in range(index.dim())) or any(
            index.shape[d] > self.shape[d] for d in range(index.dim()) if d != dim):
        raise RuntimeError("detred.torch.scatter_add: index is larger than src, or than self outside dim")
    shape = list(self.shape) or [1]
    index = index.reshape(1) if index.dim() == 0 else index
    src = src.reshape(1) if src.dim() == 0 else src
    acc = accumulation_dtype(self.dtype)
    values = src[tuple(slice(0, s) for s in index.shape)].to(acc).contiguous().reshape(-1)
    # The target's flat position in self: index along dim, the element's own coordinates along the others. Values
    # go in C order of index's positions, so a target's contributions come in increasing position along dim.
    strides = [math.prod(shape[d + 1:]) for d in range(len(shape))]
    keys = index.to(torch.int64) * strides[dim] if strides[dim] != 1 else index.to(torch.int64)
    for d in range(index.dim()):
        if d != dim:
            view = [1] * index.dim()
            view[d] = index.shape[d]
            keys = keys + torch.arange(index.shape[d], dtype=torch.int64, device=index.device).reshape(view) * strides[d]
    sums = _sums_by_index(values, keys.reshape(-1), math.prod(shape), index, shape[dim], "scatter_add")
    return (self.to(acc) + sums.reshape(self.shape)).to(self.dtype)


def scatter_add_source_grad(grad, dim, index, src_shape):
    """The backward of scatter_add for src: a gather (no arithmetic); zero where index does not reach."""
    gathered = grad.gather(dim, index)
    if list(gathered.shape) == list(src_shape):
        return gathered
    out = grad.new_zeros(src_shape)
    out[tuple(slice(0, s) for s in index.shape)] = gathered
    return out


# Segments -------------------------------------------------------------------------------------------------------------


def check_offsets(offsets, length):
    if offsets.dim() != 1 or offsets.numel() < 1:
        raise ValueError("detred.torch.segment_sum: offsets must be a vector of at least one entry")
    if offsets.dtype not in (torch.int64, torch.int32):
        raise TypeError(f"detred.torch.segment_sum: offsets must be int64 or int32, not {offsets.dtype}")
    if int(offsets[0]) < 0 or int(offsets[-1]) > length or bool((offsets[1:] < offsets[:-1]).any()):
        raise ValueError(f"detred.torch.segment_sum: offsets must be non-decreasing and within [0, {length}]")


def segment_sum_forward(values, offsets):
    """out[k] = detred's sum of values[offsets[k]:offsets[k+1]] along dim 0, for every position of the other dims."""
    check_offsets(offsets, values.shape[0])
    offsets = offsets.to(torch.int64).to(values.device)
    acc = accumulation_dtype(values.dtype)
    count, rest = values.shape[0], values.shape[1:]
    inner = math.prod(rest)
    segments = offsets.numel() - 1
    if inner == 1:
        sums = segment_sums(values.to(acc).reshape(-1), offsets)
        return sums.reshape(segments, *rest).to(values.dtype)
    # Column c of the values (c over the other dims) lies at c * count in the transpose; its segments' offsets are
    # shifted by that, and one segment between columns (from the last offset of one to the first of the next) is
    # summed and dropped.
    columns = values.to(acc).reshape(count, inner).t().contiguous().reshape(-1)
    shifted = (offsets.reshape(1, -1) + count * torch.arange(inner, dtype=torch.int64, device=offsets.device)
               .reshape(-1, 1)).reshape(-1)
    sums = segment_sums(columns, shifted)
    sums = torch.cat([sums, sums.new_zeros(1)]).reshape(inner, segments + 1)[:, :segments]
    return sums.t().reshape(segments, *rest).to(values.dtype)


def segment_sum_backward(grad, offsets, values_shape):
    """Each value gets its segment's gradient (a gather); values outside every segment get zero."""
    offsets = offsets.to(torch.int64).to(grad.device)
    lengths = offsets[1:] - offsets[:-1]
    out = grad.new_zeros(values_shape)
    out[int(offsets[0]):int(offsets[-1])] = grad.repeat_interleave(lengths, dim=0)
    return out


# Normalizations -------------------------------------------------------------------------------------------------------


def _last_dim_rows(x):
    cols = x.shape[-1] if x.dim() else 1
    return x.to(accumulation_dtype(x.dtype)).reshape(-1, cols), cols


def _sqrt(v):
    """The correctly rounded square root of a float64 tensor: NumPy's on the CPU, torch.sqrt on CUDA (CUDA's float64
    sqrt is correctly rounded). PyTorch 2.11's own CPU float64 sqrt was 1 ulp off CUDA's for 3 of 257 values (H100
    host); Debian's 1.13 agrees with NumPy."""
    if v.device.type == "cpu":
        return torch.from_numpy(np.sqrt(v.detach().contiguous().numpy()))
    return torch.sqrt(v)


def _rsqrt(v):
    """1 / sqrt(v), evaluated in float64 (sqrt, then the division: both correctly rounded there on the CPU and on
    CUDA) and rounded once to v's dtype; torch.rsqrt is approximate on CUDA, and float32 division differs there."""
    wide = v if v.dtype == torch.float64 else v.to(torch.float64)
    r = torch.full((), 1.0, dtype=torch.float64, device=v.device) / _sqrt(wide)
    return r if v.dtype == torch.float64 else r.to(v.dtype)


def rms_norm_forward(x, weight, eps):
    """y = x * (1 / sqrt(mean(x^2) + eps)) * weight over the last dim; mean(x^2) = detred's dot of the row with
    itself divided by the row length. Returns y and 1 / sqrt(mean(x^2) + eps) per row (accumulation dtype). CUDA
    tensors take detred::cuda::rms_norm_rows (one kernel for rows of up to 2^17 elements, the same roundings:
    detred/cuda_norm_rows.hpp)."""
    cols = x.shape[-1] if x.dim() else 1
    if x.is_cuda and x.numel() and (weight is None or (weight.is_cuda and weight.dtype == x.dtype
                                                        and weight.numel() == cols and weight.dim() == 1)):
        return cuda_rms_norm_rows(x, weight, eps, cols)
    return rms_norm_by_passes(x, weight, eps)


def cuda_rms_norm_rows(x, weight, eps, cols):
    """rms_norm_forward of a non-empty CUDA tensor (cols: its last dim's size) through the module's short path, on
    torch's current stream. Called outside autograd's recording (directly, or from the autograd Function's forward),
    so the tensors need no detach; y is allocated in x's shape. Each attribute read and allocation is a few hundred
    nanoseconds of a call whose GPU time is tens of microseconds."""
    values = x.contiguous()
    w = None if weight is None else weight.contiguous()
    rows = values.numel() // cols
    y = torch.empty_like(values)
    rstd = torch.empty(rows, dtype=accumulation_dtype(x.dtype), device=x.device)
    device = values.get_device()
    _detred._cuda_rms_norm_rows(values.data_ptr(), rows, cols, _ROW_SUM_DTYPES[x.dtype],
                                0 if w is None else w.data_ptr(), float(eps), y.data_ptr(), rstd.data_ptr(), device,
                                _cuda_stream_handle(device))
    return y, rstd


def rms_norm_by_passes(x, weight, eps):
    """rms_norm_forward as whole-tensor passes (CPU tensors; the definition detred::cuda::rms_norm_rows follows)."""
    rows, cols = _last_dim_rows(x)
    rstd = _rsqrt(divide(row_dots(rows, rows), cols) + eps)
    y = rows * rstd.unsqueeze(1)
    if weight is not None:
        y.mul_(weight.to(rows.dtype))
    return y.reshape(x.shape).to(x.dtype), rstd


def rms_norm_backward(grad, x, weight, rstd):
    """dx = g' * rstd - x * (rstd^3 * dot(g', x) / n) with g' = grad * weight (dot: detred's, per row); dweight =
    detred's column sums of grad * (x * rstd)."""
    rows, cols = _last_dim_rows(x)
    g, _ = _last_dim_rows(grad)
    r = rstd.unsqueeze(1)
    gw = g * weight.to(g.dtype) if weight is not None else g
    projection = row_dots(gw, rows)
    dx = gw * r - rows * divide((rstd * rstd * rstd) * projection, cols).unsqueeze(1)
    dweight = column_sums(g * (rows * r)).to(weight.dtype) if weight is not None else None
    return dx.reshape(x.shape).to(x.dtype), dweight


def layer_norm_forward(x, weight, bias, eps):
    """y = (x - mean) * (1 / sqrt(var + eps)) * weight + bias over the last dim; mean = detred's row sum / n, var =
    detred's dot of the centred row with itself / n (biased). Returns y, the row means and 1 / sqrt(var + eps)
    (accumulation dtype). On the CPU the module computes it a row at a time (its _layer_norm_rows: the same
    roundings as layer_norm_by_passes, one pass over memory instead of five); on CUDA, by passes."""
    if x.device.type != "cpu" or not x.numel():
        return layer_norm_by_passes(x, weight, bias, eps)
    rows = _last_dim_rows(x)[0].detach().contiguous()
    y = torch.empty_like(rows)
    mean = torch.empty(rows.shape[0], dtype=rows.dtype)
    rstd = torch.empty(rows.shape[0], dtype=rows.dtype)
    vectors = [None if v is None else v.detach().to(rows.dtype).contiguous().reshape(-1).numpy()
               for v in (weight, bias)]
    _detred._layer_norm_rows(rows.numpy(), vectors[0], vectors[1], float(eps), y.numpy(), mean.numpy(), rstd.numpy())
    return y.reshape(x.shape).to(x.dtype), mean, rstd


def layer_norm_by_passes(x, weight, bias, eps):
    """layer_norm_forward as whole-tensor passes (CUDA tensors; the definition the CPU's row-at-a-time form follows)."""
    rows, cols = _last_dim_rows(x)
    mean = divide(row_sums(rows), cols)
    y = rows - mean.unsqueeze(1)
    rstd = _rsqrt(divide(row_dots(y, y), cols) + eps)
    y.mul_(rstd.unsqueeze(1))
    if weight is not None:
        y.mul_(weight.to(y.dtype))
    if bias is not None:
        y.add_(bias.to(y.dtype))
    return y.reshape(x.shape).to(x.dtype), mean, rstd


def layer_norm_backward(grad, x, weight, mean, rstd, has_bias):
    """dx = rstd / n * (n g' - sum(g') - xhat dot(g', xhat)) with g' = grad * weight and xhat the normalized x;
    dweight and dbias: detred's column sums of grad * xhat and of grad."""
    rows, cols = _last_dim_rows(x)
    g, _ = _last_dim_rows(grad)
    r = rstd.unsqueeze(1)
    xhat = (rows - mean.unsqueeze(1)) * r
    gw = g * weight.to(g.dtype) if weight is not None else g
    total = row_sums(gw).unsqueeze(1)
    projection = row_dots(gw, xhat).unsqueeze(1)
    dx = divide(r, cols) * (gw * cols - total - xhat * projection)
    dweight = column_sums(g * xhat).to(weight.dtype) if weight is not None else None
    dbias = column_sums(g).to(x.dtype) if has_bias else None
    return dx.reshape(x.shape).to(x.dtype), dweight, dbias


# Prefix sums ----------------------------------------------------------------------------------------------------------


def cumsum_available():
    """True when this build of detred has detred.cumsum (the prefix sums the cumsum operator calls)."""
    import detred
    return hasattr(detred, "cumsum")


def cumsum_forward(x, dim):
    """detred.cumsum along dim: a CUDA tensor on its GPU (detred::cuda::cumsum), a CPU tensor on the host; the same
    bits either way. 16-bit inputs are scanned in float32 and rounded to their dtype once per output."""
    import detred
    if not hasattr(detred, "cumsum"):
        raise NotImplementedError("detred.torch.cumsum needs detred.cumsum, which this build of detred lacks")
    ndim = max(x.dim(), 1)
    dim = dim % ndim
    if x.device.type == "cuda":
        flat = x.detach().reshape(x.shape if x.dim() else (1,))
        return detred.cumsum(flat, axis=dim).reshape(x.shape).to(x.dtype)
    host = x.detach().to("cpu", accumulation_dtype(x.dtype)).contiguous()
    result = detred.cumsum(host.numpy() if x.dim() else host.reshape(1).numpy(), axis=dim)
    return torch.from_numpy(result).reshape(x.shape).to(x.device, x.dtype)
