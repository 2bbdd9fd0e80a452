// SPDX-License-Identifier: BSD-3-Clause
// Exact mode for batches on the CPU: many lines (segments, matrix rows or columns, groups by key), each its own
// correctly rounded sum, |x| sum or dot product. A line's result is the rounding of its exact value, which depends on
// nothing but the line's values: it has the bits of the single-array exact call on that line, whatever the rest of
// the batch, the layout, the thread count or the instruction set (docs/exact.md, docs/batched.md).
#pragma once

#include <cstdint>

#include "detred/exact/exact_ops.hpp"

#include "cpu/cpu_backend.hpp"
#include "widened.hpp"

namespace detred::exact_cpu {

/// What each line of a batch adds up exactly: its values, magnitudes, products with y (dot) or squares; the finish
/// (exact::finish) says whether the result is that sum rounded once, its square root rounded once (nrm2) or its
/// quotient by the line's length rounded once (mean).
enum class line_op { sum, asum, dot, squares };

/// results[k] = the correctly rounded sum, |x| sum, dot product (with y, of the same layout) or norm of line k of
/// `lines`, for k < count; T = double or float, or float16 and bfloat16 (widened exactly, float results). y is only
/// read for line_op::dot.
template <class T>
void reduce_lines(line_op op, exact::finish f, const T* x, const T* y, const cpu::line_set& lines, std::uint64_t count,
                  kernel_type<T>* results, const cpu::run_options& how);

/// results[t] = the correctly rounded sum, |x| sum or norm (op sum, asum, squares; not dot) of x[t], x[t + stride],
/// ..., x[t + (length - 1) * stride], for t < count: the columns of a row-major matrix, the rows of a column-major one.
template <class T>
void reduce_strided_lines(line_op op, exact::finish f, const T* x, std::uint64_t length, std::uint64_t stride,
                          std::uint64_t count, kernel_type<T>* results, const cpu::run_options& how);

}  // namespace detred::exact_cpu
