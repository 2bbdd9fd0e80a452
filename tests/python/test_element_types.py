# SPDX-License-Identifier: BSD-3-Clause
# The element types beyond float64 and float32: exact integer sums and integer selections, float16 sums and dots
# (in float32), bfloat16 through DLPack; bits equal to the C++ library's, results typed as NumPy's reductions are,
# and where NumPy differs.
import numpy as np
import pytest

import detred
from conftest import (INTEGER_DTYPES, OP_SIZES, Bfloat16Tensor, CxxError, as_cxx_bytes, bfloat16_bits, bits,
                      values)

INTEGER_IDS = [np.dtype(t).name for t in INTEGER_DTYPES]


@pytest.mark.parametrize("n", OP_SIZES)
@pytest.mark.parametrize("op", ["sum", "min", "max", "argmin", "argmax"])
@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=INTEGER_IDS)
def test_integer_bits_equal_cxx(cxx, op, dtype, n):
    x = values(n, dtype)
    try:
        expected = cxx(op, x)
    except CxxError:
        with pytest.raises(ValueError, match="empty"):
            getattr(detred, op)(x)
        return
    for threads in [0, 1, 3]:
        assert as_cxx_bytes(op, getattr(detred, op)(x, threads=threads), dtype) == expected


@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=INTEGER_IDS)
def test_integer_results_follow_numpy(dtype):
    x = values(100003, dtype)
    s = detred.sum(x)
    assert type(s) is type(np.sum(x))  # int64 for int32 and int64, uint64 for uint32 and uint64
    assert int(s) == sum(int(v) for v in x)  # exact
    assert type(detred.min(x)) is dtype and detred.min(x) == np.min(x) and detred.max(x) == np.max(x)
    assert detred.argmin(x) == np.argmin(x) and detred.argmax(x) == np.argmax(x)
    m = x[:100000].reshape(100, 1000)
    assert np.array_equal(detred.sum(m, axis=1), np.sum(m, axis=1))
    assert detred.sum(m, axis=0).dtype == np.sum(m, axis=0).dtype
    assert np.array_equal(detred.max(m[::3, ::-7], axis=0), np.max(m[::3, ::-7], axis=0))


def test_integer_sums_are_exact_where_numpy_wraps_around():
    top = np.iinfo(np.int64).max
    x = np.array([top] * 5000 + [-top] * 5000 + [5], dtype=np.int64)  # every partial sum past the first overflows
    assert detred.sum(x) == 5 and detred.sum(x, threads=3) == 5
    with pytest.raises(OverflowError, match="the exact sum 9223372036854775808 does not fit in int64"):
        detred.sum(np.array([top, 1]))
    assert np.sum(np.array([top, 1])) == np.iinfo(np.int64).min  # NumPy wraps around, silently
    with pytest.raises(OverflowError, match="-9223372036854775809"):
        detred.sum(np.array([np.iinfo(np.int64).min, -1]))
    with pytest.raises(OverflowError, match="18446744073709551616 does not fit in uint64"):
        detred.sum(np.array([np.iinfo(np.uint64).max, 1], dtype=np.uint64))
    with pytest.raises(OverflowError):
        detred.sum(np.array([[top, 1], [0, 0]]), axis=1)
    assert detred.sum(np.full(70001, np.iinfo(np.uint32).max, dtype=np.uint32)) == 70001 * (2**32 - 1)
    assert detred.sum(np.empty(0, dtype=np.int32)) == 0


def test_integer_extremes():
    info = np.iinfo(np.int64)
    x = np.array([3, info.max, info.min, 0, info.min], dtype=np.int64)
    assert detred.min(x) == info.min and detred.argmin(x) == 2
    assert detred.max(x) == info.max and detred.argmax(x) == 1
    u = np.array([1, np.iinfo(np.uint64).max, 0], dtype=np.uint64)
    assert detred.max(u) == np.iinfo(np.uint64).max and detred.argmin(u) == 2


@pytest.mark.parametrize("n", OP_SIZES)
def test_float16_bits_equal_cxx(cxx, n, mode):
    x, y = values(n, np.float16, seed=1), values(n, np.float16, seed=2)
    assert bits(detred.sum(x, mode=mode), np.float32) == cxx("sum", x, mode=mode)
    assert bits(detred.dot(x, y, mode=mode, threads=2), np.float32) == cxx("dot", x, y, mode=mode)


def test_float16_sums_in_float32_where_numpy_returns_float16():
    x = values(20011, np.float16)
    s = detred.sum(x)
    assert type(s) is np.float32 and np.sum(x[:10]).dtype == np.float16
    assert bits(s, np.float32) == bits(detred.sum(x.astype(np.float32)), np.float32)  # widening is exact
    assert bits(detred.dot(x, x), np.float32) == bits(detred.dot(*(2 * [x.astype(np.float32)])), np.float32)
    tenths = np.full(100000, 0.1, dtype=np.float16)  # 0.1 as float16 is 0.0999755859375
    assert detred.sum(tenths) == pytest.approx(9997.55859375, rel=1e-6)
    # NumPy returns float16 (NumPy 1.24 gives 9992; NumPy 2 rounds once, 1e4) and, along an axis, rounds every
    # addition to float16: that sum stalls at 256. detred's float result is neither.
    assert np.sum(tenths).dtype == np.float16 and np.sum(np.stack([tenths, tenths], axis=1), axis=0)[0] == 256
    assert detred.sum(np.stack([tenths, tenths], axis=1), axis=0)[0] == detred.sum(tenths)
    assert detred.sum(np.full(4096, 1, dtype=np.float16)) == 4096


def test_float16_and_integers_only_where_the_library_has_them():
    with pytest.raises(TypeError, match=r"detred\.asum supports float64 and float32 arrays; got dtype float16"):
        detred.asum(np.ones(3, dtype=np.float16))
    with pytest.raises(TypeError, match=r"detred\.min supports float64, float32, int32, int64, uint32 and uint64 "
                                        r"arrays; got dtype float16 \(convert with a\.astype\(numpy\.float32\)\)"):
        detred.min(np.ones(3, dtype=np.float16))
    with pytest.raises(TypeError, match=r"detred\.dot supports float64, float32, float16 and bfloat16 arrays; got "
                                        r"dtype int32 \(convert with a\.astype\(numpy\.float64\)\)"):
        detred.dot(np.ones(3, dtype=np.int32), np.ones(3, dtype=np.int32))
    with pytest.raises(TypeError, match=r"detred\.stats supports float64 and float32"):
        detred.stats(np.ones(3, dtype=np.int64))


@pytest.mark.parametrize("n", [0, 1, 4097, 100003])
def test_bfloat16_through_dlpack_bits_equal_cxx(cxx, n, mode):
    x, y = bfloat16_bits(values(n, np.float32, seed=3)), bfloat16_bits(values(n, np.float32, seed=4))
    s = detred.sum(Bfloat16Tensor(x), mode=mode)
    assert type(s) is np.float32
    assert bits(s, np.float32) == cxx("sum", x, mode=mode, type_code="bf16")
    assert bits(detred.dot(Bfloat16Tensor(x), Bfloat16Tensor(y), mode=mode), np.float32) == cxx(
        "dot", x, y, mode=mode, type_code="bf16")


def test_bfloat16_is_widened_exactly():
    x = bfloat16_bits(values(5000, np.float32))
    as_float = (x.astype(np.uint32) << 16).view(np.float32)
    assert bits(detred.sum(Bfloat16Tensor(x)), np.float32) == bits(detred.sum(as_float), np.float32)
    m = x.reshape(50, 100)
    assert bits(detred.sum(Bfloat16Tensor(m), axis=1), np.float32) == bits(
        detred.sum(as_float.reshape(50, 100), axis=1), np.float32)
    with pytest.raises(TypeError, match=r"detred\.nrm2 supports float64 and float32 arrays; got dtype uint16"):
        detred.nrm2(Bfloat16Tensor(x))


class DlpackOnly:
    """Offers a NumPy array through __dlpack__ alone, as PyTorch's CPU tensors are offered."""

    def __init__(self, array):
        self.array = array

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()

    def __dlpack__(self, stream=None):
        return self.array.__dlpack__()


def test_cpu_dlpack_tensors_without_a_copy_and_in_their_order():
    x = values(30000, np.float64).reshape(100, 300)[::3, ::-2]  # strides in both axes, one negative
    for op in ["sum", "asum", "argmin", "max"]:
        assert bits(getattr(detred, op)(DlpackOnly(x)), np.float64) == bits(getattr(detred, op)(x), np.float64)
    assert np.array_equal(detred.sum(DlpackOnly(x), axis=0), detred.sum(x, axis=0))
    i = values(1000, np.int32)
    assert detred.sum(DlpackOnly(i)) == detred.sum(i)
    # A type the library does not reduce goes through numpy.asarray, so that the message names its dtype.
    with pytest.raises(TypeError, match=r"got dtype int8 \(convert with a\.astype\(numpy\.int64\)\)"):
        detred.sum(DlpackOnly(np.ones(4, dtype=np.int8)))


def test_torch_cpu_bfloat16():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    x = values(10000, np.float32)
    t = torch.from_numpy(x).to(torch.bfloat16)
    expected = detred.sum(t.to(torch.float32).numpy())
    assert bits(detred.sum(t), np.float32) == bits(expected, np.float32)


def test_ml_dtypes_bfloat16():
    ml_dtypes = pytest.importorskip("ml_dtypes", reason="ml_dtypes is not installed")
    x = values(10000, np.float32).astype(ml_dtypes.bfloat16)
    assert bits(detred.sum(x), np.float32) == bits(detred.sum(x.astype(np.float32)), np.float32)
