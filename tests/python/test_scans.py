# SPDX-License-Identifier: BSD-3-Clause
# detred.cumsum and detred.exclusive_cumsum: every output bit for bit the C++ library's (every dtype, both modes,
# sizes around the leaf boundaries), each output that of its prefix alone, the same bits for every thread count and
# layout; NumPy's semantics (axis=None flattens, one axis, result dtypes, out=, in place); and the errors.
import numpy as np
import pytest

import detred
from conftest import MODES, Bfloat16Tensor, bfloat16_bits, bits, values

SCAN_SIZES = [0, 1, 2, 63, 2047, 2048, 2049, 4097, 3 * 4096 + 5, 100003]
ALL_DTYPES = [np.float64, np.float32, np.float16, np.int32, np.int64, np.uint32, np.uint64]
OUT_DTYPES = {np.dtype(np.float64): np.float64, np.dtype(np.float32): np.float32, np.dtype(np.float16): np.float32,
              np.dtype(np.int32): np.int64, np.dtype(np.int64): np.int64, np.dtype(np.uint32): np.uint64,
              np.dtype(np.uint64): np.uint64}
SCANS = ["cumsum", "exclusive_cumsum"]


def scan(op, a, **kwargs):
    return getattr(detred, op)(a, **kwargs)


@pytest.mark.parametrize("op", SCANS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("mode", MODES)
def test_every_output_is_the_cxx_librarys(cxx, op, dtype, mode):
    for n in SCAN_SIZES:
        x = values(n, dtype, seed=n + 3)
        y = scan(op, x, mode=mode)
        assert y.dtype == OUT_DTYPES[np.dtype(dtype)] and y.shape == (n,)
        assert y.tobytes() == cxx(op, x, mode=mode), (op, n)


@pytest.mark.parametrize("op", SCANS)
def test_bfloat16_through_dlpack_is_the_cxx_librarys(cxx, op):
    for n in [1, 4097, 10000]:
        b = bfloat16_bits(values(n, np.float32, seed=n))
        y = scan(op, Bfloat16Tensor(b), mode="compensated")
        assert y.dtype == np.float32
        assert y.tobytes() == cxx(op, b, mode="compensated", type_code="bf16")


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("mode", MODES)
def test_each_output_is_that_of_its_prefix_and_threads_change_nothing(dtype, mode):
    x = values(3 * 4096 + 5, dtype, seed=9)
    y = detred.cumsum(x, mode=mode)
    for i in [0, 1, 2046, 2047, 2048, 4095, 4096, 8191, len(x) - 1]:
        assert bits(detred.cumsum(x[: i + 1], mode=mode)[-1], dtype) == bits(y[i], dtype), i
    for threads in [1, 2, 3, 8]:
        assert detred.cumsum(x, mode=mode, threads=threads).tobytes() == y.tobytes()
    # The last output is close to the sum (a different expression tree, so not its bits).
    assert abs(float(y[-1]) - float(detred.sum(x, mode="exact" if dtype == np.float64 else "tree"))) <= (
        1e-3 * float(np.sum(np.abs(x.astype(np.float64)))))


def test_integer_scans_are_exact_as_numpy():
    for dtype in [np.int32, np.int64, np.uint32, np.uint64]:
        x = values(5000, dtype, seed=4)
        assert np.array_equal(detred.cumsum(x), np.cumsum(x.astype(OUT_DTYPES[np.dtype(dtype)])))
        ex = detred.exclusive_cumsum(x)
        assert ex[0] == 0 and np.array_equal(ex[1:], detred.cumsum(x)[:-1])


def test_exclusive_is_the_inclusive_shifted_by_one():
    x = values(5000, np.float64, seed=5)
    y = detred.cumsum(x)
    e = detred.exclusive_cumsum(x)
    assert bits(e[0], np.float64) == bits(-0.0, np.float64)
    assert e[1:].tobytes() == y[:-1].tobytes()


def test_axis_none_flattens_in_c_order():
    a = values(12 * 7, np.float64, seed=6).reshape(12, 7)
    y = detred.cumsum(a)
    assert y.shape == (84,)
    assert y.tobytes() == detred.cumsum(a.ravel()).tobytes()
    f = np.asfortranarray(a)
    assert detred.cumsum(f).tobytes() == y.tobytes()  # C order, whatever the layout
    assert detred.cumsum(np.float64(2.5)).shape == (1,)


@pytest.mark.parametrize("op", SCANS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, np.int32, np.uint64])
def test_each_line_along_an_axis_is_the_one_array_call(op, dtype):
    base = values(30 * 41 * 5, dtype, seed=7)
    arrays = [base.reshape(30, 205), np.asfortranarray(base.reshape(30, 205)), base.reshape(30, 205)[::2, 3::4],
              base.reshape(205, 30).T, base.reshape(30, 41, 5)]
    for a in arrays:
        for axis in range(-a.ndim, a.ndim):
            y = scan(op, a, axis=axis)
            assert y.shape == a.shape and y.dtype == OUT_DTYPES[np.dtype(dtype)]
            lines_in = np.moveaxis(a, axis, -1).reshape(-1, a.shape[axis])
            lines_out = np.moveaxis(y, axis, -1).reshape(-1, a.shape[axis])
            for k in range(0, lines_in.shape[0], max(1, lines_in.shape[0] // 7)):
                want = scan(op, np.ascontiguousarray(lines_in[k]))
                assert np.ascontiguousarray(lines_out[k]).tobytes() == want.tobytes(), (a.shape, axis, k)


def test_empty_and_one_element_arrays():
    assert detred.cumsum(np.zeros(0)).shape == (0,)
    assert detred.cumsum(np.zeros((3, 0)), axis=0).shape == (3, 0)
    assert detred.cumsum(np.zeros((0, 4), np.int32), axis=1).dtype == np.int64
    assert detred.exclusive_cumsum(np.array([7.0])).tobytes() == np.array([-0.0]).tobytes()


def test_out_is_written_and_returned():
    x = values(5000, np.float64, seed=8)
    out = np.empty(5000)
    assert detred.cumsum(x, out=out) is out
    assert out.tobytes() == detred.cumsum(x).tobytes()
    # A strided out gets the values too.
    wide = np.zeros(10000)
    detred.cumsum(x, out=wide[::2])
    assert wide[::2].tobytes() == out.tobytes()
    # In place.
    z = x.copy()
    assert detred.cumsum(z, out=z) is z
    assert z.tobytes() == out.tobytes()
    a = values(40 * 30, np.float32, seed=9).reshape(40, 30)
    want = detred.cumsum(a, axis=0)
    b = a.copy()
    detred.cumsum(b, axis=0, out=b)
    assert b.tobytes() == want.tobytes()
    # An out that overlaps the input without being it: the result as if out were apart.
    c = values(101, np.float64, seed=10)
    expected = detred.cumsum(c[1:])
    detred.cumsum(c[1:], out=c[:-1])
    assert c[:-1].tobytes() == expected.tobytes()
    h = values(100, np.float16, seed=11)
    out32 = np.empty(100, np.float32)
    assert detred.exclusive_cumsum(h, out=out32) is out32


def test_out_errors():
    x = np.arange(10.0)
    with pytest.raises(TypeError, match="out has dtype float32, the result is float64"):
        detred.cumsum(x, out=np.empty(10, np.float32))
    with pytest.raises(TypeError, match="out has dtype float16"):
        detred.cumsum(x.astype(np.float16), out=np.empty(10, np.float16))
    with pytest.raises(ValueError, match=r"out has shape \(9,\), the result \(10,\)"):
        detred.cumsum(x, out=np.empty(9))
    with pytest.raises(TypeError, match="out must be a numpy.ndarray"):
        detred.cumsum(x, out=[0.0] * 10)
    ro = np.empty(10)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        detred.cumsum(x, out=ro)


def test_argument_errors():
    x = np.arange(10.0)
    with pytest.raises(ValueError, match="mode exact is not available"):
        detred.cumsum(x, mode="exact")
    with pytest.raises(ValueError, match="mode must be"):
        detred.cumsum(x, mode="fast")
    with pytest.raises(ValueError, match="threads"):
        detred.cumsum(x, threads=-1)
    with pytest.raises(np.exceptions.AxisError if hasattr(np, "exceptions") else np.AxisError):
        detred.cumsum(x, axis=1)
    with pytest.raises(TypeError, match="tuple"):
        detred.cumsum(x.reshape(2, 5), axis=(0, 1))
    with pytest.raises(TypeError, match=r"detred.cumsum supports .*; got dtype bool \(convert with"):
        detred.cumsum(np.ones(3, bool))
    with pytest.raises(TypeError, match="int8"):
        detred.exclusive_cumsum(np.ones(3, np.int8))
    with pytest.raises(TypeError, match="masked"):
        detred.cumsum(np.ma.masked_array([1.0, 2.0], mask=[False, True]))
    with pytest.raises(OverflowError, match="output 1"):
        detred.cumsum(np.array([np.iinfo(np.int64).max, 1], np.int64))


def test_gpu_arrays_of_an_unknown_library_are_refused():
    class FakeCudaArray:
        __cuda_array_interface__ = {"shape": (3,), "typestr": "<f8", "data": (0, True), "version": 3}

    with pytest.raises(TypeError, match="CuPy array or a PyTorch CUDA tensor"):
        detred.cumsum(FakeCudaArray())


def _cuda_torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available() or not detred.cuda_available():
        pytest.skip("needs a CUDA device, a CUDA PyTorch and detred's CUDA backend")
    return torch


GPU_DTYPES = ["float64", "float32", "float16", "bfloat16", "int32", "int64"]


@pytest.mark.parametrize("op", SCANS)
@pytest.mark.parametrize("dtype", GPU_DTYPES)
@pytest.mark.parametrize("mode", MODES)
def test_cuda_tensors_give_the_cpus_bits(op, dtype, mode):
    torch = _cuda_torch()
    for n in [0, 1, 2047, 2048, 2049, 100003]:
        g = torch.Generator().manual_seed(n)
        if dtype.startswith("int"):
            x = torch.randint(-1000, 1000, (n,), generator=g, dtype=getattr(torch, dtype))
        else:
            x = (torch.rand(n, generator=g, dtype=torch.float64) * 2 - 1).to(getattr(torch, dtype))
        on_cpu = scan(op, x, mode=mode)  # a CPU tensor: the host scan, NumPy out
        on_gpu = scan(op, x.cuda(), mode=mode)
        assert on_gpu.device.type == "cuda" and on_gpu.shape == (n,)
        got = on_gpu.cpu().numpy()
        assert got.dtype == on_cpu.dtype
        assert got.tobytes() == on_cpu.tobytes(), f"{op} {dtype} {mode} n={n}"


@pytest.mark.parametrize("op", SCANS)
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_cuda_tensors_along_an_axis_and_into_out(op, axis):
    torch = _cuda_torch()
    x = torch.rand(37, 3001, generator=torch.Generator().manual_seed(5), dtype=torch.float32)
    expected = scan(op, x.numpy(), axis=axis)
    got = scan(op, x.cuda(), axis=axis)
    assert got.cpu().numpy().tobytes() == expected.tobytes()
    out = torch.empty(expected.shape, dtype=torch.float32, device="cuda")
    assert scan(op, x.cuda(), axis=axis, out=out) is out
    assert out.cpu().numpy().tobytes() == expected.tobytes()


def test_lists_and_special_values():
    y = detred.cumsum([1.0, np.inf, -np.inf, 2.0])
    assert y[0] == 1.0 and y[1] == np.inf and np.isnan(y[2]) and np.isnan(y[3])
    assert detred.cumsum([1, 2, 3]).dtype == np.int64
