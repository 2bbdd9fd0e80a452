# SPDX-License-Identifier: BSD-3-Clause
# detred.torch (docs/torch.md): batch invariance as a property, equality with detred's own results, gradcheck in
# double, deterministic backward passes, enable()/disable(), and CPU == GPU (run where CUDA and detred's CUDA backend
# are; skipped otherwise). The whole file skips, with its reason, without PyTorch.
import numpy as np
import pytest

import detred

torch = pytest.importorskip("torch", reason="PyTorch is not installed (tools/setup.sh installs python3-torch)")
import detred.torch as dt  # noqa: E402

FLOAT_DTYPES = [torch.float64, torch.float32, torch.bfloat16, torch.float16]
GPU = torch.cuda.is_available() and detred.cuda_available()
needs_gpu = pytest.mark.skipif(not GPU, reason="no CUDA device for PyTorch and detred's CUDA backend")
needs_cumsum = pytest.mark.skipif(not dt.cumsum_available(),
                                  reason="this build of detred has no detred.cumsum (the scan bindings)")
# Batch sizes from 1 to 4096: the ends, powers of two and their neighbours, odd sizes.
BATCHES = [1, 2, 3, 5, 31, 64, 127, 1000, 4096]
ROW = 1000  # row length: several SIMD rows and a ragged tail, small enough for 4096 rows in a test


def bits(t):
    """The bytes of a tensor's elements (sign of zero and NaN payloads included)."""
    t = t.detach().cpu().contiguous()
    view = {8: torch.int64, 4: torch.int32, 2: torch.int16}[t.element_size()]
    return t.view(view).numpy().tobytes()


def nan_canonical(t):
    """t with every NaN replaced by one NaN (for results whose NaN payloads are not specified)."""
    return torch.where(torch.isnan(t), torch.full_like(t, float("nan")), t)


def data(shape, dtype=torch.float32, seed=0):
    """Values of mixed sign and magnitude (2^-20..2^20), so that the order of the additions shows in the bits."""
    g = torch.Generator().manual_seed(seed)
    mantissa = torch.rand(shape, generator=g, dtype=torch.float64) + 1
    exponent = torch.randint(-20, 21, shape, generator=g).to(torch.float64)
    sign = torch.randint(0, 2, shape, generator=g).to(torch.float64) * 2 - 1
    return (mantissa * torch.exp2(exponent) * sign).to(dtype)


def unit_data(shape, dtype=torch.float32, seed=0):
    """Values near 1 in magnitude (for the normalizations, whose rows should not be dominated by one element)."""
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)


def row_results(dtype):
    """(name, function of a (rows, ROW) batch giving one result row per batch row) for every row-wise operator."""
    weight = unit_data((ROW,), dtype, seed=7)
    bias = unit_data((ROW,), dtype, seed=8)
    return [
        ("sum", lambda b: dt.sum(b, dim=-1, keepdim=True)),
        ("mean", lambda b: dt.mean(b, dim=1, keepdim=True)),
        ("rms_norm", lambda b: dt.rms_norm(b, weight)),
        ("layer_norm", lambda b: dt.layer_norm(b, weight, bias)),
        ("segment_sum", lambda b: dt.segment_sum(b.t(), offsets=torch.tensor([0, 17, 17, ROW])).t()),
    ]


# Batch invariance ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float64])
def test_row_results_do_not_depend_on_the_batch(dtype):
    """A row's result is bit-identical alone, in batches of 1 to 4096 at any position among other rows, and in a
    padded (strided) batch."""
    probe = unit_data((1, ROW), dtype, seed=1) * 3
    rng = np.random.default_rng(5)
    for name, op in row_results(dtype):
        alone = bits(op(probe)[0])
        for batch in BATCHES:
            at = int(rng.integers(0, batch))
            others = unit_data((batch, ROW), dtype, seed=batch) * float(rng.uniform(0.5, 1e3))
            others[at] = probe[0]
            assert bits(op(others)[at]) == alone, (name, batch, at)
            padded = torch.zeros((batch, ROW + 13), dtype=dtype)
            padded[:, :ROW] = others
            padded[:, ROW:] = 1e30
            assert bits(op(padded[:, :ROW])[at]) == alone, (name, batch, at, "padded")


def test_sum_over_several_dims_does_not_depend_on_the_kept_ones():
    """sum over dims (0, 2) of a 3-D tensor: each kept element is the sum of its (0, 2) slab, whatever else is
    there."""
    x = data((6, 5, 300), seed=2)
    full = dt.sum(x, dim=(0, 2))
    for j in range(5):
        assert bits(full[j]) == bits(dt.sum(x[:, j:j + 1, :], dim=(0, 2))[0])
        assert bits(full[j]) == bits(torch.tensor(detred.sum(x[:, j, :].contiguous().numpy())))


def test_a_target_of_index_add_does_not_depend_on_the_other_targets():
    """Target j gets self[j] + the sum of its contributions in index order: adding contributions to other targets,
    in between and in any number, leaves it unchanged."""
    rng = np.random.default_rng(3)
    own = data((50, 8), seed=3)
    alone = dt.index_add(torch.ones(1, 8), 0, torch.zeros(50, dtype=torch.int64), own)
    for targets in [1, 2, 17, 4096]:
        extra = int(rng.integers(0, 3000)) if targets > 1 else 0
        keys = torch.from_numpy(rng.integers(1, targets, extra) if targets > 1 else np.zeros(0, np.int64))
        where = torch.from_numpy(np.sort(rng.choice(50 + extra, 50, replace=False)))
        index = torch.empty(50 + extra, dtype=torch.int64)
        source = torch.empty(50 + extra, 8)
        mask = torch.zeros(50 + extra, dtype=torch.bool)
        mask[where] = True
        index[mask], source[mask] = 0, own
        index[~mask], source[~mask] = keys, data((extra, 8), seed=targets)
        result = dt.index_add(torch.ones(targets, 8), 0, index, source)
        assert bits(result[0]) == bits(alone[0]), targets


# Equality with detred's own results ------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_sum_and_mean_are_detred_sums(dtype):
    x = data((7, 4099), dtype, seed=4)
    sums, means = dt.sum(x, dim=1), dt.mean(x, dim=1)
    for r in range(7):
        row = x[r].float() if dtype in (torch.float16, torch.bfloat16) else x[r]
        s = detred.sum(row.numpy())  # 16-bit: widened exactly, as detred.sum of the 16-bit values does
        assert bits(sums[r]) == bits(torch.tensor(s).to(dtype)), r
        assert bits(means[r]) == bits((torch.tensor(s) / 4099).to(dtype)), r
    assert bits(dt.sum(x)) == bits(torch.tensor(detred.sum(x.reshape(-1).float().numpy() if x.element_size() == 2
                                                           else x.reshape(-1).numpy())).to(dtype))


def test_sixteen_bit_sums_match_detred_sum_of_the_sixteen_bit_array():
    """bfloat16 reaches detred.sum through DLPack: the operator's float32 sum, rounded once, is detred's."""
    x = data((3, 5000), torch.bfloat16, seed=5)
    for r in range(3):
        assert bits(dt.sum(x[r])) == bits(torch.tensor(detred.sum(x[r])).to(torch.bfloat16))


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_index_add_and_scatter_add_are_sums_by_key_in_index_order(dtype):
    rng = np.random.default_rng(6)
    target = data((40, 3), dtype, seed=6)
    index = torch.from_numpy(rng.integers(0, 40, 2000))
    source = data((2000, 3), dtype, seed=7)
    result = dt.index_add(target, 0, index, source)
    scattered = dt.scatter_add(target, 0, index.reshape(-1, 1).expand(2000, 3).contiguous(), source)
    for j in range(40):
        for c in range(3):
            s = detred.sum(source[index == j, c].contiguous().numpy())
            expected = bits(target[j, c] + torch.tensor(s))
            assert bits(result[j, c]) == expected, (j, c)
            assert bits(scattered[j, c]) == expected, (j, c)
    # alpha scales each contribution before the sum; index_add along another dim
    scaled = dt.index_add(target.t(), 1, index, source.t(), alpha=0.5)
    j = int(index[0])
    assert bits(scaled[1, j]) == bits(target[j, 1] + torch.tensor(detred.sum((source[index == j, 1] * 0.5).numpy())))


def test_scatter_add_uses_only_the_part_of_src_that_index_covers():
    src = data((5, 6), seed=8)
    index = torch.tensor([[0, 1, 2], [2, 2, 0]])
    out = dt.scatter_add(torch.zeros(3, 6), 0, index, src)
    assert bits(out) == bits(torch.zeros(3, 6).scatter_add(0, index, src))  # two contributions at most: exact


def test_segment_sum_is_detred_sum_of_each_segment():
    values = data((1000, 2), seed=9)
    offsets = torch.tensor([3, 3, 400, 999])
    out = dt.segment_sum(values, offsets=offsets)
    for k in range(3):
        for c in range(2):
            seg = values[int(offsets[k]):int(offsets[k + 1]), c].contiguous().numpy()
            assert bits(out[k, c]) == bits(torch.tensor(detred.sum(seg))), (k, c)
    assert bits(dt.segment_sum(values, lengths=[3, 0, 397])) == bits(
        dt.segment_sum(values, offsets=torch.tensor([0, 3, 3, 400])))
    assert bits(out[0]) == bits(torch.tensor([-0.0, -0.0]))  # an empty segment is detred's empty sum


def test_rms_norm_and_layer_norm_statistics_are_detred_sums_and_dots():
    x = unit_data((4, 3001), seed=10)
    w, b = unit_data((3001,), seed=11), unit_data((3001,), seed=12)
    eps = np.float32(1e-6)
    y, ln = dt.rms_norm(x, w, eps=1e-6), dt.layer_norm(x, w, b, eps=1e-5)
    for r in range(4):
        row = x[r].numpy()
        # 1 / sqrt in float64, rounded once (docs/torch.md); the division by n is float32's, correctly rounded.
        rstd = np.float32(1 / np.sqrt(np.float64(detred.dot(row, row) / np.float32(3001) + eps)))
        assert bits(y[r]) == bits(torch.from_numpy(row * rstd * w.numpy())), r
        mean = detred.sum(row) / np.float32(3001)
        centred = row - mean
        rstd = np.float32(1 / np.sqrt(np.float64(detred.dot(centred, centred) / np.float32(3001) + np.float32(1e-5))))
        assert bits(ln[r]) == bits(torch.from_numpy(centred * rstd * w.numpy() + b.numpy())), r
    # and close to PyTorch's own
    assert torch.allclose(ln, torch.nn.functional.layer_norm(x, (3001,), w, b), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_layer_norm_row_at_a_time_has_the_bits_of_the_passes(dtype):
    # The CPU's layer_norm forward (the module's _layer_norm_rows) against the definition as tensor passes, which the
    # GPU runs: every shape class, with and without weight and bias, special values in some rows.
    from detred.torch import _kernels as K
    for shape in [(1, 1), (3, 7), (5, 1000), (2, 3, 2049), (4, 8192)]:
        x = unit_data(shape, dtype, 95)
        flat = x.view(-1, shape[-1])
        if flat.shape[0] > 2:
            flat[1, 0], flat[2, -1] = float("inf"), float("nan")
            flat[0] = 0.0
        w, b = unit_data(shape[-1:], dtype, 96), unit_data(shape[-1:], dtype, 97)
        for weight, bias in [(None, None), (w, None), (w, b)]:
            fused = K.layer_norm_forward(x, weight, bias, 1e-5)
            passes = K.layer_norm_by_passes(x, weight, bias, 1e-5)
            for f, p in zip(fused, passes):  # NaN payloads are not specified (docs/torch.md): compared as NaN
                assert bits(nan_canonical(f)) == bits(nan_canonical(p)), (shape, weight is None, bias is None)


def test_divisions_by_a_count_are_the_correctly_rounded_quotients():
    # divide forms float32 quotients in float64 and rounds them once: that must be float32's own division, bit for
    # bit, by the count as float32 holds it (2^24 + 1 is not a float32).
    from detred.torch import _kernels as K
    for dtype, np_type in ((torch.float32, np.float32), (torch.float64, np.float64)):
        x = data((20000,), dtype, 90)
        for n in (3, 7, 3001, 2**24 + 1, 10**9 + 7):
            assert bits(K.divide(x, n)) == bits(torch.from_numpy(x.numpy() / np_type(n))), (dtype, n)


@needs_cumsum
def test_cumsum_is_detred_cumsum():
    x = data((3, 700), seed=13)
    for dim in (0, 1):
        expected = detred.cumsum(x.numpy(), axis=dim)
        assert bits(dt.cumsum(x, dim)) == bits(torch.from_numpy(np.asarray(expected)))


def test_cumsum_without_detred_cumsum_says_what_is_missing():
    if dt.cumsum_available():
        pytest.skip("this build has detred.cumsum")
    with pytest.raises(NotImplementedError, match="detred.cumsum"):
        dt.cumsum(torch.ones(3), 0)


def test_cumsum_wiring_with_a_stand_in(monkeypatch):
    """Until detred.cumsum lands (the scan bindings), a NumPy stand-in with its signature checks that the operator, its
    backward (prefix sums of the reversed gradient) and enable() call it as documented."""
    if dt.cumsum_available():
        pytest.skip("this build has detred.cumsum: test_cumsum_is_detred_cumsum checks the real one")
    calls = []

    def stand_in(x, axis=None, mode="tree", out=None):
        calls.append((x.dtype, axis))
        return np.cumsum(x, axis=axis)

    monkeypatch.setattr(detred, "cumsum", stand_in, raising=False)
    x = data((3, 50), seed=15).requires_grad_()
    y = dt.cumsum(x, 1)
    assert bits(y) == bits(torch.from_numpy(np.cumsum(x.detach().numpy(), axis=1)))
    g = data((3, 50), seed=16)
    y.backward(g)
    assert bits(x.grad) == bits(torch.from_numpy(np.cumsum(g.numpy()[:, ::-1], axis=1)[:, ::-1].copy()))
    assert calls == [(np.float32, 1), (np.float32, 1)]
    assert bits(dt.cumsum(x.detach().bfloat16(), 0)) == bits(
        torch.from_numpy(np.cumsum(x.detach().bfloat16().float().numpy(), axis=0)).bfloat16())
    assert (torch, "cumsum") in dt.covered() and (torch.Tensor, "cumsum") in dt.covered()
    with dt.enabled():
        assert bits(torch.cumsum(x.detach(), 1)) == bits(y)
        assert bits(x.detach().cumsum(dim=1)) == bits(y)
        assert torch.cumsum(torch.arange(4), 0).tolist() == [0, 1, 3, 6]  # integers: PyTorch's
    assert torch.autograd.gradcheck(lambda t: dt.cumsum(t, 1), (_double((3, 6), 33),))


def test_registered_operators():
    for name in ("sum", "mean", "index_add", "scatter_add", "segment_sum", "cumsum", "rms_norm", "layer_norm"):
        assert hasattr(torch.ops.detred, name)
    x = data((3, 50), seed=14)
    assert bits(torch.ops.detred.sum(x, [1], False)) == bits(dt.sum(x, 1))


def test_bad_arguments():
    with pytest.raises(IndexError):
        dt.index_add(torch.zeros(3), 0, torch.tensor([0, 3]), torch.ones(2))
    with pytest.raises(IndexError):
        dt.scatter_add(torch.zeros(3), 0, torch.tensor([-1]), torch.ones(1))
    with pytest.raises(ValueError, match="non-decreasing"):
        dt.segment_sum(torch.ones(4), offsets=torch.tensor([0, 3, 2]))
    with pytest.raises(ValueError, match="non-decreasing"):
        dt.segment_sum(torch.ones(4), offsets=torch.tensor([0, 5]))
    with pytest.raises(TypeError, match="float64, float32"):
        dt.sum(torch.ones(3, dtype=torch.int32))
    with pytest.raises(TypeError, match="dtype"):
        dt.index_add(torch.zeros(3), 0, torch.tensor([0]), torch.ones(1, dtype=torch.float64))


# Autograd --------------------------------------------------------------------------------------------------------------


def _double(shape, seed):
    return unit_data(shape, torch.float64, seed).requires_grad_()


def test_gradcheck_every_operator():
    x = _double((3, 5), 20)
    index = torch.tensor([2, 0, 2, 1])
    assert torch.autograd.gradcheck(lambda t: dt.sum(t, dim=1), (x,))
    assert torch.autograd.gradcheck(lambda t: dt.sum(t, dim=(0, 1), keepdim=True), (x,))
    assert torch.autograd.gradcheck(lambda t: dt.mean(t, dim=0), (x,))
    assert torch.autograd.gradcheck(lambda t: dt.mean(t), (x,))
    assert torch.autograd.gradcheck(lambda s, src: dt.index_add(s, 0, index, src, alpha=1.5),
                                    (_double((3, 5), 21), _double((4, 5), 22)))
    scatter_index = torch.tensor([[0, 2, 1, 0, 2], [1, 1, 0, 2, 2]])
    assert torch.autograd.gradcheck(lambda s, src: dt.scatter_add(s, 0, scatter_index, src),
                                    (_double((3, 5), 23), _double((4, 5), 24)))
    assert torch.autograd.gradcheck(lambda v: dt.segment_sum(v, offsets=torch.tensor([1, 1, 3, 5])),
                                    (_double((6, 2), 25),))
    assert torch.autograd.gradcheck(lambda t, w: dt.rms_norm(t, w), (_double((3, 7), 26), _double((7,), 27)))
    assert torch.autograd.gradcheck(lambda t: dt.rms_norm(t), (_double((2, 7), 28),))
    assert torch.autograd.gradcheck(lambda t, w, b: dt.layer_norm(t, w, b),
                                    (_double((3, 7), 29), _double((7,), 30), _double((7,), 31)))
    assert torch.autograd.gradcheck(lambda t: dt.layer_norm(t), (_double((2, 7), 32),))
    assert torch.autograd.gradcheck(lambda t: dt.index_select(t, 0, torch.tensor([2, 0, 2, 2])), (_double((3, 4), 34),))
    assert torch.autograd.gradcheck(lambda t: dt.gather(t, 1, torch.tensor([[0, 0, 3], [1, 1, 1]])),
                                    (_double((2, 4), 35),))


def test_the_backward_of_a_gather_is_detred_scatter_add():
    """A row picked many times gets the detred sum of its gradients in index order."""
    ids = torch.from_numpy(np.random.default_rng(36).integers(0, 5, 3000))
    table = data((5, 4), seed=37).requires_grad_()
    g = data((3000, 4), seed=38)
    dt.index_select(table, 0, ids).backward(g)
    for r in range(5):
        assert bits(table.grad[r]) == bits(torch.from_numpy(detred.sum(g[ids == r].numpy(), axis=0)))


@needs_cumsum
def test_gradcheck_cumsum():
    assert torch.autograd.gradcheck(lambda t: dt.cumsum(t, 1), (_double((3, 6), 33),))


def _norm_grads(op, x, params, seed):
    x = x.detach().requires_grad_()
    params = [p.detach().requires_grad_() for p in params]
    y = op(x, *params)
    y.backward(unit_data(y.shape, y.dtype, seed))
    return x.grad, [p.grad for p in params]


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_backward_is_deterministic_and_row_local(dtype):
    """The normalizations' input gradients: the same bits on every run, and a row's gradient whatever the batch;
    the weight gradients (column sums over the batch): the same bits on every run."""
    w, b = unit_data((ROW,), dtype, 40), unit_data((ROW,), dtype, 41)
    for op, params in ((dt.rms_norm, [w]), (dt.layer_norm, [w, b])):
        x = unit_data((64, ROW), dtype, 42)
        first_dx, first_dp = _norm_grads(op, x, params, 43)
        for _ in range(3):
            dx, dp = _norm_grads(op, x, params, 43)
            assert bits(dx) == bits(first_dx)
            assert all(bits(p) == bits(q) for p, q in zip(dp, first_dp))
        g = unit_data((64, ROW), dtype, 43)
        for batch in (1, 7, 300):
            others = unit_data((batch, ROW), dtype, batch)
            others[batch // 2] = x[5]
            xs = others.requires_grad_()
            grads = torch.zeros(batch, ROW, dtype=dtype)
            grads[batch // 2] = g[5]
            op(xs, *params).backward(grads)
            assert bits(xs.grad[batch // 2]) == bits(first_dx[5]), (op.__name__, batch)


def _column_sum_cases(dtype):
    """Matrices for the normalizations' weight gradients: no rows, one, a leaf's worth and past it, a strided view,
    and special values (NaN, infinities, -0.0 columns)."""
    tall = data((3000, 17), dtype, 47)
    tall[5, 2], tall[9, 3], tall[:, 4] = float("nan"), float("inf"), -0.0
    tall[7, 6], tall[8, 6] = float("inf"), float("-inf")
    return [data((0, 5), dtype, 0), data((1, 7), dtype, 1), data((33, 3), dtype, 2), tall,
            data((40, 300), dtype, 48).t()]


def _each_columns_sum(matrix):
    return [bits(torch.from_numpy(np.asarray(detred.sum(matrix[:, j].contiguous().numpy()))).reshape(1))
            for j in range(matrix.shape[1])]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_column_sums_are_each_columns_detred_sum(dtype):
    """The weight gradients' column sums (read in place, no transposed copy) have each column's detred.sum bits."""
    for matrix in _column_sum_cases(dtype):
        sums = dt._kernels.column_sums(matrix)
        assert sums.dtype == dtype and sums.shape == (matrix.shape[1],)
        assert [bits(v.reshape(1)) for v in sums] == _each_columns_sum(matrix), tuple(matrix.shape)


@needs_gpu
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_gpu_column_sums_are_each_columns_detred_sum(dtype):
    for matrix in _column_sum_cases(dtype):
        sums = dt._kernels.column_sums(matrix.cuda())
        assert sums.device.type == "cuda" and sums.dtype == dtype and sums.shape == (matrix.shape[1],)
        assert [bits(v.reshape(1)) for v in sums] == _each_columns_sum(matrix), tuple(matrix.shape)


def test_scatter_add_backward_is_a_gather_and_sum_backward_a_broadcast():
    src = data((100, 4), seed=44).requires_grad_()
    index = torch.randint(0, 10, (100, 4), generator=torch.Generator().manual_seed(1))
    out = dt.scatter_add(torch.zeros(10, 4), 0, index, src)
    g = data((10, 4), seed=45)
    out.backward(g)
    assert bits(src.grad) == bits(g.gather(0, index))
    x = data((3, 4), seed=46).requires_grad_()
    dt.sum(x, dim=1).backward(torch.tensor([1.0, 2.0, 3.0]))
    assert bits(x.grad) == bits(torch.tensor([[1.0] * 4, [2.0] * 4, [3.0] * 4]))


# enable() / disable() --------------------------------------------------------------------------------------------------


def test_enable_replaces_the_covered_functions_and_disable_restores_them():
    originals = {(owner, name): getattr(owner, name) for owner, name in dt.covered()}
    assert {name for _, name in dt.covered()} >= {"sum", "mean", "index_add_", "scatter_add_"}
    x = data((5, 3000), seed=50)
    with dt.enabled():
        assert dt.is_enabled()
        for (owner, name), original in originals.items():
            assert getattr(owner, name) is not original, name
        assert bits(torch.sum(x, -1)) == bits(dt.sum(x, -1))
        assert bits(torch.sum(x, dim=1, keepdim=True)) == bits(dt.sum(x, 1, keepdim=True))
        assert bits(x.sum()) == bits(dt.sum(x))
        assert bits(torch.mean(x, (0, 1))) == bits(dt.mean(x))
        assert bits(x.mean(dim=0, dtype=torch.float32)) == bits(dt.mean(x, 0))
        t = torch.zeros(4, 3000)
        index = torch.tensor([3, 1, 3, 0, 3])
        t.index_add_(0, index, x, alpha=2)
        assert bits(t) == bits(dt.index_add(torch.zeros(4, 3000), 0, index, x, alpha=2))
        s = torch.zeros(4, 3000)
        si = index.reshape(-1, 1).expand(5, 3000).contiguous()
        s.scatter_add_(0, si, x)
        assert bits(s) == bits(dt.scatter_add(torch.zeros(4, 3000), 0, si, x))
    assert not dt.is_enabled()
    for (owner, name), original in originals.items():
        assert getattr(owner, name) is original, name


def test_enable_falls_through_to_pytorch_for_what_detred_does_not_take():
    dt.enable()
    dt.enable()  # twice changes nothing
    try:
        ints = torch.arange(10)
        assert int(torch.sum(ints)) == 45 and ints.sum().dtype == torch.int64
        x = data((4, 100), seed=51)
        out = torch.empty(4)
        torch.sum(x, 1, out=out)  # out=: PyTorch's
        assert torch.allclose(out, dt.sum(x, 1))
        assert torch.sum(x, 1, dtype=torch.float64).dtype == torch.float64  # another dtype: PyTorch's
        assert torch.sum(torch.ones(3, dtype=torch.complex64)).item() == 3
        assert torch.mean(torch.ones(2, 2, dtype=torch.float64), dim=0).dtype == torch.float64
        t = torch.zeros(3, dtype=torch.int64)
        t.index_add_(0, torch.tensor([0, 0]), torch.tensor([1, 2]))
        assert t.tolist() == [3, 0, 0]
        m = torch.zeros(3, dtype=torch.float32)
        m.index_add_(0, torch.tensor([0]), torch.ones(1, dtype=torch.float64).float())  # same dtype: detred's
        assert m.tolist() == [1.0, 0.0, 0.0]
    finally:
        dt.disable()
    assert not dt.is_enabled()


def test_enabled_keeps_an_earlier_enable():
    dt.enable()
    try:
        with dt.enabled():
            pass
        assert dt.is_enabled()
    finally:
        dt.disable()


def test_gradients_flow_through_the_replaced_functions():
    x = data((3, 4), seed=52).requires_grad_()
    with dt.enabled():
        torch.sum(x * 2).backward()
    assert bits(x.grad) == bits(torch.full((3, 4), 2.0))


# torch.compile (PyTorch 2.x) -------------------------------------------------------------------------------------------


def test_torch_compile_keeps_the_operators():
    if not hasattr(torch, "compile") or not hasattr(torch.library, "register_fake"):
        pytest.skip(f"PyTorch {torch.__version__} has no torch.compile with torch.library.register_fake")
    x = data((8, 300), seed=53)
    compiled = torch.compile(lambda t: dt.sum(t, dim=-1) * 2, backend="eager", fullgraph=False)
    assert bits(compiled(x)) == bits(dt.sum(x, dim=-1) * 2)


# CPU == GPU ------------------------------------------------------------------------------------------------------------


@needs_gpu
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_gpu_forward_and_backward_match_the_cpu(dtype):
    x = unit_data((257, 3001), dtype, 60)
    w, b = unit_data((3001,), dtype, 61), unit_data((3001,), dtype, 62)
    index = torch.from_numpy(np.random.default_rng(63).integers(0, 100, 257))
    target = unit_data((100, 3001), dtype, 64)
    offsets = torch.tensor([0, 5, 5, 200, 257])

    def run(device):
        xs = x.to(device).detach().requires_grad_()  # a leaf on either device (x.to("cpu") is x itself)
        ps = [p.to(device).detach().requires_grad_() for p in (w, b, target)]
        outs = [dt.sum(xs, -1), dt.mean(xs, 0), dt.rms_norm(xs, ps[0]), dt.layer_norm(xs, ps[0], ps[1]),
                dt.index_add(ps[2], 0, index.to(device), xs),
                dt.scatter_add(ps[2], 0, index.to(device).reshape(-1, 1).expand(257, 3001).contiguous(), xs),
                dt.segment_sum(xs, offsets=offsets.to(device))]
        loss = [o.float().sum() for o in outs]
        torch.autograd.backward(loss)
        return outs + [xs.grad] + [p.grad for p in ps]

    names = ["sum", "mean", "rms_norm", "layer_norm", "index_add", "scatter_add", "segment_sum", "x.grad", "w.grad",
             "b.grad", "target.grad"]
    differing = [names[k] for k, (c, g) in enumerate(zip(run("cpu"), run("cuda"))) if bits(c) != bits(g)]
    assert not differing, f"the GPU's bits differ from the CPU's in {differing}"


@needs_gpu
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_gpu_sums_over_the_last_dim_give_the_cpus_bits_on_every_route(dtype):
    # A contiguous CUDA tensor summed over its last dim outside autograd takes the short path (data pointers, torch's
    # current stream); with a gradient, under torch.compile or strided it takes the operator's route. All agree.
    x = data((3, 67, 2049), dtype, 80)
    x[0, 0, 5], x[1, 2, 7], x[2, 3, 0] = float("nan"), float("inf"), -0.0
    x[2, 5] = 1000.0  # a row whose sum rounds past float16's range, to infinity
    cpu_sums, cpu_means = dt.sum(x, -1), dt.mean(x, -1)
    g = x.cuda()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        on_side_stream = dt.sum(g, -1)
    torch.cuda.current_stream().wait_stream(side)
    sums = {
        "short path": dt.sum(g, -1),
        "dim as a list": dt.sum(g, [2]),
        "keepdim": dt.sum(g, 2, keepdim=True).squeeze(2),
        "with a gradient": dt.sum(g.clone().requires_grad_(), -1),
        "strided": dt.sum(g.transpose(0, 1).contiguous().transpose(0, 1), -1),
        "another stream": on_side_stream,
    }
    means = {"short path": dt.mean(g, -1), "with a gradient": dt.mean(g.clone().requires_grad_(), -1)}
    # NaN payloads of the 16-bit rounding are PyTorch's conversion's (docs/torch.md): compared as NaN there; float32
    # and float64 results are detred's own, canonical NaN included, compared as they are.
    if dtype in (torch.float16, torch.bfloat16):
        same = lambda a, b: bits(nan_canonical(a)) == bits(nan_canonical(b))  # noqa: E731
    else:
        same = lambda a, b: bits(a) == bits(b)  # noqa: E731
    differing = [name for name, t in sums.items() if not same(t, cpu_sums)]
    differing += ["mean, " + name for name, t in means.items() if not same(t, cpu_means)]
    assert not differing, f"the GPU's bits differ from the CPU's in {differing}"
    for row in (0, 66):  # a row alone (a batch of one) gives its bits in the batch
        assert same(dt.sum(g[1, row : row + 1], -1), cpu_sums[1, row : row + 1])


@needs_gpu
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_gpu_rms_norm_rows_give_the_cpus_bits(dtype):
    # detred::cuda::rms_norm_rows (the CUDA forward) against the CPU's passes: rows on both sides of the kernel's
    # 16-byte path (cols a multiple of the vector, the rows aligned) and the element path (odd cols, a misaligned
    # start), rows of one leaf and of several, more rows than the grid, special values, with and without a weight.
    shapes = [(3, 8), (5, 1), (2, 7), (4, 2048), (3, 2049), (2, 8192), (1, 65544), (70000, 8)]
    for k, (rows, cols) in enumerate(shapes):
        x = unit_data((rows, cols), dtype, 90 + k) * 3
        flat = x.view(-1)
        flat[:: max(1, flat.numel() // 5)] *= 2.0**-130 if dtype != torch.float16 else 2.0**-20  # subnormal in 32 and 16 bits
        if rows > 1:
            x[1, 0], x[rows - 1, cols - 1] = float("nan"), float("inf")
        x[0, 0] = -0.0
        weight = unit_data((cols,), dtype, 120 + k)
        for w in (weight, None):
            cpu_y = dt.rms_norm(x, w)
            g = x.cuda()
            gw = None if w is None else w.cuda()
            shifted = torch.cat([g.view(-1)[:1], g.view(-1)])[1:].view(rows, cols)  # one element past the allocation
            for name, gx in (("aligned", g), ("misaligned", shifted)):
                # NaN payloads: CUDA's arithmetic makes every NaN its canonical one, x86's keeps the operand's.
                y = dt.rms_norm(gx, gw)
                assert bits(nan_canonical(y)) == bits(nan_canonical(cpu_y)), (dtype, rows, cols, name, w is None)
    # The rstd the backward reads is the CPU's too.
    x = unit_data((6, 2048), dtype, 99)
    cpu = torch.ops.detred.rms_norm(x, None, 1e-6)
    gpu = torch.ops.detred.rms_norm(x.cuda(), None, 1e-6)
    assert bits(cpu[1]) == bits(gpu[1]) and bits(nan_canonical(cpu[0])) == bits(nan_canonical(gpu[0]))


@needs_gpu
def test_gpu_indices_outside_the_targets_are_index_errors():
    # The device checks the int64 keys as it narrows them: past the end, negative, and far past 2^32 (which narrowing
    # alone would wrap into a bin).
    for bad in (3, -1, 2**32 + 1):
        with pytest.raises(IndexError):
            dt.index_add(torch.zeros(3, device="cuda"), 0, torch.tensor([0, bad], device="cuda"),
                         torch.ones(2, device="cuda"))
        with pytest.raises(IndexError):
            dt.scatter_add(torch.zeros(3, device="cuda"), 0, torch.tensor([bad], device="cuda"),
                           torch.ones(1, device="cuda"))
    ok = dt.scatter_add(torch.zeros(3, device="cuda"), 0, torch.tensor([2, 0, 2], device="cuda"),
                        torch.tensor([1.0, 2.0, 3.0], device="cuda"))
    assert ok.tolist() == [2.0, 0.0, 4.0]


@needs_gpu
def test_gpu_scatter_add_large_and_skewed_matches_the_cpu():
    rng = np.random.default_rng(70)
    index = torch.from_numpy((rng.zipf(1.5, 1 << 20) % (1 << 14)).astype(np.int64))
    src = data((1 << 20,), torch.float32, 71)
    cpu = dt.scatter_add(torch.zeros(1 << 14), 0, index, src)
    gpu = dt.scatter_add(torch.zeros(1 << 14, device="cuda"), 0, index.cuda(), src.cuda())
    assert bits(cpu) == bits(gpu)


@needs_gpu
@needs_cumsum
def test_gpu_cumsum_matches_the_cpu():
    x = data((5, 999), seed=72)
    assert bits(dt.cumsum(x, 1)) == bits(dt.cumsum(x.cuda(), 1))


@needs_gpu
def test_gpu_on_a_side_stream():
    x = data((64, 4096), seed=73)
    expected = dt.sum(x, -1)
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        y = x.cuda(non_blocking=False)
        got = dt.sum(y * 1, -1) * 1
    torch.cuda.synchronize()
    assert bits(got) == bits(expected)
