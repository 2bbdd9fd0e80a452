// Reduction operators: what a reduction supplies to the engines that walk the canonical order.
//
// An operator says what happens at the three kinds of node of the order (docs/canonical-order.md):
//   input        the element type read from memory; it fixes the leaf shape (order::shape_of<input>)
//   state<V>     the accumulator of one lane or one subtree; V is the value type: input itself, or a SIMD vector of
//                input whose elements are independent lanes (the CPU engine runs whole registers of lanes)
//   identity     the state of an empty lane or subtree; combining with it changes nothing
//   accumulate   a lane takes its next element: state = accumulate(state, x)
//   combine      two sibling subtrees (or lanes) join: state = combine(left, right); left holds the lower indices
//   finalize     the root's state becomes the result, applying the operator's rule for NaN and special values
//
// Every engine (lib/reference, lib/cpu, lib/cuda) calls these functions and nothing else to do arithmetic, so a
// new reduction is one operator here plus its entry points. The state types must be plain aggregates of values of
// one lane type (the CPU engine moves lanes between registers and scalars by their layout, and the GPU shuffles them
// word by word).
#pragma once

#include <concepts>

#include "detred/config.hpp"
#include "detred/order/arithmetic.hpp"

namespace detred::order {

/// What an operator supplies; checked on the scalar value type.
template <class Op>
concept reduction_op = requires(typename Op::state s, typename Op::input x) {
  typename Op::input;
  typename Op::result;
  typename Op::state;
  requires std::same_as<typename Op::state, typename Op::template state_of<typename Op::input>>;
  { Op::template identity<typename Op::input>() } -> std::same_as<typename Op::state>;
  { Op::accumulate(s, x) } -> std::same_as<typename Op::state>;
  { Op::combine(s, s) } -> std::same_as<typename Op::state>;
  { Op::finalize(s) } -> std::same_as<typename Op::result>;
};

inline namespace DETRED_ORDER_ABI {

/// Tree mode's sum: plain additions. NaN rule: any NaN in the tree (a NaN input, or +Inf + -Inf) gives the
/// canonical NaN; finite sums may overflow to +-Inf.
template <class T>
struct sum_tree {
  using input = T;
  using result = T;
  template <class V>
  using state_of = V;
  using state = state_of<T>;

  template <class V>
  DETRED_HOST_DEVICE static constexpr V identity() {
    return splat<V>(order::identity<T>());
  }
  template <class V>
  DETRED_HOST_DEVICE static constexpr V accumulate(V lane, V x) {
    return lane + x;
  }
  template <class V>
  DETRED_HOST_DEVICE static constexpr V combine(V left, V right) {
    return left + right;
  }
  DETRED_HOST_DEVICE static constexpr T finalize(T root) { return canonical(root); }
};

/// Compensated mode's sum: an error-free (sum, correction) pair through the same tree. The sum component performs
/// exactly the additions of tree mode.
template <class T>
struct sum_compensated {
  using input = T;
  using result = T;
  template <class V>
  using state_of = pair<V>;
  using state = state_of<T>;

  template <class V>
  DETRED_HOST_DEVICE static constexpr pair<V> identity() {
    return {splat<V>(order::identity<T>()), splat<V>(order::identity<T>())};
  }
  /// (s, e) = TwoSum(s, x); c = c + e.
  template <class V>
  DETRED_HOST_DEVICE static constexpr pair<V> accumulate(pair<V> lane, V x) {
    const pair<V> t = two_sum(lane.sum, x);
    return {t.sum, lane.correction + t.correction};
  }
  /// (s, e) = TwoSum(s1, s2); c = (c1 + c2) + e.
  template <class V>
  DETRED_HOST_DEVICE static constexpr pair<V> combine(pair<V> left, pair<V> right) {
    const pair<V> t = two_sum(left.sum, right.sum);
    return {t.sum, (left.correction + right.correction) + t.correction};
  }
  /// The result:
  ///   - s not finite (an Inf or NaN among the inputs, or overflow): s, with NaN made canonical; this equals the
  ///     tree-mode result.
  ///   - c not finite (TwoSum's intermediate s - a overflowed although s did not): s, the tree-mode result; the
  ///     correction is lost but the result stays a number.
  ///   - c == 0: s. This keeps the sign of a zero sum (-0.0 + +0.0 would turn a sum of -0.0s into +0.0).
  ///   - otherwise: s + c.
  DETRED_HOST_DEVICE static constexpr T finalize(pair<T> root) {
    if (!is_finite(root.sum)) return canonical(root.sum);
    if (!is_finite(root.correction) || root.correction == T(0)) return root.sum;
    return root.sum + root.correction;
  }
};

}  // namespace DETRED_ORDER_ABI

static_assert(reduction_op<sum_tree<double>> && reduction_op<sum_tree<float>>);
static_assert(reduction_op<sum_compensated<double>> && reduction_op<sum_compensated<float>>);

}  // namespace detred::order
