// SPDX-License-Identifier: BSD-3-Clause
// NumPy arrays, CPU DLPack tensors and array-likes as host arrays.
#include "host_array.hpp"

#include <dlpack/dlpack.h>

#include <memory>
#include <optional>
#include <string>

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

// Refuses an argument whose meaning numpy.asarray would drop (docs/bindings.md, "Masked arrays and missing values"):
// a NumPy masked array (its mask: NumPy's own reductions skip the masked elements, asarray keeps them), and a pandas
// object with missing values (pandas skips them, asarray gives NaN or objects). The type decides for masked arrays,
// whatever the mask holds, so that one call does not work on some data and fail on other data of the same kind.
void refuse_dropped_meaning(const py::object& obj, source s, std::string_view operation) {
  const auto op = [&] { return "detred." + std::string(operation); };
  if (s == source::numpy) {
    static PyObject* const ndarray = py::object(py::module_::import("numpy").attr("ndarray")).release().ptr();
    if (reinterpret_cast<PyObject*>(Py_TYPE(obj.ptr())) == ndarray) return;  // a plain ndarray: one comparison
    static PyObject* const masked = py::object(py::module_::import("numpy.ma").attr("MaskedArray")).release().ptr();
    if (PyObject_IsInstance(obj.ptr(), masked) == 1) {
      throw py::type_error(op() +
                           " does not take numpy.ma masked arrays: numpy.asarray would drop the mask and the "
                           "masked elements would be reduced; pass x.compressed() (the unmasked elements) or "
                           "x.filled(v) (the masked ones replaced by v, e.g. 0 for a sum)");
    }
    return;
  }
  if (s != source::other) return;
  const std::string module = py::str(py::type::of(obj).attr("__module__")).cast<std::string>();
  if (module.rfind("pandas", 0) != 0 || !py::hasattr(obj, "isna")) return;
  static PyObject* const asarray = numpy_function("asarray");
  const py::object missing = py::reinterpret_borrow<py::object>(asarray)(obj.attr("isna")()).attr("any")();
  if (missing.cast<bool>()) {
    throw py::type_error(op() +
                         " does not take pandas objects with missing values (NaN, None, NaT or pandas.NA): "
                         "pandas skips them, numpy.asarray would not; pass s.dropna().to_numpy() (skip them) "
                         "or s.fillna(v).to_numpy() (replace them by v, e.g. 0 for a sum)");
  }
}

}  // namespace

host_array as_host_array(const py::object& obj, source s, std::string_view operation) {
  refuse_dropped_meaning(obj, s, operation);
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
