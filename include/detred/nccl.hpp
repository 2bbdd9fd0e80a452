// SPDX-License-Identifier: BSD-3-Clause
// Element-wise sums of GPU buffers over the ranks of an NCCL communicator, with bits that depend only on the data
// and the rank count (library detred_nccl, CMake target detred::nccl; built when NCCL and the CUDA backend are
// found). docs/collectives.md has the algorithm, the guarantee and the cost.
//
//   detred::nccl::workspace ws;                                            // once per device (binds to it)
//   detred::nccl::allreduce_sum(std::span(d_grad, n), std::span(d_grad, n), comm, ws, detred::mode::tree, stream);
//
// Element i of the result is detred::sum of the R values {rank 0's x[i], ..., rank R-1's x[i]} (in rank order), on
// every rank: the bits that detred::mpi::allreduce_sum gives on CPUs for the same vectors. NCCL only moves bytes (an
// all-to-all of shards, then an all-gather of the sums, both as grouped ncclSend/ncclRecv); the sums are
// detred::cuda's column sums of an R x shard matrix. So NCCL_ALGO, NCCL_PROTO, the message size, the chunking into
// buckets, the buffers' alignment and the GPUs' placement never show in the bits.
//
// Every call is collective over `comm`: every rank calls it with the same length, element type and mode. The ranks
// first exchange a small descriptor of their arguments (an all-gather of 32 bytes, and a wait for the stream), so
// that an invalid argument on any rank, or a mismatch between ranks, is a detred::error on every rank and never a
// hang. A plan (below) makes that check once for calls that repeat with one length.
//
// Modes: tree, compensated and exact for the floating-point types (exact: each element's sum correctly rounded, by
// the batched CUDA calls' exact kernels; 16-bit elements: the float sum, then rounded once to the element type);
// integer sums are exact in every mode.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include <nccl.h>

#include "detred/number_types.hpp"
#include "detred/options.hpp"

struct CUstream_st;

#pragma GCC visibility push(default)

namespace detred::nccl {

/// A CUDA stream: the same type as cudaStream_t (nullptr is the default stream).
using stream_t = ::CUstream_st*;

/// Reusable device state of the collectives: the received R x shard matrices, the integer calls' overflow flags, and
/// the argument descriptors (device and pinned host memory), plus the detred::cuda::workspace of the column sums.
/// Buffers grow with stream-ordered allocation (cudaMallocAsync) to the largest call seen, then stay. A workspace
/// serves one call at a time, on the device that was current when it was created.
class workspace {
 public:
  /// Binds to the current CUDA device. Throws detred::error if there is none.
  workspace();
  ~workspace();
  workspace(workspace&&) noexcept;
  workspace& operator=(workspace&&) noexcept;
  workspace(const workspace&) = delete;
  workspace& operator=(const workspace&) = delete;

  /// The device this workspace allocates on.
  int device() const;
  /// Bytes of device memory it holds now.
  std::size_t device_bytes() const;

  struct state;

 private:
  std::unique_ptr<state> state_;
  friend state& state_of(workspace& ws);
};

// allreduce_sum: x and out (device memory) hold n elements on every rank; out[i] = the sum over the ranks of x[i].
// out may be x (in place); other overlaps are not allowed. Enqueued on `stream`, after the descriptor check (which
// waits for the stream); the result is ready when the stream gets there.
//
// reduce_scatter_sum: x holds R * c elements and out c elements, on every rank; rank r gets the sums of elements
// [r c, (r + 1) c), as ncclReduceScatter.
//
// 16-bit floats: each element is widened exactly to float and summed in float (detred::sum of float16/bfloat16),
// then rounded once to the 16-bit type (to nearest, ties to even; a NaN becomes the type's quiet NaN 0x7e00
// (float16) or 0x7fc0 (bfloat16)). NCCL moves 16-bit data.
void allreduce_sum(std::span<const double> x, std::span<double> out, ncclComm_t comm, workspace& ws,
                   mode m = mode::tree, stream_t stream = nullptr);
void allreduce_sum(std::span<const float> x, std::span<float> out, ncclComm_t comm, workspace& ws, mode m = mode::tree,
                   stream_t stream = nullptr);
void allreduce_sum(std::span<const float16> x, std::span<float16> out, ncclComm_t comm, workspace& ws,
                   mode m = mode::tree, stream_t stream = nullptr);
void allreduce_sum(std::span<const bfloat16> x, std::span<bfloat16> out, ncclComm_t comm, workspace& ws,
                   mode m = mode::tree, stream_t stream = nullptr);
void reduce_scatter_sum(std::span<const double> x, std::span<double> out, ncclComm_t comm, workspace& ws,
                        mode m = mode::tree, stream_t stream = nullptr);
void reduce_scatter_sum(std::span<const float> x, std::span<float> out, ncclComm_t comm, workspace& ws,
                        mode m = mode::tree, stream_t stream = nullptr);
void reduce_scatter_sum(std::span<const float16> x, std::span<float16> out, ncclComm_t comm, workspace& ws,
                        mode m = mode::tree, stream_t stream = nullptr);
void reduce_scatter_sum(std::span<const bfloat16> x, std::span<bfloat16> out, ncclComm_t comm, workspace& ws,
                        mode m = mode::tree, stream_t stream = nullptr);

// Integers, with detred::sum's result rules: the exact sum as int64 (signed elements) or uint64 (unsigned); a sum
// that does not fit is detred::overflow_error on every rank (naming the first such element), never a wrapped value.
// The sums of int32 and uint32 elements always fit. Synchronous, as detred::cuda's integer sums: the range check
// needs the host, so these return when the stream has run the collective.
void allreduce_sum(std::span<const std::int32_t> x, std::span<std::int64_t> out, ncclComm_t comm, workspace& ws,
                   stream_t stream = nullptr);
void allreduce_sum(std::span<const std::int64_t> x, std::span<std::int64_t> out, ncclComm_t comm, workspace& ws,
                   stream_t stream = nullptr);
void allreduce_sum(std::span<const std::uint32_t> x, std::span<std::uint64_t> out, ncclComm_t comm, workspace& ws,
                   stream_t stream = nullptr);
void allreduce_sum(std::span<const std::uint64_t> x, std::span<std::uint64_t> out, ncclComm_t comm, workspace& ws,
                   stream_t stream = nullptr);
void reduce_scatter_sum(std::span<const std::int32_t> x, std::span<std::int64_t> out, ncclComm_t comm, workspace& ws,
                        stream_t stream = nullptr);
void reduce_scatter_sum(std::span<const std::int64_t> x, std::span<std::int64_t> out, ncclComm_t comm, workspace& ws,
                        stream_t stream = nullptr);
void reduce_scatter_sum(std::span<const std::uint32_t> x, std::span<std::uint64_t> out, ncclComm_t comm, workspace& ws,
                        stream_t stream = nullptr);
void reduce_scatter_sum(std::span<const std::uint64_t> x, std::span<std::uint64_t> out, ncclComm_t comm, workspace& ws,
                        stream_t stream = nullptr);

/// The two collectives, for plans.
enum class collective { allreduce, reduce_scatter };

/// The element type of the sums of T: T for the floating-point types, int64 or uint64 for the integers.
template <class T>
struct result_of {
  using type = T;
};
template <>
struct result_of<std::int32_t> {
  using type = std::int64_t;
};
template <>
struct result_of<std::uint32_t> {
  using type = std::uint64_t;
};
template <class T>
using result_t = typename result_of<T>::type;

/// allreduce_sum or reduce_scatter_sum of one length, agreed on once: for calls that repeat with the same length,
/// element type and mode (a training loop's gradient buckets). Constructing a plan is collective over `comm` and
/// makes the argument check of the calls above (a detred::error on every rank, waiting for `stream`); each call of
/// the plan then only moves and sums, enqueued on its stream without any wait (integers still wait for their range
/// check), and gives the bits of the call above. Nothing can disagree between the ranks any more: the lengths,
/// type and mode are the plan's. T: double, float, float16, bfloat16, int32, int64, uint32, uint64. The plan keeps
/// `comm` and `ws`, which must outlive it; a workspace serves one call at a time, and the calls run on the
/// workspace's device.
template <class T>
class [[gnu::visibility("default")]] plan {
 public:
  /// count: x's length (reduce-scatter: R times out's length).
  plan(collective call, std::uint64_t count, ncclComm_t comm, workspace & ws, mode m = mode::tree,
       stream_t stream = nullptr);
  /// x: count elements; out: count (allreduce; may be x) or count / R (reduce-scatter) elements; device memory.
  void operator()(const T* x, result_t<T>* out, stream_t stream = nullptr) const;
  std::uint64_t count() const { return count_; }
  std::uint64_t out_count() const { return out_count_; }

 private:
  collective call_;
  std::uint64_t count_;
  std::uint64_t out_count_ = 0;
  ncclComm_t comm_;
  workspace* ws_;
  mode mode_;
  int ranks_ = 0;
  int me_ = 0;
};

}  // namespace detred::nccl

#pragma GCC visibility pop
