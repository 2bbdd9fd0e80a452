// SPDX-License-Identifier: BSD-3-Clause
// The rows of a matrix reduced a warp per run of leaves (batch.cu's building blocks, shared with the fused row
// kernels of norm_rows.cu): a line's operands, a run's root, and uniform_rows, which hands each row's result to a
// finisher: batch.cu's stores it; norm_rows.cu's normalizes the row while its elements are still in cache.
#pragma once

#include <cstdint>

#include "detred/order.hpp"
#include "device_ops.cuh"
#include "leaf_pass.cuh"

namespace detred::cuda::detail {

/// Leaves per work item: small runs, so that a line of a few leaves still spreads over several warps.
constexpr unsigned item_leaves = 4;
constexpr unsigned batch_block = 256;
constexpr unsigned batch_warps = batch_block / warp_size;

/// The line's operands, counting indices from its first element.
template <class Op>
__device__ order::operands<Op> line_operands(const order::operands<Op>& x, std::uint64_t start) {
  order::operands<Op> line = x.advanced(start);
  line.first = 0;
  return line;
}

/// True if every operand of the line allows whole-row loads (leaves start every L elements from the line's start).
template <class Op>
__device__ bool rows_aligned(const order::operands<Op>& line) {
  constexpr std::uintptr_t row_bytes = lanes_per_thread<typename Op::value> * sizeof(typename Op::input);
  bool aligned = true;
  for (unsigned a = 0; a < Op::arity; ++a)
    aligned = aligned && reinterpret_cast<std::uintptr_t>(line.data[a]) % row_bytes == 0;
  return aligned;
}

/// The root of leaves [first_leaf, first_leaf + leaves) of a line of n elements (leaves <= 32): an aligned
/// subtree of the line's leaf tree, by a whole warp. Valid in lane 0.
template <class Op>
__device__ order::node_of<Op> run_root(const order::operands<Op>& line, std::uint64_t n, std::uint64_t first_leaf,
                                       unsigned leaves, unsigned lane) {
  using V = typename Op::value;
  using N = order::node_of<Op>;
  constexpr std::uint64_t L = order::leaf_size<V>;
  const bool aligned = rows_aligned<Op>(line);
  N mine = empty<Op>();
  for (unsigned i = 0; i < leaves; ++i) {
    const std::uint64_t start = (first_leaf + i) * L;
    const auto size = static_cast<std::uint32_t>(n - start < L ? n - start : L);
    const N leaf = aligned ? warp_leaf_node<Op, true>(line.advanced(start), size, lane)
                           : warp_leaf_node<Op, false>(line.advanced(start), size, lane);
    if (lane == i) mine = leaf;
  }
  return warp_fold<Op>(mine, leaves, lane);
}

/// Work items (runs of item_leaves leaves) of a row of `length` elements; uniform_rows takes rows of at most
/// batch_warps of them.
template <class Op>
constexpr std::uint64_t row_items(std::uint64_t length) {
  return (order::leaf_count<typename Op::value>(length) + item_leaves - 1) / item_leaves;
}

/// uniform_rows' finisher of the batched calls: the row's result into results[row].
template <class Op>
struct store_results {
  typename Op::result* results;
  /// Called by the whole warp that holds row's result r (valid in lane 0).
  __device__ void operator()(std::uint64_t row, const typename Op::result& r, unsigned lane) const {
    if (lane == 0) results[row] = r;
  }
  /// Called by the one thread that holds line's result r (short_strided_pass).
  __device__ void operator()(std::uint64_t line, const typename Op::result& r) const { results[line] = r; }
};

/// Rows of one length (a matrix's: no offsets) of at most batch_warps items each, batch_warps / items rows a block:
/// a warp per item computes its root as items_pass does; a row of one item is finalized by its warp, otherwise the
/// warp of the row's first item folds the row's item roots from shared memory as fold_line does (one run of at most
/// 32 roots) and finalizes. That warp then hands the result to `finish` (store_results for the batched calls). One
/// launch, with no scratch, counters or lists: for the rows of a 4096 x 4096 float matrix it stands for the
/// counters' memset, lines_pass, list_items, items_pass and fold_items, five operations in the stream and their host
/// time.
template <class Op, class Finish>
__global__ void __launch_bounds__(batch_block)
    uniform_rows(order::operands<Op> x, std::uint64_t stride, std::uint64_t length, std::uint64_t count, unsigned items,
                 Finish finish) {
  using V = typename Op::value;
  using N = order::node_of<Op>;
  using R = typename Op::result;
  __shared__ N roots[batch_warps];
  const unsigned lane = threadIdx.x % warp_size;
  const unsigned warp = threadIdx.x / warp_size;
  const unsigned rows_per_block = batch_warps / items;
  const unsigned item = warp % items;
  const bool has_row = warp / items < rows_per_block;  // the warps past the block's last whole row idle
  const std::uint64_t leaves = order::leaf_count<V>(length);
  const std::uint64_t first_leaf = std::uint64_t{item} * item_leaves;
  const auto run = static_cast<unsigned>(leaves - first_leaf < item_leaves ? leaves - first_leaf : item_leaves);
  for (std::uint64_t base = std::uint64_t{blockIdx.x} * rows_per_block; base < count;
       base += std::uint64_t{gridDim.x} * rows_per_block) {
    const std::uint64_t row = base + warp / items;
    const bool active = has_row && row < count;
    if (active) {
      const N root = run_root<Op>(line_operands<Op>(x, row * stride), length, first_leaf, run, lane);
      if (items == 1) {
        R r{};
        if (lane == 0) r = order::finish<Op>(root, length);
        finish(row, r, lane);
      } else if (lane == 0) {
        roots[warp] = root;
      }
    }
    if (items > 1) {  // the same for the whole block
      __syncthreads();
      if (active && item == 0) {
        const N row_run = warp_fold<Op>(lane < items ? roots[warp + lane] : empty<Op>(), items, lane);
        R r{};
        if (lane == 0) {
          order::subtree_stack<Op> tree;
          tree.push(row_run, leaves);
          r = order::finish<Op>(tree.root(), length);
        }
        finish(row, r, lane);
      }
      __syncthreads();
    }
  }
}

}  // namespace detred::cuda::detail
