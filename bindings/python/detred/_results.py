# SPDX-License-Identifier: BSD-3-Clause
"""The record detred.stats returns."""

from typing import Any, NamedTuple


class Statistics(NamedTuple):
    """Summary statistics of the elements reduced, from one pass over memory (``detred.stats``).

    Each field is a NumPy scalar of the input's dtype (``count``: a Python int) when every axis is reduced, else an
    array with the kept axes (``count``: int64). ``sum`` is bit for bit ``detred.sum`` in tree mode; ``mean`` is
    ``sum / count`` with count converted to the dtype, one rounding of the division (not the correctly rounded mean);
    ``variance`` and ``stddev`` divide by ``count`` (``numpy.var``'s default,
    ddof=0), ``sample_variance`` and ``sample_stddev`` by ``count - 1`` (ddof=1); ``min`` and ``max`` follow
    ``detred.min`` and ``detred.max``. No elements: count 0, sum -0.0, the rest NaN. Any NaN makes every field but
    count NaN; the sample fields are NaN for one element.
    """

    count: Any
    sum: Any
    mean: Any
    variance: Any
    sample_variance: Any
    stddev: Any
    sample_stddev: Any
    min: Any
    max: Any
