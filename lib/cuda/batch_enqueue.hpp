// SPDX-License-Identifier: BSD-3-Clause
// Enqueues batched reductions of device memory: many lines, each reduced in its own canonical order (so a line's
// bits never depend on the rest of the batch). Plain C++ interface; the kernels are in batch.cu. Each call takes
// its scratch from the workspace's partial buffer (grown in stream order when too small), so repeated calls
// allocate nothing.
#pragma once

#include <cstdint>

#include "detred/cuda.hpp"
#include "detred/order.hpp"

namespace detred::cuda::detail {

/// Lines in one piece: line k is x[offsets[k] .. offsets[k+1]) with offsets (device memory), x[k * stride ..
/// k * stride + length) without.
struct device_lines {
  const std::uint64_t* offsets = nullptr;
  std::uint64_t stride = 0;
  std::uint64_t length = 0;
};

/// results[k] (device memory) = Op over line k, k < count, of device operands holding `extent` elements each.
template <class Op>
void enqueue_lines(const order::operands<Op>& x, std::uint64_t extent, const device_lines& lines, std::uint64_t count,
                   typename Op::result* results, workspace& ws, stream_t stream);

/// results[t] = Op over x[t], x[t + stride], ..., x[t + (length - 1) * stride], t < count (columns of a row-major
/// matrix). Not for operators that locate an element.
template <class Op>
void enqueue_strided_lines(const order::operands<Op>& x, std::uint64_t length, std::uint64_t stride,
                           std::uint64_t count, typename Op::result* results, workspace& ws, stream_t stream);

/// results[b] = Op over the values whose key is b, in index order, b < bins: a stable radix sort by key, then the
/// groups as segments. Enqueued only; the first key outside [0, bins) is recorded in the workspace's pending errors
/// (pending_errors.hpp), the results being then meaningless. Key: uint32 or int64 (narrowed to uint32 first).
template <class Op, class Key>
void reduce_by_key(const typename Op::input* values, const Key* keys, std::uint64_t n, std::uint64_t bins,
                   typename Op::result* results, workspace& ws, stream_t stream);

}  // namespace detred::cuda::detail
