// SPDX-License-Identifier: BSD-3-Clause
// The canonical scan order, version 1: which additions give each output y_i of a prefix sum (cumsum), fixed by the
// index i alone. docs/canonical-order.md ("Scans") states it in prose with the reasons; this is the same statement in
// code, and every scan engine (the scalar reference, the SIMD kernels, the threaded driver) calls it.
//
//   leaves     element i belongs to leaf b = i / L, at position k = i % L (L = leaf_size<T>, as the reduction's).
//   lanes      inside a leaf, lane j owns the R = L / W contiguous positions [j R, (j + 1) R) (W = lanes<T>); it
//              keeps a running sum p, from the identity, over its positions in increasing order.
//   lane scan  the lane totals t[0..W) go through a Kogge-Stone scan (for d = 1, 2, ..., W/2: t[j] = t[j - d] (+)
//              t[j] for j >= d, all j at once), giving inclusive sums; the exclusive ones e[j] (e[0] the identity)
//              are what lane j adds, and the last inclusive one is the leaf's total T_b.
//   leaf scan  the leaf's offset O_b is the root of the reduction's left-perfect tree over the totals T_0..T_{b-1}
//              (the identity for b = 0): the fold of order::subtree_stack after b pushes.
//   outputs    lane j's base B_j = O_b (+) e[j]; the output at position k = j R + r is finalize(B_j (+) p_r), p_r
//              the lane's running sum through position r.
//
// (+) is the mode's join and a lane's step its add (plain_sums or compensated_sums, order/accumulation.hpp), so an
// output is a fixed expression tree over x_0..x_i: it does not depend on n, the thread count or the instruction set.
// The functions below are generic over a scalar lane value or a SIMD vector of lanes, like the reduction operators.
#pragma once

#include <cstdint>
#include <cstring>

#include "detred/config.hpp"
#include "detred/order/accumulation.hpp"
#include "detred/order/arithmetic.hpp"
#include "detred/order/ops.hpp"
#include "detred/order/shape.hpp"
#include "detred/order/trees.hpp"

namespace detred::order {

/// Version of the scan order. Scan output bits are a pure function of (mode, type, i, x_0..x_i, version); changing
/// anything here that alters one bumps it. Independent of order_version (the reductions').
inline constexpr int scan_order_version = 1;

/// R: the positions one lane owns in a leaf (L / W = 32).
template <class T>
inline constexpr std::uint64_t scan_lane_length = leaf_size<T> / lanes<T>;

/// The scan operator of an input type and a mode's policy: the sum's operator (widening 16-bit floats to float).
template <class Input, class Policy>
using scan_op = sum_op<Input, Policy>;

inline namespace DETRED_ORDER_ABI {

/// D_s(n): the largest number of rounded additions on a path from an element x_k to any output y_i of an array of n
/// elements. An output in leaf b passes an element of its own lane through at most R additions (lane steps, then
/// the base), of an earlier lane of the leaf through (R - 1) + log2 W + 2 (lane chain, lane scan, base, output), of
/// an earlier leaf through (R - 1) + log2 W + ceil(log2 b) + 2 (the leaf total, the left-perfect tree of the
/// offset, base, output). This takes the largest b = (n - 1) / L and, for n < R, the shorter lane chain.
/// Tree mode: |y_i - ŷ_i| <= gamma_{D_s(i + 1)} * sum_{k <= i} |x_k| (docs/canonical-order.md, "Scans").
template <class T>
DETRED_HOST_DEVICE constexpr int scan_depth(std::uint64_t n) {
  if (n == 0) return 0;
  const std::uint64_t R = scan_lane_length<T>;
  const std::uint64_t chain = n < R ? n : R;
  return static_cast<int>(chain - 1) + exact_log2(lanes<T>) + ceil_log2((n - 1) / leaf_size<T>) + 2;
}

/// D'_s(n): the additions an error term of compensated mode passes through: one per lane step, two per join
/// ((c1 + c2) + e), and a join at each lane-scan level, each level of the offset's tree, the base and the output.
template <class T>
DETRED_HOST_DEVICE constexpr int scan_correction_depth(std::uint64_t n) {
  if (n == 0) return 0;
  return scan_depth<T>(n) + exact_log2(lanes<T>) + ceil_log2((n - 1) / leaf_size<T>) + 2;
}

/// An output from its (sum) state: the mode's finalize, written with lane-wise selects so that a scalar and a SIMD
/// vector of outputs run the same expression. Tree mode: NaN made canonical. Compensated mode
/// (compensated_sums::value): s if s or c is not finite or c == 0, else s + c; then NaN made canonical.
template <class V>
DETRED_HOST_DEVICE inline V scan_value(const V& s) {
  return s == s ? s : splat<V>(canonical_nan<element_t<V>>());
}
template <class V>
DETRED_HOST_DEVICE inline V scan_value(const pair<V>& s) {
  const V r = (((s.sum - s.sum) == (s.sum - s.sum)) & ((s.correction - s.correction) == (s.correction - s.correction)) &
               (s.correction != splat<V>(element_t<V>(0))))
                  ? V(s.sum + s.correction)
                  : s.sum;
  return scan_value(r);
}

/// Lane scan: t[0..W) holds the leaf's lane totals; afterwards t[j] is the exclusive sum e[j] (t[0] the identity),
/// and the leaf's total (the last inclusive sum) is returned. Kogge-Stone: log2 W levels; inside a level every lane
/// reads the previous level's values (descending j, so t[j - d] is still the old value).
template <class Op>
DETRED_HOST_DEVICE constexpr typename Op::state lane_scan(typename Op::state* t, std::uint64_t W) {
  for (std::uint64_t d = 1; d < W; d *= 2) {
    for (std::uint64_t j = W - 1; j >= d; --j) t[j] = Op::combine(t[j - d], t[j]);
  }
  const typename Op::state total = t[W - 1];
  for (std::uint64_t j = W - 1; j >= 1; --j) t[j] = t[j - 1];
  t[0] = Op::template identity<typename Op::value>();
  return total;
}

/// The bases of a leaf: b[j] = O (+) e[j].
template <class Op>
DETRED_HOST_DEVICE constexpr void lane_bases(const typename Op::state& offset, const typename Op::state* e,
                                             typename Op::state* b, std::uint64_t W) {
  for (std::uint64_t j = 0; j < W; ++j) b[j] = Op::combine(offset, e[j]);
}

/// A leaf x[0..count) (count <= L) in scalar form: the lanes' running totals into t[0..W) (lanes past the data keep
/// the identity), then the lane scan. Returns the leaf's total; t holds e.
template <class Op>
DETRED_HOST_DEVICE typename Op::state leaf_lane_offsets(const typename Op::input* x, std::uint64_t count,
                                                        typename Op::state* t) {
  using T = typename Op::value;
  constexpr std::uint64_t W = lanes<T>;
  constexpr std::uint64_t R = scan_lane_length<T>;
  for (std::uint64_t j = 0; j < W; ++j) {
    typename Op::state p = Op::template identity<T>();
    for (std::uint64_t k = j * R; k < (j + 1) * R && k < count; ++k) {
      raw_t<typename Op::input> raw;
      std::memcpy(&raw, x + k, sizeof raw);
      p = Op::template accumulate<T>(p, raw);
    }
    t[j] = p;
  }
  return lane_scan<Op>(t, W);
}

/// The outputs of a leaf x[0..count) in scalar form from its bases b[0..W): y[j R + r] = finalize(b[j] (+) p_r).
/// y may equal x (each element is read before its output is written).
template <class Op>
DETRED_HOST_DEVICE void leaf_outputs(const typename Op::input* x, std::uint64_t count, const typename Op::state* b,
                                     typename Op::result* y) {
  using T = typename Op::value;
  constexpr std::uint64_t W = lanes<T>;
  constexpr std::uint64_t R = scan_lane_length<T>;
  for (std::uint64_t j = 0; j < W && j * R < count; ++j) {
    typename Op::state p = Op::template identity<T>();
    for (std::uint64_t k = j * R; k < (j + 1) * R && k < count; ++k) {
      raw_t<typename Op::input> raw;
      std::memcpy(&raw, x + k, sizeof raw);
      p = Op::template accumulate<T>(p, raw);
      y[k] = scan_value(Op::combine(b[j], p));
    }
  }
}

/// O_b in random-access form, for engines that find the leaves' offsets in parallel (the GPU): the root of the
/// left-perfect tree over the leaf totals T_0..T_{b-1}, from the roots of its perfect subtrees. perfect(k, i) gives
/// the root of the perfect tree over leaves [i 2^k, (i + 1) 2^k): perfect(0, i) = T_i and perfect(k, i) =
/// merge(perfect(k - 1, 2 i), perfect(k - 1, 2 i + 1)). After b pushes subtree_stack holds one such subtree per one
/// bit k of b, over leaves [((b >> k) - 1) 2^k, (b >> k) 2^k), the largest leftmost; this folds them as its root()
/// does, from the smallest (rightmost) up, so the result has the bits of subtree_stack's root after b pushes.
template <class Op, class Perfect>
DETRED_HOST_DEVICE node_of<Op> leaf_offset(std::uint64_t b, Perfect&& perfect) {
  if (b == 0) return empty_node<Op>();
  int k = 0;
  while (((b >> k) & 1) == 0) ++k;
  node_of<Op> acc = perfect(k, (b >> k) - 1);
  for (++k; k < 64; ++k) {
    if (((b >> k) & 1) != 0) acc = merge<Op>(perfect(k, (b >> k) - 1), acc);
  }
  return acc;
}

/// The scan as plainly as possible, one leaf after the other: the specification in code. y[i] = the inclusive
/// output i of x[0..n); y may equal x.
template <class Op>
void reference_scan(const typename Op::input* x, std::uint64_t n, typename Op::result* y) {
  using T = typename Op::value;
  constexpr std::uint64_t W = lanes<T>;
  constexpr std::uint64_t L = leaf_size<T>;
  subtree_stack<Op> totals;
  typename Op::state e[W];
  typename Op::state b[W];
  for (std::uint64_t start = 0; start < n; start += L) {
    const std::uint64_t count = n - start < L ? n - start : L;
    const typename Op::state total = leaf_lane_offsets<Op>(x + start, count, e);
    lane_bases<Op>(totals.root(), e, b, W);
    leaf_outputs<Op>(x + start, count, b, y + start);
    totals.push(total, 1);
  }
}

}  // namespace DETRED_ORDER_ABI
}  // namespace detred::order
