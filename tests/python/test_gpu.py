# SPDX-License-Identifier: BSD-3-Clause
# GPU arrays: CuPy arrays (DLPack, and __cuda_array_interface__ alone) and PyTorch CUDA tensors (DLPack), reduced on
# their device by every operation with the bits of the CPU. Skipped, with the reason, without a usable GPU or
# CuPy/PyTorch.
import numpy as np
import pytest

import detred
from conftest import (INTEGER_DTYPES, MODES, SELECTIONS, Bfloat16Tensor, as_cxx_bytes, bfloat16_bits, bits, call,
                      values)

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
    with pytest.raises(TypeError, match=r"detred\.sum supports .* GPU arrays; got int8"):
        detred.sum(cupy.arange(10, dtype=cupy.int8))
    with pytest.raises(TypeError, match=r"detred\.asum supports float64 and float32 GPU arrays; got int64"):
        detred.asum(cupy.arange(10))
    with pytest.raises(ValueError, match="mode must be"):
        detred.sum(x, mode="fast")
    with pytest.raises(ValueError, match="empty"):
        detred.argmin(cupy.empty(0))
    with pytest.raises(ValueError, match="tree mode only"):
        detred.stats(x, mode="compensated")
    with pytest.raises(ValueError, match="one shape"):
        detred.dot(x, x[:10])
    with pytest.raises(TypeError, match="one dtype"):
        detred.dot(x, x.astype(cupy.float32))
    with pytest.raises(TypeError, match="not both together"):
        detred.dot(x, np.ones(100))
    with pytest.raises(OverflowError, match="does not fit in int64"):
        detred.sum(cupy.asarray(np.array([2**62, 2**62])))


OP_SIZES_GPU = [1, 2049, 100003, (1 << 20) + 7]
GPU_OPS = ["sum", "asum", "nrm2", "stats", "min", "max", "argmin", "argmax"]


def modes_of(op):
    return ["tree"] if op in SELECTIONS or op == "stats" else MODES


@pytest.mark.parametrize("n", OP_SIZES_GPU)
@pytest.mark.parametrize("op", GPU_OPS)
def test_cupy_every_operation_bits_equal_cpu(cupy, op, n, dtype):
    x = values(n, dtype)
    for mode in modes_of(op):
        expected = as_cxx_bytes(op, call(op, x, mode), dtype)
        got = call(op, cupy.asarray(x), mode)
        assert type(got) is type(call(op, x[:1], mode))
        assert as_cxx_bytes(op, got, dtype) == expected, mode
        assert as_cxx_bytes(op, call(op, CudaArrayInterfaceOnly(cupy.asarray(x)), mode), dtype) == expected


@pytest.mark.parametrize("n", OP_SIZES_GPU)
def test_cupy_dot_bits_equal_cpu(cupy, n, dtype, mode):
    x, y = values(n, dtype, seed=1), values(n, dtype, seed=2)
    expected = bits(detred.dot(x, y, mode=mode), dtype)
    assert bits(detred.dot(cupy.asarray(x), cupy.asarray(y), mode=mode), dtype) == expected


@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=[np.dtype(t).name for t in INTEGER_DTYPES])
def test_cupy_integers_equal_cpu(cupy, dtype):
    x = values(100003, dtype)
    for op in ["sum", "min", "max", "argmin", "argmax"]:
        assert as_cxx_bytes(op, getattr(detred, op)(cupy.asarray(x)), dtype) == \
            as_cxx_bytes(op, getattr(detred, op)(x), dtype), op


def test_cupy_float16_sums_and_dots_equal_cpu(cupy, mode):
    x, y = values(100003, np.float16, seed=1), values(100003, np.float16, seed=2)
    assert bits(detred.sum(cupy.asarray(x), mode=mode), np.float32) == bits(detred.sum(x, mode=mode), np.float32)
    assert bits(detred.dot(cupy.asarray(x), cupy.asarray(y), mode=mode), np.float32) == \
        bits(detred.dot(x, y, mode=mode), np.float32)


@pytest.mark.parametrize("n", OP_SIZES_GPU)
def test_cupy_exact_mode_equals_cpu(cupy, n, dtype):
    """Exact mode of whole GPU arrays: every float type, the 16-bit ones widened on the device."""
    x, y = values(n, dtype, seed=3), values(n, dtype, seed=4)
    for op in ["sum", "asum", "nrm2", "sumsq", "mean"]:
        assert bits(getattr(detred, op)(cupy.asarray(x), mode="exact"), dtype) == \
            bits(getattr(detred, op)(x, mode="exact"), dtype), op
    assert bits(detred.dot(cupy.asarray(x), cupy.asarray(y), mode="exact"), dtype) == \
        bits(detred.dot(x, y, mode="exact"), dtype)
    h, g = values(n, np.float16, seed=5), values(n, np.float16, seed=6)
    for op in ["sum", "sumsq", "mean"]:
        assert bits(getattr(detred, op)(cupy.asarray(h), mode="exact"), np.float32) == \
            bits(getattr(detred, op)(h, mode="exact"), np.float32), op
    assert bits(detred.dot(cupy.asarray(h), cupy.asarray(g), mode="exact"), np.float32) == \
        bits(detred.dot(h, g, mode="exact"), np.float32)


@pytest.mark.parametrize("op", GPU_OPS)
def test_torch_every_operation_bits_equal_cpu(torch, op, dtype):
    x = values(100003, dtype)
    t = torch.from_numpy(x).cuda()
    for mode in modes_of(op):
        assert as_cxx_bytes(op, call(op, t, mode), dtype) == as_cxx_bytes(op, call(op, x, mode), dtype), mode
    assert bits(detred.dot(t, t), dtype) == bits(detred.dot(x, x), dtype)


def test_torch_bfloat16_on_gpu_and_cpu(torch, mode):
    x = bfloat16_bits(values(100003, np.float32, seed=7))
    y = bfloat16_bits(values(100003, np.float32, seed=8))
    expected_sum = bits(detred.sum(Bfloat16Tensor(x), mode=mode), np.float32)
    expected_dot = bits(detred.dot(Bfloat16Tensor(x), Bfloat16Tensor(y), mode=mode), np.float32)
    as_tensor = lambda bits16: torch.from_numpy(bits16.view(np.int16)).view(torch.bfloat16)
    tx, ty = as_tensor(x), as_tensor(y)
    assert bits(detred.sum(tx, mode=mode), np.float32) == expected_sum  # a CPU tensor, through DLPack
    assert bits(detred.sum(tx.cuda(), mode=mode), np.float32) == expected_sum
    assert bits(detred.dot(tx.cuda(), ty.cuda(), mode=mode), np.float32) == expected_dot
    # Exact mode: widened on the device, the host's exact bits.
    assert bits(detred.sum(tx.cuda(), mode="exact"), np.float32) == bits(detred.sum(tx, mode="exact"), np.float32)
    assert bits(detred.dot(tx.cuda(), ty.cuda(), mode="exact"), np.float32) == \
        bits(detred.dot(tx, ty, mode="exact"), np.float32)


@pytest.mark.parametrize("n", GPU_SIZES)
def test_catalogue_operation_on_gpu_arrays(cupy, n, dtype, mode):
    # sumsq has no hand-written binding: detred.sumsq of a GPU array goes through detred::cuda::reduce<sumsq>, and
    # gives the host call's bits (bit for bit dot(x, x)).
    x = values(n, dtype)
    expected = bits(detred.sumsq(x, mode=mode), dtype)
    assert bits(detred.sumsq(cupy.asarray(x), mode=mode), dtype) == expected
    assert bits(detred.dot(cupy.asarray(x), cupy.asarray(x), mode=mode), dtype) == expected
