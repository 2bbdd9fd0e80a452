// Threads own aligned blocks of B = 2^k leaves: each block is a perfect subtree of the left-perfect leaf tree (the
// last block a ragged one), so the block roots, folded left to right as subtrees of B leaves, give exactly the root
// of the whole tree. Threads only decide who computes which block.
#include <cstdint>
#include <span>

#include <omp.h>

#include "cpu_sum.hpp"
#include "detred/order.hpp"
#include "dispatch.hpp"
#include "kernel_table.hpp"

namespace detred::cpu {
namespace {

/// At most this many blocks: their roots live on the stack, so a call allocates nothing, and 1024 blocks balance
/// any sensible thread count.
constexpr std::uint64_t max_blocks = 1024;

template <class T, class V>
using subtree_fn = V (*)(const T*, std::uint64_t);

template <class T, class V>
T parallel_sum(std::span<const T> x, int threads, std::uint64_t parallel_threshold_bytes, subtree_fn<T, V> subtree) {
  const std::uint64_t n = x.size();
  const std::uint64_t m = order::leaf_count<T>(n);
  if (threads <= 1 || m <= 1 || n * sizeof(T) < parallel_threshold_bytes) {
    return order::finalize(subtree(x.data(), n));
  }

  std::uint64_t block_leaves = 1;
  while ((m + block_leaves - 1) / block_leaves > max_blocks) block_leaves *= 2;
  const std::uint64_t blocks = (m + block_leaves - 1) / block_leaves;
  const std::uint64_t block_elements = block_leaves * order::leaf_size<T>;
  const int team = static_cast<int>(blocks < static_cast<std::uint64_t>(threads) ? blocks : threads);

  V roots[max_blocks];
#pragma omp parallel num_threads(team)
  {
    // Contiguous runs of blocks per thread keep each thread's stream sequential for the prefetchers.
    const auto id = static_cast<std::uint64_t>(omp_get_thread_num());
    const auto size = static_cast<std::uint64_t>(omp_get_num_threads());
    for (std::uint64_t b = blocks * id / size; b < blocks * (id + 1) / size; ++b) {
      const std::uint64_t start = b * block_elements;
      const std::uint64_t count = n - start < block_elements ? n - start : block_elements;
      roots[b] = subtree(x.data() + start, count);
    }
  }

  order::subtree_stack<V> top;
  for (std::uint64_t b = 0; b + 1 < blocks; ++b) top.push(roots[b], block_leaves);
  top.push(roots[blocks - 1], m - (blocks - 1) * block_leaves);
  return order::finalize(top.root());
}

template <class T>
struct table_entries;
template <>
struct table_entries<double> {
  static auto tree(const kernel_table& k) { return k.tree_f64; }
  static auto compensated(const kernel_table& k) { return k.compensated_f64; }
};
template <>
struct table_entries<float> {
  static auto tree(const kernel_table& k) { return k.tree_f32; }
  static auto compensated(const kernel_table& k) { return k.compensated_f32; }
};

template <class T>
T sum_any(std::span<const T> x, mode m, int threads, isa resolved, std::uint64_t threshold) {
  const kernel_table& k = kernels_for(resolved);
  if (threshold == default_threshold) {
    threshold = m == mode::compensated ? compensated_parallel_threshold_bytes : tree_parallel_threshold_bytes;
  }
  if (m == mode::compensated) {
    return parallel_sum<T, order::pair<T>>(x, threads, threshold, table_entries<T>::compensated(k));
  }
  return parallel_sum<T, T>(x, threads, threshold, table_entries<T>::tree(k));
}

}  // namespace

double sum(std::span<const double> x, mode m, int threads, isa resolved, std::uint64_t parallel_threshold_bytes) {
  return sum_any(x, m, threads, resolved, parallel_threshold_bytes);
}
float sum(std::span<const float> x, mode m, int threads, isa resolved, std::uint64_t parallel_threshold_bytes) {
  return sum_any(x, m, threads, resolved, parallel_threshold_bytes);
}

}  // namespace detred::cpu
