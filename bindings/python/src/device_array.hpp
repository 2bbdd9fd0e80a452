// GPU arrays from other libraries, seen through __cuda_array_interface__ (CuPy, Numba, PyTorch) or DLPack
// (__dlpack__ and __dlpack_device__: PyTorch, CuPy, JAX): where their elements are and on which stream to read them.
#pragma once

#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "detred/cuda.hpp"
#include "dtypes.hpp"

namespace detred::python {

/// How an object offers its GPU memory, if it does.
enum class device_protocol {
  none,                  ///< not a GPU array (a NumPy array, a list, a CPU tensor...)
  dlpack,                ///< __dlpack__ with __dlpack_device__ naming a CUDA device (preferred: it synchronizes)
  cuda_array_interface,  ///< __cuda_array_interface__
};

device_protocol protocol_of(const pybind11::handle& obj);

/// A C-contiguous float32 or float64 array in CUDA memory.
struct device_array {
  std::uintptr_t data = 0;  ///< address of its first element
  std::size_t size = 0;     ///< elements
  element type = element::f64;
  int device = -1;  ///< the CUDA device, or -1: the device of `data` (asked from the CUDA runtime)
  /// The stream to compute on: the producer's stream (__cuda_array_interface__), or the legacy default stream that
  /// the producer made wait for its work (DLPack).
  detred::cuda::stream_t stream = nullptr;
  /// Keeps a DLPack tensor alive; releasing it calls the tensor's deleter (with the GIL held).
  std::shared_ptr<void> owner;
};

/// The GPU array behind obj, by `protocol` (not none). TypeError for a dtype other than float32/float64 (naming
/// `operation`), NotImplementedError for a non-contiguous array.
device_array as_device_array(const pybind11::object& obj, device_protocol protocol, std::string_view operation);

}  // namespace detred::python
