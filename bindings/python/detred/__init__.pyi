# SPDX-License-Identifier: BSD-3-Clause
# Type stubs of the detred module (the extension detred._detred and detred._results).
from typing import Any, Literal, SupportsIndex

import numpy as np
import numpy.typing as npt

from ._results import Statistics as Statistics  # the NamedTuple itself: one definition

__version__: str
order_version: int
state_format_version: int
cuda_built: bool

Mode = Literal["tree", "compensated", "exact"]
ScanMode = Literal["tree", "compensated"]  # the floating-point scans have no exact mode (docs/scan.md)
Axis = None | SupportsIndex | tuple[SupportsIndex, ...]
# Host arrays (anything numpy.asarray takes, CPU DLPack tensors) or GPU arrays (__cuda_array_interface__, DLPack).
Array = npt.ArrayLike | Any


def sum(a: Array, mode: Mode = "tree", axis: Axis = None, threads: int = 0) -> Any:
    """Deterministic sum. float64 -> float64, float32/float16/bfloat16 -> float32, int32/int64 -> int64 and
    uint32/uint64 -> uint64 (exact; OverflowError if it does not fit): a NumPy scalar when every axis is reduced,
    else an array. GPU arrays are reduced on their device (axis=None only)."""

def dot(a: Array, b: Array, mode: Mode = "tree", axis: Axis = None, threads: int = 0) -> Any:
    """Deterministic sum of a * b (same shape and dtype): float64 -> float64, float32/float16/bfloat16 -> float32."""

def asum(a: Array, mode: Mode = "tree", axis: Axis = None, threads: int = 0) -> Any:
    """Deterministic sum of |a| (float64, float32): bit for bit detred.sum(numpy.abs(a))."""

def nrm2(a: Array, mode: Mode = "tree", axis: Axis = None, threads: int = 0) -> Any:
    """Deterministic sqrt(sum a^2) without overflow or underflow in between (float64, float32)."""

def sumsq(a: Array, mode: Mode = "tree", axis: Axis = None, threads: int = 0) -> Any:
    """Deterministic sum of a^2 (float64, float32, float16, bfloat16 -> float32): bit for bit detred.dot(a, a).
    Defined from the library's catalogue (detred.catalogue_operations)."""

def mean(a: Array, mode: Mode = "tree", axis: Axis = None, threads: int = 0) -> Any:
    """Deterministic arithmetic mean (float64, float32, float16, bfloat16 -> float32): the sum divided by the count
    (NaN for no element); tree mode bit for bit detred.stats(a).mean, exact mode the correctly rounded mean.
    Defined from the library's catalogue (detred.catalogue_operations)."""

catalogue_operations: list[str]

def min(a: Array, axis: Axis = None, threads: int = 0) -> Any:
    """Deterministic minimum (float64, float32, int32, int64, uint32, uint64): NaN propagates, -0.0 < +0.0;
    ValueError for an empty array."""

def max(a: Array, axis: Axis = None, threads: int = 0) -> Any:
    """Deterministic maximum: the rules of detred.min."""

def argmin(a: Array, axis: None | SupportsIndex = None, threads: int = 0) -> Any:
    """Index (numpy.int64, 0-based) of the first NaN, else of the first minimum; -0.0 < +0.0."""

def argmax(a: Array, axis: None | SupportsIndex = None, threads: int = 0) -> Any:
    """Index (numpy.int64, 0-based) of the first NaN, else of the first maximum; -0.0 < +0.0."""

def stats(a: Array, mode: Literal["tree"] = "tree", axis: Axis = None, threads: int = 0) -> Statistics:
    """Count, sum, mean, variance, sample_variance, stddev, sample_stddev, min and max from one read (float64,
    float32)."""

def cumsum(a: npt.ArrayLike, axis: None | SupportsIndex = None, mode: ScanMode = "tree", out: np.ndarray | None = None,
           threads: int = 0) -> np.ndarray:
    """Deterministic inclusive prefix sums, as numpy.cumsum (axis=None flattens): float64 -> float64,
    float32/float16/bfloat16 -> float32, int32/int64 -> int64, uint32/uint64 -> uint64 (exact; OverflowError if an
    output does not fit). Host arrays only; out of the result's shape and dtype, a itself for in place."""

def exclusive_cumsum(a: npt.ArrayLike, axis: None | SupportsIndex = None, mode: ScanMode = "tree",
                     out: np.ndarray | None = None, threads: int = 0) -> np.ndarray:
    """Exclusive prefix sums: output 0 the empty sum (-0.0, or 0 for integers), output i detred.cumsum's output
    i - 1. Arguments and types as cumsum."""

def reference_sum(a: npt.ArrayLike, mode: Mode = "tree", axis: Axis = None) -> Any:
    """The scalar reference implementation of sum (float64, float32; host arrays only): the specification in code."""

def cuda_available() -> bool:
    """True if detred has its CUDA backend and a usable CUDA device."""
