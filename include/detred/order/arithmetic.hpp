// SPDX-License-Identifier: BSD-3-Clause
// The floating-point building blocks of the order's operators: the identity, the canonical NaN, and TwoSum.
// Each is written once, generic over the value type V: a scalar T, or a SIMD vector of T whose elements are
// independent lanes (GCC/Clang vector extensions, where + and - are element-wise IEEE operations). The SIMD code
// runs these very functions on whole registers; nothing re-spells them.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "detred/config.hpp"
#include "detred/order/shape.hpp"

namespace detred::order {

/// Compensated mode's accumulator: the sum and the running correction (V a scalar or a vector of lanes).
template <class V>
struct pair {
  V sum;
  V correction;
};

inline namespace DETRED_ORDER_ABI {

/// A V with every lane equal to x: x itself for a scalar V.
template <class V, class T>
DETRED_HOST_DEVICE constexpr V splat(T x) {
  if constexpr (std::is_same_v<V, T>) {
    return x;
  } else {
    V v{};
    for (std::uint64_t i = 0; i < sizeof(V) / sizeof(T); ++i) v[i] = x;
    return v;
  }
}

/// The sum identity. -0.0, not +0.0: (-0.0) + x == x bit for bit for every x, so a sum of -0.0s stays -0.0 and
/// padding a ragged leaf with the identity changes nothing.
template <class T>
DETRED_HOST_DEVICE constexpr T identity() {
  return T(-0.0);
}

/// True for NaN. Written as a comparison so that it is constexpr and identical on host and device.
template <class T>
DETRED_HOST_DEVICE constexpr bool is_nan(T x) {
  return x != x;
}

/// True for finite x: x - x is 0 for finite x and NaN for +-Inf and NaN.
template <class T>
DETRED_HOST_DEVICE constexpr bool is_finite(T x) {
  return (x - x) == (x - x);
}

/// The one NaN every reduction returns: the positive quiet NaN with an empty payload (0x7ff8000000000000 for
/// double, 0x7fc00000 for float). x86 and CUDA propagate NaN payloads differently; this removes the difference.
template <class T>
DETRED_HOST_DEVICE constexpr T canonical_nan() {
  return std::numeric_limits<T>::quiet_NaN();
}

/// NaN made canonical; every other value unchanged. The NaN rule of every floating-point sum.
template <class T>
DETRED_HOST_DEVICE constexpr T canonical(T x) {
  return is_nan(x) ? canonical_nan<T>() : x;
}

/// Knuth's TwoSum, branch-free, six operations in exactly this order: s + e == a + b exactly (barring overflow).
template <class V>
DETRED_HOST_DEVICE constexpr pair<V> two_sum(V a, V b) {
  const V s = a + b;
  const V bb = s - a;
  const V e = (a - (s - bb)) + (b - bb);
  return {s, e};
}

}  // namespace DETRED_ORDER_ABI
}  // namespace detred::order
