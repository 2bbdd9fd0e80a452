// SPDX-License-Identifier: BSD-3-Clause
// The folding pass: the roots of aligned subtrees (one per leaf-pass block, or per earlier folding block) folded
// into the roots of larger aligned subtrees, 8192 per block: 8 in each thread's registers, 32 threads per warp,
// 32 warps per block. The last pass (one block) finalizes into the result.
#pragma once

#include <cstdint>

#include "detred/order.hpp"
#include "device_ops.cuh"

namespace detred::cuda::detail {

inline constexpr unsigned fold_threads = 1024;
inline constexpr unsigned values_per_thread = 8;

template <class Op>
__global__ void __launch_bounds__(fold_threads)
    fold_pass(const order::node_of<Op>* __restrict__ in, std::uint64_t count, order::node_of<Op>* __restrict__ out,
              typename Op::result* __restrict__ result, std::uint64_t n) {
  using V = order::node_of<Op>;
  __shared__ V warp_roots[fold_threads / warp_size];
  const unsigned lane = threadIdx.x % warp_size;
  const unsigned warp = threadIdx.x / warp_size;
  constexpr std::uint64_t per_block = std::uint64_t{fold_threads} * values_per_thread;
  const std::uint64_t block_first = static_cast<std::uint64_t>(blockIdx.x) * per_block;
  const std::uint64_t in_block = count - block_first < per_block ? count - block_first : per_block;
  const std::uint64_t first = block_first + std::uint64_t{threadIdx.x} * values_per_thread;

  V v[values_per_thread];
  const std::uint64_t mine =
      count > first ? (count - first < values_per_thread ? count - first : values_per_thread) : 0;
#pragma unroll
  for (unsigned i = 0; i < values_per_thread; ++i) v[i] = i < mine ? in[first + i] : empty<Op>();
  const V thread_root = order::fold_pairwise<Op>(v, mine);

  const std::uint64_t threads_used = in_block / values_per_thread + (in_block % values_per_thread != 0 ? 1 : 0);
  const std::uint64_t warp_first = std::uint64_t{warp} * warp_size;
  const unsigned in_warp = static_cast<unsigned>(
      threads_used > warp_first ? (threads_used - warp_first < warp_size ? threads_used - warp_first : warp_size) : 0);
  const V warp_root = warp_fold<Op>(thread_root, in_warp, lane);
  if (lane == 0) warp_roots[warp] = warp_root;
  __syncthreads();

  if (warp == 0) {
    const unsigned warps_used = static_cast<unsigned>((threads_used + warp_size - 1) / warp_size);
    const V root = warp_fold<Op>(lane < warps_used ? warp_roots[lane] : empty<Op>(), warps_used, lane);
    if (lane == 0) {
      if (gridDim.x == 1) {
        *result = order::finish<Op>(root, n);
      } else {
        out[blockIdx.x] = root;
      }
    }
  }
}

}  // namespace detred::cuda::detail
