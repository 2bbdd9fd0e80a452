# SPDX-License-Identifier: BSD-3-Clause
# min, max, argmin, argmax against NumPy: equal where NumPy's rules are the same (ties, NaN positions), and the rules
# that make detred's answer unique where NumPy's is not (the NaN returned, signed zeros).
import numpy as np
import pytest

import detred
from conftest import bits, values

# numpy.exceptions.AxisError since NumPy 1.25; NumPy 2 dropped numpy.AxisError.
AXIS_ERROR = getattr(getattr(np, "exceptions", np), "AxisError", ValueError)

CANONICAL_NAN = {np.float64: np.uint64(0x7FF8000000000000).view(np.float64),
                 np.float32: np.uint32(0x7FC00000).view(np.float32)}


def test_ties_go_to_the_first_index_as_in_numpy(dtype):
    x = np.random.default_rng(5).integers(-3, 4, 50001).astype(dtype)  # many ties
    assert detred.argmin(x) == np.argmin(x) and detred.argmax(x) == np.argmax(x)
    m = x[:50000].reshape(250, 200)
    for axis in [0, 1]:
        assert np.array_equal(detred.argmin(m, axis=axis), np.argmin(m, axis=axis))
        assert np.array_equal(detred.argmax(m[::-1], axis=axis), np.argmax(m[::-1], axis=axis))


def test_nan_propagates(dtype):
    x = values(10000, dtype)
    x[[1234, 77, 9000]] = np.nan
    raw = x.view(np.uint64 if dtype == np.float64 else np.uint32)
    raw[77] = raw[77] | raw.dtype.type(5)  # a NaN with a payload, the first one
    assert detred.argmin(x) == np.argmin(x) == 77 and detred.argmax(x) == np.argmax(x) == 77
    assert bits(detred.min(x), dtype) == bits(CANONICAL_NAN[dtype], dtype)  # NumPy's NaN keeps a payload
    assert bits(detred.max(x, threads=2), dtype) == bits(CANONICAL_NAN[dtype], dtype)
    assert np.isnan(np.min(x))


def test_negative_zero_is_below_positive_zero(dtype):
    zeros = np.array([0.0, -0.0, 0.0, 1.0], dtype=dtype)
    assert bits(detred.min(zeros), dtype) == bits(-0.0, dtype)
    assert bits(detred.max(zeros[[1, 0]]), dtype) == bits(0.0, dtype)
    assert bits(detred.max(zeros[:3]), dtype) == bits(0.0, dtype)
    assert detred.argmin(zeros) == 1 and np.argmin(zeros) == 0  # NumPy takes the zeros as equal
    assert detred.argmax(np.array([-0.0, 0.0], dtype=dtype)) == 1 and np.argmax(np.array([-0.0, 0.0])) == 0
    big = np.zeros(100003, dtype=dtype)
    big[70000] = -0.0
    assert detred.argmin(big, threads=3) == 70000 and bits(detred.min(big), dtype) == bits(-0.0, dtype)


def test_infinities(dtype):
    x = values(5000, dtype)
    x[10], x[20] = np.inf, -np.inf
    assert detred.max(x) == np.inf and detred.argmax(x) == 10
    assert detred.min(x) == -np.inf and detred.argmin(x) == 20


def test_empty_arrays_have_no_minimum():
    for op in ["min", "max", "argmin", "argmax"]:
        with pytest.raises(ValueError, match="empty array"):
            getattr(detred, op)(np.empty(0))
        with pytest.raises(ValueError):
            getattr(np, op)(np.empty(0))  # as NumPy
    with pytest.raises(ValueError, match="empty array"):
        detred.max(np.empty((0, 4), dtype=np.int32), axis=0)  # four empty lanes
    assert detred.max(np.empty((4, 0), dtype=np.int32), axis=0).shape == (0,)  # no lane


def test_argmin_takes_one_axis():
    m = values(60, np.float64).reshape(3, 4, 5)
    with pytest.raises(TypeError, match=r"detred\.argmin takes axis=None or one int"):
        detred.argmin(m, axis=(0, 1))
    with pytest.raises(TypeError):
        np.argmin(m, axis=(0, 1))
    assert detred.argmax(m, axis=-1).shape == (3, 4)
    with pytest.raises(AXIS_ERROR):
        detred.argmax(m, axis=3)
