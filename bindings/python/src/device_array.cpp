// Reading __cuda_array_interface__ (version 2 and 3) and DLPack capsules (DLManagedTensor, dlpack.h).
#include "device_array.hpp"

#include <dlpack/dlpack.h>

#include <string>
#include <vector>

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
  a.type = checked_element(dtype, operation);
  const std::vector<py::ssize_t> shape = integers(interface["shape"]);
  a.size = element_count(shape);
  if (interface.contains("strides") && !interface["strides"].is_none()) {
    const std::vector<py::ssize_t> strides = integers(interface["strides"]);
    if (!c_contiguous(shape, strides, dtype.itemsize())) not_contiguous(operation);
  }
  if (interface.contains("mask") && !interface["mask"].is_none()) {
    throw py::value_error("detred." + std::string(operation) + " cannot reduce a masked GPU array");
  }
  a.data = interface["data"].cast<py::tuple>()[0].cast<std::uintptr_t>();
  // Version 3: the stream the producer's work is ordered on; computing on it orders the sum after that work.
  if (interface.contains("stream") && !interface["stream"].is_none()) {
    a.stream = reinterpret_cast<detred::cuda::stream_t>(interface["stream"].cast<std::intptr_t>());
  }
  return a;
}

device_array from_dlpack(const py::object& obj, std::string_view operation) {
  const auto device = obj.attr("__dlpack_device__")().cast<std::pair<int, int>>();
  // The producer makes the legacy default stream wait for its work before handing the tensor over.
  py::object capsule = obj.attr("__dlpack__")(py::arg("stream") = legacy_default_stream);
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  if (managed == nullptr) throw py::error_already_set();
  // Consumed: the capsule must no longer delete the tensor; our owner below does.
  if (PyCapsule_SetName(capsule.ptr(), "used_dltensor") != 0) throw py::error_already_set();
  device_array a;
  a.owner = std::shared_ptr<void>(managed, [](void* p) {
    auto* m = static_cast<DLManagedTensor*>(p);
    if (m->deleter != nullptr) m->deleter(m);
  });
  const DLTensor& t = managed->dl_tensor;
  a.device = device.second;
  a.stream = reinterpret_cast<detred::cuda::stream_t>(legacy_default_stream);
  if (t.dtype.code != kDLFloat || (t.dtype.bits != 32 && t.dtype.bits != 64) || t.dtype.lanes != 1) {
    throw py::type_error("detred." + std::string(operation) +
                         " supports float32 and float64 arrays; got a DLPack tensor of type code " +
                         std::to_string(t.dtype.code) + ", " + std::to_string(t.dtype.bits) + " bits, " +
                         std::to_string(t.dtype.lanes) + " lanes (convert with t.double() or a.astype(...))");
  }
  a.type = t.dtype.bits == 64 ? element::f64 : element::f32;
  const std::vector<py::ssize_t> shape(t.shape, t.shape + t.ndim);
  a.size = element_count(shape);
  if (t.strides != nullptr) {  // in elements; null means C-contiguous
    const std::vector<py::ssize_t> strides(t.strides, t.strides + t.ndim);
    if (!c_contiguous(shape, strides, 1)) not_contiguous(operation);
  }
  a.data = reinterpret_cast<std::uintptr_t>(t.data) + t.byte_offset;
  return a;
}

}  // namespace

device_protocol protocol_of(const py::handle& obj) {
  if (py::hasattr(obj, "__dlpack_device__") && py::hasattr(obj, "__dlpack__")) {
    const auto device = obj.attr("__dlpack_device__")().cast<std::pair<int, int>>();
    if (device.first == kDLCUDA || device.first == kDLCUDAManaged) return device_protocol::dlpack;
  }
  if (py::hasattr(obj, "__cuda_array_interface__")) return device_protocol::cuda_array_interface;
  return device_protocol::none;
}

device_array as_device_array(const py::object& obj, device_protocol protocol, std::string_view operation) {
  return protocol == device_protocol::dlpack ? from_dlpack(obj, operation) : from_cuda_array_interface(obj, operation);
}

}  // namespace detred::python
