// SPDX-License-Identifier: BSD-3-Clause
// Reduction operators: what a reduction supplies to the engines that walk the canonical order.
//
// An operator says what happens at the nodes of the order (docs/canonical-order.md):
//   input        the element type stored in memory (float, double, a 16-bit float, an integer)
//   arity        how many arrays it reads element by element: 1, or 2 for dot
//   value        the lane type: stored elements are widened exactly to it, and it fixes the leaf shape
//                (order::shape_of<value>)
//   state<V>     the accumulator of one lane, or of lanes joined by the lane tree; V is the value type itself, or a
//                SIMD vector of values whose elements are independent lanes (the CPU engine runs whole registers)
//   identity     the state of an empty lane; combining with it changes nothing
//   accumulate   a lane takes its next element(s): state = accumulate(state, x[, y]); x holds raw_t<input> lanes
//   combine      two lanes join in the lane tree: state = combine(left, right); left holds the lower indices
//   node         optional: what a leaf's root becomes for the leaf tree (default: the state itself). It may hold
//                more than a lane can, e.g. counts past 2^24 or an element's index.
//   to_node      optional: the leaf's node from the root of its lane tree. Operators that locate an element
//                (argmin) also declare matches(root, x): the engine passes the index of the leaf's first element
//                that matches.
//   merge        optional: two subtrees of the leaf tree join (default: combine); left holds the lower indices
//   empty_node   optional: the node of an empty subtree (default: the identity)
//   finalize     the root's node becomes the result, applying the operator's rule for NaN and special values;
//                an operator whose result needs the count of elements (the mean) takes it as a second argument,
//                and engines call finish(root, n) below, which passes it where it is wanted
//
// Every engine (lib/reference, lib/cpu, lib/cuda) calls these functions and the helpers below, and nothing else
// does arithmetic, so a new reduction is one operator plus its entry points. States must be plain aggregates of
// values of one lane type (the CPU engine moves lanes between registers and scalars by their layout); nodes are any
// trivially copyable type of whole 32-bit words (the GPU shuffles them word by word).
#pragma once

#include <concepts>
#include <cstdint>
#include <type_traits>

#include "detred/config.hpp"
#include "detred/order/accumulation.hpp"
#include "detred/order/arithmetic.hpp"
#include "detred/order/lane_values.hpp"

namespace detred::order {

template <class Op>
struct node_trait {
  using type = typename Op::state;
};
template <class Op>
requires requires { typename Op::node; }
struct node_trait<Op> {
  using type = typename Op::node;
};
/// The type of a leaf's root and of every subtree of the leaf tree.
template <class Op>
using node_of = typename node_trait<Op>::type;

/// True for operators that locate an element (argmin, argmax): their leaves need the index of a matching element.
/// A concept, so that an operator without a lane state (exact mode's) is simply not one.
template <class Op>
concept locates_element = requires(typename Op::state s, typename Op::value x) {
  Op::matches(s, x);
};

/// The result of the array of n elements whose root is `root`: Op::finalize(root), or Op::finalize(root, n) for an
/// operator whose finish divides by the count (mean_op). Every engine finishes through this.
template <class Op>
DETRED_HOST_DEVICE constexpr typename Op::result finish(const node_of<Op>& root, std::uint64_t n) {
  if constexpr (requires { Op::finalize(root, n); }) {
    return Op::finalize(root, n);
  } else {
    return Op::finalize(root);
  }
}

/// What an operator supplies; checked on the scalar value type.
template <class Op>
concept reduction_op = requires(typename Op::state s, node_of<Op> n) {
  typename Op::input;
  typename Op::value;
  typename Op::result;
  requires Op::arity == 1 || Op::arity == 2;
  requires std::same_as<typename Op::state, typename Op::template state_of<typename Op::value>>;
  { Op::template identity<typename Op::value>() } -> std::same_as<typename Op::state>;
  { Op::combine(s, s) } -> std::same_as<typename Op::state>;
  { finish<Op>(n, std::uint64_t{1}) } -> std::same_as<typename Op::result>;
};

inline namespace DETRED_ORDER_ABI {

/// The node of an empty subtree.
template <class Op>
DETRED_HOST_DEVICE constexpr node_of<Op> empty_node() {
  if constexpr (requires { Op::empty_node(); }) {
    return Op::empty_node();
  } else {
    return Op::template identity<typename Op::value>();
  }
}

/// Two subtrees of the leaf tree joined; left holds the lower indices.
template <class Op>
DETRED_HOST_DEVICE constexpr node_of<Op> merge(const node_of<Op>& left, const node_of<Op>& right) {
  if constexpr (requires { Op::merge(left, right); }) {
    return Op::merge(left, right);
  } else {
    return Op::combine(left, right);
  }
}

/// A leaf's node from the root of its lane tree; `match` is the index (in the whole array) of the leaf's first
/// element that Op::matches, for operators that locate one, and ignored otherwise.
template <class Op>
DETRED_HOST_DEVICE constexpr node_of<Op> to_node(const typename Op::state& root, std::uint64_t match) {
  if constexpr (locates_element<Op>) {
    return Op::to_node(root, match);
  } else if constexpr (requires { Op::to_node(root); }) {
    return Op::to_node(root);
  } else {
    return root;
  }
}

/// True for operators whose identity is neutral bit for bit: combine(s, identity) == s for every lane state s (up to
/// the quieting of a signalling NaN, which finalize hides). Declared by a policy (plain_sums) or an operator as
/// `static constexpr bool neutral_zero = true`; absent means false.
template <class Op>
inline constexpr bool neutral_identity = requires {
  requires Op::neutral_zero;
};

/// The lane type of a floating-point input: double for double, float for float and the 16-bit types.
template <class Input>
using float_value_t = std::conditional_t<std::is_same_v<Input, double>, double, float>;

/// What every sum of one term per element shares (sum, dot, asum): the mode's policy (accumulation.hpp) holds the
/// accumulator, joins lanes and subtrees, and finalizes; the operator only says what an element's term is.
template <class Input, class Policy, unsigned Arity>
struct summing {
  using input = Input;
  using value = float_value_t<Input>;
  using result = value;
  static constexpr unsigned arity = Arity;
  template <class V>
  using state_of = typename Policy::template acc<V>;
  using state = state_of<value>;
  static constexpr bool neutral_zero = requires { requires Policy::neutral_zero; };

  template <class V>
  DETRED_HOST_DEVICE static constexpr state_of<V> identity() {
    return Policy::template zero<V>();
  }
  template <class S>
  DETRED_HOST_DEVICE static constexpr S combine(S left, S right) {
    return Policy::join(left, right);
  }
  DETRED_HOST_DEVICE static constexpr value finalize(state root) { return Policy::value(root); }
};

/// The sum, sum x_i, of float, double or a 16-bit float (widened exactly to float).
template <class Input, class Policy>
struct sum_op : summing<Input, Policy, 1> {
  template <class V>
  using state_of = typename Policy::template acc<V>;
  template <class V, class X>
  DETRED_HOST_DEVICE static state_of<V> accumulate(state_of<V> s, X x) {
    return Policy::add(s, widen<V, Input>(x));
  }
};

/// The dot product, sum x_i * y_i (two arrays of the same type and length).
template <class Input, class Policy>
struct dot_op : summing<Input, Policy, 2> {
  template <class V>
  using state_of = typename Policy::template acc<V>;
  template <class V, class X>
  DETRED_HOST_DEVICE static state_of<V> accumulate(state_of<V> s, X x, X y) {
    return Policy::add_product(s, widen<V, Input>(x), widen<V, Input>(y));
  }
};

/// The absolute sum, sum |x_i|.
template <class Input, class Policy>
struct asum_op : summing<Input, Policy, 1> {
  template <class V>
  using state_of = typename Policy::template acc<V>;
  template <class V, class X>
  DETRED_HOST_DEVICE static state_of<V> accumulate(state_of<V> s, X x) {
    return Policy::add(s, magnitude(widen<V, Input>(x)));
  }
};

/// The sum of squares, sum x_i^2 (RMSNorm's statistic): each square a product of the policy (rounded in tree mode,
/// TwoProduct in compensated mode), so bit for bit dot(x, x).
template <class Input, class Policy>
struct sumsq_op : summing<Input, Policy, 1> {
  template <class V>
  using state_of = typename Policy::template acc<V>;
  template <class V, class X>
  DETRED_HOST_DEVICE static state_of<V> accumulate(state_of<V> s, X x) {
    const V v = widen<V, Input>(x);
    return Policy::add_product(s, v, v);
  }
};

/// The mean, sum x_i / n: the sum's operator, finished by one division by the count converted to the value type (a
/// float count rounds past 2^24 elements), so in tree mode bit for bit detred::stats' mean. Its finalize takes the
/// count, which hides the sum's: an engine that forgot the count would not compile.
template <class Input, class Policy>
struct mean_op : sum_op<Input, Policy> {
  using value = float_value_t<Input>;
  using state = typename Policy::template acc<value>;
  DETRED_HOST_DEVICE static value finalize(state root, std::uint64_t n) {
    return canonical(Policy::value(root) / static_cast<value>(n));
  }
};

/// Tree mode's sum: plain additions. (The names of order version 1.)
template <class T>
using sum_tree = sum_op<T, plain_sums>;
/// Compensated mode's sum: an error-free (sum, correction) pair through the same tree.
template <class T>
using sum_compensated = sum_op<T, compensated_sums>;

}  // namespace DETRED_ORDER_ABI

static_assert(reduction_op<sum_tree<double>> && reduction_op<sum_tree<float>>);
static_assert(reduction_op<sum_compensated<double>> && reduction_op<sum_compensated<float>>);

}  // namespace detred::order
