// SPDX-License-Identifier: BSD-3-Clause
// The public CUDA entry points (detred/cuda.hpp): argument checks, workspace sizing, then enqueue_reduction. Every
// operation goes through the three templates below; the named functions only pick the operator.
#include <cstdint>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>

#include <cuda_runtime_api.h>

#include "core/integer_results.hpp"
#include "core/operators.hpp"
#include "core/validate.hpp"
#include "cuda_check.hpp"
#include "detred/cuda.hpp"
#include "detred/order.hpp"
#include "enqueue.hpp"
#include "exact_enqueue.hpp"
#include "host_reduction.hpp"
#include "launch_plan.hpp"
#include "workspace_state.hpp"

namespace detred::cuda {

using detail::check;

bool available() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

namespace {

using state = detail::workspace_access::state;

/// Leaves a warp of the leaf pass should take at least (default_plan keeps enough blocks). stats' threads keep min
/// and max apart from the lanes (lib/cuda/thread_extremes.cuh) over their whole run, and the run's lane roots wait
/// in shared memory. On the H200 at 2^27 doubles, x CUB Sum: 2 leaves 0.891-0.894, 4 leaves 0.906-0.913, 8 leaves
/// 0.867-0.877 (fewer blocks than fill the GPU evenly); floats 2^28 0.935-0.937, 0.939-0.947, 0.894-0.900.
template <class Op>
inline constexpr std::uint32_t leaves_per_warp_wanted = 1;
template <class T>
inline constexpr std::uint32_t leaves_per_warp_wanted<order::moments_op<T>> = 4;

/// An exact operator (order-free: detred/exact/exact_ops.hpp) on the GPU's exact kernel (exact.cu), which adds
/// values, magnitudes or products of double or float; a norm's squares are the products of x with itself, and its
/// result the square root of their exact sum, rounded once.
template <class Op>
void enqueue_exact_op(const order::operands<Op>& x, std::uint64_t n, typename Op::result* result, state& s,
                      stream_t stream, const char* what) {
  using T = typename Op::input;
  if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) {
    constexpr detail::exact_kind kind = Op::adds == exact::terms::values       ? detail::exact_kind::sum
                                        : Op::adds == exact::terms::magnitudes ? detail::exact_kind::asum
                                                                               : detail::exact_kind::dot;
    const T* y = Op::adds == exact::terms::products ? x.data[Op::arity - 1] : x.data[0];
    detail::enqueue_exact<T>(kind, x.data[0], y, n, s.exact,
                             {.result = result, .square_root = Op::finishes == exact::finish::square_root}, stream);
  } else {
    throw error(std::string(what) + ": mode exact of " + to_string(element_type_of<T>()) +
                " elements runs on the CPU only");
  }
}

/// Enqueues Op over the device operands x[0..n), writing the result to the device address `result`.
template <class Op>
void enqueue_into(const order::operands<Op>& x, std::uint64_t n, typename Op::result* result, workspace& ws,
                  stream_t stream, const char* what) {
  if (result == nullptr) throw error(std::string(what) + ": the result pointer is null");
  for (unsigned a = 0; a < Op::arity; ++a) {
    if (x.data[a] == nullptr && n != 0) throw error(std::string(what) + ": an input pointer is null");
  }
  state& s = detail::workspace_access::of(ws);
  s.check_current_device();
  if constexpr (exact::is_exact_op<Op>) {
    enqueue_exact_op<Op>(x, n, result, s, stream, what);
  } else {
    const detail::launch_plan plan =
        detail::default_plan(order::leaf_count<typename Op::value>(n), leaves_per_warp_wanted<Op>);
    s.reserve_partials(detail::partial_bytes<Op>(plan), stream);
    detail::enqueue_reduction<Op>(x, n, plan, s.partials, result, stream);
  }
}

/// Copies the result of the work enqueued into the workspace's result slot back, and waits for it.
template <class R>
R fetch_result(workspace& ws, stream_t stream) {
  static_assert(sizeof(R) <= state::slot_bytes);
  state& s = detail::workspace_access::of(ws);
  check(cudaMemcpyAsync(s.host_result, s.result, sizeof(R), cudaMemcpyDeviceToHost, stream),
        "cudaMemcpyAsync (result)");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  return *static_cast<const R*>(s.host_result);
}

/// Op over device operands: enqueued into the workspace's result slot, copied back, waited for.
template <class Op>
typename Op::result run_device(const order::operands<Op>& x, std::uint64_t n, workspace& ws, stream_t stream,
                               const char* what) {
  using R = typename Op::result;
  enqueue_into<Op>(x, n, static_cast<R*>(detail::workspace_access::of(ws).result), ws, stream, what);
  return fetch_result<R>(ws, stream);
}

/// Makes the operands data[0..arity) of n elements readable by the device: device and managed memory as they are,
/// host memory copied to the workspace's staging buffer (each operand at a 256-byte boundary).
template <class In>
void stage_operands(const In** data, unsigned arity, std::uint64_t n, workspace& ws, stream_t stream) {
  if (n == 0) return;
  state& s = detail::workspace_access::of(ws);
  s.check_current_device();
  bool on_host[2] = {false, false};
  unsigned host_operands = 0;
  for (unsigned a = 0; a < arity; ++a) {
    cudaPointerAttributes attributes{};
    check(cudaPointerGetAttributes(&attributes, data[a]), "cudaPointerGetAttributes");
    on_host[a] = attributes.type != cudaMemoryTypeDevice && attributes.type != cudaMemoryTypeManaged;
    host_operands += on_host[a] ? 1 : 0;
  }
  if (host_operands == 0) return;
  const std::uint64_t bytes = n * sizeof(In);
  const std::uint64_t stride = (bytes + 255) / 256 * 256;
  s.reserve_staging(stride * host_operands, stream);
  char* to = static_cast<char*>(s.staging);
  for (unsigned a = 0; a < arity; ++a) {
    if (!on_host[a]) continue;
    check(cudaMemcpyAsync(to, data[a], bytes, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync (input to the device)");
    data[a] = reinterpret_cast<const In*>(to);
    to += stride;
  }
}

/// Op over operands that may be in host memory (stage_operands).
template <class Op>
typename Op::result run_host(const order::operands<Op>& x, std::uint64_t n, workspace& ws, stream_t stream,
                             const char* what) {
  order::operands<Op> staged = x;
  stage_operands(staged.data, Op::arity, n, ws, stream);
  return run_device<Op>(staged, n, ws, stream, what);
}

template <class Op>
order::operands<Op> one(std::span<const typename Op::input> x) {
  return {{x.data()}, 0};
}

template <class Op>
order::operands<Op> two(std::span<const typename Op::input> x, std::span<const typename Op::input> y,
                        const char* what) {
  validate_lengths(x.size(), y.size(), what);
  return {{x.data(), y.data()}, 0};
}

template <class T, class Result>
void sum_async_any(std::span<const T> x, Result* result, workspace& ws, mode m, stream_t stream) {
  with_operator<T, operation::sum>(
      checked_mode<T>(m, operation::sum, backend::cuda, call_shape::array, "detred::cuda::sum"),
      [&]<class Op>() { enqueue_into<Op>(one<Op>(x), x.size(), result, ws, stream, "CUDA sum"); });
}

template <class T>
order::float_value_t<T> sum_any(std::span<const T> x, workspace& ws, mode m, stream_t stream) {
  return with_operator<T, operation::sum>(
      checked_mode<T>(m, operation::sum, backend::cuda, call_shape::array, "detred::cuda::sum"),
      [&]<class Op>() { return run_device<Op>(one<Op>(x), x.size(), ws, stream, "CUDA sum"); });
}

template <class R, class I>
R integer_sum(std::span<const I> x, workspace& ws, stream_t stream) {
  using Op = order::integer_sum_op<I>;
  return narrowed<R>(run_device<Op>(one<Op>(x), x.size(), ws, stream, "CUDA sum"), "CUDA sum");
}

template <operation O, class T>
void norm_async(std::span<const T> x, order::float_value_t<T>* result, workspace& ws, mode m, stream_t stream,
                const char* what) {
  with_operator<T, O>(checked_mode<T>(m, O, backend::cuda, call_shape::array, what),
                      [&]<class Op>() { enqueue_into<Op>(one<Op>(x), x.size(), result, ws, stream, what); });
}

template <operation O, class T>
order::float_value_t<T> norm_run(std::span<const T> x, workspace& ws, mode m, stream_t stream, const char* what) {
  return with_operator<T, O>(checked_mode<T>(m, O, backend::cuda, call_shape::array, what),
                             [&]<class Op>() { return run_device<Op>(one<Op>(x), x.size(), ws, stream, what); });
}

template <class T>
void dot_async_any(std::span<const T> x, std::span<const T> y, order::float_value_t<T>* result, workspace& ws, mode m,
                   stream_t stream) {
  with_operator<T, operation::dot>(
      checked_mode<T>(m, operation::dot, backend::cuda, call_shape::array, "detred::cuda::dot"),
      [&]<class Op>() { enqueue_into<Op>(two<Op>(x, y, "CUDA dot"), x.size(), result, ws, stream, "CUDA dot"); });
}

template <class T>
order::float_value_t<T> dot_any(std::span<const T> x, std::span<const T> y, workspace& ws, mode m, stream_t stream) {
  return with_operator<T, operation::dot>(
      checked_mode<T>(m, operation::dot, backend::cuda, call_shape::array, "detred::cuda::dot"),
      [&]<class Op>() { return run_device<Op>(two<Op>(x, y, "CUDA dot"), x.size(), ws, stream, "CUDA dot"); });
}

template <class Op>
typename Op::result selection(std::span<const typename Op::input> x, workspace& ws, stream_t stream, const char* what) {
  if (x.empty()) throw error(std::string("CUDA ") + what + ": an empty array has no " + what);
  return run_device<Op>(one<Op>(x), x.size(), ws, stream, what);
}

}  // namespace

void sum_async(std::span<const double> x, double* result, workspace& ws, mode m, stream_t stream) {
  sum_async_any(x, result, ws, m, stream);
}
void sum_async(std::span<const float> x, float* result, workspace& ws, mode m, stream_t stream) {
  sum_async_any(x, result, ws, m, stream);
}
void sum_async(std::span<const float16> x, float* result, workspace& ws, mode m, stream_t stream) {
  sum_async_any(x, result, ws, m, stream);
}
void sum_async(std::span<const bfloat16> x, float* result, workspace& ws, mode m, stream_t stream) {
  sum_async_any(x, result, ws, m, stream);
}
double sum(std::span<const double> x, workspace& ws, mode m, stream_t stream) { return sum_any(x, ws, m, stream); }
float sum(std::span<const float> x, workspace& ws, mode m, stream_t stream) { return sum_any(x, ws, m, stream); }
float sum(std::span<const float16> x, workspace& ws, mode m, stream_t stream) { return sum_any(x, ws, m, stream); }
float sum(std::span<const bfloat16> x, workspace& ws, mode m, stream_t stream) { return sum_any(x, ws, m, stream); }
std::int64_t sum(std::span<const std::int32_t> x, workspace& ws, stream_t stream) {
  return integer_sum<std::int64_t>(x, ws, stream);
}
std::int64_t sum(std::span<const std::int64_t> x, workspace& ws, stream_t stream) {
  return integer_sum<std::int64_t>(x, ws, stream);
}
std::uint64_t sum(std::span<const std::uint32_t> x, workspace& ws, stream_t stream) {
  return integer_sum<std::uint64_t>(x, ws, stream);
}
std::uint64_t sum(std::span<const std::uint64_t> x, workspace& ws, stream_t stream) {
  return integer_sum<std::uint64_t>(x, ws, stream);
}

template <class T>
T sum_host_any(std::span<const T> x, workspace& ws, mode m, stream_t stream) {
  return with_operator<T, operation::sum>(
      checked_mode<T>(m, operation::sum, backend::cuda, call_shape::array, "detred::cuda::sum"),
      [&]<class Op>() { return run_host<Op>(one<Op>(x), x.size(), ws, stream, "CUDA sum"); });
}

double sum_host(std::span<const double> x, workspace& ws, mode m, stream_t stream) {
  return sum_host_any(x, ws, m, stream);
}
float sum_host(std::span<const float> x, workspace& ws, mode m, stream_t stream) {
  return sum_host_any(x, ws, m, stream);
}

double dot(std::span<const double> x, std::span<const double> y, workspace& ws, mode m, stream_t stream) {
  return dot_any(x, y, ws, m, stream);
}
float dot(std::span<const float> x, std::span<const float> y, workspace& ws, mode m, stream_t stream) {
  return dot_any(x, y, ws, m, stream);
}
float dot(std::span<const float16> x, std::span<const float16> y, workspace& ws, mode m, stream_t stream) {
  return dot_any(x, y, ws, m, stream);
}
float dot(std::span<const bfloat16> x, std::span<const bfloat16> y, workspace& ws, mode m, stream_t stream) {
  return dot_any(x, y, ws, m, stream);
}
void dot_async(std::span<const double> x, std::span<const double> y, double* result, workspace& ws, mode m,
               stream_t stream) {
  dot_async_any(x, y, result, ws, m, stream);
}
void dot_async(std::span<const float> x, std::span<const float> y, float* result, workspace& ws, mode m,
               stream_t stream) {
  dot_async_any(x, y, result, ws, m, stream);
}
void dot_async(std::span<const float16> x, std::span<const float16> y, float* result, workspace& ws, mode m,
               stream_t stream) {
  dot_async_any(x, y, result, ws, m, stream);
}
void dot_async(std::span<const bfloat16> x, std::span<const bfloat16> y, float* result, workspace& ws, mode m,
               stream_t stream) {
  dot_async_any(x, y, result, ws, m, stream);
}

double asum(std::span<const double> x, workspace& ws, mode m, stream_t stream) {
  return norm_run<operation::asum>(x, ws, m, stream, "detred::cuda::asum");
}
float asum(std::span<const float> x, workspace& ws, mode m, stream_t stream) {
  return norm_run<operation::asum>(x, ws, m, stream, "detred::cuda::asum");
}
void asum_async(std::span<const double> x, double* result, workspace& ws, mode m, stream_t stream) {
  norm_async<operation::asum>(x, result, ws, m, stream, "detred::cuda::asum");
}
void asum_async(std::span<const float> x, float* result, workspace& ws, mode m, stream_t stream) {
  norm_async<operation::asum>(x, result, ws, m, stream, "detred::cuda::asum");
}
double nrm2(std::span<const double> x, workspace& ws, mode m, stream_t stream) {
  return norm_run<operation::nrm2>(x, ws, m, stream, "detred::cuda::nrm2");
}
float nrm2(std::span<const float> x, workspace& ws, mode m, stream_t stream) {
  return norm_run<operation::nrm2>(x, ws, m, stream, "detred::cuda::nrm2");
}
void nrm2_async(std::span<const double> x, double* result, workspace& ws, mode m, stream_t stream) {
  norm_async<operation::nrm2>(x, result, ws, m, stream, "detred::cuda::nrm2");
}
void nrm2_async(std::span<const float> x, float* result, workspace& ws, mode m, stream_t stream) {
  norm_async<operation::nrm2>(x, result, ws, m, stream, "detred::cuda::nrm2");
}

statistics<double> stats(std::span<const double> x, workspace& ws, stream_t stream) {
  using Op = order::moments_op<double>;
  return run_device<Op>(one<Op>(x), x.size(), ws, stream, "CUDA stats");
}
statistics<float> stats(std::span<const float> x, workspace& ws, stream_t stream) {
  using Op = order::moments_op<float>;
  return run_device<Op>(one<Op>(x), x.size(), ws, stream, "CUDA stats");
}
void stats_async(std::span<const double> x, statistics<double>* result, workspace& ws, stream_t stream) {
  using Op = order::moments_op<double>;
  enqueue_into<Op>(one<Op>(x), x.size(), result, ws, stream, "CUDA stats");
}
void stats_async(std::span<const float> x, statistics<float>* result, workspace& ws, stream_t stream) {
  using Op = order::moments_op<float>;
  enqueue_into<Op>(one<Op>(x), x.size(), result, ws, stream, "CUDA stats");
}

#define DETRED_CUDA_SELECTIONS(T)                                              \
  T min(std::span<const T> x, workspace& ws, stream_t stream) {                \
    return selection<order::min_op<T>>(x, ws, stream, "min");                  \
  }                                                                            \
  T max(std::span<const T> x, workspace& ws, stream_t stream) {                \
    return selection<order::max_op<T>>(x, ws, stream, "max");                  \
  }                                                                            \
  std::uint64_t argmin(std::span<const T> x, workspace& ws, stream_t stream) { \
    return selection<order::argmin_op<T>>(x, ws, stream, "argmin");            \
  }                                                                            \
  std::uint64_t argmax(std::span<const T> x, workspace& ws, stream_t stream) { \
    return selection<order::argmax_op<T>>(x, ws, stream, "argmax");            \
  }
DETRED_CUDA_SELECTIONS(double)
DETRED_CUDA_SELECTIONS(float)
DETRED_CUDA_SELECTIONS(std::int32_t)
DETRED_CUDA_SELECTIONS(std::int64_t)
DETRED_CUDA_SELECTIONS(std::uint32_t)
DETRED_CUDA_SELECTIONS(std::uint64_t)
#undef DETRED_CUDA_SELECTIONS

namespace detail {

template <class Op>
typename Op::result reduce_host_with(const order::operands<Op>& x, std::uint64_t n, workspace& ws) {
  return run_host<Op>(x, n, ws, nullptr, "CUDA backend");
}

// Emitted for every operator (taking the addresses instantiates them).
template <class List>
struct instantiate_all;
template <class... Ops>
struct instantiate_all<op_list<Ops...>> {
  static constexpr std::tuple pointers{&reduce_host_with<Ops>...};
};
template struct instantiate_all<backend_operators>;

}  // namespace detail
}  // namespace detred::cuda
