// SPDX-License-Identifier: BSD-3-Clause
// Many reductions in one call: the segments of an array (CSR offsets), the rows or columns of a matrix, and values
// grouped by key (scatter-add, reduce-by-key).
//
// The guarantee: each result equals, bit for bit, the single-array function of the same name applied to that
// segment, row, column or group alone, as a contiguous array (for a group: its values in index order). So a result
// never depends on which other segments are in the batch, their order, the batch size, the matrix layout or leading
// dimension, the thread count, the instruction set, or whether the CPU or the GPU computed it.
//
//   std::vector<std::uint64_t> offsets{0, 3, 3, 10};              // segments [0,3), [3,3) (empty) and [3,10)
//   std::vector<double> out(3);
//   detred::sum(values, detred::segments{offsets}, out);          // out[k] == detred::sum(segment k)
//   detred::sum(detred::matrix_view<double>{a, rows, cols, cols}, 0, column_sums);   // NumPy's a.sum(axis=0)
//   detred::sum_by_key(values, bins, histogram);                  // histogram[b] == sum of values with key b
//
// Modes (options::mode) as for the single-array calls: mode::exact (the correctly rounded exact value, on the CPU)
// for sum, asum and dot of segments, sum and asum along an axis and sum_by_key, float and double; nrm2 and stats
// refuse it, and so do backend::cuda, the batched calls of detred/cuda.hpp (not yet available there) and the sums
// of 16-bit floats (float16, bfloat16: segments and axes, tree and compensated mode, float results).
//
// Throws detred::error, naming the argument, for offsets that decrease or pass the end of the values, a result span
// of the wrong length, a key not below the bin count, an axis other than 0 or 1, or a leading dimension smaller
// than a row (row-major) or a column (column-major). Empty segments, rows and groups give what the single-array
// function gives for an empty array (sum: -0.0, stats: count 0); min, max, argmin and argmax of an empty one throw,
// as they do for an empty array, naming the segment.
#pragma once

#include <cstdint>
#include <span>

#include "detred/number_types.hpp"
#include "detred/options.hpp"
#include "detred/statistics.hpp"

// Exported from a shared libdetred, whose other symbols are hidden (cmake/DetredShared.cmake).
#pragma GCC visibility push(default)

namespace detred {

/// The segments of an array: segment k is values[offsets[k] .. offsets[k+1]), so `offsets` holds one entry more
/// than there are segments, non-decreasing, the last at most values.size(). Segments may leave values out (before
/// the first offset, after the last) but never overlap.
struct segments {
  std::span<const std::uint64_t> offsets;
};

/// How a matrix is stored: element (i, j) of a row-major matrix is data[i * leading_dimension + j], of a
/// column-major one data[j * leading_dimension + i].
enum class layout { row_major, column_major };

/// A rows x cols matrix in memory the caller owns.
template <class T>
struct matrix_view {
  const T* data = nullptr;
  std::uint64_t rows = 0;
  std::uint64_t cols = 0;
  /// Elements from one row (row-major) or column (column-major) to the next: at least cols (rows).
  std::uint64_t leading_dimension = 0;
  detred::layout layout = layout::row_major;
};

// Segments. results.size() must equal the segment count (offsets.size() - 1). argmin and argmax give indices
// within each segment (0 is the segment's first element), as the single-array call on the segment would.
void sum(std::span<const double> values, segments s, std::span<double> results, const options& opt = {});
void sum(std::span<const float> values, segments s, std::span<float> results, const options& opt = {});
// 16-bit floats: the sum in float, as detred::sum of a 16-bit array (each element widened exactly to float).
void sum(std::span<const float16> values, segments s, std::span<float> results, const options& opt = {});
void sum(std::span<const bfloat16> values, segments s, std::span<float> results, const options& opt = {});
void asum(std::span<const double> values, segments s, std::span<double> results, const options& opt = {});
void asum(std::span<const float> values, segments s, std::span<float> results, const options& opt = {});
void nrm2(std::span<const double> values, segments s, std::span<double> results, const options& opt = {});
void nrm2(std::span<const float> values, segments s, std::span<float> results, const options& opt = {});
void dot(std::span<const double> x, std::span<const double> y, segments s, std::span<double> results,
         const options& opt = {});
void dot(std::span<const float> x, std::span<const float> y, segments s, std::span<float> results,
         const options& opt = {});
void min(std::span<const double> values, segments s, std::span<double> results, const options& opt = {});
void min(std::span<const float> values, segments s, std::span<float> results, const options& opt = {});
void max(std::span<const double> values, segments s, std::span<double> results, const options& opt = {});
void max(std::span<const float> values, segments s, std::span<float> results, const options& opt = {});
void argmin(std::span<const double> values, segments s, std::span<std::uint64_t> results, const options& opt = {});
void argmin(std::span<const float> values, segments s, std::span<std::uint64_t> results, const options& opt = {});
void argmax(std::span<const double> values, segments s, std::span<std::uint64_t> results, const options& opt = {});
void argmax(std::span<const float> values, segments s, std::span<std::uint64_t> results, const options& opt = {});
void stats(std::span<const double> values, segments s, std::span<statistics<double>> results, const options& opt = {});
void stats(std::span<const float> values, segments s, std::span<statistics<float>> results, const options& opt = {});

// Along an axis of a matrix, as NumPy's a.sum(axis=...) on a 2-D array: axis 0 reduces each column (cols
// results), axis 1 each row (rows results). Result j equals the single-array call on column (row) j copied into a
// contiguous array, whatever the layout and leading dimension.
void sum(matrix_view<double> a, int axis, std::span<double> results, const options& opt = {});
void sum(matrix_view<float> a, int axis, std::span<float> results, const options& opt = {});
void sum(matrix_view<float16> a, int axis, std::span<float> results, const options& opt = {});
void sum(matrix_view<bfloat16> a, int axis, std::span<float> results, const options& opt = {});
void asum(matrix_view<double> a, int axis, std::span<double> results, const options& opt = {});
void asum(matrix_view<float> a, int axis, std::span<float> results, const options& opt = {});
void nrm2(matrix_view<double> a, int axis, std::span<double> results, const options& opt = {});
void nrm2(matrix_view<float> a, int axis, std::span<float> results, const options& opt = {});
void min(matrix_view<double> a, int axis, std::span<double> results, const options& opt = {});
void min(matrix_view<float> a, int axis, std::span<float> results, const options& opt = {});
void max(matrix_view<double> a, int axis, std::span<double> results, const options& opt = {});
void max(matrix_view<float> a, int axis, std::span<float> results, const options& opt = {});
void stats(matrix_view<double> a, int axis, std::span<statistics<double>> results, const options& opt = {});
void stats(matrix_view<float> a, int axis, std::span<statistics<float>> results, const options& opt = {});

// Grouped by key (scatter-add, reduce-by-key): results[b] is the reduction of the values whose key is b, in index
// order; results.size() is the bin count, and every key must be below it. keys.size() must equal values.size().
void sum_by_key(std::span<const double> values, std::span<const std::uint32_t> keys, std::span<double> results,
                const options& opt = {});
void sum_by_key(std::span<const float> values, std::span<const std::uint32_t> keys, std::span<float> results,
                const options& opt = {});
void sum_by_key(std::span<const double> values, std::span<const std::int64_t> keys, std::span<double> results,
                const options& opt = {});
void sum_by_key(std::span<const float> values, std::span<const std::int64_t> keys, std::span<float> results,
                const options& opt = {});
void stats_by_key(std::span<const double> values, std::span<const std::uint32_t> keys,
                  std::span<statistics<double>> results, const options& opt = {});
void stats_by_key(std::span<const float> values, std::span<const std::uint32_t> keys,
                  std::span<statistics<float>> results, const options& opt = {});

}  // namespace detred

#pragma GCC visibility pop
