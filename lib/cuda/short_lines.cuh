// SPDX-License-Identifier: BSD-3-Clause
// Strided lines of a few elements (the columns of a matrix of few rows, such as the ranks' rows that detred::nccl
// sums column by column): a thread a line, its lanes in registers. batch.cu stores the results; norm_rows.cu's
// column sums round them to a 16-bit element type as they are stored. Shared so that both are one kernel.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

#include "cuda_check.hpp"
#include "detred/order.hpp"
#include "device_ops.cuh"
#include "row_pass.cuh"

namespace detred::cuda::detail {

/// True for the operators whose strided lines of at most short_strided_rows elements take short_strided_pass: one
/// operand, and lane states of at most 16 bytes (a thread holds up to 32 of them).
template <class Op>
inline constexpr bool short_strided = Op::arity == 1 && sizeof(typename Op::state) <= 16;

/// The longest strided line short_strided_pass takes: its threads hold a lane state per element.
constexpr unsigned short_strided_rows = 32;

/// Strided lines of at most N <= W elements: a thread a line, element q of the line in lane q (a line this short is
/// one leaf, and element i of a leaf is lane i mod W), the lanes past the line's length holding the identity. The
/// lane tree is fold_live_lanes' (a neutral identity) or fold_lanes_before_identity's, the same root as the full
/// tree over W lanes; a warp's load reads 32 adjacent elements of one row. The line's result goes to
/// store(line, result), called by the one thread that holds it. (batch.cu's strided_pass spends a block of 512
/// threads and a lane tree through shared memory on every 64 lines whatever their length: 11 G elements a second for
/// columns of one row, H100.)
template <class Op, unsigned N, class Store>
__global__ void __launch_bounds__(batch_block)
    short_strided_pass(order::operands<Op> x, std::uint64_t length, std::uint64_t stride, std::uint64_t count,
                       Store store) {
  using V = typename Op::value;
  constexpr std::uint64_t W = order::lanes<V>;
  static_assert(N <= W && short_strided<Op>);
  for (std::uint64_t line = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; line < count;
       line += std::uint64_t{gridDim.x} * blockDim.x) {
    typename Op::state lanes[N];
#pragma unroll
    for (unsigned q = 0; q < N; ++q) {
      lanes[q] = Op::template identity<V>();
      if (q < length) lanes[q] = accumulate_loaded<Op>(lanes[q], x, q * stride + line);
    }
    if constexpr (order::neutral_identity<Op>) {
      order::fold_live_lanes_unrolled<Op, W>(lanes, length);
    } else {
      order::fold_lanes_before_identity_unrolled<Op, W>(lanes, length);
    }
    store(line, order::finish<Op>(order::to_node<Op>(lanes[0], 0), length));
  }
}

/// Launches short_strided_pass over `count` lines x[t], x[t + stride], ..., x[t + (length - 1) * stride] and
/// returns true, when 1 <= length <= short_strided_rows and Op is one it takes; otherwise returns false, launching
/// nothing.
template <class Op, class Store>
bool launch_short_strided(const order::operands<Op>& x, std::uint64_t length, std::uint64_t stride, std::uint64_t count,
                          const Store& store, cudaStream_t stream) {
  if constexpr (!short_strided<Op>) {
    return false;
  } else {
    if (length == 0 || length > short_strided_rows || count == 0) return false;
    const std::uint64_t blocks = (count + batch_block - 1) / batch_block;
    const auto grid = static_cast<unsigned>(blocks < 65535 ? blocks : 65535);
    // Lines of 8 rows or fewer (the usual rank counts of a node) keep 8 lanes a thread.
    if (length <= 8) {
      short_strided_pass<Op, 8, Store><<<grid, batch_block, 0, stream>>>(x, length, stride, count, store);
    } else {
      short_strided_pass<Op, short_strided_rows, Store>
          <<<grid, batch_block, 0, stream>>>(x, length, stride, count, store);
    }
    check(cudaGetLastError(), "short strided pass launch");
    return true;
  }
}

}  // namespace detred::cuda::detail
