// SPDX-License-Identifier: BSD-3-Clause
// A device buffer holding a copy of host data, for the host calls that stage their operands on the GPU (batches,
// scans of host arrays).
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "cuda_check.hpp"

namespace detred::cuda::detail {

/// A device copy of `bytes` at `host` (any memory cudaMemcpy reads; null: uninitialized), freed on scope exit. The
/// calls that use it are synchronous, so a plain cudaMalloc per call is cheap beside the staging itself.
class device_copy {
 public:
  device_copy(const void* host, std::uint64_t bytes) {
    if (bytes == 0) return;
    check(cudaMalloc(&p_, bytes), "cudaMalloc (staged operand)");
    if (host != nullptr) check(cudaMemcpy(p_, host, bytes, cudaMemcpyDefault), "cudaMemcpy (staged operand)");
  }
  ~device_copy() {
    if (p_ != nullptr) static_cast<void>(cudaFree(p_));
  }
  device_copy(const device_copy&) = delete;
  device_copy& operator=(const device_copy&) = delete;
  template <class T>
  T* as() const {
    return static_cast<T*>(p_);
  }
  /// Copies `bytes` from the device buffer to `host`.
  void copy_to(void* host, std::uint64_t bytes) const {
    if (bytes > 0) check(cudaMemcpy(host, p_, bytes, cudaMemcpyDefault), "cudaMemcpy (staged result)");
  }

 private:
  void* p_ = nullptr;
};

}  // namespace detred::cuda::detail
