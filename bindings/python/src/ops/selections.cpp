// SPDX-License-Identifier: BSD-3-Clause
// detred.min, detred.max, detred.argmin, detred.argmax.
#include <cstdint>
#include <span>

#include "define.hpp"
#include "detred/batched.hpp"
#include "detred/cuda.hpp"
#include "detred/extrema.hpp"

namespace detred::python {
namespace {

// The rules and arguments the four docstrings share.
constexpr const char selection_rules[] = R"(
Rules that make the answer unique on every machine (NumPy's differ where noted):

- NaN propagates: min and max return the canonical quiet NaN if any element is NaN (as numpy.min, whose NaN keeps
  its payload); argmin and argmax return the index of the first NaN (as numpy.argmin).
- -0.0 is smaller than +0.0: min of [0.0, -0.0] is -0.0 and max is +0.0, whatever their order; argmin of
  [0.0, -0.0] is 1. NumPy treats the zeros as equal (numpy.argmin gives 0; which zero numpy.min returns depends on
  its implementation).
- Ties go to the lowest index (as NumPy).
- An empty array (or an empty lane along ``axis``) has no minimum: ValueError (as NumPy).

Nothing is rounded, so there is no mode; the bits never depend on ``threads`` or the machine.

Parameters
----------
a : array_like
    float64, float32, int32, int64, uint32 or uint64 values: host arrays as for ``detred.sum``, or a C-contiguous
    GPU array.
)";

constexpr const char value_returns[] = R"(axis : None, int or tuple of ints
    The axes to reduce (None: all).
threads : int
    CPU threads; 0 = the library's default.

Returns
-------
A NumPy scalar of the input's dtype, or an array of it with the kept axes.
)";

constexpr const char index_returns[] = R"(axis : None or int
    None: the index into the array flattened in C order; an int: the index along that axis (as NumPy's argmin,
    which takes no tuple of axes).
threads : int
    CPU threads; 0 = the library's default.

Returns
-------
numpy.int64 (numpy.intp), or an int64 array with the other axes: 0-based, as NumPy's.
)";

struct min_op : op_traits {
  static constexpr detred::operation catalogued = detred::operation::min;
  static constexpr bool has_mode = false;
  static constexpr const char* name = "min";
  static constexpr const char* doc[] = {
      "Deterministic minimum of the elements of an array, over all axes or the given ones.\n", selection_rules,
      value_returns};

  DETRED_PYTHON_FORWARD_UNARY(min)
};

struct max_op : op_traits {
  static constexpr detred::operation catalogued = detred::operation::max;
  static constexpr bool has_mode = false;
  static constexpr const char* name = "max";
  static constexpr const char* doc[] = {
      "Deterministic maximum of the elements of an array, over all axes or the given ones.\n", selection_rules,
      value_returns};

  DETRED_PYTHON_FORWARD_UNARY(max)
};

// Indices come back as int64, NumPy's index type (numpy.intp on 64-bit machines); no array has 2^63 elements.
struct argmin_op : op_traits {
  static constexpr detred::operation catalogued = detred::operation::argmin;
  static constexpr bool has_mode = false;
  static constexpr bool single_axis = true;
  static constexpr const char* name = "argmin";
  static constexpr const char* doc[] = {
      "Deterministic index of the minimum: the first NaN, else the first element equal to the minimum.\n",
      selection_rules, index_returns};

  DETRED_PYTHON_FORWARD_INDEX(argmin)
};

struct argmax_op : op_traits {
  static constexpr detred::operation catalogued = detred::operation::argmax;
  static constexpr bool has_mode = false;
  static constexpr bool single_axis = true;
  static constexpr const char* name = "argmax";
  static constexpr const char* doc[] = {
      "Deterministic index of the maximum: the first NaN, else the first element equal to the maximum.\n",
      selection_rules, index_returns};

  DETRED_PYTHON_FORWARD_INDEX(argmax)
};

}  // namespace

void define_selections(pybind11::module_& m) {
  def_reduction<min_op>(m);
  def_reduction<max_op>(m);
  def_reduction<argmin_op>(m);
  def_reduction<argmax_op>(m);
}

}  // namespace detred::python
