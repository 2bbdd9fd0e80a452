// SPDX-License-Identifier: BSD-3-Clause
// Consuming DLPack capsules (DLManagedTensor, dlpack.h).
#include "dlpack.hpp"

#include <dlpack/dlpack.h>

namespace py = pybind11;

namespace detred::python {

dlpack_tensor take_dlpack(const py::object& obj, std::optional<std::intptr_t> stream) {
  py::object capsule = stream ? obj.attr("__dlpack__")(py::arg("stream") = *stream) : obj.attr("__dlpack__")();
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  if (managed == nullptr) throw py::error_already_set();
  // Consumed: the capsule must no longer delete the tensor; our owner does.
  if (PyCapsule_SetName(capsule.ptr(), "used_dltensor") != 0) throw py::error_already_set();
  dlpack_tensor t;
  t.owner = std::shared_ptr<void>(managed, [](void* p) {
    auto* m = static_cast<DLManagedTensor*>(p);
    if (m->deleter != nullptr) m->deleter(m);
  });
  t.tensor = &managed->dl_tensor;
  return t;
}

std::vector<py::ssize_t> shape_of(const DLTensor& t) { return {t.shape, t.shape + t.ndim}; }

std::vector<py::ssize_t> strides_of(const DLTensor& t) {
  if (t.strides != nullptr) return {t.strides, t.strides + t.ndim};
  std::vector<py::ssize_t> strides(static_cast<std::size_t>(t.ndim));
  py::ssize_t step = 1;
  for (int k = t.ndim; k-- > 0;) {
    strides[static_cast<std::size_t>(k)] = step;
    step *= t.shape[k];
  }
  return strides;
}

std::uintptr_t data_of(const DLTensor& t) { return reinterpret_cast<std::uintptr_t>(t.data) + t.byte_offset; }

}  // namespace detred::python
