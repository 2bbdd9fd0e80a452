// The leaf pass: each warp computes whole leaves (lanes in registers, the halving lane tree by shuffles), folds its
// aligned run of leaves, and each block folds its warps' runs into the root of its aligned subtree of leaves.
#pragma once

#include <cstdint>
#include <type_traits>

#include "detred/order.hpp"
#include "device_ops.cuh"

namespace detred::cuda::detail {

/// Rows loaded before their additions: eight loads in flight per thread and operand keep the memory system busy
/// without raising register use past the occupancy the launch bounds ask for. Operators with wide lane states
/// (stats, compensated nrm2) hold fewer rows, or their states would spill to local memory (ptxas -v shows it).
template <class Op>
inline constexpr unsigned rows_in_flight = sizeof(typename Op::state) <= 16
                                               ? 8
                                               : (sizeof(typename Op::state) <= 32 ? 4 : 2);

/// The thread's k stored elements of one row of every operand.
template <class Op, unsigned k>
struct row_elements {
  order::raw_t<typename Op::input> v[Op::arity][k];
};

/// offset: within the leaf (less than L), so 32-bit index arithmetic suffices.
template <class Op, bool Aligned, unsigned k>
__device__ __forceinline__ void load_rows(row_elements<Op, k>& row, const order::operands<Op>& x,
                                          std::uint32_t offset) {
#pragma unroll
  for (unsigned a = 0; a < Op::arity; ++a) load_row<typename Op::input, k, Aligned>(x.data[a] + offset, row.v[a]);
}

/// The thread's k lane states take the elements of one row; `later`: not the leaf's first row, so every lane
/// already holds an element (order::accumulate_later). The full-leaf loop is unrolled, so `later` is a constant there.
template <class Op, unsigned k>
__device__ __forceinline__ void accumulate_row(typename Op::state (&acc)[k], const row_elements<Op, k>& row,
                                               bool later) {
#pragma unroll
  for (unsigned s = 0; s < k; ++s) {
    if constexpr (Op::arity == 1) {
      acc[s] = later ? order::accumulate_later<Op>(acc[s], row.v[0][s]) : Op::accumulate(acc[s], row.v[0][s]);
    } else {
      acc[s] = later ? order::accumulate_later<Op>(acc[s], row.v[0][s], row.v[1][s])
                     : Op::accumulate(acc[s], row.v[0][s], row.v[1][s]);
    }
  }
}

/// The root of the lane tree of one leaf x[0..count), count <= L, computed by a whole warp; valid in lane 0.
template <class Op, bool Aligned>
__device__ __forceinline__ typename Op::state warp_leaf(const order::operands<Op>& leaf, std::uint32_t count,
                                                        unsigned lane) {
  using V = typename Op::value;
  using S = typename Op::state;
  constexpr unsigned k = lanes_per_thread<V>;
  constexpr std::uint32_t W = order::lanes<V>;
  constexpr std::uint32_t rows = order::leaf_size<V> / W;
  S acc[k];
#pragma unroll
  for (unsigned s = 0; s < k; ++s) acc[s] = Op::template identity<V>();

  // Lane j of the leaf is slot j % k of thread j / k; each lane takes its elements in increasing row order.
  const order::operands<Op> mine = leaf.advanced(lane * k);
  if (count == order::leaf_size<V>) {
#pragma unroll
    for (std::uint32_t r0 = 0; r0 < rows; r0 += rows_in_flight<Op>) {
      row_elements<Op, k> batch[rows_in_flight<Op>];
#pragma unroll
      for (unsigned u = 0; u < rows_in_flight<Op>; ++u) load_rows<Op, Aligned, k>(batch[u], mine, (r0 + u) * W);
#pragma unroll
      for (unsigned u = 0; u < rows_in_flight<Op>; ++u) accumulate_row<Op, k>(acc, batch[u], r0 + u > 0);
    }
  } else {
    // The ragged last leaf: full rows, then one partial row in which lanes past its end have no element.
    const std::uint32_t full_rows = count / W;
    for (std::uint32_t r = 0; r < full_rows; ++r) {
      row_elements<Op, k> row;
      load_rows<Op, Aligned, k>(row, mine, r * W);
      accumulate_row<Op, k>(acc, row, r > 0);
    }
    const std::uint32_t tail = count - full_rows * W;
#pragma unroll
    for (unsigned s = 0; s < k; ++s) {
      if (lane * k + s < tail) acc[s] = accumulate_loaded<Op>(acc[s], mine, std::uint64_t{full_rows} * W + s);
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

/// The node of one leaf, in every lane of the warp. Operators that locate an element search the leaf together: each
/// thread its own lanes, then the lowest matching index of the warp.
template <class Op, bool Aligned>
__device__ __forceinline__ order::node_of<Op> warp_leaf_node(const order::operands<Op>& leaf, std::uint32_t count,
                                                             unsigned lane) {
  const typename Op::state root = broadcast(warp_leaf<Op, Aligned>(leaf, count, lane), 0);
  if constexpr (order::locates_element<Op>) {
    // 32 consecutive elements per step, one per lane (coalesced); the first step with a match ends the search.
    using V = typename Op::value;
    std::uint32_t first = count - 1;  // unreachable: the root came from one of the leaf's elements
    for (std::uint32_t base = 0; base < count; base += warp_size) {
      const std::uint32_t i = base + lane;
      const bool hit =
          i < count && Op::matches(root, order::widen<V, typename Op::input>(load_element<Op>(leaf, 0, i)));
      const unsigned hits = __ballot_sync(full_mask, hit);
      if (hits != 0) {
        first = base + static_cast<std::uint32_t>(__ffs(static_cast<int>(hits)) - 1);
        break;
      }
    }
    return order::to_node<Op>(root, leaf.first + first);
  } else {
    return order::to_node<Op>(root, 0);
  }
}

/// Operators whose leaf pass needs more than 64 registers a thread: compensated nrm2 (three pairs a lane), which
/// ptxas spills to local memory at 64 (ncu: local-memory requests). With up to 128, on the H200: 0.64x -> 0.80x
/// cublasDnrm2 (int64 sums, before they left the leaf pass, gained 0.79x -> 0.88x CUB Sum). stats, as wide, gained
/// nothing (double) or lost (float: 0.89x -> 0.86x), so it keeps 64.
template <class Op>
inline constexpr bool needs_registers = false;
template <class T>
inline constexpr bool needs_registers<order::nrm2_op<T, order::compensated_sums>> = true;

/// Leaf pass. Block b owns leaves [b * B * R, (b + 1) * B * R) (B warps of R leaves, both powers of two, or any B
/// when one block owns the whole tree); warp w of it owns the w-th run of R leaves. With one block the root is
/// finalized straight into `result`; otherwise each block writes its subtree's root to block_values[b].
// (1024, 1): up to 64 registers a thread. With the bound alone ptxas kept some variants at 32 registers, which
// serialized the row loads (double tree mode ran at 0.92x CUB); at 64 the eight loads of a batch stay in flight.
// Operators that need more (needs_registers) also get a variant for blocks of at most 256 threads, (256, 2): up to
// 128 registers, used by every launch of more than one block.
template <class Op, bool Aligned, unsigned MaxThreads = 1024>
__global__ void __launch_bounds__(MaxThreads, MaxThreads == 1024 ? 1 : 2)
    leaf_pass(order::operands<Op> x, std::uint64_t n, std::uint32_t leaves_per_warp,
              order::node_of<Op>* __restrict__ block_values, typename Op::result* __restrict__ result) {
  using V = typename Op::value;
  using N = order::node_of<Op>;
  __shared__ N warp_roots[32];
  const unsigned lane = threadIdx.x % warp_size;
  const unsigned warp = threadIdx.x / warp_size;
  const unsigned warps = blockDim.x / warp_size;
  const std::uint64_t m = order::leaf_count<V>(n);
  const std::uint64_t block_first = static_cast<std::uint64_t>(blockIdx.x) * warps * leaves_per_warp;
  const std::uint64_t first = block_first + static_cast<std::uint64_t>(warp) * leaves_per_warp;

  N run = empty<Op>();
  if (first < m) {
    const unsigned count = static_cast<unsigned>(m - first < leaves_per_warp ? m - first : leaves_per_warp);
    // Lane i collects leaf i of the run, then the warp folds the run's left-perfect tree.
    N mine = empty<Op>();
    for (unsigned i = 0; i < count; ++i) {
      const std::uint64_t start = (first + i) * order::leaf_size<V>;
      const std::uint64_t left = n - start;
      const auto size = static_cast<std::uint32_t>(left < order::leaf_size<V> ? left : order::leaf_size<V>);
      const N leaf = warp_leaf_node<Op, Aligned>(x.advanced(start), size, lane);
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
    const N root = warp_fold<Op>(lane < used ? warp_roots[lane] : empty<Op>(), used, lane);
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
