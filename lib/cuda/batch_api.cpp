// SPDX-License-Identifier: BSD-3-Clause
// The batched CUDA entry points (detred/cuda.hpp) and the backend seam of the batched host calls with
// backend::cuda: argument checks, then batch.cu's enqueue functions (the canonical order's operators) or
// exact_batch.cu's (exact mode's).
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <cuda_runtime_api.h>

#include "backend_instances.hpp"
#include "batch_enqueue.hpp"
#include "call_workspace.hpp"
#include "core/batch_checks.hpp"
#include "core/operators.hpp"
#include "core/validate.hpp"
#include "cuda_backend.hpp"
#include "cuda_check.hpp"
#include "detred/cuda.hpp"
#include "device_copy.hpp"
#include "exact_enqueue.hpp"
#include "pending_errors.hpp"
#include "workspace_state.hpp"

namespace detred {
namespace cuda {
namespace detail {

/// True for the exact operators the GPU's batched kernels take: those over double and float.
template <class Op>
inline constexpr bool exact_on_gpu = exact::is_exact_op<Op> && (std::is_same_v<typename Op::input, double> ||
                                                                std::is_same_v<typename Op::input, float>);

/// The exact kernels' kind of an exact operator's terms: a sum of squares is the dot product of x with itself.
template <class Op>
inline constexpr exact_kind exact_kind_of = Op::adds == exact::terms::values       ? exact_kind::sum
                                            : Op::adds == exact::terms::magnitudes ? exact_kind::asum
                                                                                   : exact_kind::dot;

/// True for the exact operators of 16-bit floats: their lines are the float kernels' over a widened copy.
template <class Op>
inline constexpr bool exact_of_halves = exact::is_exact_op<Op> && (std::is_same_v<typename Op::input, float16> ||
                                                                   std::is_same_v<typename Op::input, bfloat16>);

/// Refuses an exact operator the GPU has no batched kernel for (the catalogue refuses it first).
[[noreturn]] inline void no_exact_kernel(element_type t) {
  throw error(std::string("the CUDA backend has no batched exact mode for ") + to_string(t) + " elements");
}

/// The first `extent` elements of each 16-bit operand widened exactly to float (order::widen, as the CPU's exact
/// mode widens them) into the workspace's staging buffer, each at a 256-byte boundary; the exact kernels take their
/// scratch from the partial buffer, so the two do not meet. The second pointer is the operand of the products (x
/// itself for a sum of squares).
template <class Op>
std::array<const float*, 2> widened_operands(const order::operands<Op>& x, std::uint64_t extent, workspace& ws,
                                             stream_t stream) {
  workspace_access::state& s = workspace_access::of(ws);
  const std::uint64_t stride = (extent * sizeof(float) + 255) / 256 * 256;
  s.reserve_staging(stride * Op::arity, stream);
  std::array<const float*, 2> wide{};
  for (unsigned a = 0; a < Op::arity; ++a) {
    float* to = reinterpret_cast<float*>(static_cast<char*>(s.staging) + a * stride);
    enqueue_widen<typename Op::input>(x.data[a], to, extent, stream);
    wide[a] = to;
  }
  wide[1] = Op::adds == exact::terms::products ? wide[Op::arity - 1] : wide[0];
  return wide;
}

/// enqueue_lines for every batched operator: the canonical order's (batch.cu) or exact mode's (exact_batch.cu).
template <class Op>
void enqueue_any_lines(const order::operands<Op>& x, std::uint64_t extent, const device_lines& lines,
                       std::uint64_t count, typename Op::result* results, workspace& ws, stream_t stream) {
  if constexpr (exact_on_gpu<Op>) {
    using T = typename Op::input;
    const T* y = Op::adds == exact::terms::products ? x.data[Op::arity - 1] : x.data[0];
    enqueue_exact_lines<T>(exact_kind_of<Op>, Op::finishes, x.data[0], y, extent, lines, count, results, ws, stream);
  } else if constexpr (exact_of_halves<Op>) {
    const std::array<const float*, 2> wide = widened_operands<Op>(x, extent, ws, stream);
    enqueue_exact_lines<float>(exact_kind_of<Op>, Op::finishes, wide[0], wide[1], extent, lines, count, results, ws,
                               stream);
  } else if constexpr (exact::is_exact_op<Op>) {
    no_exact_kernel(element_type_of<typename Op::input>());
  } else {
    enqueue_lines<Op>(x, extent, lines, count, results, ws, stream);
  }
}

/// enqueue_strided_lines for every batched operator.
template <class Op>
void enqueue_any_strided_lines(const order::operands<Op>& x, std::uint64_t length, std::uint64_t stride,
                               std::uint64_t count, typename Op::result* results, workspace& ws, stream_t stream) {
  if constexpr (exact_on_gpu<Op> && Op::arity == 2) {
    throw error("CUDA batch: strided lines of two operands are not available");
  } else if constexpr (exact_on_gpu<Op>) {
    enqueue_exact_strided_lines<typename Op::input>(exact_kind_of<Op>, Op::finishes, x.data[0], length, stride, count,
                                                    results, ws, stream);
  } else if constexpr (exact_of_halves<Op> && Op::arity == 1) {
    // Line t is x[t], x[t + stride], ..., x[t + (length - 1) stride]: the elements below the last line's end.
    const std::uint64_t extent = length == 0 || count == 0 ? 0 : (length - 1) * stride + count;
    const std::array<const float*, 2> wide = widened_operands<Op>(x, extent, ws, stream);
    enqueue_exact_strided_lines<float>(exact_kind_of<Op>, Op::finishes, wide[0], length, stride, count, results, ws,
                                       stream);
  } else if constexpr (exact::is_exact_op<Op>) {
    no_exact_kernel(element_type_of<typename Op::input>());
  } else {
    enqueue_strided_lines<Op>(x, length, stride, count, results, ws, stream);
  }
}

}  // namespace detail

namespace {

using detail::check;

void check_device(workspace& ws) { detail::workspace_access::of(ws).check_current_device(); }

template <class Op>
void segments_on_device(std::span<const typename Op::input> x, std::span<const typename Op::input> y, const segments& s,
                        std::span<typename Op::result> results, const options& opt, operation op, const char* what) {
  validate_segment_count(s, results.size(), what);
  order::operands<Op> operands{};
  operands.data[0] = x.data();
  if constexpr (Op::arity == 2) {
    validate_lengths(x.size(), y.size(), what);
    operands.data[1] = y.data();
  }
  detail::call_workspace held(opt);
  workspace& ws = held.get();
  check_device(ws);
  if (catalogue::needs_an_element(op)) {
    // The offsets are device memory: the device checks them, for synchronize to report (pending_errors.hpp).
    detail::enqueue_check_nonempty(s.offsets.data(), results.size(), op, detail::workspace_access::of(ws).pending,
                                   opt.stream);
  }
  detail::enqueue_any_lines<Op>(operands, x.size(), {.offsets = s.offsets.data()}, results.size(), results.data(), ws,
                                opt.stream);
}

template <class Op>
void axis_on_device(const matrix_view<typename Op::input>& a, int axis, std::span<typename Op::result> results,
                    const options& opt, operation op, const char* what) {
  const axis_lines l = lines_of(a, axis, results.size(), what);
  if (catalogue::needs_an_element(op)) {
    if (l.length == 0 && l.count > 0) {
      throw error(std::string(what) + ": the lines along axis " + std::to_string(axis) +
                  " are empty, and an empty array has no " + to_string(op));
    }
  }
  detail::call_workspace held(opt);
  workspace& ws = held.get();
  check_device(ws);
  const order::operands<Op> x{{a.data}, 0};
  if (l.contiguous) {
    detail::enqueue_any_lines<Op>(x, extent_of(a), {.stride = l.stride, .length = l.length}, l.count, results.data(),
                                  ws, opt.stream);
  } else {
    detail::enqueue_any_strided_lines<Op>(x, l.length, l.stride, l.count, results.data(), ws, opt.stream);
  }
}

template <class Op, class Key>
void by_key_on_device(std::span<const typename Op::input> values, std::span<const Key> keys,
                      std::span<typename Op::result> results, const options& opt, bool wait) {
  const char* what = "detred::cuda::sum_by_key";
  if (keys.size() != values.size()) {
    throw error(std::string(what) + ": keys and values differ in length (" + std::to_string(keys.size()) + " and " +
                std::to_string(values.size()) + ")");
  }
  if (results.empty() && !keys.empty()) {
    throw error(std::string(what) + ": the key at index 0 is not a bin (the results span holds 0 bins)");
  }
  detail::call_workspace held(opt);
  workspace& ws = held.get();
  check_device(ws);
  detail::reduce_by_key<Op, Key>(values.data(), keys.data(), values.size(), results.size(), results.data(), ws,
                                 opt.stream);
  if (wait) detail::throw_pending(ws, opt.stream);
}

template <class T>
std::span<const T> none() {
  return {};
}

/// f with the operator of O over T in opt.mode (the canonical order's, or exact mode's) in call shape `shape`, after
/// the catalogue's check.
template <class T, operation O, class F>
void with_checked_operator(const options& opt, call_shape shape, const char* what, F&& f) {
  with_operator<T, O>(checked_mode<T>(opt.mode, O, backend::cuda, shape, what), std::forward<F>(f));
}

}  // namespace

#define DETRED_CUDA_MODE_SEGMENTS(T, R, name)                                                                      \
  void name##_async(std::span<const T> v, segments s, std::span<R> r, const options& opt) {                        \
    with_checked_operator<T, operation::name>(opt, call_shape::segments, "detred::cuda::" #name, [&]<class Op>() { \
      segments_on_device<Op>(v, none<T>(), s, r, opt, operation::name, "detred::cuda::" #name);                    \
    });                                                                                                            \
  }                                                                                                                \
  void name##_async(matrix_view<T> a, int axis, std::span<R> r, const options& opt) {                              \
    with_checked_operator<T, operation::name>(opt, call_shape::axis, "detred::cuda::" #name, [&]<class Op>() {     \
      axis_on_device<Op>(a, axis, r, opt, operation::name, "detred::cuda::" #name);                                \
    });                                                                                                            \
  }
#define DETRED_CUDA_BATCHED(T)                                                                                        \
  DETRED_CUDA_MODE_SEGMENTS(T, T, sum)                                                                                \
  DETRED_CUDA_MODE_SEGMENTS(T, T, asum)                                                                               \
  DETRED_CUDA_MODE_SEGMENTS(T, T, nrm2)                                                                               \
  void dot_async(std::span<const T> x, std::span<const T> y, segments s, std::span<T> r, const options& opt) {        \
    with_checked_operator<T, operation::dot>(opt, call_shape::segments, "detred::cuda::dot", [&]<class Op>() {        \
      segments_on_device<Op>(x, y, s, r, opt, operation::dot, "detred::cuda::dot");                                   \
    });                                                                                                               \
  }                                                                                                                   \
  void min_async(std::span<const T> v, segments s, std::span<T> r, const options& opt) {                              \
    segments_on_device<order::min_op<T>>(v, none<T>(), s, r, opt, operation::min, "detred::cuda::min");               \
  }                                                                                                                   \
  void max_async(std::span<const T> v, segments s, std::span<T> r, const options& opt) {                              \
    segments_on_device<order::max_op<T>>(v, none<T>(), s, r, opt, operation::max, "detred::cuda::max");               \
  }                                                                                                                   \
  void argmin_async(std::span<const T> v, segments s, std::span<std::uint64_t> r, const options& opt) {               \
    segments_on_device<order::argmin_op<T>>(v, none<T>(), s, r, opt, operation::argmin, "detred::cuda::argmin");      \
  }                                                                                                                   \
  void argmax_async(std::span<const T> v, segments s, std::span<std::uint64_t> r, const options& opt) {               \
    segments_on_device<order::argmax_op<T>>(v, none<T>(), s, r, opt, operation::argmax, "detred::cuda::argmax");      \
  }                                                                                                                   \
  void stats_async(std::span<const T> v, segments s, std::span<statistics<T>> r, const options& opt) {                \
    checked_mode<T>(opt.mode, operation::stats, backend::cuda, call_shape::segments, "detred::cuda::stats");          \
    segments_on_device<order::moments_op<T>>(v, none<T>(), s, r, opt, operation::stats, "detred::cuda::stats");       \
  }                                                                                                                   \
  void min_async(matrix_view<T> a, int axis, std::span<T> r, const options& opt) {                                    \
    axis_on_device<order::min_op<T>>(a, axis, r, opt, operation::min, "detred::cuda::min");                           \
  }                                                                                                                   \
  void max_async(matrix_view<T> a, int axis, std::span<T> r, const options& opt) {                                    \
    axis_on_device<order::max_op<T>>(a, axis, r, opt, operation::max, "detred::cuda::max");                           \
  }                                                                                                                   \
  void stats_async(matrix_view<T> a, int axis, std::span<statistics<T>> r, const options& opt) {                      \
    checked_mode<T>(opt.mode, operation::stats, backend::cuda, call_shape::axis, "detred::cuda::stats");              \
    axis_on_device<order::moments_op<T>>(a, axis, r, opt, operation::stats, "detred::cuda::stats");                   \
  }                                                                                                                   \
  void sum_by_key(std::span<const T> v, std::span<const std::uint32_t> k, std::span<T> r, const options& opt) {       \
    with_checked_operator<T, operation::sum>(opt, call_shape::by_key, "detred::cuda::sum_by_key",                     \
                                             [&]<class Op>() { by_key_on_device<Op>(v, k, r, opt, true); });          \
  }                                                                                                                   \
  void sum_by_key(std::span<const T> v, std::span<const std::int64_t> k, std::span<T> r, const options& opt) {        \
    with_checked_operator<T, operation::sum>(opt, call_shape::by_key, "detred::cuda::sum_by_key",                     \
                                             [&]<class Op>() { by_key_on_device<Op>(v, k, r, opt, true); });          \
  }                                                                                                                   \
  void sum_by_key_async(std::span<const T> v, std::span<const std::uint32_t> k, std::span<T> r, const options& opt) { \
    with_checked_operator<T, operation::sum>(opt, call_shape::by_key, "detred::cuda::sum_by_key",                     \
                                             [&]<class Op>() { by_key_on_device<Op>(v, k, r, opt, false); });         \
  }                                                                                                                   \
  void sum_by_key_async(std::span<const T> v, std::span<const std::int64_t> k, std::span<T> r, const options& opt) {  \
    with_checked_operator<T, operation::sum>(opt, call_shape::by_key, "detred::cuda::sum_by_key",                     \
                                             [&]<class Op>() { by_key_on_device<Op>(v, k, r, opt, false); });         \
  }

DETRED_CUDA_BATCHED(double)
DETRED_CUDA_BATCHED(float)
// 16-bit floats: the sum only, in float.
DETRED_CUDA_MODE_SEGMENTS(float16, float, sum)
DETRED_CUDA_MODE_SEGMENTS(bfloat16, float, sum)
#undef DETRED_CUDA_BATCHED
#undef DETRED_CUDA_MODE_SEGMENTS

}  // namespace cuda

namespace cuda_backend {

using cuda::detail::check;
using cuda::detail::device_copy;

template <class Op>
void reduce_lines_on_device(const order::operands<Op>& x, std::uint64_t extent, const line_set& lines,
                            std::uint64_t count, typename Op::result* results) {
  using I = typename Op::input;
  using R = typename Op::result;
  const device_copy first(x.data[0], extent * sizeof(I));
  const device_copy second(Op::arity == 2 ? x.data[Op::arity - 1] : nullptr, Op::arity == 2 ? extent * sizeof(I) : 0);
  order::operands<Op> on_device{};
  on_device.data[0] = first.as<const I>();
  if constexpr (Op::arity == 2) on_device.data[1] = second.as<const I>();
  const device_copy offsets(lines.offsets, lines.offsets != nullptr ? (count + 1) * sizeof(std::uint64_t) : 0);
  const device_copy out(nullptr, count * sizeof(R));
  cuda::workspace ws;
  cuda::detail::enqueue_any_lines<Op>(
      on_device, extent, {.offsets = offsets.as<const std::uint64_t>(), .stride = lines.stride, .length = lines.length},
      count, out.as<R>(), ws, nullptr);
  if (count > 0)
    check(cudaMemcpy(results, out.as<R>(), count * sizeof(R), cudaMemcpyDeviceToHost), "cudaMemcpy (batch results)");
}

template <class Op>
void reduce_strided_lines_on_device(const order::operands<Op>& x, std::uint64_t extent, std::uint64_t length,
                                    std::uint64_t stride, std::uint64_t count, typename Op::result* results) {
  using I = typename Op::input;
  using R = typename Op::result;
  const device_copy in(x.data[0], extent * sizeof(I));
  const device_copy out(nullptr, count * sizeof(R));
  cuda::workspace ws;
  cuda::detail::enqueue_any_strided_lines<Op>(order::operands<Op>{{in.as<const I>()}, 0}, length, stride, count,
                                              out.as<R>(), ws, nullptr);
  if (count > 0)
    check(cudaMemcpy(results, out.as<R>(), count * sizeof(R), cudaMemcpyDeviceToHost), "cudaMemcpy (batch results)");
}

template <class Op>
void reduce_lines_host(const order::operands<Op>& x, std::uint64_t extent, const line_set& lines, std::uint64_t count,
                       typename Op::result* results) {
  reduce_lines_on_device<Op>(x, extent, lines, count, results);
}

template <class Op>
void reduce_strided_lines_host(const order::operands<Op>& x, std::uint64_t extent, std::uint64_t length,
                               std::uint64_t stride, std::uint64_t count, typename Op::result* results) {
  reduce_strided_lines_on_device<Op>(x, extent, length, stride, count, results);
}

template struct batched_calls<batch_entries>;

}  // namespace cuda_backend
}  // namespace detred
