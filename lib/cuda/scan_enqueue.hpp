// SPDX-License-Identifier: BSD-3-Clause
// Enqueues the GPU scans (scan.cu) on a stream. Plain C++ interface, so that the API (scan_api.cpp) needs no CUDA
// compiler. Arguments are checked by the caller.
#pragma once

#include <cstdint>

#include "detred/config.hpp"
#include "detred/cuda.hpp"
#include "detred/scan.hpp"
#include "scan_ops.hpp"

namespace detred::cuda::detail {

/// D of the one-array scan's look-ahead (scan.cu's scan_leaves): the first pass over a leaf runs D tickets before its
/// outputs are written, so the totals and roots that an offset needs are there when it is formed. With spans of 32
/// leaves folded by warp 0 (before the 256-leaf spans), each group's last leaf published the group's root after waiting
/// for the first passes of the other 31, which run beside it, so D had to span the blocks resident at once (D = 1024:
/// 0.70 / 0.66x CUB's InclusiveSum for 2^28 floats / 2^27 doubles, tree, H100), and the second read of each leaf came
/// from DRAM (2 % of the reads hit L2). With the spans, H200, tree, against CUB in the same run: D = 1024 0.85 / 0.75,
/// D = 512 0.885 / 0.77, D = 256 0.725 / 0.65 (docs/scan.md). Arrays of fewer than 2D leaves keep one pass: the
/// prologue would be most of the work.
inline constexpr std::uint64_t scan_look_ahead = 512;

/// y[i] = output i of the scan of the device array x[0..n) with operator Op (order::scan_op of a floating-point
/// input and a mode's policy, or integer_scan_op): inclusive, or exclusive (y[0] the empty sum, y[i] the inclusive
/// output i - 1). y may equal x. One pass over the data: each leaf's block publishes its total and the roots of the
/// perfect subtrees it completes, and takes its offset from those of the leaves before it (order::leaf_offset).
/// Integer scans record their first output that does not fit in `overflow` (device memory; the caller initializes
/// it), others ignore it.
template <class Op>
void enqueue_scan(const typename Op::input* x, std::uint64_t n, typename Op::result* y, bool exclusive, workspace& ws,
                  overflow_record* overflow, stream_t stream);

/// Pieces of one array (detred::cuda::cumsum_totals): totals[b] = the total of leaf b of the device array x[0..n),
/// for the order::leaf_count(n) leaves (device memory).
template <class Op>
void enqueue_scan_totals(const typename Op::input* x, std::uint64_t n, scan_total<typename Op::value>* totals,
                         stream_t stream);

/// detred::cuda::cumsum_piece: y = the inclusive outputs at the positions of the piece x[0..n) of a larger array,
/// whose m leaves before the piece have the totals before[0..m) (device memory). y may equal x.
template <class Op>
void enqueue_scan_piece(const typename Op::input* x, std::uint64_t n, const scan_total<typename Op::value>* before,
                        std::uint64_t m, typename Op::result* y, workspace& ws, stream_t stream);

/// The lines of a batch of scans: segments (offsets in device memory, the same positions in x and y), or runs of
/// `length` elements, line k at x[k * stride] and y[k * out_stride] (the rows of a matrix).
struct scan_lines {
  const std::uint64_t* offsets = nullptr;
  std::uint64_t stride = 0;
  std::uint64_t out_stride = 0;
  std::uint64_t length = 0;

  DETRED_HOST_DEVICE std::uint64_t start(std::uint64_t k) const { return offsets != nullptr ? offsets[k] : k * stride; }
  DETRED_HOST_DEVICE std::uint64_t out_start(std::uint64_t k) const {
    return offsets != nullptr ? offsets[k] : k * out_stride;
  }
  DETRED_HOST_DEVICE std::uint64_t size(std::uint64_t k) const {
    return offsets != nullptr ? offsets[k + 1] - offsets[k] : length;
  }
};

/// The scan of each of `count` lines of the device array x, into y; outputs outside every line are left as they
/// are. y may equal x. Each line's outputs are those of enqueue_scan on that line alone. `extent`: the elements x
/// spans (a bound on the number of long lines). Short lines (at most 32 lanes, one leaf) take a warp's lanes, many
/// to a warp; longer ones a block each, walking their leaves in order.
template <class Op>
void enqueue_line_scans(const typename Op::input* x, const scan_lines& lines, std::uint64_t count, std::uint64_t extent,
                        typename Op::result* y, bool exclusive, workspace& ws, overflow_record* overflow,
                        stream_t stream);

/// The scans of `count` strided lines of x (line t's element i at x[t + i * stride]), each of `length` elements,
/// into y packed with line t's element i at y[t + i * count]; y may equal x when stride == count. Floating point
/// only. Runs through a contiguous copy in the workspace's staging buffer.
template <class Op>
void enqueue_strided_line_scans(const typename Op::input* x, std::uint64_t length, std::uint64_t stride,
                                std::uint64_t count, typename Op::result* y, workspace& ws, stream_t stream);

}  // namespace detred::cuda::detail
