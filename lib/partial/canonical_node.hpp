// SPDX-License-Identifier: BSD-3-Clause
// Nodes with every NaN made the canonical one, so that equal states have equal bytes.
//
// Why: which NaN an addition keeps depends on the operand order and on the machine (x86 keeps the first operand's
// payload and makes 0xfff8... of Inf - Inf; aarch64 and CUDA make 0x7ff8...), and the SIMD engines join lanes in an
// order that depends on the thread count. Results never show it (every finalize makes NaN canonical), but a node
// keeps it, and the byte form, which users hash and compare, would too. A NaN field stays NaN through every later
// merge whatever its payload, and no operator reads a NaN's sign or payload (selections treat every NaN alike), so
// canonical nodes change no result bit.
#pragma once

#include <type_traits>

#include "detred/order.hpp"
#include "node_kinds.hpp"

namespace detred::partial {

template <class T>
inline constexpr bool unknown_node = false;

/// n with each floating-point field's NaN replaced by the canonical NaN; integer fields (counts, indices, integer
/// sums and selections) unchanged. Every node type of every operator is listed: a new one fails to compile here
/// until its NaN rule is written.
template <class N>
N canonical_node(N n) {
  if constexpr (std::is_floating_point_v<N>) {
    return order::canonical(n);  // sum, asum, dot (tree), min, max
  } else if constexpr (std::is_integral_v<N> || std::is_same_v<N, order::wide_integer>) {
    return n;  // integer selections and sums
  } else if constexpr (is_pair_node<N>) {
    return {canonical_node(n.sum), canonical_node(n.correction)};  // compensated sums
  } else if constexpr (is_located_node<N>) {
    n.value = canonical_node(n.value);  // argmin, argmax
    return n;
  } else if constexpr (requires { n.small, n.medium, n.big; }) {
    n.small = canonical_node(n.small);  // nrm2's three sums of scaled squares
    n.medium = canonical_node(n.medium);
    n.big = canonical_node(n.big);
    return n;
  } else if constexpr (requires { n.count, n.sum, n.shift, n.shifted_sum, n.m2, n.min, n.max; }) {
    static_assert(sizeof(N) == sizeof(n.count) + 6 * sizeof(n.sum),
                  "stats' node has other fields than count, sum, shift, shifted_sum, m2, min and max: list its "
                  "floating-point ones here");
    n.sum = canonical_node(n.sum);  // stats: the count is an integer
    n.shift = canonical_node(n.shift);
    n.shifted_sum = canonical_node(n.shifted_sum);
    n.m2 = canonical_node(n.m2);
    n.min = canonical_node(n.min);
    n.max = canonical_node(n.max);
    return n;
  } else {
    static_assert(unknown_node<N>, "a node type without a NaN rule: list its floating-point fields here");
  }
}

}  // namespace detred::partial
