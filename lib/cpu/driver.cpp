// SPDX-License-Identifier: BSD-3-Clause
// The CPU driver. Threads own aligned blocks of B = 2^k leaves: each block is a perfect subtree of the left-perfect
// leaf tree (the last block a ragged one), so the block roots, folded left to right as subtrees of B leaves, give
// exactly the root of the whole tree. Threads only decide who computes which block.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>
#include <span>
#include <tuple>

#include <omp.h>

#include "cpu_backend.hpp"
#include "detred/order.hpp"
#include "isa_selection.hpp"
#include "kernel_table.hpp"
#include "team_policy.hpp"

namespace detred::cpu {
namespace {

/// At most this many blocks: their roots live on the stack, so a call allocates nothing, and 1024 blocks balance
/// any sensible thread count.
constexpr std::uint64_t max_blocks = 1024;

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// requested: run_options::threads; 0 asks for the default team, which the team policy chooses and observes.
template <class Op>
order::node_of<Op> parallel_root(const order::operands<Op>& x, std::uint64_t n, int requested, std::uint64_t threshold,
                                 subtree_fn<Op> subtree) {
  using V = typename Op::value;
  using N = order::node_of<Op>;
  const std::uint64_t m = order::leaf_count<V>(n);
  const std::uint64_t bytes = n * sizeof(typename Op::input) * Op::arity;
  const bool streaming = bytes >= streaming_bytes;
  if (m <= 1 || bytes < threshold) return subtree(x, n, streaming);
  const bool by_default = requested <= 0;
  const std::int64_t entered = by_default ? now_ns() : 0;
  const int threads = by_default ? default_team_policy().team(omp_get_max_threads(), bytes, entered) : requested;
  if (threads <= 1) return subtree(x, n, streaming);

  std::uint64_t block_leaves = 1;
  while ((m + block_leaves - 1) / block_leaves > max_blocks) block_leaves *= 2;
  const std::uint64_t blocks = (m + block_leaves - 1) / block_leaves;
  const std::uint64_t block_elements = block_leaves * order::leaf_size<V>;
  const int team = static_cast<int>(blocks < static_cast<std::uint64_t>(threads) ? blocks : threads);

  N roots[max_blocks];
  // Default calls: what one thread would take, estimated from the thread that went fastest per element (n times its
  // time per element). A thread started late or taken off its core by another process does not count as fast, so a
  // region slowed by either compares badly with it.
  std::atomic<std::int64_t> one_thread{std::numeric_limits<std::int64_t>::max()};
#pragma omp parallel num_threads(team)
  {
    const std::int64_t started = by_default ? now_ns() : 0;
    // Contiguous runs of blocks per thread keep each thread's stream sequential for the prefetchers.
    const auto id = static_cast<std::uint64_t>(omp_get_thread_num());
    const auto size = static_cast<std::uint64_t>(omp_get_num_threads());
    const std::uint64_t first = blocks * id / size, last = blocks * (id + 1) / size;
    for (std::uint64_t b = first; b < last; ++b) {
      const std::uint64_t start = b * block_elements;
      const std::uint64_t count = n - start < block_elements ? n - start : block_elements;
      roots[b] = subtree(x.advanced(start), count, streaming);
    }
    if (by_default && last > first) {
      const std::uint64_t mine = std::min(n, last * block_elements) - first * block_elements;
      const auto estimate = static_cast<std::int64_t>(static_cast<double>(now_ns() - started) *
                                                      (static_cast<double>(n) / static_cast<double>(mine)));
      std::int64_t best = one_thread.load(std::memory_order_relaxed);
      while (estimate < best && !one_thread.compare_exchange_weak(best, estimate, std::memory_order_relaxed)) {
      }
    }
  }
  if (by_default && team > 1) {
    const std::int64_t ended = now_ns();
    default_team_policy().observe(bytes, ended, ended - entered, one_thread.load(std::memory_order_relaxed));
  }

  order::subtree_stack<Op> top;
  for (std::uint64_t b = 0; b + 1 < blocks; ++b) top.push(roots[b], block_leaves);
  top.push(roots[blocks - 1], m - (blocks - 1) * block_leaves);
  return top.root();
}

}  // namespace

team_policy& default_team_policy() {
  static team_policy policy;
  return policy;
}

int thread_count(int requested) {
  // The batch driver and the batch append follow the single calls' policy (they do not observe it themselves); any
  // size class above the threshold decides for them.
  return requested > 0 ? requested
                       : default_team_policy().team(omp_get_max_threads(), tree_parallel_threshold_bytes, now_ns());
}

template <class Op>
typename Op::result reduce(const order::operands<Op>& x, std::uint64_t n, const run_options& how) {
  const subtree_fn<Op> subtree = subtree_kernel<Op>(kernels_for(resolve(how.instruction_set)));
  const std::uint64_t threshold = how.parallel_threshold_bytes == ~std::uint64_t{0} ? default_parallel_threshold<Op>()
                                                                                    : how.parallel_threshold_bytes;
  return order::finish<Op>(parallel_root<Op>(x, n, how.threads, threshold, subtree), n);
}

template <class Op>
order::node_of<Op> reduce_to_node(const order::operands<Op>& x, std::uint64_t n, const run_options& how) {
  const subtree_fn<Op> subtree = subtree_kernel<Op>(kernels_for(resolve(how.instruction_set)));
  const std::uint64_t threshold = how.parallel_threshold_bytes == ~std::uint64_t{0} ? default_parallel_threshold<Op>()
                                                                                    : how.parallel_threshold_bytes;
  return parallel_root<Op>(x, n, how.threads, threshold, subtree);
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
