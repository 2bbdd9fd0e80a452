// SPDX-License-Identifier: BSD-3-Clause
// GPU arrays from other libraries, seen through __cuda_array_interface__ (CuPy, Numba, PyTorch) or DLPack
// (__dlpack__ and __dlpack_device__: PyTorch, CuPy, JAX): where their elements are and on which stream to read them.
#pragma once

#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "detred/cuda.hpp"
#include "dtypes.hpp"
#include "sources.hpp"

namespace detred::python {

/// A C-contiguous array in CUDA memory.
struct device_array {
  std::uintptr_t data = 0;  ///< address of its first element
  std::size_t size = 0;     ///< elements
  std::vector<pybind11::ssize_t> shape;
  std::optional<element> type;  ///< nothing for a type the library does not reduce
  std::string type_name;        ///< for messages: the dtype, or the DLPack type
  int device = -1;              ///< the CUDA device, or -1: the device of `data` (asked from the CUDA runtime)
  /// The stream to compute on: the producer's stream (__cuda_array_interface__), or the legacy default stream that
  /// the producer made wait for its work (DLPack).
  detred::cuda::stream_t stream = nullptr;
  /// Keeps a DLPack tensor alive; releasing it calls the tensor's deleter (with the GIL held).
  std::shared_ptr<void> owner;
};

/// The GPU array behind obj, by its source (cuda_dlpack or cuda_array_interface). NotImplementedError for a
/// non-contiguous array, ValueError for a masked one (both naming `operation`).
device_array as_device_array(const pybind11::object& obj, source s, std::string_view operation);

}  // namespace detred::python
