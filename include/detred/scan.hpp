// SPDX-License-Identifier: BSD-3-Clause
// detred::cumsum: deterministic prefix sums (scans). docs/scan.md documents the calls; docs/canonical-order.md
// ("Scans") the order every output follows.
//
// Output y_i of an inclusive scan is the sum of x_0..x_i, of an exclusive scan the sum of x_0..x_{i-1} (y_0 the empty
// sum: -0.0 for floating point, 0 for integers), computed in the canonical scan order: y_i's bits depend only on i and
// x_0..x_i (and the scan order version), never on n, options.threads, options.isa or the pointers' alignment. An
// exclusive output y_i has the bits of the inclusive output y_{i-1}.
//
//   std::vector<double> y(x.size());
//   detred::cumsum(x, y);                                     // inclusive, tree mode
//   detred::cumsum(x, y, {.mode = detred::mode::compensated, .threads = 4});
//   detred::cumsum(std::span<double>(x));                     // in place
//   detred::exclusive_cumsum(x, y);
//
// Types: double -> double, float -> float, float16 and bfloat16 -> float (accumulated in float), and integers exactly:
// int32 and int64 -> int64, uint32 and uint64 -> uint64; an output that does not fit its type throws
// detred::overflow_error (naming the element and the exact prefix sum; the outputs are then unspecified).
// Modes: tree and compensated (options.mode); mode::exact throws detred::error, as does backend::cuda (device
// memory scans with detred::cuda::cumsum, detred/cuda_scan.hpp). Special values: NaN outputs are the canonical quiet
// NaN; Inf and overflow follow IEEE through the order.
//
// y.size() must equal x.size(). y may be x itself (in place: same address, same element type) but may not overlap
// it otherwise. Bad arguments throw detred::error naming the argument.
#pragma once

#include <cstdint>
#include <span>

#include "detred/batched.hpp"
#include "detred/number_types.hpp"
#include "detred/options.hpp"

// Exported from a shared libdetred, whose other symbols are hidden (cmake/DetredShared.cmake).
#pragma GCC visibility push(default)

namespace detred {

// Inclusive prefix sums into y.
void cumsum(std::span<const double> x, std::span<double> y, const options& opt = {});
void cumsum(std::span<const float> x, std::span<float> y, const options& opt = {});
void cumsum(std::span<const float16> x, std::span<float> y, const options& opt = {});
void cumsum(std::span<const bfloat16> x, std::span<float> y, const options& opt = {});
void cumsum(std::span<const std::int32_t> x, std::span<std::int64_t> y, const options& opt = {});
void cumsum(std::span<const std::int64_t> x, std::span<std::int64_t> y, const options& opt = {});
void cumsum(std::span<const std::uint32_t> x, std::span<std::uint64_t> y, const options& opt = {});
void cumsum(std::span<const std::uint64_t> x, std::span<std::uint64_t> y, const options& opt = {});

// Exclusive prefix sums into y.
void exclusive_cumsum(std::span<const double> x, std::span<double> y, const options& opt = {});
void exclusive_cumsum(std::span<const float> x, std::span<float> y, const options& opt = {});
void exclusive_cumsum(std::span<const float16> x, std::span<float> y, const options& opt = {});
void exclusive_cumsum(std::span<const bfloat16> x, std::span<float> y, const options& opt = {});
void exclusive_cumsum(std::span<const std::int32_t> x, std::span<std::int64_t> y, const options& opt = {});
void exclusive_cumsum(std::span<const std::int64_t> x, std::span<std::int64_t> y, const options& opt = {});
void exclusive_cumsum(std::span<const std::uint32_t> x, std::span<std::uint64_t> y, const options& opt = {});
void exclusive_cumsum(std::span<const std::uint64_t> x, std::span<std::uint64_t> y, const options& opt = {});

// In place, for the types whose output type is the input type.
void cumsum(std::span<double> x, const options& opt = {});
void cumsum(std::span<float> x, const options& opt = {});
void cumsum(std::span<std::int64_t> x, const options& opt = {});
void cumsum(std::span<std::uint64_t> x, const options& opt = {});
void exclusive_cumsum(std::span<double> x, const options& opt = {});
void exclusive_cumsum(std::span<float> x, const options& opt = {});
void exclusive_cumsum(std::span<std::int64_t> x, const options& opt = {});
void exclusive_cumsum(std::span<std::uint64_t> x, const options& opt = {});

// Per segment (detred/batched.hpp): the scan restarts at every segment, and y[offsets[k] .. offsets[k+1]) gets the
// bits of the same call on segment k alone. y.size() must equal x.size(); outputs outside every segment are left as
// they are.
void cumsum(std::span<const double> x, segments s, std::span<double> y, const options& opt = {});
void cumsum(std::span<const float> x, segments s, std::span<float> y, const options& opt = {});
void cumsum(std::span<const float16> x, segments s, std::span<float> y, const options& opt = {});
void cumsum(std::span<const bfloat16> x, segments s, std::span<float> y, const options& opt = {});
void cumsum(std::span<const std::int32_t> x, segments s, std::span<std::int64_t> y, const options& opt = {});
void cumsum(std::span<const std::int64_t> x, segments s, std::span<std::int64_t> y, const options& opt = {});
void cumsum(std::span<const std::uint32_t> x, segments s, std::span<std::uint64_t> y, const options& opt = {});
void cumsum(std::span<const std::uint64_t> x, segments s, std::span<std::uint64_t> y, const options& opt = {});
void exclusive_cumsum(std::span<const double> x, segments s, std::span<double> y, const options& opt = {});
void exclusive_cumsum(std::span<const float> x, segments s, std::span<float> y, const options& opt = {});
void exclusive_cumsum(std::span<const float16> x, segments s, std::span<float> y, const options& opt = {});
void exclusive_cumsum(std::span<const bfloat16> x, segments s, std::span<float> y, const options& opt = {});
void exclusive_cumsum(std::span<const std::int32_t> x, segments s, std::span<std::int64_t> y, const options& opt = {});
void exclusive_cumsum(std::span<const std::int64_t> x, segments s, std::span<std::int64_t> y, const options& opt = {});
void exclusive_cumsum(std::span<const std::uint32_t> x, segments s, std::span<std::uint64_t> y,
                      const options& opt = {});
void exclusive_cumsum(std::span<const std::uint64_t> x, segments s, std::span<std::uint64_t> y,
                      const options& opt = {});

// Along an axis of a matrix, as NumPy's np.cumsum(a, axis=...): axis 0 scans each column, axis 1 each row. y holds
// rows x cols outputs stored packed in a's layout (row-major: y[i * cols + j]; column-major: y[j * rows + i]); each
// column (row) of y has the bits of the one-array call on that column (row) copied into a contiguous array. y may be
// a.data itself when a is packed (leading dimension cols, or rows for column-major).
void cumsum(matrix_view<double> a, int axis, std::span<double> y, const options& opt = {});
void cumsum(matrix_view<float> a, int axis, std::span<float> y, const options& opt = {});

// Pieces (partial states): a scan of an array split into consecutive pieces, which may live on different threads,
// ranks or machines, gives the one-call bits. Each piece first computes its leaf totals (cumsum_totals: one per
// L = detred::order::leaf_size<T> elements, T = double, or float for float, float16 and bfloat16 inputs); the totals
// are exchanged; then each piece finishes its outputs from the totals of every leaf before it (cumsum_piece), the
// earlier pieces' totals concatenated in order. Every piece but the last must hold a multiple of L elements (then
// each starts on a leaf boundary of the whole array), and both steps must use the same mode. Inclusive outputs only.
template <class T>
struct scan_total {
  T sum;
  T correction;  ///< compensated mode's running correction; -0.0 in tree mode
};

/// totals[b] = the total of leaf b of the piece; totals.size() must be ceil(piece.size() / L).
void cumsum_totals(std::span<const double> piece, std::span<scan_total<double>> totals, const options& opt = {});
void cumsum_totals(std::span<const float> piece, std::span<scan_total<float>> totals, const options& opt = {});
void cumsum_totals(std::span<const float16> piece, std::span<scan_total<float>> totals, const options& opt = {});
void cumsum_totals(std::span<const bfloat16> piece, std::span<scan_total<float>> totals, const options& opt = {});

/// y = the inclusive outputs at the piece's positions of the scan of the whole array; `before` holds the totals of
/// every leaf before the piece (before.size() * L elements precede it). y may be the piece itself.
void cumsum_piece(std::span<const double> piece, std::span<const scan_total<double>> before, std::span<double> y,
                  const options& opt = {});
void cumsum_piece(std::span<const float> piece, std::span<const scan_total<float>> before, std::span<float> y,
                  const options& opt = {});
void cumsum_piece(std::span<const float16> piece, std::span<const scan_total<float>> before, std::span<float> y,
                  const options& opt = {});
void cumsum_piece(std::span<const bfloat16> piece, std::span<const scan_total<float>> before, std::span<float> y,
                  const options& opt = {});

/// The documented error bound of output i (0-based) of a floating-point cumsum in mode m (tree or compensated), as
/// detred::bound gives the sum's (detred/bounds.hpp): |S_i - y_i| <= result_factor |S_i| + abs_sum_factor A_i with
/// S_i the exact prefix sum and A_i the sum of |x_k| over the same elements (x_0..x_i inclusive). For an exclusive
/// output i, take i - 1. T is double or float (float for 16-bit inputs). Throws detred::error for mode::exact.
struct scan_bound {
  int depth;             ///< D_s(i + 1) of the scan order
  int correction_depth;  ///< D'_s(i + 1) (0 in tree mode)
  double unit_roundoff;
  double result_factor;
  double abs_sum_factor;
};
template <class T>
[[gnu::visibility("default")]] scan_bound cumsum_bound(std::uint64_t i, mode m);
extern template scan_bound cumsum_bound<double>(std::uint64_t i, mode m);
extern template scan_bound cumsum_bound<float>(std::uint64_t i, mode m);

namespace reference {
/// The scalar reference of the scan order, the specification in code (one thread, no SIMD): inclusive outputs of
/// float or double into y (y.size() == x.size(); y may be x).
void cumsum(std::span<const double> x, std::span<double> y, mode m);
void cumsum(std::span<const float> x, std::span<float> y, mode m);
void cumsum(std::span<const float16> x, std::span<float> y, mode m);
void cumsum(std::span<const bfloat16> x, std::span<float> y, mode m);
}  // namespace reference

}  // namespace detred

#pragma GCC visibility pop
