// SPDX-License-Identifier: BSD-3-Clause
// Argument checks of the batched entry points (host and CUDA), and how a matrix's lines lie in memory.
#pragma once

#include <cstdint>
#include <string>

#include "detred/batched.hpp"
#include "detred/options.hpp"

namespace detred {

/// Throws detred::error unless `s` describes segments of an array of `extent` elements with one result each
/// (reads the offsets: host memory only). `what` names the operation.
void validate_segments(const segments& s, std::uint64_t extent, std::uint64_t results, const char* what);

/// The checks that need no offset: at least one offset, one result per segment (for offsets in device memory).
void validate_segment_count(const segments& s, std::uint64_t results, const char* what);

/// Throws detred::error naming the first empty segment (for operations that refuse an empty array).
void refuse_empty_segments(const segments& s, const char* what);

/// How a matrix's lines along `axis` lie in memory.
struct axis_lines {
  std::uint64_t count;   ///< results
  std::uint64_t length;  ///< elements per line
  bool contiguous;       ///< lines are contiguous runs `stride` apart; otherwise elements are `stride` apart
  std::uint64_t stride;
};

template <class T>
inline axis_lines lines_of(const matrix_view<T>& a, int axis, std::uint64_t results, const char* what) {
  const std::string call = std::string("detred::") + what + ": ";
  if (axis != 0 && axis != 1) throw error(call + "axis " + std::to_string(axis) + " is not 0 or 1 (a matrix has two)");
  if (a.layout != layout::row_major && a.layout != layout::column_major) throw error(call + "unknown matrix layout");
  const bool row_major = a.layout == layout::row_major;
  const std::uint64_t inner = row_major ? a.cols : a.rows;  // elements of a stored row (column)
  if (a.leading_dimension < inner) {
    throw error(call + "the leading dimension " + std::to_string(a.leading_dimension) + " is smaller than a " +
                (row_major ? "row (" : "column (") + std::to_string(inner) + " elements)");
  }
  if (a.data == nullptr && a.rows != 0 && a.cols != 0) throw error(call + "the matrix data is null");
  const std::uint64_t count = axis == 0 ? a.cols : a.rows;
  if (results != count) {
    throw error(call + "the results span holds " + std::to_string(results) + " elements, but axis " +
                std::to_string(axis) + " of a " + std::to_string(a.rows) + " x " + std::to_string(a.cols) +
                " matrix has " + std::to_string(count) + " lines");
  }
  const std::uint64_t length = axis == 0 ? a.rows : a.cols;
  // Reducing each row of a row-major matrix (axis 1), or each column of a column-major one (axis 0), reads
  // contiguous lines; the other two read lines whose elements are a leading dimension apart.
  const bool contiguous = (axis == 1) == row_major;
  return {count, length, contiguous, a.leading_dimension};
}

/// The number of elements a matrix spans in memory.
template <class T>
inline std::uint64_t extent_of(const matrix_view<T>& a) {
  const bool row_major = a.layout == layout::row_major;
  const std::uint64_t outer = row_major ? a.rows : a.cols;
  const std::uint64_t inner = row_major ? a.cols : a.rows;
  return outer == 0 || inner == 0 ? 0 : (outer - 1) * a.leading_dimension + inner;
}

}  // namespace detred
