// SPDX-License-Identifier: BSD-3-Clause
// Reading __cuda_array_interface__ (version 2 and 3) and CUDA DLPack tensors.
#include "device_array.hpp"

#include <dlpack/dlpack.h>

#include <string>
#include <vector>

#include "dlpack.hpp"
#include "strided.hpp"

namespace py = pybind11;

namespace detred::python {
namespace {

// DLPack's stream value for CUDA's legacy default stream, which is also cudaStreamLegacy's handle.
constexpr std::intptr_t legacy_default_stream = 1;

[[noreturn]] void not_contiguous(std::string_view operation) {
  PyErr_SetString(PyExc_NotImplementedError,
                  ("detred." + std::string(operation) +
                   " of a GPU array needs a C-contiguous array; make one first (cupy.ascontiguousarray(a), "
                   "t.contiguous())")
                      .c_str());
  throw py::error_already_set();
}

std::size_t element_count(const std::vector<py::ssize_t>& shape) {
  std::size_t n = 1;
  for (const py::ssize_t e : shape) n *= static_cast<std::size_t>(e);
  return n;
}

/// A tuple of integers (shape, strides) as a vector, element by element: casting to std::vector needs
/// pybind11/stl.h, whose casters would then differ between translation units.
static std::vector<py::ssize_t> integers(const py::handle& tuple) {
  std::vector<py::ssize_t> out;
  for (const py::handle e : tuple.cast<py::tuple>()) out.push_back(e.cast<py::ssize_t>());
  return out;
}

device_array from_cuda_array_interface(const py::object& obj, std::string_view operation) {
  const py::dict interface = obj.attr("__cuda_array_interface__");
  device_array a;
  const py::dtype dtype(interface["typestr"].cast<std::string>());
  a.type = element_of(dtype, operation);
  a.type_name = py::str(dtype.attr("name")).cast<std::string>();
  a.shape = integers(interface["shape"]);
  a.size = element_count(a.shape);
  if (interface.contains("strides") && !interface["strides"].is_none()) {
    const std::vector<py::ssize_t> strides = integers(interface["strides"]);
    if (!c_contiguous(a.shape, strides, item_size(dtype))) not_contiguous(operation);
  }
  if (interface.contains("mask") && !interface["mask"].is_none()) {
    throw py::value_error("detred." + std::string(operation) + " cannot reduce a masked GPU array");
  }
  a.data = interface["data"].cast<py::tuple>()[0].cast<std::uintptr_t>();
  // Version 3: the stream the producer's work is ordered on; computing on it orders the reduction after that work.
  if (interface.contains("stream") && !interface["stream"].is_none()) {
    a.stream = reinterpret_cast<detred::cuda::stream_t>(interface["stream"].cast<std::intptr_t>());
  }
  return a;
}

/// NumPy's name for a DLPack element type (int8, uint16, float64, bfloat16, complex64, bool), as the host path's
/// messages name dtypes; the raw codes where NumPy has no name.
std::string dlpack_type_name(int code, int bits, int lanes) {
  const std::string width = std::to_string(bits);
  std::string name;
  switch (code) {
    case kDLInt:
      name = "int" + width;
      break;
    case kDLUInt:
      name = "uint" + width;
      break;
    case kDLFloat:
      name = "float" + width;
      break;
    case kDLBfloat:
      name = "bfloat" + width;
      break;
    case kDLComplex:
      name = "complex" + width;
      break;
    case 6:  // kDLBool, from DLPack 0.8 on (Debian 12 ships 0.6)
      name = "bool";
      break;
    default:
      name = "DLPack type code " + std::to_string(code) + " of " + width + " bits";
  }
  return lanes == 1 ? name : name + " x " + std::to_string(lanes) + " lanes";
}

device_array from_dlpack(const py::object& obj, std::string_view operation) {
  const auto device = obj.attr("__dlpack_device__")().cast<std::pair<int, int>>();
  // The producer makes the legacy default stream wait for its work before handing the tensor over.
  dlpack_tensor taken = take_dlpack(obj, legacy_default_stream);
  const DLTensor& t = *taken.tensor;
  device_array a;
  a.owner = std::move(taken.owner);
  a.device = device.second;
  a.stream = reinterpret_cast<detred::cuda::stream_t>(legacy_default_stream);
  a.type = element_of_dlpack(t.dtype.code, t.dtype.bits, t.dtype.lanes);
  a.type_name = a.type ? name_of(*a.type) : dlpack_type_name(t.dtype.code, t.dtype.bits, t.dtype.lanes);
  a.shape = shape_of(t);
  a.size = element_count(a.shape);
  if (!c_contiguous(a.shape, strides_of(t), 1)) not_contiguous(operation);
  a.data = data_of(t);
  return a;
}

}  // namespace

device_array as_device_array(const py::object& obj, source s, std::string_view operation) {
  return s == source::cuda_dlpack ? from_dlpack(obj, operation) : from_cuda_array_interface(obj, operation);
}

}  // namespace detred::python
