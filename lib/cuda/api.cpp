// The public CUDA entry points (detred/cuda.hpp): argument checks, workspace sizing, then enqueue_sum.
#include <cstdint>
#include <span>

#include <cuda_runtime_api.h>

#include "api/validate.hpp"
#include "cuda_check.hpp"
#include "detred/cuda.hpp"
#include "detred/order.hpp"
#include "enqueue.hpp"
#include "launch_plan.hpp"
#include "workspace_state.hpp"

namespace detred::cuda {

using detail::check;

bool available() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

namespace {

template <class T>
void sum_async_any(std::span<const T> x, T* result, workspace& ws, mode m, stream_t stream) {
  validated(m);
  if (result == nullptr) throw error("CUDA sum: the result pointer is null");
  if (x.data() == nullptr && !x.empty()) throw error("CUDA sum: the input pointer is null");
  detail::workspace_access::state& s = detail::workspace_access::of(ws);
  s.check_current_device();
  const detail::launch_plan plan = detail::default_plan(order::leaf_count<T>(x.size()));
  s.reserve_partials(detail::partial_values(plan) * detail::accumulator_bytes<T>(m), stream);
  detail::enqueue_sum(x.data(), x.size(), m, plan, s.partials, result, stream);
}

template <class T>
T sum_any(std::span<const T> x, workspace& ws, mode m, stream_t stream) {
  detail::workspace_access::state& s = detail::workspace_access::of(ws);
  sum_async_any(x, static_cast<T*>(s.result), ws, m, stream);
  check(cudaMemcpyAsync(s.host_result, s.result, sizeof(T), cudaMemcpyDeviceToHost, stream),
        "cudaMemcpyAsync (result)");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  return *static_cast<const T*>(s.host_result);
}

template <class T>
T sum_host_any(std::span<const T> x, workspace& ws, mode m, stream_t stream) {
  validated(m);
  if (x.empty()) return sum_any(x, ws, m, stream);
  cudaPointerAttributes attributes{};
  check(cudaPointerGetAttributes(&attributes, x.data()), "cudaPointerGetAttributes");
  if (attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged) {
    return sum_any(x, ws, m, stream);
  }
  detail::workspace_access::state& s = detail::workspace_access::of(ws);
  s.check_current_device();
  s.reserve_staging(x.size_bytes(), stream);
  check(cudaMemcpyAsync(s.staging, x.data(), x.size_bytes(), cudaMemcpyHostToDevice, stream),
        "cudaMemcpyAsync (input to the device)");
  return sum_any(std::span<const T>(static_cast<const T*>(s.staging), x.size()), ws, m, stream);
}

}  // namespace

void sum_async(std::span<const double> x, double* result, workspace& ws, mode m, stream_t stream) {
  sum_async_any(x, result, ws, m, stream);
}
void sum_async(std::span<const float> x, float* result, workspace& ws, mode m, stream_t stream) {
  sum_async_any(x, result, ws, m, stream);
}

double sum(std::span<const double> x, workspace& ws, mode m, stream_t stream) { return sum_any(x, ws, m, stream); }
float sum(std::span<const float> x, workspace& ws, mode m, stream_t stream) { return sum_any(x, ws, m, stream); }

double sum_host(std::span<const double> x, workspace& ws, mode m, stream_t stream) {
  return sum_host_any(x, ws, m, stream);
}
float sum_host(std::span<const float> x, workspace& ws, mode m, stream_t stream) {
  return sum_host_any(x, ws, m, stream);
}

}  // namespace detred::cuda
