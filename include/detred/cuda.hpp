// SPDX-License-Identifier: BSD-3-Clause
// The CUDA backend: deterministic sums of data in GPU memory, bit for bit equal to detred::sum on the CPU.
//
// Plain C++: this header includes no CUDA header, so any translation unit can include it. A cudaStream_t is a
// CUstream_st*, which is what stream_t names; pass your cudaStream_t as it is (nullptr is the default stream).
//
//   detred::cuda::sum_async(std::span<const double>(d_x, n), d_out, {.stream = stream});  // enqueued, returns at once
//   double s = detred::cuda::sum(std::span<const double>(d_x, n));  // waits for its stream and returns the value
//   detred::cuda::workspace ws;                                   // optional: your own, bound to the current device
//   float d = detred::cuda::reduce<detred::operation::dot>(std::span<const float>(a, n), std::span<const float>(b, n),
//                                                          {.mode = detred::mode::compensated, .workspace = &ws});
//
// The result bits depend only on n and the values (and the order version): never on the GPU, the launch
// configuration, the pointer's alignment, or whether the CPU or the GPU computed them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "detred/batched.hpp"
#include "detred/catalogue.hpp"
#include "detred/number_types.hpp"
#include "detred/options.hpp"
#include "detred/partial.hpp"
#include "detred/reduce.hpp"
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
///   - for the synchronous calls of host memory only: a staging buffer for the copied input, grown to the largest
///     host array seen so far;
///   - 56 bytes of errors the _async calls recorded for synchronize();
///   - for the scans (detred/cuda_scan.hpp): ready flags and the leaf tree's nodes, 16 to 56 bytes per leaf
///     (2048 or 4096 elements), grown to the largest scan so far, and the staging buffer for a matrix's columns;
///   - for sum_rows and sum_columns of 16-bit floats on their batched paths only (detred/cuda_norm_rows.hpp): the
///     float sums before their rounding, 4 bytes a line of the largest such call.
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

// Every call takes its data, [its result,] then detred::options: the mode, the stream (options::stream) and the
// workspace (options::workspace; nullptr: the library's for the current device and that stream). Each operation has
// a synchronous form, which waits for the stream (only) and returns the value, and an _async form, which enqueues
// the work and writes the result to device memory at once, synchronizing nothing. The catalogue
// (detred/catalogue.hpp, docs/operations.md) says which (operation, type, mode) the GPU has; any other throws
// detred::error naming what is missing, before anything is enqueued.
//
// Inputs of the _async forms are device (or managed) memory, which must stay valid and unchanged until the stream
// has run the call; the synchronous forms also take host memory, which they copy to the workspace's staging buffer.
// Errors known when the call is made (a bad mode, lengths that differ, an empty array for min, max, argmin or
// argmax: catalogue::needs_an_element) are thrown by both forms. The one error only the device can see, an integer
// sum past int64 or uint64, is thrown (detred::overflow_error) by the synchronous form; the _async form records it
// in the workspace, and the next synchronize(options) on that workspace throws it.

/// The type-erased cores of reduce and reduce_async below (checked against the catalogue as those are).
void reduce_async(operation op, element_type t, const void* x, std::uint64_t n, const void* y, std::uint64_t ny,
                  void* device_result, const options& opt);
void reduce(operation op, element_type t, const void* x, std::uint64_t n, const void* y, std::uint64_t ny,
            void* host_result, const options& opt);

/// O over one array on the GPU: the bits of detred::reduce<O> (and of detred::sum, dot, ... ) on the CPU.
template <operation O, class T>
requires(catalogue::arity(O) == 1 && !catalogue::is_scan(O)) result_t<O, T> reduce(std::span<const T> x,
                                                                                   const options& opt = {}) {
  static_assert(catalogue::has(O, element_type_of<T>()), "the catalogue has no such operation for this type");
  result_t<O, T> r{};
  ::detred::cuda::reduce(O, element_type_of<T>(), x.data(), x.size(), nullptr, 0, &r, opt);
  return r;
}
template <operation O, class T>
requires(catalogue::arity(O) == 1 && !catalogue::is_scan(O)) void reduce_async(std::span<const T> x,
                                                                               result_t<O, T>* result,
                                                                               const options& opt = {}) {
  static_assert(catalogue::has(O, element_type_of<T>()), "the catalogue has no such operation for this type");
  ::detred::cuda::reduce_async(O, element_type_of<T>(), x.data(), x.size(), nullptr, 0, result, opt);
}

/// O over two arrays of one length (dot).
template <operation O, class T>
requires(catalogue::arity(O) == 2) result_t<O, T> reduce(std::span<const T> x, std::span<const T> y,
                                                         const options& opt = {}) {
  static_assert(catalogue::has(O, element_type_of<T>()), "the catalogue has no such operation for this type");
  result_t<O, T> r{};
  ::detred::cuda::reduce(O, element_type_of<T>(), x.data(), x.size(), y.data(), y.size(), &r, opt);
  return r;
}
template <operation O, class T>
requires(catalogue::arity(O) == 2) void reduce_async(std::span<const T> x, std::span<const T> y, result_t<O, T>* result,
                                                     const options& opt = {}) {
  static_assert(catalogue::has(O, element_type_of<T>()), "the catalogue has no such operation for this type");
  ::detred::cuda::reduce_async(O, element_type_of<T>(), x.data(), x.size(), y.data(), y.size(), result, opt);
}

/// Waits for opt.stream, then throws the first error an _async call recorded in the workspace (opt.workspace, or
/// the library's for the current device and that stream) since the last check, and forgets it.
void synchronize(const options& opt = {});

// The named calls: reduce<operation::name> under the host API's names, for every type the catalogue gives them.
#define DETRED_CUDA_NAMED_1(name, T)                                                                              \
  inline result_t<operation::name, T> name(std::span<const T> x, const options& opt = {}) {                       \
    return ::detred::cuda::reduce<operation::name, T>(x, opt);                                                    \
  }                                                                                                               \
  inline void name##_async(std::span<const T> x, result_t<operation::name, T>* result, const options& opt = {}) { \
    ::detred::cuda::reduce_async<operation::name, T>(x, result, opt);                                             \
  }
#define DETRED_CUDA_NAMED_2(name, T)                                                                              \
  inline result_t<operation::name, T> name(std::span<const T> x, std::span<const T> y, const options& opt = {}) { \
    return ::detred::cuda::reduce<operation::name, T>(x, y, opt);                                                 \
  }                                                                                                               \
  inline void name##_async(std::span<const T> x, std::span<const T> y, result_t<operation::name, T>* result,      \
                           const options& opt = {}) {                                                             \
    ::detred::cuda::reduce_async<operation::name, T>(x, y, result, opt);                                          \
  }
#define DETRED_CUDA_FLOATS(T)   \
  DETRED_CUDA_NAMED_1(sum, T)   \
  DETRED_CUDA_NAMED_2(dot, T)   \
  DETRED_CUDA_NAMED_1(asum, T)  \
  DETRED_CUDA_NAMED_1(nrm2, T)  \
  DETRED_CUDA_NAMED_1(sumsq, T) \
  DETRED_CUDA_NAMED_1(mean, T)  \
  DETRED_CUDA_NAMED_1(stats, T)
#define DETRED_CUDA_HALVES(T)   \
  DETRED_CUDA_NAMED_1(sum, T)   \
  DETRED_CUDA_NAMED_2(dot, T)   \
  DETRED_CUDA_NAMED_1(sumsq, T) \
  DETRED_CUDA_NAMED_1(mean, T)
#define DETRED_CUDA_SELECTIONS(T) \
  DETRED_CUDA_NAMED_1(min, T)     \
  DETRED_CUDA_NAMED_1(max, T)     \
  DETRED_CUDA_NAMED_1(argmin, T)  \
  DETRED_CUDA_NAMED_1(argmax, T)
DETRED_CUDA_FLOATS(double)
DETRED_CUDA_FLOATS(float)
DETRED_CUDA_HALVES(float16)
DETRED_CUDA_HALVES(bfloat16)
DETRED_CUDA_SELECTIONS(double)
DETRED_CUDA_SELECTIONS(float)
DETRED_CUDA_SELECTIONS(std::int32_t)
DETRED_CUDA_SELECTIONS(std::int64_t)
DETRED_CUDA_SELECTIONS(std::uint32_t)
DETRED_CUDA_SELECTIONS(std::uint64_t)
DETRED_CUDA_NAMED_1(sum, std::int32_t)
DETRED_CUDA_NAMED_1(sum, std::int64_t)
DETRED_CUDA_NAMED_1(sum, std::uint32_t)
DETRED_CUDA_NAMED_1(sum, std::uint64_t)
#undef DETRED_CUDA_FLOATS
#undef DETRED_CUDA_HALVES
#undef DETRED_CUDA_SELECTIONS
#undef DETRED_CUDA_NAMED_1
#undef DETRED_CUDA_NAMED_2

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
/// Only opt.mode applies: each piece names its stream, and the workspaces are the library's.
double sum(std::span<const device_piece<double>> pieces, const options& opt = {});
float sum(std::span<const device_piece<float>> pieces, const options& opt = {});

/// The partial state (detred/partial.hpp) of the sum over x (device memory), the global elements
/// [offset, offset + x.size()): its subtree nodes computed on the GPU, its raw ends copied back. Merges with
/// states from the CPU, other GPUs or other processes. Waits for opt.stream.
partial_state sum_state(std::span<const double> x, std::uint64_t offset, const options& opt = {});
partial_state sum_state(std::span<const float> x, std::uint64_t offset, const options& opt = {});

// Batched reductions of device memory, with detred/batched.hpp's guarantee: result k equals, bit for bit, the
// single-array call (CPU or GPU) on segment, row or column k alone. values, offsets and results are device memory;
// these calls are enqueued on opt.stream and return at once (the results are ready when the stream gets there).
// Offsets in device memory are not read by the host: the device checks them (non-decreasing, within the values,
// and no empty segment for min, max, argmin and argmax, which refuse an empty array everywhere) before it reduces,
// and records the first bad one in the workspace, which the next synchronize(options) throws as detred::error
// naming it; the results are then unspecified. An empty segment of the other operations gives the single-array
// value of an empty array (sum -0.0, stats count 0).
#define DETRED_CUDA_BATCHED(T)                                                                                         \
  void sum_async(std::span<const T> values, segments s, std::span<T> results, const options& opt = {});                \
  void asum_async(std::span<const T> values, segments s, std::span<T> results, const options& opt = {});               \
  void nrm2_async(std::span<const T> values, segments s, std::span<T> results, const options& opt = {});               \
  void dot_async(std::span<const T> x, std::span<const T> y, segments s, std::span<T> results,                         \
                 const options& opt = {});                                                                             \
  void min_async(std::span<const T> values, segments s, std::span<T> results, const options& opt = {});                \
  void max_async(std::span<const T> values, segments s, std::span<T> results, const options& opt = {});                \
  void argmin_async(std::span<const T> values, segments s, std::span<std::uint64_t> results, const options& opt = {}); \
  void argmax_async(std::span<const T> values, segments s, std::span<std::uint64_t> results, const options& opt = {}); \
  void stats_async(std::span<const T> values, segments s, std::span<statistics<T>> results, const options& opt = {});  \
  /* Along an axis of a matrix in device memory: as detred::sum(matrix_view, axis, ...). */                            \
  void sum_async(matrix_view<T> a, int axis, std::span<T> results, const options& opt = {});                           \
  void asum_async(matrix_view<T> a, int axis, std::span<T> results, const options& opt = {});                          \
  void nrm2_async(matrix_view<T> a, int axis, std::span<T> results, const options& opt = {});                          \
  void min_async(matrix_view<T> a, int axis, std::span<T> results, const options& opt = {});                           \
  void max_async(matrix_view<T> a, int axis, std::span<T> results, const options& opt = {});                           \
  void stats_async(matrix_view<T> a, int axis, std::span<statistics<T>> results, const options& opt = {});             \
  /* Grouped by key (scatter-add): as detred::sum_by_key, uint32 or int64 keys. The device checks the keys; the   */   \
  /* synchronous form waits and throws detred::error naming the first key that is not a bin; the _async form      */   \
  /* records it for synchronize.                                                                                    */ \
  void sum_by_key(std::span<const T> values, std::span<const std::uint32_t> keys, std::span<T> results,                \
                  const options& opt = {});                                                                            \
  void sum_by_key(std::span<const T> values, std::span<const std::int64_t> keys, std::span<T> results,                 \
                  const options& opt = {});                                                                            \
  void sum_by_key_async(std::span<const T> values, std::span<const std::uint32_t> keys, std::span<T> results,          \
                        const options& opt = {});                                                                      \
  void sum_by_key_async(std::span<const T> values, std::span<const std::int64_t> keys, std::span<T> results,           \
                        const options& opt = {});
DETRED_CUDA_BATCHED(double)
DETRED_CUDA_BATCHED(float)
#undef DETRED_CUDA_BATCHED
// 16-bit floats (float16, bfloat16): the sum in float of each segment, row or column, as detred::sum's batched forms
// of 16-bit floats (each element widened exactly to float, tree or compensated mode).
#define DETRED_CUDA_HALF_BATCHED(H)                                                                         \
  void sum_async(std::span<const H> values, segments s, std::span<float> results, const options& opt = {}); \
  void sum_async(matrix_view<H> a, int axis, std::span<float> results, const options& opt = {});
DETRED_CUDA_HALF_BATCHED(float16)
DETRED_CUDA_HALF_BATCHED(bfloat16)
#undef DETRED_CUDA_HALF_BATCHED

}  // namespace detred::cuda

#pragma GCC visibility pop

// The scans (cumsum) of device memory.
#include "detred/cuda_scan.hpp"
// The row normalizations (rms_norm) of device memory.
#include "detred/cuda_norm_rows.hpp"
