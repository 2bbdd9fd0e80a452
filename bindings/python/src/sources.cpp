// SPDX-License-Identifier: BSD-3-Clause
// Telling NumPy arrays, DLPack producers and CUDA arrays apart.
#include "sources.hpp"

#include <dlpack/dlpack.h>

#include <utility>

namespace py = pybind11;

namespace detred::python {

source source_of(const py::handle& obj) {
  if (py::isinstance<py::array>(obj)) return source::numpy;
  if (py::hasattr(obj, "__dlpack_device__") && py::hasattr(obj, "__dlpack__")) {
    const auto device = obj.attr("__dlpack_device__")().cast<std::pair<int, int>>();
    if (device.first == kDLCUDA || device.first == kDLCUDAManaged) return source::cuda_dlpack;
    if (device.first == kDLCPU) return source::host_dlpack;
  }
  if (py::hasattr(obj, "__cuda_array_interface__")) return source::cuda_array_interface;
  return source::other;
}

}  // namespace detred::python
