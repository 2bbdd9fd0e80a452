// SPDX-License-Identifier: BSD-3-Clause
// The pieces of one array in device memory (detred::cuda::cumsum_totals, cumsum_piece): a piece's leaf totals, and
// its outputs from the totals of every leaf before it, with the bits of the one-call scan of the whole array.
//
// The leaves are scanned as in the one-array scan (scan_leaf.cuh). The offsets come from the order's leaf tree:
// cumsum_piece lays out the tree of all m + k leaves (the m before the piece, its own k) in the workspace, level 0
// from the totals passed in and a first pass over the piece, each higher level from the one below (node i of level
// k joins nodes 2i and 2i + 1 of level k - 1, order::merge of the left and right halves, as the one-array scan's
// published roots do); then each leaf's block reads O_b off the tree (order::leaf_offset) and writes its outputs.
// No block waits for another, so the launches need no ticket and no flags. Cost: the piece is read twice and
// written once, plus the tree (two nodes per leaf, about 0.1 % of the data) and one launch per level.
#include <cstdint>
#include <string>
#include <tuple>

#include <cuda_runtime.h>

#include "core/scan_totals.hpp"
#include "cuda_check.hpp"
#include "scan_enqueue.hpp"
#include "scan_leaf.cuh"
#include "workspace_state.hpp"

namespace detred::cuda::detail {
namespace {

/// Leaf b of the piece x[0..n): its total, as a scan_total into totals[b], or (nodes not null) as the operator's
/// state into nodes[b].
template <class Op>
__global__ void __launch_bounds__(scan_shape<Op>::W, scan_shape<Op>::min_blocks)
    piece_leaf_totals(const typename Op::input* x, std::uint64_t n, scan_total<typename Op::value>* totals,
                      typename Op::state* nodes) {
  using shape = scan_shape<Op>;
  __shared__ leaf_shared<Op> sh;
  const unsigned j = threadIdx.x;
  const std::uint64_t b = blockIdx.x;
  const unsigned count = leaf_elements<Op>(n, b);
  load_leaf<Op>(reinterpret_cast<const typename shape::raw*>(x) + b * shape::L, count, sh, j);
  typename Op::state total;
  block_lane_scan<Op>(staged_lane_sum<Op>(sh, j, lane_live<Op>(count, j)), j, sh, total);
  if (j == 0) {
    if (nodes != nullptr) {
      nodes[b] = total;
    } else {
      totals[b] = scan_totals::total_of<Op, typename Op::value>(total);
    }
  }
}

/// Level 0 of the leaf tree, its first m nodes: the totals of the leaves before the piece.
template <class Op>
__global__ void piece_tree_before(const scan_total<typename Op::value>* before, std::uint64_t m,
                                  typename Op::state* nodes) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < m; i += stride) {
    nodes[i] = scan_totals::state_of<Op, typename Op::value>(before[i]);
  }
}

/// A level of the leaf tree, `count` nodes, from the level below it.
template <class Op>
__global__ void piece_tree_level(const typename Op::state* below, typename Op::state* level, std::uint64_t count) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count; i += stride) {
    level[i] = order::merge<Op>(below[2 * i], below[2 * i + 1]);
  }
}

/// The outputs of leaf b of the piece, leaf m + b of the array of `leaves`, from the tree's nodes.
template <class Op>
__global__ void __launch_bounds__(scan_shape<Op>::W, scan_shape<Op>::min_blocks)
    piece_leaf_outputs(const typename Op::input* x, std::uint64_t n, const typename Op::state* nodes,
                       std::uint64_t leaves, std::uint64_t m, typename Op::result* y) {
  using shape = scan_shape<Op>;
  using S = typename Op::state;
  __shared__ leaf_shared<Op> sh;
  const unsigned j = threadIdx.x;
  const std::uint64_t b = blockIdx.x;
  const std::uint64_t start = b * shape::L;
  const unsigned count = leaf_elements<Op>(n, b);
  if (j == 0) {
    sh.offset = order::leaf_offset<Op>(m + b, [&](int k, std::uint64_t i) { return nodes[node_index(leaves, k, i)]; });
  }
  load_leaf<Op>(reinterpret_cast<const typename shape::raw*>(x) + start, count, sh, j);  // its barrier shows O_b
  S total;
  const S e = block_lane_scan<Op>(staged_lane_sum<Op>(sh, j, lane_live<Op>(count, j)), j, sh, total);
  const S empty = Op::template identity<typename Op::value>();
  leaf_outputs<Op, false>(count, e, j, sh, y + start, start, false, empty, nullptr);
}

/// Blocks of a grid-stride launch over `count` items: enough to fill the GPU, no more.
unsigned stride_blocks(std::uint64_t count) {
  const std::uint64_t blocks = (count + 255) / 256;
  return static_cast<unsigned>(blocks < 4096 ? blocks : 4096);
}

/// One block a leaf: at most 2^31 - 1 blocks.
unsigned leaf_grid(std::uint64_t leaves, const char* what) {
  if (leaves > 0x7fffffffu) throw error(std::string(what) + ": " + std::to_string(leaves) + " leaves are too many");
  return static_cast<unsigned>(leaves);
}

}  // namespace

template <class Op>
void enqueue_scan_totals(const typename Op::input* x, std::uint64_t n, scan_total<typename Op::value>* totals,
                         stream_t stream) {
  const std::uint64_t leaves = order::leaf_count<typename Op::value>(n);
  if (leaves == 0) return;
  piece_leaf_totals<Op>
      <<<leaf_grid(leaves, "detred::cuda::cumsum_totals"), scan_shape<Op>::W, 0, stream>>>(x, n, totals, nullptr);
  check(cudaGetLastError(), "kernel launch (scan piece totals)");
}

template <class Op>
void enqueue_scan_piece(const typename Op::input* x, std::uint64_t n, const scan_total<typename Op::value>* before,
                        std::uint64_t m, typename Op::result* y, workspace& ws, stream_t stream) {
  using S = typename Op::state;
  constexpr unsigned W = scan_shape<Op>::W;
  const std::uint64_t own = order::leaf_count<typename Op::value>(n);
  if (own == 0) return;
  const unsigned grid = leaf_grid(own, "detred::cuda::cumsum_piece");
  const std::uint64_t leaves = m + own;
  auto& st = workspace_access::of(ws);
  st.reserve_partials(tree_nodes(leaves) * sizeof(S), stream);
  S* tree = static_cast<S*>(st.partials);
  if (m > 0) {
    piece_tree_before<Op><<<stride_blocks(m), 256, 0, stream>>>(before, m, tree);
    check(cudaGetLastError(), "kernel launch (scan piece tree)");
  }
  piece_leaf_totals<Op><<<grid, W, 0, stream>>>(x, n, nullptr, tree + m);
  check(cudaGetLastError(), "kernel launch (scan piece totals)");
  for (int k = 1; k < 64 && (leaves >> k) != 0; ++k) {
    piece_tree_level<Op><<<stride_blocks(leaves >> k), 256, 0, stream>>>(tree + node_index(leaves, k - 1, 0),
                                                                         tree + node_index(leaves, k, 0), leaves >> k);
    check(cudaGetLastError(), "kernel launch (scan piece tree)");
  }
  piece_leaf_outputs<Op><<<grid, W, 0, stream>>>(x, n, tree, leaves, m, y);
  check(cudaGetLastError(), "kernel launch (scan piece outputs)");
}

template <class... Ops>
struct scan_piece_instances {
  static constexpr std::tuple pointers{&enqueue_scan_totals<Ops>..., &enqueue_scan_piece<Ops>...};
};
template struct scan_piece_instances<
    order::scan_op<double, order::plain_sums>, order::scan_op<double, order::compensated_sums>,
    order::scan_op<float, order::plain_sums>, order::scan_op<float, order::compensated_sums>,
    order::scan_op<float16, order::plain_sums>, order::scan_op<float16, order::compensated_sums>,
    order::scan_op<bfloat16, order::plain_sums>, order::scan_op<bfloat16, order::compensated_sums>>;

}  // namespace detred::cuda::detail
