// SPDX-License-Identifier: BSD-3-Clause
// Checks of the arguments common to every reduction.
#include "arguments.hpp"

#include <algorithm>
#include <string>

namespace py = pybind11;

namespace detred::python {
namespace {

// NumPy's AxisError (a ValueError and an IndexError): numpy.exceptions.AxisError since NumPy 1.25 (NumPy 2 has no
// numpy.AxisError), numpy.AxisError before; ValueError where neither exists.
[[noreturn]] void axis_error(const std::string& message) {
  static PyObject* const type = [] {
    const py::module_ numpy = py::module_::import("numpy");
    if (py::hasattr(numpy, "exceptions") && py::hasattr(numpy.attr("exceptions"), "AxisError")) {
      return py::object(numpy.attr("exceptions").attr("AxisError")).release().ptr();
    }
    if (py::hasattr(numpy, "AxisError")) return py::object(numpy.attr("AxisError")).release().ptr();
    return PyExc_ValueError;
  }();
  PyErr_SetString(type, message.c_str());
  throw py::error_already_set();
}

int normalized_axis(const py::handle& item, int ndim) {
  if (!PyIndex_Check(item.ptr()) || PyBool_Check(item.ptr())) {
    throw py::type_error("axis must be None, an int or a tuple of ints; got " +
                         std::string(py::str(py::type::of(item).attr("__name__"))));
  }
  const long long axis = py::cast<long long>(item);
  if (axis < -ndim || axis >= ndim) {
    axis_error("axis " + std::to_string(axis) + " is out of bounds for array of dimension " + std::to_string(ndim));
  }
  return static_cast<int>(axis < 0 ? axis + ndim : axis);
}

}  // namespace

detred::mode parse_mode(std::string_view name) {
  if (const auto m = detred::parse<detred::mode>(name)) return *m;
  throw py::value_error("mode must be " + detred::names<detred::mode>() + "; got '" + std::string(name) + "'");
}

int checked_threads(int threads) {
  if (threads < 0) {
    throw py::value_error("threads must be >= 0 (0 = the library's default); got " + std::to_string(threads));
  }
  return threads;
}

std::vector<int> reduced_axes(const py::object& axis, int ndim) {
  std::vector<int> axes;
  if (axis.is_none()) {
    for (int k = 0; k < ndim; ++k) axes.push_back(k);
    return axes;
  }
  if (py::isinstance<py::tuple>(axis)) {
    for (const py::handle item : axis) axes.push_back(normalized_axis(item, ndim));
  } else {
    axes.push_back(normalized_axis(axis, ndim));
  }
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) throw py::value_error("duplicate value in 'axis'");
  return axes;
}

void require_single_axis(const py::object& axis, std::string_view operation) {
  if (py::isinstance<py::tuple>(axis)) {
    throw py::type_error("detred." + std::string(operation) +
                         " takes axis=None or one int, as NumPy's does; got a tuple (reduce one axis at a time, or "
                         "move the axes together and reshape)");
  }
}

}  // namespace detred::python
