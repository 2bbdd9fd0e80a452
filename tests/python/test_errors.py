# Errors: TypeError for what cannot be summed, ValueError for bad values, each with a sentence saying what to do.
import numpy as np
import pytest

import detred

X = np.arange(10.0)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.float16, np.complex128, np.bool_, object, np.longdouble])
def test_unsupported_dtypes_raise_type_error(dtype):
    with pytest.raises(TypeError, match=r"detred\.sum supports float32 and float64 arrays; got dtype.*astype"):
        detred.sum(np.ones(3, dtype=dtype))
    with pytest.raises(TypeError, match=r"detred\.reference_sum supports float32 and float64"):
        detred.reference_sum(np.ones(3, dtype=dtype))


def test_strings_and_non_native_byte_order():
    with pytest.raises(TypeError, match="supports float32 and float64"):
        detred.sum(["a", "b"])
    with pytest.raises(TypeError, match="native byte order"):
        detred.sum(X.astype(X.dtype.newbyteorder()))


@pytest.mark.parametrize("mode", ["", "Tree", "kahan", "compensated "])
def test_unknown_mode_raises_value_error(mode):
    with pytest.raises(ValueError, match="mode must be tree or compensated; got '" + mode):
        detred.sum(X, mode=mode)
    with pytest.raises(ValueError, match="mode must be"):
        detred.reference_sum(X, mode=mode)


def test_mode_must_be_a_string():
    with pytest.raises(TypeError):
        detred.sum(X, mode=1)


@pytest.mark.parametrize("axis", [1, -2, (0, 1), 5])
def test_axis_out_of_range(axis):
    with pytest.raises(ValueError, match="out of bounds for array of dimension 1"):
        detred.sum(X, axis=axis)


def test_axis_errors():
    m = X.reshape(2, 5)
    with pytest.raises(np.AxisError):
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
    with pytest.raises(RuntimeError, match=r"detred\.sum of a GPU array: .*" + expected):
        detred.sum(FakeGpuArray())


def test_reference_sum_takes_host_arrays_only():
    with pytest.raises(TypeError, match=r"detred\.reference_sum takes host arrays only"):
        detred.reference_sum(FakeGpuArray())
