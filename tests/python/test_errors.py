# SPDX-License-Identifier: BSD-3-Clause
# Errors: TypeError for what cannot be reduced, ValueError for bad values, OverflowError for integer sums that do not
# fit; each with a sentence saying what to do.
import numpy as np
import pytest

import detred

# numpy.exceptions.AxisError since NumPy 1.25; NumPy 2 dropped numpy.AxisError.
AXIS_ERROR = getattr(getattr(np, "exceptions", np), "AxisError", ValueError)

X = np.arange(10.0)
ALL_TYPES = "float64, float32, float16, bfloat16, int32, int64, uint32 and uint64"


@pytest.mark.parametrize("dtype, hint", [(np.int8, "int64"), (np.int16, "int64"), (np.uint8, "int64"),
                                         (np.uint16, "int64"), (np.bool_, "int64"), (np.complex128, "float64"),
                                         (object, "float64"), (np.longdouble, "float64")])
def test_unsupported_dtypes_raise_type_error(dtype, hint):
    with pytest.raises(TypeError, match=rf"detred\.sum supports {ALL_TYPES} arrays; got dtype .*"
                                        rf"\(convert with a\.astype\(numpy\.{hint}\)\)"):
        detred.sum(np.ones(3, dtype=dtype))
    with pytest.raises(TypeError, match=r"detred\.reference_sum supports float64 and float32 arrays"):
        detred.reference_sum(np.ones(3, dtype=dtype))
    with pytest.raises(TypeError, match=r"detred\.min supports float64, float32, int32, int64, uint32 and uint64"):
        detred.min(np.ones(3, dtype=dtype))


def test_reference_sum_is_for_float64_and_float32():
    with pytest.raises(TypeError, match=r"detred\.reference_sum supports float64 and float32 arrays; got dtype int32"):
        detred.reference_sum(np.ones(3, dtype=np.int32))


def test_strings_and_non_native_byte_order():
    with pytest.raises(TypeError, match=f"supports {ALL_TYPES}"):
        detred.sum(["a", "b"])
    with pytest.raises(TypeError, match="native byte order"):
        detred.sum(X.astype(X.dtype.newbyteorder()))
    with pytest.raises(TypeError, match=r"detred\.argmax needs a native byte order"):
        detred.argmax(np.arange(5, dtype=">i4"))


@pytest.mark.parametrize("mode", ["", "Tree", "kahan", "compensated "])
def test_unknown_mode_raises_value_error(mode):
    with pytest.raises(ValueError, match="mode must be tree, compensated or exact; got '" + mode):
        detred.sum(X, mode=mode)
    with pytest.raises(ValueError, match="mode must be"):
        detred.reference_sum(X, mode=mode)


def test_mode_must_be_a_string():
    with pytest.raises(TypeError):
        detred.sum(X, mode=1)


def test_modes_of_each_operation():
    for op in ["asum", "nrm2", "stats"]:
        with pytest.raises(ValueError, match="mode must be tree, compensated or exact; got 'fast'"):
            getattr(detred, op)(X, mode="fast")
    with pytest.raises(ValueError, match="mode must be"):
        detred.dot(X, X, mode="fast")
    with pytest.raises(ValueError, match="stats has tree mode only"):
        detred.stats(X, mode="compensated")
    for op in ["min", "max", "argmin", "argmax"]:
        with pytest.raises(TypeError):  # nothing is rounded: no mode
            getattr(detred, op)(X, mode="tree")
    assert detred.sum(np.arange(5), mode="compensated") == 10  # integer sums are exact in every mode


def test_dot_needs_one_shape_and_one_dtype():
    with pytest.raises(ValueError, match=r"detred\.dot needs arrays of one shape; got \(10,\) and \(2, 5\) "
                                         r"\(no broadcasting\)"):
        detred.dot(X, X.reshape(2, 5))
    with pytest.raises(ValueError, match="one shape"):
        detred.dot(X, 1.0)
    with pytest.raises(TypeError, match=r"detred\.dot needs arrays of one dtype; got float64 and float32"):
        detred.dot(X, X.astype(np.float32))
    with pytest.raises(TypeError):
        detred.dot(X)


def test_integer_overflow_is_an_overflow_error():
    with pytest.raises(OverflowError, match="does not fit in int64"):
        detred.sum(np.array([2**62, 2**62]))


@pytest.mark.parametrize("axis", [1, -2, (0, 1), 5])
def test_axis_out_of_range(axis):
    with pytest.raises(ValueError, match="out of bounds for array of dimension 1"):
        detred.sum(X, axis=axis)


def test_axis_errors():
    m = X.reshape(2, 5)
    with pytest.raises(AXIS_ERROR):
        detred.sum(m, axis=2)
    with pytest.raises(ValueError, match="duplicate value in 'axis'"):
        detred.sum(m, axis=(1, -1))
    for bad in [1.0, "0", True, [0], (0, 1.5)]:
        with pytest.raises(TypeError, match="axis must be None, an int or a tuple of ints"):
            detred.sum(m, axis=bad)
    assert detred.sum(m, axis=np.int64(1)).shape == (2,)


def test_threads():
    with pytest.raises(ValueError, match=r"threads must be >= 0 \(0 = the library's default\); got -1"):
        detred.sum(X, threads=-1)
    for op in ["asum", "nrm2", "stats", "min", "max", "argmin", "argmax"]:
        with pytest.raises(ValueError, match="threads must be >= 0"):
            getattr(detred, op)(X, threads=-2)
    with pytest.raises(TypeError):
        detred.sum(X, threads=1.5)
    with pytest.raises(TypeError):
        detred.reference_sum(X, threads=1)


class FakeGpuArray:
    """An object that looks like a CUDA array, as CuPy's and Numba's do, at an address that is no device memory."""

    def __init__(self, typestr="<f8", strides=None):
        self.__cuda_array_interface__ = {"shape": (4,), "typestr": typestr, "data": (0x1000, True),
                                         "strides": strides, "version": 3, "stream": 1}


def test_gpu_array_without_usable_gpu_raises_runtime_error():
    if detred.cuda_available():
        pytest.skip("a CUDA device is usable here: the GPU suite (test_gpu.py) covers GPU arrays")
    expected = "no usable CUDA device" if detred.cuda_built else "has no CUDA backend"
    for op in ["sum", "asum", "nrm2", "stats", "min", "max", "argmin", "argmax"]:
        with pytest.raises(RuntimeError, match=rf"detred\.{op} of a GPU array: .*" + expected):
            getattr(detred, op)(FakeGpuArray())
    with pytest.raises(RuntimeError, match=r"detred\.dot of a GPU array"):
        detred.dot(FakeGpuArray(), FakeGpuArray())


def test_gpu_and_host_arrays_together():
    with pytest.raises(TypeError, match=r"detred\.dot takes GPU arrays or host arrays, not both together"):
        detred.dot(FakeGpuArray(), np.ones(4))
    with pytest.raises(TypeError, match="not both together"):
        detred.dot(np.ones(4), FakeGpuArray())


def test_reference_sum_takes_host_arrays_only():
    with pytest.raises(TypeError, match=r"detred\.reference_sum takes host arrays only"):
        detred.reference_sum(FakeGpuArray())


def test_exact_mode_where_it_exists_and_refused_elsewhere():
    big = 0.75 * np.finfo(np.float64).max
    assert detred.sum(np.array([big, -big, big, -big, big]), mode="exact") == big
    assert detred.dot(X, X, mode="exact") == detred.dot(X, X, mode="exact", threads=1)
    # nrm2: the square root of the exact sum of squares, rounded once; stats has no exact mode.
    assert detred.nrm2(np.array([3.0, 4.0]), mode="exact") == 5.0
    assert list(detred.nrm2(X.reshape(2, 5), mode="exact", axis=0)) == [
        detred.nrm2(np.ascontiguousarray(c), mode="exact") for c in X.reshape(2, 5).T
    ]
    with pytest.raises(ValueError, match="detred::stats: mode exact is not available"):
        detred.stats(X, mode="exact")
    columns = detred.sum(X.reshape(2, 5), mode="exact", axis=0)  # each lane as its own array
    assert list(columns) == [detred.sum(np.ascontiguousarray(c), mode="exact") for c in X.reshape(2, 5).T]
