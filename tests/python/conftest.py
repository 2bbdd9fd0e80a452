# SPDX-License-Identifier: BSD-3-Clause
# Shared helpers of the Python suite: test data, bitwise comparison, the C++ library's own results (`cxx`), and a
# DLPack producer of bfloat16.
import ctypes
import os
import subprocess

import numpy as np
import pytest

import detred

DTYPES = [np.float64, np.float32]
MODES = ["tree", "compensated"]
# Around the leaf sizes (2048 doubles, 4096 floats), ragged trees of leaves, and sizes the CPU splits over threads.
SIZES = [0, 1, 2, 63, 64, 2047, 2048, 2049, 4096, 4097, 3 * 4096 + 5, 100003, (1 << 20) + 7]
# Fewer, for the suites that run every operation.
OP_SIZES = [0, 1, 2, 2047, 2049, 4097, 3 * 4096 + 5, 100003, (1 << 20) + 7]
INTEGER_DTYPES = [np.int32, np.int64, np.uint32, np.uint64]
SELECTIONS = ["min", "max", "argmin", "argmax"]


def values(n, dtype, seed=42):
    """Values of mixed sign and magnitude (2^-20..2^20; 2^-10..2^10 for float16), so that the order of the additions
    shows in the bits. Integers: any value of int32 and uint32; |x| < 2^40 for the 64-bit types (sums fit)."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        if dtype.itemsize == 4:
            info = np.iinfo(dtype)
            return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        low = 0 if dtype.kind == "u" else -(1 << 40)
        return rng.integers(low, 1 << 40, n).astype(dtype)
    span = 10 if dtype == np.float16 else 20
    x = rng.uniform(1.0, 2.0, n) * np.exp2(rng.integers(-span, span + 1, n)) * rng.choice([-1.0, 1.0], n)
    return x.astype(dtype)


def bits(x, dtype):
    """The bytes of x as a value (or array) of dtype: equal bits, NaN payloads and the sign of zero included."""
    return np.asarray(x, dtype=dtype).tobytes()


def bfloat16_bits(x):
    """The bfloat16 nearest below |x| (the upper half of its float32), as uint16 bits."""
    return (np.asarray(x, dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)


class Bfloat16Tensor:
    """A CPU DLPack producer of bfloat16 values, as PyTorch's bfloat16 tensors are: NumPy's DLPack capsule of the
    uint16 bits, with the data type's code set to kDLBfloat."""

    DL_BFLOAT = 4
    DTYPE_CODE_OFFSET = 20  # DLTensor: data (8 bytes), device (8), ndim (4), then dtype.code

    def __init__(self, bits16):
        self.bits = bits16

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU

    def __dlpack__(self, stream=None):
        capsule = self.bits.__dlpack__()
        get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
        get_pointer.restype = ctypes.c_void_p
        get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
        managed = get_pointer(capsule, b"dltensor")  # a DLManagedTensor starts with its DLTensor
        ctypes.c_uint8.from_address(managed + self.DTYPE_CODE_OFFSET).value = self.DL_BFLOAT
        return capsule


TYPE_CODES = {np.dtype(np.float64): "f64", np.dtype(np.float32): "f32", np.dtype(np.float16): "f16",
              np.dtype(np.int32): "i32", np.dtype(np.int64): "i64", np.dtype(np.uint32): "u32",
              np.dtype(np.uint64): "u64"}


def as_cxx_bytes(op, result, dtype):
    """The bytes C++ holds for a Python result of `op` on elements of `dtype` (type code `dtype` may be "bf16")."""
    if op in ("argmin", "argmax"):
        return np.uint64(result).tobytes()
    if op == "stats":
        return np.uint64(result.count).tobytes() + b"".join(np.asarray(field).tobytes() for field in result[1:])
    return np.asarray(result).tobytes()


class CxxResults:
    """The C++ library's results (tests/python/cxx_results.cpp), asked through one process for the whole session."""

    def __init__(self, program, folder):
        self.folder = folder
        self.process = subprocess.Popen([program], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.files = 0

    def _file(self, array):
        self.files += 1
        path = os.path.join(self.folder, f"x{self.files % 2}.bin")
        np.ascontiguousarray(array).tofile(path)
        return path

    def __call__(self, op, a, b=None, mode="tree", type_code=None):
        """The bytes of C++'s result of op(a[, b]), or a CxxError with its message."""
        code = type_code or TYPE_CODES[np.asarray(a).dtype]
        files = self._file(a) + ("" if b is None else " " + self._file(b))
        self.process.stdin.write(f"{op} {code} {mode} {files}\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline().strip()
        if answer.startswith("error: "):
            raise CxxError(answer[len("error: "):])
        return bytes.fromhex(answer)

    def close(self):
        self.process.stdin.close()
        self.process.wait()


class CxxError(Exception):
    pass


@pytest.fixture(scope="session")
def cxx(tmp_path_factory):
    program = os.environ.get("DETRED_CXX_RESULTS")
    if program is None:
        pytest.skip("DETRED_CXX_RESULTS (the C++ results program) is set by ctest only")
    results = CxxResults(program, str(tmp_path_factory.mktemp("cxx")))
    yield results
    results.close()


def call(op, a, mode="tree", **kwargs):
    """detred.<op>(a, ...) with the mode where the operation takes one (the selections do not)."""
    function = getattr(detred, op)
    if op in SELECTIONS:
        return function(a, **kwargs)
    return function(a, mode=mode, **kwargs)


@pytest.fixture(params=DTYPES, ids=["float64", "float32"])
def dtype(request):
    return request.param


@pytest.fixture(params=MODES)
def mode(request):
    return request.param
