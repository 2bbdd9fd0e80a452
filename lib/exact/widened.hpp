// SPDX-License-Identifier: BSD-3-Clause
// 16-bit floats in exact mode: widened exactly to float a grain at a time (into buffers on the stack) and added by the
// float kernels. Every value keeps its value, so the exact state is the float kernel's over the widened values.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "detred/number_types.hpp"

namespace detred::exact_cpu {

template <class T>
inline constexpr bool is_half = std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

/// The type the exact kernels read for T: float for the 16-bit floats, T itself otherwise.
template <class T>
using kernel_type = std::conditional_t<is_half<T>, float, T>;

/// v as the kernels read it: exactly, a 16-bit float as its float.
template <class T>
kernel_type<T> widen(T v) {
  if constexpr (is_half<T>) {
    return to_float(v);
  } else {
    return v;
  }
}

/// Elements widened at a time: 4 KiB of floats per operand, one of the kernels' blocks.
inline constexpr std::uint64_t widened_grain = 1024;

/// body(a, b, m) for each grain of x[0..count) (and y[0..count), unless y is null), widened to float; y == x (a sum of
/// squares) widens its one array once and passes it as both.
template <class H, class Body>
void widened_grains(const H* x, const std::type_identity_t<H>* y, std::uint64_t count, Body body) {
  float a[widened_grain];
  float b[widened_grain];
  for (std::uint64_t at = 0; at < count; at += widened_grain) {
    const std::uint64_t m = std::min(widened_grain, count - at);
    for (std::uint64_t i = 0; i < m; ++i) a[i] = to_float(x[at + i]);
    if (y != nullptr && y != x) {
      for (std::uint64_t i = 0; i < m; ++i) b[i] = to_float(y[at + i]);
    }
    body(a, y == x ? a : b, m);
  }
}

}  // namespace detred::exact_cpu
