// SPDX-License-Identifier: BSD-3-Clause
#include "call_workspace.hpp"

#include <map>
#include <utility>

#include <cuda_runtime_api.h>

#include "cuda_check.hpp"

namespace detred::cuda::detail {

shared_workspace& shared_workspace_for(int device, stream_t stream) {
  static std::mutex registry_mutex;
  static auto* const registry = new std::map<std::pair<int, stream_t>, shared_workspace>();
  const std::lock_guard<std::mutex> lock(registry_mutex);
  return (*registry)[{device, stream}];
}

call_workspace::call_workspace(const options& opt) {
  if (opt.workspace != nullptr) {
    ws_ = opt.workspace;
    return;
  }
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  shared_workspace& shared = shared_workspace_for(device, opt.stream);
  lock_ = std::unique_lock<std::mutex>(shared.mutex);
  if (!shared.ws) shared.ws = std::make_unique<workspace>();
  ws_ = shared.ws.get();
}

}  // namespace detred::cuda::detail
