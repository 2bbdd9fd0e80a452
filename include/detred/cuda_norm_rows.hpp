// SPDX-License-Identifier: BSD-3-Clause
// Row and column operations of a matrix in GPU memory whose outputs come in the element's own type, each line's
// statistic a detred reduction: the forward of detred.torch's rms_norm (docs/torch.md) as one statistic pass and one
// element-wise pass, and row and column sums rounded to a 16-bit element type in the kernel that computes them
// (torch.sum's dtype rule). Included by detred/cuda.hpp; plain C++ (no CUDA header), like it.
//
//   detred::cuda::rms_norm_rows_async(detred::matrix_view<detred::bfloat16>{d_x, rows, cols, cols},
//                                     std::span<const detred::bfloat16>(d_w, cols), 1e-6,
//                                     std::span<detred::bfloat16>(d_y, rows * cols), std::span<float>(d_rstd, rows),
//                                     {.stream = s});
//
// For row k of x (n = cols elements, T the element type, A its accumulation type: double for double, float for
// float, float16 and bfloat16; fl_A rounds to A, every operation is rounded on its own, never fused):
//   s_k    = detred::sumsq of row k in opt.mode (tree or compensated): the batched guarantee, so its bits are those of
//            the single-array call on row k alone (detred/batched.hpp), on the CPU too
//   v_k    = fl_A(fl_A(double(s_k) / double(fl_A(n))) + fl_A(eps))
//   rstd_k = fl_A(1 / sqrt(double(v_k)))                    (the square root and the division in double)
//   y_kj   = fl_T(fl_A(fl_A(x_kj * rstd_k) * w_j))           (without a weight: fl_T(fl_A(x_kj * rstd_k)))
// 16-bit elements are widened exactly to float first; fl_T of a float is IEEE round to nearest even. These are the
// bits of detred.torch.rms_norm on the CPU (tests/python/test_torch.py compares them), except that a NaN output's
// payload is not specified (the GPU's arithmetic gives its canonical NaN; the CPU's keeps an operand's).
//
// x is row-major with leading dimension >= cols; weight holds cols elements or none; y holds rows x cols outputs
// packed row after row and must not overlap x; rstd holds rows. A bad argument throws detred::error naming it;
// mode::exact is refused. The _async call enqueues on opt.stream and returns; the other waits for opt.stream.
//
// sum_rows(x, sums): sums[k] = fl_T(s_k), s_k = detred::sum of row k in opt.mode (tree, compensated or exact),
// computed in A as detred::cuda::sum(x, 1, ...) computes it (the same bits); fl_T is detred::to_float16 or
// to_bfloat16 (detred/number_types.hpp: to nearest even, a NaN sum the type's canonical NaN 0x7e00 or 0x7fc0; for
// float and double it changes nothing). For 16-bit T this is the sum and the rounding that would otherwise take a
// second launch over the float results. sums holds rows elements; the arguments are checked as rms_norm_rows's are;
// an empty row's sum is -0.0.
// sum_columns(x, sums): the same for the columns, sums[j] = fl_T(detred::sum of column j) as detred::cuda::sum(x, 0,
// ...) computes it; sums holds cols elements, x is row-major. Columns of at most 32 elements in tree or compensated
// mode are one kernel (detred::nccl's R x shard blocks are such matrices).
#pragma once

#include <span>

#include "detred/batched.hpp"
#include "detred/cuda.hpp"
#include "detred/number_types.hpp"
#include "detred/options.hpp"

// Exported from a shared libdetred, whose other symbols are hidden (cmake/DetredShared.cmake).
#pragma GCC visibility push(default)

namespace detred::cuda {

#define DETRED_CUDA_RMS_NORM_ROWS(T, A)                                                                                \
  void rms_norm_rows_async(matrix_view<T> x, std::span<const T> weight, double eps, std::span<T> y, std::span<A> rstd, \
                           const options& opt = {});                                                                   \
  void rms_norm_rows(matrix_view<T> x, std::span<const T> weight, double eps, std::span<T> y, std::span<A> rstd,       \
                     const options& opt = {});                                                                         \
  void sum_rows_async(matrix_view<T> x, std::span<T> sums, const options& opt = {});                                   \
  void sum_rows(matrix_view<T> x, std::span<T> sums, const options& opt = {});                                         \
  void sum_columns_async(matrix_view<T> x, std::span<T> sums, const options& opt = {});                                \
  void sum_columns(matrix_view<T> x, std::span<T> sums, const options& opt = {});
// The element types and their accumulation types, X(T, A) each (the library defines the calls with it too).
#define DETRED_CUDA_NORM_ROW_TYPES(X) X(double, double) X(float, float) X(float16, float) X(bfloat16, float)
DETRED_CUDA_NORM_ROW_TYPES(DETRED_CUDA_RMS_NORM_ROWS)
#undef DETRED_CUDA_RMS_NORM_ROWS

}  // namespace detred::cuda

#pragma GCC visibility pop
