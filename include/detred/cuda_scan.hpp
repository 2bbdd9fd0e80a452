// SPDX-License-Identifier: BSD-3-Clause
// The CUDA scans: detred::cumsum (detred/scan.hpp) of data in GPU memory, every output bit for bit equal to the CPU's.
// Included by detred/cuda.hpp; plain C++ (no CUDA header), like it.
//
//   detred::cuda::cumsum_async(std::span<const float>(d_x, n), std::span<float>(d_y, n), {.stream = s});
//   detred::cuda::exclusive_cumsum(std::span<const double>(d_x, n), std::span<double>(d_x, n));  // in place
//
// The rules are those of the host calls (docs/scan.md): output y_i depends only on i, x_0..x_i, the mode and the scan
// order version, never on n, the GPU, the launch or the pointers' alignment. Types: double -> double, float ->
// float, float16 and bfloat16 -> float (accumulated in float); modes tree and compensated (mode::exact throws
// detred::error, as on the CPU). Integers exactly: int32 and int64 -> int64, uint32 and uint64 -> uint64; an output
// that does not fit is detred::overflow_error naming the first such output and its exact value, thrown by the
// synchronous call, recorded in the workspace by the _async one for the next synchronize(options) to throw (the
// outputs are then unspecified). y.size() must equal x.size(); y may be x
// itself (same address and element type) but may not overlap it otherwise.
//
// The options as for every CUDA call (detred/cuda.hpp): mode, stream, workspace. The _async calls enqueue on
// opt.stream and return at once (x must stay valid and unchanged until the stream has run them); the others wait
// for opt.stream (only). Every call allocates nothing
// once the workspace has served a scan at least as large (it grows in stream order, as for the sums).
#pragma once

#include <cstdint>
#include <span>

#include "detred/batched.hpp"
#include "detred/cuda.hpp"
#include "detred/number_types.hpp"
#include "detred/options.hpp"
#include "detred/scan.hpp"

// Exported from a shared libdetred, whose other symbols are hidden (cmake/DetredShared.cmake).
#pragma GCC visibility push(default)

namespace detred::cuda {

// One array in device memory; and per segment: the offsets (detred/batched.hpp) are device memory, not read by the
// host and so not checked (non-decreasing, within x); y[offsets[k] .. offsets[k+1]) gets the bits of the one-array
// call on segment k alone, and outputs outside every segment are left as they are.
// Integers are exact; an output that does not fit is refused as said above.
#define DETRED_CUDA_SCANS(In, Out)                                                                           \
  void cumsum_async(std::span<const In> x, std::span<Out> y, const options& opt = {});                       \
  void exclusive_cumsum_async(std::span<const In> x, std::span<Out> y, const options& opt = {});             \
  void cumsum(std::span<const In> x, std::span<Out> y, const options& opt = {});                             \
  void exclusive_cumsum(std::span<const In> x, std::span<Out> y, const options& opt = {});                   \
  void cumsum_async(std::span<const In> x, segments s, std::span<Out> y, const options& opt = {});           \
  void exclusive_cumsum_async(std::span<const In> x, segments s, std::span<Out> y, const options& opt = {}); \
  void cumsum(std::span<const In> x, segments s, std::span<Out> y, const options& opt = {});                 \
  void exclusive_cumsum(std::span<const In> x, segments s, std::span<Out> y, const options& opt = {});
DETRED_CUDA_SCANS(double, double)
DETRED_CUDA_SCANS(float, float)
DETRED_CUDA_SCANS(float16, float)
DETRED_CUDA_SCANS(bfloat16, float)
DETRED_CUDA_SCANS(std::int32_t, std::int64_t)
DETRED_CUDA_SCANS(std::int64_t, std::int64_t)
DETRED_CUDA_SCANS(std::uint32_t, std::uint64_t)
DETRED_CUDA_SCANS(std::uint64_t, std::uint64_t)
#undef DETRED_CUDA_SCANS

// Pieces of one array in device memory, as detred::cumsum_totals and detred::cumsum_piece (detred/scan.hpp) on the
// host, with the same rules and the same bits: each piece computes its leaf totals (one per
// L = detred::order::leaf_size<T> elements), the totals are exchanged (cudaMemcpy between GPUs, MPI or NCCL between
// processes: they are 8 or 16 bytes per L elements), and each piece finishes its outputs from the totals of every
// leaf before it, the earlier pieces' totals concatenated in order. `totals`, `before` and `y` are device memory on
// the piece's GPU; every piece but the last holds a multiple of L elements; both steps use the same mode (tree or
// compensated). The totals are interchangeable with the host calls': a piece may be on the CPU and the next on a
// GPU. cumsum_piece reads the piece twice (its own leaf totals, then its outputs); y may be the piece itself.
#define DETRED_CUDA_SCAN_PIECES(In, T)                                                                           \
  void cumsum_totals_async(std::span<const In> piece, std::span<scan_total<T>> totals, const options& opt = {}); \
  void cumsum_totals(std::span<const In> piece, std::span<scan_total<T>> totals, const options& opt = {});       \
  void cumsum_piece_async(std::span<const In> piece, std::span<const scan_total<T>> before, std::span<T> y,      \
                          const options& opt = {});                                                              \
  void cumsum_piece(std::span<const In> piece, std::span<const scan_total<T>> before, std::span<T> y,            \
                    const options& opt = {});
DETRED_CUDA_SCAN_PIECES(double, double)
DETRED_CUDA_SCAN_PIECES(float, float)
DETRED_CUDA_SCAN_PIECES(float16, float)
DETRED_CUDA_SCAN_PIECES(bfloat16, float)
#undef DETRED_CUDA_SCAN_PIECES

// Along an axis of a matrix in device memory, as detred::cumsum(matrix_view, axis, ...): y holds rows x cols outputs
// packed in a's layout; y may be a.data itself when a is packed.
#define DETRED_CUDA_AXIS_SCANS(T)                                                         \
  void cumsum_async(matrix_view<T> a, int axis, std::span<T> y, const options& opt = {}); \
  void cumsum(matrix_view<T> a, int axis, std::span<T> y, const options& opt = {});
DETRED_CUDA_AXIS_SCANS(double)
DETRED_CUDA_AXIS_SCANS(float)
#undef DETRED_CUDA_AXIS_SCANS

}  // namespace detred::cuda

#pragma GCC visibility pop
