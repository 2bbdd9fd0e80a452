// SPDX-License-Identifier: BSD-3-Clause
// The CPU driver of the canonical scan order. One thread walks the leaves in one pass (each leaf's lane scan, its
// offset from the stack of leaf totals, its outputs). Several threads take two passes: each computes the totals of
// a contiguous run of leaves; one thread turns the totals into every leaf's offset with the same stack (a tiny serial
// step: one node per L elements); then each thread finishes the outputs of its run. Every leaf's offset is the root
// of the same left-perfect tree whoever computed the totals, so the outputs have the same bits for any split.
#include <cstdint>
#include <cstring>
#include <span>
#include <tuple>
#include <vector>

#include <omp.h>

#include "cpu/isa_selection.hpp"
#include "cpu/isa_tables.hpp"
#include "cpu/scan_kernels.hpp"
#include "scan_backend.hpp"

namespace detred::cpu {
namespace {

const scan_table& scan_kernels_for(isa resolved) {
  return table_of_isa<scan_table>(resolved, {.baseline = &scan_tables::baseline_kernels,
                                             .avx2 = DETRED_X86_TABLE(scan_tables::avx2_kernels),
                                             .avx512 = DETRED_X86_TABLE(scan_tables::avx512_kernels),
                                             .neon = DETRED_NEON_TABLE(scan_tables::neon_kernels)});
}

/// Writes one leaf's outputs. Inclusive: straight into y. Exclusive: through `buffer` (L outputs), shifted by one:
/// outputs 0..count-2 go to y[1..count), and the last is returned for the first position of the next leaf, which
/// the caller writes once that leaf has been read (in place, y[count] is still an input).
template <class Op>
typename Op::result leaf_outputs(const scan_entry<Op>& k, const typename Op::input* x, std::uint64_t count,
                                 const typename Op::state* bases, typename Op::result* y, bool exclusive,
                                 typename Op::result* buffer) {
  if (!exclusive) {
    k.outputs(x, count, bases, y);
    return y[count - 1];
  }
  k.outputs(x, count, bases, buffer);
  std::memcpy(y + 1, buffer, (count - 1) * sizeof *y);
  return buffer[count - 1];
}

}  // namespace

template <class Op>
void scan(const typename Op::input* x, std::uint64_t n, typename Op::result* y, bool exclusive, const run_options& how,
          std::span<const typename Op::state> before) {
  using T = typename Op::value;
  using S = typename Op::state;
  using Y = typename Op::result;
  constexpr std::uint64_t W = order::lanes<T>;
  constexpr std::uint64_t L = order::leaf_size<T>;
  if (n == 0) return;
  const scan_entry<Op>& k = scan_kernels_of<Op>(scan_kernels_for(resolve(how.instruction_set)));
  const std::uint64_t m = order::leaf_count<T>(n);
  const int threads = thread_count(how.threads);
  const std::uint64_t threshold = how.parallel_threshold_bytes == ~std::uint64_t{0} ? default_parallel_threshold<Op>()
                                                                                    : how.parallel_threshold_bytes;
  const Y empty = order::scan_value(Op::template identity<T>());

  // The stack of leaf totals starts with those of the leaves before x (a piece of a larger array).
  order::subtree_stack<Op> earlier;
  for (const S& total : before) earlier.push(total, 1);

  if (threads <= 1 || m <= 1 || n * sizeof(typename Op::input) < threshold) {
    order::subtree_stack<Op> totals = earlier;
    S e[W];
    S b[W];
    std::vector<Y> buffer(exclusive ? L : 0);
    Y carry = empty;
    for (std::uint64_t start = 0; start < n; start += L) {
      const std::uint64_t count = n - start < L ? n - start : L;
      const S total = k.lane_offsets(x + start, count, e);
      order::lane_bases<Op>(totals.root(), e, b, W);
      const Y last = leaf_outputs<Op>(k, x + start, count, b, y + start, exclusive, buffer.data());
      if (exclusive) y[start] = carry;
      carry = last;
      totals.push(total, 1);
    }
    return;
  }

  // Pass 1: leaf totals. Pass 2 recomputes each leaf's lane scan (the leaf is then in L1 for its outputs) rather
  // than storing W states per leaf.
  std::vector<S> offsets(m);
  std::vector<Y> last(exclusive ? m : 0);
  const int team = static_cast<int>(m < static_cast<std::uint64_t>(threads) ? m : threads);
#pragma omp parallel num_threads(team)
  {
    const auto id = static_cast<std::uint64_t>(omp_get_thread_num());
    const auto size = static_cast<std::uint64_t>(omp_get_num_threads());
    const std::uint64_t first = m * id / size;
    const std::uint64_t end = m * (id + 1) / size;
    S e[W];
    S b[W];
    for (std::uint64_t leaf = first; leaf < end; ++leaf) {
      const std::uint64_t start = leaf * L;
      offsets[leaf] = k.lane_offsets(x + start, n - start < L ? n - start : L, e);
    }
#pragma omp barrier
#pragma omp single
    {
      order::subtree_stack<Op> totals = earlier;
      for (std::uint64_t leaf = 0; leaf < m; ++leaf) {
        const S total = offsets[leaf];
        offsets[leaf] = totals.root();
        totals.push(total, 1);
      }
    }  // the implicit barrier of single: every offset is known
    std::vector<Y> buffer(exclusive ? L : 0);
    for (std::uint64_t leaf = first; leaf < end; ++leaf) {
      const std::uint64_t start = leaf * L;
      const std::uint64_t count = n - start < L ? n - start : L;
      k.lane_offsets(x + start, count, e);
      order::lane_bases<Op>(offsets[leaf], e, b, W);
      const Y out = leaf_outputs<Op>(k, x + start, count, b, y + start, exclusive, buffer.data());
      if (exclusive) last[leaf] = out;
    }
  }
  if (exclusive) {
    y[0] = empty;
    for (std::uint64_t leaf = 1; leaf < m; ++leaf) y[leaf * L] = last[leaf - 1];
  }
}

template <class Op>
void scan_totals(const typename Op::input* x, std::uint64_t n, typename Op::state* totals, const run_options& how) {
  using T = typename Op::value;
  using S = typename Op::state;
  constexpr std::uint64_t W = order::lanes<T>;
  constexpr std::uint64_t L = order::leaf_size<T>;
  const scan_entry<Op>& k = scan_kernels_of<Op>(scan_kernels_for(resolve(how.instruction_set)));
  const std::uint64_t m = order::leaf_count<T>(n);
  const std::uint64_t threshold = how.parallel_threshold_bytes == ~std::uint64_t{0} ? default_parallel_threshold<Op>()
                                                                                    : how.parallel_threshold_bytes;
  const bool split = thread_count(how.threads) > 1 && m > 1 && n * sizeof(typename Op::input) >= threshold;
#pragma omp parallel for schedule(static) num_threads(thread_count(how.threads)) if (split)
  for (std::uint64_t leaf = 0; leaf < m; ++leaf) {
    S e[W];
    const std::uint64_t start = leaf * L;
    totals[leaf] = k.lane_offsets(x + start, n - start < L ? n - start : L, e);
  }
}

template <class List>
struct instantiate_scans;
template <class... Ops>
struct instantiate_scans<scan_op_list<Ops...>> {
  static constexpr std::tuple pointers{&scan<Ops>..., &scan_totals<Ops>...};
};
template struct instantiate_scans<scan_ops>;

}  // namespace detred::cpu
