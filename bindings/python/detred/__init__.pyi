# Type stubs of the detred module (the extension detred._detred).
from typing import Any, Literal, SupportsIndex

import numpy as np
import numpy.typing as npt

__version__: str
order_version: int
cuda_built: bool

Mode = Literal["tree", "compensated"]
Axis = None | SupportsIndex | tuple[SupportsIndex, ...]

def sum(a: npt.ArrayLike | Any, mode: Mode = "tree", axis: Axis = None, threads: int = 0) -> Any:
    """Deterministic sum: numpy.float32/float64 when every axis is reduced, else an array of the input's dtype.

    ``a`` may also be a C-contiguous GPU array (``__cuda_array_interface__`` or DLPack), reduced on its device
    (axis=None only)."""

def reference_sum(a: npt.ArrayLike, mode: Mode = "tree", axis: Axis = None) -> Any:
    """The scalar reference implementation of sum (host arrays only): the specification in code."""

def cuda_available() -> bool:
    """True if detred has its CUDA backend and a usable CUDA device."""
