// SPDX-License-Identifier: BSD-3-Clause
// The GPU path's workspaces: one per device, created on first use, then reused.
#include "device_reduce.hpp"

#include <map>
#include <memory>

namespace detred::python {
namespace {

struct device_workspace {
  std::mutex mutex;  // one call at a time per workspace (the GIL is released during the call)
  std::unique_ptr<detred::cuda::workspace> ws;
};

device_workspace& workspace_of(int device) {
  static std::mutex registry_mutex;
  // Never destroyed: freeing device memory from a static destructor can run after the CUDA runtime has shut down.
  static auto* const registry = new std::map<int, device_workspace>();
  const std::lock_guard<std::mutex> lock(registry_mutex);
  return (*registry)[device];
}

int device_holding(const device_array& a) { return a.device >= 0 ? a.device : device_of(a.data); }

}  // namespace

device_session::device_session(const device_array& a) : on_(device_holding(a)) {
  device_workspace& shared = workspace_of(on_.device());
  lock_ = std::unique_lock<std::mutex>(shared.mutex);
  if (!shared.ws) shared.ws = std::make_unique<detred::cuda::workspace>();
  workspace_ = shared.ws.get();
}

}  // namespace detred::python
