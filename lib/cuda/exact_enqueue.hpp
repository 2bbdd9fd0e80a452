// SPDX-License-Identifier: BSD-3-Clause
// Exact mode on the GPU: the correctly rounded sum, |x| sum and dot product of device arrays (docs/exact.md, "On
// the GPU"). Plain C++ interface, so that host code needs no CUDA compiler.
#pragma once

#include <cstdint>

#include "batch_enqueue.hpp"
#include "detred/cuda.hpp"
#include "detred/exact/exact_ops.hpp"
#include "detred/exact/superaccumulator.hpp"

namespace detred::cuda::detail {

enum class exact_kind { sum, asum, dot };

/// Bytes of the workspace's exact accumulator: the words of one superaccumulator, its flags and a block counter.
/// It must be zero before a call; every call leaves it zero again.
inline constexpr std::uint64_t exact_accumulator_bytes = 2048;

/// Where a call's exact value goes: finished by `finishes` and rounded to T at `result` (the value itself; its square
/// root for nrm2, over the squares, which the dot kernel adds with y = x; its quotient by `count` for the mean), or
/// (if `state` is not null) the superaccumulator itself at `state`, to be merged with others (several GPUs, partial
/// states). Both are device addresses.
template <class T>
struct exact_output {
  T* result = nullptr;
  exact::superaccumulator* state = nullptr;
  exact::finish finishes = exact::finish::rounded;
  std::uint64_t count = 0;
};

/// Enqueues the exact reduction of x[0..n) (and y for dot) on `stream`, for T = double or float. `accumulator` is
/// the workspace's zeroed exact accumulator (exact_accumulator_bytes). Throws detred::error if a launch fails.
template <class T>
void enqueue_exact(exact_kind kind, const T* x, const T* y, std::uint64_t n, void* accumulator, exact_output<T> out,
                   stream_t stream);

/// Enqueues out[i] = x[i] widened exactly to float, i < n, for In = float16 or bfloat16: exact mode of 16-bit
/// floats is the float kernel's over the widened copy (the float values the CPU's exact mode adds).
template <class In>
void enqueue_widen(const In* x, float* out, std::uint64_t n, stream_t stream);

/// Enqueues exact mode over many lines of device operands holding `extent` elements each (exact_batch.cu), for
/// T = double or float: results[k] (device memory) = the exact value of line k's terms (x's values, magnitudes, or
/// products with y: y = x for a sum of squares) finished by f with the line's length as the count, rounded once.
/// Bit for bit the CPU's exact batched call. The scratch comes from the workspace's partial buffer (grown in stream
/// order). Throws detred::error if a launch fails.
template <class T>
void enqueue_exact_lines(exact_kind kind, exact::finish f, const T* x, const T* y, std::uint64_t extent,
                         const device_lines& lines, std::uint64_t count, T* results, workspace& ws, stream_t stream);

/// Bytes of scratch enqueue_exact_lines_in takes for these lines, and enqueue_exact_lines with its scratch given
/// (for callers that carve the workspace's partial buffer themselves: groups by key, after their sort).
std::uint64_t exact_lines_scratch_bytes(std::uint64_t extent, const device_lines& lines, std::uint64_t count);
/// exact_lines_scratch_bytes of `count` segments (any offsets) of operands of `extent` elements.
std::uint64_t exact_segments_scratch_bytes(std::uint64_t extent, std::uint64_t count);
template <class T>
void enqueue_exact_lines_in(exact_kind kind, exact::finish f, const T* x, const T* y, std::uint64_t extent,
                            const device_lines& lines, std::uint64_t count, T* results, char* scratch, stream_t stream);

/// The same over strided lines: line t is x[t], x[t + stride], ..., `length` elements (t < count); the products of
/// kind dot are squares (y = x).
template <class T>
void enqueue_exact_strided_lines(exact_kind kind, exact::finish f, const T* x, std::uint64_t length,
                                 std::uint64_t stride, std::uint64_t count, T* results, workspace& ws, stream_t stream);

}  // namespace detred::cuda::detail
