// SPDX-License-Identifier: BSD-3-Clause
// The Euclidean norm sqrt(sum x_i^2), safe from overflow and underflow by Blue's three accumulators: each element's
// square goes to the accumulator of its magnitude class, scaled there by a fixed power of two (the constants of
// LAPACK's la_xnrm2, Anderson 2017). The scaling depends on each element alone, never on the data seen so far or on
// the partition, so it is exact (a power of two applied to a value that stays normal) and the same on every backend.
#pragma once

#include <cmath>
#include <cstdint>

#include "detred/config.hpp"
#include "detred/order/accumulation.hpp"
#include "detred/order/lane_values.hpp"
#include "detred/order/ops.hpp"

namespace detred::order {

/// Blue's thresholds and scalings for a type with p digits, exponents emin..emax (Fortran's conventions):
/// t_small = 2^ceil((emin - 1) / 2), t_big = 2^floor((emax - p + 1) / 2), s_small = 2^-floor((emin - p) / 2),
/// s_big = 2^-ceil((emax + p - 1) / 2).
template <class T>
struct blue_constants;
template <>
struct blue_constants<double> {
  static constexpr double t_small = 0x1p-511;
  static constexpr double t_big = 0x1p486;
  static constexpr double s_small = 0x1p537;
  static constexpr double s_big = 0x1p-538;
};
template <>
struct blue_constants<float> {
  static constexpr float t_small = 0x1p-63f;
  static constexpr float t_big = 0x1p52f;
  static constexpr float s_small = 0x1p75f;
  static constexpr float s_big = 0x1p-76f;
};

inline namespace DETRED_ORDER_ABI {

/// Correctly rounded square root on host and device.
template <class T>
DETRED_HOST_DEVICE inline T square_root(T x) {
#if defined(__CUDA_ARCH__)
  return ::sqrt(x);
#else
  return std::sqrt(x);
#endif
}

template <class Input, class Policy>
struct nrm2_op {
  using input = Input;
  using value = float_value_t<Input>;
  using result = value;
  static constexpr unsigned arity = 1;
  using constants = blue_constants<value>;

  /// The three sums of scaled squares: |x| < t_small scaled up by s_small, |x| > t_big scaled down by s_big, the
  /// rest (and NaN) unscaled.
  template <class V>
  struct scaled_squares {
    typename Policy::template acc<V> small;
    typename Policy::template acc<V> medium;
    typename Policy::template acc<V> big;
  };
  template <class V>
  using state_of = scaled_squares<V>;
  using state = state_of<value>;

  template <class V>
  DETRED_HOST_DEVICE static constexpr state_of<V> identity() {
    return {Policy::template zero<V>(), Policy::template zero<V>(), Policy::template zero<V>()};
  }
  /// Each accumulator takes the element's scaled square, or 0 * 0 when the element belongs to another class.
  template <class V, class X>
  DETRED_HOST_DEVICE static state_of<V> accumulate(state_of<V> s, X raw) {
    const V x = widen<V, Input>(raw);
    const V a = magnitude(x);
    const V zero = splat<V>(value(0));
    const V big = a > constants::t_big ? V(x * constants::s_big) : zero;
    const V small = a < constants::t_small ? V(x * constants::s_small) : zero;
    const V medium = ((a > constants::t_big) | (a < constants::t_small)) ? zero : x;
    return {Policy::add_product(s.small, small, small), Policy::add_product(s.medium, medium, medium),
            Policy::add_product(s.big, big, big)};
  }
  template <class S>
  DETRED_HOST_DEVICE static constexpr S combine(S left, S right) {
    return {Policy::join(left.small, right.small), Policy::join(left.medium, right.medium),
            Policy::join(left.big, right.big)};
  }
  /// LAPACK's combination of the three sums: the big sum absorbs the medium one (scaled down), or the small and
  /// medium sums are combined as sqrt(ymax^2 (1 + (ymin / ymax)^2)). NaN anywhere gives the canonical NaN; an
  /// infinite element gives +Inf.
  DETRED_HOST_DEVICE static value finalize(state root) {
    value big = Policy::value(root.big);
    const value medium = Policy::value(root.medium);
    const value small = Policy::value(root.small);
    if (is_nan(big) || is_nan(medium) || is_nan(small)) return canonical_nan<value>();
    if (big > 0) {
      if (medium > 0) big = big + (medium * constants::s_big) * constants::s_big;
      return square_root(big) / constants::s_big;
    }
    if (small > 0) {
      if (medium > 0) {
        const value y_medium = square_root(medium);
        const value y_small = square_root(small) / constants::s_small;
        const value y_min = y_small > y_medium ? y_medium : y_small;
        const value y_max = y_small > y_medium ? y_small : y_medium;
        const value ratio = y_min / y_max;
        return square_root(y_max * y_max * (value(1) + ratio * ratio));
      }
      return square_root(small) / constants::s_small;
    }
    return square_root(medium > 0 ? medium : value(0));
  }
};

}  // namespace DETRED_ORDER_ABI
}  // namespace detred::order
