// SPDX-License-Identifier: BSD-3-Clause
// detred::cuda::rms_norm_rows (detred/cuda_norm_rows.hpp): each row's sum of squares by the batched kernels' row
// pass (row_pass.cuh: row k's bits are detred::sumsq of row k alone), whose finisher turns it into the row's rstd and
// writes the normalized row while the row is in cache. Rows too long for that pass: the batched sums into the rstd
// buffer, then an element-wise kernel, a block per row. detred::cuda::sum_rows: the same row pass with detred::sum,
// whose finisher rounds each row's sum to the element type, and sum_columns the same with short_lines.cuh's pass for
// columns of at most 32 elements; other lines and exact mode: the batched sums, then the rounding as a kernel of its
// own. Every operation is rounded on its own: nvcc runs with -fmad=false, and the double-precision division and
// square root are IEEE's.
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "batch_enqueue.hpp"
#include "call_workspace.hpp"
#include "core/batch_checks.hpp"
#include "core/validate.hpp"
#include "cuda_check.hpp"
#include "detred/cuda.hpp"
#include "resident_blocks.cuh"
#include "row_pass.cuh"
#include "short_lines.cuh"
#include "workspace_state.hpp"

namespace detred::cuda {
namespace {

using detail::check;

/// The element type's accumulation type: double for double, float for the others.
template <class T>
using accumulation_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

/// The exact accumulation-type value of a stored element: order::widen, as every kernel widens 16-bit floats.
template <class T>
__device__ __forceinline__ accumulation_t<T> widened(T v) {
  order::raw_t<T> raw;
  memcpy(&raw, &v, sizeof raw);
  return order::widen<accumulation_t<T>, T>(raw);
}

/// fl_T of an accumulation-type value, for rms_norm's element-wise outputs: the conversion instruction, IEEE round to
/// nearest even for the 16-bit floats (number_types.hpp's bits, but for a NaN's, which the header leaves open).
template <class T>
__device__ __forceinline__ T narrowed(accumulation_t<T> v) {
  if constexpr (std::is_same_v<T, bfloat16>) {
    return static_cast<T>(__bfloat16_as_ushort(__float2bfloat16_rn(v)));
  } else if constexpr (std::is_same_v<T, float16>) {
    return static_cast<T>(__half_as_ushort(__float2half_rn(v)));
  } else {
    return v;
  }
}

/// The header's rstd of a row from its sum of squares: fl_A(1 / sqrt(double(fl_A(fl_A(double(sum) / double(count))
/// + eps)))), count = fl_A(cols). The only statement of it in the kernels.
template <class A>
__device__ __forceinline__ A rstd_of(A sum, A count, A eps) {
  const A v = static_cast<A>(static_cast<A>(static_cast<double>(sum) / static_cast<double>(count)) + eps);
  return static_cast<A>(1.0 / sqrt(static_cast<double>(v)));
}

/// Elements a thread moves with one 16-byte access.
template <class T>
inline constexpr unsigned vector_elements = 16 / sizeof(T);

/// One element's output: fl_T(fl_A(fl_A(x * r) * w)), or fl_T(fl_A(x * r)) without a weight.
template <class T>
__device__ __forceinline__ T scaled(T e, accumulation_t<T> r, const T* weight, std::uint64_t j) {
  const accumulation_t<T> p = widened(e) * r;
  return narrowed<T>(weight != nullptr ? p * widened(weight[j]) : p);
}

/// A 16-byte vector of elements j .. j + V - 1 of a row, each scaled as scaled() does; the weight read as a vector.
template <class T>
__device__ __forceinline__ uint4 scaled_vector(uint4 e, accumulation_t<T> r, const T* weight, std::uint64_t j) {
  constexpr unsigned V = vector_elements<T>;
  T in[V];
  T w[V];
  T out[V];
  memcpy(in, &e, sizeof e);
  if (weight != nullptr) {
    const uint4 wv = *reinterpret_cast<const uint4*>(weight + j);
    memcpy(w, &wv, sizeof wv);
  }
#pragma unroll
  for (unsigned q = 0; q < V; ++q) {
    const accumulation_t<T> p = widened(in[q]) * r;
    out[q] = narrowed<T>(weight != nullptr ? p * widened(w[q]) : p);
  }
  uint4 o;
  memcpy(&o, out, sizeof o);
  return o;
}

/// The normalized row out = y_k from in = x_k and its rstd r, by `threads` threads of which this is thread t. With
/// `vectors` (in, out and the weight on 16-byte boundaries, cols a multiple of the vector) a thread moves 16 bytes a
/// step, four steps' loads in flight; otherwise an element a step.
template <class T>
__device__ __forceinline__ void write_row(const T* in, T* out, std::uint64_t cols, accumulation_t<T> r, const T* weight,
                                          bool vectors, unsigned t, unsigned threads) {
  constexpr unsigned V = vector_elements<T>;
  constexpr unsigned unroll = 4;
  if (vectors) {
    const std::uint64_t step = std::uint64_t{threads} * V;
    std::uint64_t j = std::uint64_t{t} * V;
    for (; j + (unroll - 1) * step < cols; j += unroll * step) {
      uint4 e[unroll];
#pragma unroll
      for (unsigned u = 0; u < unroll; ++u) e[u] = *reinterpret_cast<const uint4*>(in + j + u * step);
#pragma unroll
      for (unsigned u = 0; u < unroll; ++u) {
        *reinterpret_cast<uint4*>(out + j + u * step) = scaled_vector<T>(e[u], r, weight, j + u * step);
      }
    }
    for (; j < cols; j += step) {
      *reinterpret_cast<uint4*>(out + j) = scaled_vector<T>(*reinterpret_cast<const uint4*>(in + j), r, weight, j);
    }
  } else {
    for (std::uint64_t j = t; j < cols; j += threads) out[j] = scaled(in[j], r, weight, j);
  }
}

constexpr unsigned row_block = 256;

/// Rows too long for the row pass: a block per row (grid-stride over rows) turns the row's sum of squares, which the
/// batched sums left in rstd[k], into rstd_k (every thread reads the sum before thread 0 replaces it), then writes y_k.
template <class T>
__global__ void __launch_bounds__(row_block)
    normalize_rows(const T* __restrict__ x, std::uint64_t ld, std::uint64_t rows, std::uint64_t cols,
                   const T* __restrict__ weight, accumulation_t<T> eps, bool vectors, accumulation_t<T>* rstd,
                   T* __restrict__ y) {
  using A = accumulation_t<T>;
  for (std::uint64_t k = blockIdx.x; k < rows; k += gridDim.x) {
    const A sum = rstd[k];
    __syncthreads();
    const A r = rstd_of(sum, static_cast<A>(cols), eps);
    if (threadIdx.x == 0) rstd[k] = r;
    write_row(x + k * ld, y + k * cols, cols, r, weight, vectors, threadIdx.x, row_block);
  }
}

/// uniform_rows' finisher for rms_norm: the warp that holds row k's sum of squares turns it into rstd_k and writes y_k
/// right away, reading the row again while its elements are still in L1 or L2 (one pass over memory for the two).
template <class T>
struct rms_norm_finish {
  using A = accumulation_t<T>;
  const T* x;
  std::uint64_t ld;
  std::uint64_t cols;
  const T* weight;
  A eps;
  A* rstd;
  T* y;
  bool vectors;

  __device__ void operator()(std::uint64_t k, A sum, unsigned lane) const {
    const A r = rstd_of(__shfl_sync(detail::full_mask, sum, 0), static_cast<A>(cols), eps);
    if (lane == 0) rstd[k] = r;
    write_row(x + k * ld, y + k * cols, cols, r, weight, vectors, lane, detail::warp_size);
  }
};

/// Launches uniform_rows over the rows of x with the finisher `finish` when a row is 1 to batch_warps work items
/// (up to 2^17 floats) and returns true; returns false, launching nothing, for longer rows and rows of no element.
template <class Op, class T, class Finish>
bool launch_uniform_rows(matrix_view<T> x, const Finish& finish, stream_t stream) {
  const std::uint64_t items = detail::row_items<Op>(x.cols);
  if (items < 1 || items > detail::batch_warps) return false;
  const std::uint64_t per_block = detail::batch_warps / items;
  const auto kernel = detail::uniform_rows<Op, Finish>;
  const std::uint64_t needed = (x.rows + per_block - 1) / per_block;
  const std::uint64_t grid = detail::resident_blocks(kernel, detail::batch_block);
  kernel<<<static_cast<unsigned>(needed < grid ? needed : grid), detail::batch_block, 0, stream>>>(
      order::operands<Op>{{x.data}, 0}, x.leading_dimension, x.cols, x.rows, static_cast<unsigned>(items), finish);
  check(cudaGetLastError(), "row pass launch");
  return true;
}

template <class T, class A>
void rms_norm_rows_on(matrix_view<T> x, std::span<const T> weight, double eps, std::span<T> y, std::span<A> rstd,
                      const options& opt, bool wait) {
  const char* what = "cuda::rms_norm_rows";
  const std::string call = std::string("detred::") + what + ": ";
  if (x.layout != layout::row_major) throw error(call + "the matrix must be row-major (its rows are normalized)");
  const axis_lines rows = lines_of(x, 1, rstd.size(), what);
  if (y.size() != x.rows * x.cols) {
    throw error(call + "y holds " + std::to_string(y.size()) + " elements, but the " + std::to_string(x.rows) + " x " +
                std::to_string(x.cols) + " matrix needs " + std::to_string(x.rows * x.cols));
  }
  if (!weight.empty() && weight.size() != x.cols) {
    throw error(call + "the weight holds " + std::to_string(weight.size()) + " elements, not one per column (" +
                std::to_string(x.cols) + ")");
  }
  if (opt.mode == mode::exact) {
    throw error(call + "mode::exact is not available (tree or compensated: the statistic is a sum of squares)");
  }
  if (x.rows == 0) return;
  detail::call_workspace held(opt);
  workspace& ws = held.get();
  detail::workspace_access::of(ws).check_current_device();
  // Every row of x and y and the weight on 16-byte boundaries, cols a multiple of the vector: write_row's fast path.
  const bool vectors = x.cols % vector_elements<T> == 0 && x.leading_dimension % vector_elements<T> == 0 &&
                       reinterpret_cast<std::uintptr_t>(x.data) % 16 == 0 &&
                       reinterpret_cast<std::uintptr_t>(y.data()) % 16 == 0 &&
                       reinterpret_cast<std::uintptr_t>(weight.data()) % 16 == 0;
  // Rows of 1 to batch_warps work items (up to 2^17 floats): one kernel, uniform_rows with rms_norm_finish. Longer
  // rows, and rows of no element: the batched sums of squares into rstd, then normalize_rows.
  const auto run = [&]<class Policy>() {
    using Op = order::sumsq_op<T, Policy>;
    const order::operands<Op> operands{{x.data}, 0};
    const rms_norm_finish<T> finish{x.data,
                                    x.leading_dimension,
                                    x.cols,
                                    weight.empty() ? nullptr : weight.data(),
                                    static_cast<A>(eps),
                                    rstd.data(),
                                    y.data(),
                                    vectors};
    if (launch_uniform_rows<Op>(x, finish, opt.stream)) return;
    detail::enqueue_lines<Op>(operands, extent_of(x), {.stride = rows.stride, .length = rows.length}, rows.count,
                              rstd.data(), ws, opt.stream);
    const std::uint64_t grid = detail::resident_blocks(normalize_rows<T>, row_block) * 4;
    normalize_rows<T><<<static_cast<unsigned>(x.rows < grid ? x.rows : grid), row_block, 0, opt.stream>>>(
        x.data, x.leading_dimension, x.rows, x.cols, weight.empty() ? nullptr : weight.data(), static_cast<A>(eps),
        vectors, rstd.data(), y.data());
    check(cudaGetLastError(), "rms_norm rows launch");
  };
  if (opt.mode == mode::compensated) {
    run.template operator()<order::compensated_sums>();
  } else {
    run.template operator()<order::plain_sums>();
  }
  if (wait) check(cudaStreamSynchronize(opt.stream), "cudaStreamSynchronize (rms_norm rows)");
}

/// A sum rounded to the element type: number_types.hpp's rounding, the one every 16-bit result of detred takes (its
/// NaN the type's canonical quiet NaN); float and double sums unchanged.
template <class T>
__device__ __forceinline__ T rounded_sum(accumulation_t<T> sum) {
  if constexpr (std::is_same_v<T, bfloat16>) {
    return to_bfloat16(sum);
  } else if constexpr (std::is_same_v<T, float16>) {
    return to_float16(sum);
  } else {
    return sum;
  }
}

/// The finisher of sum_rows and sum_columns: line k's sum rounded to the element type as it is stored. Called by the
/// warp that holds it (uniform_rows: valid in lane 0) or by the one thread that does (short_strided_pass).
template <class T>
struct narrowed_sums {
  T* sums;
  __device__ void operator()(std::uint64_t k, accumulation_t<T> sum, unsigned lane) const {
    if (lane == 0) sums[k] = rounded_sum<T>(sum);
  }
  __device__ void operator()(std::uint64_t k, accumulation_t<T> sum) const { sums[k] = rounded_sum<T>(sum); }
};

template <class T>
__global__ void narrow_all(const accumulation_t<T>* __restrict__ in, std::uint64_t count, T* __restrict__ out) {
  for (std::uint64_t k = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; k < count;
       k += std::uint64_t{gridDim.x} * blockDim.x) {
    out[k] = rounded_sum<T>(in[k]);
  }
}

/// sum_rows (axis 1) and sum_columns (axis 0) of a row-major matrix: each line's detred::sum, rounded once.
template <class T>
void sum_lines_on(matrix_view<T> x, int axis, std::span<T> sums, const options& opt, bool wait) {
  using A = accumulation_t<T>;
  const char* what = axis == 1 ? "cuda::sum_rows" : "cuda::sum_columns";
  if (x.layout != layout::row_major) {
    throw error(std::string("detred::") + what + ": the matrix must be row-major (its " +
                (axis == 1 ? "rows" : "columns") + " are summed)");
  }
  const axis_lines lines = lines_of(x, axis, sums.size(), what);
  // The mode is checked before an empty call returns, so that a bad mode is refused whatever the shape.
  checked_mode<T>(opt.mode, operation::sum, backend::cuda, call_shape::axis, (std::string("detred::") + what).c_str());
  if (lines.count == 0) return;
  detail::call_workspace held(opt);
  workspace& ws = held.get();
  auto& state = detail::workspace_access::of(ws);
  state.check_current_device();
  // In tree or compensated mode, rows of 1 to batch_warps work items (uniform_rows) and columns of 1 to
  // short_strided_rows elements (short_strided_pass) are one kernel, whose finisher rounds each sum as it stores it.
  const narrowed_sums<T> finish{sums.data()};
  const auto fuse = [&]<class Policy>() {
    using Op = order::sum_op<T, Policy>;
    if (axis == 1) return launch_uniform_rows<Op>(x, finish, opt.stream);
    return detail::launch_short_strided<Op>(order::operands<Op>{{x.data}, 0}, lines.length, lines.stride, lines.count,
                                            finish, opt.stream);
  };
  bool fused = false;
  if (opt.mode == mode::compensated) {
    fused = fuse.template operator()<order::compensated_sums>();
  } else if (opt.mode == mode::tree) {
    fused = fuse.template operator()<order::plain_sums>();
  }
  if (!fused) {
    // The batched sums (every mode, any line length) in A, then rounded; in place where A is T. The rounding's input
    // lives in the workspace's buffer of unrounded results (the batched call takes the partials and, in exact mode,
    // the staging buffer), which only this stream's calls use, in stream order. The held workspace is passed on:
    // the call must not wait for the lock this call holds.
    const options on_held{.mode = opt.mode, .stream = opt.stream, .workspace = &ws};
    if constexpr (std::is_same_v<A, T>) {
      sum_async(x, axis, sums, on_held);
    } else {
      state.reserve_unrounded(lines.count * sizeof(A), opt.stream);
      const std::span<A> wide{static_cast<A*>(state.unrounded), lines.count};
      sum_async(x, axis, wide, on_held);
      const unsigned block = 256;
      const std::uint64_t grid = (lines.count + block - 1) / block;
      narrow_all<T><<<static_cast<unsigned>(grid < 4096 ? grid : 4096), block, 0, opt.stream>>>(
          wide.data(), lines.count, sums.data());
      check(cudaGetLastError(), "sum rounding launch");
    }
  }
  if (wait) check(cudaStreamSynchronize(opt.stream), "cudaStreamSynchronize (line sums)");
}

}  // namespace

#define DETRED_CUDA_RMS_NORM_ROWS(T, A)                                                                                \
  void rms_norm_rows_async(matrix_view<T> x, std::span<const T> weight, double eps, std::span<T> y, std::span<A> rstd, \
                           const options& opt) {                                                                       \
    rms_norm_rows_on(x, weight, eps, y, rstd, opt, false);                                                             \
  }                                                                                                                    \
  void rms_norm_rows(matrix_view<T> x, std::span<const T> weight, double eps, std::span<T> y, std::span<A> rstd,       \
                     const options& opt) {                                                                             \
    rms_norm_rows_on(x, weight, eps, y, rstd, opt, true);                                                              \
  }                                                                                                                    \
  void sum_rows_async(matrix_view<T> x, std::span<T> sums, const options& opt) {                                       \
    sum_lines_on(x, 1, sums, opt, false);                                                                              \
  }                                                                                                                    \
  void sum_rows(matrix_view<T> x, std::span<T> sums, const options& opt) { sum_lines_on(x, 1, sums, opt, true); }      \
  void sum_columns_async(matrix_view<T> x, std::span<T> sums, const options& opt) {                                    \
    sum_lines_on(x, 0, sums, opt, false);                                                                              \
  }                                                                                                                    \
  void sum_columns(matrix_view<T> x, std::span<T> sums, const options& opt) { sum_lines_on(x, 0, sums, opt, true); }
DETRED_CUDA_NORM_ROW_TYPES(DETRED_CUDA_RMS_NORM_ROWS)
#undef DETRED_CUDA_RMS_NORM_ROWS

}  // namespace detred::cuda
