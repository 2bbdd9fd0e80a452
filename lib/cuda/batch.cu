// SPDX-License-Identifier: BSD-3-Clause
// The batched kernels. Every line (segment, matrix row or column, group of a key) is reduced in its own canonical
// order, as if it were an array of its own; threads, warps and blocks only decide who computes which subtree.
//
// Contiguous lines, in two launches or four:
//   lines_pass   a group of G threads per line (G = 8 for a sum of floats: four lines per warp). A line of at most
//                one leaf is computed whole and finalized. A longer one is listed, with a range of work items (runs
//                of item_leaves leaves) reserved for it. For the tree-mode sums (half_row_lines), each warp takes tiles
//                of 32 lines, their offsets read in one load; a tile of lines of at most half a row is reduced two
//                lines a step (a half warp each), eight steps' loads in flight; other tiles go to the groups.
//   items_pass   one warp per item: the root of its run of leaves (an aligned, perfect subtree of the line's leaf
//                tree, the last one ragged); a line of one item is finalized here. A line of several items is
//                folded (runs of 32 item roots across the warp, then the left-perfect tree over the runs, then
//                finalize) by the warp that stores its last root, when the lines are at most a leaf on average;
//                otherwise list_items first maps items to lines, and fold_items folds the lines afterwards (a warp
//                per line, or a block per line when the lines average 32 items or more).
// The list's order depends on which group got there first; that decides only where a line's items are stored.
// Rows of a matrix longer than a group takes, of at most batch_warps items each, skip all of that: uniform_rows
// computes the items as items_pass does and folds each row in shared memory, in one launch.
//
// Strided lines (the columns of a row-major matrix): a block takes one leaf of 32 adjacent lines, one line per
// thread of each warp, so every load of a warp reads 32 adjacent elements of one row. The warps split the lanes of
// the leaf; the lane tree runs in registers for the levels within a thread and through shared memory for the levels
// between warps. A fold kernel takes each line's leaf roots through its leaf tree. Lines of at most 32 elements take
// short_lines.cuh's pass instead: a thread a line.
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>

#include <cuda_runtime.h>
#include <cub/device/device_radix_sort.cuh>

#include "batch_enqueue.hpp"
#include "core/operators.hpp"
#include "cuda_check.hpp"
#include "exact_enqueue.hpp"
#include "leaf_pass.cuh"
#include "line_view.cuh"
#include "pending_errors.hpp"
#include "resident_blocks.cuh"
#include "row_pass.cuh"
#include "short_lines.cuh"
#include "workspace_state.hpp"

namespace detred::cuda::detail {
namespace {

/// A long line, the range of items reserved for it, and how many of its items' roots are stored (items_pass).
struct long_line {
  std::uint64_t line;
  std::uint64_t first_item;
  std::uint64_t items;
  unsigned long long stored;
};

/// The long lines listed and their items, in one word: lines above bit item_bits, items below. One atomicAdd
/// reserves a line's slot and its items together, so the list is in the order of its items, and items_pass finds an
/// item's line by searching it (no map from items to lines, no launch to build one).
struct work_counts {
  unsigned long long lines_and_items;
};
constexpr int item_bits = 40;
constexpr std::uint64_t item_mask = (std::uint64_t{1} << item_bits) - 1;

/// Whether C adjacent elements of Op's single operand can be read by one load (8 or 16 bytes) when aligned.
template <class Op, unsigned C>
inline constexpr bool whole_loads = Op::arity == 1 && C > 1 &&
                                    (C * sizeof(typename Op::input) == 16 || C * sizeof(typename Op::input) == 8);

/// C adjacent lane states take the elements x[at .. at + valid), valid <= C: one load_row of 8 or 16 bytes when
/// `whole` (the caller checked alignment) and all C are there, one element each otherwise. Index: the caller's index
/// type (a 32-bit offset within a leaf keeps the address arithmetic narrow).
template <class Op, unsigned C, class Index>
__device__ __forceinline__ void accumulate_chunk(typename Op::state (&acc)[C], const order::operands<Op>& x, Index at,
                                                 bool whole, unsigned valid) {
  using I = typename Op::input;
  if constexpr (whole_loads<Op, C>) {
    if (whole && valid == C) {
      order::raw_t<I> v[C];
      load_row<I, C, true>(x.data[0] + at, v);
#pragma unroll
      for (unsigned q = 0; q < C; ++q) acc[q] = Op::accumulate(acc[q], v[q]);
      return;
    }
  }
#pragma unroll
  for (unsigned q = 0; q < C; ++q) {
    if (q < valid) acc[q] = accumulate_loaded<Op>(acc[q], x, at + q);
  }
}

/// Threads per line in lines_pass: each holds k = W / G lanes, as many as fit in 64 bytes of lane states (at least
/// the warp kernel's 16 bytes of lane values), so that short lines keep few threads idle.
template <class Op>
inline constexpr unsigned group_threads = [] {
  using V = typename Op::value;
  unsigned k = 1;
  while (2 * k * sizeof(typename Op::state) <= 64) k *= 2;
  if (k < lanes_per_thread<V>) k = lanes_per_thread<V>;
  return static_cast<unsigned>(order::lanes<V> / k);
}();

/// Lanes of a thread that lie side by side in memory in group_leaf: 16 bytes of elements (4 floats, 2 doubles),
/// one load when aligned.
template <class Op, unsigned G>
inline constexpr unsigned chunk_lanes = [] {
  constexpr unsigned k = order::lanes<typename Op::value> / G;
  constexpr unsigned c = 16 / sizeof(typename Op::input);
  return std::is_same_v<typename Op::input, typename Op::value> && c < k ? c : (c < k ? 1 : k);
}();

/// The root of the lane tree of one leaf x[0..count), count <= L, computed by a group of G threads (t of G) whose
/// lanes of the warp are `mask`. Thread t holds k = W / G lanes in chunks of C adjacent ones: lane
/// j = C * (t + G * c) + q is slot c * C + q. So a row's loads are one 16-byte load per chunk, contiguous across
/// the group, and the halving tree splits in three: levels h >= C * G pair chunks of one thread, levels
/// C <= h < C * G are shuffles within the group (on chunk 0), levels h < C pair lanes of chunk 0 of thread 0.
/// Valid in t == 0.
template <class Op, unsigned G>
__device__ typename Op::state group_leaf(const order::operands<Op>& leaf, std::uint32_t count, unsigned t,
                                         unsigned mask) {
  using V = typename Op::value;
  using S = typename Op::state;
  constexpr std::uint32_t W = order::lanes<V>;
  constexpr unsigned k = W / G;
  constexpr unsigned C = chunk_lanes<Op, G>;
  constexpr unsigned chunks = k / C;
  S acc[chunks][C];
#pragma unroll
  for (unsigned c = 0; c < chunks; ++c) {
#pragma unroll
    for (unsigned q = 0; q < C; ++q) acc[c][q] = Op::template identity<V>();
  }
  const order::operands<Op> mine = leaf.advanced(C * t);
  const std::uint32_t full_rows = count / W;
  bool whole = true;
  for (unsigned a = 0; a < Op::arity; ++a) whole = whole && reinterpret_cast<std::uintptr_t>(mine.data[a]) % 16 == 0;
  for (std::uint32_t r = 0; r < full_rows; ++r) {
#pragma unroll
    for (unsigned c = 0; c < chunks; ++c) accumulate_chunk<Op, C>(acc[c], mine, r * W + C * G * c, whole, C);
  }
  // The ragged last row: a chunk wholly inside it is one load too (all of a line shorter than a row). Addresses
  // are the row's start plus a constant per chunk, and chunks past the end cost one comparison: a line of one row
  // is most of what a batch of short lines runs.
  const std::uint32_t tail = count - full_rows * W;
  const order::operands<Op> last_row = mine.advanced(full_rows * W);
#pragma unroll
  for (unsigned c = 0; c < chunks; ++c) {
    const std::uint32_t first = C * (t + G * c);
    if (first + C <= tail) {
      accumulate_chunk<Op, C>(acc[c], last_row, C * G * c, whole, C);
    } else if (first < tail) {
      accumulate_chunk<Op, C>(acc[c], last_row, C * G * c, whole, tail - first);
    }
  }
#pragma unroll
  for (unsigned h = chunks / 2; h >= 1; h /= 2) {
#pragma unroll
    for (unsigned c = 0; c < h; ++c) {
#pragma unroll
      for (unsigned q = 0; q < C; ++q) acc[c][q] = Op::combine(acc[c][q], acc[c + h][q]);
    }
  }
#pragma unroll
  for (unsigned h = G / 2; h >= 1; h /= 2) {
#pragma unroll
    for (unsigned q = 0; q < C; ++q) {
      acc[0][q] = Op::combine(
          acc[0][q], move_words(acc[0][q], [mask, h](unsigned word) { return __shfl_down_sync(mask, word, h, G); }));
    }
  }
  order::fold_lanes<Op>(acc[0], C);
  return acc[0][0];
}

/// The node of one leaf computed by a group; valid in t == 0. Operators that locate an element search the leaf
/// together, G consecutive elements a step.
template <class Op, unsigned G>
__device__ order::node_of<Op> group_leaf_node(const order::operands<Op>& leaf, std::uint32_t count, unsigned t,
                                              unsigned mask) {
  const typename Op::state lane_root = group_leaf<Op, G>(leaf, count, t, mask);
  if constexpr (order::locates_element<Op>) {
    // Every thread of the group searches, so every thread needs the root.
    const typename Op::state root =
        move_words(lane_root, [mask](unsigned word) { return __shfl_sync(mask, word, 0, G); });
    return order::to_node<Op>(root, leaf.first + first_match_in_leaf<Op, G>(leaf, count, root, t, mask));
  } else {
    return order::to_node<Op>(lane_root, 0);
  }
}

/// What a group of G threads does with line k (start, n): a line of at most `limit` elements (group_limit: at most
/// a leaf) is reduced and finalized, a longer one listed, with a range of work items reserved for it.
template <class Op>
__device__ __forceinline__ void group_line(const order::operands<Op>& x, std::uint64_t k, std::uint64_t start,
                                           std::uint64_t n, std::uint64_t limit, unsigned t, unsigned mask,
                                           typename Op::result* __restrict__ results, work_counts* __restrict__ work,
                                           long_line* __restrict__ long_lines) {
  using V = typename Op::value;
  constexpr unsigned G = group_threads<Op>;
  if (n <= limit) {
    const order::node_of<Op> root =
        n == 0 ? empty<Op>()
               : group_leaf_node<Op, G>(line_operands<Op>(x, start), static_cast<std::uint32_t>(n), t, mask);
    if (t == 0) results[k] = order::finish<Op>(root, n);
  } else if (t == 0) {
    const std::uint64_t leaves = order::leaf_count<V>(n);
    const std::uint64_t items = (leaves + item_leaves - 1) / item_leaves;
    const unsigned long long before =
        atomicAdd(&work->lines_and_items, (1ull << item_bits) + static_cast<unsigned long long>(items));
    long_lines[before >> item_bits] = {k, before & item_mask, items, 0};
  }
}

/// Threads per line in a tile of half-row lines: 16 bytes of elements each, so a warp's load reads two lines.
constexpr unsigned half_row_threads = warp_size / 2;

/// True for operators whose tiles of lines of at most half a row take the half-row path: a neutral identity (so the
/// lane tree over the first W / 2 lanes is the whole tree: its top level only joins identity lanes) and lane states
/// that are the lane values themselves (the tree-mode sum, asum and dot).
template <class Op>
inline constexpr bool half_row_lines =
    order::neutral_identity<Op> && !order::locates_element<Op> &&
    std::is_same_v<typename Op::state, typename Op::value> && std::is_same_v<typename Op::input, typename Op::value>;

/// Steps of two lines whose loads are in flight together in the half-row path: 16 bytes a thread and operand each.
template <class Op>
inline constexpr unsigned half_row_steps = Op::arity == 1 ? 8 : 4;

/// A tile of 32 lines of at most W / 2 elements each (an operator of half_row_lines): lane i holds line i's start
/// and size. Two lines a step, a half warp each (thread t holds lanes [t k, t k + k), one 16-byte load per operand
/// when the line is aligned), half_row_steps steps loaded before any is reduced. Lane i ends with line i's result.
template <class Op>
__device__ __forceinline__ typename Op::result half_row_tile(const order::operands<Op>& x, std::uint64_t start,
                                                             std::uint64_t n, unsigned lane) {
  using V = typename Op::value;
  using S = typename Op::state;
  constexpr unsigned k = lanes_per_thread<V>;
  constexpr unsigned U = half_row_steps<Op>;
  constexpr unsigned steps = warp_size / 2;
  const unsigned half = lane / half_row_threads;
  const unsigned first_lane = lane % half_row_threads * k;
  S mine = Op::template identity<V>();
#pragma unroll 1
  for (unsigned s0 = 0; s0 < steps; s0 += U) {
    row_elements<Op, k> rows[U];
    std::uint32_t sizes[U];
#pragma unroll
    for (unsigned u = 0; u < U; ++u) {
      const unsigned i = 2 * (s0 + u) + half;
      const std::uint64_t line_start = __shfl_sync(full_mask, start, i);
      sizes[u] = static_cast<std::uint32_t>(__shfl_sync(full_mask, n, i));
      const order::operands<Op> line = x.advanced(line_start);
      if (first_lane + k <= sizes[u] && rows_aligned<Op>(line)) {
        load_rows<Op, true, k>(rows[u], line, first_lane);
      } else {
#pragma unroll
        for (unsigned a = 0; a < Op::arity; ++a) {
#pragma unroll
          for (unsigned q = 0; q < k; ++q) {
            rows[u].v[a][q] = first_lane + q < sizes[u] ? load_element<Op>(line, a, first_lane + q)
                                                        : order::raw_t<typename Op::input>{};
          }
        }
      }
    }
#pragma unroll
    for (unsigned u = 0; u < U; ++u) {
      S acc[k];
#pragma unroll
      for (unsigned q = 0; q < k; ++q) {
        acc[q] = Op::template identity<V>();
        if (first_lane + q < sizes[u]) {
          if constexpr (Op::arity == 1) {
            acc[q] = Op::accumulate(acc[q], rows[u].v[0][q]);
          } else {
            acc[q] = Op::accumulate(acc[q], rows[u].v[0][q], rows[u].v[1][q]);
          }
        }
      }
      const S root = warp_lane_tree<Op, k, half_row_threads>(acc, lane);
      // Lines 2 (s0 + u) and 2 (s0 + u) + 1 sit in lanes 0 and 16; each goes to the lane of its index.
      const S got = broadcast(root, lane % 2 * half_row_threads);
      if (lane / 2 == s0 + u) mine = got;
    }
  }
  return order::finish<Op>(n == 0 ? empty<Op>() : order::to_node<Op>(mine, 0), n);
}

/// Lines k, k + stride, ... below `end`, a group of G threads (t of G, lanes `mask`) each: the group reads the next
/// line's place while it reduces the current one (a short line is otherwise two dependent memory round trips).
template <class Op>
__device__ __forceinline__ void group_lines(const order::operands<Op>& x, const line_view& lines, std::uint64_t k,
                                            std::uint64_t end, std::uint64_t stride, std::uint64_t limit, unsigned t,
                                            unsigned mask, typename Op::result* __restrict__ results,
                                            work_counts* __restrict__ work, long_line* __restrict__ long_lines) {
  std::uint64_t start = 0;
  std::uint64_t n = 0;
  if (k < end) lines.place(k, start, n);
  for (; k < end; k += stride) {
    std::uint64_t next_start = 0;
    std::uint64_t next_n = 0;
    if (k + stride < end) lines.place(k + stride, next_start, next_n);
    group_line<Op>(x, k, start, n, limit, t, mask, results, work, long_lines);
    start = next_start;
    n = next_n;
  }
}

/// Lines a warp takes at a time in the tiled pass: lane i reads the place of line i (one coalesced load).
constexpr unsigned tile_lines = warp_size;

/// Lines a block of lines_pass takes at a time: a tile per warp (half_row_lines operators), else a line per group.
template <class Op>
inline constexpr std::uint64_t lines_per_block =
    half_row_lines<Op> ? std::uint64_t{tile_lines} * batch_warps : batch_block / group_threads<Op>;

/// Operators of half_row_lines: each warp takes tiles of 32 consecutive lines. A tile of lines of at most W / 2
/// elements takes the half-row path; any other tile goes to the warp's groups, every groups_per_warp-th line of it
/// to each. Other operators: the groups take every line in turn across the grid, as the tiles' cost (registers
/// for a tile's places, 48 -> 55-57 a thread, one block less per SM) would buy them nothing.
template <class Op>
__global__ void __launch_bounds__(batch_block)
    lines_pass(order::operands<Op> x, line_view lines, std::uint64_t count, std::uint64_t limit,
               typename Op::result* __restrict__ results, work_counts* __restrict__ work,
               long_line* __restrict__ long_lines) {
  using V = typename Op::value;
  constexpr unsigned G = group_threads<Op>;
  constexpr unsigned groups_per_warp = warp_size / G;
  const unsigned lane = threadIdx.x % warp_size;
  const unsigned t = lane % G;
  const unsigned mask = G == warp_size ? full_mask : ((1u << G) - 1) << (lane / G * G);
  if constexpr (!half_row_lines<Op>) {
    constexpr std::uint64_t groups_per_block = batch_block / G;
    group_lines<Op>(x, lines, std::uint64_t{blockIdx.x} * groups_per_block + threadIdx.x / G, count,
                    std::uint64_t{gridDim.x} * groups_per_block, limit, t, mask, results, work, long_lines);
  } else {
    const std::uint64_t tiles = (count + tile_lines - 1) / tile_lines;
    const std::uint64_t warps = std::uint64_t{gridDim.x} * batch_warps;
    for (std::uint64_t tile = std::uint64_t{blockIdx.x} * batch_warps + threadIdx.x / warp_size; tile < tiles;
         tile += warps) {
      const std::uint64_t base = tile * tile_lines;
      std::uint64_t start = 0;
      std::uint64_t n = 0;
      if (base + lane < count) lines.place(base + lane, start, n);
      // The next tile's offsets on their way to L1 while this one is reduced (a hint: it holds no registers).
      const std::uint64_t ahead = base + warps * tile_lines + lane;
      if (lines.offsets != nullptr && ahead <= count)
        asm volatile("prefetch.global.L1 [%0];" ::"l"(lines.offsets + ahead));
      if (__all_sync(full_mask, n <= order::lanes<V> / 2)) {
        const typename Op::result r = half_row_tile<Op>(x, start, n, lane);
        if (base + lane < count) results[base + lane] = r;
      } else {
        const std::uint64_t end = base + tile_lines < count ? base + tile_lines : count;
        group_lines<Op>(x, lines, base + lane / G, end, groups_per_warp, limit, t, mask, results, work, long_lines);
      }
    }
  }
}

/// The slot of the long line that item i belongs to: the last of the `listed` lines whose first item is at most i
/// (the list is in item order), found by the warp with 32 probes a round.
__device__ __forceinline__ std::uint64_t line_of_item(const long_line* long_lines, std::uint64_t listed,
                                                      std::uint64_t i, unsigned lane) {
  std::uint64_t low = 0;  // long_lines[low].first_item <= i, and i < long_lines[high].first_item if high < listed
  std::uint64_t high = listed;
  while (high - low > 1) {
    const std::uint64_t step = (high - low + warp_size - 1) / warp_size;
    const std::uint64_t probe = low + lane * step;
    const unsigned at_most = __ballot_sync(full_mask, probe < high && long_lines[probe].first_item <= i);
    low += static_cast<std::uint64_t>(31 - __clz(static_cast<int>(at_most))) * step;  // lane 0's probe always holds
    high = low + step < high ? low + step : high;
  }
  return low;
}

/// A node stored by another warp of the running kernel, read from L2 (the L1 of this SM may hold an older copy).
template <class N>
__device__ __forceinline__ N load_from_l2(const N* p) {
  static_assert(sizeof(N) % 4 == 0, "nodes are whole 32-bit words");
  unsigned words[sizeof(N) / 4];
#pragma unroll
  for (unsigned w = 0; w < sizeof(N) / 4; ++w) words[w] = __ldcg(reinterpret_cast<const unsigned*>(p) + w);
  N v;
  memcpy(&v, words, sizeof v);
  return v;
}

/// A line of several items, its item roots stored at nodes[first_item ..]: runs of 32 roots folded across the warp
/// (aligned perfect subtrees of 32 * item_leaves leaves, the last one ragged), then the left-perfect tree over the
/// runs; the result from lane 0.
template <class Op>
__device__ void fold_line(const long_line& l, std::uint64_t n, std::uint64_t leaves, const order::node_of<Op>* nodes,
                          typename Op::result* __restrict__ results, unsigned lane) {
  using N = order::node_of<Op>;
  order::subtree_stack<Op> tree;
  const auto run_of = [&](std::uint64_t c) {
    return static_cast<unsigned>(l.items - c < warp_size ? l.items - c : warp_size);
  };
  // Each lane loads its root of the next run before the warp folds this one, so the loads overlap the folds.
  N next = lane < run_of(0) ? load_from_l2(nodes + l.first_item + lane) : empty<Op>();
  for (std::uint64_t c = 0; c < l.items; c += warp_size) {
    const unsigned in_run = run_of(c);
    const N mine = next;
    if (c + warp_size < l.items) {
      next = lane < run_of(c + warp_size) ? load_from_l2(nodes + l.first_item + c + warp_size + lane) : empty<Op>();
    }
    const N run = warp_fold<Op>(mine, in_run, lane);
    const std::uint64_t run_leaves = leaves - c * item_leaves < std::uint64_t{warp_size} * item_leaves
                                         ? leaves - c * item_leaves
                                         : std::uint64_t{warp_size} * item_leaves;
    if (lane == 0) tree.push(run, run_leaves);
  }
  if (lane == 0) results[l.line] = order::finish<Op>(tree.root(), n);
}

/// item_line[i] = the long-line slot that item i belongs to; a block per long line.
__global__ void __launch_bounds__(batch_block)
    list_items(const work_counts* __restrict__ work, const long_line* __restrict__ long_lines,
               std::uint32_t* __restrict__ item_line) {
  const std::uint64_t listed = work->lines_and_items >> item_bits;
  for (std::uint64_t e = blockIdx.x; e < listed; e += gridDim.x) {
    const long_line l = long_lines[e];
    for (std::uint64_t j = threadIdx.x; j < l.items; j += blockDim.x) {
      item_line[l.first_item + j] = static_cast<std::uint32_t>(e);
    }
  }
}

/// One warp per item of the listed long lines: the root of its run of leaves (an aligned, perfect subtree of the
/// line's leaf tree, the last one ragged). A line of one item is finalized here; otherwise the root is stored for
/// the line's fold. Two ways to find an item's line and fold a line, chosen per call by enqueue_lines_in:
///   Searching: the item's line by searching the list; the warp that stores a line's last root folds the line (the
///     other roots are in memory by then: each warp fences its store before it counts it). One launch.
///   Otherwise: the line from item_line (list_items), and fold_items folds the lines after this pass: no search, no
///     fence and count per item, and the folds of lines of many items spread over warps of their own.
template <class Op, bool Searching>
__global__ void __launch_bounds__(batch_block)
    items_pass(order::operands<Op> x, line_view lines, const work_counts* __restrict__ work,
               long_line* __restrict__ long_lines, const std::uint32_t* __restrict__ item_line,
               order::node_of<Op>* __restrict__ nodes, typename Op::result* __restrict__ results) {
  using V = typename Op::value;
  const unsigned lane = threadIdx.x % warp_size;
  const std::uint64_t warps = std::uint64_t{gridDim.x} * batch_warps;
  const unsigned long long counts = work->lines_and_items;
  const std::uint64_t listed = counts >> item_bits;
  const std::uint64_t total = counts & item_mask;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * batch_warps + threadIdx.x / warp_size; i < total; i += warps) {
    const std::uint64_t slot = Searching ? line_of_item(long_lines, listed, i, lane) : item_line[i];
    const long_line l{long_lines[slot].line, long_lines[slot].first_item, long_lines[slot].items, 0};
    const std::uint64_t n = lines.size(l.line);
    const std::uint64_t leaves = order::leaf_count<V>(n);
    const std::uint64_t first_leaf = (i - l.first_item) * item_leaves;
    const auto run = static_cast<unsigned>(leaves - first_leaf < item_leaves ? leaves - first_leaf : item_leaves);
    const order::node_of<Op> root = run_root<Op>(line_operands<Op>(x, lines.start(l.line)), n, first_leaf, run, lane);
    if (l.items == 1) {
      if (lane == 0) results[l.line] = order::finish<Op>(root, n);
      continue;
    }
    if constexpr (!Searching) {
      if (lane == 0) nodes[i] = root;
    } else {
      unsigned long long stored_before = 0;
      if (lane == 0) {
        nodes[i] = root;
        __threadfence();
        stored_before = atomicAdd(&long_lines[slot].stored, 1ull);
      }
      if (__shfl_sync(full_mask, stored_before, 0) + 1 == l.items) {
        __threadfence();
        fold_line<Op>(l, n, leaves, nodes, results, lane);
      }
    }
  }
}

/// One warp per listed line of several items, after items_pass<Op, false>.
template <class Op>
__global__ void __launch_bounds__(batch_block)
    fold_items(line_view lines, const work_counts* __restrict__ work, const long_line* __restrict__ long_lines,
               const order::node_of<Op>* __restrict__ nodes, typename Op::result* __restrict__ results) {
  using V = typename Op::value;
  const unsigned lane = threadIdx.x % warp_size;
  const std::uint64_t warps = std::uint64_t{gridDim.x} * batch_warps;
  const std::uint64_t listed = work->lines_and_items >> item_bits;
  for (std::uint64_t e = std::uint64_t{blockIdx.x} * batch_warps + threadIdx.x / warp_size; e < listed; e += warps) {
    const long_line l = long_lines[e];
    if (l.items > 1) {
      const std::uint64_t n = lines.size(l.line);
      fold_line<Op>(l, n, order::leaf_count<V>(n), nodes, results, lane);
    }
  }
}

/// Lines per thread of the strided kernel: 8 bytes of adjacent elements of a row (2 floats, 4 16-bit floats), at
/// least two lines (2 doubles, 16 bytes); one for wide states (their registers would spill). Two float lines a
/// thread keep the float sum at 32 registers, four blocks of 512 threads per SM; four lines (16-byte loads) took 63
/// registers and two blocks, and the column sums waited on memory with half the warps (0.82x cublasSgemv against
/// 0.85-0.88x, H200, docs/benchmarks.md).
template <class Op>
inline constexpr unsigned strided_columns = [] {
  constexpr unsigned size = sizeof(typename Op::input);
  if constexpr (sizeof(typename Op::state) > 16 || Op::arity != 1) return 1u;
  return 8 / size > 2 ? 8 / size : 2u;
}();

/// Warps per block of the strided kernel: 16 when each thread takes several lines (W / 16 lanes of each: 512-thread
/// blocks, four to an SM when the float sum's 32 registers allow it), else 32 unless the states
/// exchanged between warps would pass 32 KiB of shared memory.
template <class Op>
inline constexpr unsigned strided_warps = strided_columns<Op> == 1 &&
                                                  sizeof(typename Op::state) * 32 * 32 <= (32u << 10)
                                              ? 32
                                              : 16;

/// The rows of one full leaf of the thread's C lines, each a whole load: p is the first row of slot 0 (lane w), the
/// slots `slot_step` elements apart, the rows `row_step`. The general loop of strided_pass computes a 64-bit index
/// and tests it against the leaf's end for every load (11 instructions an element, Nsight Compute); here a row's k
/// loads are a pointer plus a multiple of slot_step, all issued before their additions. H200, column sums of
/// 2^14 x 2^14 floats: 0.854-0.867x cublasSgemv -> 0.995-1.007x (docs/cuda.md).
template <class Op, unsigned k, unsigned C, unsigned rows>
__device__ __forceinline__ void accumulate_full_leaf(typename Op::state (&acc)[k][C],
                                                     const typename Op::input* __restrict__ p, std::uint64_t slot_step,
                                                     std::uint64_t row_step) {
  using I = typename Op::input;
#pragma unroll 2
  for (unsigned r = 0; r < rows; ++r) {
    order::raw_t<I> v[k][C];
#pragma unroll
    for (unsigned s = 0; s < k; ++s) load_row<I, C, true>(p + s * slot_step, v[s]);
#pragma unroll
    for (unsigned s = 0; s < k; ++s) {
#pragma unroll
      for (unsigned q = 0; q < C; ++q) acc[s][q] = Op::accumulate(acc[s][q], v[s][q]);
    }
    p += row_step;
  }
}

/// One leaf (blockIdx.y, and every gridDim.y-th after it) of 32 * C adjacent strided lines (blockIdx.x): thread c of
/// each warp takes lines [c * C, c * C + C) of the tile, warp w lanes j = w + warps * s of the leaf. A line of one
/// leaf is finalized here; otherwise the leaf's root goes to nodes[line * leaves + leaf] for fold_strided.
template <class Op>
__global__ void __launch_bounds__(strided_warps<Op>* warp_size)
    strided_pass(order::operands<Op> x, std::uint64_t length, std::uint64_t stride, std::uint64_t count,
                 order::node_of<Op>* __restrict__ nodes, typename Op::result* __restrict__ results) {
  using V = typename Op::value;
  using S = typename Op::state;
  constexpr unsigned warps = strided_warps<Op>;
  constexpr unsigned C = strided_columns<Op>;
  constexpr std::uint64_t W = order::lanes<V>;
  constexpr std::uint64_t L = order::leaf_size<V>;
  constexpr unsigned k = static_cast<unsigned>(W / warps);  // lane j = w + warps * s is slot s of warp w
  static_assert(!order::locates_element<Op>, "strided lines are not located");
  __shared__ S exchange[warps][warp_size * C];
  const unsigned c = threadIdx.x % warp_size;
  const unsigned w = threadIdx.x / warp_size;
  const std::uint64_t first_line = (std::uint64_t{blockIdx.x} * warp_size + c) * C;
  // Whole loads (C elements, 8 or 16 bytes) when the thread's C lines are all there and every row of them is aligned.
  const unsigned valid =
      first_line < count ? (count - first_line < C ? static_cast<unsigned>(count - first_line) : C) : 0;
  constexpr std::uintptr_t chunk_bytes = C * sizeof(typename Op::input);
  const bool whole =
      reinterpret_cast<std::uintptr_t>(x.data[0] + (first_line < count ? first_line : 0)) % chunk_bytes == 0 &&
      (stride * sizeof(typename Op::input)) % chunk_bytes == 0;
  const std::uint64_t leaves = order::leaf_count<V>(length);
  for (std::uint64_t f = blockIdx.y; f < leaves; f += gridDim.y) {
    const std::uint64_t r0 = f * L;
    const std::uint64_t in_leaf = length - r0 < L ? length - r0 : L;
    S acc[k][C];
#pragma unroll
    for (unsigned s = 0; s < k; ++s) {
#pragma unroll
      for (unsigned q = 0; q < C; ++q) acc[s][q] = Op::template identity<V>();
    }
    bool full = false;
    if constexpr (whole_loads<Op, C>) {
      full = in_leaf == L && whole && valid == C;
      if (full) {
        accumulate_full_leaf<Op, k, C, static_cast<unsigned>(L / W)>(acc, x.data[0] + (r0 + w) * stride + first_line,
                                                                     warps * stride, W * stride);
      }
    }
    if (!full) {
#pragma unroll 4
      for (std::uint64_t r = 0; r * W < in_leaf; ++r) {
#pragma unroll
        for (unsigned s = 0; s < k; ++s) {
          const std::uint64_t i = r * W + w + warps * s;
          if (i < in_leaf) accumulate_chunk<Op, C>(acc[s], x, (r0 + i) * stride + first_line, whole, valid);
        }
      }
    }
    // Levels h >= warps pair slots of one thread; the last log2(warps) levels pair warps.
#pragma unroll
    for (unsigned q = 0; q < C; ++q) {
#pragma unroll
      for (unsigned h = k / 2; h >= 1; h /= 2) {
#pragma unroll
        for (unsigned s = 0; s < h; ++s) acc[s][q] = Op::combine(acc[s][q], acc[s + h][q]);
      }
    }
#pragma unroll
    for (unsigned h = warps / 2; h >= 1; h /= 2) {
      if (w >= h && w < 2 * h) {
#pragma unroll
        for (unsigned q = 0; q < C; ++q) exchange[w][c * C + q] = acc[0][q];
      }
      __syncthreads();
      if (w < h) {
#pragma unroll
        for (unsigned q = 0; q < C; ++q) acc[0][q] = Op::combine(acc[0][q], exchange[w + h][c * C + q]);
      }
      __syncthreads();
    }
    if (w == 0) {
#pragma unroll
      for (unsigned q = 0; q < C; ++q) {
        const std::uint64_t line = first_line + q;
        if (line >= count) break;
        const order::node_of<Op> root = order::to_node<Op>(acc[0][q], 0);
        if (leaves == 1) {
          results[line] = order::finish<Op>(root, length);
        } else {
          nodes[line * leaves + f] = root;
        }
      }
    }
  }
}

/// Each strided line of several leaves: its leaf roots through the left-perfect leaf tree (no leaf: the empty
/// node's result).
template <class Op>
__global__ void __launch_bounds__(batch_block)
    fold_strided(std::uint64_t length, std::uint64_t leaves, std::uint64_t count,
                 const order::node_of<Op>* __restrict__ nodes, typename Op::result* __restrict__ results) {
  for (std::uint64_t line = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; line < count;
       line += std::uint64_t{gridDim.x} * blockDim.x) {
    order::subtree_stack<Op> tree;
    for (std::uint64_t f = 0; f < leaves; ++f) tree.push(nodes[line * leaves + f], 1);
    results[line] = order::finish<Op>(tree.root(), length);
  }
}

/// Rounds up to 256 bytes, the alignment of every region carved from a call's scratch.
constexpr std::uint64_t aligned(std::uint64_t bytes) { return (bytes + 255) / 256 * 256; }

/// The workspace's partial buffer, grown (in stream order) to `bytes`: the scratch of one batched call. A workspace
/// serves one call at a time, so reusing its buffer allocates nothing once it is large enough.
char* reserve_scratch(workspace& ws, std::uint64_t bytes, stream_t stream) {
  workspace_access::state& s = workspace_access::of(ws);
  s.reserve_partials(bytes, stream);
  return static_cast<char*>(s.partials);
}

/// Bounds on the long lines (each longer than a leaf) and on their items in operands of `extent` elements.
/// The longest line a group of lines_pass reduces itself; longer lines are listed for the items pass, a warp a leaf.
/// A leaf, or a quarter of one where the lines average that much: G threads reading a whole leaf keep too few loads
/// in flight, and a line per group gives such a batch too few blocks (4096 rows of 4096 floats made 16 blocks for
/// the whole GPU and took 128 us, where PyTorch's row sum takes 30). Both paths compute the order's leaf: the bits
/// do not depend on the limit.
template <class Op>
std::uint64_t group_limit(std::uint64_t extent, std::uint64_t count) {
  constexpr std::uint64_t L = order::leaf_size<typename Op::value>;
  return count > 0 && extent / count >= L / 4 ? L / 4 : L;
}

template <class Op>
std::uint64_t long_line_cap(std::uint64_t extent, std::uint64_t count) {
  return extent / group_limit<Op>(extent, count) + 1;
}
template <class Op>
std::uint64_t item_cap(std::uint64_t extent, std::uint64_t count) {
  return extent / (item_leaves * order::leaf_size<typename Op::value>)+long_line_cap<Op>(extent, count) + 4;
}

/// Bytes of scratch enqueue_lines takes for operands of `extent` elements: the counts, the long-line list, the item
/// map and the item roots, for at most as many long lines and items as such operands can hold.
/// Threads of fold_items_by_block: a warp per run of 32 item roots, as many runs as a warp then folds.
constexpr unsigned fold_block = warp_size * warp_size;

/// One block per listed line of several items, after items_pass<Op, false>, for batches whose lines have many items
/// each (a few long lines): the block's warps fold 32 runs of 32 roots side by side, and warp 0 folds the runs' roots
/// (aligned perfect subtrees of 32 * item_leaves leaves, the last one ragged) into a group root, which joins the
/// line's left-perfect tree as a subtree of up to 1024 * item_leaves leaves. One warp per line (fold_items) folds
/// such a line's runs one after another, a chain of 32 loads and folds per 1024 items.
template <class Op>
__global__ void __launch_bounds__(fold_block)
    fold_items_by_block(line_view lines, const work_counts* __restrict__ work, const long_line* __restrict__ long_lines,
                        const order::node_of<Op>* __restrict__ nodes, typename Op::result* __restrict__ results) {
  using V = typename Op::value;
  using N = order::node_of<Op>;
  constexpr unsigned runs_per_group = fold_block / warp_size;
  constexpr std::uint64_t group_items = std::uint64_t{runs_per_group} * warp_size;
  __shared__ N run_roots[runs_per_group];
  const unsigned lane = threadIdx.x % warp_size;
  const unsigned warp = threadIdx.x / warp_size;
  const std::uint64_t listed = work->lines_and_items >> item_bits;
  for (std::uint64_t e = blockIdx.x; e < listed; e += gridDim.x) {
    const long_line l = long_lines[e];
    if (l.items <= 1) continue;  // the same for the whole block: finalized by items_pass
    const std::uint64_t n = lines.size(l.line);
    const std::uint64_t leaves = order::leaf_count<V>(n);
    order::subtree_stack<Op> tree;  // lane 0 of warp 0's
    for (std::uint64_t g = 0; g < l.items; g += group_items) {
      const std::uint64_t c = g + std::uint64_t{warp} * warp_size;  // this warp's run: items [c, c + 32)
      if (c < l.items) {
        const auto in_run = static_cast<unsigned>(l.items - c < warp_size ? l.items - c : warp_size);
        const N run = warp_fold<Op>(lane < in_run ? nodes[l.first_item + c + lane] : empty<Op>(), in_run, lane);
        if (lane == 0) run_roots[warp] = run;
      }
      __syncthreads();
      if (warp == 0) {
        const std::uint64_t left = l.items - g;
        const std::uint64_t runs = (left + warp_size - 1) / warp_size;
        const auto used = static_cast<unsigned>(runs < runs_per_group ? runs : runs_per_group);
        const N group = warp_fold<Op>(lane < used ? run_roots[lane] : empty<Op>(), used, lane);
        const std::uint64_t first_leaf = g * item_leaves;
        const std::uint64_t group_leaves =
            leaves - first_leaf < group_items * item_leaves ? leaves - first_leaf : group_items * item_leaves;
        if (lane == 0) tree.push(group, group_leaves);
      }
      __syncthreads();
    }
    if (threadIdx.x == 0) results[l.line] = order::finish<Op>(tree.root(), n);
  }
}

template <class Op>
std::uint64_t lines_scratch_bytes(std::uint64_t extent, std::uint64_t count) {
  return aligned(sizeof(work_counts)) + aligned(long_line_cap<Op>(extent, count) * sizeof(long_line)) +
         aligned(item_cap<Op>(extent, count) * sizeof(std::uint32_t)) +
         aligned(item_cap<Op>(extent, count) * sizeof(order::node_of<Op>));
}

/// enqueue_lines with its scratch given (lines_scratch_bytes<Op>(extent, count) bytes at `scratch`).
template <class Op>
void enqueue_lines_in(const order::operands<Op>& x, std::uint64_t extent, const device_lines& lines,
                      std::uint64_t count, typename Op::result* results, char* scratch, stream_t stream) {
  using V = typename Op::value;
  using N = order::node_of<Op>;
  if (count == 0) return;
  if (count > 0xffffffffull) throw error("CUDA batch: more than 2^32 - 1 lines");
  const std::uint64_t long_cap = long_line_cap<Op>(extent, count);
  const std::uint64_t limit = group_limit<Op>(extent, count);
  // work_counts holds the long lines above bit item_bits: 2^24 of them are lines of 2^36 floats (2^35 doubles) in all.
  if (long_cap >= (std::uint64_t{1} << (64 - item_bits)) || item_cap<Op>(extent, count) > 0xffffffffull) {
    throw error("CUDA batch: operands of " + std::to_string(extent) + " elements are more than a batch can address");
  }
  const auto blocks = [](auto kernel, std::uint64_t needed) {
    const std::uint64_t grid = resident_blocks(kernel, batch_block);
    return static_cast<unsigned>(needed < grid ? needed : grid);
  };
  if (lines.offsets == nullptr && lines.length > limit) {
    const std::uint64_t items = row_items<Op>(lines.length);
    if (items <= batch_warps) {
      const std::uint64_t per_block = batch_warps / items;
      const auto kernel = uniform_rows<Op, store_results<Op>>;
      kernel<<<blocks(kernel, (count + per_block - 1) / per_block), batch_block, 0, stream>>>(
          x, lines.stride, lines.length, count, static_cast<unsigned>(items), store_results<Op>{results});
      check(cudaGetLastError(), "batch uniform rows launch");
      return;
    }
  }
  auto* const work = reinterpret_cast<work_counts*>(scratch);
  auto* const long_lines = reinterpret_cast<long_line*>(scratch + aligned(sizeof(work_counts)));
  auto* const item_line =
      reinterpret_cast<std::uint32_t*>(reinterpret_cast<char*>(long_lines) + aligned(long_cap * sizeof(long_line)));
  auto* const nodes = reinterpret_cast<N*>(reinterpret_cast<char*>(item_line) +
                                           aligned(item_cap<Op>(extent, count) * sizeof(std::uint32_t)));
  check(cudaMemsetAsync(work, 0, sizeof(work_counts), stream), "cudaMemsetAsync (batch counters)");
  const line_view view{lines.offsets, lines.stride, lines.length};
  lines_pass<Op>
      <<<blocks(lines_pass<Op>, (count + lines_per_block<Op> - 1) / lines_per_block<Op>), batch_block, 0, stream>>>(
          x, view, count, limit, results, work, long_lines);
  check(cudaGetLastError(), "batch lines pass launch");
  // Lines of one length (rows) are long or not, as the host can see; offsets can be read only on the device, so the
  // grids below come from the bounds, not from a count read back (which would wait for the device): without a long
  // line they find nothing to do, and each launch that returns costs about 3 us (H200).
  if (lines.offsets == nullptr && lines.length <= limit) return;
  const std::uint64_t item_blocks = (item_cap<Op>(extent, count) + batch_warps - 1) / batch_warps;
  // Lines of at most a leaf on average: few long lines if any, so one launch (items found by a search, each line
  // folded by the warp that stores its last root). Longer lines on average: three launches, which keep the search
  // and the count per item out of the items' way and spread the folds of lines of many items over warps
  // (H200, 2^4 x 2^24 floats: 0.74x CUB Sum with the one launch, 0.83-0.85 with three; 2^20 x 64: 0.86 against 0.81).
  if (extent <= count * order::leaf_size<V>) {
    items_pass<Op, true><<<blocks(items_pass<Op, true>, item_blocks), batch_block, 0, stream>>>(
        x, view, work, long_lines, nullptr, nodes, results);
    check(cudaGetLastError(), "batch items pass launch");
    return;
  }
  list_items<<<blocks(list_items, long_cap), batch_block, 0, stream>>>(work, long_lines, item_line);
  check(cudaGetLastError(), "batch item listing launch");
  items_pass<Op, false><<<blocks(items_pass<Op, false>, item_blocks), batch_block, 0, stream>>>(
      x, view, work, long_lines, item_line, nodes, results);
  check(cudaGetLastError(), "batch items pass launch");
  // Lines of 32 items or more on average: a block per line folds 32 runs of item roots at once (H200, 2^4 x 2^24
  // floats, 1024 items a line: 0.861-0.875x CUB Sum, against 0.835-0.839 with a warp per line).
  if (extent / count >= std::uint64_t{warp_size} * item_leaves * order::leaf_size<V>) {
    const std::uint64_t grid = resident_blocks(fold_items_by_block<Op>, fold_block);
    fold_items_by_block<Op><<<static_cast<unsigned>(long_cap < grid ? long_cap : grid), fold_block, 0, stream>>>(
        view, work, long_lines, nodes, results);
  } else {
    fold_items<Op><<<blocks(fold_items<Op>, (long_cap + batch_warps - 1) / batch_warps), batch_block, 0, stream>>>(
        view, work, long_lines, nodes, results);
  }
  check(cudaGetLastError(), "batch fold launch");
}

}  // namespace

template <class Op>
void enqueue_lines(const order::operands<Op>& x, std::uint64_t extent, const device_lines& lines, std::uint64_t count,
                   typename Op::result* results, workspace& ws, stream_t stream) {
  if (count == 0) return;
  enqueue_lines_in<Op>(x, extent, lines, count, results,
                       reserve_scratch(ws, lines_scratch_bytes<Op>(extent, count), stream), stream);
}

template <class Op>
void enqueue_strided_lines(const order::operands<Op>& x, std::uint64_t length, std::uint64_t stride,
                           std::uint64_t count, typename Op::result* results, workspace& ws, stream_t stream) {
  if constexpr (order::locates_element<Op>) {
    throw error("CUDA batch: argmin and argmax along a strided axis are not available");
  } else {
    using N = order::node_of<Op>;
    if (count == 0) return;
    constexpr std::uint64_t tile = std::uint64_t{warp_size} * strided_columns<Op>;
    const std::uint64_t tiles = (count + tile - 1) / tile;
    if (tiles > 0x7fffffffull) throw error("CUDA batch: too many lines");
    const std::uint64_t leaves = order::leaf_count<typename Op::value>(length);
    const std::uint64_t fold_blocks = (count + batch_block - 1) / batch_block;
    const auto fold_grid = static_cast<unsigned>(fold_blocks < 65535 ? fold_blocks : 65535);
    if (leaves == 0) {
      fold_strided<Op><<<fold_grid, batch_block, 0, stream>>>(length, 0, count, nullptr, results);
      check(cudaGetLastError(), "batch strided fold launch");
      return;
    }
    if (launch_short_strided<Op>(x, length, stride, count, store_results<Op>{results}, stream)) return;
    // A block per (tile of lines, leaf): enough blocks for every SM even when the lines are few and long. A line of one
    // leaf is finalized by the leaf pass itself.
    N* const nodes =
        leaves > 1 ? reinterpret_cast<N*>(reserve_scratch(ws, count * leaves * sizeof(N), stream)) : nullptr;
    const dim3 grid(static_cast<unsigned>(tiles), static_cast<unsigned>(leaves < 65535 ? leaves : 65535));
    strided_pass<Op><<<grid, strided_warps<Op> * warp_size, 0, stream>>>(x, length, stride, count, nodes, results);
    check(cudaGetLastError(), "batch strided pass launch");
    if (leaves > 1) {
      fold_strided<Op><<<fold_grid, batch_block, 0, stream>>>(length, leaves, count, nodes, results);
      check(cudaGetLastError(), "batch strided fold launch");
    }
  }
}

namespace {

/// Records the index of the first key that is not a bin in the workspace's pending errors (atomicMin; valid keys
/// touch nothing, so hot bins cost no contention).
__global__ void check_keys(const std::uint32_t* __restrict__ keys, std::uint64_t n, std::uint64_t bins,
                           pending_errors* __restrict__ pending) {
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    if (keys[i] >= bins) {
      atomicMin(reinterpret_cast<unsigned long long*>(&pending->bad_key), static_cast<unsigned long long>(i));
      pending->bins = bins;
    }
  }
}

/// offsets[b] = the first position of key b or above among the sorted keys (b <= bins): the groups' segments.
__global__ void group_offsets(const std::uint32_t* __restrict__ sorted_keys, std::uint64_t n, std::uint64_t bins,
                              std::uint64_t* __restrict__ offsets) {
  for (std::uint64_t b = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; b <= bins;
       b += std::uint64_t{gridDim.x} * blockDim.x) {
    std::uint64_t low = 0;
    std::uint64_t high = n;
    while (low < high) {
      const std::uint64_t mid = low + (high - low) / 2;
      if (sorted_keys[mid] < b) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    offsets[b] = low;
  }
}

}  // namespace

template <class Op, class Key>
void reduce_by_key(const typename Op::input* values, const Key* keys, std::uint64_t n, std::uint64_t bins,
                   typename Op::result* results, workspace& ws, stream_t stream) {
  using T = typename Op::input;
  // The groups' segments are reduced by the canonical order's kernels, or by exact mode's (exact_batch.cu).
  std::uint64_t lines_bytes = 0;
  if constexpr (exact::is_exact_op<Op>) {
    lines_bytes = exact_segments_scratch_bytes(n, bins);
  } else {
    lines_bytes = lines_scratch_bytes<Op>(n, bins);
  }
  if (n == 0 && bins == 0) return;
  if (n > 0x7fffffffull) throw error("CUDA sum_by_key: more than 2^31 - 1 values");
  if (bins > 0xffffffffull) throw error("CUDA sum_by_key: more than 2^32 - 1 bins");
  int bits = 1;
  while (bits < 32 && (std::uint64_t{1} << bits) < bins) ++bits;
  std::size_t sort_bytes = 0;
  check(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, static_cast<const std::uint32_t*>(nullptr),
                                        static_cast<std::uint32_t*>(nullptr), values, static_cast<T*>(nullptr),
                                        static_cast<int>(n), 0, bits, stream),
        "cub radix sort (size)");
  // Scratch: the group offsets, the sorted keys, the sorted values, the sort's own, the lines', and for int64 keys
  // their uint32 copy.
  const std::uint64_t offsets_bytes = aligned(sizeof(std::uint64_t) * (bins + 2));
  const std::uint64_t keys_bytes = aligned(n * sizeof(std::uint32_t));
  const std::uint64_t values_bytes = aligned(n * sizeof(T));
  const std::uint64_t narrow_bytes = std::is_same_v<Key, std::uint32_t> ? 0 : keys_bytes;
  char* const scratch = reserve_scratch(
      ws, offsets_bytes + keys_bytes + values_bytes + aligned(sort_bytes) + lines_bytes + narrow_bytes, stream);
  auto* const offsets = reinterpret_cast<std::uint64_t*>(scratch);
  auto* const sorted_keys = reinterpret_cast<std::uint32_t*>(scratch + offsets_bytes);
  auto* const sorted_values = reinterpret_cast<T*>(scratch + offsets_bytes + keys_bytes);
  char* const sort_scratch = scratch + offsets_bytes + keys_bytes + values_bytes;
  char* const lines_scratch = sort_scratch + aligned(sort_bytes);
  pending_errors* const pending = workspace_access::of(ws).pending;

  const std::uint32_t* narrow_keys = nullptr;
  if constexpr (std::is_same_v<Key, std::uint32_t>) {
    narrow_keys = keys;
  } else {
    auto* const to = reinterpret_cast<std::uint32_t*>(lines_scratch + lines_bytes);
    enqueue_narrow_keys(keys, to, n, bins, pending, stream);
    narrow_keys = to;
  }
  check_keys<<<static_cast<unsigned>(resident_blocks(check_keys, batch_block)), batch_block, 0, stream>>>(
      narrow_keys, n, bins, pending);
  check(cudaGetLastError(), "key check launch");
  // A stable sort: each key's values stay in index order. Each group's segment is then found by a binary search
  // of the sorted keys, with no counting (atomics on a few hot bins would serialize).
  check(cub::DeviceRadixSort::SortPairs(sort_scratch, sort_bytes, narrow_keys, sorted_keys, values, sorted_values,
                                        static_cast<int>(n), 0, bits, stream),
        "cub radix sort");
  const std::uint64_t offset_blocks = (bins + batch_block) / batch_block;
  group_offsets<<<static_cast<unsigned>(offset_blocks < 65535 ? offset_blocks : 65535), batch_block, 0, stream>>>(
      sorted_keys, n, bins, offsets);
  check(cudaGetLastError(), "group offsets launch");
  if constexpr (exact::is_exact_op<Op>) {
    enqueue_exact_lines_in<T>(exact_kind::sum, Op::finishes, sorted_values, sorted_values, n, {.offsets = offsets},
                              bins, results, lines_scratch, stream);
  } else {
    enqueue_lines_in<Op>(order::operands<Op>{{sorted_values}, 0}, n, {.offsets = offsets}, bins, results, lines_scratch,
                         stream);
  }
}

// The kernels of every batched operator.
template <class List>
struct instantiate_batches;
template <class... Ops>
struct instantiate_batches<op_list<Ops...>> {
  static constexpr std::tuple pointers{&enqueue_lines<Ops>..., &enqueue_strided_lines<Ops>...};
};
template struct instantiate_batches<batch_operators>;

template <class... Ops>
struct instantiate_by_key {
  static constexpr std::tuple pointers{&reduce_by_key<Ops, std::uint32_t>..., &reduce_by_key<Ops, std::int64_t>...};
};
template struct instantiate_by_key<
    order::sum_op<double, order::plain_sums>, order::sum_op<double, order::compensated_sums>,
    order::sum_op<float, order::plain_sums>, order::sum_op<float, order::compensated_sums>,
    exact_operator_t<operation::sum, double>, exact_operator_t<operation::sum, float>>;

}  // namespace detred::cuda::detail
