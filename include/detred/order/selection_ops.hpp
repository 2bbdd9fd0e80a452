// SPDX-License-Identifier: BSD-3-Clause
// min, max, argmin and argmax. Selection rounds nothing, so any order gives the same value; the rules that make the
// choice unique are the order's: NaN propagates (it is the smallest value for min and the largest for max), -0.0 is
// smaller than +0.0, and of equal values the one at the lowest index wins. argmin and argmax return the index of the
// first element equal, bit for bit, to the min or max (of the first NaN when there is one).
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "detred/config.hpp"
#include "detred/order/arithmetic.hpp"
#include "detred/order/lane_values.hpp"

namespace detred::order {

/// Which end a selection keeps.
struct smallest {};
struct largest {};

inline namespace DETRED_ORDER_ABI {

/// The selection rules for one end, on scalars and SIMD vectors of lanes.
template <class T, class End>
struct selection {
  /// What an empty lane holds: the far end of the range, which every element ties or beats.
  DETRED_HOST_DEVICE static constexpr T identity() {
    if constexpr (std::is_floating_point_v<T>) {
      return std::is_same_v<End, smallest> ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity();
    } else {
      return std::is_same_v<End, smallest> ? std::numeric_limits<T>::max() : std::numeric_limits<T>::lowest();
    }
  }
  /// The winner of a (lower index) and b: a on ties.
  template <class V>
  DETRED_HOST_DEVICE static V pick(const V& a, const V& b) {
    if constexpr (std::is_same_v<End, smallest>) {
      return min_of(a, b);
    } else {
      return max_of(a, b);
    }
  }
  /// True if x and y are the same value for selection: equal bits, or both NaN.
  DETRED_HOST_DEVICE static bool same(T x, T y) {
    if constexpr (std::is_floating_point_v<T>) {
      if (is_nan(x) || is_nan(y)) return is_nan(x) && is_nan(y);
      return signed_bits(x) == signed_bits(y);
    } else {
      return x == y;
    }
  }
};

/// The key of each lane for selecting the `End` end, in a lane of V's own type: as signed integers, keys order every
/// NaN below -Inf (smallest) or above +Inf (largest), and the numbers as totalOrder does (-0.0 < +0.0). They are
/// totalOrder's keys (total_order_key), which put negative NaNs at the bottom and positive ones at the top, turned
/// around the integer circle by P = key(+Inf) + 1 so that one end's NaNs join the other end's, then by 2^63 so that
/// signed comparison follows. The map is one-to-one, so picking the smaller or larger key picks the value min_of or
/// max_of would (equal keys are equal bits); selection_value undoes it.
template <class End, class E>
inline constexpr auto selection_turn = [] {
  using U = std::make_unsigned_t<signed_bits_t<E>>;
  constexpr U sign = U(1) << (8 * sizeof(U) - 1);
  constexpr U p = static_cast<U>(sizeof(E) == 8 ? 0x7ff0000000000001ull : 0x7f800001ull);  // bits of +Inf, plus 1
  return std::is_same_v<End, smallest> ? U(sign - p) : U(sign + p);
}();
template <class End, class V>
DETRED_HOST_DEVICE inline V selection_key(const V& x) {
  using UV = rebind_t<std::make_unsigned_t<signed_bits_t<element_t<V>>>, V>;
  return bit_cast_lanes<V>(UV(bit_cast_lanes<UV>(total_order_key(x)) + selection_turn<End, element_t<V>>));
}
/// The value of a selection_key.
template <class End, class V>
DETRED_HOST_DEVICE inline V selection_value(const V& key) {
  using UV = rebind_t<std::make_unsigned_t<signed_bits_t<element_t<V>>>, V>;
  return total_order_key(bit_cast_lanes<V>(UV(bit_cast_lanes<UV>(key) - selection_turn<End, element_t<V>>)));
}

/// min or max of float, double or an integer type. Every element is exact, so mode does not apply. Floating-point
/// lanes hold selection keys, so that a lane takes an element with one integer min or max (min_of and max_of take
/// five comparisons and a blend, which bound the CPU's min below memory speed); a leaf's node is the value again.
template <class T, class End>
struct extremum_op {
  using input = T;
  using value = T;
  using result = T;
  static constexpr unsigned arity = 1;
  using rules = selection<T, End>;
  template <class V>
  using state_of = V;
  using state = T;
  using node = T;
  static constexpr bool keyed = std::is_floating_point_v<T>;

  template <class V>
  DETRED_HOST_DEVICE static V identity() {
    if constexpr (keyed) {
      return selection_key<End>(splat<V>(rules::identity()));
    } else {
      return splat<V>(rules::identity());
    }
  }
  template <class V, class X>
  DETRED_HOST_DEVICE static V accumulate(V s, X x) {
    if constexpr (keyed) {
      return combine(s, selection_key<End>(V(x)));
    } else {
      return rules::pick(s, x);
    }
  }
  template <class V>
  DETRED_HOST_DEVICE static V combine(V left, V right) {
    if constexpr (!keyed) {
      return rules::pick(left, right);
    } else if constexpr (std::is_same_v<End, smallest>) {
      return smaller_key(left, right);
    } else {
      return larger_key(left, right);
    }
  }
  DETRED_HOST_DEVICE static node to_node(const state& root) {
    if constexpr (keyed) {
      return selection_value<End>(root);
    } else {
      return root;
    }
  }
  DETRED_HOST_DEVICE static constexpr node empty_node() { return rules::identity(); }
  DETRED_HOST_DEVICE static node merge(node left, node right) { return rules::pick(left, right); }
  /// NaN rule: the canonical NaN.
  DETRED_HOST_DEVICE static constexpr T finalize(T root) {
    if constexpr (std::is_floating_point_v<T>) {
      return canonical(root);
    } else {
      return root;
    }
  }
};

/// An element and its index in the whole array.
template <class T>
struct located {
  T value;
  std::uint64_t index;
};

/// argmin or argmax: lanes hold values and select the leaf's extremum by the rules (the engines search the leaf for
/// the root's value); the leaf's node is that value with the index of the leaf's first element equal to it;
/// subtrees keep the better value, the lower index on ties.
template <class T, class End>
struct locate_op {
  using input = T;
  using value = T;
  using result = std::uint64_t;
  static constexpr unsigned arity = 1;
  using rules = selection<T, End>;
  template <class V>
  using state_of = V;
  using state = T;
  using node = located<T>;

  template <class V>
  DETRED_HOST_DEVICE static constexpr V identity() {
    return splat<V>(rules::identity());
  }
  template <class V, class X>
  DETRED_HOST_DEVICE static V accumulate(V s, X x) {
    return rules::pick(s, x);
  }
  template <class V>
  DETRED_HOST_DEVICE static V combine(V left, V right) {
    return rules::pick(left, right);
  }
  DETRED_HOST_DEVICE static bool matches(T root, T x) { return rules::same(x, root); }
  DETRED_HOST_DEVICE static constexpr node to_node(T root, std::uint64_t match) { return {root, match}; }
  DETRED_HOST_DEVICE static constexpr node empty_node() { return {rules::identity(), ~std::uint64_t{0}}; }
  DETRED_HOST_DEVICE static node merge(node left, node right) {
    if (rules::same(left.value, right.value)) return right.index < left.index ? right : left;
    return rules::same(rules::pick(left.value, right.value), left.value) ? left : right;
  }
  DETRED_HOST_DEVICE static constexpr std::uint64_t finalize(node root) { return root.index; }
};

template <class T>
using min_op = extremum_op<T, smallest>;
template <class T>
using max_op = extremum_op<T, largest>;
template <class T>
using argmin_op = locate_op<T, smallest>;
template <class T>
using argmax_op = locate_op<T, largest>;

}  // namespace DETRED_ORDER_ABI
}  // namespace detred::order
