// What a detred::cuda::workspace holds, and how its buffers grow.
#pragma once

#include <cstddef>
#include <cstdint>

#include "detred/cuda.hpp"

namespace detred::cuda {

struct workspace::state {
  int device = 0;
  void* partials = nullptr;  ///< accumulator values between passes
  std::size_t partial_bytes = 0;
  void* result = nullptr;       ///< device slot for the synchronous calls (16 bytes)
  void* host_result = nullptr;  ///< pinned host slot the device result is copied to (16 bytes)
  void* staging = nullptr;      ///< sum_host's copy of the input
  std::size_t staging_bytes = 0;

  explicit state(int dev);
  ~state();
  state(const state&) = delete;
  state& operator=(const state&) = delete;

  /// Makes sure the partial buffer holds `bytes`; allocates only if it is smaller (then frees the old one after
  /// waiting for the device, since work enqueued earlier may still read it).
  void reserve_partials(std::size_t bytes);
  void reserve_staging(std::size_t bytes);
  /// Throws detred::error unless the current device is this workspace's device.
  void check_current_device() const;
};

}  // namespace detred::cuda
