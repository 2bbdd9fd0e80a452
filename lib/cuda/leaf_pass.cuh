// SPDX-License-Identifier: BSD-3-Clause
// The leaf pass: each warp computes whole leaves (lanes in registers, the halving lane tree by shuffles), folds its
// aligned run of leaves, and each block folds its warps' runs into the root of its aligned subtree of leaves.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "detred/order.hpp"
#include "device_ops.cuh"
#include "thread_extremes.cuh"

namespace detred::cuda::detail {

/// Rows loaded before their additions: eight loads in flight per thread and operand keep the memory system busy
/// without raising register use past the occupancy the launch bounds ask for. Operators with wide lane states hold
/// fewer rows, or their states would spill to local memory (ptxas -v shows it). The stats lanes of doubles (40
/// bytes: the moment sums, their extremes kept apart) still fit four rows: 0.82x CUB Sum at 2^27 against 0.77x
/// with two (docs/cuda.md).
template <class Op>
inline constexpr unsigned rows_in_flight = sizeof(typename Op::state) <= 16
                                               ? 8
                                               : (sizeof(typename Op::state) <= 40 ? 4 : 2);

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

/// The halving lane tree of order::fold_lanes over the W = 32 k lanes of a warp (lane j = slot j % k of thread j / k),
/// root in thread 0: level h joins lane[j] (+) lane[j + h] for j < h, h = W / 2 down to 1. The pairs and the order of
/// each join are the specification's; what differs is who computes them. Shuffling every slot down at every level
/// would leave half the warp's joins unused at each level; instead the first log2 k levels (whose lanes j and j + h
/// sit in threads t and t ^ d, d = 16, 8, ...) scatter the work: the lower thread keeps the joins of its lower half of
/// slots, the upper thread those of its upper half, each sending the other the half it gives up. A slot bit of the
/// lane index then lives in thread bit d. The other thread levels shuffle down one state; the slot levels, last in
/// the tree, pair threads d apart again. k + 4 shuffles and joins per thread instead of 5 k and 6 k - 1 (double:
/// 6 instead of 10 and 11; float: 8 instead of 20 and 23).
/// Threads < 32: the same tree over the Threads * k lanes of each aligned group of Threads threads (the shuffles
/// stay within a group wherever their result is used), root in the group's first thread.
template <class Op, unsigned k, unsigned Threads = warp_size>
__device__ __forceinline__ typename Op::state warp_lane_tree(typename Op::state (&held)[k], unsigned lane) {
  constexpr unsigned slot_bits = order::exact_log2(k);
  static_assert((1u << slot_bits) == k && k <= Threads, "k is a power of two");
  static_assert((Threads & (Threads - 1)) == 0 && Threads <= warp_size, "groups are aligned powers of two");
  // Scatter levels: thread bit d pairs lanes j and j + h; the 2 half states still held split by their top slot bit.
#pragma unroll
  for (unsigned level = 0; level < slot_bits; ++level) {
    const unsigned d = Threads / 2 >> level;
    const unsigned half = k >> (level + 1);
    const bool upper = (lane & d) != 0;
#pragma unroll
    for (unsigned i = 0; i < half; ++i) {
      const typename Op::state got = shuffle_xor(upper ? held[i] : held[i + half], d);
      const typename Op::state& left = upper ? got : held[i];
      const typename Op::state& right = upper ? held[i + half] : got;
      held[i] = Op::combine(left, right);
    }
  }
  // The remaining thread bits, one state a thread; results stay in threads whose lower bits are 0.
#pragma unroll
  for (unsigned d = Threads / 2 >> slot_bits; d >= 1; d /= 2) {
    held[0] = Op::combine(held[0], shuffle_down(held[0], d));
  }
  // The slot bits, moved to thread bits Threads / 2, Threads / 4, ... by the scatter levels in the tree's order.
#pragma unroll
  for (unsigned level = 0; level < slot_bits; ++level) {
    const unsigned d = Threads / 2 >> level;
    held[0] = Op::combine(held[0], shuffle_down(held[0], d));
  }
  return held[0];
}

/// The same arrays, read by another operator of the same input and arity.
template <class To, class From>
__device__ __forceinline__ order::operands<To> retyped(const order::operands<From>& x) {
  if constexpr (std::is_same_v<To, From>) {
    return x;
  } else {
    order::operands<To> r;
#pragma unroll
    for (unsigned a = 0; a < From::arity; ++a) r.data[a] = x.data[a];
    r.first = x.first;
    return r;
  }
}

/// The root of the lane tree of one leaf x[0..count), count <= L, computed by a whole warp; valid in lane 0.
/// Extremes: what the thread keeps apart from the lanes (thread_extremes.cuh), taking every element it loads.
template <class Op, bool Aligned, class Extremes>
__device__ __forceinline__ typename Op::state warp_leaf(const order::operands<Op>& leaf, std::uint32_t count,
                                                        unsigned lane, Extremes& extremes) {
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
      extremes.template take_rows<rows_in_flight<Op>, k>(batch);
    }
  } else {
    // The ragged last leaf: full rows, then one partial row in which lanes past its end have no element.
    const std::uint32_t full_rows = count / W;
    for (std::uint32_t r = 0; r < full_rows; ++r) {
      row_elements<Op, k> row;
      load_rows<Op, Aligned, k>(row, mine, r * W);
      accumulate_row<Op, k>(acc, row, r > 0);
      extremes.template take_rows<1, k>(&row);
    }
    const std::uint32_t tail = count - full_rows * W;
#pragma unroll
    for (unsigned s = 0; s < k; ++s) {
      if (lane * k + s < tail) {
        const std::uint64_t i = std::uint64_t{full_rows} * W + s;
        acc[s] = accumulate_loaded<Op>(acc[s], mine, i);
        if constexpr (Op::arity == 1) extremes.take(load_element<Op>(mine, 0, i));
      }
    }
  }
  return warp_lane_tree<Op, k>(acc, lane);
}

/// The node of a leaf whose threads keep the extremes apart (stats), from the root of its lanes: its min and max are
/// the empty leaf's until the run's node takes the warp's extremes (with_warp_extremes).
template <class Op>
__device__ __forceinline__ order::node_of<Op> node_of_lane_sums(
    const typename lane_operator<Op>::lanes::state& lanes_root) {
  const typename Op::state none = Op::template identity<typename Op::value>();
  return order::to_node<Op>(Op::with_keys(lanes_root, none.min, none.max), 0);
}

/// The index in a leaf of its first element that matches the leaf's root (argmin, argmax), searched by a group of G
/// threads of a warp (this one is thread t of the group; `mask` holds the group's lanes), G consecutive elements a
/// step; the first step with a match ends the search. Every thread of the group passes the root.
template <class Op, unsigned G>
__device__ __forceinline__ std::uint32_t first_match_in_leaf(const order::operands<Op>& leaf, std::uint32_t count,
                                                             const typename Op::state& root, unsigned t,
                                                             unsigned mask) {
  using V = typename Op::value;
  const int group_lane0 = __ffs(static_cast<int>(mask)) - 1;
  for (std::uint32_t base = 0; base < count; base += G) {
    const std::uint32_t i = base + t;
    const bool hit = i < count && Op::matches(root, order::widen<V, typename Op::input>(load_element<Op>(leaf, 0, i)));
    const unsigned hits = __ballot_sync(mask, hit) & mask;
    if (hits != 0) return base + static_cast<std::uint32_t>(__ffs(static_cast<int>(hits >> group_lane0)) - 1);
  }
  return count - 1;  // unreachable: the root came from one of the leaf's elements
}

/// The node of one leaf, in every lane of the warp, except for the extremes that the threads keep apart (stats: its
/// min and max are the empty leaf's, and `extremes` has taken the leaf's elements). Operators that locate an element
/// search the leaf together: each thread its own lanes, then the lowest matching index of the warp.
template <class Op, bool Aligned>
__device__ __forceinline__ order::node_of<Op> warp_leaf_node(const order::operands<Op>& leaf, std::uint32_t count,
                                                             unsigned lane, extremes_of<Op>& extremes) {
  using Lanes = typename lane_operator<Op>::lanes;
  const typename Lanes::state lanes_root =
      broadcast(warp_leaf<Lanes, Aligned>(retyped<Lanes>(leaf), count, lane, extremes), 0);
  if constexpr (lane_operator<Op>::extremes_apart) {
    return node_of_lane_sums<Op>(lanes_root);
  } else if constexpr (order::locates_element<Op>) {
    // 32 consecutive elements per step, one per lane (coalesced).
    return order::to_node<Op>(
        lanes_root, leaf.first + first_match_in_leaf<Op, warp_size>(leaf, count, lanes_root, lane, full_mask));
  } else {
    return order::to_node<Op>(lanes_root, 0);
  }
}

/// The whole node of one leaf, in every lane of the warp.
template <class Op, bool Aligned>
__device__ __forceinline__ order::node_of<Op> warp_leaf_node(const order::operands<Op>& leaf, std::uint32_t count,
                                                             unsigned lane) {
  extremes_of<Op> extremes;
  const order::node_of<Op> node = warp_leaf_node<Op, Aligned>(leaf, count, lane, extremes);
  if constexpr (lane_operator<Op>::extremes_apart) {
    return broadcast(with_warp_extremes<Op>(node, extremes), 0);
  } else {
    return node;
  }
}

/// Dynamic shared memory of a leaf pass of blocks of `warps` warps: the lanes' roots of each warp's run, for operators
/// whose threads keep the extremes apart. At most 40 KiB (32 warps of 32 leaves of double stats' sums), under the
/// 48 KiB a launch may ask for without opting in.
template <class Op>
constexpr std::size_t leaf_pass_shared_bytes(std::uint32_t warps, std::uint32_t leaves_per_warp) {
  if constexpr (lane_operator<Op>::extremes_apart) {
    static_assert(32 * 32 * sizeof(typename lane_operator<Op>::lanes::state) <= 48 * 1024);
    return std::size_t{warps} * leaves_per_warp * sizeof(typename lane_operator<Op>::lanes::state);
  } else {
    return 0;
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
    extremes_of<Op> extremes;  // over the whole run (stats): the run's node takes them once, below
    const unsigned count = static_cast<unsigned>(m - first < leaves_per_warp ? m - first : leaves_per_warp);
    // Lane i collects leaf i of the run, then the warp folds the run's left-perfect tree.
    N mine = empty<Op>();
    struct leaf_range {
      order::operands<Op> leaf;
      std::uint32_t size;
    };
    const auto leaf_of_run = [&](unsigned i) {
      const std::uint64_t start = (first + i) * order::leaf_size<V>;
      const std::uint64_t left = n - start;
      return leaf_range{x.advanced(start),
                        static_cast<std::uint32_t>(left < order::leaf_size<V> ? left : order::leaf_size<V>)};
    };
    if constexpr (lane_operator<Op>::extremes_apart) {
      // The lanes' roots wait in shared memory: a node held per lane across the loop made ptxas spill the stats pass
      // of doubles (48 bytes stored, 88 loaded at 64 registers).
      using Lanes = typename lane_operator<Op>::lanes;
      extern __shared__ __align__(16) unsigned char leaf_pass_shared[];
      auto* const run_sums = reinterpret_cast<typename Lanes::state*>(leaf_pass_shared) + warp * leaves_per_warp;
      for (unsigned i = 0; i < count; ++i) {
        const auto [leaf, size] = leaf_of_run(i);
        const typename Lanes::state root = warp_leaf<Lanes, Aligned>(retyped<Lanes>(leaf), size, lane, extremes);
        if (lane == 0) run_sums[i] = root;
      }
      __syncwarp();
      if (lane < count) mine = node_of_lane_sums<Op>(run_sums[lane]);
    } else {
      for (unsigned i = 0; i < count; ++i) {
        const auto [leaf, size] = leaf_of_run(i);
        const N node = warp_leaf_node<Op, Aligned>(leaf, size, lane, extremes);
        if (lane == i) mine = node;
      }
    }
    run = with_warp_extremes<Op>(warp_fold<Op>(mine, count, lane), extremes);
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
        *result = order::finish<Op>(root, n);
      } else {
        block_values[blockIdx.x] = root;
      }
    }
  }
}

}  // namespace detred::cuda::detail
