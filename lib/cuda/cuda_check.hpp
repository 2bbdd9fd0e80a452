// SPDX-License-Identifier: BSD-3-Clause
// CUDA errors become detred::device_error, with the failing operation and the CUDA error text.
#pragma once

#include <string>

#include <cuda_runtime_api.h>

#include "detred/options.hpp"

namespace detred::cuda::detail {

[[noreturn]] inline void throw_cuda_error(cudaError_t status, const char* what) {
  // Reset the runtime's last-error slot (a no-op for sticky errors), so that a failure reported here is not
  // reported again by the next launch check of a later call.
  static_cast<void>(cudaGetLastError());
  throw device_error(std::string("CUDA ") + what + " failed: " + cudaGetErrorName(status) + ": " +
                     cudaGetErrorString(status));
}

inline void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw_cuda_error(status, what);
}

}  // namespace detred::cuda::detail
