# SPDX-License-Identifier: BSD-3-Clause
# The module's private batched calls behind detred.torch (_segment_sum, _segment_dot, _sum_by_key; src/ops/batched.cpp):
# each result has the bits of detred.sum / detred.dot of its segment or group alone, and bad arguments are refused.
import numpy as np
import pytest

import detred
from conftest import bits, values
from detred import _detred

DTYPES = [np.float64, np.float32]


@pytest.mark.parametrize("dtype", DTYPES)
def test_segments_and_groups_have_the_bits_of_the_single_array_calls(dtype):
    x, y = values(10007, dtype, seed=1), values(10007, dtype, seed=2)
    offsets = np.array([0, 0, 1, 4096, 4097, 9000, 10007], np.int64)
    sums, dots = np.empty(6, dtype), np.empty(6, dtype)
    _detred._segment_sum(x, offsets, sums)
    _detred._segment_dot(x, y, offsets, dots)
    for k in range(6):
        a, b = offsets[k], offsets[k + 1]
        assert bits(sums[k], dtype) == bits(detred.sum(x[a:b]), dtype), k
        assert bits(dots[k], dtype) == bits(detred.dot(x[a:b], y[a:b]), dtype), k
    keys = np.random.default_rng(3).integers(0, 50, 10007)
    for key_dtype in (np.int64, np.int32, np.uint32):
        grouped = np.empty(51, dtype)
        _detred._sum_by_key(x, keys.astype(key_dtype), grouped)
        for b in range(51):
            assert bits(grouped[b], dtype) == bits(detred.sum(x[keys == b]), dtype), (key_dtype, b)


@pytest.mark.parametrize("mode", ["tree", "compensated", "exact"])
def test_float16_segments_sum_in_float32_with_the_bits_of_detred_sum(mode):
    # Patterns of every class: zeros of both signs, subnormals, the largest finite, Inf, NaN.
    x = np.random.default_rng(5).integers(0, 1 << 16, 10007).astype(np.uint16).view(np.float16)
    x[np.isnan(x) | np.isinf(x)] = np.float16(0.5)
    x[17], x[4100], x[4101], x[9500] = np.inf, -np.inf, np.nan, np.float16(-0.0)
    x[200:210] = np.float16(6e-8)  # subnormal
    offsets = np.array([0, 0, 1, 2048, 4096, 4097, 4100, 4102, 9000, 9499, 9501, 10007], np.int64)
    out = np.full(len(offsets) - 1, 7, np.float32)
    _detred._segment_sum(x, offsets, out, mode=mode)
    for k in range(len(offsets) - 1):
        a, b = offsets[k], offsets[k + 1]
        assert bits(out[k], np.float32) == bits(detred.sum(x[a:b], mode=mode), np.float32), k
    with pytest.raises(TypeError, match="float32 for float16 or bfloat16"):
        _detred._segment_sum(x, offsets, np.empty(len(offsets) - 1, np.float64))
    with pytest.raises(TypeError, match="float32 or both float64"):
        _detred._segment_dot(x, x, offsets, np.empty(len(offsets) - 1, np.float32))


def test_bfloat16_cpu_tensors_sum_in_float32_with_the_bits_of_detred_sum():
    torch = pytest.importorskip("torch")
    # bfloat16 patterns of every finite class (sums overflow float), Inf and NaN in two segments, as detred.torch
    # hands them over: the tensor itself.
    raw = np.random.default_rng(6).integers(0, 1 << 16, 10007).astype(np.uint16)
    raw[(raw & 0x7F80) == 0x7F80] ^= 0x4000
    raw[[4096, 9100]], raw[9200] = 0x7F80, 0xFFC1  # +Inf, a NaN with a payload
    x = torch.from_numpy(raw.view(np.int16)).view(torch.bfloat16)
    offsets = np.array([0, 0, 1, 2048, 4096, 4097, 9000, 10007], np.int64)
    for mode in ("tree", "compensated"):
        out = np.full(len(offsets) - 1, 7, np.float32)
        _detred._segment_sum(x, offsets, out, mode=mode)
        for k in range(len(offsets) - 1):
            a, b = int(offsets[k]), int(offsets[k + 1])
            assert bits(out[k], np.float32) == bits(detred.sum(x[a:b], mode=mode), np.float32), (mode, k)
    with pytest.raises(TypeError, match="1-D C-contiguous"):
        _detred._segment_sum(x[::2], np.array([0, 3]), np.empty(1, np.float32))


def test_bad_arguments_are_refused():
    x = np.ones(10, np.float32)
    with pytest.raises(TypeError, match="float32 or both float64"):
        _detred._segment_sum(x, np.array([0, 10]), np.empty(1, np.float64))
    with pytest.raises(TypeError, match="1-D C-contiguous"):
        _detred._segment_sum(x, np.array([0, 10], np.int32), np.empty(1, np.float32))
    with pytest.raises(ValueError):
        _detred._segment_sum(x, np.array([0, 5, 3]), np.empty(2, np.float32))
    with pytest.raises(ValueError):
        _detred._segment_sum(x, np.array([0, -1]), np.empty(1, np.float32))  # past the end as uint64
    with pytest.raises(ValueError, match="not a bin"):
        _detred._sum_by_key(x, np.full(10, -1, np.int32), np.empty(3, np.float32))
    with pytest.raises(TypeError, match="y must have"):
        _detred._segment_dot(x, np.ones(9, np.float32), np.array([0, 9]), np.empty(1, np.float32))
    with pytest.raises(TypeError, match="must be a NumPy array"):
        _detred._segment_sum(x, np.array([0, 10]), [0.0])
