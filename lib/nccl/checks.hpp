// SPDX-License-Identifier: BSD-3-Clause
// CUDA and NCCL failures as detred::device_error, naming the failing operation with the library's own error text.
#pragma once

#include <string>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "detred/options.hpp"

namespace detred::nccl::detail {

inline void check_cuda(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  static_cast<void>(cudaGetLastError());  // clear the non-sticky error so that the next call does not report it
  throw device_error(std::string("detred::nccl: CUDA ") + what + " failed: " + cudaGetErrorName(status) + ": " +
                     cudaGetErrorString(status));
}

inline void check_nccl(ncclResult_t status, ncclComm_t comm, const char* what) {
  if (status == ncclSuccess || status == ncclInProgress) return;
  std::string text = std::string("detred::nccl: ") + what + " failed: " + ncclGetErrorString(status);
  if (const char* last = ncclGetLastError(comm); last != nullptr && *last != '\0')
    text += std::string(" (") + last + ")";
  throw device_error(text);
}

}  // namespace detred::nccl::detail
