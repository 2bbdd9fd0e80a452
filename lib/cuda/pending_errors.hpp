// SPDX-License-Identifier: BSD-3-Clause
// The errors only the device can see, which an _async call cannot throw: it records them in its workspace, and
// detred::cuda::synchronize (or the synchronous form of a call that can record one) throws the first. Plain C++
// interface; the kernels that record are in pending_errors.cu (and scan.cu for the integer scans' outputs).
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "detred/catalogue.hpp"
#include "detred/cuda.hpp"
#include "detred/order.hpp"
#include "scan_ops.hpp"

namespace detred::cuda::detail {

/// What a workspace holds in device memory for them. Every field reads "none" (all bits set, lock 0) after the
/// workspace is made and after each synchronize.
struct pending_errors {
  /// An integer result that does not fit its 64-bit type: the first output of an integer scan (its index), or an
  /// integer sum (index sum_overflow); and the exact value.
  overflow_record overflow;
  /// (operation << 56) | k: the first empty segment k of a selection (catalogue::needs_an_element).
  std::uint64_t empty_segment;
  /// The index of the first key of sum_by_key that is not a bin.
  std::uint64_t bad_key;
  /// The bin count of that call, for the message.
  std::uint64_t bins;
};

/// overflow.index of an integer sum (above every output index of a scan, which are below 2^63).
inline constexpr std::uint64_t sum_overflow = std::uint64_t{1} << 63;

/// Sets every field of *p to "none", in stream order.
void reset_pending(pending_errors* p, cudaStream_t stream);

/// Enqueues: *out = in narrowed to R (int64 or uint64); if it does not fit, records the overflow.
template <class R>
void enqueue_narrow_sum(const order::wide_integer* in, R* out, pending_errors* p, cudaStream_t stream);

/// Enqueues the check that no segment offsets[k] .. offsets[k+1], k < count, is empty; the first that is, is
/// recorded for `op`.
void enqueue_check_nonempty(const std::uint64_t* offsets, std::uint64_t count, operation op, pending_errors* p,
                            cudaStream_t stream);

/// Enqueues to[i] = from[i] for the int64 keys of sum_by_key; the first key outside [0, bins) is recorded (and
/// written as `bins`, which the uint32 path records again and then ignores). bins must be below 2^32.
void enqueue_narrow_keys(const std::int64_t* from, std::uint32_t* to, std::uint64_t n, std::uint64_t bins,
                         pending_errors* p, cudaStream_t stream);

/// Waits for `stream`, reads the workspace's record, resets it, and throws the first error it holds: overflow_error
/// for an integer that does not fit, detred::error for the others.
void throw_pending(workspace& ws, cudaStream_t stream);

}  // namespace detred::cuda::detail
