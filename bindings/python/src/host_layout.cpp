// SPDX-License-Identifier: BSD-3-Clause
// Splitting the axes of host arrays into kept and reduced ones.
#include "host_layout.hpp"

#include <algorithm>

namespace py = pybind11;

namespace detred::python {

lane_layout split(std::span<const py::array> arrays, const std::vector<int>& axes) {
  lane_layout s;
  const py::array& first = arrays.front();
  for (int k = 0; k < static_cast<int>(first.ndim()); ++k) {
    const bool reduced = std::binary_search(axes.begin(), axes.end(), k);
    (reduced ? s.reduced_shape : s.kept_shape).push_back(first.shape(k));
    (reduced ? s.lane_length : s.lanes) *= first.shape(k);
  }
  for (const py::array& a : arrays) {
    operand_layout o;
    o.base = static_cast<const char*>(a.data());
    o.aligned = (a.flags() & py::detail::npy_api::NPY_ARRAY_ALIGNED_) != 0;
    for (int k = 0; k < static_cast<int>(a.ndim()); ++k) {
      const bool reduced = std::binary_search(axes.begin(), axes.end(), k);
      (reduced ? o.reduced_strides : o.kept_strides).push_back(a.strides(k));
    }
    s.operands.push_back(std::move(o));
  }
  return s;
}

}  // namespace detred::python
