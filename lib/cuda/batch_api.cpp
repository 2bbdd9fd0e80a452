// SPDX-License-Identifier: BSD-3-Clause
// The batched CUDA entry points (detred/cuda.hpp) and the backend seam of the batched host calls with
// backend::cuda: argument checks, then batch.cu's enqueue functions.
#include <cstdint>
#include <span>
#include <string>
#include <tuple>

#include <cuda_runtime_api.h>

#include "batch_enqueue.hpp"
#include "core/batch_checks.hpp"
#include "core/operators.hpp"
#include "core/validate.hpp"
#include "cuda_backend.hpp"
#include "cuda_check.hpp"
#include "detred/cuda.hpp"
#include "workspace_state.hpp"

namespace detred {
namespace cuda {
namespace {

using detail::check;

void check_device(workspace& ws) { detail::workspace_access::of(ws).check_current_device(); }

template <class Op>
void segments_on_device(std::span<const typename Op::input> x, std::span<const typename Op::input> y, const segments& s,
                        std::span<typename Op::result> results, workspace& ws, stream_t stream, const char* what) {
  check_device(ws);
  validate_segment_count(s, results.size(), what);
  order::operands<Op> operands{};
  operands.data[0] = x.data();
  if constexpr (Op::arity == 2) {
    validate_lengths(x.size(), y.size(), "detred::cuda::dot");
    operands.data[1] = y.data();
  }
  detail::enqueue_lines<Op>(operands, x.size(), {.offsets = s.offsets.data()}, results.size(), results.data(), ws,
                            stream);
}

template <class Op>
void axis_on_device(const matrix_view<typename Op::input>& a, int axis, std::span<typename Op::result> results,
                    workspace& ws, stream_t stream, const char* what) {
  check_device(ws);
  const axis_lines l = lines_of(a, axis, results.size(), what);
  const order::operands<Op> x{{a.data}, 0};
  if (l.contiguous) {
    detail::enqueue_lines<Op>(x, extent_of(a), {.stride = l.stride, .length = l.length}, l.count, results.data(), ws,
                              stream);
  } else {
    detail::enqueue_strided_lines<Op>(x, l.length, l.stride, l.count, results.data(), ws, stream);
  }
}

template <class Op>
void by_key_on_device(std::span<const typename Op::input> values, std::span<const std::uint32_t> keys,
                      std::span<typename Op::result> results, workspace& ws, stream_t stream, const char* what) {
  check_device(ws);
  if (keys.size() != values.size()) {
    throw error(std::string("detred::cuda::") + what + ": keys and values differ in length (" +
                std::to_string(keys.size()) + " and " + std::to_string(values.size()) + ")");
  }
  const std::uint64_t bad =
      detail::reduce_by_key<Op>(values.data(), keys.data(), values.size(), results.size(), results.data(), ws, stream);
  if (bad != ~std::uint64_t{0}) {
    throw error(std::string("detred::cuda::") + what + ": the key at index " + std::to_string(bad) +
                " is not a bin (the results span holds " + std::to_string(results.size()) + " bins)");
  }
}

template <class T>
std::span<const T> none() {
  return {};
}

}  // namespace

#define DETRED_CUDA_BATCHED(T)                                                                                         \
  void sum_async(std::span<const T> v, segments s, std::span<T> r, workspace& ws, mode m, stream_t st) {               \
    with_policy(checked_mode<T>(m, operation::sum, backend::cuda, call_shape::segments, "detred::cuda::sum"),          \
                [&]<class P>() { segments_on_device<order::sum_op<T, P>>(v, none<T>(), s, r, ws, st, "cuda::sum"); }); \
  }                                                                                                                    \
  void asum_async(std::span<const T> v, segments s, std::span<T> r, workspace& ws, mode m, stream_t st) {              \
    with_policy(                                                                                                       \
        checked_mode<T>(m, operation::asum, backend::cuda, call_shape::segments, "detred::cuda::asum"),                \
        [&]<class P>() { segments_on_device<order::asum_op<T, P>>(v, none<T>(), s, r, ws, st, "cuda::asum"); });       \
  }                                                                                                                    \
  void nrm2_async(std::span<const T> v, segments s, std::span<T> r, workspace& ws, mode m, stream_t st) {              \
    with_policy(                                                                                                       \
        checked_mode<T>(m, operation::nrm2, backend::cuda, call_shape::segments, "detred::cuda::nrm2"),                \
        [&]<class P>() { segments_on_device<order::nrm2_op<T, P>>(v, none<T>(), s, r, ws, st, "cuda::nrm2"); });       \
  }                                                                                                                    \
  void dot_async(std::span<const T> x, std::span<const T> y, segments s, std::span<T> r, workspace& ws, mode m,        \
                 stream_t st) {                                                                                        \
    with_policy(checked_mode<T>(m, operation::dot, backend::cuda, call_shape::segments, "detred::cuda::dot"),          \
                [&]<class P>() { segments_on_device<order::dot_op<T, P>>(x, y, s, r, ws, st, "cuda::dot"); });         \
  }                                                                                                                    \
  void min_async(std::span<const T> v, segments s, std::span<T> r, workspace& ws, stream_t st) {                       \
    segments_on_device<order::min_op<T>>(v, none<T>(), s, r, ws, st, "cuda::min");                                     \
  }                                                                                                                    \
  void max_async(std::span<const T> v, segments s, std::span<T> r, workspace& ws, stream_t st) {                       \
    segments_on_device<order::max_op<T>>(v, none<T>(), s, r, ws, st, "cuda::max");                                     \
  }                                                                                                                    \
  void argmin_async(std::span<const T> v, segments s, std::span<std::uint64_t> r, workspace& ws, stream_t st) {        \
    segments_on_device<order::argmin_op<T>>(v, none<T>(), s, r, ws, st, "cuda::argmin");                               \
  }                                                                                                                    \
  void argmax_async(std::span<const T> v, segments s, std::span<std::uint64_t> r, workspace& ws, stream_t st) {        \
    segments_on_device<order::argmax_op<T>>(v, none<T>(), s, r, ws, st, "cuda::argmax");                               \
  }                                                                                                                    \
  void stats_async(std::span<const T> v, segments s, std::span<statistics<T>> r, workspace& ws, stream_t st) {         \
    segments_on_device<order::moments_op<T>>(v, none<T>(), s, r, ws, st, "cuda::stats");                               \
  }                                                                                                                    \
  void sum_async(matrix_view<T> a, int axis, std::span<T> r, workspace& ws, mode m, stream_t st) {                     \
    with_policy(checked_mode<T>(m, operation::sum, backend::cuda, call_shape::axis, "detred::cuda::sum"),              \
                [&]<class P>() { axis_on_device<order::sum_op<T, P>>(a, axis, r, ws, st, "cuda::sum"); });             \
  }                                                                                                                    \
  void asum_async(matrix_view<T> a, int axis, std::span<T> r, workspace& ws, mode m, stream_t st) {                    \
    with_policy(checked_mode<T>(m, operation::asum, backend::cuda, call_shape::axis, "detred::cuda::asum"),            \
                [&]<class P>() { axis_on_device<order::asum_op<T, P>>(a, axis, r, ws, st, "cuda::asum"); });           \
  }                                                                                                                    \
  void nrm2_async(matrix_view<T> a, int axis, std::span<T> r, workspace& ws, mode m, stream_t st) {                    \
    with_policy(checked_mode<T>(m, operation::nrm2, backend::cuda, call_shape::axis, "detred::cuda::nrm2"),            \
                [&]<class P>() { axis_on_device<order::nrm2_op<T, P>>(a, axis, r, ws, st, "cuda::nrm2"); });           \
  }                                                                                                                    \
  void min_async(matrix_view<T> a, int axis, std::span<T> r, workspace& ws, stream_t st) {                             \
    axis_on_device<order::min_op<T>>(a, axis, r, ws, st, "cuda::min");                                                 \
  }                                                                                                                    \
  void max_async(matrix_view<T> a, int axis, std::span<T> r, workspace& ws, stream_t st) {                             \
    axis_on_device<order::max_op<T>>(a, axis, r, ws, st, "cuda::max");                                                 \
  }                                                                                                                    \
  void stats_async(matrix_view<T> a, int axis, std::span<statistics<T>> r, workspace& ws, stream_t st) {               \
    axis_on_device<order::moments_op<T>>(a, axis, r, ws, st, "cuda::stats");                                           \
  }                                                                                                                    \
  void sum_by_key(std::span<const T> v, std::span<const std::uint32_t> k, std::span<T> r, workspace& ws, mode m,       \
                  stream_t st) {                                                                                       \
    with_policy(checked_mode<T>(m, operation::sum, backend::cuda, call_shape::by_key, "detred::cuda::sum_by_key"),     \
                [&]<class P>() { by_key_on_device<order::sum_op<T, P>>(v, k, r, ws, st, "sum_by_key"); });             \
  }

DETRED_CUDA_BATCHED(double)
DETRED_CUDA_BATCHED(float)
#undef DETRED_CUDA_BATCHED

}  // namespace cuda

namespace cuda_backend {
namespace {

using cuda::detail::check;

/// A device copy of host data, freed on scope exit (the calls below are synchronous: each makes its own workspace
/// for its scratch, which host staging dwarfs).
class device_copy {
 public:
  device_copy(const void* host, std::uint64_t bytes) {
    if (bytes == 0) return;
    check(cudaMalloc(&p_, bytes), "cudaMalloc (batch input)");
    if (host != nullptr) check(cudaMemcpy(p_, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy (batch input)");
  }
  ~device_copy() {
    if (p_ != nullptr) static_cast<void>(cudaFree(p_));
  }
  device_copy(const device_copy&) = delete;
  device_copy& operator=(const device_copy&) = delete;
  template <class T>
  T* as() const {
    return static_cast<T*>(p_);
  }

 private:
  void* p_ = nullptr;
};

}  // namespace

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
  cuda::detail::enqueue_lines<Op>(
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
  cuda::detail::enqueue_strided_lines<Op>(order::operands<Op>{{in.as<const I>()}, 0}, length, stride, count,
                                          out.as<R>(), ws, nullptr);
  if (count > 0)
    check(cudaMemcpy(results, out.as<R>(), count * sizeof(R), cudaMemcpyDeviceToHost), "cudaMemcpy (batch results)");
}

/// The GPU has no batched kernel for exact mode's operators yet: the catalogue lists their batches on the CPU only,
/// so the front door refuses them before they come here.
[[noreturn]] inline void no_exact_batches() {
  throw error("the CUDA backend has no batched form of mode exact (docs/exact.md): use the CPU backend");
}

template <class Op>
void reduce_lines_host(const order::operands<Op>& x, std::uint64_t extent, const line_set& lines, std::uint64_t count,
                       typename Op::result* results) {
  if constexpr (exact::is_exact_op<Op>) {
    no_exact_batches();
  } else {
    reduce_lines_on_device<Op>(x, extent, lines, count, results);
  }
}

template <class Op>
void reduce_strided_lines_host(const order::operands<Op>& x, std::uint64_t extent, std::uint64_t length,
                               std::uint64_t stride, std::uint64_t count, typename Op::result* results) {
  if constexpr (exact::is_exact_op<Op>) {
    no_exact_batches();
  } else {
    reduce_strided_lines_on_device<Op>(x, extent, length, stride, count, results);
  }
}

template <class List>
struct instantiate_batches;
template <class... Ops>
struct instantiate_batches<op_list<Ops...>> {
  static constexpr std::tuple pointers{&reduce_lines_host<Ops>..., &reduce_strided_lines_host<Ops>...};
};
template struct instantiate_batches<batch_entries>;

}  // namespace cuda_backend
}  // namespace detred
