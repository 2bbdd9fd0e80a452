// The seam of cuda_backend.hpp: detred::sum with backend::cuda. The library keeps one workspace per device,
// created on first use and reused by every later call; a mutex gives one call at a time each.
#include <map>
#include <memory>
#include <mutex>
#include <span>

#include <cuda_runtime_api.h>

#include "cuda_backend.hpp"
#include "cuda_check.hpp"
#include "detred/cuda.hpp"

namespace detred::cuda_backend {
namespace {

struct shared_workspace {
  std::mutex mutex;
  std::unique_ptr<cuda::workspace> ws;
};

shared_workspace& workspace_for_current_device() {
  int count = 0;
  cuda::detail::check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  int device = 0;
  cuda::detail::check(cudaGetDevice(&device), "cudaGetDevice");
  static std::mutex registry_mutex;
  // Never destroyed: freeing device memory from a static destructor can run after the CUDA runtime has shut down.
  static auto* const registry = new std::map<int, shared_workspace>();
  const std::lock_guard<std::mutex> lock(registry_mutex);
  return (*registry)[device];
}

template <class T>
T sum_any(std::span<const T> x, mode m) {
  shared_workspace& shared = workspace_for_current_device();
  const std::lock_guard<std::mutex> lock(shared.mutex);
  if (!shared.ws) shared.ws = std::make_unique<cuda::workspace>();
  return cuda::sum_host(x, *shared.ws, m);
}

}  // namespace

bool available() { return cuda::available(); }

double sum_host(std::span<const double> x, mode m) { return sum_any(x, m); }
float sum_host(std::span<const float> x, mode m) { return sum_any(x, m); }

}  // namespace detred::cuda_backend
