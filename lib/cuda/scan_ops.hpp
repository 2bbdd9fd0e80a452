// SPDX-License-Identifier: BSD-3-Clause
// The operators the GPU scans run: the floating-point scans are order::scan_op (the canonical scan order,
// detred/order/scan.hpp); the integer scans are exact, so any order gives the same outputs, and run the same kernels
// with a 128-bit exact sum as the lane state (integer_scan_op). Host and device code both include this.
#pragma once

#include <cstdint>
#include <type_traits>

#include "detred/config.hpp"
#include "detred/order/integer_sum.hpp"
#include "detred/order/scan.hpp"

namespace detred::cuda::detail {

/// True if the exact value s fits R (int64 or uint64): the integer scans' outputs, the _async integer sums.
template <class R>
DETRED_HOST_DEVICE constexpr bool fits_in(order::wide_integer s) {
  if constexpr (std::is_signed_v<R>) {
    return s.high == ((s.low >> 63) != 0 ? ~std::uint64_t{0} : 0);
  } else {
    return s.high == 0;
  }
}

/// The exact integer scan of I into R (int64 for signed I, uint64 for unsigned): the lane state is the exact sum in
/// 128 bits, which no prefix of up to 2^64 elements of 64 bits can overflow; an output that does not fit R is
/// refused (the kernels record the first one). The value type R fixes the leaf shape the kernels walk (64 lanes of
/// 32 elements), which for exact sums changes nothing but the launch.
template <class I, class R>
struct integer_scan_op {
  using input = I;
  using value = R;
  using result = R;
  using state = order::wide_integer;
  template <class V>
  using state_of = state;

  template <class V>
  DETRED_HOST_DEVICE static constexpr state identity() {
    return {0, 0};
  }
  template <class V>
  DETRED_HOST_DEVICE static constexpr state accumulate(state s, I v) {
    const auto low = static_cast<std::uint64_t>(v);
    const std::uint64_t high = std::is_signed_v<I> && v < 0 ? ~std::uint64_t{0} : 0;
    const std::uint64_t sum = s.low + low;
    return {sum, s.high + high + (sum < low ? 1u : 0u)};
  }
  DETRED_HOST_DEVICE static constexpr state combine(state a, state b) {
    const std::uint64_t sum = a.low + b.low;
    return {sum, a.high + b.high + (sum < a.low ? 1u : 0u)};
  }
  /// True if the exact value s fits R.
  DETRED_HOST_DEVICE static constexpr bool fits(state s) { return fits_in<R>(s); }
};

template <class Op>
inline constexpr bool is_integer_scan = false;
template <class I, class R>
inline constexpr bool is_integer_scan<integer_scan_op<I, R>> = true;

/// Where the kernels record the first output that does not fit (integer scans): the smallest such output index
/// (~0 if none) and its exact value; `lock` guards the three words. Lives in the workspace's device result slot.
struct overflow_record {
  std::uint64_t index;
  std::uint64_t low;
  std::uint64_t high;
  std::uint32_t lock;
  std::uint32_t is_signed;  ///< the result type that the value does not fit: int64 (1) or uint64 (0)
};

}  // namespace detred::cuda::detail
