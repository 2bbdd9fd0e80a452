// SPDX-License-Identifier: BSD-3-Clause
// NumPy arrays, CPU DLPack tensors and array-likes as host arrays.
#include "host_array.hpp"

#include <dlpack/dlpack.h>

#include <memory>
#include <optional>

#include "dlpack.hpp"

namespace py = pybind11;

namespace detred::python {
namespace {

// numpy.<name> (never released: it lives as long as NumPy), or numpy.asarray where this NumPy lacks it.
PyObject* numpy_function(const char* name) {
  const py::module_ numpy = py::module_::import("numpy");
  return py::object(numpy.attr(py::hasattr(numpy, name) ? name : "asarray")).release().ptr();
}

// A NumPy view of a CPU DLPack tensor, the view's base owning the tensor; nothing for a type the library does not
// reduce (numpy.from_dlpack then makes an array whose dtype the error message can name).
std::optional<host_array> from_dlpack(const py::object& obj) {
  dlpack_tensor taken = take_dlpack(obj, std::nullopt);
  const DLTensor& t = *taken.tensor;
  const std::optional<element> e = element_of_dlpack(t.dtype.code, t.dtype.bits, t.dtype.lanes);
  if (!e) return std::nullopt;
  const py::dtype dtype = storage_dtype(*e);
  std::vector<py::ssize_t> strides = strides_of(t);
  for (py::ssize_t& s : strides) s *= item_size(dtype);  // DLPack counts elements, NumPy bytes
  auto* owner = new std::shared_ptr<void>(std::move(taken.owner));
  const py::capsule base(owner, [](void* p) { delete static_cast<std::shared_ptr<void>*>(p); });
  return host_array{py::array(dtype, shape_of(t), strides, reinterpret_cast<const void*>(data_of(t)), base), e};
}

}  // namespace

host_array as_host_array(const py::object& obj, source s, std::string_view operation) {
  py::array array;
  if (s == source::numpy) {
    array = py::reinterpret_borrow<py::array>(obj);
  } else if (s == source::host_dlpack) {
    if (std::optional<host_array> a = from_dlpack(obj)) return *a;
    static PyObject* const numpy_from_dlpack = numpy_function("from_dlpack");
    array = py::reinterpret_borrow<py::object>(numpy_from_dlpack)(obj);
  } else {
    static PyObject* const asarray = numpy_function("asarray");
    array = py::reinterpret_borrow<py::object>(asarray)(obj);
  }
  return {array, element_of(array.dtype(), operation)};
}

}  // namespace detred::python
