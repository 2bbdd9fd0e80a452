// Exact sums of integers: every lane and subtree holds a 128-bit two's complement sum as two 64-bit words, so no
// partial sum of up to 2^64 int64 or uint64 elements can overflow, and the sum is exact whatever the order. The
// result is the exact 128-bit value; the front door converts it to the result type or reports that it does not fit.
#pragma once

#include <cstdint>
#include <type_traits>

#include "detred/config.hpp"
#include "detred/order/arithmetic.hpp"
#include "detred/order/lane_values.hpp"

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
  static constexpr unsigned arity = 1;

  template <class V>
  struct words {
    V low;
    V high;
  };
  template <class V>
  using state_of = words<V>;
  using state = state_of<std::uint64_t>;

  template <class V>
  DETRED_HOST_DEVICE static constexpr state_of<V> identity() {
    return {splat<V>(std::uint64_t{0}), splat<V>(std::uint64_t{0})};
  }
  /// (low, high) += x, x sign- or zero-extended to 128 bits; the carry out of low is low' < addend.
  template <class V, class X>
  DETRED_HOST_DEVICE static state_of<V> accumulate(state_of<V> s, X x) {
    V low_addend;
    V high_addend;
    if constexpr (std::is_signed_v<I>) {
      const auto wide = convert<rebind_t<std::int64_t, V>>(x);
      low_addend = bit_cast_lanes<V>(wide);
      high_addend = bit_cast_lanes<V>(decltype(wide)(wide >> 63));
    } else {
      low_addend = convert<V>(x);
      high_addend = splat<V>(std::uint64_t{0});
    }
    return add(s, low_addend, high_addend);
  }
  template <class V>
  DETRED_HOST_DEVICE static state_of<V> combine(state_of<V> a, state_of<V> b) {
    return add(a, b.low, b.high);
  }
  DETRED_HOST_DEVICE static constexpr wide_integer finalize(state root) { return {root.low, root.high}; }

 private:
  template <class V>
  DETRED_HOST_DEVICE static state_of<V> add(state_of<V> s, V low, V high) {
    const V sum = s.low + low;
    const V carry = sum < low ? splat<V>(std::uint64_t{1}) : splat<V>(std::uint64_t{0});
    return {sum, s.high + high + carry};
  }
};

}  // namespace DETRED_ORDER_ABI
}  // namespace detred::order
