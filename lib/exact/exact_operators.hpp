// SPDX-License-Identifier: BSD-3-Clause
// The CPU backend's entry points for the exact operators (detred/exact/exact_ops.hpp): an operator's terms pick the
// driver's state (sum, |x| sum, products, squares as the products of x with itself) and its finish the rounding.
// lib/cpu/seam.cpp sends every exact operator here, as it sends the canonical order's to the lane engine.
#pragma once

#include <cstdint>

#include "detred/options.hpp"

#include "cpu/cpu_backend.hpp"
#include "detred/exact/exact_ops.hpp"
#include "detred/order.hpp"
#include "exact_backend.hpp"
#include "exact_batches.hpp"

namespace detred::exact_cpu {

/// The exact state of Op's terms over x[0..n).
template <class Op>
exact::superaccumulator state_of(const order::operands<Op>& x, std::uint64_t n, const cpu::run_options& how) {
  if constexpr (Op::adds == exact::terms::products) {
    return dot_state(x.data[0], x.data[1], n, how);
  } else if constexpr (Op::adds == exact::terms::squares) {
    return dot_state(x.data[0], x.data[0], n, how);
  } else {
    return sum_state(x.data[0], n, Op::adds == exact::terms::magnitudes, how);
  }
}

template <class Op>
typename Op::result reduce(const order::operands<Op>& x, std::uint64_t n, const cpu::run_options& how) {
  return Op::finalize(state_of<Op>(x, n, how), n);
}

/// The batch driver's name for what Op computes on each line.
template <class Op>
constexpr line_op line_op_of() {
  switch (Op::adds) {
    case exact::terms::values:
      return line_op::sum;
    case exact::terms::magnitudes:
      return line_op::asum;
    case exact::terms::products:
      return line_op::dot;
    case exact::terms::squares:
      break;
  }
  return line_op::squares;
}

template <class Op>
void reduce_lines(const order::operands<Op>& x, const cpu::line_set& lines, std::uint64_t count,
                  typename Op::result* results, const cpu::run_options& how) {
  exact_cpu::reduce_lines(line_op_of<Op>(), Op::finishes, x.data[0], Op::arity == 2 ? x.data[Op::arity - 1] : nullptr,
                          lines, count, results, how);
}

template <class Op>
void reduce_strided_lines(const order::operands<Op>& x, std::uint64_t length, std::uint64_t stride, std::uint64_t count,
                          typename Op::result* results, const cpu::run_options& how) {
  if constexpr (Op::arity == 2) {
    throw error("exact dot products have no strided lines (the batched API has none)");
  } else {
    exact_cpu::reduce_strided_lines(line_op_of<Op>(), Op::finishes, x.data[0], length, stride, count, results, how);
  }
}

}  // namespace detred::exact_cpu
