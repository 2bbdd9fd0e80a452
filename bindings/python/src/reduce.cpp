// The dispatch of a reduction between the host and the GPU path.
#include "reduce.hpp"

#include <pybind11/numpy.h>

#include <string>

#include "arguments.hpp"
#include "device_runtime.hpp"
#include "dtypes.hpp"

namespace py = pybind11;

namespace detred::python {
namespace {

[[noreturn]] void raise(PyObject* type, const std::string& message) {
  PyErr_SetString(type, message.c_str());
  throw py::error_already_set();
}

py::object reduce_gpu_array(std::string_view operation, const py::object& obj, device_protocol protocol, detred::mode m,
                            const py::object& axis, const device_calls* device) {
  const std::string op(operation);
  if (device == nullptr) {
    throw py::type_error("detred." + op + " takes host arrays only; copy the GPU array to the host first");
  }
  if (const std::string reason = gpu_unavailable_reason(); !reason.empty()) {
    raise(PyExc_RuntimeError, "detred." + op + " of a GPU array: " + reason);
  }
  if (!axis.is_none()) {
    raise(PyExc_NotImplementedError, "detred." + op + " of a GPU array reduces all of it: only axis=None");
  }
  return reduce_device(as_device_array(obj, protocol, operation), *device, m);
}

}  // namespace

py::object reduce(std::string_view operation, const py::object& a, detred::mode m, const py::object& axis, int threads,
                  const host_calls& host, const device_calls* device) {
  py::array array;
  if (py::isinstance<py::array>(a)) {
    array = py::reinterpret_borrow<py::array>(a);
  } else if (const device_protocol protocol = protocol_of(a); protocol != device_protocol::none) {
    return reduce_gpu_array(operation, a, protocol, m, axis, device);
  } else {
    static PyObject* const asarray = py::object(py::module_::import("numpy").attr("asarray")).release().ptr();
    array = py::reinterpret_borrow<py::object>(asarray)(a);
  }
  checked_element(array.dtype(), operation);
  return reduce_host(array, reduced_axes(axis, static_cast<int>(array.ndim())), host, m, threads);
}

}  // namespace detred::python
