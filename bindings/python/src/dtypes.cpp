// dtype checks and NumPy scalars.
#include "dtypes.hpp"

#include <string>

namespace py = pybind11;

namespace detred::python {
namespace {

constexpr int npy_float = 11;   // NPY_FLOAT
constexpr int npy_double = 12;  // NPY_DOUBLE

// numpy.float32 and numpy.float64, looked up once (never released: they live as long as NumPy).
PyObject* scalar_type(const char* name) { return py::object(py::module_::import("numpy").attr(name)).release().ptr(); }

py::object call(PyObject* type, double v) {
  PyObject* scalar = PyObject_CallOneArg(type, py::float_(v).ptr());
  if (scalar == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(scalar);
}

}  // namespace

element checked_element(const py::dtype& dtype, std::string_view operation) {
  const int num = dtype.num();
  if (num == npy_double || num == npy_float) {
    const char order = dtype.byteorder();
    const char native = PY_LITTLE_ENDIAN ? '<' : '>';
    if (order == '=' || order == '|' || order == native) {
      return num == npy_double ? element::f64 : element::f32;
    }
    throw py::type_error("detred." + std::string(operation) + " needs a native byte order; got dtype " +
                         py::repr(dtype).cast<std::string>() + " (convert with a.astype(a.dtype.newbyteorder('=')))");
  }
  throw py::type_error("detred." + std::string(operation) + " supports float32 and float64 arrays; got dtype " +
                       py::repr(dtype).cast<std::string>() + " (convert with a.astype(numpy.float64))");
}

element element_of(const py::dtype& dtype) { return dtype.num() == npy_double ? element::f64 : element::f32; }

py::object numpy_scalar(double v) {
  static PyObject* const type = scalar_type("float64");
  return call(type, v);
}

py::object numpy_scalar(float v) {
  static PyObject* const type = scalar_type("float32");
  // float -> double -> float is exact, NaN bits included.
  return call(type, static_cast<double>(v));
}

}  // namespace detred::python
