# SPDX-License-Identifier: BSD-3-Clause
# stats written again from its specification alone (docs/canonical-order.md, "Operations" and "stats"), in Python
# scalars of the element type, and compared bit for bit with detred.stats: the docs must be precise enough for an
# independent implementation to reproduce every result.
import math

import numpy as np
import pytest

import detred

SHAPE = {np.float64: (64, 2048), np.float32: (128, 4096)}  # W, L


def lane_identity(t):
    zero = t(0.0)
    return [zero, t(-0.0), zero, zero, zero]  # c, sum, k, D1, D2 (min and max are kept apart: exact anyway)


def accumulate(s, x, t):
    c, total, k, d1, d2 = s
    if c == 0:
        k = x
    d = t(x - k)
    return [t(c + t(1)), t(total + x), k, t(d1 + d), t(d2 + t(d * d))]


def combine(a, b, t):
    delta = t(b[2] - a[2])
    a_empty, b_empty = a[0] == 0, b[0] == 0
    r = [t(a[0] + b[0]), t(a[1] + b[1]), b[2] if a_empty else a[2], None, None]
    d1 = t(a[3] + t(b[3] + t(b[0] * delta)))
    d2 = t(a[4] + t(b[4] + t(t(t(t(2) * delta) * b[3]) + t(t(b[0] * delta) * delta))))
    r[3] = b[3] if a_empty else (a[3] if b_empty else d1)
    r[4] = b[4] if a_empty else (a[4] if b_empty else d2)
    return r


def leaf_node(values, t):
    w, _ = SHAPE[t]
    lanes = [lane_identity(t) for _ in range(w)]
    for i, x in enumerate(values):
        lanes[i % w] = accumulate(lanes[i % w], x, t)
    h = w // 2
    while h >= 1:
        for j in range(h):
            lanes[j] = combine(lanes[j], lanes[j + h], t)
        h //= 2
    c, total, k, d1, d2 = lanes[0]
    c_prime = c if c != 0 else t(1)
    return (int(c), total, k, d1, t(d2 - t(d1 * t(d1 / c_prime))))


def merge(a, b, t):
    if a[0] == 0:
        return (b[0], t(a[1] + b[1]), b[2], b[3], b[4])
    if b[0] == 0:
        return (a[0], t(a[1] + b[1]), a[2], a[3], a[4])
    ca, cb, c = t(a[0]), t(b[0]), t(a[0] + b[0])
    dk = t(b[2] - a[2])
    delta = t(dk + t(t(b[3] / cb) - t(a[3] / ca)))
    m2 = t(t(a[4] + b[4]) + t(t(delta * delta) * t(t(ca * cb) / c)))
    d1 = t(a[3] + t(b[3] + t(cb * dk)))
    return (a[0] + b[0], t(a[1] + b[1]), a[2], d1, m2)


def tree(nodes, t):
    if len(nodes) == 1:
        return nodes[0]
    p = 1
    while p * 2 < len(nodes):
        p *= 2
    return merge(tree(nodes[:p], t), tree(nodes[p:], t), t)


def spec_stats(x):
    t = x.dtype.type
    _, leaf = SHAPE[t]
    values = [t(v) for v in x]
    n, total, _, _, m2 = tree([leaf_node(values[i:i + leaf], t) for i in range(0, len(values), leaf)], t)
    count = t(n)
    if not m2 >= 0:
        m2 = t(0) if math.isfinite(m2) else t(math.nan)
    variance = t(m2 / count)
    sample = t(m2 / t(count - t(1))) if n > 1 else t(math.nan)
    return total, t(total / count), variance, sample, t(np.sqrt(variance)), t(np.sqrt(sample))


def bits(v, t):
    return np.asarray(v, dtype=t).tobytes()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n", [1, 2, 3, 65, 2049, 4097, 9000])
@pytest.mark.parametrize("offset", [0.0, 1e4])
def test_the_specification_gives_the_librarys_bits(dtype, n, offset):
    rng = np.random.default_rng(n)
    x = (offset + rng.uniform(-1, 1, n) * np.exp2(rng.integers(-4, 5, n))).astype(dtype)
    s = detred.stats(x)
    got = (s.sum, s.mean, s.variance, s.sample_variance, s.stddev, s.sample_stddev)
    for name, mine, theirs in zip(["sum", "mean", "variance", "sample_variance", "stddev", "sample_stddev"],
                                  spec_stats(x), got):
        assert bits(mine, dtype) == bits(theirs, dtype), f"{name}: spec {mine!r}, detred {theirs!r}"
