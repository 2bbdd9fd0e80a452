// The scalar reference engine: each element goes to its lane, each lane accumulates in index order, the halving
// lane tree makes a leaf, the left-perfect leaf tree makes the root. No SIMD, no blocking, no threads: this is the
// canonical order as plainly as it can be written, for any operator, and every fast path must return its bits.
#pragma once

#include <cstdint>
#include <span>

#include "detred/order.hpp"

namespace detred::reference {

template <order::reduction_op Op>
typename Op::result reduce(std::span<const typename Op::input> x) {
  using T = typename Op::input;
  using S = typename Op::state;
  constexpr std::uint64_t W = order::lanes<T>;
  constexpr std::uint64_t L = order::leaf_size<T>;
  order::subtree_stack<Op> tree;
  for (std::uint64_t start = 0; start < x.size(); start += L) {
    const std::uint64_t count = x.size() - start < L ? x.size() - start : L;
    S lane[W];
    for (std::uint64_t j = 0; j < W; ++j) lane[j] = Op::template identity<T>();
    for (std::uint64_t i = 0; i < count; ++i) lane[i % W] = Op::accumulate(lane[i % W], x[start + i]);
    order::fold_lanes<Op>(lane, W);
    tree.push(lane[0], 1);
  }
  return Op::finalize(tree.root());
}

}  // namespace detred::reference
