// SPDX-License-Identifier: BSD-3-Clause
// The grid of a grid-stride kernel: as many blocks as the device holds at once, a whole number of waves. Shared by
// the batched kernels (batch.cu) and their exact mode (exact_batch.cu).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <tuple>

#include <cuda_runtime.h>

#include "cuda_check.hpp"

namespace detred::cuda::detail {

/// Blocks of `threads` threads of `kernel` that the current device holds at once. Asked of the runtime once per
/// (kernel, device, block size) and kept: none of them changes while the process runs, and the two queries cost
/// microseconds of host time, which a batch call of a few tens of microseconds on the GPU (the row sums of a 4096 x
/// 4096 float matrix) would pay on every launch.
template <class Kernel>
std::uint64_t resident_blocks(Kernel kernel, unsigned threads) {
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  static std::mutex known_mutex;
  static std::map<std::tuple<const void*, int, unsigned>, std::uint64_t> known;
  const std::tuple<const void*, int, unsigned> key{reinterpret_cast<const void*>(kernel), device, threads};
  {
    const std::lock_guard<std::mutex> lock(known_mutex);
    const auto found = known.find(key);
    if (found != known.end()) return found->second;
  }
  int sms = 0;
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  int per_sm = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, static_cast<int>(threads), 0),
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  const std::uint64_t blocks = static_cast<std::uint64_t>(sms) * static_cast<std::uint64_t>(per_sm > 0 ? per_sm : 1);
  const std::lock_guard<std::mutex> lock(known_mutex);
  known.emplace(key, blocks);
  return blocks;
}

}  // namespace detred::cuda::detail
