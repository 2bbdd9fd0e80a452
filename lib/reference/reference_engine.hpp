// SPDX-License-Identifier: BSD-3-Clause
// The scalar reference engine: each element goes to its lane, each lane accumulates in index order, the halving
// lane tree makes a leaf, the left-perfect leaf tree makes the root. No SIMD, no blocking, no threads: this is the
// canonical order as plainly as it can be written, for any operator, and every fast path must return its bits.
// Exact mode's operators have no order: their reference adds every term to one superaccumulator, one at a time, and
// finishes once.
#pragma once

#include <cstdint>
#include <span>

#include "detred/exact/exact_ops.hpp"
#include "detred/order.hpp"

namespace detred::reference {

/// Op over the operands x[0..n) (Op::arity arrays of n elements).
template <order::reduction_op Op>
typename Op::result reduce(const order::operands<Op>& x, std::uint64_t n) {
  using S = typename Op::state;
  using V = typename Op::value;
  constexpr std::uint64_t W = order::lanes<V>;
  constexpr std::uint64_t L = order::leaf_size<V>;
  order::subtree_stack<Op> tree;
  for (std::uint64_t start = 0; start < n; start += L) {
    const std::uint64_t count = n - start < L ? n - start : L;
    const order::operands<Op> leaf = x.advanced(start);
    S lane[W];
    for (std::uint64_t j = 0; j < W; ++j) lane[j] = Op::template identity<V>();
    for (std::uint64_t i = 0; i < count; ++i) lane[i % W] = order::accumulate_element<Op>(lane[i % W], leaf, i);
    order::fold_lanes<Op>(lane, W);
    tree.push(order::leaf_node<Op>(lane[0], leaf, count), 1);
  }
  return order::finish<Op>(tree.root(), n);
}

/// Op over one array.
/// An exact operator over the operands x[0..n): each term added exactly, in index order (any order gives the same).
template <class Op>
requires(exact::is_exact_op<Op>) typename Op::result reduce(const order::operands<Op>& x, std::uint64_t n) {
  exact::superaccumulator s = exact::empty_superaccumulator();
  for (std::uint64_t i = 0; i < n; ++i) {
    const double a = Op::widened(x.element(0, i));
    Op::add_term(s, a, Op::arity == 2 ? Op::widened(x.element(Op::arity - 1, i)) : a);
  }
  return Op::finalize(s, n);
}

template <class Op>
requires(Op::arity == 1) typename Op::result reduce(std::span<const typename Op::input> x) {
  return reduce<Op>(order::operands<Op>{{x.data()}, 0}, x.size());
}

}  // namespace detred::reference
