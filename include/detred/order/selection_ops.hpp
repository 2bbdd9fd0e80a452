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

/// min or max of float, double or an integer type. Every element is exact, so mode does not apply.
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

/// argmin or argmax: lanes select the leaf's extremum as extremum_op does; the leaf's node is that value with the
/// index of the leaf's first element equal to it; subtrees keep the better value, the lower index on ties.
template <class T, class End>
struct locate_op : extremum_op<T, End> {
  using result = std::uint64_t;
  using node = located<T>;
  using rules = selection<T, End>;

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
