// SPDX-License-Identifier: BSD-3-Clause
// detred.dot.
#include <span>

#include "define.hpp"
#include "detred/cuda.hpp"
#include "detred/dot.hpp"
#include "docstrings.hpp"

namespace detred::python {
namespace {

struct dot_op : op_traits {
  static constexpr detred::operation catalogued = detred::operation::dot;
  static constexpr std::size_t arity = 2;
  static constexpr const char* name = "dot";
  static constexpr const char* doc[] = {R"(Deterministic dot product: the sum of a * b over all axes or the given ones.

``a`` and ``b`` have one shape and one dtype (no broadcasting, no type promotion). With axis=None the result is
that of the two arrays flattened in C order (``numpy.vdot`` for real arrays); with ``axis``, each output element
is the dot product of the two lanes it reduces (``numpy.sum(a * b, axis)``, without the rounding of a * b stored
first). The bits depend only on the number of elements and their values: never on ``threads`` or the machine.

Parameters
----------
a, b : array_like
    float64, float32, float16 or bfloat16 values; host arrays as for ``detred.sum``, or two C-contiguous GPU arrays
    on one device.
mode : {"tree", "compensated", "exact"}
    ``"tree"``: each product rounded, then added in the canonical tree. ``"compensated"``: every product's and
    every addition's rounding error is carried along (Ogita, Rump and Oishi's Dot2). ``"exact"``: the correctly
    rounded exact dot product (host and GPU arrays of every float type).
)" DETRED_DOC_AXIS_AND_THREADS R"(
Returns
-------
float64 for float64, float32 for float32, float16 and bfloat16 (widened exactly and dotted in float32; NumPy's
dot of float16 returns float16): a NumPy scalar, or an array with the kept axes.

Special values: empty arrays give -0.0; NaN, inf * 0 or inf - inf gives the canonical NaN.

Raises
------
TypeError
    for another dtype, or arrays of different dtypes.
ValueError
    for arrays of different shapes, an unknown mode, a negative thread count, a bad axis.
)"};

  template <class T>
  static auto host(std::span<const T> x, std::span<const T> y, const detred::options& opt)
      -> decltype(detred::dot(x, y, opt)) {
    return detred::dot(x, y, opt);
  }
  template <class T>
  static auto device(std::span<const T> x, std::span<const T> y, const detred::options& opt)
      -> decltype(detred::cuda::dot(x, y, opt)) {
    return detred::cuda::dot(x, y, opt);
  }
};

}  // namespace

void define_dot(pybind11::module_& m) { def_reduction<dot_op>(m); }

}  // namespace detred::python
