// The element types the bindings reduce (float32 and float64 in native byte order), and NumPy scalars of them.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string_view>

namespace detred::python {

enum class element { f32, f64 };

/// The element type of a dtype the library reduces. TypeError naming the operation and the dtype otherwise, with
/// the conversion to use.
element checked_element(const pybind11::dtype& dtype, std::string_view operation);

/// The element type of a dtype already checked by checked_element.
element element_of(const pybind11::dtype& dtype);

/// numpy.float64(v) / numpy.float32(v): NumPy's scalar of the element type, as NumPy's own reductions return.
pybind11::object numpy_scalar(double v);
pybind11::object numpy_scalar(float v);

}  // namespace detred::python
