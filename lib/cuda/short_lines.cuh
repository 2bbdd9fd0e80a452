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

/// Adjacent lines a thread of short_strided_pass takes: as many as one load of at most 16 bytes reads from a row,
/// while its N x C lane states stay within 256 bytes (64 registers). One element a load read 2-byte elements at a
/// quarter of the memory's speed (H100, one row of bfloat16: 0.94 TB/s; float 1.9, double 2.6).
template <class Op, unsigned N>
constexpr unsigned short_strided_columns() {
  constexpr unsigned by_load = 16 / sizeof(order::raw_t<typename Op::input>);
  constexpr unsigned by_registers = 256 / (N * sizeof(typename Op::state));
  constexpr unsigned c = by_load < by_registers ? by_load : by_registers;
  return c < 1 ? 1 : c;
}

/// Strided lines of at most N <= W elements: a thread takes C adjacent lines, element q of each in lane q (a line
/// this short is one leaf, and element i of a leaf is lane i mod W), the lanes past the line's length holding the
/// identity. With `vectors` (the data and the stride on C-element boundaries), row q of the thread's lines is one
/// load; otherwise, and for the last lines when C does not divide their count, an element a load. Each line's lane
/// tree is fold_live_lanes' (a neutral identity) or fold_lanes_before_identity's, the same root as the full tree over
/// W lanes. A whole group's results go to store.group(first, results) (one store where the output allows), the lines
/// of a partial one to store(line, result) each. (batch.cu's
/// strided_pass spends a block of 512 threads and a lane tree through shared memory on every 64 lines whatever their
/// length: 11 G elements a second for columns of one row, H100.)
template <class Op, unsigned N, unsigned C, class Store>
__global__ void __launch_bounds__(batch_block)
    short_strided_pass(order::operands<Op> x, std::uint64_t length, std::uint64_t stride, std::uint64_t count,
                       bool vectors, Store store) {
  using V = typename Op::value;
  using In = typename Op::input;
  constexpr std::uint64_t W = order::lanes<V>;
  static_assert(N <= W && short_strided<Op>);
  const std::uint64_t groups = (count + C - 1) / C;
  for (std::uint64_t g = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; g < groups;
       g += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint64_t first = g * C;
    const bool whole = vectors && first + C <= count;
    typename Op::state lanes[C][N];
#pragma unroll
    for (unsigned q = 0; q < N; ++q) {
      order::raw_t<In> row[C];
      if (q < length && whole) load_row<In, C, true>(x.data[0] + q * stride + first, row);
#pragma unroll
      for (unsigned c = 0; c < C; ++c) {
        lanes[c][q] = Op::template identity<V>();
        if (q < length) {
          if (whole) {
            lanes[c][q] = Op::accumulate(lanes[c][q], row[c]);
          } else if (first + c < count) {
            lanes[c][q] = accumulate_loaded<Op>(lanes[c][q], x, q * stride + first + c);
          }
        }
      }
    }
    typename Op::result results[C];
#pragma unroll
    for (unsigned c = 0; c < C; ++c) {
      if (first + c < count) {
        if constexpr (order::neutral_identity<Op>) {
          order::fold_live_lanes_unrolled<Op, W>(lanes[c], length);
        } else {
          order::fold_lanes_before_identity_unrolled<Op, W>(lanes[c], length);
        }
        results[c] = order::finish<Op>(order::to_node<Op>(lanes[c][0], 0), length);
      }
    }
    if (first + C <= count) {
      store.group(first, results);
    } else {
#pragma unroll
      for (unsigned c = 0; c < C; ++c) {
        if (first + c < count) store(first + c, results[c]);
      }
    }
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
    const auto launch = [&]<unsigned N>() {
      constexpr unsigned C = short_strided_columns<Op, N>();
      constexpr std::uintptr_t row_bytes = C * sizeof(order::raw_t<typename Op::input>);
      const bool vectors = reinterpret_cast<std::uintptr_t>(x.data[0]) % row_bytes == 0 && stride % C == 0;
      const std::uint64_t threads = (count + C - 1) / C;
      const std::uint64_t blocks = (threads + batch_block - 1) / batch_block;
      const auto grid = static_cast<unsigned>(blocks < 65535 ? blocks : 65535);
      short_strided_pass<Op, N, C, Store><<<grid, batch_block, 0, stream>>>(x, length, stride, count, vectors, store);
    };
    // Lines of 8 rows or fewer (the usual rank counts of a node) keep 8 lanes a line.
    if (length <= 8) {
      launch.template operator()<8>();
    } else {
      launch.template operator()<short_strided_rows>();
    }
    check(cudaGetLastError(), "short strided pass launch");
    return true;
  }
}

}  // namespace detred::cuda::detail
