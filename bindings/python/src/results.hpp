// SPDX-License-Identifier: BSD-3-Clause
// Results as Python objects: NumPy scalars of the result type (as NumPy's own reductions return), NumPy arrays for
// reductions over some axes, and detred.Statistics for stats.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "detred/statistics.hpp"

namespace detred::python {

/// numpy.float64(v), numpy.float32(v), numpy.int64(v), ...: NumPy's scalar of the C++ type.
pybind11::object to_python(double v);
pybind11::object to_python(float v);
pybind11::object to_python(std::int32_t v);
pybind11::object to_python(std::int64_t v);
pybind11::object to_python(std::uint32_t v);
pybind11::object to_python(std::uint64_t v);
/// detred.Statistics of NumPy scalars (count a Python int).
pybind11::object to_python(const detred::statistics<double>& s);
pybind11::object to_python(const detred::statistics<float>& s);

/// detred.Statistics of arrays of `shape` (count as int64), one element per statistics of `s` in C order.
template <class T>
pybind11::object to_python(const std::vector<detred::statistics<T>>& s, const std::vector<pybind11::ssize_t>& shape);

/// Where the values of a reduction go: one value (no axis kept: a scalar) or an array with the kept axes. data()
/// may be written without the GIL.
template <class R>
class output {
 public:
  explicit output(const std::vector<pybind11::ssize_t>& shape) : shape_(shape) {
    if constexpr (std::is_arithmetic_v<R>) {
      if (!shape.empty()) array_ = pybind11::array_t<R>(shape);
    } else {
      values_.resize(count(shape));
    }
  }

  R* data() {
    if constexpr (std::is_arithmetic_v<R>) {
      if (!shape_.empty()) return array_.mutable_data();
      return &scalar_;
    } else {
      return values_.data();
    }
  }

  pybind11::object finish() {
    if constexpr (std::is_arithmetic_v<R>) {
      return shape_.empty() ? to_python(scalar_) : pybind11::object(array_);
    } else {
      return shape_.empty() ? to_python(values_[0]) : to_python(values_, shape_);
    }
  }

 private:
  static std::size_t count(const std::vector<pybind11::ssize_t>& shape) {
    std::size_t n = 1;
    for (const pybind11::ssize_t e : shape) n *= static_cast<std::size_t>(e);
    return n;
  }

  std::vector<pybind11::ssize_t> shape_;
  R scalar_{};
  // An array for numbers; the records (statistics) go to values_, turned into arrays by finish().
  std::conditional_t<std::is_arithmetic_v<R>, pybind11::array_t<R>, pybind11::object> array_;
  std::vector<R> values_;
};

}  // namespace detred::python
