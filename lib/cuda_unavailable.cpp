// The CUDA seam in a build without CUDA: every call says so.
#include <span>

#include "cuda_backend.hpp"

namespace detred::cuda_backend {

bool available() { return false; }

double sum_host(std::span<const double>, mode) {
  throw error("backend::cuda requested, but this build of detred has no CUDA backend (nvcc was not found)");
}

float sum_host(std::span<const float>, mode) {
  throw error("backend::cuda requested, but this build of detred has no CUDA backend (nvcc was not found)");
}

}  // namespace detred::cuda_backend
