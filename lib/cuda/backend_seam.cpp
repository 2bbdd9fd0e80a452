// SPDX-License-Identifier: BSD-3-Clause
// The seam of cuda_backend.hpp: the host API with backend::cuda. The library keeps one workspace per device,
// created on first use and reused by every later call; a mutex gives one call at a time each.
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <tuple>

#include <cuda_runtime_api.h>

#include "core/backend_seam.hpp"
#include "core/operators.hpp"
#include "cuda_backend.hpp"
#include "cuda_check.hpp"
#include "detred/cuda.hpp"
#include "host_reduction.hpp"

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

}  // namespace

bool available() { return cuda::available(); }

template <class Op>
typename Op::result reduce_host(const order::operands<Op>& x, std::uint64_t n) {
  shared_workspace& shared = workspace_for_current_device();
  const std::lock_guard<std::mutex> lock(shared.mutex);
  if (!shared.ws) shared.ws = std::make_unique<cuda::workspace>();
  return cuda::detail::reduce_host_with<Op>(x, n, *shared.ws);
}

template <class List>
struct instantiate_all;
template <class... Ops>
struct instantiate_all<op_list<Ops...>> {
  static constexpr std::tuple pointers{&reduce_host<Ops>...};
};
template struct instantiate_all<backend_operators>;

const backend_seam& seam() {
  static const backend_seam s = seam_of<entry_points>();
  return s;
}

}  // namespace detred::cuda_backend
