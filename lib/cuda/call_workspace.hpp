// SPDX-License-Identifier: BSD-3-Clause
// The workspace a CUDA call uses: the caller's (options::workspace), or one the library keeps per (device, stream)
// pair, created at its first use and held by one call at a time. Calls on one stream are ordered by the stream, so
// sharing its workspace between them is safe once their host sides take turns.
#pragma once

#include <memory>
#include <mutex>

#include "detred/cuda.hpp"

namespace detred::cuda::detail {

/// One of the library's workspaces and the lock that gives it to one call at a time.
struct shared_workspace {
  std::mutex mutex;
  std::unique_ptr<workspace> ws;
};

/// The library's workspace slot for (device, stream); its workspace is created by the first holder (with that
/// device current). Never destroyed: freeing device memory from a static destructor can run after the CUDA runtime
/// has shut down.
shared_workspace& shared_workspace_for(int device, stream_t stream);

/// The workspace of a call with options `opt`, held for the call's lifetime.
class call_workspace {
 public:
  explicit call_workspace(const options& opt);
  workspace& get() { return *ws_; }

 private:
  std::unique_lock<std::mutex> lock_;
  workspace* ws_ = nullptr;
};

}  // namespace detred::cuda::detail
