// SPDX-License-Identifier: BSD-3-Clause
// The summary statistics in one pass: count, sum, M2 (the sum of squared deviations from the mean), min and max.
//
// Inside a leaf, each lane keeps its sum exactly as tree mode's sum does (so stats' sum is bit for bit detred::sum
// in tree mode), and the sums of d = x - k and d^2 about a shift k taken from the data: the lane's first element.
// A shift from the data keeps the cancellation in M2 = sum d^2 - (sum d)^2 / c small without a second pass over
// memory. The lane tree joins two lanes without a division by re-expressing the right lane's sums about the left
// lane's shift (delta = k_b - k_a):
//   sum (x - k_a) = D1_b + c_b delta,   sum (x - k_a)^2 = D2_b + 2 delta D1_b + c_b delta^2,
// so a leaf ends with every sum about the shift of its first lane. Lanes keep min and max as totalOrder keys
// (lane_values.hpp): one integer min and max per element, NaN sorting to either end by its sign; the leaf's node
// turns a NaN at either end into NaN for both, which is the selection rule (NaN propagates to min and max). The sums
// are an operator of their own, moment_sums, so that an engine may carry them apart from the keys (the GPU keeps the
// keys per thread: lib/cuda/thread_extremes.cuh).
//
// The leaf's node holds its count (64 bits), sum, M2, and its shift k with the shifted sum D1 = sum (x - k) about it.
// Subtrees of the leaf tree join by Chan, Golub and LeVeque's pairwise update
//   M2 = M2_a + M2_b + delta^2 c_a c_b / (c_a + c_b),   delta = mean_b - mean_a,
// with the difference of the means formed from the shifts and the shifted sums,
//   delta = (k_b - k_a) + (D1_b / c_b - D1_a / c_a),
// never from the rounded sums: sum / c carries an error of about u |mean|, which for data with a large mean swamps
// a delta of the size of the spread (order version 1 did that). k_b - k_a is exact when the shifts are within a
// factor of two of each other (Sterbenz), which is the case that matters (a mean large against the spread); the
// other terms are of the size of the spread. docs/error-bounds.md bounds the result.
#pragma once

#include <cstdint>
#include <limits>

#include "detred/config.hpp"
#include "detred/order/arithmetic.hpp"
#include "detred/order/lane_values.hpp"
#include "detred/order/nrm2.hpp"
#include "detred/order/selection_ops.hpp"
#include "detred/statistics.hpp"

namespace detred::order {
inline namespace DETRED_ORDER_ABI {

/// The sums of a stats lane, and their arithmetic: moments_op's lanes are these plus the min and max keys. An
/// operator of its own (state, identity, accumulate, combine) so that an engine can run the lane tree over the sums
/// alone and keep the extremes elsewhere (the GPU keeps one pair a thread: which element is smallest does not depend on
/// how the elements are grouped).
template <class T>
struct moment_sums {
  using input = T;
  using value = T;
  static constexpr unsigned arity = 1;

  /// A lane: c elements, their sum, the shift k and the shifted sums.
  template <class V>
  struct lane_sums {
    V count;
    V sum;
    V shift;
    V shifted_sum;
    V shifted_squares;
  };
  template <class V>
  using state_of = lane_sums<V>;
  using state = state_of<T>;

  template <class V>
  DETRED_HOST_DEVICE static state_of<V> identity() {
    const V zero = splat<V>(T(0));
    return {zero, splat<V>(order::identity<T>()), zero, zero, zero};
  }
  template <class V, class X>
  DETRED_HOST_DEVICE static state_of<V> accumulate(state_of<V> s, X x) {
    s.shift = s.count == T(0) ? V(x) : s.shift;
    return accumulate_later(s, x);
  }
  /// accumulate for a lane that already holds an element (its shift is set): the engines' rows after the first.
  template <class V, class X>
  DETRED_HOST_DEVICE static state_of<V> accumulate_later(state_of<V> s, X x) {
    const V d = x - s.shift;
    return {s.count + T(1), s.sum + x, s.shift, s.shifted_sum + d, s.shifted_squares + d * d};
  }
  /// M2 of a lane state: shifted_squares - shifted_sum (shifted_sum / count) (0 for an empty lane, whose sums are
  /// 0). The quotient first: |shifted_sum / count| is at most the data's range, so the product overflows only where
  /// count range^2 does, never where shifted_sum^2 alone would.
  template <class V>
  DETRED_HOST_DEVICE static V m2(const state_of<V>& s) {
    const V count = s.count == T(0) ? splat<V>(T(1)) : s.count;
    return s.shifted_squares - s.shifted_sum * (s.shifted_sum / count);
  }
  /// Two lanes of the lane tree: b's shifted sums re-expressed about a's shift, then added; no division. An empty
  /// side leaves the other as it is (sum included: -0.0 + s == s is what tree mode's sum does).
  template <class V>
  DETRED_HOST_DEVICE static state_of<V> combine(state_of<V> a, state_of<V> b) {
    const V delta = b.shift - a.shift;
    const auto a_empty = a.count == T(0);
    const auto b_empty = b.count == T(0);
    state_of<V> r;
    r.count = a.count + b.count;
    r.sum = a.sum + b.sum;
    r.shift = a_empty ? b.shift : a.shift;
    const V d1 = a.shifted_sum + (b.shifted_sum + b.count * delta);
    const V d2 = a.shifted_squares + (b.shifted_squares + (T(2) * delta * b.shifted_sum + b.count * delta * delta));
    r.shifted_sum = a_empty ? b.shifted_sum : (b_empty ? a.shifted_sum : d1);
    r.shifted_squares = a_empty ? b.shifted_squares : (b_empty ? a.shifted_squares : d2);
    return r;
  }
};

template <class T>
struct moments_op {
  using input = T;
  using value = T;
  using result = statistics<T>;
  static constexpr unsigned arity = 1;
  using low = selection<T, smallest>;
  using high = selection<T, largest>;
  using sums = moment_sums<T>;

  /// A lane: the sums of moment_sums; the totalOrder keys of min and max.
  template <class V>
  struct lane_moments {
    V count;
    V sum;
    V shift;
    V shifted_sum;
    V shifted_squares;
    V min;
    V max;
  };
  template <class V>
  using state_of = lane_moments<V>;
  using state = state_of<T>;

  /// A subtree of the leaf tree: count, the sum (tree mode's), the shift k (the subtree's first element) and the
  /// shifted sum D1 = sum (x - k), M2, and the extremes.
  struct node {
    std::uint64_t count;
    T sum;
    T shift;
    T shifted_sum;
    T m2;
    T min;
    T max;
  };

  template <class V>
  DETRED_HOST_DEVICE static typename sums::template state_of<V> sums_of(const state_of<V>& s) {
    return {s.count, s.sum, s.shift, s.shifted_sum, s.shifted_squares};
  }
  template <class V>
  DETRED_HOST_DEVICE static state_of<V> with_keys(const typename sums::template state_of<V>& s, V min, V max) {
    return {s.count, s.sum, s.shift, s.shifted_sum, s.shifted_squares, min, max};
  }

  template <class V>
  DETRED_HOST_DEVICE static state_of<V> identity() {
    return with_keys(sums::template identity<V>(), total_order_key(splat<V>(low::identity())),
                     total_order_key(splat<V>(high::identity())));
  }
  template <class V, class X>
  DETRED_HOST_DEVICE static state_of<V> accumulate(state_of<V> s, X x) {
    const V key = total_order_key(V(x));
    return with_keys(sums::accumulate(sums_of(s), x), smaller_key(s.min, key), larger_key(s.max, key));
  }
  template <class V, class X>
  DETRED_HOST_DEVICE static state_of<V> accumulate_later(state_of<V> s, X x) {
    const V key = total_order_key(V(x));
    return with_keys(sums::accumulate_later(sums_of(s), x), smaller_key(s.min, key), larger_key(s.max, key));
  }
  template <class V>
  DETRED_HOST_DEVICE static state_of<V> combine(state_of<V> a, state_of<V> b) {
    return with_keys(sums::combine(sums_of(a), sums_of(b)), smaller_key(a.min, b.min), larger_key(a.max, b.max));
  }

  DETRED_HOST_DEVICE static node to_node(const state& root) {
    const T min = total_order_key(root.min);
    const T max = total_order_key(root.max);
    const bool nan = is_nan(min) || is_nan(max);
    return {static_cast<std::uint64_t>(root.count),
            root.sum,
            canonical(root.shift),
            canonical(root.shifted_sum),
            canonical(sums::m2(sums_of(root))),
            nan ? canonical_nan<T>() : min,
            nan ? canonical_nan<T>() : max};
  }
  /// n with the min and max of more elements joined in, given as the smallest and largest of their totalOrder keys:
  /// for engines that keep the extremes apart from the lanes (the GPU keeps one pair a thread). The same NaN rule as
  /// to_node, so the result is the node the lanes would have given.
  DETRED_HOST_DEVICE static node with_extremes(const node& n, T min_key, T max_key) {
    const node e = to_node(with_keys(sums::template identity<T>(), min_key, max_key));
    return {n.count, n.sum, n.shift, n.shifted_sum, n.m2, low::pick(n.min, e.min), high::pick(n.max, e.max)};
  }
  DETRED_HOST_DEVICE static constexpr node empty_node() {
    return {0, order::identity<T>(), T(0), T(0), T(0), low::identity(), high::identity()};
  }
  /// Chan's update on subtrees, the counts converted to T where they meet the sums. The means' difference comes from
  /// the shifts and the shifted sums (the header comment); the joined node keeps a's shift, b's shifted sum
  /// re-expressed about it as in the lane tree. NaNs are stored canonical (a NaN's sign and payload from Inf - Inf
  /// differ between instruction sets, and nodes are compared and hashed as bytes).
  DETRED_HOST_DEVICE static node merge(node a, node b) {
    if (a.count == 0) return {b.count, a.sum + b.sum, b.shift, b.shifted_sum, b.m2, b.min, b.max};
    if (b.count == 0) return {a.count, a.sum + b.sum, a.shift, a.shifted_sum, a.m2, a.min, a.max};
    const std::uint64_t count = a.count + b.count;
    const T ca = static_cast<T>(a.count);
    const T cb = static_cast<T>(b.count);
    const T shift_delta = b.shift - a.shift;
    const T delta = shift_delta + (b.shifted_sum / cb - a.shifted_sum / ca);
    const T m2 = (a.m2 + b.m2) + delta * delta * (ca * cb / static_cast<T>(count));
    const T shifted_sum = a.shifted_sum + (b.shifted_sum + cb * shift_delta);
    return {count,
            a.sum + b.sum,
            a.shift,
            canonical(shifted_sum),
            canonical(m2),
            low::pick(a.min, b.min),
            high::pick(a.max, b.max)};
  }
  /// The statistics. NaN among the values (or Inf - Inf) makes sum, mean and the variances NaN; an M2 made
  /// slightly negative by rounding reads as 0; an M2 of -Inf (an overflowed subtrahend: data whose count times
  /// squared range passes the largest finite value) reads as NaN, since nothing is known of it.
  DETRED_HOST_DEVICE static statistics<T> finalize(node root) {
    const T nan = canonical_nan<T>();
    statistics<T> r{};
    r.count = root.count;
    r.sum = canonical(root.sum);
    if (root.count == 0) {
      r.mean = r.variance = r.sample_variance = r.stddev = r.sample_stddev = r.min = r.max = nan;
      return r;
    }
    const T n = static_cast<T>(root.count);
    const T m2 = is_nan(root.m2) || root.m2 >= T(0) ? root.m2 : (is_finite(root.m2) ? T(0) : nan);
    r.mean = canonical(root.sum / n);
    r.variance = canonical(is_finite(root.sum) ? m2 / n : nan);
    r.sample_variance = root.count > 1 ? canonical(is_finite(root.sum) ? m2 / (n - T(1)) : nan) : nan;
    r.stddev = canonical(square_root(r.variance));
    r.sample_stddev = canonical(square_root(r.sample_variance));
    r.min = canonical(root.min);
    r.max = canonical(root.max);
    return r;
  }
};

}  // namespace DETRED_ORDER_ABI
}  // namespace detred::order
