// The batched kernels. Every line (segment, matrix row or column, group of a key) is reduced in its own canonical
// order, as if it were an array of its own; threads, warps and blocks only decide who computes which subtree.
//
// Contiguous lines, in up to three launches:
//   lines_pass   one warp per line. A short line (at most item_leaves leaves) is computed whole and finalized. A long
//                one is listed, with a range of work items (runs of item_leaves leaves) reserved for it.
//   items_pass   one warp per item of the long lines: the root of its run of leaves (an aligned, perfect subtree of
//                the line's leaf tree, the last one ragged).
//   fold_items   one thread per long line: its items' roots through the left-perfect leaf tree, then finalize.
// The list's order depends on which warp got there first; that decides only where a line's items are stored.
//
// Strided lines (the columns of a row-major matrix): a block takes 32 adjacent lines, one per thread of each warp,
// so every load of a warp reads 32 adjacent elements of one row. The warps split the lanes of each leaf; the lane
// tree runs in registers for the levels within a thread and through shared memory for the levels between warps.
#include <cstdint>
#include <string>
#include <tuple>

#include <cuda_runtime.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "api/operators.hpp"
#include "batch_enqueue.hpp"
#include "cuda_check.hpp"
#include "leaf_pass.cuh"

namespace detred::cuda::detail {
namespace {

/// Leaves per work item: a warp folds up to 32 leaf roots (warp_fold), and 16 leaves (64 KiB of float) per item
/// keep the per-item overhead small while a line of 2^24 floats still makes 256 items.
constexpr unsigned item_leaves = 16;
constexpr unsigned batch_block = 256;
constexpr unsigned batch_warps = batch_block / warp_size;

struct line_view {
  const std::uint64_t* offsets;
  std::uint64_t stride;
  std::uint64_t length;
  __device__ std::uint64_t start(std::uint64_t k) const { return offsets != nullptr ? offsets[k] : k * stride; }
  __device__ std::uint64_t size(std::uint64_t k) const {
    return offsets != nullptr ? offsets[k + 1] - offsets[k] : length;
  }
};

/// A long line and the range of items reserved for it.
struct long_line {
  std::uint64_t line;
  std::uint64_t first_item;
  std::uint64_t items;
};

struct work_counts {
  unsigned long long lines;
  unsigned long long items;
};

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
/// subtree of the line's leaf tree. Valid in lane 0.
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

template <class Op>
__global__ void __launch_bounds__(batch_block)
    lines_pass(order::operands<Op> x, line_view lines, std::uint64_t count, typename Op::result* __restrict__ results,
               work_counts* __restrict__ work, long_line* __restrict__ long_lines) {
  using V = typename Op::value;
  const unsigned lane = threadIdx.x % warp_size;
  const std::uint64_t warps = std::uint64_t{gridDim.x} * batch_warps;
  for (std::uint64_t k = std::uint64_t{blockIdx.x} * batch_warps + threadIdx.x / warp_size; k < count; k += warps) {
    const std::uint64_t n = lines.size(k);
    const std::uint64_t leaves = order::leaf_count<V>(n);
    if (leaves <= item_leaves) {
      const order::node_of<Op> root =
          n == 0 ? empty<Op>()
                 : run_root<Op>(line_operands<Op>(x, lines.start(k)), n, 0, static_cast<unsigned>(leaves), lane);
      if (lane == 0) results[k] = Op::finalize(root);
    } else if (lane == 0) {
      const std::uint64_t items = (leaves + item_leaves - 1) / item_leaves;
      const std::uint64_t slot = atomicAdd(&work->lines, 1ull);
      long_lines[slot] = {k, atomicAdd(&work->items, static_cast<unsigned long long>(items)), items};
    }
  }
}

/// item_line[i] = the long-line slot that item i belongs to; a block per long line.
__global__ void __launch_bounds__(batch_block)
    list_items(const work_counts* __restrict__ work, const long_line* __restrict__ long_lines,
               std::uint32_t* __restrict__ item_line) {
  for (std::uint64_t e = blockIdx.x; e < work->lines; e += gridDim.x) {
    const long_line l = long_lines[e];
    for (std::uint64_t j = threadIdx.x; j < l.items; j += blockDim.x)
      item_line[l.first_item + j] = static_cast<std::uint32_t>(e);
  }
}

template <class Op>
__global__ void __launch_bounds__(batch_block)
    items_pass(order::operands<Op> x, line_view lines, const work_counts* __restrict__ work,
               const long_line* __restrict__ long_lines, const std::uint32_t* __restrict__ item_line,
               order::node_of<Op>* __restrict__ nodes) {
  using V = typename Op::value;
  const unsigned lane = threadIdx.x % warp_size;
  const std::uint64_t warps = std::uint64_t{gridDim.x} * batch_warps;
  const std::uint64_t total = work->items;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * batch_warps + threadIdx.x / warp_size; i < total; i += warps) {
    const long_line l = long_lines[item_line[i]];
    const std::uint64_t n = lines.size(l.line);
    const std::uint64_t leaves = order::leaf_count<V>(n);
    const std::uint64_t first_leaf = (i - l.first_item) * item_leaves;
    const auto run = static_cast<unsigned>(leaves - first_leaf < item_leaves ? leaves - first_leaf : item_leaves);
    const order::node_of<Op> root = run_root<Op>(line_operands<Op>(x, lines.start(l.line)), n, first_leaf, run, lane);
    if (lane == 0) nodes[i] = root;
  }
}

template <class Op>
__global__ void __launch_bounds__(batch_block)
    fold_items(line_view lines, const work_counts* __restrict__ work, const long_line* __restrict__ long_lines,
               const order::node_of<Op>* __restrict__ nodes, typename Op::result* __restrict__ results) {
  using V = typename Op::value;
  for (std::uint64_t e = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; e < work->lines;
       e += std::uint64_t{gridDim.x} * blockDim.x) {
    const long_line l = long_lines[e];
    const std::uint64_t leaves = order::leaf_count<V>(lines.size(l.line));
    order::subtree_stack<Op> tree;
    for (std::uint64_t j = 0; j < l.items; ++j) {
      tree.push(nodes[l.first_item + j], j + 1 < l.items ? item_leaves : leaves - j * item_leaves);
    }
    results[l.line] = Op::finalize(tree.root());
  }
}

/// Warps per block of the strided kernel: 32 (each thread holds W / 32 lanes) unless the states exchanged between
/// warps would pass 32 KiB of shared memory.
template <class Op>
inline constexpr unsigned strided_warps = sizeof(typename Op::state) * 32 * 32 <= (32u << 10) ? 32 : 16;

template <class Op>
__global__ void __launch_bounds__(strided_warps<Op>* warp_size)
    strided_pass(order::operands<Op> x, std::uint64_t length, std::uint64_t stride, std::uint64_t count,
                 typename Op::result* __restrict__ results) {
  using V = typename Op::value;
  using S = typename Op::state;
  constexpr unsigned warps = strided_warps<Op>;
  constexpr std::uint64_t W = order::lanes<V>;
  constexpr std::uint64_t L = order::leaf_size<V>;
  constexpr unsigned k = static_cast<unsigned>(W / warps);  // lane j = w + warps * s is slot s of warp w
  static_assert(!order::locates_element<Op>, "strided lines are not located");
  __shared__ S exchange[warps][warp_size];
  const unsigned c = threadIdx.x % warp_size;
  const unsigned w = threadIdx.x / warp_size;
  const std::uint64_t line = std::uint64_t{blockIdx.x} * warp_size + c;
  const bool live = line < count;
  const order::operands<Op> mine = x.advanced(live ? line : 0);
  order::subtree_stack<Op> tree;
  const std::uint64_t leaves = order::leaf_count<V>(length);
  for (std::uint64_t f = 0; f < leaves; ++f) {
    const std::uint64_t r0 = f * L;
    const std::uint64_t in_leaf = length - r0 < L ? length - r0 : L;
    S acc[k];
#pragma unroll
    for (unsigned s = 0; s < k; ++s) acc[s] = Op::template identity<V>();
#pragma unroll 4
    for (std::uint64_t r = 0; r < L / W; ++r) {
#pragma unroll
      for (unsigned s = 0; s < k; ++s) {
        const std::uint64_t i = r * W + w + warps * s;
        if (live && i < in_leaf) acc[s] = order::accumulate_element<Op>(acc[s], mine, (r0 + i) * stride);
      }
    }
    // Levels h >= warps pair slots of one thread; the last log2(warps) levels pair warps.
#pragma unroll
    for (unsigned h = k / 2; h >= 1; h /= 2) {
#pragma unroll
      for (unsigned s = 0; s < h; ++s) acc[s] = Op::combine(acc[s], acc[s + h]);
    }
#pragma unroll
    for (unsigned h = warps / 2; h >= 1; h /= 2) {
      if (w >= h && w < 2 * h) exchange[w][c] = acc[0];
      __syncthreads();
      if (w < h) acc[0] = Op::combine(acc[0], exchange[w + h][c]);
      __syncthreads();
    }
    if (w == 0) tree.push(order::to_node<Op>(acc[0], 0), 1);
  }
  if (w == 0 && live) results[line] = Op::finalize(tree.root());
}

/// Grid of the grid-stride passes: enough resident warps to cover the memory latency of every SM.
unsigned resident_blocks() {
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  int sms = 0;
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  return static_cast<unsigned>(sms) * 8;
}

/// Stream-ordered device memory of one call, freed (in stream order) when it goes out of scope.
class scratch {
 public:
  scratch(std::uint64_t bytes, stream_t stream) : stream_(stream) {
    if (bytes > 0) check(cudaMallocAsync(&p_, bytes, stream), "cudaMallocAsync (batch scratch)");
  }
  ~scratch() {
    if (p_ != nullptr) static_cast<void>(cudaFreeAsync(p_, stream_));
  }
  scratch(const scratch&) = delete;
  scratch& operator=(const scratch&) = delete;
  template <class T>
  T* as() const {
    return static_cast<T*>(p_);
  }

 private:
  void* p_ = nullptr;
  stream_t stream_;
};

}  // namespace

template <class Op>
void enqueue_lines(const order::operands<Op>& x, std::uint64_t extent, const device_lines& lines, std::uint64_t count,
                   typename Op::result* results, stream_t stream) {
  using V = typename Op::value;
  using N = order::node_of<Op>;
  if (count == 0) return;
  if (count > 0xffffffffull) throw error("CUDA batch: more than 2^32 - 1 lines");
  // Bounds on the long lines (each longer than item_leaves leaves) and on their items.
  const std::uint64_t long_cap = extent / (item_leaves * order::leaf_size<V>)+1;
  const std::uint64_t item_cap = 3 * long_cap + 4;
  const std::uint64_t bytes_work = 64;
  const std::uint64_t bytes_lines = long_cap * sizeof(long_line);
  const std::uint64_t bytes_items = item_cap * sizeof(std::uint32_t);
  const std::uint64_t bytes_nodes = item_cap * sizeof(N);
  const scratch memory(bytes_work + bytes_lines + bytes_items + bytes_nodes + 64, stream);
  char* const base = memory.as<char>();
  auto* const work = reinterpret_cast<work_counts*>(base);
  auto* const long_lines = reinterpret_cast<long_line*>(base + bytes_work);
  auto* const item_line = reinterpret_cast<std::uint32_t*>(base + bytes_work + bytes_lines);
  // Nodes aligned to 16 bytes (they may hold 128-bit integers).
  const std::uint64_t nodes_at = (bytes_work + bytes_lines + bytes_items + 15) / 16 * 16;
  auto* const nodes = reinterpret_cast<N*>(base + nodes_at);
  check(cudaMemsetAsync(work, 0, sizeof(work_counts), stream), "cudaMemsetAsync (batch counters)");

  const line_view view{lines.offsets, lines.stride, lines.length};
  const unsigned grid = resident_blocks();
  const std::uint64_t line_blocks = (count + batch_warps - 1) / batch_warps;
  lines_pass<Op><<<static_cast<unsigned>(line_blocks < grid ? line_blocks : grid), batch_block, 0, stream>>>(
      x, view, count, results, work, long_lines);
  check(cudaGetLastError(), "batch lines pass launch");
  // Without a long line these find nothing to do; their grids are sized by the bounds, not by a count read back.
  const std::uint64_t cap_blocks = (long_cap + batch_block - 1) / batch_block;
  list_items<<<static_cast<unsigned>(long_cap < grid ? long_cap : grid), batch_block, 0, stream>>>(work, long_lines,
                                                                                                   item_line);
  check(cudaGetLastError(), "batch item listing launch");
  const std::uint64_t item_blocks = (item_cap + batch_warps - 1) / batch_warps;
  items_pass<Op><<<static_cast<unsigned>(item_blocks < grid ? item_blocks : grid), batch_block, 0, stream>>>(
      x, view, work, long_lines, item_line, nodes);
  check(cudaGetLastError(), "batch items pass launch");
  fold_items<Op><<<static_cast<unsigned>(cap_blocks < grid ? cap_blocks : grid), batch_block, 0, stream>>>(
      view, work, long_lines, nodes, results);
  check(cudaGetLastError(), "batch fold launch");
}

template <class Op>
void enqueue_strided_lines(const order::operands<Op>& x, std::uint64_t length, std::uint64_t stride,
                           std::uint64_t count, typename Op::result* results, stream_t stream) {
  if constexpr (order::locates_element<Op>) {
    throw error("CUDA batch: argmin and argmax along a strided axis are not available");
  } else {
    if (count == 0) return;
    const std::uint64_t blocks = (count + warp_size - 1) / warp_size;
    if (blocks > 0x7fffffffull) throw error("CUDA batch: too many lines");
    strided_pass<Op><<<static_cast<unsigned>(blocks), strided_warps<Op> * warp_size, 0, stream>>>(x, length, stride,
                                                                                                  count, results);
    check(cudaGetLastError(), "batch strided pass launch");
  }
}

namespace {

/// Counts each key's values; the first key out of range is recorded (atomicMin of its index) and not counted.
__global__ void count_keys(const std::uint32_t* __restrict__ keys, std::uint64_t n, std::uint64_t bins,
                           unsigned long long* __restrict__ counts, unsigned long long* __restrict__ first_bad) {
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint32_t key = keys[i];
    if (key < bins) {
      atomicAdd(&counts[key], 1ull);
    } else {
      atomicMin(first_bad, static_cast<unsigned long long>(i));
    }
  }
}

}  // namespace

template <class Op>
std::uint64_t reduce_by_key(const typename Op::input* values, const std::uint32_t* keys, std::uint64_t n,
                            std::uint64_t bins, typename Op::result* results, stream_t stream) {
  using T = typename Op::input;
  if (bins == 0) return n == 0 ? ~std::uint64_t{0} : 0;
  if (n > 0x7fffffffull) throw error("CUDA sum_by_key: more than 2^31 - 1 values");
  int bits = 1;
  while (bits < 32 && (std::uint64_t{1} << bits) < bins) ++bits;
  // Counts (bins + 1, the last one zero, so that the exclusive scan ends with the total), offsets, the sorted keys
  // and values, and the first bad index.
  const scratch counts(sizeof(unsigned long long) * (bins + 1) * 2 + 16, stream);
  auto* const count = counts.as<unsigned long long>();
  auto* const offsets = count + bins + 1;
  auto* const first_bad = offsets + bins + 1;
  check(cudaMemsetAsync(count, 0, sizeof(unsigned long long) * (bins + 1), stream), "cudaMemsetAsync (key counts)");
  check(cudaMemsetAsync(first_bad, 0xff, sizeof(unsigned long long), stream), "cudaMemsetAsync (key check)");
  count_keys<<<resident_blocks(), batch_block, 0, stream>>>(keys, n, bins, count, first_bad);
  check(cudaGetLastError(), "key count launch");

  const scratch sorted(n * (sizeof(std::uint32_t) + sizeof(T)) + 16, stream);
  auto* const sorted_keys = sorted.as<std::uint32_t>();
  auto* const sorted_values = reinterpret_cast<T*>(sorted.as<char>() + (n * sizeof(std::uint32_t) + 15) / 16 * 16);
  std::size_t scan_bytes = 0;
  std::size_t sort_bytes = 0;
  check(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, count, offsets, bins + 1, stream), "cub scan (size)");
  check(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys, sorted_keys, values, sorted_values,
                                        static_cast<int>(n), 0, bits, stream),
        "cub radix sort (size)");
  const scratch temporary(scan_bytes > sort_bytes ? scan_bytes : sort_bytes, stream);
  check(cub::DeviceScan::ExclusiveSum(temporary.as<void>(), scan_bytes, count, offsets, bins + 1, stream), "cub scan");
  // A stable sort: each key's values stay in index order.
  check(cub::DeviceRadixSort::SortPairs(temporary.as<void>(), sort_bytes, keys, sorted_keys, values, sorted_values,
                                        static_cast<int>(n), 0, bits, stream),
        "cub radix sort");
  static_assert(sizeof(unsigned long long) == sizeof(std::uint64_t));
  enqueue_lines<Op>(order::operands<Op>{{sorted_values}, 0}, n,
                    {.offsets = reinterpret_cast<const std::uint64_t*>(offsets)}, bins, results, stream);
  unsigned long long bad = 0;
  check(cudaMemcpyAsync(&bad, first_bad, sizeof bad, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync (key check)");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (sum_by_key)");
  return bad;
}

// The kernels of every batched operator.
template <class List>
struct instantiate_batches;
template <class... Ops>
struct instantiate_batches<op_list<Ops...>> {
  static constexpr std::tuple pointers{&enqueue_lines<Ops>..., &enqueue_strided_lines<Ops>...};
};
template struct instantiate_batches<batch_operators>;

template std::uint64_t reduce_by_key<order::sum_op<double, order::plain_sums>>(const double*, const std::uint32_t*,
                                                                               std::uint64_t, std::uint64_t, double*,
                                                                               stream_t);
template std::uint64_t reduce_by_key<order::sum_op<double, order::compensated_sums>>(const double*,
                                                                                     const std::uint32_t*,
                                                                                     std::uint64_t, std::uint64_t,
                                                                                     double*, stream_t);
template std::uint64_t reduce_by_key<order::sum_op<float, order::plain_sums>>(const float*, const std::uint32_t*,
                                                                              std::uint64_t, std::uint64_t, float*,
                                                                              stream_t);
template std::uint64_t reduce_by_key<order::sum_op<float, order::compensated_sums>>(const float*, const std::uint32_t*,
                                                                                    std::uint64_t, std::uint64_t,
                                                                                    float*, stream_t);

}  // namespace detred::cuda::detail
