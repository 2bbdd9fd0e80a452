// SPDX-License-Identifier: BSD-3-Clause
// detred.stats.
#include <span>

#include "define.hpp"
#include "detred/batched.hpp"
#include "detred/cuda.hpp"
#include "detred/stats.hpp"
#include "docstrings.hpp"

namespace detred::python {
namespace {

struct stats_op : op_traits {
  static constexpr detred::operation catalogued = detred::operation::stats;
  static constexpr const char* name = "stats";
  static constexpr const char* doc[] = {
      R"(Deterministic summary statistics from one read of the array, over all axes or the given ones.

Returns a ``detred.Statistics`` (a NamedTuple): count, sum, mean, variance, sample_variance, stddev,
sample_stddev, min and max. Each lane of the canonical order keeps its sum and the sums of the deviations and
squared deviations about a shift (its first element); each leaf's M2 (sum of squared deviations) joins the others
by Chan's pairwise update in the canonical leaf tree, with the means' difference formed from the shifts, so the
bits depend only on the number of elements and their values (docs/canonical-order.md). ``sum`` is bit for bit
``detred.sum`` (tree mode); ``mean`` is ``sum / count`` with count converted to the dtype, one rounding of the
division (not the correctly rounded mean: the sum is rounded, and for float32 a count past 2^24 is too);
``variance`` and ``stddev`` divide M2 by count (``numpy.var``, ``numpy.std`` with ddof=0), ``sample_variance`` and
``sample_stddev`` by count - 1 (ddof=1), the deviations being correctly rounded square roots; an M2 made negative
by rounding reads as 0. The variance's error is bounded by about K(n) u R^2 (R = max - min, K(n) a few hundred)
(docs/error-bounds.md): a large mean against the spread costs no accuracy. ``min`` and ``max`` follow
``detred.min`` and ``detred.max`` (NaN propagates, -0.0 < +0.0). NumPy's own var and std make two passes over the
data and differ from these in the last bits.

Parameters
----------
a : array_like
    float64 or float32 values: host arrays as for ``detred.sum``, or a C-contiguous GPU array.
mode : {"tree"}
    Only tree mode exists for now ("compensated": ValueError).
)" DETRED_DOC_AXIS_AND_THREADS R"(
Returns
-------
detred.Statistics of NumPy scalars of the input's dtype (count: int) when every axis is reduced, else of arrays
with the kept axes (count: int64). No elements: count 0, sum -0.0, the rest NaN (no error). Any NaN makes every
field but count NaN; the sample fields are NaN for one element.
)"};

  DETRED_PYTHON_FORWARD_UNARY(stats)
};

}  // namespace

void define_stats(pybind11::module_& m) { def_reduction<stats_op>(m); }

}  // namespace detred::python
