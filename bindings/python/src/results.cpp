// SPDX-License-Identifier: BSD-3-Clause
// NumPy scalars and detred.Statistics.
#include "results.hpp"

namespace py = pybind11;

namespace detred::python {
namespace {

// numpy.float64, numpy.int64, ... and detred.Statistics, looked up once (never released: they live as long as the
// interpreter).
PyObject* numpy_type(const char* name) { return py::object(py::module_::import("numpy").attr(name)).release().ptr(); }

PyObject* statistics_type() {
  static PyObject* const type = py::object(py::module_::import("detred._results").attr("Statistics")).release().ptr();
  return type;
}

py::object call(PyObject* type, const py::object& v) {
  PyObject* scalar = PyObject_CallOneArg(type, v.ptr());
  if (scalar == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(scalar);
}

template <class T>
py::object scalar_statistics(const detred::statistics<T>& s) {
  return py::reinterpret_borrow<py::object>(statistics_type())(
      py::int_(s.count), to_python(s.sum), to_python(s.mean), to_python(s.variance), to_python(s.sample_variance),
      to_python(s.stddev), to_python(s.sample_stddev), to_python(s.min), to_python(s.max));
}

// An array of `shape` holding member(s[i]) for every record.
template <class R, class T, class Member>
py::array member_array(const std::vector<detred::statistics<T>>& s, const std::vector<py::ssize_t>& shape,
                       Member member) {
  py::array_t<R> a(shape);
  R* out = a.mutable_data();
  for (const detred::statistics<T>& record : s) *out++ = static_cast<R>(member(record));
  return a;
}

}  // namespace

py::object to_python(double v) {
  static PyObject* const type = numpy_type("float64");
  return call(type, py::float_(v));
}

py::object to_python(float v) {
  static PyObject* const type = numpy_type("float32");
  // float -> double -> float is exact, NaN bits included.
  return call(type, py::float_(static_cast<double>(v)));
}

py::object to_python(std::int32_t v) {
  static PyObject* const type = numpy_type("int32");
  return call(type, py::int_(v));
}

py::object to_python(std::int64_t v) {
  static PyObject* const type = numpy_type("int64");
  return call(type, py::int_(v));
}

py::object to_python(std::uint32_t v) {
  static PyObject* const type = numpy_type("uint32");
  return call(type, py::int_(v));
}

py::object to_python(std::uint64_t v) {
  static PyObject* const type = numpy_type("uint64");
  return call(type, py::int_(v));
}

py::object to_python(const detred::statistics<double>& s) { return scalar_statistics(s); }
py::object to_python(const detred::statistics<float>& s) { return scalar_statistics(s); }

template <class T>
py::object to_python(const std::vector<detred::statistics<T>>& s, const std::vector<py::ssize_t>& shape) {
  using S = detred::statistics<T>;
  return py::reinterpret_borrow<py::object>(statistics_type())(
      member_array<std::int64_t>(s, shape, [](const S& r) { return r.count; }),
      member_array<T>(s, shape, [](const S& r) { return r.sum; }),
      member_array<T>(s, shape, [](const S& r) { return r.mean; }),
      member_array<T>(s, shape, [](const S& r) { return r.variance; }),
      member_array<T>(s, shape, [](const S& r) { return r.sample_variance; }),
      member_array<T>(s, shape, [](const S& r) { return r.stddev; }),
      member_array<T>(s, shape, [](const S& r) { return r.sample_stddev; }),
      member_array<T>(s, shape, [](const S& r) { return r.min; }),
      member_array<T>(s, shape, [](const S& r) { return r.max; }));
}

template py::object to_python(const std::vector<detred::statistics<double>>&, const std::vector<py::ssize_t>&);
template py::object to_python(const std::vector<detred::statistics<float>>&, const std::vector<py::ssize_t>&);

}  // namespace detred::python
