// SPDX-License-Identifier: BSD-3-Clause
// detred::cuda::workspace: allocated once, reused by every call.
#include <string>
#include <utility>

#include <cuda_runtime_api.h>

#include "cuda_check.hpp"
#include "exact_enqueue.hpp"
#include "launch_plan.hpp"
#include "pending_errors.hpp"
#include "workspace_state.hpp"

namespace detred::cuda {

using detail::check;

namespace {

/// The partial buffer's first size: the block values of the largest default plan before it grows (target_blocks
/// leaf-pass blocks plus one folding value), at 16 bytes, the size of a double (sum, correction) pair.
constexpr std::size_t initial_partial_bytes = (detail::target_blocks + 1) * 16;
constexpr std::size_t slot_bytes = detail::workspace_access::state::slot_bytes;

void free_device(void* p) {
  // Never throws: also runs during unwinding and at exit, when the CUDA runtime may already be shut down. cudaFree
  // also frees stream-ordered allocations, after waiting for the device.
  if (p != nullptr) static_cast<void>(cudaFree(p));
}

}  // namespace

workspace::state::state(int dev) : device(dev) {
  try {
    check(cudaMalloc(&partials, initial_partial_bytes), "cudaMalloc (workspace partials)");
    ++allocations;
    partial_bytes = initial_partial_bytes;
    check(cudaMalloc(&result, slot_bytes), "cudaMalloc (workspace result)");
    ++allocations;
    check(cudaMallocHost(&host_result, slot_bytes), "cudaMallocHost (workspace result)");
    ++allocations;
    check(cudaMalloc(&exact, detail::exact_accumulator_bytes), "cudaMalloc (workspace exact accumulator)");
    ++allocations;
    check(cudaMemset(exact, 0, detail::exact_accumulator_bytes), "cudaMemset (workspace exact accumulator)");
    check(cudaMalloc(reinterpret_cast<void**>(&pending), sizeof(detail::pending_errors)),
          "cudaMalloc (workspace pending errors)");
    ++allocations;
    detail::reset_pending(pending, nullptr);
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (workspace)");
  } catch (...) {
    free_device(pending);
    free_device(partials);
    free_device(result);
    free_device(exact);
    if (host_result != nullptr) static_cast<void>(cudaFreeHost(host_result));
    throw;
  }
}

workspace::state::~state() {
  free_device(partials);
  free_device(result);
  free_device(staging);
  free_device(unrounded);
  free_device(scan);
  free_device(exact);
  free_device(pending);
  if (host_result != nullptr) static_cast<void>(cudaFreeHost(host_result));
}

namespace {

/// Replaces *buffer by one of `bytes`, in stream order: the old buffer is freed after the work enqueued before on
/// `stream`, the new one is usable by the work enqueued after.
void grow(void*& buffer, std::size_t& size, std::size_t bytes, cudaStream_t stream, std::uint64_t& allocations,
          const char* what) {
  void* fresh = nullptr;
  check(cudaMallocAsync(&fresh, bytes, stream), what);
  ++allocations;
  if (buffer != nullptr) check(cudaFreeAsync(buffer, stream), "cudaFreeAsync (workspace buffer)");
  buffer = fresh;
  size = bytes;
}

}  // namespace

void workspace::state::reserve_partials(std::size_t bytes, cudaStream_t stream) {
  if (bytes > partial_bytes)
    grow(partials, partial_bytes, bytes, stream, allocations, "cudaMallocAsync (workspace partials)");
}

void workspace::state::reserve_staging(std::size_t bytes, cudaStream_t stream) {
  if (bytes > staging_bytes) {
    grow(staging, staging_bytes, bytes, stream, allocations, "cudaMallocAsync (staging buffer for sum_host)");
  }
}

void workspace::state::reserve_unrounded(std::size_t bytes, cudaStream_t stream) {
  if (bytes > unrounded_bytes) {
    grow(unrounded, unrounded_bytes, bytes, stream, allocations, "cudaMallocAsync (unrounded results)");
  }
}

void workspace::state::reserve_scan(std::size_t bytes, cudaStream_t stream) {
  if (bytes > scan_bytes) {
    grow(scan, scan_bytes, bytes, stream, allocations, "cudaMallocAsync (scan bookkeeping)");
    check(cudaMemsetAsync(scan, 0, bytes, stream), "cudaMemsetAsync (scan bookkeeping)");
    scan_call = 0;
  }
}

void workspace::state::check_current_device() const {
  int current = -1;
  check(cudaGetDevice(&current), "cudaGetDevice");
  if (current != device) {
    throw error("CUDA workspace belongs to device " + std::to_string(device) + " but device " +
                std::to_string(current) + " is current");
  }
}

namespace {

int current_device() {
  // The count first: without a device or driver it fails with the reason, where cudaGetDevice may not.
  int count = 0;
  check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  int dev = -1;
  check(cudaGetDevice(&dev), "cudaGetDevice");
  return dev;
}

}  // namespace

workspace::workspace() : state_(std::make_unique<state>(current_device())) {}
workspace::~workspace() = default;
workspace::workspace(workspace&&) noexcept = default;
workspace& workspace::operator=(workspace&&) noexcept = default;

int workspace::device() const { return state_->device; }

std::size_t workspace::device_bytes() const {
  return state_->partial_bytes + slot_bytes + detail::exact_accumulator_bytes + state_->staging_bytes +
         state_->scan_bytes;
}

}  // namespace detred::cuda
