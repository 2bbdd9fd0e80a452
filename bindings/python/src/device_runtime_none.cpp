// SPDX-License-Identifier: BSD-3-Clause
// device_runtime.hpp in a build without CUDA: there is no GPU support to offer.
#include <string>

#include "detred/options.hpp"
#include "device_runtime.hpp"

namespace detred::python {

bool cuda_built() { return false; }

std::string gpu_unavailable_reason() {
  return "this build of detred has no CUDA backend (nvcc was not found when it was built)";
}

int device_of(std::uintptr_t) { throw detred::error(gpu_unavailable_reason()); }

void synchronize(detred::cuda::stream_t) { throw detred::error(gpu_unavailable_reason()); }

current_device_scope::current_device_scope(int) { throw detred::error(gpu_unavailable_reason()); }

current_device_scope::~current_device_scope() = default;

}  // namespace detred::python
