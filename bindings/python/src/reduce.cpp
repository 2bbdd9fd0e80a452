// SPDX-License-Identifier: BSD-3-Clause
// The argument checks of reduce.hpp that do not depend on the operation.
#include "reduce.hpp"

#include <algorithm>

#include "device_runtime.hpp"

namespace py = pybind11;

namespace detred::python {
namespace {

std::string shape_text(const py::array& a) {
  std::string text = "(";
  for (py::ssize_t k = 0; k < a.ndim(); ++k) {
    text += std::to_string(a.shape(k)) + (a.ndim() == 1 ? ",)" : k + 1 < a.ndim() ? ", " : ")");
  }
  return a.ndim() == 0 ? "()" : text;
}

}  // namespace

void raise(PyObject* type, const std::string& message) {
  PyErr_SetString(type, message.c_str());
  throw py::error_already_set();
}

void check_gpu_call(std::string_view operation, std::span<const source> sources, bool takes_gpu_arrays,
                    const py::object& axis) {
  const std::string op(operation);
  if (!takes_gpu_arrays) {
    throw py::type_error("detred." + op + " takes host arrays only; copy the GPU array to the host first");
  }
  for (const source s : sources) {
    if (!on_gpu(s)) throw py::type_error("detred." + op + " takes GPU arrays or host arrays, not both together");
  }
  if (const std::string reason = gpu_unavailable_reason(); !reason.empty()) {
    raise(PyExc_RuntimeError, "detred." + op + " of a GPU array: " + reason);
  }
  if (!axis.is_none()) {
    raise(PyExc_NotImplementedError, "detred." + op + " of a GPU array reduces all of it: only axis=None");
  }
}

void check_same_gpu_arrays(std::string_view operation, std::span<const device_array> arrays) {
  for (const device_array& a : arrays.subspan(1)) {
    if (a.type != arrays[0].type) {
      throw py::type_error("detred." + std::string(operation) + " needs arrays of one dtype");
    }
    if (a.shape != arrays[0].shape) {
      throw py::value_error("detred." + std::string(operation) + " needs arrays of one shape");
    }
    if (a.device != arrays[0].device) {
      throw py::value_error("detred." + std::string(operation) + " needs arrays on one device");
    }
  }
}

void check_same_host_arrays(std::string_view operation, std::span<const host_array> arrays) {
  const py::array& first = arrays[0].array;
  for (const host_array& a : arrays.subspan(1)) {
    if (a.type != arrays[0].type || !a.array.dtype().equal(first.dtype())) {
      throw py::type_error("detred." + std::string(operation) + " needs arrays of one dtype; got " +
                           py::str(first.dtype()).cast<std::string>() + " and " +
                           py::str(a.array.dtype()).cast<std::string>() + " (convert one: b.astype(a.dtype))");
    }
    if (!std::equal(first.shape(), first.shape() + first.ndim(), a.array.shape(), a.array.shape() + a.array.ndim())) {
      throw py::value_error("detred." + std::string(operation) + " needs arrays of one shape; got " +
                            shape_text(first) + " and " + shape_text(a.array) + " (no broadcasting)");
    }
  }
}

void unsupported_dtype(std::string_view operation, const std::string& got, const std::string& supported,
                       const std::string& hint, bool on_gpu) {
  throw py::type_error("detred." + std::string(operation) + " supports " + supported + (on_gpu ? " GPU" : "") +
                       " arrays; got " + (on_gpu ? "" : "dtype ") + got +
                       (hint.empty() ? "" : " (convert with " + hint + ")"));
}

}  // namespace detred::python
