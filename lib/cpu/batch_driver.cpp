// SPDX-License-Identifier: BSD-3-Clause
// The CPU driver for batches: threads take whole lines (each line is reduced in its own canonical order by one
// thread, so who takes which line cannot change a bit), and a line long enough to keep every thread busy by itself
// is reduced by reduce<Op> with all of them.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <tuple>

#include <omp.h>

#include "cpu_backend.hpp"
#include "detred/order.hpp"
#include "isa_selection.hpp"
#include "kernel_table.hpp"
#include "line_chunks.hpp"

namespace detred::cpu {
namespace {

/// Lines at least this long get all threads each: below it, a second thread does not pay (the threshold of one
/// array, in elements) and one line per thread balances well enough.
template <class Op>
std::uint64_t long_line(std::uint64_t total, int threads) {
  const std::uint64_t parallel = tree_parallel_threshold_bytes / (sizeof(typename Op::input) * Op::arity);
  return std::max<std::uint64_t>(parallel, total / static_cast<std::uint64_t>(threads));
}

}  // namespace

template <class Op>
void reduce_lines(const order::operands<Op>& x, const line_set& lines, std::uint64_t count,
                  typename Op::result* results, const run_options& how) {
  if (count == 0) return;
  const lines_fn<Op> kernel = kernels_of<Op>(kernels_for(resolve(how.instruction_set))).lines;
  const int threads = thread_count(how.threads);
  const std::uint64_t total = lines.offsets != nullptr ? lines.offsets[count] - lines.offsets[0] : count * lines.length;
  const std::uint64_t longest = threads > 1 ? long_line<Op>(total, threads) : ~std::uint64_t{0};
  const int team = total < tree_parallel_threshold_bytes / sizeof(typename Op::input) ? 1 : threads;
  reduce_in_chunks(
      lines, count, static_cast<std::uint64_t>(threads) * 16, team, longest,
      [&](std::uint64_t begin, std::uint64_t end) { return kernel(x, lines, begin, end, longest, results); },
      [&](std::uint64_t k, std::uint64_t n) {
        order::operands<Op> line = x.advanced(lines.start(k));
        line.first = 0;
        results[k] = reduce<Op>(line, n, how);
      });
}

template <class Op>
void reduce_strided_lines(const order::operands<Op>& x, std::uint64_t length, std::uint64_t stride, std::uint64_t count,
                          typename Op::result* results, const run_options& how) {
  if (count == 0) return;
  const strided_lines_fn<Op> kernel = kernels_of<Op>(kernels_for(resolve(how.instruction_set))).strided_lines;
  const int threads = thread_count(how.threads);
  // Runs of 64 adjacent lines (whole registers of every instruction set) per chunk.
  constexpr std::uint64_t quantum = 64;
  const std::uint64_t units = (count + quantum - 1) / quantum;
  const std::uint64_t chunks = std::min<std::uint64_t>(units, static_cast<std::uint64_t>(threads));
  const int team = count * length < tree_parallel_threshold_bytes / sizeof(typename Op::input) ? 1 : threads;
#pragma omp parallel for schedule(static, 1) num_threads(team)
  for (std::uint64_t c = 0; c < chunks; ++c) {
    const std::uint64_t first = std::min(count, units * c / chunks * quantum);
    const std::uint64_t last = std::min(count, units * (c + 1) / chunks * quantum);
    const std::unique_ptr<unsigned char[]> scratch(new unsigned char[strided_scratch_bytes]);
    kernel(x, length, stride, first, last, results, scratch.get(), strided_scratch_bytes);
  }
}

// The entry points of every operator of the batched API.
template <class List>
struct instantiate_batches;
template <class... Ops>
struct instantiate_batches<op_list<Ops...>> {
  static constexpr std::tuple pointers{
      static_cast<void (*)(const order::operands<Ops>&, const line_set&, std::uint64_t, typename Ops::result*,
                           const run_options&)>(&reduce_lines<Ops>)...,
      static_cast<void (*)(const order::operands<Ops>&, std::uint64_t, std::uint64_t, std::uint64_t,
                           typename Ops::result*, const run_options&)>(&reduce_strided_lines<Ops>)...};
};
template struct instantiate_batches<batch_operators>;

}  // namespace detred::cpu
