// CUDA errors become detred::error, with the failing operation and the CUDA error text.
#pragma once

#include <string>

#include <cuda_runtime_api.h>

#include "detred/options.hpp"

namespace detred::cuda::detail {

[[noreturn]] inline void throw_cuda_error(cudaError_t status, const char* what) {
  throw error(std::string("CUDA ") + what + " failed: " + cudaGetErrorName(status) + ": " +
              cudaGetErrorString(status));
}

inline void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw_cuda_error(status, what);
}

}  // namespace detred::cuda::detail
