// SPDX-License-Identifier: BSD-3-Clause
// The CUDA backend: deterministic sums of data in GPU memory, bit for bit equal to detred::sum on the CPU.
//
// Plain C++: this header includes no CUDA header, so any translation unit can include it. A cudaStream_t is a
// CUstream_st*, which is what stream_t names; pass your cudaStream_t as it is (nullptr is the default stream).
//
//   detred::cuda::workspace ws;                                   // once: binds to the current device
//   detred::cuda::sum_async(std::span(d_x, n), d_out, ws, detred::mode::tree, stream); // enqueued, returns at once
//   double s = detred::cuda::sum(std::span(d_x, n), ws);          // waits for its stream and returns the value
//
// The result bits depend only on n and the values (and the order version): never on the GPU, the launch
// configuration, the pointer's alignment, or whether the CPU or the GPU computed them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "detred/batched.hpp"
#include "detred/number_types.hpp"
#include "detred/options.hpp"
#include "detred/partial.hpp"
#include "detred/statistics.hpp"

struct CUstream_st;

// Exported from a shared libdetred, whose other symbols are hidden (cmake/DetredShared.cmake).
#pragma GCC visibility push(default)

namespace detred::cuda {

/// A CUDA stream: the same type as cudaStream_t.
using stream_t = ::CUstream_st*;

/// True if this build has the CUDA backend and at least one CUDA device is usable.
bool available();

namespace detail {
struct workspace_access;
}

/// Reusable device state for the CUDA sums: after construction, a sum of data already in device memory allocates
/// nothing. It holds, on the device it was created on:
///   - a partial-value buffer for the two-pass tree: 128 KiB, enough for n up to 2^33 float or 2^32 double
///     elements; it grows (once, to about 16 bytes per 256 leaves) only for larger n;
///   - a 128-byte device result slot and a 128-byte pinned host slot, for the synchronous calls;
///   - a 2 KiB accumulator for exact mode, zero between calls;
///   - for sum_host only: a staging buffer for the copied input, grown to the largest host array seen so far;
///   - for the scans (detred/cuda_scan.hpp): ready flags and the leaf tree's nodes, 16 to 56 bytes per leaf
///     (2048 or 4096 elements), grown to the largest scan so far, and the staging buffer for a matrix's columns.
/// device_bytes() reports the total. A workspace serves one call at a time: calls that may overlap (on different
/// streams, or from different threads) each need their own. Moving it is allowed; copying is not.
///
/// Synchronization: a buffer grows with stream-ordered allocation (cudaMallocAsync and cudaFreeAsync on the call's
/// stream), so sum_async never waits for the device, even when it grows the workspace. The constructor allocates
/// with cudaMalloc and cudaMallocHost, and the destructor frees with cudaFree, which waits for the device: create
/// workspaces up front and keep them. The GPU needs stream-ordered allocation (CUDA memory pools), as every GPU
/// since Pascal has on Linux; without it a call that must grow the workspace throws detred::error.
class workspace {
 public:
  /// Binds to the current CUDA device. Throws detred::error (with the CUDA error text) if there is none.
  workspace();
  ~workspace();
  workspace(workspace&&) noexcept;
  workspace& operator=(workspace&&) noexcept;
  workspace(const workspace&) = delete;
  workspace& operator=(const workspace&) = delete;

  /// The device this workspace allocates on; every call using it must run with this device current.
  int device() const;
  /// Bytes of device memory it holds now.
  std::size_t device_bytes() const;

 private:
  friend struct detail::workspace_access;
  struct state;
  std::unique_ptr<state> state_;
};

// Every call takes (data, [result,] workspace, mode, stream), in this order. The mode is tree, compensated, or exact:
// exact mode (sum, asum and dot of float and double, and the sums over pieces and sum_state) returns the correctly
// rounded value of the exact result, the CPU's bits (docs/exact.md); nrm2, 16-bit floats and the batched calls
// refuse it with detred::error (the catalogue lists them on the CPU).

/// Enqueues the sum of x (device memory) on `stream` and writes the result to `result` (device memory). Returns
/// at once, without synchronizing anything; x must stay valid and unchanged until the stream has run the sum, and
/// the workspace must not be used by another call until then. Throws detred::error for invalid arguments or a
/// failed launch.
void sum_async(std::span<const double> x, double* result, workspace& ws, mode m = mode::tree,
               stream_t stream = nullptr);
void sum_async(std::span<const float> x, float* result, workspace& ws, mode m = mode::tree, stream_t stream = nullptr);

/// The sum of x (device memory), computed on `stream`; waits for that stream (only) and returns the value.
double sum(std::span<const double> x, workspace& ws, mode m = mode::tree, stream_t stream = nullptr);
float sum(std::span<const float> x, workspace& ws, mode m = mode::tree, stream_t stream = nullptr);

/// Convenience for host arrays: copies x to the workspace's staging buffer, sums it on the GPU and returns the
/// value; waits for `stream`. Device or managed memory is summed in place without a copy. detred::sum with
/// backend::cuda calls this with a workspace per device that the library keeps.
double sum_host(std::span<const double> x, workspace& ws, mode m = mode::tree, stream_t stream = nullptr);
float sum_host(std::span<const float> x, workspace& ws, mode m = mode::tree, stream_t stream = nullptr);

// Arrays spread over several GPUs, or several streams of one GPU.

/// A piece of a global array in device memory: its elements (on `device`), and the stream that reduces it.
template <class T>
struct device_piece {
  std::span<const T> data;
  int device = 0;
  stream_t stream = nullptr;
};

/// The sum of the array formed by the pieces in order (any sizes, empty ones too; several pieces may share a
/// device, on different streams): bit for bit detred::sum of their concatenation. The pieces are reduced
/// concurrently, each on its device and stream, then their partial states are merged on the host; returns when
/// all are done. The library keeps a workspace per (device, stream) for these calls; calls that share a (device,
/// stream) pair wait for each other. Throws detred::error for a bad device number or a CUDA failure.
double sum(std::span<const device_piece<double>> pieces, mode m = mode::tree);
float sum(std::span<const device_piece<float>> pieces, mode m = mode::tree);

/// The partial state (detred/partial.hpp) of the sum over x (device memory), the global elements
/// [offset, offset + x.size()): its subtree nodes computed on the GPU, its raw ends copied back. Merges with
/// states from the CPU, other GPUs or other processes. Waits for `stream`.
partial_state sum_state(std::span<const double> x, std::uint64_t offset, workspace& ws, mode m = mode::tree,
                        stream_t stream = nullptr);
partial_state sum_state(std::span<const float> x, std::uint64_t offset, workspace& ws, mode m = mode::tree,
                        stream_t stream = nullptr);

// Every other operation of the host API (detred/dot.hpp, norms.hpp, extrema.hpp, stats.hpp, the sums of 16-bit
// floats and integers in sum.hpp), on device memory, with the same rules, errors and result bits as the host call.
// The synchronous forms wait for `stream` and return the value; the _async forms enqueue and write the result to
// device memory. Integer sums and the selections are synchronous only: an integer sum's range check and an empty
// array's error need the host.

double dot(std::span<const double> x, std::span<const double> y, workspace& ws, mode m = mode::tree,
           stream_t stream = nullptr);
float dot(std::span<const float> x, std::span<const float> y, workspace& ws, mode m = mode::tree,
          stream_t stream = nullptr);
float dot(std::span<const float16> x, std::span<const float16> y, workspace& ws, mode m = mode::tree,
          stream_t stream = nullptr);
float dot(std::span<const bfloat16> x, std::span<const bfloat16> y, workspace& ws, mode m = mode::tree,
          stream_t stream = nullptr);
void dot_async(std::span<const double> x, std::span<const double> y, double* result, workspace& ws, mode m = mode::tree,
               stream_t stream = nullptr);
void dot_async(std::span<const float> x, std::span<const float> y, float* result, workspace& ws, mode m = mode::tree,
               stream_t stream = nullptr);
void dot_async(std::span<const float16> x, std::span<const float16> y, float* result, workspace& ws,
               mode m = mode::tree, stream_t stream = nullptr);
void dot_async(std::span<const bfloat16> x, std::span<const bfloat16> y, float* result, workspace& ws,
               mode m = mode::tree, stream_t stream = nullptr);

float sum(std::span<const float16> x, workspace& ws, mode m = mode::tree, stream_t stream = nullptr);
float sum(std::span<const bfloat16> x, workspace& ws, mode m = mode::tree, stream_t stream = nullptr);
void sum_async(std::span<const float16> x, float* result, workspace& ws, mode m = mode::tree,
               stream_t stream = nullptr);
void sum_async(std::span<const bfloat16> x, float* result, workspace& ws, mode m = mode::tree,
               stream_t stream = nullptr);
std::int64_t sum(std::span<const std::int32_t> x, workspace& ws, stream_t stream = nullptr);
std::int64_t sum(std::span<const std::int64_t> x, workspace& ws, stream_t stream = nullptr);
std::uint64_t sum(std::span<const std::uint32_t> x, workspace& ws, stream_t stream = nullptr);
std::uint64_t sum(std::span<const std::uint64_t> x, workspace& ws, stream_t stream = nullptr);

double asum(std::span<const double> x, workspace& ws, mode m = mode::tree, stream_t stream = nullptr);
float asum(std::span<const float> x, workspace& ws, mode m = mode::tree, stream_t stream = nullptr);
void asum_async(std::span<const double> x, double* result, workspace& ws, mode m = mode::tree,
                stream_t stream = nullptr);
void asum_async(std::span<const float> x, float* result, workspace& ws, mode m = mode::tree, stream_t stream = nullptr);
double nrm2(std::span<const double> x, workspace& ws, mode m = mode::tree, stream_t stream = nullptr);
float nrm2(std::span<const float> x, workspace& ws, mode m = mode::tree, stream_t stream = nullptr);
void nrm2_async(std::span<const double> x, double* result, workspace& ws, mode m = mode::tree,
                stream_t stream = nullptr);
void nrm2_async(std::span<const float> x, float* result, workspace& ws, mode m = mode::tree, stream_t stream = nullptr);

statistics<double> stats(std::span<const double> x, workspace& ws, stream_t stream = nullptr);
statistics<float> stats(std::span<const float> x, workspace& ws, stream_t stream = nullptr);
void stats_async(std::span<const double> x, statistics<double>* result, workspace& ws, stream_t stream = nullptr);
void stats_async(std::span<const float> x, statistics<float>* result, workspace& ws, stream_t stream = nullptr);

#define DETRED_CUDA_SELECTIONS(T)                                                       \
  T min(std::span<const T> x, workspace& ws, stream_t stream = nullptr);                \
  T max(std::span<const T> x, workspace& ws, stream_t stream = nullptr);                \
  std::uint64_t argmin(std::span<const T> x, workspace& ws, stream_t stream = nullptr); \
  std::uint64_t argmax(std::span<const T> x, workspace& ws, stream_t stream = nullptr);
DETRED_CUDA_SELECTIONS(double)
DETRED_CUDA_SELECTIONS(float)
DETRED_CUDA_SELECTIONS(std::int32_t)
DETRED_CUDA_SELECTIONS(std::int64_t)
DETRED_CUDA_SELECTIONS(std::uint32_t)
DETRED_CUDA_SELECTIONS(std::uint64_t)
#undef DETRED_CUDA_SELECTIONS

// Batched reductions of device memory, with detred/batched.hpp's guarantee: result k equals, bit for bit, the
// single-array call (CPU or GPU) on segment, row or column k alone. values, offsets and results are device memory;
// these calls are enqueued on `stream` and return at once (the results are ready when the stream gets there).
// Offsets in device memory are not read by the host, so they are not checked: they must be non-decreasing and
// within the values. An empty segment gives the single-array value of an empty array (sum -0.0, stats count 0);
// min and max of an empty segment give NaN, argmin and argmax 2^64 - 1 (the host calls refuse empty segments).
#define DETRED_CUDA_BATCHED(T)                                                                                         \
  void sum_async(std::span<const T> values, segments s, std::span<T> results, workspace& ws, mode m = mode::tree,      \
                 stream_t stream = nullptr);                                                                           \
  void asum_async(std::span<const T> values, segments s, std::span<T> results, workspace& ws, mode m = mode::tree,     \
                  stream_t stream = nullptr);                                                                          \
  void nrm2_async(std::span<const T> values, segments s, std::span<T> results, workspace& ws, mode m = mode::tree,     \
                  stream_t stream = nullptr);                                                                          \
  void dot_async(std::span<const T> x, std::span<const T> y, segments s, std::span<T> results, workspace& ws,          \
                 mode m = mode::tree, stream_t stream = nullptr);                                                      \
  void min_async(std::span<const T> values, segments s, std::span<T> results, workspace& ws,                           \
                 stream_t stream = nullptr);                                                                           \
  void max_async(std::span<const T> values, segments s, std::span<T> results, workspace& ws,                           \
                 stream_t stream = nullptr);                                                                           \
  void argmin_async(std::span<const T> values, segments s, std::span<std::uint64_t> results, workspace& ws,            \
                    stream_t stream = nullptr);                                                                        \
  void argmax_async(std::span<const T> values, segments s, std::span<std::uint64_t> results, workspace& ws,            \
                    stream_t stream = nullptr);                                                                        \
  void stats_async(std::span<const T> values, segments s, std::span<statistics<T>> results, workspace& ws,             \
                   stream_t stream = nullptr);                                                                         \
  /* Along an axis of a matrix in device memory: as detred::sum(matrix_view, axis, ...). */                            \
  void sum_async(matrix_view<T> a, int axis, std::span<T> results, workspace& ws, mode m = mode::tree,                 \
                 stream_t stream = nullptr);                                                                           \
  void asum_async(matrix_view<T> a, int axis, std::span<T> results, workspace& ws, mode m = mode::tree,                \
                  stream_t stream = nullptr);                                                                          \
  void nrm2_async(matrix_view<T> a, int axis, std::span<T> results, workspace& ws, mode m = mode::tree,                \
                  stream_t stream = nullptr);                                                                          \
  void min_async(matrix_view<T> a, int axis, std::span<T> results, workspace& ws, stream_t stream = nullptr);          \
  void max_async(matrix_view<T> a, int axis, std::span<T> results, workspace& ws, stream_t stream = nullptr);          \
  void stats_async(matrix_view<T> a, int axis, std::span<statistics<T>> results, workspace& ws,                        \
                   stream_t stream = nullptr);                                                                         \
  /* Grouped by key (scatter-add): as detred::sum_by_key. Checks the keys on the device and waits for the stream */    \
  /* (an invalid key throws detred::error naming its index).                                                    */     \
  void sum_by_key(std::span<const T> values, std::span<const std::uint32_t> keys, std::span<T> results, workspace& ws, \
                  mode m = mode::tree, stream_t stream = nullptr);
DETRED_CUDA_BATCHED(double)
DETRED_CUDA_BATCHED(float)
#undef DETRED_CUDA_BATCHED

}  // namespace detred::cuda

#pragma GCC visibility pop

// The scans (cumsum) of device memory.
#include "detred/cuda_scan.hpp"
