// SPDX-License-Identifier: BSD-3-Clause
// Enqueues a reduction on a stream: the leaf pass, then folding passes until one value is left. Plain C++ interface,
// so that host code (the API, the tests) needs no CUDA compiler.
#pragma once

#include <cstdint>

#include "detred/cuda.hpp"
#include "detred/options.hpp"
#include "detred/order.hpp"
#include "launch_plan.hpp"

namespace detred::cuda::detail {

/// True for the integer sums, which are exact and so need no canonical order: enqueue_reduction sends them to
/// kernels of their own (integer_sum.cuh), which ignore the plan.
template <class Op>
inline constexpr bool is_integer_sum = false;
template <class I>
inline constexpr bool is_integer_sum<order::integer_sum_op<I>> = true;

/// The most block sums the integer kernels write (about one wave of the H100/H200's 132 multiprocessors at 8 blocks
/// each).
inline constexpr std::uint64_t integer_max_blocks = 1024;

/// Bytes the partial buffer needs for a plan: partial_values(plan) nodes of Op (the integer sums: their block sums).
template <class Op>
constexpr std::uint64_t partial_bytes(const launch_plan& plan) {
  if constexpr (is_integer_sum<Op>) {
    return integer_max_blocks * sizeof(order::node_of<Op>);
  } else {
    return partial_values(plan) * sizeof(order::node_of<Op>);
  }
}

/// Enqueues Op over the device operands x[0..n) on `stream`, writing the finalized result to the device address
/// `result`. `partials` must hold partial_bytes<Op>(plan). Throws detred::error if a launch fails. Defined for every
/// operator in all_operators (lib/api/operators.hpp).
template <class Op>
void enqueue_reduction(const order::operands<Op>& x, std::uint64_t n, const launch_plan& plan, void* partials,
                       typename Op::result* result, stream_t stream);

/// The sum in mode m: enqueue_reduction with the mode's sum operator (its nodes are at most 16 bytes).
void enqueue_sum(const double* x, std::uint64_t n, mode m, const launch_plan& plan, void* partials, double* result,
                 stream_t stream);
void enqueue_sum(const float* x, std::uint64_t n, mode m, const launch_plan& plan, void* partials, float* result,
                 stream_t stream);

/// Reductions enqueued on any device since the process started: lets tests see where a call ran, which the result
/// bits, equal on every backend, cannot tell.
std::uint64_t enqueued_sums();

}  // namespace detred::cuda::detail
