// SPDX-License-Identifier: BSD-3-Clause
// The little of the CUDA runtime the GPU path needs: which device holds a pointer, and making a device current.
// device_runtime_cuda.cpp implements it with the CUDA runtime; device_runtime_none.cpp, in a build without CUDA,
// says that there is no GPU support.
#pragma once

#include <cstdint>
#include <string>

#include "detred/cuda.hpp"

namespace detred::python {

/// True if this build has the CUDA backend (whether or not a device is present).
bool cuda_built();

/// Why no GPU array can be reduced now (built without CUDA, or no usable device); empty if one can.
std::string gpu_unavailable_reason();

/// The CUDA device that holds address p (the current device for 0). Throws detred::device_error.
int device_of(std::uintptr_t p);

/// Waits until the work enqueued on `stream` so far has run (for a second array whose producer names another
/// stream than the first's, on which the reduction runs). Throws detred::device_error.
void synchronize(detred::cuda::stream_t stream);

/// Makes `device` current for its lifetime, then restores the device that was current before.
class current_device_scope {
 public:
  explicit current_device_scope(int device);
  ~current_device_scope();
  current_device_scope(const current_device_scope&) = delete;
  current_device_scope& operator=(const current_device_scope&) = delete;

  int device() const { return device_; }

 private:
  int previous_ = -1;
  int device_ = -1;
};

}  // namespace detred::python
