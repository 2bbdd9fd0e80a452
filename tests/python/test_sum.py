# SPDX-License-Identifier: BSD-3-Clause
# detred.sum on host arrays: bits equal to the library's reference implementation (detred.reference_sum) for every
# thread count, dtype, mode, size, layout and axis; NumPy conventions for results.
import numpy as np
import pytest

import detred
from conftest import SIZES, bits, values


@pytest.mark.parametrize("n", SIZES)
def test_bits_equal_reference_for_every_thread_count(n, dtype, mode):
    x = values(n, dtype)
    expected = detred.reference_sum(x, mode=mode)
    for threads in [0, 1, 2, 3, 7]:
        assert bits(detred.sum(x, mode=mode, threads=threads), dtype) == bits(expected, dtype), threads


def test_results_depend_on_the_order_and_mode():
    # The tests above can fail: these data give different bits in another order and in the other mode.
    x = values(100003, np.float64)
    assert bits(detred.sum(x), np.float64) != bits(detred.sum(x[::-1].copy()), np.float64)
    assert bits(detred.sum(x), np.float64) != bits(detred.sum(x, mode="compensated"), np.float64)


def test_result_is_a_numpy_scalar_of_the_input_dtype(dtype):
    s = detred.sum(np.ones(5, dtype=dtype))
    assert type(s) is dtype
    assert s == 5
    assert type(detred.reference_sum(np.ones(5, dtype=dtype))) is dtype


def test_array_likes_go_through_numpy_asarray():
    assert type(detred.sum([1.0, 2.5])) is np.float64
    assert detred.sum([[1.0, 2.0], [3.0, 4.0]]) == 10.0
    assert detred.sum(3.5) == 3.5
    assert detred.sum(np.float32(1.5)) == np.float32(1.5)


def test_zero_dimensional_array_is_its_own_sum(dtype):
    s = detred.sum(np.array(-2.25, dtype=dtype))
    assert type(s) is dtype and s == -2.25


def test_empty_sum_is_negative_zero(dtype, mode):
    s = detred.sum(np.empty(0, dtype=dtype), mode=mode)
    assert s == 0 and np.signbit(s)
    assert bits(detred.sum(np.empty((3, 0), dtype=dtype)), dtype) == bits(-0.0, dtype)


def test_nan_gives_the_canonical_nan(dtype, mode):
    x = values(5000, dtype)
    x.view(np.uint64 if dtype == np.float64 else np.uint32)[77] = 0xFFF0000000000123 if dtype == np.float64 else 0xFF800123
    assert np.isnan(x[77])
    canonical = np.array(0x7FF8000000000000 if dtype == np.float64 else 0x7FC00000,
                         dtype=np.uint64 if dtype == np.float64 else np.uint32).view(dtype)
    assert bits(detred.sum(x, mode=mode), dtype) == bits(canonical, dtype)


def test_infinities(dtype, mode):
    x = values(5000, dtype)
    x[10] = np.inf
    assert detred.sum(x, mode=mode) == np.inf
    x[20] = -np.inf
    assert np.isnan(detred.sum(x, mode=mode))
    big = np.full(4, np.finfo(dtype).max, dtype=dtype)
    assert detred.sum(big, mode=mode) == np.inf


# Layouts: every view is summed in its logical (C) order, as its contiguous copy.
def views(x):
    m = x.reshape(300, 40)
    return {
        "step": x[::3],
        "reversed": x[::-1],
        "transposed": m.T,
        "fortran": np.asfortranarray(m),
        "column": m[:, 7],
        "block": m[10:250:2, 5:33],
        "broadcast": np.broadcast_to(x[:50], (20, 50)),
    }


@pytest.mark.parametrize("layout", ["step", "reversed", "transposed", "fortran", "column", "block", "broadcast"])
def test_views_sum_as_their_contiguous_copy(layout, dtype, mode):
    v = views(values(12000, dtype))[layout]
    expected = detred.reference_sum(np.ascontiguousarray(v), mode=mode)
    for threads in [1, 2]:
        assert bits(detred.sum(v, mode=mode, threads=threads), dtype) == bits(expected, dtype)


def test_unaligned_array(dtype):
    x = values(10000, dtype)
    raw = np.zeros(x.nbytes + 1, dtype=np.uint8)
    unaligned = raw[1:].view(dtype)
    unaligned[:] = x
    assert not unaligned.flags.aligned
    assert bits(detred.sum(unaligned), dtype) == bits(detred.reference_sum(x), dtype)


# Axes: each output element is the sum of its lane as a contiguous array.
@pytest.mark.parametrize("axis", [0, 1, 2, -1, (0, 2), (1, 2), (0, 1, 2)])
def test_axis_lanes_sum_as_contiguous_arrays(axis, dtype, mode):
    x = values(6 * 500 * 7, dtype).reshape(6, 500, 7)
    out = detred.sum(x, mode=mode, axis=axis)
    axes = tuple(sorted(a % 3 for a in (axis if isinstance(axis, tuple) else (axis,))))
    kept = [k for k in range(3) if k not in axes]
    moved = np.moveaxis(x, kept, list(range(len(kept))))  # kept axes first, reduced axes after in order
    lanes = moved.reshape([x.shape[k] for k in kept] + [-1])
    if not kept:
        assert type(out) is dtype
        assert bits(out, dtype) == bits(detred.reference_sum(x, mode=mode), dtype)
        return
    assert out.dtype == dtype and out.shape == tuple(x.shape[k] for k in kept)
    expected = np.array([detred.reference_sum(np.ascontiguousarray(lane), mode=mode)
                         for lane in lanes.reshape(-1, lanes.shape[-1])], dtype=dtype).reshape(out.shape)
    assert bits(out, dtype) == bits(expected, dtype)
    assert bits(detred.sum(x, mode=mode, axis=axis, threads=3), dtype) == bits(out, dtype)


def test_axis_of_a_view_and_of_empty_lanes():
    x = values(4000, np.float64).reshape(40, 100)[::2, ::-3]
    out = detred.sum(x, axis=0)
    assert bits(out, np.float64) == bits([detred.reference_sum(np.ascontiguousarray(x[:, j]))
                                          for j in range(x.shape[1])], np.float64)
    empty_lanes = detred.sum(np.empty((3, 0)), axis=1)
    assert empty_lanes.shape == (3,) and np.all(np.signbit(empty_lanes))
    assert detred.sum(np.empty((0, 3)), axis=1).shape == (0,)


def test_all_axes_equal_axis_none(dtype):
    x = values(3 * 4 * 5, dtype).reshape(3, 4, 5)
    assert bits(detred.sum(x, axis=(0, 1, 2)), dtype) == bits(detred.sum(x), dtype)
    assert bits(detred.sum(x, axis=(2, 0, 1)), dtype) == bits(detred.sum(x), dtype)


def test_large_array_with_threads_matches_reference():
    x = values(1 << 22, np.float64)
    for mode in ["tree", "compensated"]:
        expected = bits(detred.reference_sum(x, mode=mode), np.float64)
        assert all(bits(detred.sum(x, mode=mode, threads=t), np.float64) == expected for t in [1, 2])


def test_concurrent_calls_from_python_threads():
    from concurrent.futures import ThreadPoolExecutor

    x = values(1 << 20, np.float64)
    expected = bits(detred.sum(x, threads=1), np.float64)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda t: detred.sum(x, threads=t), [1, 2, 1, 2, 0, 0]))
    assert all(bits(r, np.float64) == expected for r in results)


def test_version_attributes():
    assert detred.order_version == 2
    assert detred.__version__.count(".") == 2
    assert isinstance(detred.cuda_available(), bool)


def test_cuda_built_matches_the_build():
    import os

    expected = os.environ.get("DETRED_EXPECT_CUDA_BUILT")
    if expected is None:
        pytest.skip("DETRED_EXPECT_CUDA_BUILT is set by ctest only")
    assert detred.cuda_built == (expected.upper() in ("ON", "1", "TRUE"))
