// SPDX-License-Identifier: BSD-3-Clause
// The public CUDA entry points of one array (detred/cuda.hpp): the type-erased cores of cuda::reduce and
// cuda::reduce_async, which the named calls are; argument checks, workspace sizing, then enqueue_reduction.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>

#include <cuda_runtime_api.h>

#include "call_workspace.hpp"
#include "core/call_checks.hpp"
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
#include "pending_errors.hpp"
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
/// result the square root of their exact sum, rounded once. 16-bit floats are widened exactly to float first, into
/// the partial buffer (each operand at a 256-byte boundary), which the exact kernel does not use.
template <class Op>
void enqueue_exact_op(const order::operands<Op>& x, std::uint64_t n, typename Op::result* result, state& s,
                      stream_t stream, const char* what) {
  using T = typename Op::input;
  constexpr detail::exact_kind kind = Op::adds == exact::terms::values       ? detail::exact_kind::sum
                                      : Op::adds == exact::terms::magnitudes ? detail::exact_kind::asum
                                                                             : detail::exact_kind::dot;
  constexpr unsigned second = Op::adds == exact::terms::products ? Op::arity - 1 : 0;
  const detail::exact_output<typename Op::result> out{.result = result, .finishes = Op::finishes, .count = n};
  if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) {
    detail::enqueue_exact<T>(kind, x.data[0], x.data[second], n, s.exact, out, stream);
  } else if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    static_assert(std::is_same_v<typename Op::result, float>);
    const std::uint64_t stride = (n * sizeof(float) + 255) / 256 * 256;
    s.reserve_partials(stride * Op::arity, stream);
    float* wide[Op::arity];
    for (unsigned a = 0; a < Op::arity; ++a) {
      wide[a] = reinterpret_cast<float*>(static_cast<char*>(s.partials) + a * stride);
      detail::enqueue_widen<T>(x.data[a], wide[a], n, stream);
    }
    detail::enqueue_exact<float>(kind, wide[0], wide[second], n, s.exact, out, stream);
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

/// "detred::cuda::sum", ...: how errors name a call.
const std::string& call_name(operation op) {
  static const std::array<std::string, catalogue::operations.size()> names = [] {
    std::array<std::string, catalogue::operations.size()> r;
    for (operation o : catalogue::operations) {
      r[static_cast<std::size_t>(o)] = std::string("detred::cuda::") + to_string(o);
    }
    return r;
  }();
  const auto k = static_cast<std::size_t>(op);
  return names[k < names.size() ? k : 0];
}

/// O over x (and y) of T on the GPU: the checks every call shares (the catalogue, lengths, the empty-input rule),
/// then the operator of (O, mode, T). async: enqueued, the result written to device memory; otherwise the operands
/// may be host memory, and the result is waited for and written to host memory.
template <operation O, class T>
void reduce_typed(const T* x, std::uint64_t n, const T* y, std::uint64_t ny, void* result, const options& opt,
                  bool async) {
  const char* what = call_name(O).c_str();
  const mode m = checked_call<O, T>(opt.mode, backend::cuda, n, ny, what);
  if (result == nullptr) throw error(std::string(what) + ": the result pointer is null");
  detail::call_workspace held(opt);
  workspace& ws = held.get();
  const stream_t stream = opt.stream;
  with_operator<T, O>(m, [&]<class Op>() {
    const order::operands<Op> operands = operands_of<Op>(x, y);
    if constexpr (std::is_same_v<Op, order::integer_sum_op<T>>) {
      using R = result_t<O, T>;
      state& s = detail::workspace_access::of(ws);
      if (async) {
        auto* wide = static_cast<order::wide_integer*>(s.result);
        enqueue_into<Op>(operands, n, wide, ws, stream, what);
        detail::enqueue_narrow_sum<R>(wide, static_cast<R*>(result), s.pending, stream);
      } else {
        *static_cast<R*>(result) = narrowed<R>(run_host<Op>(operands, n, ws, stream, what), what);
      }
    } else if (async) {
      enqueue_into<Op>(operands, n, static_cast<typename Op::result*>(result), ws, stream, what);
    } else {
      *static_cast<typename Op::result*>(result) = run_host<Op>(operands, n, ws, stream, what);
    }
  });
}

/// reduce_typed<O, T> for the operation op, among the catalogue's from the K-th on.
template <class T, std::size_t K = 0>
void reduce_from(operation op, const void* x, std::uint64_t n, const void* y, std::uint64_t ny, void* result,
                 const options& opt, bool async) {
  if constexpr (K < catalogue::operations.size()) {
    constexpr operation O = catalogue::operations[K];
    if constexpr (has_operator<O, T>) {
      if (op == O) {
        return reduce_typed<O, T>(static_cast<const T*>(x), n, static_cast<const T*>(y), ny, result, opt, async);
      }
    }
    reduce_from<T, K + 1>(op, x, n, y, ny, result, opt, async);
  }
}

void reduce_any(operation op, element_type t, const void* x, std::uint64_t n, const void* y, std::uint64_t ny,
                void* result, const options& opt, bool async) {
  if (catalogue::is_scan(op) || !catalogue::has(op, t)) {
    throw error(std::string("detred::cuda::reduce: ") + to_string(t) + " elements have no " + to_string(op) +
                (catalogue::is_scan(op) ? " (a scan: detred/cuda_scan.hpp)" : ""));
  }
  with_type(t, [&]<class T>() { reduce_from<T>(op, x, n, y, ny, result, opt, async); });
}

}  // namespace

void reduce_async(operation op, element_type t, const void* x, std::uint64_t n, const void* y, std::uint64_t ny,
                  void* device_result, const options& opt) {
  reduce_any(op, t, x, n, y, ny, device_result, opt, true);
}

void reduce(operation op, element_type t, const void* x, std::uint64_t n, const void* y, std::uint64_t ny,
            void* host_result, const options& opt) {
  reduce_any(op, t, x, n, y, ny, host_result, opt, false);
}

void synchronize(const options& opt) {
  detail::call_workspace held(opt);
  detail::throw_pending(held.get(), opt.stream);
}

namespace detail {

template <class Op>
typename Op::result reduce_host_with(const order::operands<Op>& x, std::uint64_t n, workspace& ws, stream_t stream) {
  return run_host<Op>(x, n, ws, stream, "CUDA backend");
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
