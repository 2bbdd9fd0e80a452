// SPDX-License-Identifier: BSD-3-Clause
// The CPU driver. Threads own aligned blocks of B = 2^k leaves: each block is a perfect subtree of the left-perfect
// leaf tree (the last block a ragged one), so the block roots, folded left to right as subtrees of B leaves, give
// exactly the root of the whole tree. Threads only decide who computes which block.
#include <cstdint>
#include <span>
#include <tuple>

#include <omp.h>

#include "cpu_backend.hpp"
#include "detred/order.hpp"
#include "isa_selection.hpp"
#include "kernel_table.hpp"

namespace detred::cpu {
namespace {

/// At most this many blocks: their roots live on the stack, so a call allocates nothing, and 1024 blocks balance
/// any sensible thread count.
constexpr std::uint64_t max_blocks = 1024;

template <class Op>
order::node_of<Op> parallel_root(const order::operands<Op>& x, std::uint64_t n, int threads, std::uint64_t threshold,
                                 subtree_fn<Op> subtree) {
  using V = typename Op::value;
  using N = order::node_of<Op>;
  const std::uint64_t m = order::leaf_count<V>(n);
  if (threads <= 1 || m <= 1 || n * sizeof(typename Op::input) * Op::arity < threshold) return subtree(x, n);

  std::uint64_t block_leaves = 1;
  while ((m + block_leaves - 1) / block_leaves > max_blocks) block_leaves *= 2;
  const std::uint64_t blocks = (m + block_leaves - 1) / block_leaves;
  const std::uint64_t block_elements = block_leaves * order::leaf_size<V>;
  const int team = static_cast<int>(blocks < static_cast<std::uint64_t>(threads) ? blocks : threads);

  N roots[max_blocks];
#pragma omp parallel num_threads(team)
  {
    // Contiguous runs of blocks per thread keep each thread's stream sequential for the prefetchers.
    const auto id = static_cast<std::uint64_t>(omp_get_thread_num());
    const auto size = static_cast<std::uint64_t>(omp_get_num_threads());
    for (std::uint64_t b = blocks * id / size; b < blocks * (id + 1) / size; ++b) {
      const std::uint64_t start = b * block_elements;
      const std::uint64_t count = n - start < block_elements ? n - start : block_elements;
      roots[b] = subtree(x.advanced(start), count);
    }
  }

  order::subtree_stack<Op> top;
  for (std::uint64_t b = 0; b + 1 < blocks; ++b) top.push(roots[b], block_leaves);
  top.push(roots[blocks - 1], m - (blocks - 1) * block_leaves);
  return top.root();
}

}  // namespace

int thread_count(int requested) { return requested > 0 ? requested : omp_get_max_threads(); }

template <class Op>
typename Op::result reduce(const order::operands<Op>& x, std::uint64_t n, const run_options& how) {
  const subtree_fn<Op> subtree = subtree_kernel<Op>(kernels_for(resolve(how.instruction_set)));
  const std::uint64_t threshold = how.parallel_threshold_bytes == ~std::uint64_t{0} ? default_parallel_threshold<Op>()
                                                                                    : how.parallel_threshold_bytes;
  return Op::finalize(parallel_root<Op>(x, n, thread_count(how.threads), threshold, subtree));
}

template <class Op>
order::node_of<Op> reduce_to_node(const order::operands<Op>& x, std::uint64_t n, const run_options& how) {
  const subtree_fn<Op> subtree = subtree_kernel<Op>(kernels_for(resolve(how.instruction_set)));
  const std::uint64_t threshold = how.parallel_threshold_bytes == ~std::uint64_t{0} ? default_parallel_threshold<Op>()
                                                                                    : how.parallel_threshold_bytes;
  return parallel_root<Op>(x, n, thread_count(how.threads), threshold, subtree);
}

// The entry points of every operator in cpu_ops, emitted here for the front door and the tests.
template <class List>
struct instantiate_all;
template <class... Ops>
struct instantiate_all<op_list<Ops...>> {
  static constexpr std::tuple pointers{
      static_cast<typename Ops::result (*)(const order::operands<Ops>&, std::uint64_t, const run_options&)>(
          &reduce<Ops>)...};
  static constexpr std::tuple nodes{&reduce_to_node<Ops>...};
};
template struct instantiate_all<cpu_ops>;

}  // namespace detred::cpu
