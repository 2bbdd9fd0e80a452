// The leaf pass: each warp computes whole leaves (lanes in registers, the halving lane tree by shuffles), folds its
// aligned run of leaves, and each block folds its warps' runs into the root of its aligned subtree of leaves.
#pragma once

#include <cstdint>

#include "detred/order.hpp"
#include "device_ops.cuh"

namespace detred::cuda::detail {

/// Rows loaded before their additions: eight 16-byte loads in flight per thread keep the memory system busy
/// without raising register use past the occupancy the launch bounds ask for.
inline constexpr unsigned rows_in_flight = 8;

/// The value of one leaf x[0..count), count <= L, computed by a whole warp; valid in lane 0.
template <class Op, bool Aligned>
__device__ __forceinline__ typename Op::state warp_leaf(const typename Op::input* __restrict__ leaf,
                                                        std::uint32_t count, unsigned lane) {
  using T = typename Op::input;
  using V = typename Op::state;
  constexpr unsigned k = lanes_per_thread<T>;
  constexpr std::uint32_t W = order::lanes<T>;
  constexpr std::uint32_t rows = order::leaf_size<T> / W;
  V acc[k];
#pragma unroll
  for (unsigned s = 0; s < k; ++s) acc[s] = empty<Op>();

  // Lane j of the leaf is slot j % k of thread j / k; each lane adds its elements in increasing row order.
  const T* p = leaf + lane * k;
  if (count == order::leaf_size<T>) {
#pragma unroll
    for (std::uint32_t r0 = 0; r0 < rows; r0 += rows_in_flight) {
      T v[rows_in_flight][k];
#pragma unroll
      for (unsigned u = 0; u < rows_in_flight; ++u) load_row<T, Aligned>(p + (r0 + u) * W, v[u]);
#pragma unroll
      for (unsigned u = 0; u < rows_in_flight; ++u) {
#pragma unroll
        for (unsigned s = 0; s < k; ++s) acc[s] = Op::accumulate(acc[s], v[u][s]);
      }
    }
  } else {
    // The ragged last leaf: full rows, then one partial row in which lanes past its end have no element.
    const std::uint32_t full_rows = count / W;
    for (std::uint32_t r = 0; r < full_rows; ++r) {
      T v[k];
      load_row<T, Aligned>(p + r * W, v);
#pragma unroll
      for (unsigned s = 0; s < k; ++s) acc[s] = Op::accumulate(acc[s], v[s]);
    }
    const std::uint32_t tail = count - full_rows * W;
#pragma unroll
    for (unsigned s = 0; s < k; ++s) {
      if (lane * k + s < tail) acc[s] = Op::accumulate(acc[s], p[full_rows * W + s]);
    }
  }

  // The halving lane tree, lane[j] = lane[j] (+) lane[j + h]: for h >= k lane j + h sits in the same slot of thread
  // t + h / k, one shuffle away; for h < k both lanes are in thread 0's registers.
#pragma unroll
  for (std::uint32_t h = W / 2; h >= k; h /= 2) {
#pragma unroll
    for (unsigned s = 0; s < k; ++s) acc[s] = Op::combine(acc[s], shuffle_down(acc[s], h / k));
  }
  order::fold_lanes<Op>(acc, k);
  return acc[0];
}

/// Leaf pass. Block b owns leaves [b * B * R, (b + 1) * B * R) (B warps of R leaves, both powers of two, or any B
/// when one block owns the whole tree); warp w of it owns the w-th run of R leaves. With one block the root is
/// finalized straight into `result`; otherwise each block writes its subtree's root to block_values[b].
// (1024, 1): up to 64 registers a thread. With the bound alone ptxas kept some variants at 32 registers, which
// serialized the row loads (double tree mode ran at 0.92x CUB); at 64 the eight loads of a batch stay in flight.
template <class Op, bool Aligned>
__global__ void __launch_bounds__(1024, 1)
    leaf_pass(const typename Op::input* __restrict__ x, std::uint64_t n, std::uint32_t leaves_per_warp,
              typename Op::state* __restrict__ block_values, typename Op::result* __restrict__ result) {
  using T = typename Op::input;
  using V = typename Op::state;
  __shared__ V warp_roots[32];
  const unsigned lane = threadIdx.x % warp_size;
  const unsigned warp = threadIdx.x / warp_size;
  const unsigned warps = blockDim.x / warp_size;
  const std::uint64_t m = order::leaf_count<T>(n);
  const std::uint64_t block_first = static_cast<std::uint64_t>(blockIdx.x) * warps * leaves_per_warp;
  const std::uint64_t first = block_first + static_cast<std::uint64_t>(warp) * leaves_per_warp;

  V run = empty<Op>();
  if (first < m) {
    const unsigned count = static_cast<unsigned>(m - first < leaves_per_warp ? m - first : leaves_per_warp);
    // Lane i collects leaf i of the run, then the warp folds the run's left-perfect tree.
    V mine = empty<Op>();
    for (unsigned i = 0; i < count; ++i) {
      const std::uint64_t start = (first + i) * order::leaf_size<T>;
      const std::uint64_t left = n - start;
      const auto size = static_cast<std::uint32_t>(left < order::leaf_size<T> ? left : order::leaf_size<T>);
      const V leaf = broadcast(warp_leaf<Op, Aligned>(x + start, size, lane), 0);
      if (lane == i) mine = leaf;
    }
    run = warp_fold<Op>(mine, count, lane);
  }
  if (lane == 0) warp_roots[warp] = run;
  __syncthreads();

  if (warp == 0) {
    const std::uint64_t in_block = m > block_first ? m - block_first : 0;
    const std::uint64_t runs = in_block / leaves_per_warp + (in_block % leaves_per_warp != 0 ? 1 : 0);
    const unsigned used = static_cast<unsigned>(runs < warps ? runs : warps);
    const V root = warp_fold<Op>(lane < used ? warp_roots[lane] : empty<Op>(), used, lane);
    if (lane == 0) {
      if (gridDim.x == 1) {
        *result = Op::finalize(root);
      } else {
        block_values[blockIdx.x] = root;
      }
    }
  }
}

}  // namespace detred::cuda::detail
