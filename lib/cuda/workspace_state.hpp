// SPDX-License-Identifier: BSD-3-Clause
// What a detred::cuda::workspace holds, how its buffers grow, and how the library's own code reaches it.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "detred/cuda.hpp"

namespace detred::cuda {

namespace detail {
struct pending_errors;
}

struct workspace::state {
  /// Bytes of the result slots: the largest result of any operator (statistics<double>, 72 bytes) fits.
  static constexpr std::size_t slot_bytes = 128;
  int device = 0;
  void* partials = nullptr;  ///< states between passes
  std::size_t partial_bytes = 0;
  void* result = nullptr;       ///< device slot for the synchronous calls (slot_bytes)
  void* host_result = nullptr;  ///< pinned host slot the device result is copied to
  void* exact = nullptr;        ///< exact mode's accumulator (exact_enqueue.hpp): zero between calls
  void* staging = nullptr;      ///< the synchronous calls' copy of host inputs; exact batches' widened 16-bit inputs
  /// Results in the accumulation type that a call rounds to a narrower type in a kernel of its own (sum_rows and
  /// sum_columns of 16-bit floats: the batched float sums); apart from staging and partials, which the batched calls it
  /// makes use.
  void* unrounded = nullptr;
  std::size_t unrounded_bytes = 0;
  /// The errors the _async calls recorded for synchronize (pending_errors.hpp); reset when allocated.
  detail::pending_errors* pending = nullptr;
  std::size_t staging_bytes = 0;
  /// The scans' bookkeeping (scan.cu): ready flags, which hold the number of the call that set them, so that they
  /// never need clearing; a block ticket counter, zero between calls; the leaves' subtree roots. Zero when allocated.
  void* scan = nullptr;
  std::size_t scan_bytes = 0;
  /// The number of the last scan call that used the flags (0: none yet; the flags start at 0).
  std::uint32_t scan_call = 0;
  /// Device allocations made since construction (the constructor's included): tests check that calls which need
  /// no larger buffer allocate nothing, without reading the device's free memory, which other processes change.
  std::uint64_t allocations = 0;

  explicit state(int dev);
  ~state();
  state(const state&) = delete;
  state& operator=(const state&) = delete;

  /// Makes sure the partial buffer holds `bytes`. A larger buffer is allocated and the old one freed in stream
  /// order on `stream` (cudaMallocAsync, cudaFreeAsync): work enqueued earlier still reads the old one, and nothing
  /// waits for the device.
  void reserve_partials(std::size_t bytes, cudaStream_t stream);
  void reserve_staging(std::size_t bytes, cudaStream_t stream);
  void reserve_unrounded(std::size_t bytes, cudaStream_t stream);
  /// reserve_partials for the scan buffer; a new buffer is zeroed in stream order.
  void reserve_scan(std::size_t bytes, cudaStream_t stream);
  /// Throws detred::error unless the current device is this workspace's device.
  void check_current_device() const;
};

namespace detail {

/// The library's access to a workspace's state (the public class keeps it private).
struct workspace_access {
  using state = workspace::state;
  static state& of(workspace& ws) { return *ws.state_; }
};

}  // namespace detail
}  // namespace detred::cuda
