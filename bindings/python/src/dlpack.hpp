// SPDX-License-Identifier: BSD-3-Clause
// Taking a tensor from a DLPack producer (obj.__dlpack__()): the capsule is consumed, and the tensor lives until
// the last owner lets it go.
#pragma once

#include <dlpack/dlpack.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace detred::python {

struct dlpack_tensor {
  /// Keeps the tensor alive; releasing the last copy calls the producer's deleter (with the GIL held).
  std::shared_ptr<void> owner;
  const DLTensor* tensor = nullptr;
};

/// obj.__dlpack__(stream=stream) (no stream argument when nothing), consumed.
dlpack_tensor take_dlpack(const pybind11::object& obj, std::optional<std::intptr_t> stream);

/// The tensor's shape, and its strides in elements (C-contiguous ones when it has none).
std::vector<pybind11::ssize_t> shape_of(const DLTensor& t);
std::vector<pybind11::ssize_t> strides_of(const DLTensor& t);

/// Its first element's address.
std::uintptr_t data_of(const DLTensor& t);

}  // namespace detred::python
