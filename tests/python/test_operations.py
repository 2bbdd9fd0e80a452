# SPDX-License-Identifier: BSD-3-Clause
# Every operation on float64 and float32 host arrays: bits equal to the C++ library's for every size, mode and
# thread count; views and axes reduced as their contiguous copies; the identities that tie the operations together;
# NumPy's result types.
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import detred
from conftest import MODES, OP_SIZES, SELECTIONS, CxxError, as_cxx_bytes, bits, call, values

ONE_ARRAY_OPS = ["sum", "asum", "nrm2", "stats", "min", "max", "argmin", "argmax"]
# Each operation in each of its modes (the selections have none).
OPS_AND_MODES = [(op, mode) for op in ONE_ARRAY_OPS for mode in MODES if op not in SELECTIONS or mode == "tree"]


@pytest.mark.parametrize("n", OP_SIZES)
@pytest.mark.parametrize("op, mode", OPS_AND_MODES)
def test_bits_equal_cxx_for_every_thread_count(cxx, op, mode, n, dtype):
    x = values(n, dtype)
    try:
        expected = cxx(op, x, mode=mode)
    except CxxError as e:
        # C++ refuses (an empty selection, compensated stats): so must Python, with its message.
        with pytest.raises(ValueError, match=str(e).split(": ", 1)[1][:20]):
            call(op, x, mode)
        return
    for threads in [0, 1, 3]:
        assert as_cxx_bytes(op, call(op, x, mode, threads=threads), dtype) == expected, threads


@pytest.mark.parametrize("n", OP_SIZES)
def test_dot_bits_equal_cxx(cxx, n, dtype, mode):
    x, y = values(n, dtype, seed=1), values(n, dtype, seed=2)
    expected = cxx("dot", x, y, mode=mode)
    for threads in [0, 1, 3]:
        assert bits(detred.dot(x, y, mode=mode, threads=threads), dtype) == expected


def test_results_depend_on_the_order_and_mode():
    # The comparisons above can fail: these data give other bits in the other mode or in another order.
    x = values(100003, np.float64)
    ones = np.ones_like(x)
    assert bits(detred.dot(x, ones), np.float64) != bits(detred.dot(x, ones, mode="compensated"), np.float64)
    assert bits(detred.dot(x, ones), np.float64) != bits(detred.dot(x[::-1], ones), np.float64)
    f = np.random.default_rng(0).uniform(0.1, 1, 100003).astype(np.float32)
    assert bits(detred.asum(f), np.float32) != bits(detred.asum(f, mode="compensated"), np.float32)
    assert bits(detred.stats(x).variance, np.float64) != bits(detred.stats(x[::-1]).variance, np.float64)


def test_identities(dtype, mode):
    x = values(20011, dtype)
    assert bits(detred.dot(x, np.ones_like(x), mode=mode), dtype) == bits(detred.sum(x, mode=mode), dtype)
    assert bits(detred.asum(x, mode=mode), dtype) == bits(detred.sum(np.abs(x), mode=mode), dtype)
    s = detred.stats(x)
    assert bits(s.sum, dtype) == bits(detred.sum(x), dtype)
    assert bits(s.min, dtype) == bits(detred.min(x), dtype) and bits(s.max, dtype) == bits(detred.max(x), dtype)
    assert x[detred.argmin(x)] == detred.min(x) and x[detred.argmax(x)] == detred.max(x)


def test_values_close_to_numpy(dtype, mode):
    x, y = values(50001, dtype, seed=3), values(50001, dtype, seed=4)
    wide = x.astype(np.float64)
    tolerance = 1e-12 if dtype == np.float64 else 1e-5
    assert detred.dot(x, y, mode=mode) == pytest.approx(np.dot(wide, y.astype(np.float64)),
                                                        rel=tolerance * 100, abs=tolerance * np.sum(np.abs(wide)))
    assert detred.nrm2(x, mode=mode) == pytest.approx(np.linalg.norm(wide), rel=tolerance)
    assert detred.asum(x, mode=mode) == pytest.approx(np.sum(np.abs(wide)), rel=tolerance)
    assert detred.min(x) == np.min(x) and detred.argmax(x) == np.argmax(x)
    s = detred.stats(x)
    assert s.count == x.size
    assert s.mean == pytest.approx(np.mean(wide), rel=tolerance * 100)
    assert s.variance == pytest.approx(np.var(wide), rel=tolerance)
    assert s.sample_variance == pytest.approx(np.var(wide, ddof=1), rel=tolerance)
    assert s.stddev == pytest.approx(np.std(wide), rel=tolerance)
    assert s.sample_stddev == pytest.approx(np.std(wide, ddof=1), rel=tolerance)


def test_result_types_follow_numpy(dtype):
    x = values(100, dtype)
    for op in ["sum", "asum", "nrm2", "min", "max"]:
        assert type(getattr(detred, op)(x)) is dtype, op
    assert type(detred.dot(x, x)) is dtype
    assert type(detred.argmin(x)) is np.int64 and type(np.argmin(x)) is np.int64
    s = detred.stats(x)
    assert isinstance(s, detred.Statistics) and type(s.count) is int
    assert all(type(field) is dtype for field in s[1:])
    assert s._fields == ("count", "sum", "mean", "variance", "sample_variance", "stddev", "sample_stddev", "min", "max")


def test_nrm2_does_not_overflow_or_underflow():
    assert detred.nrm2([1e200, 1e200]) == pytest.approx(np.sqrt(2) * 1e200, rel=1e-15)
    assert np.isinf(np.linalg.norm([1e200, 1e200]))
    assert detred.nrm2([1e-200, 1e-200]) == pytest.approx(np.sqrt(2) * 1e-200, rel=1e-15)
    assert detred.nrm2(np.float32([3e30, 4e30])) == pytest.approx(5e30, rel=1e-6)
    assert bits(detred.nrm2(np.empty(0)), np.float64) == bits(0.0, np.float64)


def test_empty_arrays():
    assert np.signbit(detred.dot(np.empty(0), np.empty(0))) and np.signbit(detred.asum(np.empty(0)))
    s = detred.stats(np.empty(0, dtype=np.float32))
    assert s.count == 0 and np.signbit(s.sum) and np.isnan(s.mean) and np.isnan(s.min)


def test_stats_of_one_element_and_of_nan():
    s = detred.stats([2.5])
    assert s.mean == 2.5 and s.variance == 0 and np.isnan(s.sample_variance) and np.isnan(s.sample_stddev)
    s = detred.stats([1.0, np.nan, 3.0])
    assert s.count == 3 and all(np.isnan(field) for field in s[1:])


# Layouts and axes: every operation reduces a view as its contiguous copy, and each lane of an axis as one array.
def views(x):
    m = x.reshape(300, 40)
    return {"step": x[::3], "reversed": x[::-1], "transposed": m.T, "block": m[10:250:2, 5:33],
            "broadcast": np.broadcast_to(x[:50], (20, 50))}


@pytest.mark.parametrize("layout", ["step", "reversed", "transposed", "block", "broadcast"])
@pytest.mark.parametrize("op", ONE_ARRAY_OPS + ["dot"])
def test_views_reduce_as_their_contiguous_copy(op, layout, dtype):
    v = views(values(12000, dtype))[layout]
    w = views(values(12000, dtype, seed=9))[layout]
    copy = np.ascontiguousarray(v)
    if op == "dot":
        expected = detred.dot(copy, np.ascontiguousarray(w))
        got = [detred.dot(v, w, threads=t) for t in [1, 2]]
    else:
        expected = call(op, copy)
        got = [call(op, v, threads=t) for t in [1, 2]]
    for g in got:
        assert as_cxx_bytes(op, g, dtype) == as_cxx_bytes(op, expected, dtype)


# argmin and argmax take one axis, as NumPy's.
OPS_AND_AXES = [(op, axis) for op in ONE_ARRAY_OPS + ["dot"] for axis in [0, 1, 2, -1, (0, 2), (1, 2), (0, 1, 2)]
                if op not in ("argmin", "argmax") or not isinstance(axis, tuple)]


@pytest.mark.parametrize("op, axis", OPS_AND_AXES)
def test_axis_lanes_reduce_as_contiguous_arrays(op, axis, dtype):
    x = values(6 * 500 * 7, dtype).reshape(6, 500, 7)
    y = values(6 * 500 * 7, dtype, seed=5).reshape(6, 500, 7)
    axes = tuple(sorted(a % 3 for a in (axis if isinstance(axis, tuple) else (axis,))))
    kept = [k for k in range(3) if k not in axes]
    # Each lane: the kept axes first, the reduced ones after in order, flattened.
    lanes_of = lambda a: np.moveaxis(a, kept, list(range(len(kept)))).reshape([a.shape[k] for k in kept] + [-1])
    reduce = (lambda a, b, **kw: detred.dot(a, b, **kw)) if op == "dot" else (lambda a, b, **kw: call(op, a, **kw))
    out = reduce(x, y, axis=axis)
    lanes = lanes_of(x).reshape(-1, lanes_of(x).shape[-1])
    other = lanes_of(y).reshape(-1, lanes_of(y).shape[-1])
    expected = [reduce(np.ascontiguousarray(a), np.ascontiguousarray(b)) for a, b in zip(lanes, other)]
    if not kept:
        assert as_cxx_bytes(op, out, dtype) == as_cxx_bytes(op, expected[0], dtype)
        return
    shape = tuple(x.shape[k] for k in kept)
    if op == "stats":
        assert out.count.shape == shape and out.count.dtype == np.int64 and out.mean.dtype == dtype
        for i, e in enumerate(expected):
            assert as_cxx_bytes(op, detred.Statistics(*(f.reshape(-1)[i] for f in out)), dtype) == \
                as_cxx_bytes(op, e, dtype)
        return
    assert out.shape == shape
    assert out.dtype == (np.int64 if op in ("argmin", "argmax") else dtype)
    assert out.tobytes() == np.array(expected, dtype=out.dtype).tobytes()
    again = reduce(x, y, axis=axis, threads=3)
    assert as_cxx_bytes(op, again, dtype) == as_cxx_bytes(op, out, dtype)


def test_argmin_along_an_axis_matches_numpy():
    x = values(40 * 30, np.float64).reshape(40, 30)
    for axis in [0, 1, -1, None]:
        assert np.array_equal(detred.argmin(x, axis=axis), np.argmin(x, axis=axis))
        assert np.array_equal(detred.argmax(x, axis=axis), np.argmax(x, axis=axis))
    assert detred.argmin(x.T) == np.argmin(x.T)  # the index into the view flattened in C order


def test_empty_lanes():
    assert detred.min(np.empty((0, 3)), axis=1).shape == (0,)
    with pytest.raises(ValueError, match="empty"):
        detred.min(np.empty((3, 0)), axis=1)
    s = detred.stats(np.empty((3, 0)), axis=1)
    assert np.array_equal(s.count, [0, 0, 0]) and np.all(np.signbit(s.sum))


# 2-D arrays reduced along one axis go through the library's batched call (a matrix_view) when a stride is one
# element: C order, Fortran order and row slices; lines across leaf boundaries. Each lane must keep the bits of the
# single-array call on it as a contiguous array.
MATRIX_OPS_AND_MODES = [(op, mode) for op in ["sum", "asum", "nrm2", "stats", "min", "max"]
                        for mode in MODES + ["exact"]
                        if (op not in SELECTIONS and op != "stats") or mode == "tree"]


@pytest.mark.parametrize("shape", [(2, 5000), (4100, 3), (300, 257)])
@pytest.mark.parametrize("order", ["C", "F", "rows of a wider matrix"])
@pytest.mark.parametrize("op, mode", MATRIX_OPS_AND_MODES)
def test_matrix_axes_keep_the_bits_of_each_lane(op, mode, shape, order, dtype):
    rows, cols = shape
    if order == "rows of a wider matrix":
        m = values(rows * (cols + 5), dtype).reshape(rows, cols + 5)[:, 2:2 + cols]
    else:
        m = np.array(values(rows * cols, dtype).reshape(rows, cols), order=order)
    for axis in [0, 1]:
        lanes = m.T if axis == 0 else m
        try:
            expected = [call(op, np.ascontiguousarray(lane), mode) for lane in lanes]
        except ValueError as e:  # nrm2 has no exact mode: the axis call refuses it too
            with pytest.raises(ValueError, match=str(e).split(":", 1)[0]):
                call(op, m, mode, axis=axis)
            continue
        out = call(op, m, mode, axis=axis)
        again = call(op, m, mode, axis=axis, threads=3)
        if op == "stats":
            for i, e in enumerate(expected):
                got = detred.Statistics(*(f.reshape(-1)[i] for f in out))
                assert as_cxx_bytes(op, got, dtype) == as_cxx_bytes(op, e, dtype)
            assert as_cxx_bytes(op, again, dtype) == as_cxx_bytes(op, out, dtype)
            continue
        assert out.shape == (lanes.shape[0],) and out.dtype == dtype
        assert out.tobytes() == np.array(expected, dtype=dtype).tobytes()
        assert again.tobytes() == out.tobytes()


@pytest.mark.parametrize("kind", [np.float64, np.float32, np.float16])
def test_a_catalogue_operation_without_a_hand_written_binding(kind, mode):
    # sumsq is defined from the catalogue (src/ops/catalogue_ops.cpp): exported, documented, and bit for bit the dot
    # product of x with itself, whole and along an axis.
    assert "sumsq" in detred.__all__ and "sumsq" in detred._detred.catalogue_operations
    assert detred.sumsq.__doc__.startswith("sumsq(")
    x = np.random.default_rng(3).standard_normal((123, 45)).astype(kind)
    rtype = np.float32 if kind == np.float16 else kind
    for threads in [0, 1, 3]:
        assert bits(detred.sumsq(x, mode=mode, threads=threads), rtype) == bits(detred.dot(x, x, mode=mode), rtype)
    cols = detred.sumsq(x, mode=mode, axis=0)
    assert [bits(v, rtype) for v in cols] == [
        bits(detred.dot(np.ascontiguousarray(c), np.ascontiguousarray(c), mode=mode), rtype) for c in x.T]
    with pytest.raises(TypeError):
        detred.sumsq(np.arange(5))


def nearest_float32(q):
    """The float32 nearest the rational q, ties to even (float32(float(q)) would round twice)."""
    f = np.float32(float(q))
    candidates = [f, np.nextafter(f, np.float32(np.inf)), np.nextafter(f, np.float32(-np.inf))]
    return min(candidates, key=lambda c: (abs(Fraction(float(c)) - q), int(np.float32(c).view(np.uint32)) & 1))


@pytest.mark.parametrize("kind", [np.float64, np.float32])
def test_mean_from_the_catalogue(kind):
    # detred.mean, defined from the catalogue: tree mode is detred.stats' mean; exact mode the correctly rounded
    # quotient of the exact sum by n (Python's Fraction arithmetic is the oracle); NaN for no element.
    rng = np.random.default_rng(11)
    for n in [1, 2, 3, 1000, 4097]:
        x = (1e8 + rng.uniform(-1, 1, n)).astype(kind)
        assert bits(detred.mean(x), kind) == bits(detred.stats(x).mean, kind)
        exact = Fraction(0)
        for v in x.tolist():
            exact += Fraction(v)
        expected = float(exact / n) if kind == np.float64 else nearest_float32(exact / n)
        for threads in [1, 3]:
            assert bits(detred.mean(x, mode="exact", threads=threads), kind) == bits(expected, kind), n
    # A tie between two doubles goes to even; a term far below decides a near-tie.
    assert detred.mean(np.array([1.0, 1 + 2.0**-52]), mode="exact") == 1.0
    assert detred.mean(np.array([2.0, 2 + 2.0**-51, 2.0**-1000, 0.0]), mode="exact") == 1 + 2.0**-52
    assert np.isnan(detred.mean(np.array([], dtype=kind)))
    m = rng.standard_normal((7, 300)).astype(kind)
    rows = detred.mean(m, axis=1, mode="exact")
    assert [bits(v, kind) for v in rows] == [bits(detred.mean(np.ascontiguousarray(r), mode="exact"), kind) for r in m]


def test_every_catalogue_operation_has_a_type_stub():
    # The stubs (detred/__init__.pyi) are written by hand: an operation the catalogue adds must be given one.
    stubs = (Path(detred.__file__).parent / "__init__.pyi").read_text()
    for name in detred._detred.catalogue_operations:
        assert f"\ndef {name}(" in stubs, f"detred/__init__.pyi has no stub for {name}"
