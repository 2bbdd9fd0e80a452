// SPDX-License-Identifier: BSD-3-Clause
// How the sum-like operators (sum, dot, asum, nrm2) accumulate their terms in each mode: the mode is a policy, the
// operator says what the terms are. Generic over a scalar or a SIMD vector of lanes, like everything in order/.
#pragma once

#include "detred/config.hpp"
#include "detred/order/arithmetic.hpp"
#include "detred/order/lane_values.hpp"

namespace detred::order {
inline namespace DETRED_ORDER_ABI {

/// Tree mode: plain additions. The accumulator is the running sum itself.
struct plain_sums {
  /// join(s, zero()) == s for every s but a signalling NaN (which join would quieten, and finalize makes the
  /// canonical NaN either way): an engine may skip joins with lanes that never took an element (fold_live_lanes).
  static constexpr bool neutral_zero = true;
  template <class V>
  using acc = V;

  template <class V>
  DETRED_HOST_DEVICE static constexpr V zero() {
    return splat<V>(order::identity<element_t<V>>());
  }
  template <class V>
  DETRED_HOST_DEVICE static constexpr V add(V s, V term) {
    return s + term;
  }
  /// s + x * y: the product rounded, then the sum (never fused: the build forbids contraction).
  template <class V>
  DETRED_HOST_DEVICE static V add_product(V s, V x, V y) {
    return s + x * y;
  }
  template <class V>
  DETRED_HOST_DEVICE static constexpr V join(V left, V right) {
    return left + right;
  }
  /// NaN rule: any NaN in the tree gives the canonical NaN; finite sums may overflow to +-Inf.
  template <class T>
  DETRED_HOST_DEVICE static constexpr T value(T root) {
    return canonical(root);
  }
};

/// Compensated mode: an error-free (sum, correction) pair. The sum component performs exactly the additions of
/// tree mode; the correction collects their rounding errors (TwoSum) and, for products, the product's own rounding
/// error (TwoProduct by one fma): Ogita, Rump and Oishi's Sum2 and Dot2, in the canonical tree.
struct compensated_sums {
  template <class V>
  using acc = pair<V>;

  template <class V>
  DETRED_HOST_DEVICE static constexpr pair<V> zero() {
    return {splat<V>(order::identity<element_t<V>>()), splat<V>(order::identity<element_t<V>>())};
  }
  /// (s, e) = TwoSum(s, term); c = c + e.
  template <class V>
  DETRED_HOST_DEVICE static constexpr pair<V> add(pair<V> s, V term) {
    const pair<V> t = two_sum(s.sum, term);
    return {t.sum, s.correction + t.correction};
  }
  /// (p, pe) = TwoProduct(x, y); (s, e) = TwoSum(s, p); c = c + (pe + e).
  template <class V>
  DETRED_HOST_DEVICE static pair<V> add_product(pair<V> s, V x, V y) {
    const V p = x * y;
    const V product_error = fused_multiply_add(x, y, V(-p));
    const pair<V> t = two_sum(s.sum, p);
    return {t.sum, s.correction + (product_error + t.correction)};
  }
  /// (s, e) = TwoSum(s1, s2); c = (c1 + c2) + e.
  template <class V>
  DETRED_HOST_DEVICE static constexpr pair<V> join(pair<V> left, pair<V> right) {
    const pair<V> t = two_sum(left.sum, right.sum);
    return {t.sum, (left.correction + right.correction) + t.correction};
  }
  /// The result:
  ///   - s not finite (an Inf or NaN among the terms, or overflow): s, with NaN made canonical; this equals the
  ///     tree-mode result.
  ///   - c not finite (TwoSum's intermediate s - a, or a product error, overflowed although s did not): s, the
  ///     tree-mode result; the correction is lost but the result stays a number.
  ///   - c == 0: s. This keeps the sign of a zero sum (-0.0 + +0.0 would turn a sum of -0.0s into +0.0).
  ///   - otherwise: s + c.
  template <class T>
  DETRED_HOST_DEVICE static constexpr T value(pair<T> root) {
    if (!is_finite(root.sum)) return canonical(root.sum);
    if (!is_finite(root.correction) || root.correction == T(0)) return root.sum;
    return root.sum + root.correction;
  }
};

}  // namespace DETRED_ORDER_ABI
}  // namespace detred::order
