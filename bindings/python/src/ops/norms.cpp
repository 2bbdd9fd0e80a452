// SPDX-License-Identifier: BSD-3-Clause
// detred.asum and detred.nrm2.
#include <span>

#include "define.hpp"
#include "detred/batched.hpp"
#include "detred/cuda.hpp"
#include "detred/norms.hpp"
#include "docstrings.hpp"

namespace detred::python {
namespace {

// What the two docstrings share.
constexpr const char norm_parameters[] = R"(
Parameters
----------
a : array_like
    float64 or float32 values: host arrays as for ``detred.sum``, or a C-contiguous GPU array.
mode : {"tree", "compensated", "exact"}
    As for ``detred.sum`` (compensated: each rounding error is carried along; exact: the correctly rounded |x|
    sum, or for nrm2 the square root of the exact sum of squares rounded once; host arrays, and GPU arrays
    whole).
axis : None, int or tuple of ints
    The axes to reduce (None: all); each output element is that of its lane as one contiguous array in C order.
)" DETRED_DOC_THREADS R"(
Returns
-------
A NumPy scalar of the input's dtype, or an array of it with the kept axes.

Raises
------
TypeError
    for another dtype (convert with a.astype(numpy.float64)).
ValueError
    for an unknown mode, a negative thread count, a bad axis.
)";

struct asum_op : op_traits {
  static constexpr detred::operation catalogued = detred::operation::asum;
  static constexpr const char* name = "asum";
  static constexpr const char* doc[] = {
      R"(Deterministic 1-norm: the sum of the magnitudes |a_i|, over all axes or the given ones.

Bit for bit ``detred.sum(numpy.abs(a))``, without the array of magnitudes. An empty array gives -0.0; NaN gives the
canonical NaN; the sum may overflow to +inf.
)",
      norm_parameters};

  DETRED_PYTHON_FORWARD_UNARY(asum)
};

struct nrm2_op : op_traits {
  static constexpr detred::operation catalogued = detred::operation::nrm2;
  static constexpr const char* name = "nrm2";
  static constexpr const char* doc[] = {R"(Deterministic 2-norm: sqrt(sum a_i^2), over all axes or the given ones.

No overflow or underflow in between: each square is scaled by a power of two chosen by the element's own magnitude
(Blue's algorithm, as LAPACK's dnrm2), so ``nrm2([1e200, 1e200])`` is right where ``numpy.linalg.norm`` gives inf.
An empty array gives +0.0; NaN gives the canonical NaN; an infinite element gives +inf.
)",
                                        norm_parameters};

  DETRED_PYTHON_FORWARD_UNARY(nrm2)
};

}  // namespace

void define_norms(pybind11::module_& m) {
  def_reduction<asum_op>(m);
  def_reduction<nrm2_op>(m);
}

}  // namespace detred::python
