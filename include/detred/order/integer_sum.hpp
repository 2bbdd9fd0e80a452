// SPDX-License-Identifier: BSD-3-Clause
// Exact sums of integers. The result is the exact sum as a 128-bit two's complement integer, which no sum of up to
// 2^64 int64 or uint64 elements can overflow; the front door converts it to the result type or reports that it does
// not fit. Integer addition is associative, so any order gives these bits; the canonical order is followed anyway,
// so that the operator runs on the same engines as every other.
//
// Inside a leaf a lane adds two 64-bit sums, with no carry to propagate: for 64-bit elements, the low 32 bits of
// each element (as an unsigned number) and its high part (x >> 32, arithmetic for signed types); for 32-bit
// elements, the element itself, widened. A leaf has at most 2^11 elements, so neither sum can overflow: |low| < 2^43,
// |high| < 2^42. The leaf's node is the exact 128-bit value high * 2^32 + low, and nodes add with a carry.
#pragma once

#include <cstdint>
#include <type_traits>

#include "detred/config.hpp"
#include "detred/order/arithmetic.hpp"
#include "detred/order/lane_values.hpp"
#include "detred/order/shape.hpp"

namespace detred::order {

/// A 128-bit two's complement integer as two words: value = high * 2^64 + low, high read as signed.
struct wide_integer {
  std::uint64_t low;
  std::uint64_t high;
};

inline namespace DETRED_ORDER_ABI {

template <class I>
struct integer_sum_op {
  static_assert(std::is_integral_v<I> && (sizeof(I) == 4 || sizeof(I) == 8));
  using input = I;
  using value = std::uint64_t;
  using result = wide_integer;
  using node = wide_integer;
  static constexpr unsigned arity = 1;
  static_assert(leaf_size<value> <= (std::uint64_t{1} << 11), "the lane sums rely on leaves of at most 2^11");

  /// The lane's two sums, as 64-bit two's complement words.
  template <class V>
  struct halves {
    V low;
    V high;
  };
  template <class V>
  using state_of = halves<V>;
  using state = state_of<std::uint64_t>;

  template <class V>
  DETRED_HOST_DEVICE static constexpr state_of<V> identity() {
    return {splat<V>(std::uint64_t{0}), splat<V>(std::uint64_t{0})};
  }
  template <class V, class X>
  DETRED_HOST_DEVICE static state_of<V> accumulate(state_of<V> s, X x) {
    using S = rebind_t<std::int64_t, V>;
    if constexpr (sizeof(I) == 4) {
      // Sign- or zero-extended to 64 bits.
      const V wide = std::is_signed_v<I> ? bit_cast_lanes<V>(convert<S>(x)) : convert<V>(x);
      return {s.low + wide, s.high};
    } else {
      const V bits = bit_cast_lanes<V>(x);
      const V high = std::is_signed_v<I> ? bit_cast_lanes<V>(S(bit_cast_lanes<S>(x) >> 32)) : V(bits >> 32);
      return {s.low + (bits & 0xffffffffu), s.high + high};
    }
  }
  template <class V>
  DETRED_HOST_DEVICE static state_of<V> combine(state_of<V> a, state_of<V> b) {
    return {a.low + b.low, a.high + b.high};
  }

  /// The exact value of a leaf: low, or high * 2^32 + low for 64-bit elements, sign-extended to 128 bits.
  DETRED_HOST_DEVICE static node to_node(const state& s) {
    const auto sign_of = [](std::uint64_t w) { return (w >> 63) != 0 ? ~std::uint64_t{0} : std::uint64_t{0}; };
    if constexpr (sizeof(I) == 4) {
      return {s.low, std::is_signed_v<I> ? sign_of(s.low) : 0};
    } else {
      // low is in [0, 2^43); high * 2^32 as 128 bits is (high << 32, high >> 32 arithmetic or logical).
      const std::uint64_t shifted_low = s.high << 32;
      const std::uint64_t shifted_high =
          std::is_signed_v<I> ? static_cast<std::uint64_t>(static_cast<std::int64_t>(s.high) >> 32) : s.high >> 32;
      return add(node{shifted_low, shifted_high}, node{s.low, 0});
    }
  }
  DETRED_HOST_DEVICE static constexpr node empty_node() { return {0, 0}; }
  DETRED_HOST_DEVICE static constexpr node merge(node a, node b) { return add(a, b); }
  DETRED_HOST_DEVICE static constexpr wide_integer finalize(node root) { return root; }

 private:
  /// 128-bit addition; the carry out of the low words is low' < b.low.
  DETRED_HOST_DEVICE static constexpr node add(node a, node b) {
    const std::uint64_t low = a.low + b.low;
    return {low, a.high + b.high + (low < b.low ? 1u : 0u)};
  }
};

}  // namespace DETRED_ORDER_ABI
}  // namespace detred::order
