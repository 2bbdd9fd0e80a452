// SPDX-License-Identifier: BSD-3-Clause
// The natural non-deterministic baselines of the batched reductions (detred/batched.hpp): the obvious OpenMP loops
// over the same batches, built with -O3 -march=native -ffast-math (fastmath_batch_baseline.cpp only; never the
// library). Their results depend on the thread count and the compiler; the point is their speed. float only: the
// rows of the batched-reductions issue are float.
#pragma once

#include <cstddef>
#include <cstdint>

namespace detred::bench {

/// results[k] = the sum of x[offsets[k] .. offsets[k + 1]): threads split the segments, each segment summed by one
/// thread with a loop the compiler vectorizes.
void fastmath_omp_segment_sums(const float* x, const std::uint64_t* offsets, std::size_t segments, float* results,
                               int threads);

/// The column sums of a rows x cols row-major matrix (leading dimension ld): each thread owns a chunk of columns
/// and adds the matrix into it row by row, so every element is one vector add into its column's accumulator.
void fastmath_omp_column_sums(const float* a, std::size_t rows, std::size_t cols, std::size_t ld, float* results,
                              int threads);

/// The row sums of the same matrix: threads split the rows, each row summed by a vectorized loop.
void fastmath_omp_row_sums(const float* a, std::size_t rows, std::size_t cols, std::size_t ld, float* results,
                           int threads);

/// bins[keys[i]] += values[i] after zeroing the bins: the plain loop with one thread, OpenMP's array reduction
/// (private bins per thread, added at the end) with more.
void omp_scatter_add(const float* values, const std::uint32_t* keys, std::size_t n, float* bins, std::size_t bin_count,
                     int threads);

}  // namespace detred::bench
