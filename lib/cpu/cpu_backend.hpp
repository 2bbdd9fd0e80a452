// SPDX-License-Identifier: BSD-3-Clause
// The CPU backend's one entry point: a reduction of host memory by OpenMP threads over the per-instruction-set
// kernels. The front door (lib/api) validates the options and routes here.
#pragma once

#include <cstdint>
#include <span>

#include "core/line_set.hpp"
#include "detred/options.hpp"
#include "detred/order.hpp"

namespace detred {
struct backend_seam;
}

namespace detred::cpu {

/// The CPU backend's entry points for the front door (lib/core/backend_seam.hpp; seam.cpp).
const backend_seam& seam();

/// Below these many bytes one thread is faster than waking a second one (measured with detred-threshold-sweep;
/// docs/performance.md has the table). Compensated mode does seven times the arithmetic per element, so a second
/// thread pays from a smaller size.
inline constexpr std::uint64_t tree_parallel_threshold_bytes = std::uint64_t{512} << 10;
inline constexpr std::uint64_t compensated_parallel_threshold_bytes = std::uint64_t{256} << 10;

/// The threshold of Op: operators with a wider state do more arithmetic per byte.
template <class Op>
constexpr std::uint64_t default_parallel_threshold() {
  return sizeof(typename Op::state) > sizeof(typename Op::value) ? compensated_parallel_threshold_bytes
                                                                 : tree_parallel_threshold_bytes;
}

/// The thread count of a call that asks for `requested` (run_options::threads): itself, or for 0 the default team
/// (OpenMP's default, or one thread while team_policy.hpp finds the machine too busy for a team).
int thread_count(int requested);

/// How a call is run; no field changes the result bits.
struct run_options {
  int threads = 0;  ///< >= 0; 0 = the OpenMP default (normally the hardware thread count)
  isa instruction_set = isa::automatic;
  /// Inputs smaller than this run on one thread. The default picks the threshold above for the operator's cost;
  /// tests and the threshold sweep pass 0 to split every input among the threads.
  std::uint64_t parallel_threshold_bytes = ~std::uint64_t{0};
};

using detred::line_set;  // lib/core/line_set.hpp

/// Op::finalize of the canonical order's root over the operands x[0..n), for every operator in cpu_ops
/// (kernel_table.hpp). Throws detred::error for an instruction set this CPU lacks or an invalid DETRED_ISA.
template <class Op>
typename Op::result reduce(const order::operands<Op>& x, std::uint64_t n, const run_options& how);

/// The root of the canonical order over x[0..n), before Op::finalize: the node of a subtree of a larger array when
/// x starts at a leaf boundary of it and n is a power-of-two number of leaves (or the array's ragged last leaf);
/// x.first places argmin's and argmax's indices in the larger array. Partial states are built from these.
template <class Op>
order::node_of<Op> reduce_to_node(const order::operands<Op>& x, std::uint64_t n, const run_options& how);

/// The same for an operator of one array.
template <class Op>
requires(Op::arity == 1) typename Op::result reduce(std::span<const typename Op::input> x, const run_options& how) {
  return reduce<Op>(order::operands<Op>{{x.data()}, 0}, x.size(), how);
}

/// results[k] = Op over line k of `lines` for k < count (Op in batch_operators), each line reduced as an array of its
/// own (argmin and argmax count from the line's first element): the bits of reduce<Op> on that line alone.
template <class Op>
void reduce_lines(const order::operands<Op>& x, const line_set& lines, std::uint64_t count,
                  typename Op::result* results, const run_options& how);

/// results[t] = Op over x[t], x[t + stride], ..., x[t + (length - 1) * stride] for t < count, each as an array of
/// its own (the columns of a row-major matrix, the rows of a column-major one).
template <class Op>
void reduce_strided_lines(const order::operands<Op>& x, std::uint64_t length, std::uint64_t stride, std::uint64_t count,
                          typename Op::result* results, const run_options& how);

}  // namespace detred::cpu
