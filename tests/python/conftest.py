# Shared helpers of the Python suite: test data and bitwise comparison.
import numpy as np
import pytest

DTYPES = [np.float64, np.float32]
MODES = ["tree", "compensated"]
# Around the leaf sizes (2048 doubles, 4096 floats), ragged trees of leaves, and sizes the CPU splits over threads.
SIZES = [0, 1, 2, 63, 64, 2047, 2048, 2049, 4096, 4097, 3 * 4096 + 5, 100003, (1 << 20) + 7]


def values(n, dtype, seed=42):
    """Values of mixed sign and magnitude (2^-20..2^20), so that the order of the additions shows in the bits."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(1.0, 2.0, n) * np.exp2(rng.integers(-20, 21, n)) * rng.choice([-1.0, 1.0], n)
    return x.astype(dtype)


def bits(x, dtype):
    """The bytes of x as a value (or array) of dtype: equal bits, NaN payloads and the sign of zero included."""
    return np.asarray(x, dtype=dtype).tobytes()


@pytest.fixture(params=DTYPES, ids=["float64", "float32"])
def dtype(request):
    return request.param


@pytest.fixture(params=MODES)
def mode(request):
    return request.param
