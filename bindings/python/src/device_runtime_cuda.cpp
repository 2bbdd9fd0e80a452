// SPDX-License-Identifier: BSD-3-Clause
// device_runtime.hpp with the CUDA runtime.
#include <cuda_runtime_api.h>

#include <string>

#include "detred/cuda.hpp"
#include "device_runtime.hpp"

namespace detred::python {
namespace {

void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess) {
    throw detred::device_error(std::string(call) + " failed: " + cudaGetErrorString(status));
  }
}

}  // namespace

bool cuda_built() { return true; }

std::string gpu_unavailable_reason() {
  if (detred::cuda::available()) return {};
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  return std::string("no usable CUDA device (") + (status == cudaSuccess ? "none found" : cudaGetErrorString(status)) +
         ")";
}

int device_of(std::uintptr_t p) {
  int device = 0;
  if (p == 0) {
    check(cudaGetDevice(&device), "cudaGetDevice");
    return device;
  }
  cudaPointerAttributes attributes{};
  check(cudaPointerGetAttributes(&attributes, reinterpret_cast<const void*>(p)), "cudaPointerGetAttributes");
  if (attributes.type != cudaMemoryTypeDevice && attributes.type != cudaMemoryTypeManaged) {
    throw detred::error("the array's __cuda_array_interface__ points to memory that is not on a CUDA device");
  }
  return attributes.device;
}

void synchronize(detred::cuda::stream_t stream) {
  check(cudaStreamSynchronize(reinterpret_cast<cudaStream_t>(stream)), "cudaStreamSynchronize");
}

current_device_scope::current_device_scope(int device) : device_(device) {
  check(cudaGetDevice(&previous_), "cudaGetDevice");
  if (previous_ != device) check(cudaSetDevice(device), "cudaSetDevice");
}

current_device_scope::~current_device_scope() {
  int now = previous_;
  if (cudaGetDevice(&now) == cudaSuccess && now != previous_) cudaSetDevice(previous_);
}

}  // namespace detred::python
