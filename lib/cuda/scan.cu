// SPDX-License-Identifier: BSD-3-Clause
// The GPU scans: the canonical scan order (detred/order/scan.hpp) evaluated by thread blocks, one leaf at a time.
//
// A leaf is scanned by W threads, thread j being lane j of the order (scan_leaf.cuh): the block stages the leaf in
// shared memory (coalesced), thread j runs its lane's R = 32 contiguous elements, and the lanes' totals go through
// the order's Kogge-Stone scan in shared memory (block_lane_scan). With the leaf's offset O_b, thread j forms its
// base O_b (+) e[j] (order::lane_bases), runs its elements again and stages the outputs in shared memory, which the
// block stores coalesced.
//
// Offsets. One array (scan_leaves): one block per leaf, in the order the blocks start (a ticket), and one pass over
// the data. Block b publishes its leaf total T_b, and the root of every perfect subtree of a fold span (256 leaves) or
// more of the order's leaf tree that its leaf completes (it waits for the left halves, published by earlier leaves);
// the smaller subtrees, inside its span, warp 0 folds itself from the published leaf totals. Then it takes O_b from the
// roots of the perfect subtrees before it (order::leaf_offset), waiting for those not yet published. Arrays of 2D
// leaves and more look ahead: block b first makes that publishing pass over leaf b + D (a prologue kernel over the
// first D leaves), then forms O_b, whose totals and roots were published D tickets before, and reads leaf b again
// for its outputs (at D = 1024 from DRAM: Nsight Compute found the first read gone from L2 by then; docs/scan.md), a
// read that starts before the fold and ends after it, so that the fold's round trips to L2 hide it. A block only waits
// for blocks with earlier tickets, which are already running, so the waits always end. Lines (segments, matrix rows): a
// line of at most 32 lanes is one leaf with offset the identity, and a warp scans as many such lines at
// once as their lanes fit in its 32 threads (scan_short_lines, in which the Kogge-Stone levels at and above 32
// change no lane below 32), through shared memory where they tile one range of x; a longer line takes a block that
// walks its leaves in order with order::subtree_stack (scan_long_lines). Every addition is the operator's
// (order/ops.hpp via order/scan.hpp), so every output has the CPU's bits; the build forbids contraction (-fmad=false).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <tuple>
#include <type_traits>

#include <cuda_runtime.h>
#include <cuda/atomic>

#include "cuda_check.hpp"
#include "device_ops.cuh"
#include "scan_enqueue.hpp"
#include "scan_leaf.cuh"
#include "workspace_state.hpp"

namespace detred::cuda::detail {
namespace {

/// log2 of the warp size: the levels of a fold span folded across the lanes of warp 0 (fold_leaf).
inline constexpr unsigned warp_log2 = 5;
static_assert(1u << warp_log2 == warp_size);

/// Lines of at most this many elements (32 lanes: one leaf, whose offset is the identity) are short.
inline constexpr std::uint64_t short_line = 32 * warp_size;

/// The state of lane - d (a lane below d gets its own).
template <class S>
__device__ __forceinline__ S shuffle_up(S v, unsigned d) {
  return move_words(v, [d](unsigned word) { return __shfl_up_sync(full_mask, word, d); });
}

// ---- one array: one pass, offsets from the perfect subtrees published by earlier leaves -------------------------

struct scan_book {
  unsigned* tickets;               ///< zero between calls
  unsigned long long* node_words;  ///< the leaf tree's perfect-subtree roots, level by level, in tagged words
  void* last;                      ///< exclusive scans: each leaf's last inclusive state
  std::uint64_t leaves;
  std::uint64_t ahead;  ///< D: block b publishes T_{b + D} before it scans leaf b (0: T_b itself)
  unsigned call;
};

/// The book's buffer (the workspace's scan buffer) starts with the ticket counters; the nodes follow. 16 bytes of
/// counters keep node_words 16-byte aligned, as load_word_pair needs (the buffer itself comes from cudaMallocAsync).
inline constexpr std::size_t book_ticket_bytes = 16;
static_assert(book_ticket_bytes % 16 == 0);

/// The book keeps a node in tagged words: each 4 bytes of the node in the low half of an 8-byte word whose high half
/// is the call number. An aligned 8-byte access is single-copy atomic, so one load of a word both tells that its part
/// of the node is published (by this call) and reads it: one round trip to L2 a node, where a flag beside the node
/// took two (the flag, then, after an acquire fence, the node). Words of earlier calls carry smaller numbers, and a
/// new book is zeroed (reserve_scan); the numbers start at 1.
template <class N>
inline constexpr unsigned tagged_words = sizeof(N) / 4;

template <class N>
__device__ __forceinline__ ::cuda::atomic_ref<unsigned long long, ::cuda::thread_scope_device> node_word(
    const scan_book& book, std::uint64_t at, unsigned i) {
  return ::cuda::atomic_ref<unsigned long long, ::cuda::thread_scope_device>(book.node_words[at * tagged_words<N> + i]);
}

/// Publishes node `at`. The release fence orders the block's reads of its leaf before the publication: a leaf total
/// of the look-ahead's first pass tells the leaf's own block that its outputs may replace the leaf (scan_leaves).
template <class N>
__device__ __forceinline__ void publish(const scan_book& book, std::uint64_t at, const N& v) {
  static_assert(sizeof(N) % 4 == 0);
  unsigned w[tagged_words<N>];
  memcpy(w, &v, sizeof v);
  const unsigned long long tag = static_cast<unsigned long long>(book.call) << 32;
  ::cuda::atomic_thread_fence(::cuda::memory_order_release, ::cuda::thread_scope_device);
#pragma unroll
  for (unsigned i = 0; i < tagged_words<N>; ++i)
    node_word<N>(book, at, i).store(tag | w[i], ::cuda::memory_order_relaxed);
}

/// The words i and i + 1 of node `at`, in one 16-byte load: a vector access is one access per element, each 8-byte
/// word single-copy atomic on its own (every word carries its tag), in one instruction and one request to L2.
template <class N>
__device__ __forceinline__ void load_word_pair(const scan_book& book, std::uint64_t at, unsigned i,
                                               unsigned long long& first, unsigned long long& second) {
  asm volatile("ld.relaxed.gpu.global.v2.b64 {%0, %1}, [%2];"
               : "=l"(first), "=l"(second)
               : "l"(book.node_words + at * tagged_words<N> + i)
               : "memory");
}

/// One look at node `at`: whether every word of it is published by this call, and if so the node in `out`. Nodes
/// of 8 and 16 bytes are read a pair of words at a time (H100, 2^27 doubles against CUB's InclusiveSum: tree 0.75 ->
/// 0.83, compensated 0.63 -> 0.76, measured with every root awaited beside the leaf totals; docs/scan.md).
template <class N>
__device__ __forceinline__ bool try_load_node(const scan_book& book, std::uint64_t at, N& out) {
  constexpr unsigned K = tagged_words<N>;
  unsigned long long words[K];
  if constexpr (K % 2 == 0) {
#pragma unroll
    for (unsigned i = 0; i < K; i += 2) load_word_pair<N>(book, at, i, words[i], words[i + 1]);
  } else {
#pragma unroll
    for (unsigned i = 0; i < K; ++i) words[i] = node_word<N>(book, at, i).load(::cuda::memory_order_relaxed);
  }
  unsigned w[K];
  bool published = true;
#pragma unroll
  for (unsigned i = 0; i < K; ++i) {
    published = published && static_cast<unsigned>(words[i] >> 32) == book.call;
    w[i] = static_cast<unsigned>(words[i]);
  }
  if (published) memcpy(&out, w, sizeof out);
  return published;
}

template <class N>
__device__ __forceinline__ N await_node(const scan_book& book, std::uint64_t at) {
  N v;
  while (!try_load_node(book, at, v)) __nanosleep(64);
  return v;
}

/// Awaits the nodes at(i) for the i < K where need[i], side by side: each round loads every node still missing, so
/// that the wait takes one round trip to L2 once all are there, whatever K.
template <class N, unsigned K, class At>
__device__ __forceinline__ void await_nodes(const scan_book& book, At at, const bool (&need)[K], N (&out)[K]) {
  bool ready[K];
#pragma unroll
  for (unsigned i = 0; i < K; ++i) ready[i] = !need[i];
  for (;;) {
    bool all = true;
#pragma unroll
    for (unsigned i = 0; i < K; ++i) {
      if (!ready[i]) ready[i] = try_load_node(book, at(i), out[i]);
      all = all && ready[i];
    }
    if (all) return;
    __nanosleep(64);
  }
}

/// Warp 0's share of leaf b: publishes the roots of the perfect subtrees of a fold span (2^fold_log2<Op> leaves) and
/// more that leaf b completes, and puts O_b in sh.offset. The subtrees smaller than a span that O_b folds lie inside
/// b's span [a, a + span): they are folded here from the published leaf totals of [a, b], lane j taking
/// span / 32 consecutive leaves; `total` is T_b, or, where total_published, T_b is read from the book (its publication
/// also tells that leaf b has been read: see scan_leaves).
template <class Op, bool PublishRoots, bool Offset>
__device__ __forceinline__ void fold_leaf(const scan_book& book, std::uint64_t b, unsigned j,
                                          const typename Op::state& total, bool total_published, leaf_shared<Op>& sh) {
  constexpr unsigned levels = fold_log2<Op>;
  constexpr unsigned span = 1u << levels;
  constexpr unsigned leaves_a_lane = span / warp_size;
  constexpr unsigned lane_levels = levels - warp_log2;  // the span's levels folded inside one lane
  static_assert(levels >= warp_log2 && levels < 32);
  using S = typename Op::state;
  const S empty_state = Op::template identity<typename Op::value>();
  const std::uint64_t a = b & ~std::uint64_t{span - 1};
  const auto own = static_cast<unsigned>(b - a);
  const unsigned first = j * leaves_a_lane;  // lane j's first leaf, from a
  // Lane j >= levels also takes the level-j root before b where bit j of b is set: b's own roots of levels
  // [levels, c) join it (c the number of trailing one bits of b), awaited with the leaf totals, in the same round
  // trips; O_b folds those of levels above c, awaited after the span's fold (H100, 2^27 doubles: 0.89x CUB's
  // InclusiveSum, 0.83 when they were awaited with the leaf totals as well).
  const int c = __ffsll(static_cast<long long>(~b)) - 1;
  const bool root_bit = static_cast<int>(j) >= static_cast<int>(levels) && ((b >> j) & 1) != 0;
  const bool root_now = root_bit && static_cast<int>(j) < c;
  const std::uint64_t leaf_at = node_index(book.leaves, 0, a + first);
  const std::uint64_t root_at = root_bit ? node_index(book.leaves, static_cast<int>(j), (b >> j) - 1) : 0;
  S w[leaves_a_lane + 1];  // the lane's leaf totals, then its root
  bool need[leaves_a_lane + 1];
#pragma unroll
  for (unsigned i = 0; i < leaves_a_lane; ++i) {
    need[i] = first + i < own || (first + i == own && total_published);
    w[i] = first + i == own ? total : empty_state;
  }
  need[leaves_a_lane] = root_now;
  w[leaves_a_lane] = empty_state;
  await_nodes(
      book, [&](unsigned i) { return i < leaves_a_lane ? leaf_at + i : root_at; }, need, w);
  S held = w[leaves_a_lane];
  // T_b read from the book tells that leaf b's first pass is done reading it (publish's release fence): acquired
  // here, before the block's outputs replace the leaf.
  if (total_published) ::cuda::atomic_thread_fence(::cuda::memory_order_acquire, ::cuda::thread_scope_device);
  // Level k of the span: node i of level k joins nodes 2i and 2i + 1 of level k - 1, as the leaf tree does
  // (order::merge of the left and right halves); a node whose leaves pass b is never read. sh.folded[k] takes the
  // level-k node just before b's own level-k subtree, the one O_b folds where bit k of b is set. The levels below
  // lane_levels are inside a lane (w), the others across lanes (v, lane l a multiple of 2^(k - lane_levels)).
  const unsigned own_lane = own / leaves_a_lane;
  const unsigned own_at = own % leaves_a_lane;
#pragma unroll
  for (unsigned k = 0; k < lane_levels; ++k) {
#pragma unroll
    for (unsigned i = 0; i + 1 < (leaves_a_lane >> k); ++i) {
      if (j == own_lane && (own_at >> k) == i + 1 && ((b >> k) & 1) != 0) sh.folded[k] = w[i];
    }
#pragma unroll
    for (unsigned i = 0; i < (leaves_a_lane >> (k + 1)); ++i) w[i] = order::merge<Op>(w[2 * i], w[2 * i + 1]);
  }
  S v = w[0];
#pragma unroll
  for (unsigned k = lane_levels; k < levels; ++k) {
    if (((b >> k) & 1) != 0 && j == (own / (1u << k) - 1) * (1u << (k - lane_levels))) sh.folded[k] = v;
    const S right = shuffle_down(v, 1u << (k - lane_levels));
    if ((j & ((2u << (k - lane_levels)) - 1)) == 0) v = order::merge<Op>(v, right);
  }
  // Levels of a span and up: leaf b completes the subtrees of levels `levels`..c, each the level k - 1 subtree
  // before b (held by lane k - 1) joined to the one ending at b.
  if (PublishRoots && c >= static_cast<int>(levels)) {
    S root = broadcast(v, 0);  // the span's root: b is its last leaf
    if (j == 0) publish(book, node_index(book.leaves, static_cast<int>(levels), b >> levels), root);
    for (int k = levels + 1; k <= c; ++k) {
      root = order::merge<Op>(broadcast(held, static_cast<unsigned>(k - 1)), root);
      if (j == 0) publish(book, node_index(book.leaves, k, b >> k), root);
    }
  }
  if constexpr (Offset) {
    if (root_bit && static_cast<int>(j) > c) held = await_node<S>(book, root_at);
    __syncwarp();  // sh.folded
    const S offset = order::leaf_offset<Op>(b, [&](int k, std::uint64_t) {
      return k >= static_cast<int>(levels) ? broadcast(held, static_cast<unsigned>(k)) : sh.folded[k];
    });
    if (j == 0) sh.offset = offset;
  }
}

/// The look-ahead's first pass over leaf f: its total T_f, published, and where f ends a fold span, the roots of the
/// perfect subtrees it completes (fold_leaf). Waits only for leaves before f.
template <class Op>
__device__ __forceinline__ void publish_leaf(const typename Op::input* x, std::uint64_t n, const scan_book& book,
                                             std::uint64_t f, leaf_shared<Op>& sh, unsigned j) {
  using shape = scan_shape<Op>;
  using S = typename Op::state;
  const unsigned count = leaf_elements<Op>(n, f);
  load_leaf<Op>(reinterpret_cast<const typename shape::raw*>(x) + f * shape::L, count, sh, j, l2_hint::evict_last);
  S total;
  block_lane_scan<Op>(staged_lane_sum<Op>(sh, j, lane_live<Op>(count, j)), j, sh, total);
  if (j == 0) publish(book, node_index(book.leaves, 0, f), total);
  constexpr std::uint64_t span = std::uint64_t{1} << fold_log2<Op>;
  if (j < warp_size && (f & (span - 1)) == span - 1) fold_leaf<Op, true, false>(book, f, j, total, false, sh);
}

/// The block that takes ticket t from counter `counter`: a block waits only for blocks with earlier tickets, which
/// are already running, so the waits always end.
__device__ __forceinline__ std::uint64_t take_ticket(const scan_book& book, unsigned counter, unsigned& shared_ticket,
                                                     unsigned j) {
  if (j == 0) {
    const unsigned t = atomicAdd(book.tickets + counter, 1u);
    if (t == gridDim.x - 1) atomicExch(book.tickets + counter, 0u);  // every block has its ticket: zero for the next
    shared_ticket = t;
  }
  __syncthreads();
  return shared_ticket;
}

/// The look-ahead's prologue: the first pass over leaves [0, D), before scan_leaves runs.
template <class Op>
__global__ void __launch_bounds__(scan_shape<Op>::W, scan_shape<Op>::min_blocks)
    scan_leaf_totals(const typename Op::input* x, std::uint64_t n, scan_book book) {
  __shared__ leaf_shared<Op> sh;
  const std::uint64_t f = take_ticket(book, 1, sh.ticket, threadIdx.x);
  publish_leaf<Op>(x, n, book, f, sh, threadIdx.x);
}

template <class Op, bool Exclusive>
__global__ void __launch_bounds__(scan_shape<Op>::W, scan_shape<Op>::min_blocks)
    scan_leaves(const typename Op::input* x, std::uint64_t n, typename Op::result* y, scan_book book,
                overflow_record* overflow) {
  using shape = scan_shape<Op>;
  using S = typename Op::state;
  using raw = typename shape::raw;
  __shared__ leaf_shared<Op> sh;
  const unsigned j = threadIdx.x;
  const std::uint64_t b = take_ticket(book, 0, sh.ticket, j);
  const std::uint64_t start = b * shape::L;
  const unsigned count = leaf_elements<Op>(n, b);
  S total = Op::template identity<typename Op::value>();
  S e;
  if (book.ahead != 0) {
    // Look-ahead: the first pass over leaf b + D (T_{b + D} and the roots it completes), then O_b, whose every
    // total and root the first passes of tickets b - D and before have published (scan_leaf_totals those of the
    // first D leaves); awaiting T_b as well tells that leaf b has been read, so its outputs may replace it.
    // The second read of leaf b starts before warp 0 folds O_b and ends after: the fold's reads of the book take
    // several round trips to L2 (H100, 2^28 floats: 5 us of a block's 22, the second read as long), and reading x_b
    // early is safe, since only this block writes y_b.
    if (b + book.ahead < book.leaves) publish_leaf<Op>(x, n, book, b + book.ahead, sh, j);
    if constexpr (can_stage_async<Op>) {
      __syncthreads();  // every thread is done with the first pass's staged leaf
      stage_leaf_async<Op>(reinterpret_cast<const raw*>(x) + start, count, sh, j, l2_hint::evict_first);
      if (j < warp_size) fold_leaf<Op, false, true>(book, b, j, total, true, sh);
      await_staged_leaf();
    } else {
      if (j < warp_size) fold_leaf<Op, false, true>(book, b, j, total, true, sh);
      load_leaf<Op>(reinterpret_cast<const raw*>(x) + start, count, sh, j, l2_hint::evict_first);
    }
    e = block_lane_scan<Op>(staged_lane_sum<Op>(sh, j, lane_live<Op>(count, j)), j, sh, total);
  } else {
    load_leaf<Op>(reinterpret_cast<const raw*>(x) + start, count, sh, j);
    e = block_lane_scan<Op>(staged_lane_sum<Op>(sh, j, lane_live<Op>(count, j)), j, sh, total);
    if (j < warp_size) {
      // T_b first: the next leaves may be waiting for it.
      if (j == 0) publish(book, node_index(book.leaves, 0, b), total);
      fold_leaf<Op, true, true>(book, b, j, total, false, sh);
    }
  }
  __syncthreads();
  const S empty = Op::template identity<typename Op::value>();
  leaf_outputs<Op, Exclusive>(count, e, j, sh, y + start, start, b == 0, empty, overflow,
                              book.ahead != 0 ? l2_hint::evict_first : l2_hint::normal);
  if (Exclusive && j == 0) static_cast<S*>(book.last)[b] = sh.last;
}

/// Exclusive scans: the first output of every leaf but the first is the previous leaf's last inclusive output.
template <class Op>
__global__ void scan_leaf_firsts(typename Op::result* y, scan_book book, overflow_record* overflow) {
  using shape = scan_shape<Op>;
  using S = typename Op::state;
  std::uint64_t bad = ~std::uint64_t{0};
  order::wide_integer bad_value{0, 0};
  const std::uint64_t b = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x + 1;
  if (b < book.leaves) {
    y[b * shape::L] = emit<Op>(static_cast<const S*>(book.last)[b - 1], b * shape::L, bad, bad_value);
  }
  report_overflow<Op>(overflow, bad, bad_value);
}

// ---- lines ------------------------------------------------------------------------------------------------------

inline constexpr unsigned short_block = 128;  ///< threads of scan_short_lines: 4 warps, 32 lines each
/// Blocks of scan_short_lines a multiprocessor should hold: a thread keeps its lane's 32 values in registers, so
/// float leaves room for 6 blocks (85 registers), 16-bit inputs with float outputs for 4, 8-byte outputs for 3.
template <class Op>
inline constexpr unsigned short_min_blocks = sizeof(typename Op::result) > 4
                                                 ? 3
                                                 : (sizeof(order::raw_t<typename Op::input>) == 4 ? 6 : 4);

/// Lines of at most 32 lanes, packed into the threads of a warp: warp w takes lines [32 w, 32 w + 32) and scans
/// them in rounds, each a run of consecutive lines whose lanes fit in 32 threads; thread t is lane t - first of the
/// line that owns it. Longer lines go to the list of scan_long_lines.
template <class Op, bool Exclusive>
__global__ void __launch_bounds__(short_block, short_min_blocks<Op>)
    scan_short_lines(const typename Op::input* x, scan_lines lines, std::uint64_t count, typename Op::result* y,
                     unsigned* long_count, std::uint64_t* long_list, std::uint64_t long_room,
                     overflow_record* overflow) {
  using shape = scan_shape<Op>;
  using T = typename Op::value;
  using S = typename Op::state;
  using raw = typename shape::raw;
  __shared__ unsigned char owners[short_block / warp_size][warp_size];
  // A round whose lanes tile a range of x is read through this buffer by the whole warp, in coalesced runs, and
  // written back the same way when they also tile a range of y (element i of the range at padded_index(i)).
  __shared__ raw stages[short_block / warp_size][short_line + short_line / warp_size];
  const unsigned lane = threadIdx.x % warp_size;
  unsigned char* owner = owners[threadIdx.x / warp_size];
  raw* stage = stages[threadIdx.x / warp_size];
  const std::uint64_t first_line = (std::uint64_t{blockIdx.x} * short_block + threadIdx.x) / warp_size * warp_size;
  const std::uint64_t line = first_line + lane;
  std::uint64_t in = 0;
  std::uint64_t out = 0;
  std::uint64_t size = 0;
  if (line < count) {
    in = lines.start(line);
    out = lines.out_start(line);
    size = lines.size(line);
  }
  const bool is_long = line < count && size > short_line;
  if (is_long) {
    // Room for every long line of valid offsets (lines do not overlap); the count never passes the room.
    const unsigned slot = atomicAdd(long_count, 1u);
    if (slot < long_room) {
      long_list[slot] = line;
    } else {
      atomicSub(long_count, 1u);
    }
  }
  const unsigned needed = line < count && !is_long ? static_cast<unsigned>((size + shape::R - 1) / shape::R) : 0;
  // Greedy rounds, the same in every thread: a line starts a new round when its lanes would pass thread 31.
  unsigned my_round = 0;
  unsigned my_first = 0;
  unsigned rounds = 0;
  unsigned used = 0;
  for (unsigned q = 0; q < warp_size; ++q) {
    const unsigned l = __shfl_sync(full_mask, needed, q);
    if (used + l > warp_size) {
      ++rounds;
      used = 0;
    }
    if (q == lane) {
      my_round = rounds;
      my_first = used;
    }
    used += l;
  }
  const S empty = Op::template identity<T>();
  for (unsigned round = 0; round <= rounds; ++round) {
    owner[lane] = 0xff;
    __syncwarp();
    if (my_round == round) {
      for (unsigned q = 0; q < needed; ++q) owner[my_first + q] = static_cast<unsigned char>(lane);
    }
    __syncwarp();
    const unsigned mine = owner[lane];
    __syncwarp();
    const bool active = mine != 0xff;
    const unsigned src = active ? mine : lane;
    const std::uint64_t a = __shfl_sync(full_mask, in, src);
    const std::uint64_t ya = __shfl_sync(full_mask, out, src);
    const std::uint64_t n = __shfl_sync(full_mask, size, src);
    const unsigned k = lane - __shfl_sync(full_mask, my_first, src);  // lane of the line
    const std::uint64_t begin = std::uint64_t{k} * shape::R;
    const unsigned live =
        !active || begin >= n ? 0 : (n - begin < shape::R ? static_cast<unsigned>(n - begin) : shape::R);
    raw v[warp_size];
    using Y = typename Op::result;
    constexpr bool reuse = sizeof(raw) == sizeof(Y);
    // The round's lanes tile [lo, lo + total) of x when each active thread's run starts where the previous thread's
    // ends (the active threads are 0, 1, ..., in address order): segments always do, and rows without padding.
    // Each thread reading its own run of 32 instead (16-byte loads, but every load instruction of the warp touching
    // 32 cache lines) ran 2^20 segments of 64 floats at 0.65x CUB's scan bandwidth; staged, 0.92x (H100).
    const std::uint64_t my_in = a + begin;
    const std::uint64_t my_out = ya + begin;
    const std::uint64_t prev_in_end = __shfl_up_sync(full_mask, my_in + live, 1);
    const std::uint64_t prev_out_end = __shfl_up_sync(full_mask, my_out + live, 1);
    const bool first_or_idle = !active || lane == 0;
    const bool staged = __all_sync(full_mask, first_or_idle || prev_in_end == my_in);
    const bool staged_out = reuse && staged && __all_sync(full_mask, first_or_idle || prev_out_end == my_out);
    const std::uint64_t lo = __shfl_sync(full_mask, my_in, 0);
    const std::uint64_t ylo = __shfl_sync(full_mask, my_out, 0);
    unsigned total = live;
#pragma unroll
    for (unsigned d = warp_size / 2; d > 0; d /= 2) total += __shfl_xor_sync(full_mask, total, d);
    const unsigned at_stage = static_cast<unsigned>(my_in - lo);
    if (staged) {
      const raw* from = reinterpret_cast<const raw*>(x) + lo;
      for (unsigned i = lane; i < total; i += warp_size) stage[padded_index(i)] = from[i];
      __syncwarp();
#pragma unroll
      for (unsigned r = 0; r < warp_size; ++r) {
        if (r < live) v[r] = stage[padded_index(at_stage + r)];
      }
    } else {
      load_run(reinterpret_cast<const raw*>(x) + a + begin, live, v);
    }
    const S p = lane_sum<Op>(v, live);
    // The order's lane scan over the line's lanes (all below 32, so its levels d >= 32 change none of them).
    S t = p;
#pragma unroll
    for (unsigned d = 1; d < warp_size; d *= 2) {
      const S other = shuffle_up(t, d);
      if (k >= d) t = Op::combine(other, t);
    }
    S e = shuffle_up(t, 1);
    if (k == 0) e = empty;
    const S offset = order::empty_node<Op>();
    S base;
    order::lane_bases<Op>(offset, &e, &base, 1);
    std::uint64_t bad = ~std::uint64_t{0};
    order::wide_integer bad_value{0, 0};
    // Each thread writes its own lane's positions. Exclusive: position r + 1 takes inclusive output r, and the
    // lane's first position the previous lane's last inclusive output (the empty sum for the line's first lane).
    // Outputs of the inputs' size replace them in v (each after its input is read), which keeps a thread's registers
    // to one array; wider outputs get their own.
    Y wide[reuse ? 1 : warp_size];
    const auto put = [&](unsigned r, Y value) {
      if constexpr (reuse) {
        memcpy(&v[r], &value, sizeof value);
      } else {
        wide[r] = value;
      }
    };
    const std::uint64_t at = ya + begin;  // the lane's first output in y
    S q = empty;
    S last = empty;
    Y pending{};  // exclusive: the output of the next position, written once its input has been read
#pragma unroll
    for (unsigned r = 0; r < warp_size; ++r) {
      if (r < live) {
        q = Op::template accumulate<T>(q, v[r]);
        const S s = Op::combine(base, q);
        if constexpr (Exclusive) {
          if (r > 0) put(r, pending);
          if (r + 1 < live) pending = emit<Op>(s, at + r + 1, bad, bad_value);
          last = s;
        } else {
          put(r, emit<Op>(s, at + r, bad, bad_value));
        }
      }
    }
    if constexpr (Exclusive) {
      const S before = shuffle_up(last, 1);
      if (live > 0) put(0, emit<Op>(k == 0 ? empty : before, at, bad, bad_value));
    }
    if constexpr (reuse) {
      if (staged_out) {
#pragma unroll
        for (unsigned r = 0; r < warp_size; ++r) {
          if (r < live) stage[padded_index(at_stage + r)] = v[r];
        }
        __syncwarp();
        raw* to = reinterpret_cast<raw*>(y) + ylo;
        for (unsigned i = lane; i < total; i += warp_size) to[i] = stage[padded_index(i)];
        __syncwarp();  // the buffer takes the next round
      } else {
        store_run(reinterpret_cast<raw*>(y + at), live, v);
      }
    } else {
      store_run(y + at, live, wide);
    }
    report_overflow<Op>(overflow, bad, bad_value);
  }
}

/// The long lines listed by scan_short_lines, a block each, walking the line's leaves in order: offsets from
/// order::subtree_stack, as the CPU's one-thread scan.
template <class Op, bool Exclusive>
__global__ void __launch_bounds__(scan_shape<Op>::W, scan_shape<Op>::min_blocks)
    scan_long_lines(const typename Op::input* x, scan_lines lines, typename Op::result* y, const unsigned* long_count,
                    const std::uint64_t* long_list, overflow_record* overflow) {
  using shape = scan_shape<Op>;
  using S = typename Op::state;
  __shared__ leaf_shared<Op> sh;
  // The line's stack of leaf totals, thread 0's, in shared memory: as a local variable its 1.5 KiB would be
  // reserved in local memory for every thread the GPU can hold.
  __shared__ alignas(order::subtree_stack<Op>) unsigned char stack_bytes[sizeof(order::subtree_stack<Op>)];
  auto* totals = reinterpret_cast<order::subtree_stack<Op>*>(stack_bytes);
  const unsigned j = threadIdx.x;
  const unsigned listed = *long_count;
  const S empty = Op::template identity<typename Op::value>();
  for (std::uint64_t q = blockIdx.x; q < listed; q += gridDim.x) {
    const std::uint64_t line = long_list[q];
    const std::uint64_t a = lines.start(line);
    const std::uint64_t ya = lines.out_start(line);
    const std::uint64_t n = lines.size(line);
    if (j == 0) new (totals) order::subtree_stack<Op>();
    S carry = empty;  // thread 0's: the previous leaf's last inclusive state
    for (std::uint64_t start = 0; start < n; start += shape::L) {
      const unsigned count = n - start < shape::L ? static_cast<unsigned>(n - start) : shape::L;
      load_leaf<Op>(reinterpret_cast<const typename shape::raw*>(x) + a + start, count, sh, j);
      S total;
      const S e = block_lane_scan<Op>(staged_lane_sum<Op>(sh, j, lane_live<Op>(count, j)), j, sh, total);
      if (j == 0) {
        sh.offset = totals->root();
        totals->push(total, 1);
      }
      __syncthreads();
      leaf_outputs<Op, Exclusive>(count, e, j, sh, y + ya + start, ya + start, true, carry, overflow);
      if (j == 0) carry = sh.last;
    }
  }
}

// ---- strided lines: through a contiguous copy -------------------------------------------------------------------

inline constexpr unsigned tile = 32;

/// to[t * length + i] = from[t + i * stride] (gather: line t contiguous), or with `back` the reverse with stride
/// `count` (from[t * length + i] to to[t + i * count]); 32 x 32 tiles through shared memory, both sides coalesced.
template <class T, bool Back>
__global__ void transpose_lines(const T* from, T* to, std::uint64_t length, std::uint64_t count, std::uint64_t stride) {
  __shared__ T buffer[tile][tile + 1];
  const std::uint64_t line_tiles = (count + tile - 1) / tile;
  const std::uint64_t tiles = line_tiles * ((length + tile - 1) / tile);
  for (std::uint64_t g = blockIdx.x; g < tiles; g += gridDim.x) {
    const std::uint64_t t0 = (g % line_tiles) * tile;
    const std::uint64_t i0 = (g / line_tiles) * tile;
    __syncthreads();
    for (unsigned r = threadIdx.y; r < tile; r += blockDim.y) {
      if constexpr (!Back) {
        // Read along t (coalesced): element (t0 + threadIdx.x, i0 + r).
        const std::uint64_t t = t0 + threadIdx.x;
        const std::uint64_t i = i0 + r;
        if (t < count && i < length) buffer[threadIdx.x][r] = from[t + i * stride];
      } else {
        // Read along i: element (t0 + r, i0 + threadIdx.x).
        const std::uint64_t t = t0 + r;
        const std::uint64_t i = i0 + threadIdx.x;
        if (t < count && i < length) buffer[r][threadIdx.x] = from[t * length + i];
      }
    }
    __syncthreads();
    for (unsigned r = threadIdx.y; r < tile; r += blockDim.y) {
      if constexpr (!Back) {
        const std::uint64_t t = t0 + r;
        const std::uint64_t i = i0 + threadIdx.x;
        if (t < count && i < length) to[t * length + i] = buffer[r][threadIdx.x];
      } else {
        const std::uint64_t t = t0 + threadIdx.x;
        const std::uint64_t i = i0 + r;
        if (t < count && i < length) to[t + i * count] = buffer[threadIdx.x][r];
      }
    }
  }
}

}  // namespace

template <class Op>
void enqueue_scan(const typename Op::input* x, std::uint64_t n, typename Op::result* y, bool exclusive, workspace& ws,
                  overflow_record* overflow, stream_t stream) {
  using shape = scan_shape<Op>;
  if (n == 0) return;
  auto& st = workspace_access::of(ws);
  const std::uint64_t leaves = order::leaf_count<typename Op::value>(n);
  if (leaves > 0x7fffffffu) throw error("detred::cuda::cumsum: " + std::to_string(n) + " elements are too many");
  const std::uint64_t nodes = tree_nodes(leaves);
  // The ticket counters and the nodes in tagged words (zeroed once, then told apart by the call number).
  st.reserve_scan(book_ticket_bytes + nodes * tagged_words<typename shape::N> * sizeof(unsigned long long), stream);
  if (++st.scan_call == 0) {
    check(cudaMemsetAsync(st.scan, 0, st.scan_bytes, stream), "cudaMemsetAsync (scan book)");
    st.scan_call = 1;
  }
  if (exclusive) st.reserve_partials(leaves * sizeof(typename shape::S), stream);
  scan_book book{};
  book.tickets = static_cast<unsigned*>(st.scan);
  book.node_words = reinterpret_cast<unsigned long long*>(static_cast<unsigned char*>(st.scan) + book_ticket_bytes);
  book.last = st.partials;
  book.leaves = leaves;
  book.call = st.scan_call;
  book.ahead = leaves >= 2 * scan_look_ahead ? scan_look_ahead : 0;
  if (book.ahead != 0) {
    scan_leaf_totals<Op><<<static_cast<unsigned>(book.ahead), shape::W, 0, stream>>>(x, n, book);
    check(cudaGetLastError(), "kernel launch (scan leaf totals)");
  }
  const auto grid = static_cast<unsigned>(leaves);
  if (exclusive) {
    scan_leaves<Op, true><<<grid, shape::W, 0, stream>>>(x, n, y, book, overflow);
    check(cudaGetLastError(), "kernel launch (scan leaves)");
    if (leaves > 1) {
      scan_leaf_firsts<Op><<<static_cast<unsigned>((leaves - 1 + 255) / 256), 256, 0, stream>>>(y, book, overflow);
    }
  } else {
    scan_leaves<Op, false><<<grid, shape::W, 0, stream>>>(x, n, y, book, overflow);
  }
  check(cudaGetLastError(), "kernel launch (scan)");
}

template <class Op>
void enqueue_line_scans(const typename Op::input* x, const scan_lines& lines, std::uint64_t count, std::uint64_t extent,
                        typename Op::result* y, bool exclusive, workspace& ws, overflow_record* overflow,
                        stream_t stream) {
  using shape = scan_shape<Op>;
  if (count == 0) return;
  auto& st = workspace_access::of(ws);
  const std::uint64_t most_long = extent / (short_line + 1) < count ? extent / (short_line + 1) : count;
  st.reserve_partials(16 + 8 * (most_long > 0 ? most_long : 1), stream);
  auto* long_count = static_cast<unsigned*>(st.partials);
  auto* long_list = reinterpret_cast<std::uint64_t*>(static_cast<unsigned char*>(st.partials) + 16);
  check(cudaMemsetAsync(long_count, 0, sizeof(unsigned), stream), "cudaMemsetAsync (scan lines)");
  const std::uint64_t blocks = (count + short_block - 1) / short_block;
  if (blocks > 0x7fffffffu) throw error("detred::cuda::cumsum: too many segments");
  const auto grid = static_cast<unsigned>(blocks);
  if (exclusive) {
    scan_short_lines<Op, true>
        <<<grid, short_block, 0, stream>>>(x, lines, count, y, long_count, long_list, most_long, overflow);
  } else {
    scan_short_lines<Op, false>
        <<<grid, short_block, 0, stream>>>(x, lines, count, y, long_count, long_list, most_long, overflow);
  }
  check(cudaGetLastError(), "kernel launch (short scan lines)");
  if (most_long == 0) return;
  // Blocks loop over the listed lines; a grid of at most long_blocks keeps a call of many short lines (which lists
  // none) from paying for many empty blocks, and still fills an H200 (132 multiprocessors, about 12 blocks each).
  constexpr std::uint64_t long_blocks = 8192;
  const auto long_grid = static_cast<unsigned>(most_long < long_blocks ? most_long : long_blocks);
  if (exclusive) {
    scan_long_lines<Op, true><<<long_grid, shape::W, 0, stream>>>(x, lines, y, long_count, long_list, overflow);
  } else {
    scan_long_lines<Op, false><<<long_grid, shape::W, 0, stream>>>(x, lines, y, long_count, long_list, overflow);
  }
  check(cudaGetLastError(), "kernel launch (long scan lines)");
}

template <class Op>
void enqueue_strided_line_scans(const typename Op::input* x, std::uint64_t length, std::uint64_t stride,
                                std::uint64_t count, typename Op::result* y, workspace& ws, stream_t stream) {
  using T = typename Op::input;
  static_assert(std::is_same_v<T, typename Op::result>, "strided lines are float or double");
  if (length == 0 || count == 0) return;
  auto& st = workspace_access::of(ws);
  st.reserve_staging(length * count * sizeof(T), stream);
  T* lines = static_cast<T*>(st.staging);
  const std::uint64_t tiles = ((count + tile - 1) / tile) * ((length + tile - 1) / tile);
  const auto grid = static_cast<unsigned>(tiles < 65536 ? tiles : 65536);
  const dim3 block(tile, 8);
  transpose_lines<T, false><<<grid, block, 0, stream>>>(x, lines, length, count, stride);
  check(cudaGetLastError(), "kernel launch (gather scan lines)");
  enqueue_line_scans<Op>(lines, scan_lines{.stride = length, .out_stride = length, .length = length}, count,
                         length * count, lines, false, ws, nullptr, stream);
  transpose_lines<T, true><<<grid, block, 0, stream>>>(lines, y, length, count, stride);
  check(cudaGetLastError(), "kernel launch (scatter scan lines)");
}

template <class... Ops>
struct scan_instances {
  static constexpr std::tuple pointers{&enqueue_scan<Ops>..., &enqueue_line_scans<Ops>...};
};
template <class... Ops>
struct strided_scan_instances {
  static constexpr std::tuple pointers{&enqueue_strided_line_scans<Ops>...};
};
template struct scan_instances<
    order::scan_op<double, order::plain_sums>, order::scan_op<double, order::compensated_sums>,
    order::scan_op<float, order::plain_sums>, order::scan_op<float, order::compensated_sums>,
    order::scan_op<float16, order::plain_sums>, order::scan_op<float16, order::compensated_sums>,
    order::scan_op<bfloat16, order::plain_sums>, order::scan_op<bfloat16, order::compensated_sums>,
    integer_scan_op<std::int32_t, std::int64_t>, integer_scan_op<std::int64_t, std::int64_t>,
    integer_scan_op<std::uint32_t, std::uint64_t>, integer_scan_op<std::uint64_t, std::uint64_t>>;
template struct strided_scan_instances<
    order::scan_op<double, order::plain_sums>, order::scan_op<double, order::compensated_sums>,
    order::scan_op<float, order::plain_sums>, order::scan_op<float, order::compensated_sums>>;

}  // namespace detred::cuda::detail
