// NumPy arrays, CPU DLPack tensors and array-likes as host arrays.
#include "host_array.hpp"

#include <dlpack/dlpack.h>

#include <memory>
#include <string>

#include "dlpack.hpp"

namespace py = pybind11;

namespace detred::python {
namespace {

// A NumPy view of a CPU DLPack tensor; the view's base owns the tensor.
host_array from_dlpack(const py::object& obj, std::string_view operation) {
  dlpack_tensor taken = take_dlpack(obj, std::nullopt);
  const DLTensor& t = *taken.tensor;
  const std::optional<element> e = element_of_dlpack(t.dtype.code, t.dtype.bits, t.dtype.lanes);
  if (!e) {
    throw py::type_error("detred." + std::string(operation) + " cannot reduce a DLPack tensor of type code " +
                         std::to_string(t.dtype.code) + ", " + std::to_string(t.dtype.bits) + " bits, " +
                         std::to_string(t.dtype.lanes) + " lanes");
  }
  const py::dtype dtype = storage_dtype(*e);
  std::vector<py::ssize_t> strides = strides_of(t);
  for (py::ssize_t& s : strides) s *= dtype.itemsize();  // DLPack counts elements, NumPy bytes
  auto* owner = new std::shared_ptr<void>(std::move(taken.owner));
  const py::capsule base(owner, [](void* p) { delete static_cast<std::shared_ptr<void>*>(p); });
  return {py::array(dtype, shape_of(t), strides, reinterpret_cast<const void*>(data_of(t)), base), e};
}

}  // namespace

host_array as_host_array(const py::object& obj, source s, std::string_view operation) {
  py::array array;
  if (s == source::numpy) {
    array = py::reinterpret_borrow<py::array>(obj);
  } else if (s == source::host_dlpack) {
    return from_dlpack(obj, operation);
  } else {
    static PyObject* const asarray = py::object(py::module_::import("numpy").attr("asarray")).release().ptr();
    array = py::reinterpret_borrow<py::object>(asarray)(obj);
  }
  return {array, element_of(array.dtype(), operation)};
}

}  // namespace detred::python
