// SPDX-License-Identifier: BSD-3-Clause
// Exact mode's batched kernels: the correctly rounded sum, |x| sum, dot product, sum of squares, square root of it
// (nrm2) or quotient by the count (mean) of every segment, row or column (docs/exact.md, "On the GPU"). Each line's
// result is exact::finish_to of its exact value, the CPU's rounding code, so it has the bits of the CPU's exact
// batched call and of the one-array exact call on the line alone.
//
// The arithmetic is the one-array kernel's (exact_terms.cuh): each thread adds its terms to a floating-point
// expansion by error-free steps and spills what it cannot hold into a superaccumulator in shared memory with
// atomics. Every term reaches the line's superaccumulator unrounded, so the split of a line among threads, warps and
// blocks, and the order of the atomics, cannot change a bit; only cost decides them.
//
// Contiguous lines (segments, the rows of a row-major matrix, the columns of a column-major one), in two launches:
//   exact_lines_pass  a warp per line, with a superaccumulator of its own in shared memory: a line of at most
//                     warp_line_limit elements is added by the warp's lanes, merged into the warp's words and
//                     finished by lane 0. A longer line is listed, with its items (runs of item_elements elements)
//                     reserved in one atomic counter, as batch.cu lists its long lines.
//   exact_items_pass  a block per item: the block's words take the item's terms. A line of one item is finished
//                     there; the items of a longer line add their words to the line's accumulator in the scratch
//                     (each word split into its low 32 bits and its carry, as exact.cu's blocks do), and the last
//                     item to finish (a counter per line) finishes the line from it.
// Strided lines (the columns of a row-major matrix, rows of a column-major one): exact_columns_pass, a block per tile
// of 32 adjacent lines and range of rows, lane c of every warp on line c (each load of a warp reads 32 adjacent
// elements of one row), a superaccumulator per line in shared memory. A tile whose rows are split among several
// blocks (few tiles, long lines) merges them in per-line accumulators in the scratch; the last block finishes.
#include <cstdint>
#include <string>

#include <cuda_runtime.h>

#include "batch_enqueue.hpp"
#include "cuda_check.hpp"
#include "exact_enqueue.hpp"
#include "exact_terms.cuh"
#include "line_view.cuh"
#include "resident_blocks.cuh"
#include "workspace_state.hpp"

namespace detred::cuda::detail {
namespace {

constexpr unsigned full_lanes = 0xffffffffu;
constexpr unsigned lanes = 32;
constexpr unsigned line_block = 256;
constexpr unsigned line_warps = line_block / lanes;
constexpr int words = superaccumulator::words;
/// Longest line a warp takes alone: 64 elements a lane. Longer lines go to whole blocks, a block per item.
constexpr std::uint64_t warp_line_limit = 2048;
/// Elements of an item: 128 a thread of a block. A line of several items needs an accumulator in the scratch
/// (1096 bytes), less than 1% of the 128 KiB of floats it holds at least.
constexpr std::uint64_t item_elements = 32768;
/// Blocks per SM that the launch bounds promise room for (registers), as exact.cu's: the float sums' chunks are
/// small, the two-level chunks hold their spills, a dot its two operands; the strided kernel's 35 KiB of shared words
/// allow six blocks. Without a bound, finish_whole (the square root's and the quotient's whole states) would take
/// 255 registers and leave one block per SM; capped, it spills, once per line.
template <exact_kind Kind, class T>
constexpr int line_blocks_per_sm = Kind != exact_kind::dot&& std::is_same_v<T, float> ? 4
                                   : Kind != exact_kind::dot                          ? 3
                                                                                      : 2;
constexpr int column_blocks_per_sm = 3;
/// Terms a thread loads before adding them as one chunk (exact_terms.cuh's fast paths, checked once a chunk).
constexpr int chunk_terms = 8;
/// Rows of one block of the strided kernel: at least enough to pay for its words, at most what keeps every
/// shared word below 2^63 (2^28 terms * 2^32 per digit, plus the expansions).
constexpr std::uint64_t min_rows_per_part = 1024;
constexpr std::uint64_t max_rows_per_part = std::uint64_t{1} << 28;
/// The long lines and their items, in one word (as batch.cu): lines above bit item_bits, items below.
constexpr int item_bits = 40;
constexpr std::uint64_t item_mask = (std::uint64_t{1} << item_bits) - 1;
constexpr std::uint64_t no_accumulator = ~std::uint64_t{0};

/// The counters of a call's listing: long lines and items (above and below item_bits), accumulators handed out.
struct line_work {
  unsigned long long lines_and_items;
  unsigned long long accumulators;
};

/// A listed line: its index, its first item, its items, and its accumulator (lines of several items).
struct long_line {
  std::uint64_t line;
  std::uint64_t first_item;
  std::uint64_t items;
  std::uint64_t accumulator;
};

/// A line's superaccumulator in the scratch, zeroed before the call: words in two's complement, flags, and the
/// count of blocks (items or row ranges) that have added theirs.
struct line_accumulator {
  unsigned long long word[words];
  unsigned int flags;
  unsigned int blocks_done;
};

/// Rounds up to 256 bytes, the alignment of every region carved from a call's scratch.
constexpr std::uint64_t aligned(std::uint64_t bytes) { return (bytes + 255) / 256 * 256; }

/// x[0..n) of one operand pair, a chunk of chunk_terms elements per thread at a time (thread `thread` of `threads`,
/// the chunk's elements `threads` apart so that each load of a warp is contiguous), the rest term by term. The
/// chunk loop's bound is the same for every thread of the group.
template <exact_kind Kind, class T>
__device__ void add_range(thread_sum& t, const T* __restrict__ x, const T* __restrict__ y, std::uint64_t n,
                          unsigned thread, unsigned threads, block_accumulator& acc) {
  const std::uint64_t span = std::uint64_t{threads} * chunk_terms;
  std::uint64_t base = 0;
  for (; base + span <= n; base += span) {
    T cx[chunk_terms], cy[chunk_terms];
#pragma unroll
    for (int j = 0; j < chunk_terms; ++j) {
      const std::uint64_t i = base + std::uint64_t{threads} * j + thread;
      cx[j] = x[i];
      cy[j] = Kind == exact_kind::dot ? y[i] : T{};
    }
    if constexpr (Kind != exact_kind::dot && std::is_same_v<T, float>) {
      float_chunk<Kind == exact_kind::asum>(t, cx, acc);
    } else {
      two_level_chunk<Kind, T>(t, cx, cy, acc);
    }
  }
  for (std::uint64_t i = base + thread; i < n; i += threads) {
    add_element<Kind, T>(t, x[i], Kind == exact_kind::dot ? y[i] : T{}, acc);
  }
}

/// The warp's expansions merged into lane 0's (as exact.cu's blocks do), which lane 0 adds to `acc` with the warp's
/// flags. Every lane of the warp calls it.
__device__ void warp_deposit(thread_sum& t, block_accumulator& acc, unsigned lane) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    double other[expansion_size];
#pragma unroll
    for (int k = 0; k < expansion_size; ++k) other[k] = __shfl_down_sync(full_lanes, t.a[k], offset);
    if (lane < static_cast<unsigned>(offset)) {
#pragma unroll
      for (int k = 0; k < expansion_size; ++k) {
        if (other[k] != 0) insert(t, other[k], acc);
      }
    }
  }
  const unsigned flags = __reduce_or_sync(full_lanes, t.flags);
  if (lane == 0) {
#pragma unroll
    for (int k = 0; k < expansion_size; ++k) {
      if (t.a[k] != 0) deposit(acc, t.a[k]);
    }
    if (flags != 0) atomicOr(&acc.flags, flags);
  }
}

/// A thread's expansion and flags added to `acc` as they are (the strided kernel: the lanes of a warp hold
/// different lines).
__device__ void thread_deposit(const thread_sum& t, block_accumulator& acc) {
#pragma unroll
  for (int k = 0; k < expansion_size; ++k) {
    if (t.a[k] != 0) deposit(acc, t.a[k]);
  }
  if (t.flags != 0) atomicOr(&acc.flags, t.flags);
}

/// The square root (nrm2) or the quotient by n (mean) of the exact value in w[lowest..highest] (every other word
/// zero) with `flags`, rounded once: exact::finish_to on a whole state. Out of line, and apart from the rounding of the
/// sums: its states and long division spill, and only these finishes should pay for that.
template <class T>
__device__ __noinline__ T finish_whole(const std::int64_t* w, int lowest, int highest, unsigned flags, exact::finish f,
                                       std::uint64_t n) {
  superaccumulator whole;
  for (int k = 0; k < words; ++k) whole.word[k] = k >= lowest && k <= highest ? w[k] : 0;
  whole.pending = 0;
  whole.flags = flags;
  return exact::finish_to<T>(f, whole, n);
}

/// The rounded exact value in w[lowest..highest] (exact::round_words, which normalizes w in place). Out of line: one
/// lane a line runs it.
template <class T>
__device__ __noinline__ T round_line(std::int64_t* w, int lowest, int highest, unsigned flags) {
  return exact::round_words<T>(w, lowest, highest, flags);
}

/// The result of a line of n elements whose exact value is in w[lowest..highest] with `flags`, finished by f.
template <class T>
__device__ T finish_words(std::int64_t* w, int lowest, int highest, unsigned flags, exact::finish f, std::uint64_t n) {
  if (f == exact::finish::rounded) return round_line<T>(w, lowest, highest, flags);
  return finish_whole<T>(w, lowest, highest, flags, f, n);
}

/// The warp finds the nonzero words of `acc` (a ballot per 32 words), lane 0 finishes the line into *result.
template <class T>
__device__ void warp_finish(block_accumulator& acc, unsigned flags, exact::finish f, std::uint64_t n, T* result,
                            unsigned lane) {
  int lowest = words;
  int highest = -1;
  for (int base = 0; base < words; base += lanes) {
    const int k = base + static_cast<int>(lane);
    const unsigned nonzero = __ballot_sync(full_lanes, k < words && acc.word[k] != 0);
    if (nonzero != 0) {
      if (lowest == words) lowest = base + __ffs(static_cast<int>(nonzero)) - 1;
      highest = base + 31 - __clz(static_cast<int>(nonzero));
    }
  }
  if (lane == 0) *result = finish_words<T>(reinterpret_cast<std::int64_t*>(acc.word), lowest, highest, flags, f, n);
  __syncwarp();
}

/// Sets the words and flags of `acc` to zero, thread `thread` of `threads`.
__device__ void clear(block_accumulator& acc, unsigned thread, unsigned threads) {
  for (unsigned k = thread; k < static_cast<unsigned>(words); k += threads) acc.word[k] = 0;
  if (thread == 0) acc.flags = 0;
}

/// Adds the words of `acc` to the accumulator `g` in the scratch: each word's low 32 bits in place, its (signed)
/// carry one word up, so that every word of g changes by less than 2^33 per block. Thread `thread` of `threads`.
__device__ void add_to(line_accumulator& g, const block_accumulator& acc, unsigned thread, unsigned threads) {
  for (unsigned k = thread; k < static_cast<unsigned>(words); k += threads) {
    const auto v = static_cast<long long>(acc.word[k]);
    if (v == 0) continue;
    if (k + 1 == static_cast<unsigned>(words)) {
      atomicAdd(&g.word[k], static_cast<unsigned long long>(v));
    } else {
      const long long carry = v >> superaccumulator::digit_bits;
      const long long low = v - carry * (1ll << superaccumulator::digit_bits);
      if (low != 0) atomicAdd(&g.word[k], static_cast<unsigned long long>(low));
      if (carry != 0) atomicAdd(&g.word[k + 1], static_cast<unsigned long long>(carry));
    }
  }
  if (thread == 0 && acc.flags != 0) atomicOr(&g.flags, acc.flags);
}

/// Copies the words and flags of `g` (added by other blocks, read from L2) into `acc`.
__device__ void load_from(block_accumulator& acc, const line_accumulator& g, unsigned thread, unsigned threads) {
  for (unsigned k = thread; k < static_cast<unsigned>(words); k += threads) acc.word[k] = __ldcg(&g.word[k]);
  if (thread == 0) acc.flags = __ldcg(&g.flags);
}

/// A warp per line, lines k = warp, warp + warps, ...: lines of at most warp_line_limit elements are reduced and
/// finished; longer ones are listed for exact_items_pass, with their items and (several items) an accumulator.
template <exact_kind Kind, class T>
__global__ void __launch_bounds__(line_block, line_blocks_per_sm<Kind, T>)
    exact_lines_pass(const T* __restrict__ x, const T* __restrict__ y, line_view lines, std::uint64_t count,
                     exact::finish f, T* __restrict__ results, line_work* __restrict__ work,
                     long_line* __restrict__ long_lines, std::uint64_t long_cap) {
  __shared__ block_accumulator warp_words[line_warps];
  const unsigned lane = threadIdx.x % lanes;
  const unsigned warp = threadIdx.x / lanes;
  block_accumulator& acc = warp_words[warp];
  clear(acc, lane, lanes);
  __syncwarp();
  for (std::uint64_t k = std::uint64_t{blockIdx.x} * line_warps + warp; k < count;
       k += std::uint64_t{gridDim.x} * line_warps) {
    const std::uint64_t start = lines.start(k);
    const std::uint64_t n = lines.size(k);
    if (n <= warp_line_limit) {
      thread_sum t{};
      add_range<Kind, T>(t, x + start, y + start, n, lane, lanes, acc);
      warp_deposit(t, acc, lane);
      __syncwarp();
      warp_finish<T>(acc, acc.flags, f, n, results + k, lane);
      clear(acc, lane, lanes);
      __syncwarp();
    } else if (lane == 0) {
      const std::uint64_t items = (n + item_elements - 1) / item_elements;
      const unsigned long long before =
          atomicAdd(&work->lines_and_items, (1ull << item_bits) + static_cast<unsigned long long>(items));
      const std::uint64_t slot = before >> item_bits;
      const std::uint64_t accumulator = items > 1 ? atomicAdd(&work->accumulators, 1ull) : no_accumulator;
      // The caps hold for lines within the values (the offsets' contract); others are not reduced.
      if (slot < long_cap) long_lines[slot] = {k, before & item_mask, items, accumulator};
    }
  }
}

/// The slot of the long line that item i belongs to: the last of the `listed` lines whose first item is at most i
/// (the list is in item order), found by the warp with 32 probes a round (as batch.cu's line_of_item).
__device__ std::uint64_t line_of_item(const long_line* long_lines, std::uint64_t listed, std::uint64_t i,
                                      unsigned lane) {
  std::uint64_t low = 0;
  std::uint64_t high = listed;
  while (high - low > 1) {
    const std::uint64_t step = (high - low + lanes - 1) / lanes;
    const std::uint64_t probe = low + lane * step;
    const unsigned at_most = __ballot_sync(full_lanes, probe < high && long_lines[probe].first_item <= i);
    low += static_cast<std::uint64_t>(31 - __clz(static_cast<int>(at_most))) * step;
    high = low + step < high ? low + step : high;
  }
  return low;
}

/// A block per item of the listed lines: its terms into the block's words; a line of one item is finished here,
/// the items of a longer line meet in its accumulator and the last of them finishes it.
template <exact_kind Kind, class T>
__global__ void __launch_bounds__(line_block, line_blocks_per_sm<Kind, T>)
    exact_items_pass(const T* __restrict__ x, const T* __restrict__ y, line_view lines, exact::finish f,
                     T* __restrict__ results, const line_work* __restrict__ work,
                     const long_line* __restrict__ long_lines, std::uint64_t long_cap,
                     line_accumulator* __restrict__ accumulators, std::uint64_t accumulator_cap) {
  __shared__ block_accumulator acc;
  __shared__ bool last_item;
  const unsigned lane = threadIdx.x % lanes;
  const unsigned warp = threadIdx.x / lanes;
  clear(acc, threadIdx.x, line_block);
  __syncthreads();
  const unsigned long long counts = work->lines_and_items;
  const std::uint64_t listed = (counts >> item_bits) < long_cap ? counts >> item_bits : long_cap;
  const std::uint64_t total = counts & item_mask;
  for (std::uint64_t i = blockIdx.x; i < total; i += gridDim.x) {
    // Every warp searches (the same answer): no block-wide exchange before the loads.
    const long_line l = long_lines[line_of_item(long_lines, listed, i, lane)];
    const std::uint64_t item = i - l.first_item;
    if (item >= l.items) continue;  // the same for the whole block; only lines past the caps
    if (l.items > 1 && l.accumulator >= accumulator_cap) continue;
    const std::uint64_t n = lines.size(l.line);
    const std::uint64_t first = lines.start(l.line) + item * item_elements;
    const std::uint64_t left = n - item * item_elements;
    thread_sum t{};
    add_range<Kind, T>(t, x + first, y + first, left < item_elements ? left : item_elements, threadIdx.x, line_block,
                       acc);
    warp_deposit(t, acc, lane);
    __syncthreads();
    if (l.items == 1) {
      if (warp == 0) warp_finish<T>(acc, acc.flags, f, n, results + l.line, lane);
    } else {
      line_accumulator& g = accumulators[l.accumulator];
      add_to(g, acc, threadIdx.x, line_block);
      __threadfence();
      __syncthreads();
      if (threadIdx.x == 0) last_item = atomicAdd(&g.blocks_done, 1u) + 1 == l.items;
      __syncthreads();
      if (last_item) {
        // Every other item's words are in g: each block fenced its atomics before it counted itself.
        __threadfence();
        load_from(acc, g, threadIdx.x, line_block);
        __syncthreads();
        if (warp == 0) warp_finish<T>(acc, acc.flags, f, n, results + l.line, lane);
      }
    }
    __syncthreads();
    clear(acc, threadIdx.x, line_block);
    __syncthreads();
  }
}

/// A block per (tile of 32 adjacent strided lines, range of rows_per_part rows): lane c of each warp adds line c's
/// elements of rows w, w + warps, ... (a warp's load is one row's 32 adjacent elements) to its expansion, which goes
/// to the line's words in shared memory. With one range of rows (gridDim.y == 1) the block finishes its lines;
/// otherwise the ranges meet in the lines' accumulators and the tile's last block finishes them.
template <exact_kind Kind, class T>
__global__ void __launch_bounds__(line_block, column_blocks_per_sm)
    exact_columns_pass(const T* __restrict__ x, std::uint64_t length, std::uint64_t stride, std::uint64_t count,
                       std::uint64_t rows_per_part, exact::finish f, T* __restrict__ results,
                       line_accumulator* __restrict__ accumulators, unsigned* __restrict__ parts_done) {
  __shared__ block_accumulator acc[lanes];
  __shared__ bool last_part;
  const unsigned lane = threadIdx.x % lanes;
  const unsigned warp = threadIdx.x / lanes;
  for (unsigned c = 0; c < lanes; ++c) clear(acc[c], threadIdx.x, line_block);
  __syncthreads();
  const std::uint64_t first_line = std::uint64_t{blockIdx.x} * lanes;
  const std::uint64_t line = first_line + lane;
  const std::uint64_t row_begin = std::uint64_t{blockIdx.y} * rows_per_part;
  const std::uint64_t row_end = length - row_begin < rows_per_part ? length : row_begin + rows_per_part;
  if (line < count) {
    thread_sum t{};
    const T* column = x + line;
    constexpr std::uint64_t span = std::uint64_t{line_warps} * chunk_terms;
    std::uint64_t r = row_begin;
    for (; r + span <= row_end; r += span) {
      T cx[chunk_terms];
#pragma unroll
      for (int j = 0; j < chunk_terms; ++j) cx[j] = column[(r + warp + std::uint64_t{line_warps} * j) * stride];
      if constexpr (Kind != exact_kind::dot && std::is_same_v<T, float>) {
        float_chunk<Kind == exact_kind::asum>(t, cx, acc[lane]);
      } else {
        two_level_chunk<Kind, T>(t, cx, cx, acc[lane]);  // a strided dot is the sum of squares (y = x)
      }
    }
    for (r += warp; r < row_end; r += line_warps) {
      const T v = column[r * stride];
      add_element<Kind, T>(t, v, v, acc[lane]);
    }
    thread_deposit(t, acc[lane]);
  }
  __syncthreads();
  const unsigned tile = count - first_line < lanes ? static_cast<unsigned>(count - first_line) : lanes;
  if (gridDim.y > 1) {
    for (unsigned c = 0; c < tile; ++c) add_to(accumulators[first_line + c], acc[c], threadIdx.x, line_block);
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) last_part = atomicAdd(&parts_done[blockIdx.x], 1u) + 1 == gridDim.y;
    __syncthreads();
    if (!last_part) return;
    __threadfence();
    for (unsigned c = 0; c < tile; ++c) load_from(acc[c], accumulators[first_line + c], threadIdx.x, line_block);
    __syncthreads();
  }
  for (unsigned c = warp; c < tile; c += line_warps) {
    warp_finish<T>(acc[c], acc[c].flags, f, length, results + first_line + c, lane);
  }
}

/// The workspace's partial buffer, grown (in stream order) to `bytes`: the scratch of one call.
char* reserve_scratch(workspace& ws, std::uint64_t bytes, stream_t stream) {
  workspace_access::state& s = workspace_access::of(ws);
  s.reserve_partials(bytes, stream);
  return static_cast<char*>(s.partials);
}

/// The scratch of a call over contiguous lines: its counters, the accumulators of the lines of several items and
/// the list of long lines, with their bounds. Lines within the values are disjoint (segments) or one length apart
/// at least (rows): at most extent / (limit + 1) of them pass a limit. Rows are known on the host.
struct lines_scratch {
  std::uint64_t long_cap, accumulator_cap, item_bound;
  std::uint64_t work_bytes, accumulator_bytes, list_bytes;

  /// Rows (no offsets) of `length` elements each, or segments (length unused).
  lines_scratch(std::uint64_t extent, bool rows, std::uint64_t length, std::uint64_t count) {
    long_cap = rows ? (length > warp_line_limit ? count : 0) : extent / (warp_line_limit + 1) + 1;
    accumulator_cap = rows ? (length > item_elements ? count : 0) : extent / (item_elements + 1) + 1;
    item_bound = extent / item_elements + long_cap;
    work_bytes = aligned(sizeof(line_work));
    accumulator_bytes = aligned(accumulator_cap * sizeof(line_accumulator));
    list_bytes = aligned(long_cap * sizeof(long_line));
  }
  std::uint64_t bytes() const { return work_bytes + accumulator_bytes + list_bytes; }
};

template <exact_kind Kind, class T>
void launch_lines(const T* x, const T* y, std::uint64_t extent, const device_lines& lines, std::uint64_t count,
                  exact::finish f, T* results, char* scratch, stream_t stream) {
  if (count > 0xffffffffull) throw error("CUDA exact batch: more than 2^32 - 1 lines");
  const lines_scratch sizes(extent, lines.offsets == nullptr, lines.length, count);
  const std::uint64_t long_cap = sizes.long_cap;
  const std::uint64_t accumulator_cap = sizes.accumulator_cap;
  const std::uint64_t item_bound = sizes.item_bound;
  if (long_cap >= (std::uint64_t{1} << (64 - item_bits)) || item_bound > item_mask) {
    throw error("CUDA exact batch: operands of " + std::to_string(extent) +
                " elements are more than a batch can address");
  }
  const std::uint64_t work_bytes = sizes.work_bytes;
  const std::uint64_t accumulator_bytes = sizes.accumulator_bytes;
  auto* const work = reinterpret_cast<line_work*>(scratch);
  auto* const accumulators = reinterpret_cast<line_accumulator*>(scratch + work_bytes);
  auto* const long_lines = reinterpret_cast<long_line*>(scratch + work_bytes + accumulator_bytes);
  // The counters and the accumulators start at zero (one memset: they are adjacent).
  check(cudaMemsetAsync(scratch, 0, work_bytes + accumulator_cap * sizeof(line_accumulator), stream),
        "cudaMemsetAsync (exact batch counters)");
  const line_view view{lines.offsets, lines.stride, lines.length};
  const std::uint64_t line_blocks = (count + line_warps - 1) / line_warps;
  const std::uint64_t line_grid = resident_blocks(exact_lines_pass<Kind, T>, line_block);
  exact_lines_pass<Kind, T>
      <<<static_cast<unsigned>(line_blocks < line_grid ? line_blocks : line_grid), line_block, 0, stream>>>(
          x, y, view, count, f, results, work, long_lines, long_cap);
  check(cudaGetLastError(), "exact batch lines pass launch");
  if (long_cap == 0) return;
  const std::uint64_t item_grid = resident_blocks(exact_items_pass<Kind, T>, line_block);
  exact_items_pass<Kind, T>
      <<<static_cast<unsigned>(item_bound < item_grid ? item_bound : item_grid), line_block, 0, stream>>>(
          x, y, view, f, results, work, long_lines, long_cap, accumulators, accumulator_cap);
  check(cudaGetLastError(), "exact batch items pass launch");
}

template <exact_kind Kind, class T>
void launch_columns(const T* x, std::uint64_t length, std::uint64_t stride, std::uint64_t count, exact::finish f,
                    T* results, workspace& ws, stream_t stream) {
  const std::uint64_t tiles = (count + lanes - 1) / lanes;
  if (tiles > 0x7fffffffull) throw error("CUDA exact batch: too many lines");
  // Rows split among blocks when the tiles alone would leave the GPU idle, or a block would take too many.
  const std::uint64_t resident = resident_blocks(exact_columns_pass<Kind, T>, line_block);
  std::uint64_t parts = 1;
  if (tiles < resident) {
    const std::uint64_t wanted = (resident + tiles - 1) / tiles;
    const std::uint64_t most = length / min_rows_per_part;
    parts = wanted < most ? wanted : most;
  }
  const std::uint64_t needed = (length + max_rows_per_part - 1) / max_rows_per_part;
  if (parts < needed) parts = needed;
  if (parts < 1) parts = 1;
  if (parts > 65535) throw error("CUDA exact batch: lines of " + std::to_string(length) + " elements are too long");
  const std::uint64_t rows_per_part = parts == 1 ? (length > 0 ? length : 1) : (length + parts - 1) / parts;
  parts = length == 0 ? 1 : (length + rows_per_part - 1) / rows_per_part;
  line_accumulator* accumulators = nullptr;
  unsigned* parts_done = nullptr;
  if (parts > 1) {
    const std::uint64_t accumulator_bytes = aligned(count * sizeof(line_accumulator));
    const std::uint64_t bytes = accumulator_bytes + tiles * sizeof(unsigned);
    char* const scratch = reserve_scratch(ws, bytes, stream);
    check(cudaMemsetAsync(scratch, 0, bytes, stream), "cudaMemsetAsync (exact batch accumulators)");
    accumulators = reinterpret_cast<line_accumulator*>(scratch);
    parts_done = reinterpret_cast<unsigned*>(scratch + accumulator_bytes);
  }
  const dim3 grid(static_cast<unsigned>(tiles), static_cast<unsigned>(parts));
  exact_columns_pass<Kind, T>
      <<<grid, line_block, 0, stream>>>(x, length, stride, count, rows_per_part, f, results, accumulators, parts_done);
  check(cudaGetLastError(), "exact batch strided pass launch");
}

}  // namespace

std::uint64_t exact_lines_scratch_bytes(std::uint64_t extent, const device_lines& lines, std::uint64_t count) {
  return lines_scratch(extent, lines.offsets == nullptr, lines.length, count).bytes();
}

std::uint64_t exact_segments_scratch_bytes(std::uint64_t extent, std::uint64_t count) {
  return lines_scratch(extent, false, 0, count).bytes();
}

template <class T>
void enqueue_exact_lines_in(exact_kind kind, exact::finish f, const T* x, const T* y, std::uint64_t extent,
                            const device_lines& lines, std::uint64_t count, T* results, char* scratch,
                            stream_t stream) {
  if (count == 0) return;
  switch (kind) {
    case exact_kind::sum:
      return launch_lines<exact_kind::sum, T>(x, x, extent, lines, count, f, results, scratch, stream);
    case exact_kind::asum:
      return launch_lines<exact_kind::asum, T>(x, x, extent, lines, count, f, results, scratch, stream);
    case exact_kind::dot:
      return launch_lines<exact_kind::dot, T>(x, y, extent, lines, count, f, results, scratch, stream);
  }
}

template <class T>
void enqueue_exact_lines(exact_kind kind, exact::finish f, const T* x, const T* y, std::uint64_t extent,
                         const device_lines& lines, std::uint64_t count, T* results, workspace& ws, stream_t stream) {
  if (count == 0) return;
  enqueue_exact_lines_in<T>(kind, f, x, y, extent, lines, count, results,
                            reserve_scratch(ws, exact_lines_scratch_bytes(extent, lines, count), stream), stream);
}

template <class T>
void enqueue_exact_strided_lines(exact_kind kind, exact::finish f, const T* x, std::uint64_t length,
                                 std::uint64_t stride, std::uint64_t count, T* results, workspace& ws,
                                 stream_t stream) {
  if (count == 0) return;
  switch (kind) {
    case exact_kind::sum:
      return launch_columns<exact_kind::sum, T>(x, length, stride, count, f, results, ws, stream);
    case exact_kind::asum:
      return launch_columns<exact_kind::asum, T>(x, length, stride, count, f, results, ws, stream);
    case exact_kind::dot:
      return launch_columns<exact_kind::dot, T>(x, length, stride, count, f, results, ws, stream);
  }
}

template void enqueue_exact_lines_in<double>(exact_kind, exact::finish, const double*, const double*, std::uint64_t,
                                             const device_lines&, std::uint64_t, double*, char*, stream_t);
template void enqueue_exact_lines_in<float>(exact_kind, exact::finish, const float*, const float*, std::uint64_t,
                                            const device_lines&, std::uint64_t, float*, char*, stream_t);
template void enqueue_exact_lines<double>(exact_kind, exact::finish, const double*, const double*, std::uint64_t,
                                          const device_lines&, std::uint64_t, double*, workspace&, stream_t);
template void enqueue_exact_lines<float>(exact_kind, exact::finish, const float*, const float*, std::uint64_t,
                                         const device_lines&, std::uint64_t, float*, workspace&, stream_t);
template void enqueue_exact_strided_lines<double>(exact_kind, exact::finish, const double*, std::uint64_t,
                                                  std::uint64_t, std::uint64_t, double*, workspace&, stream_t);
template void enqueue_exact_strided_lines<float>(exact_kind, exact::finish, const float*, std::uint64_t, std::uint64_t,
                                                 std::uint64_t, float*, workspace&, stream_t);

}  // namespace detred::cuda::detail
