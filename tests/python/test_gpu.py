# GPU arrays: CuPy arrays (DLPack, and __cuda_array_interface__ alone) and PyTorch CUDA tensors (DLPack), reduced on
# their device with the bits of detred.sum on the CPU. Skipped, with the reason, without a usable GPU or CuPy/PyTorch.
import numpy as np
import pytest

import detred
from conftest import bits, values

pytestmark = pytest.mark.skipif(not detred.cuda_available(),
                                reason="no usable CUDA device or no CUDA backend (detred.cuda_available() is False)")

GPU_SIZES = [0, 1, 2047, 2049, 4097, 100003, (1 << 20) + 7, (1 << 24) + 3]


class CudaArrayInterfaceOnly:
    """Offers an array through __cuda_array_interface__ only (as Numba does), so that path is tested too."""

    def __init__(self, array):
        self.array = array
        self.__cuda_array_interface__ = array.__cuda_array_interface__


@pytest.fixture(scope="module")
def cupy():
    return pytest.importorskip("cupy", reason="CuPy is not installed")


@pytest.fixture(scope="module")
def torch():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no CUDA device")
    return torch


@pytest.mark.parametrize("n", GPU_SIZES)
def test_cupy_bits_equal_cpu(cupy, n, dtype, mode):
    x = values(n, dtype)
    expected = bits(detred.sum(x, mode=mode), dtype)
    on_gpu = cupy.asarray(x)
    s = detred.sum(on_gpu, mode=mode)
    assert type(s) is dtype
    assert bits(s, dtype) == expected
    assert bits(detred.sum(CudaArrayInterfaceOnly(on_gpu), mode=mode), dtype) == expected


@pytest.mark.parametrize("n", GPU_SIZES)
def test_torch_bits_equal_cpu(torch, n, dtype, mode):
    x = values(n, dtype)
    s = detred.sum(torch.from_numpy(x).cuda(), mode=mode)
    assert type(s) is dtype
    assert bits(s, dtype) == bits(detred.sum(x, mode=mode), dtype)


def test_gpu_special_values(cupy, dtype):
    x = values(10000, dtype)
    x[5] = np.nan
    assert bits(detred.sum(cupy.asarray(x)), dtype) == bits(detred.sum(x), dtype)
    assert np.signbit(detred.sum(cupy.empty(0, dtype=dtype)))


def test_gpu_array_written_just_before_is_summed_after_the_write(cupy):
    # Producer work on the array's stream must finish before the sum reads it (stream ordering).
    x = cupy.zeros(1 << 24, dtype=cupy.float64)
    x += 1.0
    assert detred.sum(x) == float(1 << 24)


def test_every_device(cupy):
    x = values(1 << 20, np.float64)
    expected = bits(detred.sum(x), np.float64)
    for device in range(cupy.cuda.runtime.getDeviceCount()):
        with cupy.cuda.Device(device):
            assert bits(detred.sum(cupy.asarray(x)), np.float64) == expected


def test_gpu_errors(cupy):
    x = cupy.arange(100, dtype=cupy.float64)
    with pytest.raises(NotImplementedError, match="C-contiguous"):
        detred.sum(x[::2])
    with pytest.raises(NotImplementedError, match="axis=None"):
        detred.sum(x.reshape(10, 10), axis=0)
    with pytest.raises(TypeError, match="supports float32 and float64"):
        detred.sum(cupy.arange(10))
    with pytest.raises(ValueError, match="mode must be"):
        detred.sum(x, mode="fast")
